//! `benchtop bench mlip`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_kit::cli::{BenchEntry, run_bench, within};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "mlip",
    about: "PIWSL training steps (energy + force loss with PITC and PISC, gradient forces) on Lennard-Jones clusters",
    run: |args| run_bench("mlip", args, mlip),
}];

/// Options of `benchtop bench mlip`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench mlip",
    about = "PIWSL training steps (energy + force loss with PITC and PISC, gradient forces) on Lennard-Jones clusters"
)]
pub struct MlipBench {
    /// Atoms per cluster.
    #[arg(long, default_value_t = 7)]
    pub atoms: usize,
    /// Labelled configurations per (full-batch) step.
    #[arg(long, default_value_t = 32)]
    pub configs: usize,
    /// Training steps timed.
    #[arg(long, default_value_t = 50)]
    pub steps: usize,
    /// Seed of the data and weights.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The PIWSL benchmark: `ms_per_step` of full-batch training with all four loss terms.
pub fn mlip(options: &MlipBench) -> anyhow::Result<serde_json::Value> {
    within("--atoms", options.atoms, 2..=13)?;
    within("--configs", options.configs, 1..=100_000)?;
    within("--steps", options.steps, 1..=1_000_000)?;
    let report =
        benchtop_mlip::bench::run(options.atoms, options.configs, options.steps, options.seed);
    Ok(serde_json::to_value(report)?)
}
