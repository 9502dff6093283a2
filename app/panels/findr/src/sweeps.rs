//! What the FINDR panel's sweeps record (the parameters they vary are declared in
//! [`crate::params`]): the test NLL, the held-out predictive gain, the best epoch, the attractor error (synthetic data) and
//! the number of stable fixed points, and one point's evaluation.

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_findr::analysis::Stability;
use benchtop_kit::host::SweepCx;
use benchtop_kit::sweep::SweepOutput;

use super::{FindrPanelParams, data_tab};

/// The outputs sweeps may record.
pub fn outputs() -> Vec<SweepOutput> {
    vec![
        SweepOutput::new("fit.test_nll", "Test NLL (nats per bin)"),
        SweepOutput::new(
            "fit.test_nll_gain",
            "Baseline-only minus model test NLL (nats per bin)",
        ),
        SweepOutput::new(
            "fit.predictive_gain",
            "Baseline-only minus model held-out predictive NLL (nats per bin)",
        ),
        SweepOutput::new("fit.best_epoch", "Best epoch"),
        SweepOutput::new(
            "fit.attractor_error",
            "Largest planted-attractor error (latent units)",
        ),
        SweepOutput::new(
            "fit.stable_fixed_points",
            "Stable fixed points (none counted when the latent is unsupported)",
        ),
    ]
}

/// The digest of what a sweep's results depend on besides its axes and seeds: the data, the
/// fit settings and the fit seed.
pub fn fingerprint(params: &FindrPanelParams) -> String {
    // The host asks for the digest whenever it builds the sweep support, just before a sweep
    format!("{:?}", (&params.data, &params.fit, params.fit_seed))
}

/// Trains and analyses FINDR for one sweep point. The trials are made (or read) once per sweep
/// and shared by its points.
pub fn evaluate(
    params: &FindrPanelParams,
    seed: u64,
    cx: &SweepCx<'_>,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<BTreeMap<String, f64>, ComputeError> {
    let data = cx.cached(|| {
        data_tab::load(
            &params.data,
            cx.project_dir,
            &progress.slice(0.0, 0.05),
            cancel,
        )
    })?;
    let result = benchtop_findr::pipeline::fit(
        &data.trials,
        data.truth.as_ref(),
        &params.fit,
        seed,
        &progress.slice(0.05, 1.0),
        cancel,
        &mut |_| {},
    )?;
    // A fit that does not support a latent flow has no fixed points to count: NaN, not 0 or
    // the points of a collapsed fit.
    let stable = if result.unsupported_reasons().is_empty() {
        result
            .fixed_points
            .iter()
            .filter(|p| p.stability == Stability::Stable)
            .count() as f64
    } else {
        f64::NAN
    };
    let mut values = BTreeMap::new();
    for (key, value) in [
        ("fit.test_nll", result.test_nll),
        (
            "fit.test_nll_gain",
            result.test_nll_baseline_only - result.test_nll,
        ),
        (
            "fit.predictive_gain",
            result.heldout_predictive_nll_baseline_only - result.heldout_predictive_nll,
        ),
        ("fit.best_epoch", result.best_epoch as f64),
        ("fit.stable_fixed_points", stable),
    ] {
        values.insert(key.to_owned(), value);
    }
    if let Some(planted) = &result.planted {
        let worst = planted.attractor_errors[0].max(planted.attractor_errors[1]);
        values.insert("fit.attractor_error".to_owned(), worst);
    }
    Ok(values)
}
