//! The solution manifold of `Y ≈ W₂W₁X`: the least-squares map `M*`, the named solution
//! families in closed form, and the G-transform `(W₂G⁻¹, GW₁)`.
//!
//! Every closed form here is the minimiser of `a‖W₁S‖²_F + b‖W₂‖²_F` subject to `W₂W₁ = M`,
//! with `S = X` (representation norm) or `S = I` (weight norm). With `Σ = SSᵀ` and
//! `K = √(ab)·MΣ^{1/2} = U diag(s) Vᵀ` the minimiser is balanced:
//! `W₁ = R diag(s)^{1/2} Vᵀ Σ^{+1/2}/√a`, `W₂ = U diag(s)^{1/2} Rᵀ/√b` (`R` any `hidden × r`
//! matrix with orthonormal columns), so `W₁ᵀW₁ = √(b/a)·Σ^{+1/2}(Σ^{1/2}MᵀMΣ^{1/2})^{1/2}Σ^{+1/2}`.
//! Parameter noise of variance σ² adds `σ²/(2P)·(n_out‖W₁X‖² + tr(XXᵀ)‖W₂‖²)` to the expected
//! loss `‖Y − W₂W₁X‖²/(2P)`, so its first-order optimum is the case `a = n_out`, `b = tr Σ`.

use benchtop_compute::ComputeError;
use nalgebra::{DMatrix, SymmetricEigen};
use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::linalg::{
    cayley, psd_pinv, psd_pinv_sqrt, psd_sqrt, random_antisymmetric, random_symmetric, rank,
    symmetric_function,
};
use crate::similarity::rsm;

/// The minimum-norm least-squares map `M* = Y Xᵀ (X Xᵀ)⁺` (`n_out × n_in`).
pub fn least_squares(data: &Dataset) -> DMatrix<f64> {
    let sigma = &data.x * data.x.transpose();
    &data.y * data.x.transpose() * psd_pinv(&sigma)
}

/// A two-layer linear network `W₂W₁`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Factors {
    /// First layer, `hidden × n_in`.
    pub w1: DMatrix<f64>,
    /// Second layer, `n_out × hidden`.
    pub w2: DMatrix<f64>,
}

impl Factors {
    /// The network's map `W₂W₁`.
    pub fn product(&self) -> DMatrix<f64> {
        &self.w2 * &self.w1
    }

    /// Hidden representation `H = W₁X`.
    pub fn hidden(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        &self.w1 * x
    }

    /// Outputs `W₂W₁X`.
    pub fn output(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        &self.w2 * (&self.w1 * x)
    }

    /// The RSM `XᵀW₁ᵀW₁X`.
    pub fn rsm(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        rsm(&self.hidden(x))
    }

    /// The G-transformed network `(W₂G⁻¹, GW₁)`, which computes the same map.
    pub fn transformed(&self, g: &GMatrix) -> Self {
        Self {
            w1: &g.g * &self.w1,
            w2: &self.w2 * &g.inverse,
        }
    }

    /// `a‖W₁S‖² + b‖W₂‖²` where `Σ = SSᵀ`.
    pub fn weighted_norm(&self, sigma: &DMatrix<f64>, a: f64, b: f64) -> f64 {
        a * (&self.w1 * sigma * self.w1.transpose()).trace() + b * self.w2.norm_squared()
    }
}

/// The named solution families with a closed form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Family {
    /// Minimises `‖W₁‖² + ‖W₂‖²` (the balanced solution; also where gradient flow from a small
    /// initialisation ends for whitened inputs).
    MinimumWeightNorm,
    /// Minimises `‖W₁X‖² + ‖W₂‖²` (the hidden representation's norm, with the read-out's).
    MinimumRepresentationNorm,
    /// Minimises the parameter-noise term `n_out‖W₁X‖² + tr(XXᵀ)‖W₂‖²` (first order in σ²).
    ParameterNoise,
}

impl Family {
    /// All families, in display order.
    pub const ALL: [Self; 3] = [
        Self::MinimumWeightNorm,
        Self::MinimumRepresentationNorm,
        Self::ParameterNoise,
    ];

    /// Display name.
    pub fn label(self) -> &'static str {
        match self {
            Self::MinimumWeightNorm => "Minimum weight norm",
            Self::MinimumRepresentationNorm => "Minimum representation norm",
            Self::ParameterNoise => "Parameter-noise optimum",
        }
    }

    /// The weights `(a, b)` and the Gram matrix `Σ` of the objective `a‖W₁S‖² + b‖W₂‖²`.
    pub fn objective(self, data: &Dataset) -> (f64, f64, DMatrix<f64>) {
        let sigma = &data.x * data.x.transpose();
        match self {
            Self::MinimumWeightNorm => (1.0, 1.0, DMatrix::identity(data.n_in(), data.n_in())),
            Self::MinimumRepresentationNorm => (1.0, 1.0, sigma),
            Self::ParameterNoise => {
                let a = data.n_out() as f64;
                let b = sigma.trace();
                (a, b, sigma)
            }
        }
    }
}

/// The RSM of the minimiser of `a‖W₁S‖² + b‖W₂‖²` s.t. `W₂W₁ = m`, straight from the formula
/// `√(b/a)·XᵀΣ^{+1/2}(Σ^{1/2}MᵀMΣ^{1/2})^{1/2}Σ^{+1/2}X`.
pub fn closed_form_rsm(
    m: &DMatrix<f64>,
    sigma: &DMatrix<f64>,
    a: f64,
    b: f64,
    x: &DMatrix<f64>,
) -> DMatrix<f64> {
    let root = psd_sqrt(sigma);
    let inner = psd_sqrt(&(&root * m.transpose() * m * &root));
    let inv_root = psd_pinv_sqrt(sigma);
    x.transpose() * &inv_root * inner * &inv_root * x * (b / a).sqrt()
}

/// The closed-form RSM of a family for the map `m`.
pub fn family_rsm(family: Family, data: &Dataset, m: &DMatrix<f64>) -> DMatrix<f64> {
    let (a, b, sigma) = family.objective(data);
    closed_form_rsm(m, &sigma, a, b, &data.x)
}

/// Weights of the minimiser of `a‖W₁S‖² + b‖W₂‖²` s.t. `W₂W₁ = m` (see the module notes), with
/// `R` the first `r` columns of the identity. Fails when `hidden` is below `rank(K)`.
pub fn balanced_factors(
    m: &DMatrix<f64>,
    sigma: &DMatrix<f64>,
    a: f64,
    b: f64,
    hidden: usize,
) -> Result<Factors, ComputeError> {
    let root = psd_sqrt(sigma);
    let k = m * &root * (a * b).sqrt();
    let r = rank(&k);
    if hidden < r {
        return Err(ComputeError::invalid(
            "hidden",
            format!(
                "the least-squares map has rank {r}; a hidden layer of {hidden} cannot express it"
            ),
        ));
    }
    // The right singular vectors and values from the eigen-decomposition of KᵀK (robust to
    // repeated singular values, which the tree data have); the left ones as K v / s.
    let eigen = SymmetricEigen::new(k.transpose() * &k);
    let mut order: Vec<usize> = (0..eigen.eigenvalues.len()).collect();
    order.sort_by(|&i, &j| eigen.eigenvalues[j].total_cmp(&eigen.eigenvalues[i]));
    let mut w1 = DMatrix::zeros(hidden, m.ncols());
    let mut w2 = DMatrix::zeros(m.nrows(), hidden);
    let inv_root = psd_pinv_sqrt(sigma);
    for (slot, &i) in order.iter().take(r).enumerate() {
        let s = eigen.eigenvalues[i].max(0.0).sqrt();
        let v = eigen.eigenvectors.column(i);
        // Row slot of W₁: s^{1/2} vᵀ Σ^{+1/2} / √a; column slot of W₂: K v / (s^{1/2} √b).
        w1.row_mut(slot)
            .copy_from(&(v.transpose() * &inv_root * (s.sqrt() / a.sqrt())));
        w2.column_mut(slot)
            .copy_from(&(&k * v / (s.sqrt() * b.sqrt())));
    }
    Ok(Factors { w1, w2 })
}

/// The weights of a family for the map `m`.
pub fn family_factors(
    family: Family,
    data: &Dataset,
    m: &DMatrix<f64>,
    hidden: usize,
) -> Result<Factors, ComputeError> {
    let (a, b, sigma) = family.objective(data);
    balanced_factors(m, &sigma, a, b, hidden)
}

/// The exact minimiser's RSM of the expected parameter-noise loss at finite σ,
/// `‖Y − W₂W₁X‖²/(2P) + σ²/(2P)(n_out‖W₁X‖² + tr Σ‖W₂‖²)`: the whitened map
/// `N = MΣ^{1/2}` is the least-squares one with its singular values soft-thresholded at
/// `σ²√(n_out·tr Σ)` (the variational form of the nuclear norm), and the representation is the
/// balanced one of that shrunken map.
pub fn parameter_noise_exact_rsm(data: &Dataset, sigma_noise: f64) -> DMatrix<f64> {
    let (a, b, sigma) = Family::ParameterNoise.objective(data);
    let root = psd_sqrt(&sigma);
    let inv_root = psd_pinv_sqrt(&sigma);
    let whitened = least_squares(data) * &root;
    let threshold = sigma_noise * sigma_noise * (a * b).sqrt();
    let (rows, cols) = whitened.shape();
    let svd = whitened.svd(true, true);
    let shrunk_values = svd.singular_values.map(|s| (s - threshold).max(0.0));
    let shrunk = match (svd.u, svd.v_t) {
        (Some(u), Some(v_t)) => u * DMatrix::from_diagonal(&shrunk_values) * v_t,
        _ => DMatrix::zeros(rows, cols),
    };
    let m = shrunk * inv_root;
    closed_form_rsm(&m, &sigma, a, b, &data.x)
}

/// How the panel's invertible G is made: `G = Q(rotation)·exp(stretch·S)`, with `Q` the Cayley
/// transform of `rotation·Ω` (Ω random antisymmetric, so `Q` is orthogonal) and `S` random
/// symmetric (so `exp(stretch·S)` is positive definite, and `GᵀG = I` only at stretch 0).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GParams {
    /// Strength of the non-orthogonal (stretching) part.
    pub stretch: f64,
    /// Strength of the orthogonal (rotating) part.
    pub rotation: f64,
    /// Seed of the random directions Ω and S.
    pub seed: u64,
}

impl Default for GParams {
    fn default() -> Self {
        Self {
            stretch: 1.0,
            rotation: 1.0,
            seed: 1,
        }
    }
}

/// An invertible matrix and its inverse.
#[derive(Clone, Debug, PartialEq)]
pub struct GMatrix {
    /// `G`.
    pub g: DMatrix<f64>,
    /// `G⁻¹`, built from the factors (no numerical inversion).
    pub inverse: DMatrix<f64>,
}

impl GParams {
    /// Checks the ranges (the stretch's exponent is bounded so G stays well conditioned).
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !self.stretch.is_finite() || self.stretch.abs() > 3.0 {
            return Err(ComputeError::invalid(
                "g.stretch",
                format!("must be in [−3, 3], got {}", self.stretch),
            ));
        }
        if !self.rotation.is_finite() || self.rotation.abs() > 100.0 {
            return Err(ComputeError::invalid(
                "g.rotation",
                format!("must be in [−100, 100], got {}", self.rotation),
            ));
        }
        Ok(())
    }

    /// The orthogonal factor `Q` alone.
    pub fn orthogonal(&self, n: usize) -> GMatrix {
        use benchtop_compute::rng::derive_seed;
        let q = cayley(&(random_antisymmetric(n, derive_seed(self.seed, 0)) * self.rotation));
        GMatrix {
            inverse: q.transpose(),
            g: q,
        }
    }

    /// The full `G = Q·exp(stretch·S)` of size `n`.
    pub fn matrix(&self, n: usize) -> GMatrix {
        use benchtop_compute::rng::derive_seed;
        let q = self.orthogonal(n);
        let s = random_symmetric(n, derive_seed(self.seed, 1));
        let grow = symmetric_function(&s, |l| (self.stretch * l).exp());
        let shrink = symmetric_function(&s, |l| (-self.stretch * l).exp());
        GMatrix {
            g: &q.g * grow,
            inverse: shrink * q.inverse,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{gaussian_task, hierarchy};
    use crate::linalg::{max_abs_difference, relative_frobenius};

    fn data_sets() -> Vec<Dataset> {
        vec![
            hierarchy(3, 2, 0.5, 1),
            hierarchy(2, 3, 0.3, 2),
            gaussian_task(6, 5, 20, 3, 0.1, 3),
            gaussian_task(10, 4, 30, 4, 0.0, 4),
        ]
    }

    #[test]
    fn linnet_output_is_invariant_under_any_g_and_rsm_only_under_orthogonal_g() {
        for (index, data) in data_sets().iter().enumerate() {
            let m = least_squares(data);
            let base =
                family_factors(Family::MinimumRepresentationNorm, data, &m, 12).expect("factors");
            let h = base.w1.nrows();
            let general = GParams {
                stretch: 1.5,
                rotation: 2.0,
                seed: 7 + index as u64,
            };
            let g = general.matrix(h);
            let moved = base.transformed(&g);
            assert!(max_abs_difference(&moved.output(&data.x), &base.output(&data.x)) < 1e-10);
            let gtg = g.g.transpose() * &g.g;
            assert!(
                max_abs_difference(&gtg, &DMatrix::identity(h, h)) > 0.1,
                "G is not orthogonal"
            );
            assert!(
                relative_frobenius(&moved.rsm(&data.x), &base.rsm(&data.x)) > 0.05,
                "RSM moves"
            );
            let q = general.orthogonal(h);
            assert!(
                max_abs_difference(&(q.g.transpose() * &q.g), &DMatrix::identity(h, h)) < 1e-12
            );
            let rotated = base.transformed(&q);
            assert!(max_abs_difference(&rotated.output(&data.x), &base.output(&data.x)) < 1e-10);
            assert!(
                relative_frobenius(&rotated.rsm(&data.x), &base.rsm(&data.x)) < 1e-12,
                "RSM fixed"
            );
        }
    }

    #[test]
    fn linnet_family_weights_solve_the_task_and_match_the_closed_form() {
        for data in data_sets() {
            let m = least_squares(&data);
            // M* is the least-squares map: the residual is orthogonal to the inputs.
            let residual = &data.y - &m * &data.x;
            assert!((residual * data.x.transpose()).norm() < 1e-9 * (1.0 + data.y.norm()));
            for family in Family::ALL {
                let f = family_factors(family, &data, &m, 16).expect("factors");
                assert!(
                    relative_frobenius(&f.product(), &m) < 1e-10,
                    "{family:?} on the manifold"
                );
                let closed = family_rsm(family, &data, &m);
                // 1e-7: square roots of the rank-deficient teacher's zero eigenvalues carry √ε noise.
                assert!(
                    relative_frobenius(&f.rsm(&data.x), &closed) < 1e-7,
                    "{family:?} RSM"
                );
                // Optimality: any G near the identity (staying on the manifold) costs more.
                let (a, b, sigma) = family.objective(&data);
                let best = f.weighted_norm(&sigma, a, b);
                for seed in 0..6 {
                    let g = GParams {
                        stretch: 0.05,
                        rotation: 0.3,
                        seed,
                    }
                    .matrix(16);
                    let moved = f.transformed(&g).weighted_norm(&sigma, a, b);
                    assert!(
                        moved > best * (1.0 + 1e-6),
                        "{family:?}: {moved} vs optimum {best}"
                    );
                }
            }
        }
    }

    #[test]
    fn linnet_families_coincide_for_whitened_inputs_and_differ_otherwise() {
        let whitened = hierarchy(3, 2, 0.0, 1);
        let m = least_squares(&whitened);
        let rsm_of = |family, data: &Dataset, m: &DMatrix<f64>| {
            let r = family_rsm(family, data, m);
            let norm = r.norm();
            r / norm
        };
        let w = rsm_of(Family::MinimumWeightNorm, &whitened, &m);
        for family in [Family::MinimumRepresentationNorm, Family::ParameterNoise] {
            assert!(relative_frobenius(&rsm_of(family, &whitened, &m), &w) < 1e-10);
        }
        let mixed = hierarchy(3, 2, 0.5, 1);
        let m = least_squares(&mixed);
        let w = rsm_of(Family::MinimumWeightNorm, &mixed, &m);
        let r = rsm_of(Family::MinimumRepresentationNorm, &mixed, &m);
        assert!(
            relative_frobenius(&r, &w) > 0.02,
            "correlated inputs separate the families"
        );
    }

    #[test]
    fn linnet_too_narrow_hidden_layer_is_refused() {
        let data = hierarchy(3, 2, 0.5, 1);
        let m = least_squares(&data);
        let message = family_factors(Family::ParameterNoise, &data, &m, 4)
            .expect_err("refused")
            .to_string();
        assert!(
            message.contains("hidden") && message.contains("rank 8"),
            "{message}"
        );
    }
}
