//! What the MolStitch panel's sweeps record (the parameters they vary, e.g. the optimisation's
//! β, Dirichlet α, number of proxies, stitch rounds, σ and seed, are declared in
//! [`super::params`]): MolStitch's hypervolume, its gain over the offline set and over the
//! better baseline, and its R2, each from a whole optimisation run.

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::host::SweepCx;
use benchtop_kit::sweep::SweepOutput;
use benchtop_molstitch::optimise::{self, OptimiseConfig};

use super::library::{self, MoleculeSet};
use super::optimise_tab::{best_baseline_hypervolume, molstitch_metrics, run_config};
use super::{MolStitchParams, default_cache_dir};

/// The share of the first point's progress that reading and scoring the molecule set takes.
const SCORE_SHARE: f64 = 0.1;

/// The outputs sweeps may record.
pub fn outputs() -> Vec<SweepOutput> {
    vec![
        SweepOutput::new(
            "hv.molstitch",
            "MolStitch hypervolume (offline ∪ generated)",
        ),
        SweepOutput::new(
            "hv.gain_over_offline",
            "MolStitch hypervolume − offline hypervolume",
        ),
        SweepOutput::new(
            "hv.gain_over_best_baseline",
            "MolStitch hypervolume − best baseline's",
        ),
        SweepOutput::new("r2.molstitch", "MolStitch R2 (lower is better)"),
    ]
}

/// The run a sweep point makes: the panel's configuration (its objectives, settings and the
/// point's values) with the point's seed (the repeat's, or the swept `optimise.seed`), one seed
/// per point (a sweep's repeats are its seeds).
pub fn point_config(params: &MolStitchParams, seed: u64) -> OptimiseConfig {
    let mut config = run_config(params);
    config.seed = seed;
    config.seeds = 1;
    config
}

/// Reads and scores the molecule set the parameters name (files relative to `project_dir`).
fn scored_set(
    params: &MolStitchParams,
    project_dir: Option<&std::path::Path>,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<MoleculeSet, ComputeError> {
    let file = params.data.resolved_file(project_dir);
    library::load(file.as_deref(), &params.objectives, progress, cancel).map_err(
        |error| match error {
            ComputeError::Cancelled => error,
            other => ComputeError::invalid(
                "data",
                format!("the molecule set to optimise could not be read and scored: {other}"),
            ),
        },
    )
}

/// Runs the whole optimisation for one sweep point; the molecule set is read and scored once
/// per sweep, and trained weights are cached in the temporary folder.
pub fn evaluate(
    params: &MolStitchParams,
    seed: u64,
    cx: &SweepCx<'_>,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<BTreeMap<String, f64>, ComputeError> {
    let config = point_config(params, seed);
    let mut scored_now = false;
    let set = cx.cached(|| {
        scored_now = true;
        scored_set(
            params,
            cx.project_dir,
            &progress.slice(0.0, SCORE_SHARE),
            cancel,
        )
    })?;
    let start = if scored_now { SCORE_SHARE } else { 0.0 };
    let result = optimise::run(
        &set.smiles,
        &config,
        Some(&default_cache_dir()),
        &progress.slice(start, 1.0),
        cancel,
        &mut |_| {},
    )?;
    let mut values = BTreeMap::new();
    if let Some(m) = molstitch_metrics(&result) {
        values.insert("hv.molstitch".to_owned(), m.hypervolume);
        values.insert(
            "hv.gain_over_offline".to_owned(),
            m.hypervolume - result.offline_metrics.hypervolume,
        );
        let best = best_baseline_hypervolume(&result);
        if best.is_finite() {
            values.insert(
                "hv.gain_over_best_baseline".to_owned(),
                m.hypervolume - best,
            );
        }
        values.insert("r2.molstitch".to_owned(), m.r2);
    }
    Ok(values)
}
