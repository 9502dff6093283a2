//! `benchtop bench linnet`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_kit::cli::{BenchEntry, run_bench};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "linnet",
    about: "Two-layer linear network training: S seeds under no, input and parameter noise",
    run: |args| run_bench("linnet", args, linnet),
}];

/// Options of `benchtop bench linnet`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench linnet",
    about = "Two-layer linear network training: S seeds under no, input and parameter noise"
)]
pub struct LinnetBench {
    /// Seeds per noise regime (3 regimes).
    #[arg(long, default_value_t = 8)]
    pub seeds: usize,
    /// Full-batch gradient-descent steps per seed.
    #[arg(long, default_value_t = 6000)]
    pub steps: usize,
    /// Hidden width.
    #[arg(long, default_value_t = 16)]
    pub width: usize,
    /// Depth of the binary item tree (items 2^depth, features 2^(depth+1) − 1).
    #[arg(long, default_value_t = 3)]
    pub depth: usize,
    /// Timed repeats (the fastest is reported).
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
}

/// The linnet benchmark: `ms_total`, `us_per_step` and each regime's loss and CKA.
pub fn linnet(options: &LinnetBench) -> anyhow::Result<serde_json::Value> {
    let report = benchtop_linnet::bench::bench(&benchtop_linnet::bench::BenchParams {
        seeds: options.seeds,
        steps: options.steps,
        width: options.width,
        depth: options.depth,
        repeats: options.repeats,
    })?;
    Ok(serde_json::to_value(report)?)
}
