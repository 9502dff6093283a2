//! Adam training of a [`Model`] on a [`LossSpec`], and held-out errors.

use crate::loss::{LossParts, LossSpec, loss_and_grad};
use crate::model::Model;
use crate::sample::Config;
use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_learn::adam::{Adam, cosine_decay};
use rand::Rng;

/// One Adam step with the learning rate on a cosine decay from `base` to a tenth of it over
/// `epochs` steps.
pub fn decayed_step(adam: &mut Adam, base: f64, epochs: usize, params: &mut [f64], grad: &[f64]) {
    let fraction = f64::from(adam.steps() + 1) / epochs.max(1) as f64;
    adam.config.learning_rate = cosine_decay(base, fraction, 0.1);
    adam.step(params, grad);
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
    let mut adam = Adam::new(model.params.len(), learning_rate);
    let mut history = Vec::with_capacity(epochs);
    for epoch in 0..epochs {
        if epoch % 16 == 0 {
            cancel.check()?;
            progress.set_fraction(epoch as f64 / epochs as f64);
        }
        let (parts, grad) = loss_and_grad(model, data.labelled, data.unlabelled, spec, rng);
        if !parts.total().is_finite() {
            return Err(ComputeError::Numerical(format!(
                "training loss is not finite at epoch {epoch}; lower the learning rate or δ"
            )));
        }
        decayed_step(&mut adam, learning_rate, epochs, &mut model.params, &grad);
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

/// The trivial references' errors on `test`: `energy_mae` of the constant `energy` (the
/// training labels' mean, what a model that learned nothing predicts), `force_mae` of zero
/// force. A model whose force error is not below this has learned nothing about forces.
pub fn trivial(test: &[Config], energy: f64) -> Errors {
    let energy_mae =
        test.iter().map(|c| (c.energy - energy).abs()).sum::<f64>() / test.len().max(1) as f64;
    let components: usize = test.iter().map(|c| c.forces.len()).sum();
    let force_mae = test
        .iter()
        .flat_map(|c| c.forces.iter())
        .map(|f| f.abs())
        .sum::<f64>()
        / components.max(1) as f64;
    Errors {
        energy_mae,
        force_mae,
    }
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
    Errors {
        energy_mae: ee / test.len().max(1) as f64,
        force_mae: fe / nf.max(1) as f64,
    }
}
