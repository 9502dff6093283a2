//! `benchtop bench neurotree`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_kit::cli::{BenchEntry, run_bench};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "neurotree",
    about: "NeuroTree AGE-GCN training-step timing (forward, backward, Adam) on one batch",
    run: |args| run_bench("neurotree", args, neurotree),
}];

/// Options of `benchtop bench neurotree`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench neurotree",
    allow_negative_numbers = true,
    about = "NeuroTree AGE-GCN training-step timing (forward, backward, Adam) on one batch"
)]
pub struct NeuroTreeBench {
    /// Subjects per batch B.
    #[arg(long, default_value_t = 32)]
    pub subjects: usize,
    /// ROIs (graph nodes) N.
    #[arg(long, default_value_t = 116)]
    pub rois: usize,
    /// Time points per synthetic subject.
    #[arg(long, default_value_t = 150)]
    pub time_points: usize,
    /// Timed steps (after one warm-up step).
    #[arg(long, default_value_t = 20)]
    pub steps: usize,
    /// Seed of the cohort and the weights.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The NeuroTree benchmark: `ms_per_step`, the losses and the sizes.
pub fn neurotree(options: &NeuroTreeBench) -> anyhow::Result<serde_json::Value> {
    let report = benchtop_neurotree::bench::bench(&benchtop_neurotree::bench::BenchParams {
        subjects: options.subjects,
        rois: options.rois,
        time_points: options.time_points,
        steps: options.steps,
        seed: options.seed,
    })?;
    Ok(serde_json::to_value(report)?)
}
