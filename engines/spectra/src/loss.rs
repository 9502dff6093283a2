//! Spectral losses: MSE split per wavenumber into amplitude and decorrelation terms, and the
//! adjusted MSE (AMSE) of Subich et al., "Fixing the Double Penalty in Data-Driven Weather
//! Forecasting Through a Modified Spherical Harmonic Loss Function" (ICML 2025), eq. 6.
//!
//! For forecast x and truth y with spectra `P_k(x)`, `P_k(y)` and coherence `Coh_k`
//! ([`crate::spectrum`]):
//! - area-weighted MSE = `Σ_k [(√P_x − √P_y)² + 2√(P_x P_y)(1 − Coh_k)]` (exact, by Parseval);
//! - AMSE = `Σ_k [(√P_x − √P_y)² + 2·max(P_x, P_y)(1 − Coh_k)]`.
//!
//! Implementation details follow the authors' code: normalise each variable by its standard
//! deviation *before* the transform ([`area_std`], [`normalised`]); take k = 0 separately as
//! `|x_00 − y_00|²` (all of it in the amplitude term); clip the coherence at 1.

use benchtop_compute::ComputeError;
use num_complex::Complex64;
use serde::{Deserialize, Serialize};

use crate::grid::Grid;
use crate::sht::Coeffs;
use crate::spectrum::{coherence_from, joint_spectra};

/// A loss split per total wavenumber k.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MseTerms {
    /// Amplitude term per k: `(√P_x − √P_y)²` (k = 0: `|x_00 − y_00|²`).
    pub amplitude: Vec<f64>,
    /// Decorrelation term per k: `2·√(P_x P_y)·(1 − Coh_k)` for MSE, `2·max(P_x, P_y)·(1 − Coh_k)`
    /// for AMSE (0 at k = 0).
    pub decorrelation: Vec<f64>,
    /// The sum of both terms over all k.
    pub total: f64,
}

fn decompose(x: &Coeffs, y: &Coeffs, adjusted: bool) -> MseTerms {
    let (px, py, cross) = joint_spectra(x, y);
    let n = px.len();
    let mut amplitude = vec![0.0; n];
    let mut decorrelation = vec![0.0; n];
    amplitude[0] = (x.get(0, 0) - y.get(0, 0)).norm_sqr();
    for k in 1..n {
        let (sx, sy) = (px[k].sqrt(), py[k].sqrt());
        amplitude[k] = (sx - sy) * (sx - sy);
        let coherence = coherence_from(px[k], py[k], cross[k]);
        let scale = if adjusted { px[k].max(py[k]) } else { sx * sy };
        decorrelation[k] = 2.0 * scale * (1.0 - coherence);
    }
    let total = amplitude.iter().sum::<f64>() + decorrelation.iter().sum::<f64>();
    MseTerms {
        amplitude,
        decorrelation,
        total,
    }
}

/// The area-weighted MSE of x against y split per k (its `total` is the MSE).
pub fn mse_decomposition(x: &Coeffs, y: &Coeffs) -> MseTerms {
    decompose(x, y, false)
}

/// The AMSE split per k (its `total` is [`amse`]).
pub fn amse_decomposition(x: &Coeffs, y: &Coeffs) -> MseTerms {
    decompose(x, y, true)
}

/// The adjusted MSE of forecast x against truth y (paper eq. 6; zero iff x = y).
pub fn amse(x: &Coeffs, y: &Coeffs) -> f64 {
    amse_decomposition(x, y).total
}

/// The area-weighted MSE computed from the coefficients (`Σ_k PSD_k(x − y)`).
pub fn mse(x: &Coeffs, y: &Coeffs) -> f64 {
    mse_decomposition(x, y).total
}

/// Gradient of [`mse`] with respect to x: `∂/∂Re x_lm + i·∂/∂Im x_lm` (imaginary part 0 at m = 0).
pub fn mse_gradient(x: &Coeffs, y: &Coeffs) -> Coeffs {
    let lmax = x.lmax().min(y.lmax());
    let mut g = Coeffs::zeros(x.lmax());
    for m in 0..=lmax {
        let w = if m == 0 { 1.0 } else { 2.0 };
        for l in m..=lmax {
            let mut d = (x.get(l, m) - y.get(l, m)) * (2.0 * w);
            if m == 0 {
                d.im = 0.0;
            }
            g.set(l, m, d);
        }
    }
    g
}

/// Gradient of [`amse`] with respect to x, in the same form as [`mse_gradient`]. Where a
/// power is exactly zero the non-differentiable terms contribute nothing.
pub fn amse_gradient(x: &Coeffs, y: &Coeffs) -> Coeffs {
    let lmax = x.lmax().min(y.lmax());
    let (px, py, cross) = joint_spectra(x, y);
    let mut g = Coeffs::zeros(x.lmax());
    g.set(
        0,
        0,
        Complex64::new(2.0 * (x.get(0, 0) - y.get(0, 0)).re, 0.0),
    );
    for k in 1..=lmax {
        let (a, b, c) = (px[k], py[k], cross[k]);
        if a <= 0.0 {
            continue;
        }
        let (sa, sb) = (a.sqrt(), b.sqrt());
        let big = a.max(b);
        let geometric = sa * sb;
        let raw = if geometric > 0.0 { c / geometric } else { 0.0 };
        let coh = raw.min(1.0);
        // ∂T/∂P_x and ∂T/∂X with T = (√a − √b)² + 2·max(a, b)·(1 − Coh).
        let mut d_power = (sa - sb) / sa;
        if a > b {
            d_power += 2.0 * (1.0 - coh);
        }
        let mut d_cross = 0.0;
        if geometric > 0.0 && raw < 1.0 {
            d_power += big * coh / a;
            d_cross = -2.0 * big / geometric;
        }
        for m in 0..=k {
            let w = if m == 0 { 1.0 } else { 2.0 };
            let mut d = x.get(k, m) * (2.0 * w * d_power) + y.get(k, m) * (w * d_cross);
            if m == 0 {
                d.im = 0.0;
            }
            g.set(k, m, d);
        }
    }
    g
}

/// Expected MSE of `X = σ(ρY + √(1−ρ²)N)` against `Y` (unit-variance Y, N): `σ² + 1 − 2σρ`
/// (paper eq. 1–2); minimised at σ = ρ.
pub fn expected_mse(sigma: f64, rho: f64) -> f64 {
    sigma * sigma + 1.0 - 2.0 * sigma * rho
}

/// Expected AMSE of the same forecast: `(σ − 1)² + 2·max(σ², 1)·(1 − ρ)`; minimised at σ = 1.
pub fn expected_amse(sigma: f64, rho: f64) -> f64 {
    (sigma - 1.0).powi(2) + 2.0 * (sigma * sigma).max(1.0) * (1.0 - rho)
}

/// The amplitude σ that minimises [`expected_mse`]: ρ (the forecast is damped).
pub fn mse_optimal_sigma(rho: f64) -> f64 {
    rho.max(0.0)
}

/// The amplitude σ that minimises [`expected_amse`]: 1 (the forecast keeps its amplitude).
pub fn amse_optimal_sigma(_rho: f64) -> f64 {
    1.0
}

/// The area-weighted standard deviation over one or more fields of a variable (with
/// [`Grid::weights`]), used to normalise that variable before the transform.
pub fn area_std(grid: &Grid, fields: &[&[f64]]) -> Result<f64, ComputeError> {
    if fields.is_empty() {
        return Err(ComputeError::invalid("fields", "no fields to normalise"));
    }
    let mut mean = 0.0;
    let mut square = 0.0;
    for field in fields {
        let m = grid.mean(field)?;
        let squared: Vec<f64> = field.iter().map(|v| v * v).collect();
        mean += m;
        square += grid.mean(&squared)?;
    }
    let n = fields.len() as f64;
    let variance = (square / n - (mean / n).powi(2)).max(0.0);
    let std = variance.sqrt();
    if std > 0.0 {
        Ok(std)
    } else {
        Err(ComputeError::invalid(
            "fields",
            "the field is constant: its standard deviation is 0",
        ))
    }
}

/// `field / std`, the per-variable normalisation applied before the transform.
pub fn normalised(field: &[f64], std: f64) -> Vec<f64> {
    field.iter().map(|v| v / std).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spectrum::psd;
    use rand::Rng as _;
    use rand_distr::{Distribution, StandardNormal};

    fn white(lmax: usize, seed: u64) -> Coeffs {
        let mut rng = benchtop_compute::rng::seeded(seed);
        let mut c = Coeffs::zeros(lmax);
        for m in 0..=lmax {
            for l in m..=lmax {
                let re: f64 = StandardNormal.sample(&mut rng);
                let im: f64 = StandardNormal.sample(&mut rng);
                let v = if m == 0 {
                    Complex64::new(re, 0.0)
                } else {
                    Complex64::new(re, im) * std::f64::consts::FRAC_1_SQRT_2
                };
                c.set(l, m, v);
            }
        }
        c
    }

    fn combine(a: &Coeffs, ca: f64, b: &Coeffs, cb: f64) -> Coeffs {
        let data = a
            .data()
            .iter()
            .zip(b.data())
            .map(|(x, y)| x * ca + y * cb)
            .collect();
        Coeffs::from_vec(a.lmax(), data).unwrap()
    }

    #[test]
    fn decomposition_sums_to_the_mse_and_amse_vanishes_at_x_equal_y() {
        let y = white(40, 1);
        let n = white(40, 2);
        let x = combine(&y, 0.7, &n, 0.5);
        let terms = mse_decomposition(&x, &y);
        let direct: f64 = psd(&combine(&x, 1.0, &y, -1.0)).iter().sum();
        assert!((terms.total - direct).abs() < 1e-12 * direct);
        assert_eq!(amse(&y, &y), 0.0);
        assert_eq!(mse(&y, &y), 0.0);
        assert!(amse(&x, &y) > terms.total, "AMSE ≥ MSE, strictly here");
    }

    #[test]
    fn amse_equals_mse_when_the_spectra_are_equal() {
        // Rotate each coefficient's phase: same PSD per k, any coherence.
        let y = white(30, 3);
        let mut rng = benchtop_compute::rng::seeded(4);
        let x = y.map_by_degree(|_, c| c);
        let mut x = x;
        for m in 1..=30 {
            for l in m..=30 {
                let angle: f64 = rng.random_range(0.0..std::f64::consts::TAU);
                let v = x.get(l, m) * Complex64::from_polar(1.0, angle);
                x.set(l, m, v);
            }
        }
        let (a, b) = (amse(&x, &y), mse(&x, &y));
        assert!(b > 1.0);
        assert!((a - b).abs() < 1e-12 * b, "{a} vs {b}");
    }

    #[test]
    fn closed_form_minima() {
        for rho in [0.2, 0.5, 0.9] {
            let sigmas: Vec<f64> = (0..=2000).map(|i| i as f64 / 1000.0).collect();
            let argmin = |f: &dyn Fn(f64) -> f64| {
                sigmas
                    .iter()
                    .copied()
                    .min_by(|a, b| f(*a).total_cmp(&f(*b)))
                    .unwrap()
            };
            assert!((argmin(&|s| expected_mse(s, rho)) - rho).abs() < 1e-9);
            assert!((argmin(&|s| expected_amse(s, rho)) - 1.0).abs() < 1e-9);
            assert_eq!(mse_optimal_sigma(rho), rho);
        }
        // Monte Carlo on the sphere: x = σ·(ρy + √(1−ρ²)n), rescaled per k to y's power so
        // that σ is exactly the amplitude ratio. MSE is then minimised near σ = ρ (the mean
        // coherence) and AMSE exactly at σ = 1.
        let rho = 0.6;
        let y = white(120, 5);
        let noise = white(120, 6);
        let raw = combine(&y, rho, &noise, (1.0 - rho * rho).sqrt());
        let (py, praw) = (psd(&y), psd(&raw));
        let base = raw.map_by_degree(|k, c| c * (py[k] / praw[k]).sqrt());
        let power: f64 = py.iter().skip(1).sum();
        let mut best = (f64::MAX, 0.0, f64::MAX, 0.0);
        // (σ = 0 is left out: the coherence of a zero forecast is undefined.)
        for i in 1..=150 {
            let sigma = i as f64 / 100.0;
            let x = base.map_by_degree(|_, c| c * sigma);
            let (m, a) = (mse(&x, &y) / power, amse(&x, &y) / power);
            assert!(
                (m - expected_mse(sigma, rho)).abs() < 0.05,
                "σ={sigma}: {m}"
            );
            assert!(
                (a - expected_amse(sigma, rho)).abs() < 0.1,
                "σ={sigma}: {a}"
            );
            if m < best.0 {
                best.0 = m;
                best.1 = sigma;
            }
            if a < best.2 {
                best.2 = a;
                best.3 = sigma;
            }
        }
        assert!((best.1 - rho).abs() < 0.04, "MSE minimum at {}", best.1);
        assert_eq!(best.3, 1.0, "AMSE minimum");
    }

    #[test]
    fn gradients_match_finite_differences() {
        let y = white(6, 7);
        let x = combine(&y, 0.8, &white(6, 8), 0.4);
        for (loss, grad) in [
            (amse as fn(&Coeffs, &Coeffs) -> f64, amse_gradient(&x, &y)),
            (mse as fn(&Coeffs, &Coeffs) -> f64, mse_gradient(&x, &y)),
        ] {
            for m in 0..=6 {
                for l in m.max(1)..=6 {
                    for imaginary in [false, true] {
                        if m == 0 && imaginary {
                            continue;
                        }
                        let h = 1e-6;
                        let step = if imaginary {
                            Complex64::new(0.0, h)
                        } else {
                            Complex64::new(h, 0.0)
                        };
                        let mut plus = x.clone();
                        plus.set(l, m, x.get(l, m) + step);
                        let mut minus = x.clone();
                        minus.set(l, m, x.get(l, m) - step);
                        let numeric = (loss(&plus, &y) - loss(&minus, &y)) / (2.0 * h);
                        let g = grad.get(l, m);
                        let analytic = if imaginary { g.im } else { g.re };
                        assert!(
                            (numeric - analytic).abs() < 1e-6,
                            "l={l} m={m}: {numeric} vs {analytic}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn std_normalisation() {
        let grid = Grid::new(crate::GridKind::GaussLegendre, 8, 16).unwrap();
        let field: Vec<f64> = (0..128)
            .map(|i| 3.0 + if i % 2 == 0 { 2.0 } else { -2.0 })
            .collect();
        let std = area_std(&grid, &[&field]).unwrap();
        assert!((std - 2.0).abs() < 1e-12);
        assert!((normalised(&field, std)[0] - 2.5).abs() < 1e-12);
        assert!(area_std(&grid, &[&[1.0; 128][..]]).is_err());
    }
}
