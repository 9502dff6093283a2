//! The k-hop operator of the paper (eq. 7): Φ_k = σ(Γ) ⊙ Â_s ⊙ (λÂ_d + (1 − λ)Â_dᵀ)^k, with Â the
//! L1 row-normalised matrices and σ the logistic function, and its spectral norm ‖Φ_k‖₂ against
//! k (the paper's convergence curves for several λ).
//!
//! Known answer (tested): when M = λÂ_d + (1 − λ)Â_dᵀ is symmetric positive semidefinite with
//! eigenvalues at most 1 and B = σ(Γ) ⊙ Â_s is positive semidefinite, ‖Φ_k‖₂ does not increase with
//! k: M^k − M^{k+1} = M^k(I − M) is PSD, so by the Schur product theorem B ⊙ M^k − B ⊙ M^{k+1} is
//! PSD and the largest eigenvalue (= the norm) cannot grow.

use crate::matrix::Matrix;
use benchtop_compute::ComputeError;
use serde::{Deserialize, Serialize};

/// Settings of the ‖Φ_k‖₂ curves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct KhopParams {
    /// The mixing weights λ, one curve each, in [0, 1].
    pub lambdas: Vec<f64>,
    /// The largest k (≥ 1).
    pub k_max: usize,
}

impl Default for KhopParams {
    fn default() -> Self {
        Self {
            lambdas: vec![0.2, 0.4, 0.6, 0.9],
            k_max: 50,
        }
    }
}

impl KhopParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if self.lambdas.is_empty() || self.lambdas.len() > 16 {
            return Err(ComputeError::invalid("khop.lambdas", "give 1 to 16 values"));
        }
        if let Some(bad) = self.lambdas.iter().find(|l| !(0.0..=1.0).contains(*l)) {
            return Err(ComputeError::invalid(
                "khop.lambdas",
                format!("λ = {bad} must lie in [0, 1]"),
            ));
        }
        if !(1..=500).contains(&self.k_max) {
            return Err(ComputeError::invalid("khop.k_max", "must lie in 1..=500"));
        }
        Ok(())
    }
}

/// ‖Φ_k‖₂ for k = 1..=k_max at one λ.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KhopCurve {
    /// The mixing weight λ.
    pub lambda: f64,
    /// ‖Φ_k‖₂, index k − 1.
    pub norms: Vec<f64>,
}

/// Â: each row divided by its L1 norm (a zero row stays zero).
pub fn row_normalise(a: &Matrix) -> Matrix {
    let mut n = a.clone();
    for i in 0..n.rows() {
        let row = n.row_mut(i);
        let l1: f64 = row.iter().map(|v| v.abs()).sum();
        if l1 > 0.0 {
            for v in row {
                *v /= l1;
            }
        }
    }
    n
}

/// The spectral norm ‖A‖₂ (largest singular value) by power iteration on AᵀA.
pub fn spectral_norm(a: &Matrix) -> f64 {
    let (r, c) = (a.rows(), a.cols());
    if r == 0 || c == 0 {
        return 0.0;
    }
    // A fixed, non-symmetric start vector avoids being orthogonal to the top singular vector
    // for structured matrices.
    let mut v: Vec<f64> = (0..c)
        .map(|j| 1.0 + (j as f64 * 0.618_034).fract())
        .collect();
    let mut sigma = 0.0;
    for _ in 0..500 {
        let av: Vec<f64> = (0..r)
            .map(|i| a.row(i).iter().zip(&v).map(|(x, y)| x * y).sum())
            .collect();
        let mut atav = vec![0.0; c];
        for (i, avi) in av.iter().enumerate() {
            for (o, x) in atav.iter_mut().zip(a.row(i)) {
                *o += x * avi;
            }
        }
        let norm = atav.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm == 0.0 {
            return 0.0;
        }
        let next = (av.iter().map(|x| x * x).sum::<f64>()).sqrt()
            / v.iter().map(|x| x * x).sum::<f64>().sqrt();
        v = atav.iter().map(|x| x / norm).collect();
        if (next - sigma).abs() <= 1e-13 * next {
            return next;
        }
        sigma = next;
    }
    sigma
}

fn check_square(name: &str, m: &Matrix, n: usize) -> Result<(), ComputeError> {
    if m.rows() != n || m.cols() != n {
        return Err(ComputeError::invalid(
            name,
            format!("{}×{}, expected {n}×{n}", m.rows(), m.cols()),
        ));
    }
    if m.as_slice().iter().any(|v| !v.is_finite()) {
        return Err(ComputeError::invalid(
            name,
            "has a value that is not finite",
        ));
    }
    Ok(())
}

/// ‖Φ_k‖₂ for k = 1..=k_max, with `gamma` the raw learned Γ (σ is applied here), `static_fc`
/// and `dynamic_fc` before row normalisation.
pub fn khop_norms(
    gamma: &Matrix,
    static_fc: &Matrix,
    dynamic_fc: &Matrix,
    lambda: f64,
    k_max: usize,
) -> Result<Vec<f64>, ComputeError> {
    let n = static_fc.rows();
    check_square("static_fc", static_fc, n)?;
    check_square("gamma", gamma, n)?;
    check_square("dynamic_fc", dynamic_fc, n)?;
    if !(0.0..=1.0).contains(&lambda) {
        return Err(ComputeError::invalid("lambda", "must lie in [0, 1]"));
    }
    let a_s = row_normalise(static_fc);
    let a_d = row_normalise(dynamic_fc);
    let a_dt = a_d.transpose();
    let mut mix = Matrix::zeros(n, n);
    let mut b = Matrix::zeros(n, n);
    for i in 0..n {
        for j in 0..n {
            mix.set(
                i,
                j,
                lambda * a_d.get(i, j) + (1.0 - lambda) * a_dt.get(i, j),
            );
            let gate = 1.0 / (1.0 + (-gamma.get(i, j)).exp());
            b.set(i, j, gate * a_s.get(i, j));
        }
    }
    let mut power = mix.clone();
    let mut norms = Vec::with_capacity(k_max);
    for k in 1..=k_max {
        if k > 1 {
            power = power.matmul(&mix)?;
        }
        let mut phi = Matrix::zeros(n, n);
        for i in 0..n {
            for ((o, p), g) in phi.row_mut(i).iter_mut().zip(power.row(i)).zip(b.row(i)) {
                *o = p * g;
            }
        }
        norms.push(spectral_norm(&phi));
    }
    Ok(norms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    /// The lazy walk (2I + P + Pᵀ)/4 on an n-cycle: symmetric, doubly stochastic, eigenvalues
    /// (1 + cos θ)/2 ∈ [0, 1].
    fn lazy_cycle(n: usize) -> Matrix {
        let mut m = Matrix::zeros(n, n);
        for i in 0..n {
            m.set(i, i, 0.5);
            m.set(i, (i + 1) % n, 0.25);
            m.set(i, (i + n - 1) % n, 0.25);
        }
        m
    }

    #[test]
    fn spectral_norm_of_known_matrices() {
        let d = Matrix::from_rows(&[vec![3.0, 0.0], vec![0.0, -5.0]]).unwrap();
        assert!((spectral_norm(&d) - 5.0).abs() < 1e-10);
        // [[1, 1], [0, 1]]: σ_max = golden ratio.
        let j = Matrix::from_rows(&[vec![1.0, 1.0], vec![0.0, 1.0]]).unwrap();
        assert!((spectral_norm(&j) - (1.0 + 5f64.sqrt()) / 2.0).abs() < 1e-10);
    }

    #[test]
    fn first_hop_is_the_gated_elementwise_product() {
        let mut rng = benchtop_compute::rng::seeded(1);
        let mut random = |n: usize| {
            Matrix::from_row_major(
                n,
                n,
                (0..n * n).map(|_| rng.random_range(0.1..1.0)).collect(),
            )
            .unwrap()
        };
        let (g, s, d) = (random(4), random(4), random(4));
        let lambda = 0.3;
        let (sn, dn) = (row_normalise(&s), row_normalise(&d));
        let mut phi = Matrix::zeros(4, 4);
        for i in 0..4 {
            for j in 0..4 {
                let mix = lambda * dn.get(i, j) + (1.0 - lambda) * dn.get(j, i);
                phi.set(i, j, mix * sn.get(i, j) / (1.0 + (-g.get(i, j)).exp()));
            }
        }
        let norms = khop_norms(&g, &s, &d, lambda, 1).unwrap();
        assert!((norms[0] - spectral_norm(&phi)).abs() < 1e-12);
    }

    #[test]
    fn norms_do_not_increase_for_a_psd_row_stochastic_walk() {
        let n = 9;
        // Static FC I + J/n: row-normalised it is (I + J/n)/2, symmetric PSD; σ(Γ) constant is
        // PSD; so B is PSD and the Schur argument in the module docs applies for every λ.
        let mut s = Matrix::identity(n);
        for v in (0..n * n).map(|k| (k / n, k % n)) {
            s.set(v.0, v.1, s.get(v.0, v.1) + 1.0 / n as f64);
        }
        let gamma = Matrix::from_row_major(n, n, vec![0.7; n * n]).unwrap();
        for lambda in [0.2, 0.4, 0.6, 0.9] {
            let norms = khop_norms(&gamma, &s, &lazy_cycle(n), lambda, 40).unwrap();
            for k in 1..norms.len() {
                assert!(
                    norms[k] <= norms[k - 1] + 1e-12,
                    "λ {lambda}, k {k}: {norms:?}"
                );
            }
            assert!(norms[39] < norms[0], "the walk mixes, so the norm decays");
        }
    }

    #[test]
    fn bad_shapes_and_lambda_are_errors() {
        let a = Matrix::identity(3);
        let b = Matrix::identity(4);
        assert!(
            khop_norms(&a, &b, &b, 0.5, 3)
                .unwrap_err()
                .to_string()
                .contains("gamma")
        );
        assert!(khop_norms(&a, &a, &a, 1.5, 3).is_err());
        assert!(
            KhopParams {
                k_max: 0,
                ..KhopParams::default()
            }
            .validate()
            .is_err()
        );
    }
}
