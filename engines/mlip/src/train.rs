//! Adam training of a [`Model`] on a [`LossSpec`], and held-out errors.

use crate::loss::{LossParts, LossSpec, loss_and_grad};
use crate::model::Model;
use crate::sample::Config;
use benchtop_compute::{CancelToken, ComputeError, Progress};
use rand::Rng;

/// Adam with a cosine learning-rate decay to a tenth of `lr` over `epochs`.
#[derive(Clone, Debug)]
pub struct Adam {
    lr: f64,
    epochs: usize,
    m: Vec<f64>,
    v: Vec<f64>,
    t: i32,
}

impl Adam {
    /// An optimiser for `n` parameters.
    pub fn new(n: usize, lr: f64, epochs: usize) -> Self {
        Self {
            lr,
            epochs,
            m: vec![0.0; n],
            v: vec![0.0; n],
            t: 0,
        }
    }

    /// One update of `p` with gradient `g`.
    pub fn step(&mut self, p: &mut [f64], g: &[f64]) {
        const B1: f64 = 0.9;
        const B2: f64 = 0.999;
        self.t += 1;
        #[allow(clippy::cast_precision_loss)]
        let frac = (f64::from(self.t) / self.epochs.max(1) as f64).min(1.0);
        let lr = self.lr * (0.1 + 0.9 * 0.5 * (1.0 + (std::f64::consts::PI * frac).cos()));
        let (c1, c2) = (1.0 - B1.powi(self.t), 1.0 - B2.powi(self.t));
        for i in 0..p.len() {
            self.m[i] = B1 * self.m[i] + (1.0 - B1) * g[i];
            self.v[i] = B2 * self.v[i] + (1.0 - B2) * g[i] * g[i];
            p[i] -= lr * (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + 1e-8);
        }
    }
}

/// How long and how fast to train.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// Full-batch Adam steps.
    pub epochs: usize,
    /// Initial learning rate (cosine decay to a tenth).
    pub learning_rate: f64,
}

/// The training configurations.
#[derive(Clone, Copy, Debug)]
pub struct TrainData<'a> {
    /// Configurations with labels.
    pub labelled: &'a [Config],
    /// Configurations only the physics terms see.
    pub unlabelled: &'a [Config],
}

/// Trains `model` in place for `epochs` full-batch steps; returns the loss per epoch.
pub fn train(
    model: &mut Model,
    data: TrainData<'_>,
    spec: LossSpec,
    schedule: Schedule,
    rng: &mut impl Rng,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Vec<LossParts>, ComputeError> {
    let Schedule {
        epochs,
        learning_rate,
    } = schedule;
    let mut adam = Adam::new(model.params.len(), learning_rate, epochs);
    let mut history = Vec::with_capacity(epochs);
    for epoch in 0..epochs {
        if epoch % 16 == 0 {
            cancel.check()?;
            #[allow(clippy::cast_precision_loss)]
            progress.set_fraction(epoch as f64 / epochs as f64);
        }
        let (parts, grad) = loss_and_grad(model, data.labelled, data.unlabelled, spec, rng);
        if !parts.total().is_finite() {
            return Err(ComputeError::Numerical(format!(
                "training loss is not finite at epoch {epoch}; lower the learning rate or δ"
            )));
        }
        adam.step(&mut model.params, &grad);
        history.push(parts);
    }
    progress.set_fraction(1.0);
    Ok(history)
}

/// Held-out errors: energy MAE per configuration and force MAE per component.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Errors {
    /// Mean |E − E*|.
    pub energy_mae: f64,
    /// Mean |F − F*| over all components.
    pub force_mae: f64,
}

/// Errors of `model` on `test`.
pub fn evaluate(model: &Model, test: &[Config]) -> Errors {
    let (mut ee, mut fe, mut nf) = (0.0, 0.0, 0usize);
    for c in test {
        let (e, f) = model.energy_forces(&c.r);
        ee += (e - c.energy).abs();
        fe += f
            .iter()
            .zip(&c.forces)
            .map(|(a, b)| (a - b).abs())
            .sum::<f64>();
        nf += f.len();
    }
    #[allow(clippy::cast_precision_loss)]
    Errors {
        energy_mae: ee / test.len().max(1) as f64,
        force_mae: fe / nf.max(1) as f64,
    }
}
