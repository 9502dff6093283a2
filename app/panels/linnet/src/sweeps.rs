//! Scalar outputs for sweeps: each regime's mean pairwise CKA, its spread (1 − CKA) and its
//! mean functional distance, and the parameter-noise RSM's error to the closed form.

use std::collections::BTreeMap;
use std::path::Path;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::sweep::SweepOutput;
use benchtop_linnet::experiment::train_regimes;

use super::LinnetParams;

/// The linear regimes' keys.
const REGIMES: [&str; 3] = ["no_noise", "input_noise", "parameter_noise"];

/// Every output a sweep may record.
pub fn outputs() -> Vec<SweepOutput> {
    let mut out = Vec::new();
    for regime in REGIMES {
        let label = regime.replace('_', " ");
        out.push(SweepOutput::new(
            &format!("{regime}.mean_pairwise_cka"),
            &format!("Mean pairwise CKA, {label}"),
        ));
        out.push(SweepOutput::new(
            &format!("{regime}.cka_spread"),
            &format!("CKA spread (1 − mean CKA), {label}"),
        ));
        out.push(SweepOutput::new(
            &format!("{regime}.mean_pairwise_function_distance"),
            &format!("Mean functional distance, {label}"),
        ));
    }
    out.push(SweepOutput::new(
        "parameter_noise.rsm_relative_error_to_closed_form",
        "Parameter-noise RSM error to the closed form",
    ));
    out
}

/// Trains every regime for one sweep point and reports the wanted `outputs`.
pub fn evaluate(
    params: &LinnetParams,
    outputs: &[String],
    seed: u64,
    project_dir: Option<&Path>,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<BTreeMap<String, f64>, ComputeError> {
    let experiment = LinnetParams {
        nonlinear: false,
        ..params.clone()
    }
    .experiment(project_dir);
    let training = train_regimes(&experiment, seed, progress, cancel, |_| {})?;
    let mut all = BTreeMap::new();
    for regime in &training.regimes {
        let key = regime.regime.key();
        all.insert(format!("{key}.mean_pairwise_cka"), regime.mean_pairwise_cka);
        all.insert(format!("{key}.cka_spread"), 1.0 - regime.mean_pairwise_cka);
        all.insert(
            format!("{key}.mean_pairwise_function_distance"),
            regime.mean_pairwise_function_distance,
        );
        if key == "parameter_noise" {
            all.insert(
                format!("{key}.rsm_relative_error_to_closed_form"),
                regime.mean_rsm_error_to_closed_form,
            );
        }
    }
    Ok(all
        .into_iter()
        .filter(|(key, _)| outputs.iter().any(|o| o == key))
        .collect())
}
