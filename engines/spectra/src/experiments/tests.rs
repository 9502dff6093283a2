use super::*;

use crate::synthetic::SpectrumShape;

fn small() -> AnalyticParams {
    AnalyticParams {
        lmax: 63,
        k_c: 16.0,
        steps: 120,
        ..AnalyticParams::default()
    }
}

#[test]
fn mse_gains_converge_to_rho_and_amse_gains_to_one() {
    let params = small();
    let result = run_analytic(&params, 7, &Progress::new(), &CancelToken::new()).unwrap();
    for k in 1..=params.lmax {
        let rho = (-(k as f64) / params.k_c).exp();
        assert!((result.rho[k] - rho).abs() < 1e-15);
        // This realisation's exact optima are ρ_k and 1 (the forecast is built that way).
        assert!((result.optimal_gain_mse[k] - rho).abs() < 1e-12, "k = {k}");
        assert!((result.optimal_gain_amse[k] - 1.0).abs() < 1e-12, "k = {k}");
        assert!((result.coherence[k] - rho).abs() < 1e-12, "k = {k}");
        // 120 steps of (1 − 0.1) contraction from 0.5: within 0.5·0.9¹²⁰ ≈ 1.6e-6.
        assert!(
            (result.gain_mse[k] - rho).abs() < 1e-5,
            "MSE gain at k = {k}: {}",
            result.gain_mse[k]
        );
        assert!(
            (result.gain_amse[k] - 1.0).abs() < 1e-5,
            "AMSE gain at k = {k}: {}",
            result.gain_amse[k]
        );
        // The fitted forecasts' amplitude ratios are the gains.
        assert!((result.ratio_mse_fit[k] - result.gain_mse[k]).abs() < 1e-12);
    }
    // Effective resolution: the MSE fit loses a quarter of the energy where ρ_k² ≤ 0.75,
    // i.e. from k = ⌈k_c·ln(1/√0.75)⌉ = ⌈2.30⌉ = 3; the AMSE fit never does.
    assert_eq!(result.resolution_mse_fit.dissipation_k, Some(3));
    assert_eq!(result.resolution_amse_fit.dissipation_k, None);
    // Both losses fall monotonically.
    for pair in result.history.windows(2) {
        assert!(pair[1].mse_of_mse_fit <= pair[0].mse_of_mse_fit * (1.0 + 1e-12));
        assert!(pair[1].amse_of_amse_fit <= pair[0].amse_of_amse_fit * (1.0 + 1e-12));
    }
    // The damped forecast has the smaller MSE, the undamped one the smaller AMSE.
    assert!(result.mse_terms_mse_fit.total < result.mse_terms_amse_fit.total);
    let json = serde_json::to_string(&result).unwrap();
    // Finite everywhere (no JSON nulls), and it reads back.
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        !crate::experiments::tests::has_stray_null(&value, ""),
        "non-finite numbers in the result"
    );
    let back: AnalyticResult = serde_json::from_str(&json).unwrap();
    assert_eq!(back.k, result.k);
    let again = run_analytic(&params, 7, &Progress::new(), &CancelToken::new()).unwrap();
    assert_eq!(again, result, "same seed, same bits");
    let maps = result.maps.unwrap();
    assert_eq!(maps.truth.len(), maps.grid.len());
}

#[test]
fn amse_gains_come_down_to_one_from_above() {
    let params = AnalyticParams {
        initial_gain: 1.8,
        maps: false,
        ..small()
    };
    let result = run_analytic(&params, 8, &Progress::new(), &CancelToken::new()).unwrap();
    for k in 1..=params.lmax {
        assert!(
            (result.gain_amse[k] - 1.0).abs() < 1e-3,
            "k = {k}: {}",
            result.gain_amse[k]
        );
    }
}

#[test]
fn gain_gradients_match_finite_differences_of_the_crate_losses() {
    let params = AnalyticParams {
        spectrum: SpectrumSpec {
            shape: SpectrumShape::PowerLaw {
                exponent: 5.0 / 3.0,
            },
            variance: 2.0,
        },
        ..small()
    };
    let fit = GainFit::new(&params, 3).unwrap();
    let (truth, forecast) = fit.fields();
    let (pa, pb, x) = joint_spectra(truth, forecast);
    let k = 9;
    for g in [0.3, 0.8, 1.3] {
        let loss_at = |gain: f64, adjusted: bool| {
            let mut gains = vec![g; params.lmax + 1];
            gains[k] = gain;
            let fitted = apply_gains(forecast, &gains).unwrap();
            if adjusted {
                amse(&fitted, truth)
            } else {
                mse(&fitted, truth)
            }
        };
        let h = 1e-6;
        let numeric_mse = (loss_at(g + h, false) - loss_at(g - h, false)) / (2.0 * h);
        let numeric_amse = (loss_at(g + h, true) - loss_at(g - h, true)) / (2.0 * h);
        let analytic_mse = mse_gain_gradient(g, pb[k], x[k]);
        let analytic_amse = amse_gain_gradient(g, pa[k], pb[k], x[k]);
        assert!(
            (numeric_mse - analytic_mse).abs() < 1e-6 * (1.0 + analytic_mse.abs()),
            "g {g}: MSE {numeric_mse} vs {analytic_mse}"
        );
        assert!(
            (numeric_amse - analytic_amse).abs() < 1e-6 * (1.0 + analytic_amse.abs()),
            "g {g}: AMSE {numeric_amse} vs {analytic_amse}"
        );
    }
}

#[test]
fn bad_settings_are_rejected_by_name() {
    let error = GainFit::new(
        &AnalyticParams {
            k_c: -1.0,
            ..small()
        },
        0,
    )
    .unwrap_err();
    assert!(error.to_string().contains("k_c"));
    let error = GainFit::new(
        &AnalyticParams {
            learning_rate: 2.0,
            ..small()
        },
        0,
    )
    .unwrap_err();
    assert!(error.to_string().contains("learning_rate"));
    let cancel = CancelToken::new();
    cancel.cancel();
    assert!(matches!(
        run_analytic(&small(), 0, &Progress::new(), &cancel),
        Err(ComputeError::Cancelled)
    ));
}

/// Whether a JSON value has nulls anywhere but under keys that hold `Option`s.
pub(crate) fn has_stray_null(value: &serde_json::Value, key: &str) -> bool {
    const OPTIONAL: [&str; 6] = [
        "dissipation_k",
        "noise_k",
        "dissipation_km",
        "noise_km",
        "snapshot",
        "maps",
    ];
    match value {
        serde_json::Value::Null => !OPTIONAL.contains(&key),
        serde_json::Value::Array(items) => items.iter().any(|v| has_stray_null(v, key)),
        serde_json::Value::Object(map) => map.iter().any(|(k, v)| has_stray_null(v, k)),
        _ => false,
    }
}

#[test]
fn robust_an_overflowing_variance_is_an_error_not_infinite_losses() {
    // A variance near f64's largest number and fits starting at a gain of 1,000: the fitted
    // forecasts' powers (g²·P) overflow, and with them the losses.
    let params = AnalyticParams {
        lmax: 15,
        steps: 2,
        maps: false,
        initial_gain: 1e3,
        spectrum: crate::synthetic::SpectrumSpec {
            variance: 1e308,
            ..Default::default()
        },
        ..AnalyticParams::default()
    };
    let err = run_analytic(&params, 3, &Progress::new(), &CancelToken::new()).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("`variance`")
            && message.contains("overflow f64")
            && message.contains("use a smaller variance"),
        "{message}"
    );
    // A large but representable variance still runs, with finite losses and the coherence
    // ρ_k (the product of two powers near 1e307 overflows; the coherence once came out 0).
    let fine = AnalyticParams {
        initial_gain: 0.5,
        ..params
    };
    let result = run_analytic(&fine, 3, &Progress::new(), &CancelToken::new()).unwrap();
    assert!(result.amse_terms_amse_fit.total.is_finite());
    assert!(
        result
            .history
            .iter()
            .all(|s| s.amse_of_amse_fit.is_finite())
    );
    for k in 1..=fine.lmax {
        assert!(
            (result.coherence[k] - result.rho[k]).abs() < 1e-12,
            "k = {k}"
        );
    }
}
