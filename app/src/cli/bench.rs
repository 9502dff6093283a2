//! `benchtop bench ENGINE [--option value …]`: one JSON object on stdout.
//!
//! Each panel owns its entries ([`benchtop_kit::cli::BenchEntry`], collected by the catalog);
//! the house's own entries, which belong to no panel, are [`HOUSE`] (the micro-benchmark
//! `candle-mlp` of the shared learning crate). This module finds the one named and prints its
//! report with the app's version line and the entry's name added, so every object says what
//! produced it. The numbers come from the engine's real code path (the same code the panels
//! use), with the run's own observables so a fast but wrong result is visible.

use std::io::Write as _;

use benchtop_kit::cli::{BenchEntry, run_bench, within};
use clap::Parser;

use crate::catalog;

/// The house's entries: benchmarks of shared code that no panel owns.
pub const HOUSE: &[BenchEntry] = &[BenchEntry {
    name: "candle-mlp",
    about: "candle's cost per small-tensor op: training steps (forward, backward, Adam) of a 64-wide MLP",
    run: |args| run_bench("candle-mlp", args, candle_mlp),
}];

/// Every entry: the panels' in catalog order, then the house's.
fn all() -> Vec<&'static BenchEntry> {
    let mut entries = catalog::benches();
    entries.extend(HOUSE);
    entries
}

/// Options of `benchtop bench candle-mlp`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench candle-mlp",
    about = "candle's cost per small-tensor op: training steps (forward, MSE, backward, Adam) of an MLP \
             on one fixed batch (benchtop_learn::mlp_step; the PyTorch peer is \
             scripts/bench_candle_peer.py); threads: RAYON_NUM_THREADS"
)]
pub struct CandleMlpBench {
    /// Rows of the batch.
    #[arg(long, default_value_t = 64)]
    pub batch: usize,
    /// Width of the inputs, of every hidden layer and of the outputs.
    #[arg(long, default_value_t = 64)]
    pub width: usize,
    /// Hidden layers.
    #[arg(long, default_value_t = 2)]
    pub hidden_layers: usize,
    /// Timed steps.
    #[arg(long, default_value_t = 500)]
    pub steps: usize,
    /// Untimed steps first.
    #[arg(long, default_value_t = 20)]
    pub warmup: usize,
    /// Adam's step size.
    #[arg(long, default_value_t = 1e-3)]
    pub learning_rate: f64,
    /// Seed of the SplitMix64 stream that fills the batch and the weights.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The candle micro-benchmark: `ms_per_step`, `first_loss`, `final_loss`, `parameters`, the
/// sizes and the thread count candle used.
fn candle_mlp(options: &CandleMlpBench) -> anyhow::Result<serde_json::Value> {
    within("--batch", options.batch, 1..=4096)?;
    within("--width", options.width, 1..=4096)?;
    within("--hidden-layers", options.hidden_layers, 1..=64)?;
    within("--steps", options.steps, 1..=1_000_000)?;
    within("--warmup", options.warmup, 0..=1_000_000)?;
    let config = benchtop_learn::mlp_step::MlpStepConfig {
        batch: options.batch,
        width: options.width,
        hidden_layers: options.hidden_layers,
        learning_rate: options.learning_rate,
        seed: options.seed,
    };
    let report = benchtop_learn::mlp_step::bench(config, options.steps, options.warmup)?;
    Ok(serde_json::to_value(report)?)
}

/// The entry named `name`, or an error listing the names there are.
fn entry(name: &str) -> anyhow::Result<&'static BenchEntry> {
    let entries = all();
    entries
        .iter()
        .find(|entry| entry.name == name)
        .copied()
        .ok_or_else(|| {
            let names: Vec<&str> = entries.iter().map(|entry| entry.name).collect();
            anyhow::anyhow!("unknown engine `{name}`; available: {}", names.join(", "))
        })
}

/// The list of benchmarks, one per line (`benchtop bench --help`).
pub fn listing() -> String {
    all()
        .iter()
        .map(|entry| format!("  {:<14}{}\n", entry.name, entry.about))
        .collect()
}

/// Adds the entry's name (unless the report has one) and the app's version line to `value`.
fn stamped(mut value: serde_json::Value, name: &str) -> serde_json::Value {
    if let Some(object) = value.as_object_mut() {
        object
            .entry("engine")
            .or_insert_with(|| serde_json::Value::from(name));
        object.insert("app".into(), crate::build_info::version_line().into());
    }
    value
}

/// Runs the benchmark `name` with `options` and prints one JSON object.
pub fn bench(name: &str, options: &[String]) -> anyhow::Result<()> {
    let entry = entry(name)?;
    let Some(value) = (entry.run)(options)? else {
        return Ok(());
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", serde_json::to_string(&stamped(value, name))?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn house_entries_have_their_own_names_and_are_documented() {
        let names: Vec<&str> = all().iter().map(|entry| entry.name).collect();
        for (i, name) in names.iter().enumerate() {
            assert!(!names[i + 1..].contains(name), "bench {name} twice");
        }
        let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/benchmarks.md");
        let text = std::fs::read_to_string(&docs).expect("docs/benchmarks.md");
        for entry in HOUSE {
            assert!(
                text.contains(&format!("benchtop bench {}", entry.name)),
                "docs/benchmarks.md does not document `benchtop bench {}`",
                entry.name
            );
        }
    }

    #[test]
    fn the_candle_mlp_entry_reports_a_step_time_and_a_falling_loss() {
        let args: Vec<String> = [
            "--batch", "8", "--width", "8", "--steps", "20", "--warmup", "1",
        ]
        .map(String::from)
        .to_vec();
        let report = (entry("candle-mlp").expect("registered").run)(&args)
            .expect("runs")
            .expect("a report, not help");
        assert!(report["ms_per_step"].as_f64().is_some_and(|ms| ms > 0.0));
        let first = report["first_loss"].as_f64().expect("first_loss");
        let last = report["final_loss"].as_f64().expect("final_loss");
        assert!(last < first, "{first} → {last}");
        let bad: Vec<String> = ["--width", "100000"].map(String::from).to_vec();
        assert!((entry("candle-mlp").expect("registered").run)(&bad).is_err());
    }
}
