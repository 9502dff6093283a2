//! `benchtop bench reflection`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_kit::cli::{BenchEntry, run_bench, within};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "reflection",
    about: "Reflection-Bench: the reversal scorer over LCG sessions a NumPy peer rebuilds, and the full scripted table",
    run: |args| run_bench("reflection", args, reflection),
}];

/// Options of `benchtop bench reflection`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench reflection",
    about = "Reflection-Bench: the reversal scorer over LCG sessions a NumPy peer rebuilds, and the full scripted table"
)]
pub struct ReflectionBench {
    /// Reversal sessions to score.
    #[arg(long, default_value_t = 20000)]
    pub sessions: usize,
    /// Trials per session (even).
    #[arg(long, default_value_t = 40)]
    pub trials: usize,
    /// Timed repeats (the fastest is reported).
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
}

/// The Reflection-Bench benchmark: `ms_score`, `us_per_session`, `score_checksum`, `ms_table`.
pub fn reflection(options: &ReflectionBench) -> anyhow::Result<serde_json::Value> {
    within("--sessions", options.sessions, 1..=1_000_000)?;
    within("--trials", options.trials, 2..=10_000)?;
    within("--repeats", options.repeats, 1..=100)?;
    let report = benchtop_reflection::bench::run(&benchtop_reflection::bench::BenchParams {
        sessions: options.sessions,
        trials: options.trials,
        repeats: options.repeats,
    })?;
    Ok(serde_json::to_value(report)?)
}
