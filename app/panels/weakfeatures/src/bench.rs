//! `benchtop bench weakfeatures`: the engine's sequential fit and iterative rounds timed on its
//! real code path, with the run's excess risks and closed form (so a fast but wrong result
//! shows). Every option is bounded before anything is sized by it.

use benchtop_kit::cli::{BenchEntry, run_bench, within};
use benchtop_weakfeatures::bench::{BenchParams, bench};
use benchtop_weakfeatures::models::LabelKind;
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "weakfeatures",
    about: "Weak-features learning: sequential fit and iterative rounds (ridge or MLP h)",
    run: |args| run_bench("weakfeatures", args, weakfeatures),
}];

/// Options of `benchtop bench weakfeatures`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench weakfeatures",
    about = "Weak-features learning: sequential fit and iterative rounds (ridge or MLP h)"
)]
pub struct Options {
    /// Training rows.
    #[arg(long, default_value_t = 20_000)]
    pub n: usize,
    /// Test rows.
    #[arg(long, default_value_t = 20_000)]
    pub n_test: usize,
    /// Observed features.
    #[arg(long, default_value_t = 8)]
    pub d_observed: usize,
    /// Weak features.
    #[arg(long, default_value_t = 2)]
    pub d_weak: usize,
    /// Share of rows missing their weak features (MCAR).
    #[arg(long, default_value_t = 0.5)]
    pub rate: f64,
    /// Iterative rounds.
    #[arg(long, default_value_t = 10)]
    pub rounds: usize,
    /// Label model: ridge or mlp.
    #[arg(long, default_value = "ridge")]
    pub label: String,
    /// MLP label model: Adam steps of the first fit and per iterative round.
    #[arg(long, default_value_t = 200)]
    pub epochs: usize,
    /// Timed repeats (the median is reported, and the fastest).
    #[arg(long, default_value_t = 5)]
    pub repeats: usize,
    /// Seed of the data.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The benchmark: `sequential_ms`, `iterative_ms`, `total_ms` (medians), `min_total_ms`, and
/// the run's excess risks beside the closed form.
pub fn weakfeatures(options: &Options) -> anyhow::Result<serde_json::Value> {
    within("--n", options.n, 20..=2_000_000)?;
    within("--n-test", options.n_test, 10..=2_000_000)?;
    within("--d-observed", options.d_observed, 1..=128)?;
    within("--d-weak", options.d_weak, 1..=128)?;
    within("--rate", options.rate, 0.0..=0.95)?;
    within("--rounds", options.rounds, 1..=200)?;
    within("--epochs", options.epochs, 1..=100_000)?;
    within("--repeats", options.repeats, 1..=100)?;
    let label = match options.label.as_str() {
        "ridge" => LabelKind::Ridge,
        "mlp" => LabelKind::Mlp,
        other => anyhow::bail!("--label {other}: choose ridge or mlp"),
    };
    let report = bench(&BenchParams {
        n: options.n,
        n_test: options.n_test,
        d_observed: options.d_observed,
        d_weak: options.d_weak,
        rate: options.rate,
        rounds: options.rounds,
        label,
        epochs: options.epochs,
        repeats: options.repeats,
        seed: options.seed,
    })?;
    Ok(serde_json::to_value(report)?)
}
