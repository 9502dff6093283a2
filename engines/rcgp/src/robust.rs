//! The robust conjugate update's observation model: IMQ weights, the effective noise R_eff and
//! the corrected (pseudo-)observation.
//!
//! With a weight w(y) and its derivative ∂_y w, the generalised-Bayes update of RCGP is a
//! Kalman update with noise R_eff = σ⁴/(2w²) and observation ỹ = y − 2σ² ∂_y w / w
//! (Laplante et al. 2025, the step-by-step update in the paper notes §13). A constant
//! w = √(σ²/2) gives R_eff = σ² and ỹ = y: the standard Kalman filter.

use serde::{Deserialize, Serialize};

/// The robust update's settings (the IMQ weight of the paper).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RobustSettings {
    /// β in units of its default √(σ²/2) (1 = the paper's default).
    pub beta_scale: f64,
    /// Centre the weight on the one-step predictive mean f̂ (adaptive) instead of the prior
    /// mean (the data's median).
    pub adaptive_centre: bool,
    /// Scale c = √(c_factor·(s² + σ²)) from the predictive variance s² (adaptive) instead of
    /// the fixed `c`.
    pub adaptive_scale: bool,
    /// The fixed scale c (data units), used when `adaptive_scale` is off.
    pub c: f64,
    /// The factor of the adaptive scale.
    pub c_factor: f64,
}

impl Default for RobustSettings {
    fn default() -> Self {
        Self {
            beta_scale: 1.0,
            adaptive_centre: true,
            adaptive_scale: true,
            c: 1.0,
            c_factor: 2.0,
        }
    }
}

/// How observations enter the update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Observation {
    /// Gaussian likelihood with noise variance σ²: the standard Kalman filter (STGP).
    Gaussian,
    /// The IMQ-weighted robust update (ST-RCGP).
    Robust(RobustSettings),
    /// A weight that does not depend on y: w = value, ∂_y w = 0 (a check of the algebra).
    ConstantWeight(f64),
}

/// One observation's terms in the Kalman update.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UpdateTerms {
    /// The effective noise variance R_eff.
    pub r_eff: f64,
    /// The corrected observation ỹ.
    pub pseudo: f64,
    /// The weight relative to its maximum β (1 for the Gaussian update).
    pub relative_weight: f64,
}

/// The IMQ weight w = β(1 + ((y − m)/c)²)^{−½} and its derivative
/// ∂_y w = −β (y − m)/c² (1 + ((y − m)/c)²)^{−3/2}.
pub fn imq(y: f64, centre: f64, c: f64, beta: f64) -> (f64, f64) {
    let u = (y - centre) / c;
    let base = 1.0 + u * u;
    let w = beta / base.sqrt();
    let dw = -beta * (y - centre) / (c * c) / (base * base.sqrt());
    (w, dw)
}

impl Observation {
    /// The update terms for observation `y` with one-step predictive mean `f_hat`, predictive
    /// variance `s2`, noise variance `noise` (σ²) and prior mean `prior_mean`.
    pub fn terms(&self, y: f64, f_hat: f64, s2: f64, noise: f64, prior_mean: f64) -> UpdateTerms {
        let from_weight = |w: f64, dw: f64, beta: f64| UpdateTerms {
            r_eff: noise * noise / (2.0 * w * w),
            pseudo: y - 2.0 * noise * dw / w,
            relative_weight: w / beta,
        };
        match *self {
            Self::Gaussian => UpdateTerms {
                r_eff: noise,
                pseudo: y,
                relative_weight: 1.0,
            },
            Self::ConstantWeight(w) => from_weight(w, 0.0, w),
            Self::Robust(settings) => {
                let beta = settings.beta_scale * (noise / 2.0).sqrt();
                let centre = if settings.adaptive_centre {
                    f_hat
                } else {
                    prior_mean
                };
                let c = if settings.adaptive_scale {
                    (settings.c_factor * (s2 + noise)).sqrt()
                } else {
                    settings.c
                };
                let (w, dw) = imq(y, centre, c, beta);
                from_weight(w, dw, beta)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rcgp_robust_imq_derivative_matches_finite_differences() {
        for &(y, m, c, beta) in &[
            (0.3, 0.0, 1.0, 0.7),
            (7.0, 0.5, 0.4, 0.1),
            (-2.0, 1.0, 3.0, 2.0),
        ] {
            let (_, dw) = imq(y, m, c, beta);
            let h = 1e-6;
            let fd = (imq(y + h, m, c, beta).0 - imq(y - h, m, c, beta).0) / (2.0 * h);
            assert!((dw - fd).abs() < 1e-8 * (1.0 + fd.abs()), "{dw} vs {fd}");
        }
    }

    #[test]
    fn rcgp_robust_constant_default_weight_is_the_gaussian_update() {
        let noise = 0.37;
        let t =
            Observation::ConstantWeight((noise / 2.0_f64).sqrt()).terms(1.2, 0.4, 0.3, noise, 0.0);
        let g = Observation::Gaussian.terms(1.2, 0.4, 0.3, noise, 0.0);
        assert!(
            (t.r_eff - noise).abs() < 1e-15 && t.pseudo == g.pseudo,
            "{t:?}"
        );
    }

    #[test]
    fn rcgp_robust_outliers_get_large_noise_and_small_weight() {
        let robust = Observation::Robust(RobustSettings::default());
        let noise = 0.01;
        let inlier = robust.terms(0.05, 0.0, 0.01, noise, 0.0);
        let outlier = robust.terms(7.0, 0.0, 0.01, noise, 0.0);
        assert!(inlier.relative_weight > 0.9, "{inlier:?}");
        assert!(outlier.relative_weight < 0.05, "{outlier:?}");
        assert!(outlier.r_eff > 100.0 * inlier.r_eff);
        // R_eff = σ²(1 + u²) for the default β.
        let c2 = 2.0 * (0.01 + noise);
        assert!((outlier.r_eff - noise * (1.0 + 49.0 / c2)).abs() < 1e-9 * outlier.r_eff);
    }
}
