//! Full-batch gradient descent on `‖Y − W₂ φ(W₁X)‖²/(2P)` from a random initialisation, with
//! no noise, input noise (fresh Gaussian noise on `X` every step), or i.i.d. parameter noise on
//! `W₁` and `W₂` (sampled every step, the gradient taken at the perturbed weights and applied to
//! the clean ones), or either noise's expected-loss regulariser instead ([`NoiseMode`]; the
//! regulariser's form is the linear network's, see [`crate::solutions`]). `φ` is the
//! identity (the linear network) or `tanh` (the nonlinear variant).

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError};
use nalgebra::DMatrix;
use rand_distr::{Distribution as _, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::data::Dataset;
use crate::linalg::gaussian;

/// The noise during training.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Noise {
    /// Plain gradient descent.
    None,
    /// Gaussian noise of standard deviation σ on every input entry, fresh each step.
    Input,
    /// Gaussian noise of standard deviation σ on every weight, fresh each step.
    Parameter,
}

/// How the noise enters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NoiseMode {
    /// Sample the noise every step (the stochastic version).
    #[default]
    Sampled,
    /// Descend the expected loss (the noise's regulariser, deterministic): input noise adds
    /// `σ²‖W₂W₁‖²/2`, parameter noise `σ²/(2P)(n_out‖W₁X‖² + tr(XXᵀ)‖W₂‖²)` (linear network).
    Expected,
}

/// The hidden layer's activation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Activation {
    /// `H = W₁X`: the deep linear network.
    #[default]
    Linear,
    /// `H = tanh(W₁X)`.
    Tanh,
}

/// Training settings shared by every regime.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainParams {
    /// Hidden width.
    pub hidden: usize,
    /// Gradient-descent steps.
    pub steps: usize,
    /// Learning rate η.
    pub learning_rate: f64,
    /// Initial weights are `N(0, (scale²)/fan_in)`.
    pub init_scale: f64,
    /// σ of the input noise.
    pub input_noise: f64,
    /// σ of the parameter noise.
    pub parameter_noise: f64,
    /// Sampled noise or its expected-loss regulariser.
    pub noise_mode: NoiseMode,
    /// Over this last fraction of the steps the learning rate anneals to zero (a cosine), so
    /// the sampled noise's jitter dies out and the weights settle (0: constant rate).
    pub anneal_fraction: f64,
}

impl Default for TrainParams {
    fn default() -> Self {
        Self {
            hidden: 16,
            steps: 6000,
            learning_rate: 0.2,
            init_scale: 1.0,
            input_noise: 0.05,
            parameter_noise: 0.05,
            noise_mode: NoiseMode::Sampled,
            anneal_fraction: 0.25,
        }
    }
}

/// Largest number of steps accepted.
const MAX_STEPS: usize = 10_000_000;

impl TrainParams {
    /// Checks every range; errors name the parameter under `prefix` (e.g. `train`).
    pub fn validate(&self, prefix: &str) -> Result<(), ComputeError> {
        let bad =
            |name: &str, reason: String| ComputeError::invalid(format!("{prefix}.{name}"), reason);
        if !(1..=4096).contains(&self.hidden) {
            return Err(bad(
                "hidden",
                format!("must be 1 … 4096, got {}", self.hidden),
            ));
        }
        if !(1..=MAX_STEPS).contains(&self.steps) {
            return Err(bad(
                "steps",
                format!("must be 1 … {MAX_STEPS}, got {}", self.steps),
            ));
        }
        for (name, value) in [
            ("learning_rate", self.learning_rate),
            ("init_scale", self.init_scale),
        ] {
            if !value.is_finite() || value <= 0.0 {
                return Err(bad(name, format!("must be positive, got {value}")));
            }
        }
        for (name, value) in [
            ("input_noise", self.input_noise),
            ("parameter_noise", self.parameter_noise),
        ] {
            if !value.is_finite() || value < 0.0 {
                return Err(bad(name, format!("must be ≥ 0, got {value}")));
            }
        }
        if !(0.0..1.0).contains(&self.anneal_fraction) {
            return Err(bad(
                "anneal_fraction",
                format!("must be in [0, 1), got {}", self.anneal_fraction),
            ));
        }
        Ok(())
    }
}

/// One trained network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trained {
    /// First layer (`hidden × n_in`).
    pub w1: DMatrix<f64>,
    /// Second layer (`n_out × hidden`).
    pub w2: DMatrix<f64>,
    /// The activation it was trained with.
    pub activation: Activation,
    /// `(step, noise-free loss)` about 100 times along the run.
    pub history: Vec<(usize, f64)>,
}

impl Trained {
    /// Hidden representation `φ(W₁X)`.
    pub fn hidden(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        activate(&self.w1 * x, self.activation)
    }

    /// Outputs `W₂φ(W₁X)`.
    pub fn output(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        &self.w2 * self.hidden(x)
    }
}

fn activate(pre: DMatrix<f64>, activation: Activation) -> DMatrix<f64> {
    match activation {
        Activation::Linear => pre,
        Activation::Tanh => pre.map(f64::tanh),
    }
}

/// The noise-free loss `‖Y − W₂φ(W₁X)‖²/(2P)`.
pub fn loss(w1: &DMatrix<f64>, w2: &DMatrix<f64>, activation: Activation, data: &Dataset) -> f64 {
    let out = w2 * activate(w1 * &data.x, activation);
    let p = data.items() as f64;
    (out - &data.y).norm_squared() / (2.0 * p)
}

/// A random initialisation: `W₁ ~ N(0, scale²/n_in)`, `W₂ ~ N(0, scale²/hidden)`.
pub fn initial_weights(
    data: &Dataset,
    hidden: usize,
    scale: f64,
    seed: u64,
) -> (DMatrix<f64>, DMatrix<f64>) {
    let (s1, s2) = (
        scale / (data.n_in() as f64).sqrt(),
        scale / (hidden as f64).sqrt(),
    );
    (
        gaussian(hidden, data.n_in(), derive_seed(seed, 10)) * s1,
        gaussian(data.n_out(), hidden, derive_seed(seed, 11)) * s2,
    )
}

/// Trains one network from `seed` under `noise`; `cancel` is checked every 256 steps.
pub fn train(
    data: &Dataset,
    params: &TrainParams,
    noise: Noise,
    activation: Activation,
    seed: u64,
    cancel: &CancelToken,
) -> Result<Trained, ComputeError> {
    params.validate("train")?;
    let (mut w1, mut w2) = initial_weights(data, params.hidden, params.init_scale, seed);
    let mut rng = seeded(derive_seed(seed, 12));
    let mut normal = move || -> f64 { StandardNormal.sample(&mut rng) };
    let p = data.items() as f64;
    let base_lr = params.learning_rate;
    let sigma_gram = &data.x * data.x.transpose();
    let (a, b) = (data.n_out() as f64, sigma_gram.trace());
    let record_every = (params.steps / 100).max(1);
    let anneal_steps = (params.anneal_fraction * params.steps as f64) as usize;
    let anneal_from = params.steps - anneal_steps;
    let mut history = Vec::with_capacity(102);
    for step in 0..params.steps {
        if step % 256 == 0 {
            cancel.check()?;
        }
        let lr = if step < anneal_from {
            base_lr
        } else {
            let t = (step - anneal_from) as f64 / anneal_steps as f64;
            base_lr * 0.5 * (1.0 + (std::f64::consts::PI * t).cos())
        };
        if step % record_every == 0 {
            history.push((step, loss(&w1, &w2, activation, data)));
        }
        let sampled = params.noise_mode == NoiseMode::Sampled;
        let sampled_weights = noise == Noise::Parameter && sampled && params.parameter_noise > 0.0;
        let (u1, u2) = if sampled_weights {
            let s = params.parameter_noise;
            (w1.map(|v| v + s * normal()), w2.map(|v| v + s * normal()))
        } else {
            (w1.clone(), w2.clone())
        };
        let x = if noise == Noise::Input && sampled && params.input_noise > 0.0 {
            let s = params.input_noise;
            data.x.map(|v| v + s * normal())
        } else {
            data.x.clone()
        };
        let pre = &u1 * &x;
        let hidden = activate(pre, activation);
        let residual = &u2 * &hidden - &data.y;
        let mut g2 = &residual * hidden.transpose() / p;
        let mut back = u2.transpose() * &residual;
        if activation == Activation::Tanh {
            back.zip_apply(&hidden, |d, h| *d *= 1.0 - h * h);
        }
        let mut g1 = back * x.transpose() / p;
        if !sampled {
            match noise {
                Noise::None => {}
                Noise::Input => {
                    let s2 = params.input_noise * params.input_noise;
                    let product = &w2 * &w1;
                    g1 += w2.transpose() * &product * s2;
                    g2 += product * w1.transpose() * s2;
                }
                Noise::Parameter => {
                    let s2 = params.parameter_noise * params.parameter_noise;
                    g1 += &w1 * &sigma_gram * (s2 * a / p);
                    g2 += &w2 * (s2 * b / p);
                }
            }
        }
        w1 -= g1 * lr;
        w2 -= g2 * lr;
        if !(w1.iter().all(|v| v.is_finite()) && w2.iter().all(|v| v.is_finite())) {
            return Err(ComputeError::Numerical(format!(
                "training diverged at step {step} (seed {seed}); lower train.learning_rate ({base_lr})"
            )));
        }
    }
    history.push((params.steps, loss(&w1, &w2, activation, data)));
    Ok(Trained {
        w1,
        w2,
        activation,
        history,
    })
}
