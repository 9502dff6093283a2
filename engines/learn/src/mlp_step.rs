//! A micro-benchmark of candle's cost per operation on small tensors: full training steps
//! (forward, mean-squared-error loss, backward, Adam update) of a narrow [`Mlp`] on one fixed
//! batch. At 64 × 64 every matrix product is a few microseconds of arithmetic, so the step's
//! time is mostly the fixed cost of each tensor operation and of the autograd graph: what any
//! small network trained in candle pays per layer and per parameter tensor (`benchtop bench
//! candle-mlp`, against PyTorch in `scripts/bench_candle_peer.py`).
//!
//! The problem is deterministic and defined without a floating-point random generator, so the
//! PyTorch peer rebuilds it value for value: one SplitMix64 stream seeded with `seed` gives, in
//! this order, the inputs X (batch × width, row-major), the targets Y (batch × width), then for
//! each linear layer its weight (out × in, row-major) and its bias, each value
//! `u = (z >> 11) / 2⁵³` mapped to `2u − 1` (inputs and targets) or `(2u − 1)/√in` (weights and
//! biases, PyTorch's default bound). Every layer is `width` wide, with ReLU between them; the
//! loss is mean((f(X) − Y)²); the optimiser is Adam ([`VarAdam`], PyTorch's `torch.optim.Adam`),
//! all in `f32`. Both sides therefore follow the same loss curve up to rounding, and the final
//! loss shows that both did the same work.

use std::time::Instant;

use benchtop_compute::ComputeError;
use candle_core::{DType, Device, Tensor};
use candle_nn::{VarBuilder, VarMap};
use serde::{Deserialize, Serialize};

use crate::adam::{AdamConfig, VarAdam};
use crate::nn::{Activation, Mlp};

/// The sizes and constants of the micro-benchmark.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MlpStepConfig {
    /// Rows of the batch.
    pub batch: usize,
    /// Width of the inputs, of every hidden layer and of the outputs.
    pub width: usize,
    /// Hidden layers (the network has `hidden_layers + 1` linear layers).
    pub hidden_layers: usize,
    /// Adam's step size.
    pub learning_rate: f64,
    /// Seed of the SplitMix64 stream that fills the batch and the weights.
    pub seed: u64,
}

impl Default for MlpStepConfig {
    /// A batch of 64 through two hidden layers of 64 (64 → 64 → 64 → 64), Adam at 10⁻³.
    fn default() -> Self {
        Self {
            batch: 64,
            width: 64,
            hidden_layers: 2,
            learning_rate: 1e-3,
            seed: 1,
        }
    }
}

impl MlpStepConfig {
    /// Checks the sizes before anything is allocated (each in 1..=4096, at most 64 hidden
    /// layers, a finite positive learning rate).
    pub fn validate(&self) -> Result<(), ComputeError> {
        for (name, value, max) in [
            ("batch", self.batch, 4096),
            ("width", self.width, 4096),
            ("hidden_layers", self.hidden_layers, 64),
        ] {
            if value == 0 || value > max {
                return Err(ComputeError::invalid(
                    name,
                    format!("must be between 1 and {max}, got {value}"),
                ));
            }
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(ComputeError::invalid(
                "learning_rate",
                format!("must be finite and positive, got {}", self.learning_rate),
            ));
        }
        Ok(())
    }

    /// Number of trainable values: (width² + width) per linear layer.
    pub fn parameters(&self) -> usize {
        (self.hidden_layers + 1) * (self.width * self.width + self.width)
    }
}

/// SplitMix64: the integer stream both sides share (no floating point until the last step).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `count` values in [−bound, bound): `(2u − 1)·bound` with `u = (z >> 11)/2⁵³`, as `f32`.
    fn symmetric(&mut self, count: usize, bound: f64) -> Vec<f32> {
        (0..count)
            .map(|_| {
                let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
                ((2.0 * u - 1.0) * bound) as f32
            })
            .collect()
    }
}

/// The network, its fixed batch and its optimiser, ready to step.
pub struct MlpStep {
    config: MlpStepConfig,
    inputs: Tensor,
    targets: Tensor,
    net: Mlp,
    optimizer: VarAdam,
}

impl MlpStep {
    /// Builds the problem of `config` on `device` (see the module's documentation for the
    /// values).
    pub fn new(config: MlpStepConfig, device: &Device) -> Result<Self, ComputeError> {
        config.validate()?;
        let (batch, width) = (config.batch, config.width);
        let mut stream = SplitMix64(config.seed);
        let inputs =
            Tensor::from_vec(stream.symmetric(batch * width, 1.0), (batch, width), device)?;
        let targets =
            Tensor::from_vec(stream.symmetric(batch * width, 1.0), (batch, width), device)?;
        let mut varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, device);
        let widths = vec![width; config.hidden_layers + 2];
        let net = Mlp::new(&vb, &widths, Activation::Relu)?;
        let bound = 1.0 / (width as f64).sqrt();
        for layer in 0..=config.hidden_layers {
            let weight = Tensor::from_vec(
                stream.symmetric(width * width, bound),
                (width, width),
                device,
            )?;
            let bias = Tensor::from_vec(stream.symmetric(width, bound), width, device)?;
            varmap.set_one(format!("layer{layer}.weight"), weight)?;
            varmap.set_one(format!("layer{layer}.bias"), bias)?;
        }
        let optimizer = VarAdam::new(varmap.all_vars(), AdamConfig::new(config.learning_rate))?;
        Ok(Self {
            config,
            inputs,
            targets,
            net,
            optimizer,
        })
    }

    /// The configuration this problem was built from.
    pub fn config(&self) -> &MlpStepConfig {
        &self.config
    }

    /// The loss graph mean((f(X) − Y)²) at the current weights.
    fn loss_tensor(&self) -> Result<Tensor, ComputeError> {
        let error = self.net.forward(&self.inputs)?.sub(&self.targets)?;
        Ok(error.sqr()?.mean_all()?)
    }

    /// The loss at the current weights, without a step.
    pub fn loss(&self) -> Result<f32, ComputeError> {
        Ok(self.loss_tensor()?.to_scalar::<f32>()?)
    }

    /// One training step (forward, backward, Adam update); returns the loss before the update,
    /// as PyTorch's `loss.item()` in a training loop does.
    pub fn step(&mut self) -> Result<f32, ComputeError> {
        let loss = self.loss_tensor()?;
        self.optimizer.step(&loss)?;
        Ok(loss.to_scalar::<f32>()?)
    }
}

/// What [`bench`] measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MlpStepReport {
    /// The problem.
    pub config: MlpStepConfig,
    /// Timed steps.
    pub steps: usize,
    /// Untimed steps before them.
    pub warmup: usize,
    /// Trainable values.
    pub parameters: usize,
    /// Mean wall milliseconds per step over the timed steps.
    pub ms_per_step: f64,
    /// The loss of the first step (before any update: the same on every machine).
    pub first_loss: f64,
    /// The loss returned by the last step (the check that the work was done).
    pub final_loss: f64,
    /// Threads candle's CPU kernels use (`RAYON_NUM_THREADS`, else one per core).
    pub threads: usize,
}

/// Builds the problem on the CPU, takes `warmup` untimed steps, then times `steps` steps.
pub fn bench(
    config: MlpStepConfig,
    steps: usize,
    warmup: usize,
) -> Result<MlpStepReport, ComputeError> {
    if steps == 0 {
        return Err(ComputeError::invalid("steps", "at least one timed step"));
    }
    let mut problem = MlpStep::new(config, &Device::Cpu)?;
    let mut first_loss = None;
    for _ in 0..warmup {
        let loss = problem.step()?;
        first_loss.get_or_insert(loss);
    }
    let started = Instant::now();
    let mut final_loss = 0.0;
    for _ in 0..steps {
        final_loss = problem.step()?;
        first_loss.get_or_insert(final_loss);
    }
    let elapsed = started.elapsed().as_secs_f64();
    if !final_loss.is_finite() {
        return Err(ComputeError::invalid(
            "learning_rate",
            format!("the loss diverged to {final_loss}"),
        ));
    }
    Ok(MlpStepReport {
        config,
        steps,
        warmup,
        parameters: config.parameters(),
        ms_per_step: elapsed * 1e3 / steps as f64,
        first_loss: f64::from(first_loss.unwrap_or(final_loss)),
        final_loss: f64::from(final_loss),
        threads: candle_core::utils::get_num_threads(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> MlpStepConfig {
        MlpStepConfig {
            batch: 16,
            width: 8,
            hidden_layers: 2,
            learning_rate: 1e-2,
            seed: 3,
        }
    }

    #[test]
    fn steps_lower_the_loss_on_the_fixed_problem() {
        let mut problem = MlpStep::new(small(), &Device::Cpu).unwrap();
        let before = problem.loss().unwrap();
        let first = problem.step().unwrap();
        assert_eq!(first, before, "a step returns the loss before its update");
        for _ in 0..199 {
            problem.step().unwrap();
        }
        let after = problem.loss().unwrap();
        assert!(
            after < 0.5 * before,
            "200 Adam steps should at least halve the loss: {before} → {after}"
        );
    }

    #[test]
    fn the_first_loss_is_the_documented_problem() {
        // Rebuild the network's output by hand from the same SplitMix64 stream, in f64.
        let config = small();
        let (b, w) = (config.batch, config.width);
        let mut stream = SplitMix64(config.seed);
        let x = stream.symmetric(b * w, 1.0);
        let y = stream.symmetric(b * w, 1.0);
        let bound = 1.0 / (w as f64).sqrt();
        let layers: Vec<(Vec<f32>, Vec<f32>)> = (0..=config.hidden_layers)
            .map(|_| (stream.symmetric(w * w, bound), stream.symmetric(w, bound)))
            .collect();
        let mut total = 0.0;
        for row in 0..b {
            let mut h: Vec<f64> = x[row * w..(row + 1) * w]
                .iter()
                .map(|&v| f64::from(v))
                .collect();
            for (l, (weight, bias)) in layers.iter().enumerate() {
                let mut next: Vec<f64> = (0..w)
                    .map(|o| {
                        f64::from(bias[o])
                            + (0..w)
                                .map(|i| f64::from(weight[o * w + i]) * h[i])
                                .sum::<f64>()
                    })
                    .collect();
                if l < config.hidden_layers {
                    next.iter_mut().for_each(|v| *v = v.max(0.0));
                }
                h = next;
            }
            total += (0..w)
                .map(|o| (h[o] - f64::from(y[row * w + o])).powi(2))
                .sum::<f64>();
        }
        let expected = total / (b * w) as f64;
        let loss = f64::from(MlpStep::new(config, &Device::Cpu).unwrap().loss().unwrap());
        assert!(
            (loss - expected).abs() < 1e-5 * expected,
            "candle {loss} against the hand-built {expected}"
        );
    }

    #[test]
    fn sizes_are_bounded_before_allocation() {
        let config = MlpStepConfig {
            width: 100_000,
            ..MlpStepConfig::default()
        };
        assert!(MlpStep::new(config, &Device::Cpu).is_err());
        assert!(bench(MlpStepConfig::default(), 0, 0).is_err());
    }

    #[test]
    fn the_bench_reports_its_work() {
        let report = bench(small(), 5, 2).unwrap();
        assert_eq!(report.parameters, 3 * (8 * 8 + 8));
        assert!(report.ms_per_step > 0.0);
        assert!(report.final_loss < report.first_loss);
    }
}
