//! `benchtop bench rcgp`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_kit::cli::{BenchEntry, run_bench, within};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "rcgp",
    about: "Spatio-temporal GP Kalman filter + RTS smoother timing (STGP, or ST-RCGP with --robust)",
    run: |args| run_bench("rcgp", args, rcgp),
}];

/// Options of `benchtop bench rcgp`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench rcgp",
    allow_negative_numbers = true,
    about = "Spatio-temporal GP Kalman filter + RTS smoother timing (STGP, or ST-RCGP with --robust)"
)]
pub struct RcgpBench {
    /// Time steps T.
    #[arg(long, default_value_t = 100)]
    pub times: usize,
    /// Spatial locations n_s (the stacked state has 2·n_s entries).
    #[arg(long, default_value_t = 100)]
    pub space: usize,
    /// Use the robust (IMQ-weighted) update.
    #[arg(long)]
    pub robust: bool,
    /// Also time dense O(n³) GP regression on the same n = T·n_s points.
    #[arg(long)]
    pub dense: bool,
    /// Timed repeats (the fastest is reported).
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
}

/// The RCGP benchmark: `ms_total`, `us_per_step` and, with `--dense`, `dense_ms`.
pub fn rcgp(options: &RcgpBench) -> anyhow::Result<serde_json::Value> {
    within("--times", options.times, 2..=100_000)?;
    within("--space", options.space, 1..=400)?;
    // The smoother keeps a (2·n_s)² covariance per time: T·n_s² ≤ 10⁸ keeps that under 3.2 GB.
    within(
        "--times × --space²",
        options.times * options.space * options.space,
        1..=100_000_000,
    )?;
    within("--repeats", options.repeats, 1..=100)?;
    if options.dense {
        // Dense regression holds an n × n matrix with n = T·n_s: 20,000² doubles is 3.2 GB.
        within(
            "--times × --space with --dense",
            options.times * options.space,
            1..=20_000,
        )?;
    }
    let report = benchtop_rcgp::bench::bench(&benchtop_rcgp::bench::BenchParams {
        times: options.times,
        space: options.space,
        robust: options.robust,
        dense: options.dense,
        repeats: options.repeats,
    })?;
    Ok(serde_json::to_value(report)?)
}
