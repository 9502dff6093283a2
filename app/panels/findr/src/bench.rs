//! `benchtop bench findr`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_kit::cli::{BenchEntry, run_bench};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "findr",
    about: "FINDR training-step timing (forward, backward, clip, SGD-momentum update)",
    run: |args| run_bench("findr", args, findr),
}];

/// Options of `benchtop bench findr`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench findr",
    allow_negative_numbers = true,
    about = "FINDR training-step timing (forward, backward, clip, SGD-momentum update)"
)]
pub struct FindrBench {
    /// Trials per batch B.
    #[arg(long, default_value_t = 25)]
    pub trials: usize,
    /// Bins per trial T.
    #[arg(long, default_value_t = 100)]
    pub bins: usize,
    /// Neurons N.
    #[arg(long, default_value_t = 50)]
    pub neurons: usize,
    /// Flow width H.
    #[arg(long, default_value_t = 50)]
    pub flow_width: usize,
    /// Encoder hidden units E per direction.
    #[arg(long, default_value_t = 50)]
    pub encoder: usize,
    /// Timed steps (after two warm-up steps).
    #[arg(long, default_value_t = 20)]
    pub steps: usize,
    /// Seed of the data and the weights.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The FINDR benchmark: `ms_per_step`, `final_loss` and the sizes.
pub fn findr(options: &FindrBench) -> anyhow::Result<serde_json::Value> {
    let value = benchtop_findr::bench::bench_training(&benchtop_findr::bench::BenchParams {
        trials: options.trials,
        bins: options.bins,
        neurons: options.neurons,
        flow_width: options.flow_width,
        encoder: options.encoder,
        steps: options.steps,
        seed: options.seed,
        ..benchtop_findr::bench::BenchParams::default()
    })?;
    Ok(value)
}
