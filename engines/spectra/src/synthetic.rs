//! Synthetic fields on the sphere: random fields with a prescribed power spectrum, and the
//! analytic "forecast" of the AMSE paper (truth with scale-dependent decorrelation ρ_k).
//!
//! A random field with spectrum `P_k` has independent Gaussian coefficients with
//! `E|a_k0|² = P_k/(2k+1)` (real) and `E|a_km|² = P_k/(2k+1)` for m ≥ 1 (complex, half the
//! variance in each part), so that `E[PSD_k] = P_k` with `PSD_k = |a_k0|² + 2Σ_{m≥1}|a_km|²`
//! ([`crate::spectrum::psd`]). The field on a grid is the inverse transform.
//!
//! The analytic forecast of a truth `a` is `b_k = ρ_k·a_k + √(1 − ρ_k²)·n_k`, where within
//! every total wavenumber k the noise `n_k` is orthogonal to `a_k` (in the cross-spectrum inner
//! product) and has exactly the truth's power. Hence `PSD_k(b) = PSD_k(a)` (amplitude kept)
//! and `Coh_k(a, b) = ρ_k` exactly, not just in expectation.

use benchtop_compute::ComputeError;
use benchtop_compute::rng::EngineRng;
use num_complex::Complex64;
use rand_distr::{Distribution as _, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::sht::{Coeffs, Sht};

/// The shape of a prescribed power spectrum.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpectrumShape {
    /// `PSD_k ∝ k^(−exponent)` for k ≥ 1 (3: synoptic-scale kinetic energy; 5/3: mesoscale).
    PowerLaw {
        /// The spectral slope: PSD_k ∝ k^(−exponent).
        exponent: f64,
    },
    /// `PSD_k ∝ k^(−exponent)·exp(−(k/k_cut)²)`: a power law with a smooth cut-off.
    PowerLawWithCutoff {
        /// The spectral slope.
        exponent: f64,
        /// The wavenumber where the Gaussian taper has fallen to 1/e.
        k_cut: f64,
    },
    /// Any closure: the relative power per k (index k = 0..; missing entries are 0).
    Table {
        /// Relative PSD_k for k = 0, 1, …
        psd: Vec<f64>,
    },
}

impl Default for SpectrumShape {
    fn default() -> Self {
        Self::PowerLaw { exponent: 3.0 }
    }
}

/// A prescribed spectrum: its shape and total variance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpectrumSpec {
    /// Shape of PSD_k.
    pub shape: SpectrumShape,
    /// Σ_{k ≥ 1} PSD_k: the area-weighted variance of the field (k = 0, the mean, is 0).
    pub variance: f64,
}

impl Default for SpectrumSpec {
    fn default() -> Self {
        Self {
            shape: SpectrumShape::default(),
            variance: 1.0,
        }
    }
}

impl SpectrumSpec {
    /// PSD_k for k = 0..=lmax, scaled so that Σ_{k≥1} PSD_k = `variance` (PSD_0 = 0, except
    /// for a table, whose entry 0 is kept relative to the rest).
    pub fn psd(&self, lmax: usize) -> Result<Vec<f64>, ComputeError> {
        if !(self.variance.is_finite() && self.variance >= 0.0) {
            return Err(ComputeError::invalid(
                "variance",
                format!("must be finite and ≥ 0 (got {})", self.variance),
            ));
        }
        let raw: Vec<f64> = match &self.shape {
            SpectrumShape::PowerLaw { exponent } => {
                check_exponent(*exponent)?;
                (0..=lmax)
                    .map(|k| {
                        if k == 0 {
                            0.0
                        } else {
                            (k as f64).powf(-exponent)
                        }
                    })
                    .collect()
            }
            SpectrumShape::PowerLawWithCutoff { exponent, k_cut } => {
                check_exponent(*exponent)?;
                if !(k_cut.is_finite() && *k_cut > 0.0) {
                    return Err(ComputeError::invalid(
                        "k_cut",
                        format!("must be finite and > 0 (got {k_cut})"),
                    ));
                }
                (0..=lmax)
                    .map(|k| {
                        if k == 0 {
                            0.0
                        } else {
                            let k = k as f64;
                            k.powf(-exponent) * (-(k / k_cut).powi(2)).exp()
                        }
                    })
                    .collect()
            }
            SpectrumShape::Table { psd } => {
                if let Some(bad) = psd.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
                    return Err(ComputeError::invalid(
                        "psd",
                        format!("table entries must be finite and ≥ 0 (found {bad})"),
                    ));
                }
                (0..=lmax)
                    .map(|k| psd.get(k).copied().unwrap_or(0.0))
                    .collect()
            }
        };
        let total: f64 = raw.iter().skip(1).sum();
        if total <= 0.0 {
            return Err(ComputeError::invalid(
                "psd",
                "the spectrum has no power at k ≥ 1",
            ));
        }
        let scale = self.variance / total;
        Ok(raw.iter().map(|p| p * scale).collect())
    }
}

fn check_exponent(exponent: f64) -> Result<(), ComputeError> {
    if exponent.is_finite() {
        Ok(())
    } else {
        Err(ComputeError::invalid(
            "exponent",
            format!("must be finite (got {exponent})"),
        ))
    }
}

/// Random coefficients with `E[PSD_k] = psd[k]` for k = 0..=lmax (lmax = psd.len() − 1).
pub fn random_coeffs(psd: &[f64], rng: &mut EngineRng) -> Result<Coeffs, ComputeError> {
    if psd.is_empty() {
        return Err(ComputeError::invalid("psd", "the spectrum is empty"));
    }
    if let Some(bad) = psd.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
        return Err(ComputeError::invalid(
            "psd",
            format!("entries must be finite and ≥ 0 (found {bad})"),
        ));
    }
    let lmax = psd.len() - 1;
    let mut coeffs = Coeffs::zeros(lmax);
    // Draw in a fixed order (m outer, l inner) so that the same seed gives the same field.
    for m in 0..=lmax {
        for (l, power) in psd.iter().enumerate().skip(m) {
            let per_mode = power / (2 * l + 1) as f64;
            let re: f64 = StandardNormal.sample(rng);
            let im: f64 = StandardNormal.sample(rng);
            let value = if m == 0 {
                Complex64::new(re * per_mode.sqrt(), 0.0)
            } else {
                let s = (per_mode / 2.0).sqrt();
                Complex64::new(re * s, im * s)
            };
            coeffs.set(l, m, value);
        }
    }
    Ok(coeffs)
}

/// A random field on `sht`'s grid with `E[PSD_k] = spec.psd(sht.lmax())[k]`, and its
/// coefficients.
pub fn random_field(
    sht: &Sht,
    spec: &SpectrumSpec,
    rng: &mut EngineRng,
) -> Result<(Coeffs, Vec<f64>), ComputeError> {
    let psd = spec.psd(sht.lmax())?;
    let coeffs = random_coeffs(&psd, rng)?;
    let field = sht.inverse(&coeffs)?;
    Ok((coeffs, field))
}

/// The paper's scale-dependent decorrelation `ρ_k = exp(−k/k_c)` for k = 0..=lmax (ρ_0 = 1).
pub fn exponential_decorrelation(lmax: usize, k_c: f64) -> Result<Vec<f64>, ComputeError> {
    if !(k_c.is_finite() && k_c > 0.0) {
        return Err(ComputeError::invalid(
            "k_c",
            format!("the decorrelation wavenumber must be finite and > 0 (got {k_c})"),
        ));
    }
    Ok((0..=lmax).map(|k| (-(k as f64) / k_c).exp()).collect())
}

/// Inner product within total wavenumber k (the cross-spectrum term).
fn dot_k(a: &Coeffs, b: &Coeffs, k: usize) -> f64 {
    (0..=k)
        .map(|m| {
            let (x, y) = (a.get(k, m), b.get(k, m));
            let w = if m == 0 { 1.0 } else { 2.0 };
            w * (x.re * y.re + x.im * y.im)
        })
        .sum()
}

/// The analytic forecast `b_k = ρ_k a_k + √(1 − ρ_k²) n_k` of truth `a` (see the module docs):
/// `PSD_k(b) = PSD_k(a)` and `Coh_k(a, b) = ρ_k` exactly for every k ≥ 1 with power; the mean
/// (k = 0) is kept. `rho` needs lmax + 1 entries in [0, 1].
pub fn decorrelated_forecast(
    truth: &Coeffs,
    rho: &[f64],
    rng: &mut EngineRng,
) -> Result<Coeffs, ComputeError> {
    let lmax = truth.lmax();
    if rho.len() != lmax + 1 {
        return Err(ComputeError::invalid(
            "rho",
            format!("needs lmax + 1 = {} entries (got {})", lmax + 1, rho.len()),
        ));
    }
    if let Some(bad) = rho.iter().find(|r| !(0.0..=1.0).contains(*r)) {
        return Err(ComputeError::invalid(
            "rho",
            format!("correlations must lie in [0, 1] (found {bad})"),
        ));
    }
    let white = random_coeffs(&vec![1.0; lmax + 1], rng)?;
    let mut out = Coeffs::zeros(lmax);
    out.set(0, 0, truth.get(0, 0));
    for (k, &r) in rho.iter().enumerate().skip(1) {
        let power = dot_k(truth, truth, k);
        if power <= 0.0 {
            continue;
        }
        // Remove the component along the truth, then scale to the truth's power.
        let along = dot_k(&white, truth, k) / power;
        let mut noise: Vec<Complex64> = (0..=k)
            .map(|m| white.get(k, m) - truth.get(k, m) * along)
            .collect();
        if noise.iter().all(|c| c.norm_sqr() == 0.0) {
            continue;
        }
        let noise_power: f64 = noise
            .iter()
            .enumerate()
            .map(|(m, c)| {
                if m == 0 {
                    c.norm_sqr()
                } else {
                    2.0 * c.norm_sqr()
                }
            })
            .sum();
        let scale = (power / noise_power).sqrt();
        let keep = (1.0 - r * r).max(0.0).sqrt();
        for (m, n) in noise.iter_mut().enumerate() {
            let mut value = truth.get(k, m) * r + *n * (scale * keep);
            if m == 0 {
                value.im = 0.0;
            }
            out.set(k, m, value);
        }
    }
    Ok(out)
}

/// `a_lm · gain[l]` for every coefficient (gain needs lmax + 1 entries).
pub fn apply_gains(a: &Coeffs, gain: &[f64]) -> Result<Coeffs, ComputeError> {
    if gain.len() != a.lmax() + 1 {
        return Err(ComputeError::invalid(
            "gain",
            format!(
                "needs lmax + 1 = {} entries (got {})",
                a.lmax() + 1,
                gain.len()
            ),
        ));
    }
    Ok(a.map_by_degree(|l, c| c * gain[l]))
}

#[cfg(test)]
mod tests;
