//! Timing of one NeuroTree training step for `benchtop bench neurotree` and the PyTorch
//! side-by-side script (`scripts/bench_neurotree_peer.py`).
//!
//! A step is the forward pass of the default AGE-GCN (hidden 64, head 32, dropout 0.5, CMFC
//! weight 1, τ = 0.07, age in E) on one batch of `subjects` synthetic subjects, the
//! cross-entropy + CMFC loss, the backward pass and an Adam update (the default lr 1e-2, weight decay
//! 1e-5). The subjects are a seeded synthetic cohort ([`crate::cohort`]) turned into model
//! inputs by [`crate::features`]: N×N static and per-window dynamic FC, two windows of
//! `time_points / 2` features. The peer script feeds random numbers of the same shapes; the
//! timing does not depend on the values. One warm-up step runs before the timed ones. The
//! thread count is rayon's (set `RAYON_NUM_THREADS`).

use std::time::Instant;

use candle_core::Device;
use serde::{Deserialize, Serialize};

use benchtop_compute::ComputeError;
use benchtop_compute::rng::{derive_seed, seeded};

use crate::cohort::{CohortParams, generate_cohort};
use crate::dataset::Dataset;
use crate::features::{FeatureParams, SubjectGraph, subject_graphs};
use crate::model::{Batch, ModelConfig, SubjectInput, Task, Weights, graph_dims};
use benchtop_learn::adam::{AdamConfig, VarAdam};

use crate::train::{TrainParams, batch_loss, dropout_mask};

/// What to time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchParams {
    /// Subjects per batch B.
    pub subjects: usize,
    /// ROIs (nodes) N.
    pub rois: usize,
    /// Time points per subject; each of the two windows has half of them as features.
    pub time_points: usize,
    /// Timed steps (after one warm-up step).
    pub steps: usize,
    /// Seed of the inputs and the weights.
    pub seed: u64,
}

impl Default for BenchParams {
    fn default() -> Self {
        Self {
            subjects: 32,
            rois: 116,
            time_points: 150,
            steps: 20,
            seed: 1,
        }
    }
}

/// What the benchmark measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// Always "neurotree".
    pub engine: String,
    /// Subjects per batch B.
    pub subjects: usize,
    /// Nodes N.
    pub rois: usize,
    /// Time points per subject.
    pub time_points: usize,
    /// Windows (2).
    pub windows: usize,
    /// Features per window F.
    pub features: usize,
    /// Embedding width.
    pub hidden: usize,
    /// Timed steps.
    pub steps: usize,
    /// Wall time per step, ms.
    pub ms_per_step: f64,
    /// Loss of the warm-up step.
    pub first_loss: f64,
    /// Loss of the last timed step.
    pub final_loss: f64,
}

/// Windows of the benchmark inputs.
const BENCH_WINDOWS: usize = 2;

fn bench_graphs(params: &BenchParams) -> Result<Vec<SubjectGraph>, ComputeError> {
    let cohort = generate_cohort(&CohortParams {
        subjects: params.subjects,
        rois: params.rois,
        time_points: params.time_points,
        seed: derive_seed(params.seed, 1),
        ..CohortParams::default()
    })?;
    let features = FeatureParams {
        windows: BENCH_WINDOWS,
        ..FeatureParams::default()
    };
    subject_graphs(&Dataset::from_cohort(&cohort), &features)
}

/// Runs the benchmark. The step runs on one thread, as training does
/// ([`benchtop_compute::threads::single_threaded`]; two threads were slower: 25 against 20 ms).
pub fn bench(params: &BenchParams) -> Result<BenchReport, ComputeError> {
    benchtop_compute::threads::single_threaded("neurotree-model", || bench_here(params))
}

fn bench_here(params: &BenchParams) -> Result<BenchReport, ComputeError> {
    let sizes = [
        ("subjects", params.subjects),
        ("rois", params.rois),
        ("steps", params.steps),
    ];
    for (name, value) in sizes {
        if !(1..=100_000).contains(&value) {
            return Err(ComputeError::invalid(name, "choose 1 to 100000"));
        }
    }
    if !(2 * BENCH_WINDOWS..=100_000).contains(&params.time_points) {
        return Err(ComputeError::invalid("time_points", "choose 4 to 100000"));
    }
    let graphs = bench_graphs(params)?;
    let refs: Vec<&SubjectGraph> = graphs.iter().collect();
    let dims = graph_dims(&refs)?;
    let config = ModelConfig::default();
    let train = TrainParams::default();
    let task = Task::Classify;
    let device = Device::Cpu;
    let inputs = refs
        .iter()
        .map(|g| SubjectInput::new(g, dims, &config, task))
        .collect::<Result<Vec<_>, _>>()?;
    let members: Vec<&SubjectInput> = inputs.iter().collect();
    let batch = Batch::new(&members, dims, config.architecture, &device)?;
    let weights = Weights::new(dims, &config, task, derive_seed(params.seed, 2), &device)?;
    let mut adam = VarAdam::new(
        weights.vars(),
        AdamConfig::new(train.learning_rate).with_weight_decay(train.weight_decay),
    )?;
    let mut rng = seeded(derive_seed(params.seed, 3));
    let mut step = || -> Result<f64, ComputeError> {
        let mask = dropout_mask(
            &mut rng,
            batch.size,
            config.head_hidden,
            config.dropout,
            &device,
        )?;
        let loss = batch_loss(&weights, &batch, None, &config, task, Some(&mask))?;
        adam.step(&loss.total)?;
        Ok(f64::from(loss.total.to_scalar::<f32>()?))
    };
    let first_loss = step()?;
    let start = Instant::now();
    let mut final_loss = first_loss;
    for _ in 0..params.steps {
        final_loss = step()?;
    }
    let ms_per_step = start.elapsed().as_secs_f64() * 1e3 / params.steps as f64;
    Ok(BenchReport {
        engine: "neurotree".to_owned(),
        subjects: params.subjects,
        rois: params.rois,
        time_points: params.time_points,
        windows: BENCH_WINDOWS,
        features: dims.features,
        hidden: config.hidden,
        steps: params.steps,
        ms_per_step,
        first_loss,
        final_loss,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_reports_a_finite_loss_that_steps_lower() {
        let small = BenchParams {
            subjects: 4,
            rois: 10,
            time_points: 12,
            steps: 30,
            seed: 2,
        };
        let report = bench(&small).unwrap();
        assert!(report.first_loss.is_finite() && report.final_loss.is_finite());
        assert!(report.final_loss < report.first_loss, "{report:?}");
        // FC-row node features: one per ROI.
        assert_eq!((report.features, report.windows), (10, 2));
        assert_eq!(bench(&small).unwrap().final_loss, report.final_loss);
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["rois"], 10);
        assert!(
            bench(&BenchParams {
                time_points: 3,
                ..small
            })
            .is_err()
        );
    }
}
