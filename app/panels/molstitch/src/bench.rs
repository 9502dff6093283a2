//! `benchtop bench molstitch`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_kit::cli::{BenchEntry, run_bench};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "molstitch",
    about: "MolStitch throughput: RDKit property scoring of the offline set and prior sampling",
    run: |args| run_bench("molstitch", args, molstitch),
}];

/// Options of `benchtop bench molstitch`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench molstitch",
    allow_negative_numbers = true,
    about = "MolStitch throughput: RDKit property scoring of the offline set and prior sampling"
)]
pub struct MolStitchBench {
    /// Scoring threads (0: one per core).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Offline molecules the prior is trained on before sampling is timed.
    #[arg(long, default_value_t = 2000)]
    pub train_molecules: usize,
    /// Untimed training epochs of the prior (the optimisation's prior size).
    #[arg(long, default_value_t = 6)]
    pub train_epochs: usize,
    /// Molecules sampled in the timed part.
    #[arg(long, default_value_t = 500)]
    pub samples: usize,
    /// Seed of the prior and the samples.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The MolStitch benchmark: `scoring` and `sampling` objects, each with `molecules_per_s`.
pub fn molstitch(options: &MolStitchBench) -> anyhow::Result<serde_json::Value> {
    use benchtop_molstitch::bench::{SamplingParams, bench_offline_scoring, bench_sampling};
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    let scoring = bench_offline_scoring(threads)?;
    let sampling = bench_sampling(&SamplingParams {
        train_molecules: options.train_molecules,
        train_epochs: options.train_epochs,
        samples: options.samples,
        seed: options.seed,
        ..SamplingParams::default()
    })?;
    Ok(serde_json::json!({
        "engine": "molstitch",
        "scoring": scoring,
        "sampling": sampling,
        "seed": options.seed,
    }))
}
