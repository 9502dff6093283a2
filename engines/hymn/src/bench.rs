//! Timing for `benchtop bench hymn`: one batch of G(n, p) graphs (mean degree 4), T marked
//! copies each chosen by centrality, and `steps` Adam steps of the GIN with an L1 loss on the
//! triangle counts. The first step is a warm-up and is not timed.

use std::time::Instant;

use candle_nn::{AdamW, Optimizer as _, ParamsAdamW};
use serde::{Deserialize, Serialize};

use benchtop_compute::ComputeError;
use benchtop_compute::rng::seeded;

use crate::counts::triangles;
use crate::generate::erdos_renyi;
use crate::model::{Batch, Gin, GraphInput, ModelConfig};
use crate::sampling::Method;

/// The work to time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchParams {
    /// Graphs in the batch.
    pub graphs: usize,
    /// Nodes per graph.
    pub nodes: usize,
    /// Marked copies per graph (T).
    pub subgraphs: usize,
    /// Timed Adam steps.
    pub steps: usize,
    /// Network shape.
    pub model: ModelConfig,
    /// Seed of the graphs and weights.
    pub seed: u64,
}

/// What was measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// The work.
    pub params: BenchParams,
    /// Rows (copies × nodes) in the batch.
    pub copy_nodes: usize,
    /// Directed message edges in the batch.
    pub messages: usize,
    /// Mean wall milliseconds per Adam step (forward, backward, update).
    pub ms_per_step: f64,
    /// The loss after the last step (a check that the work was done).
    pub final_loss: f64,
}

/// Runs the timing.
pub fn bench(params: &BenchParams) -> Result<BenchReport, ComputeError> {
    if !(1..=100_000).contains(&params.graphs)
        || !(2..=10_000).contains(&params.nodes)
        || params.steps == 0
    {
        return Err(ComputeError::invalid(
            "graphs",
            "need graphs ≥ 1, 2 ≤ nodes ≤ 10000 and steps ≥ 1",
        ));
    }
    let mut rng = seeded(params.seed);
    let p = (4.0 / (params.nodes as f64 - 1.0)).min(1.0);
    let graphs: Vec<_> = (0..params.graphs)
        .map(|_| erdos_renyi(params.nodes, p, &mut rng))
        .collect();
    let scores: Vec<Vec<f64>> = graphs
        .iter()
        .map(|g| crate::centrality::cse_score(g, 16))
        .collect();
    let marks: Vec<Vec<usize>> = scores
        .iter()
        .map(|s| Method::Centrality.marks(params.subgraphs, s, &mut rng))
        .collect();
    let inputs: Vec<GraphInput<'_>> = graphs
        .iter()
        .zip(&marks)
        .map(|(g, m)| GraphInput {
            graph: g,
            cse: &[],
            marks: m,
        })
        .collect();
    let batch = Batch::new(&inputs, 0)?;
    let copies: usize = marks.iter().map(|m| m.len() + 1).sum();
    let y: Vec<f32> = graphs.iter().map(|g| triangles(g) as f32).collect();
    let y = candle_core::Tensor::new(y, &candle_core::Device::Cpu)?;
    let model = Gin::new(&params.model, 0, params.seed)?;
    let mut opt = AdamW::new(
        model.vars(),
        ParamsAdamW {
            lr: 1e-3,
            weight_decay: 0.0,
            ..ParamsAdamW::default()
        },
    )?;
    let mut step = || -> Result<f64, ComputeError> {
        let loss = (model.forward_train(&batch)? - &y)?.abs()?.mean_all()?;
        opt.backward_step(&loss)?;
        Ok(f64::from(loss.to_scalar::<f32>()?))
    };
    step()?;
    let start = Instant::now();
    let mut last = 0.0;
    for _ in 0..params.steps {
        last = step()?;
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / params.steps as f64;
    Ok(BenchReport {
        params: params.clone(),
        copy_nodes: copies * params.nodes,
        messages: graphs
            .iter()
            .zip(&marks)
            .map(|(g, m)| 2 * g.m() * (m.len() + 1))
            .sum(),
        ms_per_step: ms,
        final_loss: last,
    })
}
