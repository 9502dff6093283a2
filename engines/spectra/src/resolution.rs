//! Effective resolution from the amplitude ratio `R_k` (Subich et al. 2025, section 4):
//! - dissipation definition: the first k ≥ 1 where `R_k²` falls to 0.75 or below (a quarter of
//!   the energy lost; MSE-trained models);
//! - noise definition: the first k ≥ 1 where `R_k` rises above 1 (AMSE-trained models);
//!
//! both reported as a wavenumber and as a wavelength `λ = 2π·R_E/k` in km.

use serde::{Deserialize, Serialize};

use crate::sht::Coeffs;
use crate::spectrum::amplitude_ratio;

/// Mean Earth radius in km.
pub const EARTH_RADIUS_KM: f64 = 6371.0;

/// The energy fraction that defines the dissipation resolution (`R_k² ≤ 0.75`).
pub const DISSIPATION_ENERGY_FRACTION: f64 = 0.75;

/// Wavelength in km of total wavenumber k on the Earth: `2π·R_E/k` (k = 32 → 1251 km).
pub fn wavelength_km(k: f64) -> f64 {
    2.0 * std::f64::consts::PI * EARTH_RADIUS_KM / k
}

/// The (real) total wavenumber whose wavelength is `km`: `2π·R_E/km`.
pub fn wavenumber_for_km(km: f64) -> f64 {
    2.0 * std::f64::consts::PI * EARTH_RADIUS_KM / km
}

/// Effective resolution by both definitions; `None` when the curve never crosses.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EffectiveResolution {
    /// First k ≥ 1 with `R_k² ≤ 0.75`.
    pub dissipation_k: Option<usize>,
    /// First k ≥ 1 with `R_k > 1`.
    pub noise_k: Option<usize>,
    /// Wavelength of `dissipation_k` in km.
    pub dissipation_km: Option<f64>,
    /// Wavelength of `noise_k` in km.
    pub noise_km: Option<f64>,
}

/// Effective resolution of an amplitude-ratio curve `R_k`, k = 0, 1, … (NaN entries skipped).
pub fn effective_resolution(ratio: &[f64]) -> EffectiveResolution {
    effective_resolution_from(ratio, 1)
}

/// Effective resolution with the first-crossing search starting at `min_k` (≥ 1) instead of
/// 1: for forecasters whose largest scales carry errors of their own (a small network with a
/// short receptive field), so that those do not mask the small-scale behaviour. The R_k
/// curve itself still shows them.
pub fn effective_resolution_from(ratio: &[f64], min_k: usize) -> EffectiveResolution {
    let start = min_k.max(1);
    let dissipation_k = (start..ratio.len())
        .find(|&k| !ratio[k].is_nan() && ratio[k] * ratio[k] <= DISSIPATION_ENERGY_FRACTION);
    let noise_k = (start..ratio.len()).find(|&k| !ratio[k].is_nan() && ratio[k] > 1.0);
    EffectiveResolution {
        dissipation_k,
        noise_k,
        dissipation_km: dissipation_k.map(|k| wavelength_km(k as f64)),
        noise_km: noise_k.map(|k| wavelength_km(k as f64)),
    }
}

/// Effective resolution of a forecast against the truth.
pub fn effective_resolution_of(forecast: &Coeffs, truth: &Coeffs) -> EffectiveResolution {
    effective_resolution(&amplitude_ratio(forecast, truth))
}

/// Combines amplitude-ratio curves of several variables/levels with loss weights: the weighted
/// mean per k over the curves that are finite there (curves may differ in length).
pub fn weighted_ratio(curves: &[(f64, &[f64])]) -> Vec<f64> {
    let len = curves.iter().map(|(_, c)| c.len()).max().unwrap_or(0);
    (0..len)
        .map(|k| {
            let (mut sum, mut weight) = (0.0, 0.0);
            for (w, curve) in curves {
                if let Some(v) = curve.get(k).filter(|v| v.is_finite()) {
                    sum += w * v;
                    weight += w;
                }
            }
            if weight > 0.0 { sum / weight } else { f64::NAN }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wavelengths_match_the_paper() {
        assert!((wavelength_km(32.0) - 1251.0).abs() < 0.5);
        assert!((wavelength_km(90.0) - 445.0).abs() < 0.5);
        assert!((wavelength_km(100.0) - 400.0).abs() < 0.5);
        assert!((wavelength_km(250.0) - 160.0).abs() < 0.2);
        assert!((wavenumber_for_km(wavelength_km(77.0)) - 77.0).abs() < 1e-12);
    }

    #[test]
    fn both_definitions() {
        // R_k = 1 − k/100: R² ≤ 0.75 first at k = 14 (0.86² = 0.7396; 0.87² = 0.7569).
        let damped: Vec<f64> = (0..60).map(|k| 1.0 - k as f64 / 100.0).collect();
        let r = effective_resolution(&damped);
        assert_eq!(r.dissipation_k, Some(14));
        assert_eq!(r.noise_k, None);
        assert!((r.dissipation_km.unwrap() - wavelength_km(14.0)).abs() < 1e-9);
        let noisy: Vec<f64> = (0..60).map(|k| if k < 40 { 1.0 } else { 1.2 }).collect();
        let r = effective_resolution(&noisy);
        assert_eq!((r.dissipation_k, r.noise_k), (None, Some(40)));
        // Large-scale wobbles (a dip at k = 2, an excess at k = 3) are skipped from min_k on.
        let mut wobbly = damped.clone();
        wobbly[2] = 0.5;
        wobbly[3] = 1.1;
        let r = effective_resolution(&wobbly);
        assert_eq!((r.dissipation_k, r.noise_k), (Some(2), Some(3)));
        let r = effective_resolution_from(&wobbly, 4);
        assert_eq!((r.dissipation_k, r.noise_k), (Some(14), None));
        assert_eq!(
            effective_resolution_from(&wobbly, 0),
            effective_resolution(&wobbly)
        );
        let combined = weighted_ratio(&[(1.0, &damped), (3.0, &noisy)]);
        assert!((combined[50] - (0.5 + 3.0 * 1.2) / 4.0).abs() < 1e-12);
    }
}
