//! Scalar outputs for sweeps: every learner's three errors (and the trivial reference's) on
//! one repeat at the point's budget. Sweeping `budget.train_samples` at fixed `budget.total`
//! is the paper's n against M at fixed n·M.

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::sweep::SweepOutput;
use benchtop_quantum::experiment::{Scores, single};
use benchtop_quantum::learners::Learner;

use super::QuantumParams;

/// The metrics: key suffix and label.
const METRICS: [(&str, &str); 3] = [
    ("rmse_correlation", "RMSE of C_{ij}"),
    ("rmse_entropy", "RMSE of S₂ (bits)"),
    ("phase_accuracy", "TFIM phase accuracy"),
];

fn metric(scores: &Scores, key: &str) -> f64 {
    match key {
        "rmse_correlation" => scores.rmse_correlation,
        "rmse_entropy" => scores.rmse_entropy,
        _ => scores.phase_accuracy,
    }
}

/// Every output a sweep may record: `<learner>.<metric>` and `trivial.<metric>`.
pub fn outputs() -> Vec<SweepOutput> {
    let mut out = Vec::new();
    for (key, label) in METRICS {
        for learner in Learner::ALL {
            out.push(SweepOutput::new(
                &format!("{}.{key}", learner.key()),
                &format!("{label}, {}", learner.label()),
            ));
        }
        out.push(SweepOutput::new(
            &format!("trivial.{key}"),
            &format!("{label}, trivial reference"),
        ));
    }
    out
}

/// Trains every learner for one sweep point and reports the wanted `outputs`.
pub fn evaluate(
    params: &QuantumParams,
    outputs: &[String],
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<BTreeMap<String, f64>, ComputeError> {
    let (methods, trivial) = single(&params.experiment(), seed, progress, cancel)?;
    let mut all = BTreeMap::new();
    for (key, _) in METRICS {
        for (learner, scores) in &methods {
            all.insert(format!("{}.{key}", learner.key()), metric(scores, key));
        }
        all.insert(format!("trivial.{key}"), metric(&trivial, key));
    }
    Ok(all
        .into_iter()
        .filter(|(key, _)| outputs.iter().any(|o| o == key))
        .collect())
}
