//! Closed forms of the Gaussian-linear model (ours, derived for the panel; the paper's theorems
//! were not available): the excess risk of the best linear label model when the weak features
//! of a row are replaced by the plug-in `E[x_w | x_o]` or by an "oracle plus noise" estimate
//! `x_w + e`, `e ~ N(0, εI)`, and the attenuation of the ridge coefficient on a noisy estimate.
//!
//! Excess risk is measured against the Bayes predictor `βᵀx` that sees every feature. With
//! `V = Var(x_w | x_o)`:
//! - plug-in, per estimated row: `β_wᵀ V β_w` (the observed-only model pays this on every row);
//! - oracle plus noise, best predictor from `(x_o, x̂_w)` on each estimated row:
//!   `β_wᵀ (V⁻¹ + ε⁻¹I)⁻¹ β_w = ε·β_wᵀ V (V + εI)⁻¹ β_w`;
//! - one linear h fitted on rows of which a share ρ carry `x_w + e` (MCAR):
//!   `h = (Σ + ρεP_w)⁻¹ Σ β`, excess `(β − h)ᵀ Σ (β − h) + ρ_test·ε·‖h_w‖²`; with every row
//!   estimated and `x_w` independent of `x_o` its weak coefficient is `β_w·Var(x_w)/(Var(x_w) + ε)`.

use benchtop_compute::ComputeError;
use nalgebra::{DMatrix, DVector};

use crate::data::Population;

/// `β_wᵀ V β_w`: the excess risk of the best predictor from `x_o` alone (per row), which is
/// also that of the best linear h on a plug-in `E[x_w | x_o]`.
pub fn plugin_excess(population: &Population) -> Result<f64, ComputeError> {
    let v = population.conditional_covariance()?;
    let b = population.beta_weak();
    Ok((b.transpose() * v * &b)[(0, 0)])
}

/// `βᵀ Σ β`: the excess risk of the constant predictor (the target's mean).
pub fn mean_excess(population: &Population) -> f64 {
    let b = &population.beta;
    (b.transpose() * &population.sigma * b)[(0, 0)]
}

/// `ε·β_wᵀ V (V + εI)⁻¹ β_w`: the excess risk, on a row whose weak features are estimated by
/// `x_w + e` with per-feature MSE ε, of the best predictor from `(x_o, x̂_w)`.
pub fn per_row_noise_excess(population: &Population, mse: f64) -> Result<f64, ComputeError> {
    if mse <= 0.0 {
        return Ok(0.0);
    }
    let v = population.conditional_covariance()?;
    let d_w = v.nrows();
    let shifted = &v + DMatrix::identity(d_w, d_w) * mse;
    let inverse = shifted
        .try_inverse()
        .ok_or_else(|| ComputeError::Numerical("V + εI is singular".into()))?;
    let b = population.beta_weak();
    Ok(mse * (b.transpose() * v * inverse * &b)[(0, 0)])
}

/// The best linear h (no intercept needed: every variable has mean 0) on rows of which a
/// share `rate_train` carry `x_w + e` with per-feature MSE `mse` (missing completely at random):
/// `(Σ + ρεP_w)⁻¹ Σ β`, observed block first.
pub fn single_h(
    population: &Population,
    mse: f64,
    rate_train: f64,
) -> Result<DVector<f64>, ComputeError> {
    let d = population.beta.len();
    let mut m = population.sigma.clone();
    for k in population.d_observed..d {
        m[(k, k)] += rate_train * mse;
    }
    let rhs = &population.sigma * &population.beta;
    m.cholesky()
        .map(|c| c.solve(&rhs))
        .ok_or_else(|| ComputeError::Numerical("Σ + ρεP_w is not positive definite".into()))
}

/// The excess risk of [`single_h`] on test rows of which a share `rate_test` carry the noisy
/// estimate: `(β − h)ᵀ Σ (β − h) + ρ_test·ε·‖h_w‖²`.
pub fn single_h_excess(
    population: &Population,
    mse: f64,
    rate_train: f64,
    rate_test: f64,
) -> Result<f64, ComputeError> {
    let h = single_h(population, mse, rate_train)?;
    let gap = &population.beta - &h;
    let bias = (gap.transpose() * &population.sigma * &gap)[(0, 0)];
    let h_w = h.rows(population.d_observed, population.d_weak());
    Ok(bias + rate_test * mse * h_w.norm_squared())
}

/// The share of β_w that [`single_h`] keeps on the weak features, `h_wᵀβ_w / ‖β_w‖²` (the
/// attenuation factor; `Var(x_w)/(Var(x_w) + ε)` when every row is estimated and `x_w` is
/// independent of `x_o`).
pub fn attenuation(
    population: &Population,
    mse: f64,
    rate_train: f64,
) -> Result<f64, ComputeError> {
    let h = single_h(population, mse, rate_train)?;
    let b = population.beta_weak();
    let h_w = h.rows(population.d_observed, population.d_weak());
    let norm = b.norm_squared();
    if norm == 0.0 {
        return Ok(1.0);
    }
    Ok(h_w.dot(&b) / norm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{GaussianParams, gaussian_problem};

    #[test]
    fn wf_closed_forms_agree_with_each_other_at_their_limits() {
        let g = GaussianParams {
            d_observed: 4,
            d_weak: 1,
            r_squared: 0.0,
            beta_weak: 1.5,
            ..GaussianParams::default()
        };
        let pop = gaussian_problem(&g, 10, 10, 1).population;
        // Independent weak feature of unit variance: V = 1.
        assert!((plugin_excess(&pop).unwrap() - 2.25).abs() < 1e-12);
        for eps in [0.0, 0.3, 1.0, 4.0] {
            let factor = attenuation(&pop, eps, 1.0).unwrap();
            assert!(
                (factor - 1.0 / (1.0 + eps)).abs() < 1e-12,
                "{eps}: {factor}"
            );
            // Every row estimated: one h is the per-row optimum, 2.25·ε/(1 + ε).
            let single = single_h_excess(&pop, eps, 1.0, 1.0).unwrap();
            let per_row = per_row_noise_excess(&pop, eps).unwrap();
            assert!((single - per_row).abs() < 1e-12, "{single} {per_row}");
            assert!((per_row - 2.25 * eps / (1.0 + eps)).abs() < 1e-12);
        }
        // ε → ∞ tends to the plug-in excess; no estimated rows: no excess.
        assert!((per_row_noise_excess(&pop, 1e9).unwrap() - 2.25).abs() < 1e-6);
        assert!(single_h_excess(&pop, 2.0, 0.0, 0.0).unwrap().abs() < 1e-12);
    }
}
