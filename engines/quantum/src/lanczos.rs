//! The ground state of a chain by Lanczos on the 2^L amplitudes, matrix-free, with full
//! reorthogonalisation (classical Gram–Schmidt twice) and restarts from the current Ritz
//! vector.
//!
//! The start vector lies in the symmetry sector that holds the ground state, so Lanczos never
//! mixes a degenerate partner in: S_z = 0 (S_z = ½ for odd L) for the Heisenberg chain, whose
//! ground state is in the lowest |S_z| sector; the even sector of the global spin flip Π X_i
//! for the TFIM, whose ground state has positive amplitudes (Perron–Frobenius: every
//! off-diagonal element is −h_i ≤ 0), hence is flip-symmetric.

use benchtop_compute::error::ARRAY_LIMIT_BYTES;
use benchtop_compute::{CancelToken, ComputeError};
use nalgebra::{DMatrix, SymmetricEigen};
use rand::Rng as _;
use serde::{Deserialize, Serialize};

use crate::hamiltonian::{Chain, Model};

/// How hard Lanczos tries.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LanczosSettings {
    /// Krylov vectors per restart.
    pub krylov: usize,
    /// Restarts allowed after the first run.
    pub restarts: usize,
    /// Converged when the Ritz residual ‖Hv − θv‖ is below this times max(1, |θ|).
    pub tolerance: f64,
}

impl Default for LanczosSettings {
    fn default() -> Self {
        Self {
            krylov: 160,
            restarts: 20,
            tolerance: 1e-11,
        }
    }
}

/// A ground state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroundState {
    /// E₀.
    pub energy: f64,
    /// The normalised amplitudes (real: both models are real symmetric).
    pub vector: Vec<f64>,
    /// Matrix–vector products used.
    pub products: usize,
    /// The final residual ‖Hv − E₀v‖.
    pub residual: f64,
}

/// Every this many Krylov steps the tridiagonal matrix is diagonalised to test convergence.
const CHECK_EVERY: usize = 6;

/// The seeded start vector in the ground state's symmetry sector.
pub fn start_vector(chain: &Chain, seed: u64) -> Vec<f64> {
    let dim = chain.dimension();
    let mut rng = benchtop_compute::rng::seeded(seed);
    let mut v: Vec<f64> = (0..dim).map(|_| rng.random::<f64>() - 0.5).collect();
    match chain.model {
        Model::Heisenberg => {
            let down = chain.sites / 2;
            for (s, x) in v.iter_mut().enumerate() {
                if s.count_ones() as usize != down {
                    *x = 0.0;
                }
            }
        }
        Model::Tfim => {
            let all = dim - 1;
            for s in 0..dim {
                let t = s ^ all;
                if s < t {
                    let mean = 0.5 * (v[s] + v[t]);
                    v[s] = mean;
                    v[t] = mean;
                }
            }
        }
    }
    v
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}

fn normalise(v: &mut [f64]) -> f64 {
    let norm = dot(v, v).sqrt();
    if norm > 0.0 {
        for x in v.iter_mut() {
            *x /= norm;
        }
    }
    norm
}

/// The lowest eigenpair of the tridiagonal matrix with diagonal `alpha` and off-diagonal
/// `beta` (one shorter).
fn lowest_ritz(alpha: &[f64], beta: &[f64]) -> (f64, Vec<f64>) {
    let k = alpha.len();
    let mut t = DMatrix::zeros(k, k);
    for i in 0..k {
        t[(i, i)] = alpha[i];
        if i + 1 < k {
            t[(i, i + 1)] = beta[i];
            t[(i + 1, i)] = beta[i];
        }
    }
    let eigen = SymmetricEigen::new(t);
    let (index, value) =
        eigen
            .eigenvalues
            .iter()
            .enumerate()
            .fold(
                (0, f64::INFINITY),
                |best, (i, &v)| if v < best.1 { (i, v) } else { best },
            );
    (
        value,
        eigen.eigenvectors.column(index).iter().copied().collect(),
    )
}

/// The ground state of `chain` from the sector start vector of `seed`.
pub fn ground_state(
    chain: &Chain,
    seed: u64,
    settings: &LanczosSettings,
    cancel: &CancelToken,
) -> Result<GroundState, ComputeError> {
    if !(2..=4096).contains(&settings.krylov) {
        return Err(ComputeError::invalid("krylov", "choose 2 to 4096"));
    }
    if !(settings.tolerance.is_finite() && settings.tolerance > 0.0) {
        return Err(ComputeError::invalid("tolerance", "must be finite and > 0"));
    }
    let dim = chain.dimension();
    let krylov = settings.krylov.min(dim);
    ComputeError::check_memory(
        &[("sites", dim), ("krylov", krylov + 1)],
        8,
        ARRAY_LIMIT_BYTES,
    )?;
    let op = chain.operator();
    let scale = op.norm_bound().max(1e-300);
    let mut start = start_vector(chain, seed);
    if normalise(&mut start) == 0.0 {
        return Err(ComputeError::Numerical("the start vector is zero".into()));
    }
    let mut products = 0;
    let mut w = vec![0.0; dim];
    let mut best: Option<GroundState> = None;
    for _restart in 0..=settings.restarts {
        let mut basis: Vec<Vec<f64>> = vec![start.clone()];
        let mut alpha: Vec<f64> = Vec::with_capacity(krylov);
        let mut beta: Vec<f64> = Vec::with_capacity(krylov);
        let mut ritz = (f64::NAN, Vec::new());
        let mut converged = false;
        for k in 0..krylov {
            cancel.check()?;
            op.apply(&basis[k], &mut w);
            products += 1;
            let a = dot(&basis[k], &w);
            alpha.push(a);
            // Full reorthogonalisation, twice (classical Gram–Schmidt is then as good as
            // modified): w ⟂ every basis vector.
            for _ in 0..2 {
                let coefficients: Vec<f64> = basis.iter().map(|q| dot(q, &w)).collect();
                for (q, c) in basis.iter().zip(coefficients) {
                    axpy(-c, q, &mut w);
                }
            }
            let b = dot(&w, &w).sqrt();
            let invariant = b < 1e-13 * scale;
            let last = k + 1 == krylov;
            if invariant || last || (k + 1) % CHECK_EVERY == 0 {
                ritz = lowest_ritz(&alpha, &beta);
                let residual = b * ritz.1.last().map_or(0.0, |y| y.abs());
                if invariant || residual < settings.tolerance * ritz.0.abs().max(1.0) {
                    converged = true;
                }
                if converged || last {
                    break;
                }
            }
            beta.push(b);
            let next: Vec<f64> = w.iter().map(|x| x / b).collect();
            basis.push(next);
        }
        // The Ritz vector V y.
        let mut vector = vec![0.0; dim];
        for (q, y) in basis.iter().zip(&ritz.1) {
            axpy(*y, q, &mut vector);
        }
        normalise(&mut vector);
        op.apply(&vector, &mut w);
        products += 1;
        let energy = dot(&vector, &w);
        axpy(-energy, &vector, &mut w);
        let residual = dot(&w, &w).sqrt();
        let state = GroundState {
            energy,
            vector,
            products,
            residual,
        };
        if converged || residual < settings.tolerance * energy.abs().max(1.0) {
            return Ok(state);
        }
        start.clone_from(&state.vector);
        best = Some(state);
    }
    let residual = best.as_ref().map_or(f64::NAN, |s| s.residual);
    Err(ComputeError::Numerical(format!(
        "Lanczos did not converge on {} sites after {} restarts (residual {residual:.1e}); \
         raise the Krylov size",
        chain.sites, settings.restarts
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hamiltonian::Boundary;

    fn dense_ground(chain: &Chain) -> f64 {
        let eigen = SymmetricEigen::new(chain.dense().unwrap());
        eigen
            .eigenvalues
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
    }

    #[test]
    fn quantum_lanczos_equals_dense_diagonalisation_up_to_eight_sites() {
        let mut rng = benchtop_compute::rng::seeded(11);
        let settings = LanczosSettings::default();
        let mut worst = 0.0_f64;
        for sites in 2..=8 {
            for model in [Model::Heisenberg, Model::Tfim] {
                for boundary in [Boundary::Open, Boundary::Periodic] {
                    for uniform in [true, false] {
                        let chain =
                            Chain::random(model, boundary, sites, 2.0, 2.0, uniform, &mut rng)
                                .unwrap();
                        let gs = ground_state(&chain, 5, &settings, &CancelToken::new()).unwrap();
                        let exact = dense_ground(&chain);
                        worst = worst.max((gs.energy - exact).abs());
                        assert!(
                            (gs.energy - exact).abs() < 1e-10,
                            "{model:?} {boundary:?} L={sites}: {} vs {exact}",
                            gs.energy
                        );
                        assert!(gs.residual < 1e-8, "{}", gs.residual);
                    }
                }
            }
        }
        assert!(worst < 1e-10);
    }

    #[test]
    fn quantum_four_site_ring_and_two_site_tfim_known_energies() {
        let settings = LanczosSettings::default();
        for j in [0.5, 1.0, 1.7] {
            let ring = Chain::heisenberg(Boundary::Periodic, vec![j; 4]).unwrap();
            let gs = ground_state(&ring, 1, &settings, &CancelToken::new()).unwrap();
            assert!((gs.energy + 2.0 * j).abs() < 1e-12, "{}", gs.energy);
        }
        for (j, h) in [(1.0, 0.3), (0.4, 1.1), (2.0, 0.0)] {
            let pair = Chain::tfim(Boundary::Open, vec![j], vec![h, h]).unwrap();
            let gs = ground_state(&pair, 1, &settings, &CancelToken::new()).unwrap();
            let exact = -(j * j + 4.0 * h * h).sqrt();
            assert!(
                (gs.energy - exact).abs() < 1e-12,
                "{} vs {exact}",
                gs.energy
            );
        }
        let singlet = Chain::heisenberg(Boundary::Open, vec![1.0]).unwrap();
        let gs = ground_state(&singlet, 1, &settings, &CancelToken::new()).unwrap();
        assert!((gs.energy + 0.75).abs() < 1e-12);
    }

    #[test]
    fn quantum_twelve_sites_converge_and_a_wrong_setting_is_named() {
        let mut rng = benchtop_compute::rng::seeded(2);
        let chain = Chain::random(
            Model::Heisenberg,
            Boundary::Periodic,
            12,
            2.0,
            0.0,
            true,
            &mut rng,
        )
        .unwrap();
        let gs = ground_state(&chain, 3, &LanczosSettings::default(), &CancelToken::new()).unwrap();
        assert!(gs.residual < 1e-8);
        // Restarting with a tiny Krylov space reaches the same energy.
        let small = LanczosSettings {
            krylov: 12,
            restarts: 400,
            ..LanczosSettings::default()
        };
        let restarted = ground_state(&chain, 3, &small, &CancelToken::new()).unwrap();
        assert!((restarted.energy - gs.energy).abs() < 1e-9);
        let bad = LanczosSettings {
            krylov: 1,
            ..LanczosSettings::default()
        };
        let error = ground_state(&chain, 3, &bad, &CancelToken::new()).unwrap_err();
        assert!(error.to_string().contains("`krylov`"));
    }
}
