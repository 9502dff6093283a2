//! Timing of one FINDR training step for `benchtop bench findr` and the PyTorch side-by-side
//! script: the full model (bidirectional GRU encoder, posterior and prior gated flows, softplus-
//! Poisson readout, transition KL) on one batch of full-length trials, a step being forward,
//! backward, global-norm clipping and the SGD-momentum update.
//!
//! The batch is seeded Poisson spikes at about 10 Hz with random clicks and a constant baseline,
//! the same recipe as the peer script; β_KL is fixed at 2 and L2 at 1e-7.

use std::time::Instant;

use candle_core::Device;
use rand::Rng as _;
use rand_distr::{Distribution as _, Poisson};
use serde::{Deserialize, Serialize};
use serde_json::json;

use benchtop_compute::ComputeError;
use benchtop_compute::rng::{derive_seed, seeded};

use crate::model::{Batch, FindrModel, ModelConfig};
use crate::softplus::softplus_inverse;
use crate::train::SgdMomentum;
use crate::trials::TrialSet;
use benchtop_compute::threads::single_threaded;

/// What to time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchParams {
    /// Trials per batch B.
    pub trials: usize,
    /// Bins per trial T.
    pub bins: usize,
    /// Neurons N.
    pub neurons: usize,
    /// Flow width H.
    pub flow_width: usize,
    /// Encoder hidden units E per direction.
    pub encoder: usize,
    /// Timed steps (after two warm-up steps).
    pub steps: usize,
    /// Learning rate of the SGD steps.
    pub learning_rate: f64,
    /// Seed of the data and the weights.
    pub seed: u64,
}

impl Default for BenchParams {
    fn default() -> Self {
        Self {
            trials: 25,
            bins: 100,
            neurons: 50,
            flow_width: 50,
            encoder: 50,
            steps: 20,
            learning_rate: 0.01,
            seed: 1,
        }
    }
}

/// Firing rate of the benchmark spikes, Hz.
const BENCH_RATE_HZ: f64 = 10.0;
/// Click probability per bin and side in the benchmark inputs.
const BENCH_CLICK_PROBABILITY: f64 = 0.2;
/// Bin width of the benchmark, s.
const BENCH_BIN_S: f64 = 0.01;

fn bench_trials(params: &BenchParams) -> Result<TrialSet, ComputeError> {
    let mut rng = seeded(derive_seed(params.seed, 1));
    let poisson = Poisson::new(BENCH_RATE_HZ * BENCH_BIN_S)
        .map_err(|e| ComputeError::Numerical(e.to_string()))?;
    let cells = params.trials * params.bins;
    let spikes = (0..cells * params.neurons)
        .map(|_| poisson.sample(&mut rng) as f32)
        .collect();
    let inputs = (0..cells * 2)
        .map(|_| f32::from(u8::from(rng.random_bool(BENCH_CLICK_PROBABILITY))))
        .collect();
    Ok(TrialSet {
        n_trials: params.trials,
        max_bins: params.bins,
        n_neurons: params.neurons,
        bin_s: BENCH_BIN_S,
        spikes,
        inputs,
        lengths: vec![params.bins; params.trials],
        times_s: (0..params.trials).map(|t| t as f64).collect(),
        choices: None,
    })
}

/// Runs the benchmark; returns one JSON object with `ms_per_step`, `final_loss` and the sizes.
/// The step runs on one thread, as training does (see [`benchtop_compute::threads::single_threaded`]).
pub fn bench_training(params: &BenchParams) -> Result<serde_json::Value, ComputeError> {
    single_threaded("findr-model", || bench_here(params))
}

fn bench_here(params: &BenchParams) -> Result<serde_json::Value, ComputeError> {
    let sizes = [
        ("trials", params.trials),
        ("bins", params.bins),
        ("neurons", params.neurons),
        ("flow_width", params.flow_width),
        ("encoder", params.encoder),
        ("steps", params.steps),
    ];
    for (name, value) in sizes {
        if !(1..=100_000).contains(&value) {
            return Err(ComputeError::invalid(name, "choose 1 to 100000"));
        }
    }
    ComputeError::check_memory(
        &[
            ("trials", params.trials),
            ("bins", params.bins),
            ("neurons", params.neurons),
        ],
        8,
        benchtop_compute::error::ARRAY_LIMIT_BYTES,
    )?;
    let data = bench_trials(params)?;
    let baseline = vec![softplus_inverse(BENCH_RATE_HZ); data.spikes.len()];
    let device = Device::Cpu;
    let config = ModelConfig {
        flow_width: params.flow_width,
        encoder_hidden: params.encoder,
        ..ModelConfig::default()
    };
    let model = FindrModel::new(
        &config,
        params.neurons,
        BENCH_BIN_S,
        BENCH_RATE_HZ,
        derive_seed(params.seed, 2),
        &device,
    )?;
    let trials: Vec<usize> = (0..params.trials).collect();
    let batch = Batch::new(&data, &baseline, &trials, &device)?;
    let mut optimiser = SgdMomentum::new(model.vars(), 0.9, 5.0)?;
    let beta_kl = 2.0;
    let l2 = 1e-7;
    let mut step = |k: usize| -> Result<f64, ComputeError> {
        let terms = model.loss(&batch, Some(derive_seed(params.seed, 100 + k as u64)))?;
        let loss = terms
            .nll
            .add(&terms.kl.affine(beta_kl, 0.0)?)?
            .add(&model.squared_weights()?.affine(l2, 0.0)?)?;
        optimiser.step(&loss, params.learning_rate)?;
        Ok(f64::from(loss.to_scalar::<f32>()?))
    };
    step(0)?;
    step(1)?;
    let start = Instant::now();
    let mut final_loss = f64::NAN;
    for k in 0..params.steps {
        final_loss = step(2 + k)?;
    }
    let ms_per_step = start.elapsed().as_secs_f64() * 1e3 / params.steps as f64;
    Ok(json!({
        "engine": "findr",
        "trials": params.trials,
        "bins": params.bins,
        "neurons": params.neurons,
        "flow_width": params.flow_width,
        "encoder": params.encoder,
        "steps": params.steps,
        "ms_per_step": ms_per_step,
        "final_loss": final_loss,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bench_reports_a_finite_loss_that_training_lowers() {
        let small = BenchParams {
            trials: 4,
            bins: 10,
            neurons: 6,
            flow_width: 5,
            encoder: 4,
            steps: 1,
            learning_rate: 0.05,
            ..BenchParams::default()
        };
        let one = bench_training(&small).unwrap();
        let more = bench_training(&BenchParams {
            steps: 30,
            ..small.clone()
        })
        .unwrap();
        let loss = |v: &serde_json::Value| v["final_loss"].as_f64().unwrap();
        assert!(loss(&one).is_finite());
        assert!(loss(&more) < loss(&one), "{one} {more}");
        assert_eq!(one["trials"], 4);
        assert!(bench_training(&BenchParams { bins: 0, ..small }).is_err());
    }
}
