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

use crate::sht::Coeffs;

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
    let lmax = a.lmax().min(b.lmax());
    let mut out = vec![0.0; lmax + 1];
    for m in 0..=lmax {
        let factor = if m == 0 { 1.0 } else { 2.0 };
        for l in m..=lmax {
            let (x, y) = (a.get(l, m), b.get(l, m));
            out[l] += factor * (x.re * y.re + x.im * y.im);
        }
    }
    out
}

/// `PSD_k(a)`, `PSD_k(b)` and `X_k(a, b)` together, for k = 0..=min(lmax).
pub fn joint_spectra(a: &Coeffs, b: &Coeffs) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let lmax = a.lmax().min(b.lmax());
    let mut pa = vec![0.0; lmax + 1];
    let mut pb = vec![0.0; lmax + 1];
    let mut x = vec![0.0; lmax + 1];
    for m in 0..=lmax {
        let factor = if m == 0 { 1.0 } else { 2.0 };
        for l in m..=lmax {
            let (u, v) = (a.get(l, m), b.get(l, m));
            pa[l] += factor * u.norm_sqr();
            pb[l] += factor * v.norm_sqr();
            x[l] += factor * (u.re * v.re + u.im * v.im);
        }
    }
    (pa, pb, x)
}

/// Coherence from powers and cross-power: `X/√(Pa·Pb)` clipped at 1, 0 when `Pa·Pb = 0`.
pub fn coherence_from(pa: f64, pb: f64, cross: f64) -> f64 {
    let denominator = (pa * pb).sqrt();
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
    use num_complex::Complex64;

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
}
