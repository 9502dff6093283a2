//! The deep learners, in candle: an MLP on the flat inputs and a small 1-D CNN whose channels
//! are laid out along the sites (the couplings to the left and right of a site, its field, its
//! shadow features and those of the bond to its right).
//!
//! Both regress every standardised target with a mean-squared loss, Adam with L2 weight decay,
//! full batches up to 128 chains (shuffled mini-batches of 64 beyond), and stop when the loss on
//! a validation split of the training chains has not improved for `patience` epochs, keeping
//! the best weights. Weights start at U(±1/√fan_in) from the seed (PyTorch's default), and the
//! work runs on one named thread, so the same seed gives the same bits.

use benchtop_compute::rng::seeded;
use benchtop_compute::{CancelToken, ComputeError};
use benchtop_learn::adam::{AdamConfig, VarAdam};
use benchtop_learn::nn::{Activation, Mlp};
use candle_core::{DType, Device, Module as _, Tensor, Var};
use candle_nn::{Conv1d, Conv1dConfig, Linear, VarBuilder, VarMap};
use nalgebra::DMatrix;
use rand::Rng as _;
use rand::seq::SliceRandom as _;

use super::{Inputs, Layout, Learner, LearnerSettings, Standardiser, select_rows};

/// Chains per mini-batch once the training split is larger than this.
const BATCH: usize = 64;

/// The 1-D CNN: two same-padded convolutions (kernel 3) over the sites, a dense layer, a head.
struct Cnn {
    conv1: Conv1d,
    conv2: Conv1d,
    dense: Linear,
    head: Linear,
}

impl Cnn {
    fn new(
        vb: &VarBuilder<'_>,
        in_channels: usize,
        sites: usize,
        channels: usize,
        hidden: usize,
        outputs: usize,
    ) -> Result<Self, ComputeError> {
        let same = Conv1dConfig {
            padding: 1,
            ..Conv1dConfig::default()
        };
        Ok(Self {
            conv1: candle_nn::conv1d(in_channels, channels, 3, same, vb.pp("conv1"))?,
            conv2: candle_nn::conv1d(channels, channels, 3, same, vb.pp("conv2"))?,
            dense: candle_nn::linear(channels * sites, hidden, vb.pp("dense"))?,
            head: candle_nn::linear(hidden, outputs, vb.pp("head"))?,
        })
    }

    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let h = self.conv1.forward(x)?.gelu()?;
        let h = self.conv2.forward(&h)?.gelu()?;
        let h = h.flatten_from(1)?;
        let h = self.dense.forward(&h)?.gelu()?;
        self.head.forward(&h)
    }
}

/// Either network.
enum Net {
    Mlp(Mlp),
    Cnn(Cnn),
}

impl Net {
    fn forward(&self, x: &Tensor) -> Result<Tensor, ComputeError> {
        match self {
            Self::Mlp(m) => m.forward(x),
            Self::Cnn(c) => Ok(c.forward(x)?),
        }
    }
}

/// Channels per site of the CNN's input.
pub fn channels(layout: &Layout, inputs: Inputs) -> usize {
    2 + usize::from(layout.fields) + if inputs.has_shadows() { 6 } else { 0 }
}

/// The CNN's input (n × channels × L, row-major) from flat standardised rows.
fn site_channels(layout: &Layout, inputs: Inputs, x: &DMatrix<f64>) -> Vec<f32> {
    let l = layout.sites;
    let c = channels(layout, inputs);
    let bonds = layout.bonds.len();
    let p = layout.parameter_count();
    let mut out = vec![0.0_f32; x.nrows() * c * l];
    for r in 0..x.nrows() {
        for site in 0..l {
            let mut values = Vec::with_capacity(c);
            let right = layout.right_bond(site);
            values.push(right.map_or(0.0, |b| x[(r, b)]));
            values.push(layout.left_bond(site).map_or(0.0, |b| x[(r, b)]));
            if layout.fields {
                values.push(x[(r, bonds + site)]);
            }
            if inputs.has_shadows() {
                for k in 0..3 {
                    values.push(x[(r, p + 3 * site + k)]);
                }
                for k in 0..3 {
                    values.push(right.map_or(0.0, |b| x[(r, p + 3 * l + 3 * b + k)]));
                }
            }
            for (channel, v) in values.into_iter().enumerate() {
                out[(r * c + channel) * l + site] = v as f32;
            }
        }
    }
    out
}

/// The rows of `x` as the network's input tensor.
fn input_tensor(
    learner: Learner,
    layout: &Layout,
    inputs: Inputs,
    x: &DMatrix<f64>,
    device: &Device,
) -> Result<Tensor, ComputeError> {
    Ok(match learner {
        Learner::Cnn => Tensor::from_vec(
            site_channels(layout, inputs, x),
            (x.nrows(), channels(layout, inputs), layout.sites),
            device,
        )?,
        _ => matrix_tensor(x, device)?,
    })
}

fn matrix_tensor(m: &DMatrix<f64>, device: &Device) -> Result<Tensor, ComputeError> {
    let values: Vec<f32> = m
        .row_iter()
        .flat_map(|r| r.iter().map(|&v| v as f32).collect::<Vec<_>>())
        .collect();
    Ok(Tensor::from_vec(values, (m.nrows(), m.ncols()), device)?)
}

/// Every variable of `varmap` sorted by name, set to U(±1/√fan_in) from `seed`.
fn seeded_variables(varmap: &VarMap, seed: u64) -> Result<Vec<Var>, ComputeError> {
    let mut named: Vec<(String, Var)> = varmap
        .data()
        .lock()
        .map_err(|_| ComputeError::Numerical("network weights lock poisoned".into()))?
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    let fan_in = |prefix: &str| -> usize {
        named
            .iter()
            .find(|(n, _)| n.strip_suffix(".weight") == Some(prefix))
            .map_or(1, |(_, v)| {
                v.dims().iter().skip(1).product::<usize>().max(1)
            })
    };
    let mut rng = seeded(seed);
    for (name, var) in &named {
        let prefix = name.rsplit_once('.').map_or(name.as_str(), |(p, _)| p);
        let bound = 1.0 / (fan_in(prefix) as f64).sqrt();
        let values: Vec<f32> = (0..var.elem_count())
            .map(|_| ((rng.random::<f64>() * 2.0 - 1.0) * bound) as f32)
            .collect();
        var.set(&Tensor::from_vec(values, var.shape(), var.device())?)?;
    }
    Ok(named.into_iter().map(|(_, v)| v).collect())
}

/// A standardised learning problem: the layout, what the learner sees, the training rows and
/// targets, and the rows to predict.
pub struct Scaled<'a> {
    /// The chains' layout.
    pub layout: &'a Layout,
    /// What the learner sees.
    pub inputs: Inputs,
    /// Standardised training inputs (n × d).
    pub x: &'a DMatrix<f64>,
    /// Training targets (n × T).
    pub y: &'a DMatrix<f64>,
    /// Standardised inputs to predict.
    pub x_test: &'a DMatrix<f64>,
}

/// Trains `learner` (MLP or CNN) on `problem`; predicts its test rows.
pub fn fit_predict(
    learner: Learner,
    problem: &Scaled<'_>,
    settings: &LearnerSettings,
    seed: u64,
    cancel: &CancelToken,
) -> Result<DMatrix<f64>, ComputeError> {
    benchtop_compute::threads::single_threaded("quantum-network", || {
        train(learner, problem, settings, seed, cancel)
    })
}

fn train(
    learner: Learner,
    problem: &Scaled<'_>,
    settings: &LearnerSettings,
    seed: u64,
    cancel: &CancelToken,
) -> Result<DMatrix<f64>, ComputeError> {
    let Scaled {
        layout,
        inputs,
        x,
        y,
        x_test,
    } = *problem;
    let device = Device::Cpu;
    let n = x.nrows();
    let scaler = Standardiser::fit(y);
    let z = scaler.apply(y);
    // The validation split.
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut seeded(seed ^ 0x5a11d));
    let n_val = ((settings.validation_fraction * n as f64).round() as usize).clamp(1, n - 2);
    let mut is_val = vec![false; n];
    for &r in &order[..n_val] {
        is_val[r] = true;
    }
    let is_fit: Vec<bool> = is_val.iter().map(|v| !v).collect();
    let x_fit = input_tensor(learner, layout, inputs, &select_rows(x, &is_fit), &device)?;
    let y_fit = matrix_tensor(&select_rows(&z, &is_fit), &device)?;
    let x_val = input_tensor(learner, layout, inputs, &select_rows(x, &is_val), &device)?;
    let y_val = matrix_tensor(&select_rows(&z, &is_val), &device)?;
    let n_fit = n - n_val;

    let varmap = VarMap::new();
    let vb = VarBuilder::from_varmap(&varmap, DType::F32, &device);
    let outputs = y.ncols();
    let net = match learner {
        Learner::Cnn => Net::Cnn(Cnn::new(
            &vb,
            channels(layout, inputs),
            layout.sites,
            settings.channels,
            settings.hidden,
            outputs,
        )?),
        _ => Net::Mlp(Mlp::new(
            &vb,
            &[x.ncols(), settings.hidden, settings.hidden, outputs],
            Activation::Gelu,
        )?),
    };
    let vars = seeded_variables(&varmap, seed)?;
    let mut adam = VarAdam::new(
        vars.clone(),
        AdamConfig::new(settings.learning_rate).with_weight_decay(settings.weight_decay),
    )?;
    let mut batches_rng = seeded(seed ^ 0xba7c);
    let mut best_loss = f64::INFINITY;
    let mut best_epoch = 0;
    let mut best: Vec<Tensor> = vars
        .iter()
        .map(|v| v.as_tensor().copy())
        .collect::<Result<_, _>>()?;
    for epoch in 0..settings.max_epochs {
        cancel.check()?;
        if n_fit <= 2 * BATCH {
            let loss = candle_nn::loss::mse(&net.forward(&x_fit)?, &y_fit)?;
            adam.step(&loss)?;
        } else {
            let mut rows: Vec<u32> = (0..n_fit as u32).collect();
            rows.shuffle(&mut batches_rng);
            for chunk in rows.chunks(BATCH) {
                let index = Tensor::new(chunk, &device)?;
                let xb = x_fit.index_select(&index, 0)?;
                let yb = y_fit.index_select(&index, 0)?;
                let loss = candle_nn::loss::mse(&net.forward(&xb)?, &yb)?;
                adam.step(&loss)?;
            }
        }
        let val =
            f64::from(candle_nn::loss::mse(&net.forward(&x_val)?, &y_val)?.to_scalar::<f32>()?);
        if !val.is_finite() {
            return Err(ComputeError::Numerical(format!(
                "{} training diverged at epoch {epoch}; lower the learning rate",
                learner.label()
            )));
        }
        if val < best_loss * (1.0 - 1e-4) {
            best_loss = val;
            best_epoch = epoch;
            best = vars
                .iter()
                .map(|v| v.as_tensor().copy())
                .collect::<Result<_, _>>()?;
        } else if epoch - best_epoch >= settings.patience {
            break;
        }
    }
    for (var, value) in vars.iter().zip(&best) {
        var.set(value)?;
    }
    let prediction = net
        .forward(&input_tensor(learner, layout, inputs, x_test, &device)?)?
        .to_dtype(DType::F64)?
        .to_vec2::<f64>()?;
    let z_test = DMatrix::from_fn(x_test.nrows(), outputs, |r, c| prediction[r][c]);
    Ok(scaler.invert(&z_test))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hamiltonian::{Boundary, Model};

    #[test]
    fn quantum_networks_learn_a_planted_map_and_repeat_bit_for_bit() {
        // Heisenberg layout, 6 sites open: 5 couplings; targets depend on them smoothly.
        let layout = Layout::new(Model::Heisenberg, Boundary::Open, 6);
        let mut rng = seeded(9);
        let make = |n: usize, rng: &mut benchtop_compute::rng::EngineRng| {
            let x = DMatrix::from_fn(n, 5, |_, _| rng.random::<f64>() * 2.0 - 1.0);
            let y = DMatrix::from_fn(n, 2, |r, c| {
                (x[(r, c)] + x[(r, c + 1)]).tanh() - 0.3 * x[(r, 4)]
            });
            (x, y)
        };
        let (x, y) = make(120, &mut rng);
        let (xt, yt) = make(50, &mut rng);
        let settings = LearnerSettings {
            max_epochs: 600,
            patience: 60,
            ..LearnerSettings::default()
        };
        let sd = (yt.map(|v| v - yt.mean()).norm_squared() / 100.0).sqrt();
        for learner in [Learner::Mlp, Learner::Cnn] {
            let run = || {
                let problem = Scaled {
                    layout: &layout,
                    inputs: Inputs::Parameters,
                    x: &x,
                    y: &y,
                    x_test: &xt,
                };
                fit_predict(learner, &problem, &settings, 4, &CancelToken::new()).unwrap()
            };
            let p = run();
            let rmse = ((&p - &yt).norm_squared() / 100.0).sqrt();
            assert!(rmse < 0.25 * sd, "{learner:?}: {rmse} vs sd {sd}");
            assert_eq!(p, run(), "{learner:?} repeats");
        }
    }
}
