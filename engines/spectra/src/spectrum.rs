//! Spectra per total wavenumber k: power, cross-power, coherence and amplitude ratio.
//!
//! With the 4π-normalised coefficients of [`crate::sht`]:
//! - `PSD_k(x) = |a_k0|² + 2 Σ_{m≥1} |a_km|²`, so `Σ_k PSD_k` is the area-weighted mean of x²
//!   and `PSD_0` is the squared area mean;
//! - `X_k(x, y) = Re(a_k0 b_k0*) + 2 Σ_{m≥1} Re(a_km b_km*)` (the cross-spectrum);
//! - `Coh_k = X_k / √(PSD_k(x)·PSD_k(y))`, clipped at 1 (0 where either power is 0);
//! - `R_k = √(PSD_k(forecast)/PSD_k(truth))` (the amplitude ratio).
//!
//! Functions taking two coefficient sets use the smaller of their two lmax.

use benchtop_compute::ComputeError;
use serde::{Deserialize, Serialize};

use crate::grid::Grid;
use crate::resolution::wavelength_km;
use crate::sht::{Coeffs, Sht};

/// The power spectrum of a gridded field, one entry per k (the `benchtop spectra` CSV rows
/// `k,wavelength_km,psd` and the panel's log–log plot).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldSpectrum {
    /// Total wavenumbers 0..=lmax.
    pub k: Vec<usize>,
    /// Wavelength `2πR_E/k` in km; k = 0 (the mean) has none and is given as 0.
    pub wavelength_km: Vec<f64>,
    /// `PSD_k` in the field's units squared (sums to the area-weighted mean square).
    pub psd: Vec<f64>,
}

/// Transforms `values` (`grid.nlat × grid.nlon`, north first) to degree `lmax` (`None`: the
/// grid's largest, [`Grid::max_lmax`]) and returns its power spectrum.
///
/// The power is a sum of squares: for values beyond about 1e154 it exceeds f64's range (a
/// field near 1e300 has a power near 1e600), and scaling cannot help, since the spectrum itself
/// is not representable. Such a field is an error that says why ([`ComputeError::Numerical`]),
/// as is one with NaN or infinite values (refused by the transform): the spectrum is never
/// silently infinite or NaN.
pub fn field_spectrum(
    grid: &Grid,
    values: &[f64],
    lmax: Option<usize>,
) -> Result<FieldSpectrum, ComputeError> {
    let lmax = lmax.unwrap_or_else(|| grid.max_lmax());
    let coeffs = Sht::new(grid, lmax)?.forward(values)?;
    let power = psd(&coeffs);
    check_power(&power, values)?;
    let wavelength_km = (0..=lmax)
        .map(|k| if k == 0 { 0.0 } else { wavelength_km(k as f64) })
        .collect();
    Ok(FieldSpectrum {
        k: (0..=lmax).collect(),
        wavelength_km,
        psd: power,
    })
}

/// Refuses a power spectrum with an infinite or NaN entry, saying why: the squares of the
/// field's `values` exceed f64's largest number (NaN and infinite values are refused earlier,
/// by the transform).
fn check_power(power: &[f64], values: &[f64]) -> Result<(), ComputeError> {
    let Some(k) = power.iter().position(|p| !p.is_finite()) else {
        return Ok(());
    };
    let largest = values.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    Err(ComputeError::Numerical(format!(
        "the power spectrum overflows f64 (PSD at k = {k} is {}): the field's values reach \
         {largest:.3e} and power is their square, beyond f64's largest number ({:.3e}); \
         rescale the field (for example, change its units)",
        power[k],
        f64::MAX
    )))
}

/// Power per total wavenumber k = 0..=lmax.
pub fn psd(a: &Coeffs) -> Vec<f64> {
    let mut out = vec![0.0; a.lmax() + 1];
    for m in 0..=a.lmax() {
        let factor = if m == 0 { 1.0 } else { 2.0 };
        for (k, c) in a.column(m).iter().enumerate() {
            out[m + k] += factor * c.norm_sqr();
        }
    }
    out
}

/// Cross-spectrum `X_k(a, b)` for k = 0..=min(lmax).
pub fn cross_spectrum(a: &Coeffs, b: &Coeffs) -> Vec<f64> {
    joint_spectra(a, b).2
}

/// `PSD_k(a)`, `PSD_k(b)` and `X_k(a, b)` together, for k = 0..=min(lmax).
pub fn joint_spectra(a: &Coeffs, b: &Coeffs) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let lmax = a.lmax().min(b.lmax());
    let mut pa = vec![0.0; lmax + 1];
    let mut pb = vec![0.0; lmax + 1];
    let mut x = vec![0.0; lmax + 1];
    for m in 0..=lmax {
        let factor = if m == 0 { 1.0 } else { 2.0 };
        let columns = a.column(m).iter().zip(b.column(m));
        for (k, (u, v)) in columns.take(lmax + 1 - m).enumerate() {
            pa[m + k] += factor * u.norm_sqr();
            pb[m + k] += factor * v.norm_sqr();
            x[m + k] += factor * (u.re * v.re + u.im * v.im);
        }
    }
    (pa, pb, x)
}

/// Coherence from powers and cross-power: `X/√(Pa·Pb)` clipped at 1, 0 when `Pa·Pb = 0`.
/// Powers whose product overflows f64 (beyond about 1e154 each) use `√Pa·√Pb` instead, so
/// the coherence of large fields is not silently 0.
pub fn coherence_from(pa: f64, pb: f64, cross: f64) -> f64 {
    let product = pa * pb;
    let denominator = if product.is_finite() {
        product.sqrt()
    } else {
        pa.sqrt() * pb.sqrt()
    };
    if denominator > 0.0 {
        (cross / denominator).min(1.0)
    } else {
        0.0
    }
}

/// Coherence `Coh_k(a, b)` for k = 0..=min(lmax) (see the module docs).
pub fn coherence(a: &Coeffs, b: &Coeffs) -> Vec<f64> {
    let (pa, pb, x) = joint_spectra(a, b);
    (0..pa.len())
        .map(|k| coherence_from(pa[k], pb[k], x[k]))
        .collect()
}

/// Amplitude ratio `R_k = √(PSD_k(forecast)/PSD_k(truth))`; NaN where the truth has no power.
pub fn amplitude_ratio(forecast: &Coeffs, truth: &Coeffs) -> Vec<f64> {
    let (pf, pt, _) = joint_spectra(forecast, truth);
    pf.iter()
        .zip(&pt)
        .map(|(f, t)| if *t > 0.0 { (f / t).sqrt() } else { f64::NAN })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::GridKind;
    use num_complex::Complex64;
    use rand_distr::{Distribution, StandardNormal};

    /// Gaussian coefficients with E[PSD_k] = power(k): each a_km ~ N(0, power(k)/(2k+1)).
    fn gaussian_field(lmax: usize, seed: u64, power: impl Fn(usize) -> f64) -> Coeffs {
        let mut rng = benchtop_compute::rng::seeded(seed);
        let mut c = Coeffs::zeros(lmax);
        for m in 0..=lmax {
            for l in m..=lmax {
                let sd = (power(l) / (2 * l + 1) as f64).sqrt();
                let (re, im): (f64, f64) = (
                    StandardNormal.sample(&mut rng),
                    StandardNormal.sample(&mut rng),
                );
                let v = if m == 0 {
                    Complex64::new(re * sd, 0.0)
                } else {
                    Complex64::new(re, im) * (sd * std::f64::consts::FRAC_1_SQRT_2)
                };
                c.set(l, m, v);
            }
        }
        c
    }

    #[test]
    fn white_noise_has_psd_proportional_to_2k_plus_1() {
        // Equal variance for every (l, m): E[PSD_k] = 2k + 1. Through the grid and back.
        let grid = Grid::new(GridKind::Equiangular, 181, 360).unwrap();
        let sht = Sht::new(&grid, 179).unwrap();
        let c = gaussian_field(179, 3, |k| (2 * k + 1) as f64);
        let back = sht.forward(&sht.inverse(&c).unwrap()).unwrap();
        let p = psd(&back);
        // Bands of 20 degrees: relative spread ~ 1/√(Σ(2k+1)) ≈ 2–5 %.
        for band in (20..180).step_by(20) {
            let got: f64 = p[band..band + 20].iter().sum();
            let expected: f64 = (band..band + 20).map(|k| (2 * k + 1) as f64).sum();
            assert!(
                (got / expected - 1.0).abs() < 0.12,
                "band {band}: {}",
                got / expected
            );
        }
        // A straight-line fit of PSD_k/(2k+1) has no trend.
        let ratio: Vec<f64> = (1..180).map(|k| p[k] / (2 * k + 1) as f64).collect();
        let n = ratio.len() as f64;
        let mean_k = (1..180).sum::<usize>() as f64 / n;
        let mean_r = ratio.iter().sum::<f64>() / n;
        let slope = (1..180)
            .zip(&ratio)
            .map(|(k, r)| (k as f64 - mean_k) * (r - mean_r))
            .sum::<f64>()
            / (1..180).map(|k| (k as f64 - mean_k).powi(2)).sum::<f64>();
        assert!(slope.abs() * 180.0 < 0.1, "trend {slope}");
    }

    #[test]
    fn a_prescribed_spectrum_is_recovered_and_parseval_holds_on_the_grid() {
        // PSD_k = k^−3: the grid round trip returns the coefficients, hence the exact spectrum.
        let grid = Grid::new(GridKind::Equiangular, 91, 180).unwrap();
        let sht = Sht::new(&grid, 45).unwrap();
        let c = gaussian_field(45, 9, |k| if k == 0 { 0.3 } else { (k as f64).powi(-3) });
        let field = sht.inverse(&c).unwrap();
        let back = sht.forward(&field).unwrap();
        for (a, b) in psd(&c).iter().zip(psd(&back)) {
            assert!((a - b).abs() < 1e-12 * a.max(1e-6));
        }
        // Parseval with the grid's quadrature weights (exact here: 2·lmax ≤ nlat − 1).
        let squared: Vec<f64> = field.iter().map(|v| v * v).collect();
        let total: f64 = psd(&c).iter().sum();
        assert!((grid.mean(&squared).unwrap() - total).abs() < 1e-12 * total);
        // k = 0 is the squared area mean.
        assert!((psd(&c)[0] - grid.mean(&field).unwrap().powi(2)).abs() < 1e-14);
    }

    #[test]
    fn field_spectrum_of_a_gridded_field() {
        let grid = Grid::new(GridKind::Equiangular, 37, 72).unwrap();
        let sht = Sht::new(&grid, 12).unwrap();
        let c = gaussian_field(12, 5, |k| 1.0 / (1.0 + k as f64));
        let field = sht.inverse(&c).unwrap();
        let s = field_spectrum(&grid, &field, Some(12)).unwrap();
        assert_eq!(s.k, (0..=12).collect::<Vec<_>>());
        assert_eq!(s.wavelength_km[0], 0.0);
        assert!((s.wavelength_km[2] - wavelength_km(2.0)).abs() < 1e-9);
        for (a, b) in s.psd.iter().zip(psd(&c)) {
            assert!((a - b).abs() < 1e-12 * b.max(1e-6));
        }
        assert_eq!(
            field_spectrum(&grid, &field, None).unwrap().k.len(),
            grid.max_lmax() + 1
        );
        assert!(field_spectrum(&grid, &field[1..], None).is_err());
    }

    #[test]
    fn spectra_of_simple_coefficients() {
        let mut a = Coeffs::zeros(3);
        a.set(0, 0, Complex64::new(2.0, 0.0));
        a.set(2, 1, Complex64::new(1.0, 1.0));
        a.set(2, 0, Complex64::new(-1.0, 0.0));
        assert_eq!(psd(&a), vec![4.0, 0.0, 1.0 + 2.0 * 2.0, 0.0]);
        let mut b = a.clone();
        b.set(2, 1, Complex64::new(1.0, -1.0));
        // k = 2: Re parts: (−1)(−1) + 2·(1·1 + 1·(−1)) = 1.
        assert_eq!(cross_spectrum(&a, &b), vec![4.0, 0.0, 1.0, 0.0]);
        let coh = coherence(&a, &b);
        assert_eq!(coh[0], 1.0);
        assert_eq!(coh[1], 0.0);
        assert!((coh[2] - 0.2).abs() < 1e-15);
        let ratio = amplitude_ratio(&b.map_by_degree(|_, c| c * 0.5), &a);
        assert!((ratio[2] - 0.5).abs() < 1e-15 && ratio[1].is_nan());
        // Coherence of a field with itself is exactly 1.
        assert!(coherence(&a, &a).iter().all(|c| *c == 1.0 || *c == 0.0));
    }

    #[test]
    fn robust_a_field_whose_power_overflows_is_refused_not_infinite() {
        let grid = Grid::new(GridKind::Equiangular, 37, 72).unwrap();
        let sht = Sht::new(&grid, 12).unwrap();
        let field = sht
            .inverse(&gaussian_field(12, 5, |k| 1.0 / (1.0 + k as f64)))
            .unwrap();
        let unit = field_spectrum(&grid, &field, None).unwrap();
        let total: f64 = unit.psd.iter().sum();
        // Values near 1e150: the power (near 1e300) is representable, and right.
        let big: Vec<f64> = field.iter().map(|v| v * 1e150).collect();
        let scaled = field_spectrum(&grid, &big, None).unwrap();
        for (a, b) in scaled.psd.iter().zip(&unit.psd) {
            assert!((a / 1e300 - b).abs() < 1e-12 * total, "{a} vs {b}");
        }
        // Values near 1e300: the power would be near 1e600; once it was all `inf`.
        for values in [
            field.iter().map(|v| v * 1e300).collect::<Vec<f64>>(),
            vec![1e300; field.len()],
        ] {
            let err = field_spectrum(&grid, &values, None).unwrap_err();
            assert!(matches!(err, ComputeError::Numerical(_)), "{err:?}");
            let message = err.to_string();
            assert!(
                message.contains("the power spectrum overflows f64")
                    && message.contains("the field's values reach")
                    && message.contains("e300")
                    && message.contains("rescale the field"),
                "{message}"
            );
        }
        let mut holed = field.clone();
        holed[3] = f64::NAN;
        assert!(field_spectrum(&grid, &holed, None).is_err());
        // Powers near 1e300 have a product beyond f64: the coherence is still right.
        assert_eq!(coherence_from(1e300, 1e300, 1e300), 1.0);
        assert!((coherence_from(4e300, 1e300, 1e300) - 0.5).abs() < 1e-15);
    }
}
