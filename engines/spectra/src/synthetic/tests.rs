use super::*;

use benchtop_compute::rng::seeded;

use crate::grid::{Grid, GridKind};
use crate::spectrum::{coherence, psd};

/// Least-squares slope of log PSD against log k over `ks`.
fn log_slope(power: &[f64], ks: std::ops::RangeInclusive<usize>) -> f64 {
    let points: Vec<(f64, f64)> = ks.map(|k| ((k as f64).ln(), power[k].ln())).collect();
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    sxy / sxx
}

#[test]
fn prescribed_spectra_are_recovered_through_the_grid() {
    let lmax = 63;
    let grid = Grid::new(GridKind::GaussLegendre, 64, 128).unwrap();
    let sht = Sht::new(&grid, lmax).unwrap();
    for exponent in [3.0, 5.0 / 3.0] {
        let spec = SpectrumSpec {
            shape: SpectrumShape::PowerLaw { exponent },
            variance: 2.5,
        };
        let target = spec.psd(lmax).unwrap();
        assert!((target.iter().sum::<f64>() - 2.5).abs() < 1e-12);
        // The field on the grid carries exactly the spectrum of its coefficients.
        let (coeffs, field) = random_field(&sht, &spec, &mut seeded(11)).unwrap();
        let recovered = psd(&sht.forward(&field).unwrap());
        for (k, (r, c)) in recovered.iter().zip(psd(&coeffs)).enumerate() {
            assert!((r - c).abs() <= 1e-10 * c.max(1e-12), "k = {k}: {r} vs {c}");
        }
        // Averaged over realisations the spectrum is the prescribed one: each band's power
        // is within 4 standard deviations (Var PSD_k = 2 P_k²/((2k+1)·R) for R draws).
        let realisations = 32;
        let mut mean = vec![0.0; lmax + 1];
        let mut rng = seeded(12);
        for _ in 0..realisations {
            let drawn = psd(&random_coeffs(&target, &mut rng).unwrap());
            for (m, r) in mean.iter_mut().zip(&drawn) {
                *m += r / realisations as f64;
            }
        }
        for band in [(1, 3), (4, 15), (16, 31), (32, 63)] {
            let got: f64 = mean[band.0..=band.1].iter().sum();
            let want: f64 = target[band.0..=band.1].iter().sum();
            let variance: f64 = (band.0..=band.1)
                .map(|k| 2.0 * target[k].powi(2) / ((2 * k + 1) as f64 * realisations as f64))
                .sum();
            let z = (got - want) / variance.sqrt();
            assert!(z.abs() < 4.0, "band {band:?}: {got} vs {want} (z = {z:.2})");
        }
        let slope = log_slope(&mean, 8..=lmax);
        assert!(
            (slope + exponent).abs() < 0.05,
            "slope {slope} for k^-{exponent}"
        );
        assert!(mean[0] < 1e-20, "no mean was asked for");
    }
}

#[test]
fn same_seed_gives_the_same_bits() {
    let psd_k = SpectrumSpec::default().psd(31).unwrap();
    let a = random_coeffs(&psd_k, &mut seeded(5)).unwrap();
    let b = random_coeffs(&psd_k, &mut seeded(5)).unwrap();
    let c = random_coeffs(&psd_k, &mut seeded(6)).unwrap();
    assert_eq!(a, b);
    assert_ne!(a, c);
    // m = 0 coefficients of a real field are real.
    assert!((0..=31).all(|l| a.get(l, 0).im == 0.0));
}

#[test]
fn the_analytic_forecast_keeps_amplitude_and_has_coherence_rho() {
    let lmax = 47;
    let spec = SpectrumSpec {
        shape: SpectrumShape::PowerLawWithCutoff {
            exponent: 3.0,
            k_cut: 40.0,
        },
        variance: 1.0,
    };
    let truth = random_coeffs(&spec.psd(lmax).unwrap(), &mut seeded(1)).unwrap();
    let rho = exponential_decorrelation(lmax, 12.0).unwrap();
    assert_eq!(rho[0], 1.0);
    assert!((rho[12] - (-1.0_f64).exp()).abs() < 1e-15);
    let forecast = decorrelated_forecast(&truth, &rho, &mut seeded(2)).unwrap();
    let (pt, pf) = (psd(&truth), psd(&forecast));
    let coh = coherence(&forecast, &truth);
    assert_eq!(forecast.get(0, 0), truth.get(0, 0));
    for k in 1..=lmax {
        assert!(
            (pf[k] / pt[k] - 1.0).abs() < 1e-12,
            "k = {k}: power {} vs {}",
            pf[k],
            pt[k]
        );
        assert!(
            (coh[k] - rho[k]).abs() < 1e-12,
            "k = {k}: coherence {} vs ρ {}",
            coh[k],
            rho[k]
        );
    }
    // ρ = 1 everywhere reproduces the truth.
    let same = decorrelated_forecast(&truth, &vec![1.0; lmax + 1], &mut seeded(3)).unwrap();
    for (x, y) in same.data().iter().zip(truth.data()) {
        assert!((x - y).norm() < 1e-14);
    }
    // Bad inputs are rejected by name.
    let error = decorrelated_forecast(&truth, &[0.5; 3], &mut seeded(3)).unwrap_err();
    assert!(error.to_string().contains("rho"));
    assert!(exponential_decorrelation(lmax, 0.0).is_err());
}

#[test]
fn spectrum_specs_validate_and_normalise() {
    let table = SpectrumSpec {
        shape: SpectrumShape::Table {
            psd: vec![0.0, 1.0, 3.0],
        },
        variance: 8.0,
    };
    assert_eq!(table.psd(3).unwrap(), vec![0.0, 2.0, 6.0, 0.0]);
    let bad = SpectrumSpec {
        shape: SpectrumShape::Table { psd: vec![1.0] },
        variance: 1.0,
    };
    assert!(bad.psd(4).unwrap_err().to_string().contains("no power"));
    let negative = SpectrumSpec {
        variance: -1.0,
        ..SpectrumSpec::default()
    };
    assert!(
        negative
            .psd(4)
            .unwrap_err()
            .to_string()
            .contains("variance")
    );
    let json = serde_json::to_string(&SpectrumSpec::default()).unwrap();
    let back: SpectrumSpec = serde_json::from_str(&json).unwrap();
    assert_eq!(back, SpectrumSpec::default());
    let partial: SpectrumSpec = serde_json::from_str(r#"{"variance": 3.0}"#).unwrap();
    assert_eq!(partial.shape, SpectrumShape::PowerLaw { exponent: 3.0 });
}
