//! `benchtop bench hymn`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_kit::cli::{BenchEntry, run_bench, within};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "hymn",
    about: "HyMN subgraph-GIN training-step timing (forward, backward, Adam) on one batch of marked copies",
    run: |args| run_bench("hymn", args, hymn),
}];

/// Options of `benchtop bench hymn`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench hymn",
    allow_negative_numbers = true,
    about = "HyMN subgraph-GIN training-step timing (forward, backward, Adam) on one batch of marked copies"
)]
pub struct HymnBench {
    /// Graphs per batch (G(n, p) with mean degree 4).
    #[arg(long, default_value_t = 128)]
    pub graphs: usize,
    /// Nodes per graph.
    #[arg(long, default_value_t = 20)]
    pub nodes: usize,
    /// Marked copies T per graph (chosen by centrality; the unmarked graph is one more copy).
    #[arg(long, default_value_t = 2)]
    pub subgraphs: usize,
    /// Timed steps (after one warm-up step).
    #[arg(long, default_value_t = 20)]
    pub steps: usize,
    /// Hidden width.
    #[arg(long, default_value_t = 64)]
    pub hidden: usize,
    /// GIN layers.
    #[arg(long, default_value_t = 3)]
    pub layers: usize,
    /// Seed of the graphs and the weights.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The HyMN benchmark: `ms_per_step`, the batch's sizes and the last loss.
pub fn hymn(options: &HymnBench) -> anyhow::Result<serde_json::Value> {
    within("--graphs", options.graphs, 1..=10_000)?;
    within("--nodes", options.nodes, 2..=1_000)?;
    within("--subgraphs", options.subgraphs, 0..=64)?;
    within("--steps", options.steps, 1..=100_000)?;
    within("--hidden", options.hidden, 1..=1024)?;
    within("--layers", options.layers, 1..=16)?;
    let report = benchtop_hymn::bench::bench(&benchtop_hymn::bench::BenchParams {
        graphs: options.graphs,
        nodes: options.nodes,
        subgraphs: options.subgraphs,
        steps: options.steps,
        model: benchtop_hymn::model::ModelConfig {
            hidden: options.hidden,
            layers: options.layers,
        },
        seed: options.seed,
    })?;
    Ok(serde_json::to_value(report)?)
}
