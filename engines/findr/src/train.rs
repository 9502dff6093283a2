//! Training FINDR: SGD with momentum, global-norm gradient clipping, a linear warm-up followed by
//! an SGDR cosine schedule (restarts, each cycle `cycle_growth` times longer), the β_KL warm-up
//! β_KL·(1 − decay^epoch), L2 on every weight, k-fold splits, and early stopping that keeps the
//! weights with the best validation score: the held-out predictive NLL by default (see
//! [`crate::predictive`]), or the validation loss NLL + β_KL·KL at full weight.

use candle_core::{Tensor, Var};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};

use crate::model::{Batch, FindrModel};
use crate::predictive::{PredictiveParams, predictive_score};
use crate::result::EpochRecord;
use crate::trials::TrialSet;

/// Parameters of training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TrainParams {
    /// Most epochs (passes over the training trials).
    pub max_epochs: usize,
    /// Trials per step.
    pub batch_trials: usize,
    /// Peak learning rate.
    pub learning_rate: f64,
    /// SGD momentum.
    pub momentum: f64,
    /// Largest global gradient norm (larger gradients are scaled down to it).
    pub clip_norm: f64,
    /// Epochs of linear learning-rate warm-up.
    pub warmup_epochs: usize,
    /// Length of the first cosine cycle after the warm-up, epochs.
    pub first_cycle_epochs: usize,
    /// Each cycle is this many times longer than the one before.
    pub cycle_growth: usize,
    /// Final KL weight β_KL.
    pub beta_kl: f64,
    /// KL warm-up: the weight is β_KL·(1 − decay^epoch).
    pub kl_warmup_decay: f64,
    /// L2 penalty on every weight.
    pub l2: f64,
    /// Number of cross-validation folds (the test fold, the next one for validation, the rest
    /// for training).
    pub folds: usize,
    /// Which fold is the test fold (0-based).
    pub fold: usize,
    /// Stop when the validation score has not improved for this many epochs.
    pub patience_epochs: usize,
    /// Which validation score picks the kept epoch and drives early stopping.
    pub select_by: Selection,
    /// The held-out predictive likelihood (validation every epoch, test at the end).
    pub predictive: PredictiveParams,
}

/// The validation score that picks the kept epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Selection {
    /// The held-out predictive NLL of the unseen part of each validation trial
    /// ([`crate::predictive`]): what the learned flow predicts, which a collapsed latent cannot
    /// fake.
    #[default]
    HeldOutPredictive,
    /// The validation loss NLL + β_KL·KL at full weight (the reconstruction with the encoder
    /// reading every spike).
    Elbo,
}

/// The default is the FINDR panel's one-click fit: 80 epochs of batches of 8 trials at learning
/// rate 0.1 with a faster KL warm-up (0.95) than the paper's, which fits the example's planted
/// system in about 40 s in a release build instead of the paper's thousands of epochs (the
/// paper's settings are [`TrainParams::paper`]). One source: a project that sets some fields
/// keeps these for the rest.
impl Default for TrainParams {
    fn default() -> Self {
        Self {
            max_epochs: 80,
            batch_trials: 8,
            learning_rate: 0.1,
            momentum: 0.9,
            clip_norm: 5.0,
            warmup_epochs: 10,
            first_cycle_epochs: 190,
            cycle_growth: 2,
            beta_kl: 2.0,
            kl_warmup_decay: 0.95,
            l2: 1e-7,
            folds: 5,
            fold: 0,
            patience_epochs: 60,
            select_by: Selection::default(),
            predictive: PredictiveParams::default(),
        }
    }
}

impl TrainParams {
    /// The paper's longer schedule: 300 epochs of batches of 25 trials at learning rate 0.05
    /// with the KL warm-up decay 0.99.
    pub fn paper() -> Self {
        Self {
            max_epochs: 300,
            batch_trials: 25,
            learning_rate: 0.05,
            kl_warmup_decay: 0.99,
            ..Self::default()
        }
    }

    /// Checks every parameter; errors name the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(1..=100_000).contains(&self.max_epochs) {
            return Err(ComputeError::invalid("max_epochs", "choose 1 to 100000"));
        }
        if !(1..=10_000).contains(&self.batch_trials) {
            return Err(ComputeError::invalid("batch_trials", "choose 1 to 10000"));
        }
        if !(self.learning_rate.is_finite()
            && self.learning_rate > 0.0
            && self.learning_rate <= 10.0)
        {
            return Err(ComputeError::invalid(
                "learning_rate",
                "choose a learning rate in (0, 10]",
            ));
        }
        if !(0.0..1.0).contains(&self.momentum) {
            return Err(ComputeError::invalid("momentum", "choose 0 ≤ momentum < 1"));
        }
        let positive = [("clip_norm", self.clip_norm), ("beta_kl", self.beta_kl)];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(ComputeError::invalid(name, "must be a positive number"));
            }
        }
        if !(0.0..1.0).contains(&self.kl_warmup_decay) {
            return Err(ComputeError::invalid(
                "kl_warmup_decay",
                "choose 0 ≤ decay < 1",
            ));
        }
        if !(self.l2.is_finite() && self.l2 >= 0.0) {
            return Err(ComputeError::invalid("l2", "must be zero or positive"));
        }
        if self.first_cycle_epochs == 0 || self.cycle_growth == 0 {
            return Err(ComputeError::invalid(
                "first_cycle_epochs",
                "cycles need at least one epoch and a growth of at least 1",
            ));
        }
        if !(3..=100).contains(&self.folds) {
            return Err(ComputeError::invalid("folds", "choose 3 to 100 folds"));
        }
        if self.fold >= self.folds {
            return Err(ComputeError::invalid(
                "fold",
                format!("choose a fold from 0 to {}", self.folds - 1),
            ));
        }
        if self.patience_epochs == 0 {
            return Err(ComputeError::invalid(
                "patience_epochs",
                "must be at least 1",
            ));
        }
        self.predictive.validate()
    }

    /// The learning rate at fractional epoch `epoch` (0 at the start of training): linear
    /// warm-up, then cosine cycles from the peak to zero that restart, each `cycle_growth`
    /// times longer.
    pub fn learning_rate_at(&self, epoch: f64) -> f64 {
        let warmup = self.warmup_epochs as f64;
        if epoch < warmup {
            return self.learning_rate * (epoch + 1.0).min(warmup) / warmup;
        }
        let mut t = epoch - warmup;
        let mut cycle = self.first_cycle_epochs as f64;
        let growth = self.cycle_growth as f64;
        while t >= cycle {
            t -= cycle;
            cycle *= growth;
        }
        0.5 * self.learning_rate * (1.0 + (std::f64::consts::PI * t / cycle).cos())
    }

    /// The KL weight of epoch `epoch` (from 1): β_KL·(1 − decay^epoch).
    pub fn kl_weight(&self, epoch: usize) -> f64 {
        let exponent = i32::try_from(epoch).unwrap_or(i32::MAX);
        self.beta_kl * (1.0 - self.kl_warmup_decay.powi(exponent))
    }
}

/// Trials of each role in one cross-validation split.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Split {
    /// Training trials.
    pub train: Vec<usize>,
    /// Validation trials (early stopping).
    pub validation: Vec<usize>,
    /// Held-out test trials.
    pub test: Vec<usize>,
}

/// Shuffles the trials (seeded), cuts them into `folds` near-equal folds and returns fold `fold`
/// as the test set, the next fold as validation and the rest for training.
pub fn split(n_trials: usize, folds: usize, fold: usize, seed: u64) -> Result<Split, ComputeError> {
    if folds < 3 || fold >= folds {
        return Err(ComputeError::invalid(
            "folds",
            "need at least 3 folds and a fold below that number",
        ));
    }
    if n_trials < folds {
        return Err(ComputeError::invalid(
            "folds",
            format!("{n_trials} trials cannot fill {folds} folds"),
        ));
    }
    let mut order: Vec<usize> = (0..n_trials).collect();
    order.shuffle(&mut seeded(seed));
    let fold_of = |position: usize| position * folds / n_trials;
    let validation_fold = (fold + 1) % folds;
    let mut out = Split {
        train: Vec::new(),
        validation: Vec::new(),
        test: Vec::new(),
    };
    for (position, &trial) in order.iter().enumerate() {
        let f = fold_of(position);
        if f == fold {
            out.test.push(trial);
        } else if f == validation_fold {
            out.validation.push(trial);
        } else {
            out.train.push(trial);
        }
    }
    for part in [&mut out.train, &mut out.validation, &mut out.test] {
        part.sort_unstable();
    }
    Ok(out)
}

/// SGD with momentum (v ← μv + g, w ← w − ηv) and global-norm clipping.
#[derive(Debug)]
pub struct SgdMomentum {
    vars: Vec<Var>,
    velocities: Vec<Tensor>,
    momentum: f64,
    clip_norm: f64,
}

impl SgdMomentum {
    /// An optimiser over `vars` with zero velocities.
    pub fn new(vars: Vec<Var>, momentum: f64, clip_norm: f64) -> Result<Self, ComputeError> {
        let velocities = vars
            .iter()
            .map(|v| v.as_tensor().zeros_like())
            .collect::<Result<_, _>>()?;
        Ok(Self {
            vars,
            velocities,
            momentum,
            clip_norm,
        })
    }

    /// Backpropagates `loss`, clips the gradients to the global norm, and takes one step at
    /// `learning_rate`. Returns the gradient norm before clipping.
    pub fn step(&mut self, loss: &Tensor, learning_rate: f64) -> Result<f64, ComputeError> {
        let grads = loss.backward()?;
        let mut gradients = Vec::with_capacity(self.vars.len());
        let mut squared = 0.0f64;
        for var in &self.vars {
            // Detached: a gradient built by backward still references the forward graph, and a
            // velocity holding it would keep every step's graph alive.
            let g = match grads.get(var.as_tensor()) {
                Some(g) => g.detach(),
                None => var.as_tensor().zeros_like()?,
            };
            squared += f64::from(g.sqr()?.sum_all()?.to_scalar::<f32>()?);
            gradients.push(g);
        }
        let norm = squared.sqrt();
        if !norm.is_finite() {
            return Err(ComputeError::Numerical(
                "the gradient is not finite; lower the learning rate".into(),
            ));
        }
        let scale = if norm > self.clip_norm {
            self.clip_norm / norm
        } else {
            1.0
        };
        for ((var, velocity), g) in self.vars.iter().zip(&mut self.velocities).zip(gradients) {
            *velocity = velocity
                .affine(self.momentum, 0.0)?
                .add(&g.affine(scale, 0.0)?)?
                .detach();
            var.set(
                &var.as_tensor()
                    .detach()
                    .sub(&velocity.affine(learning_rate, 0.0)?)?,
            )?;
        }
        Ok(norm)
    }
}

/// What training did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainOutcome {
    /// Per-epoch curves.
    pub history: Vec<EpochRecord>,
    /// The epoch whose weights were kept.
    pub best_epoch: usize,
    /// Whether the patience ran out before `max_epochs`.
    pub stopped_early: bool,
}

/// Mean NLL and KL per valid bin over `trials` (in chunks), one sample from `noise_seed`.
pub fn evaluate(
    model: &FindrModel,
    data: &TrialSet,
    baseline: &[f64],
    trials: &[usize],
    noise_seed: Option<u64>,
) -> Result<(f64, f64), ComputeError> {
    const CHUNK: usize = 100;
    let device = model.readout.device().clone();
    let (mut nll, mut kl, mut bins) = (0.0, 0.0, 0.0);
    for (k, chunk) in trials.chunks(CHUNK).enumerate() {
        let batch = Batch::new(data, baseline, chunk, &device)?;
        let seed = noise_seed.map(|s| derive_seed(s, k as u64));
        let terms = model.loss(&batch, seed)?;
        let valid = batch.lengths.iter().sum::<usize>() as f64;
        nll += valid * f64::from(terms.nll.to_scalar::<f32>()?);
        kl += valid * f64::from(terms.kl.to_scalar::<f32>()?);
        bins += valid;
    }
    if bins == 0.0 {
        return Err(ComputeError::invalid("trials", "no valid bins to evaluate"));
    }
    Ok((nll / bins, kl / bins))
}

fn snapshot(vars: &[Var]) -> Result<Vec<Tensor>, ComputeError> {
    vars.iter()
        .map(|v| Ok(v.as_tensor().detach().copy()?))
        .collect::<Result<_, ComputeError>>()
}

/// Trains `model` on the split's training trials, validating each epoch, and leaves it holding
/// the best-validation weights. `on_epoch` sees every epoch's record as it completes.
#[allow(clippy::too_many_arguments)]
pub fn train(
    model: &FindrModel,
    data: &TrialSet,
    baseline: &[f64],
    split: &Split,
    params: &TrainParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
    on_epoch: &mut dyn FnMut(&EpochRecord),
) -> Result<TrainOutcome, ComputeError> {
    params.validate()?;
    if split.train.is_empty() || split.validation.is_empty() {
        return Err(ComputeError::invalid(
            "folds",
            "too few trials for training and validation sets",
        ));
    }
    let device = model.readout.device().clone();
    let vars = model.vars();
    let mut optimiser = SgdMomentum::new(vars.clone(), params.momentum, params.clip_norm)?;
    let batches_per_epoch = split.train.len().div_ceil(params.batch_trials);
    let validation_seed = derive_seed(seed, 1);
    let mut history = Vec::with_capacity(params.max_epochs);
    let mut best = (f64::INFINITY, 0usize, snapshot(&vars)?);
    let mut stopped_early = false;
    let mut order = split.train.clone();
    for epoch in 1..=params.max_epochs {
        order.shuffle(&mut seeded(derive_seed(derive_seed(seed, 2), epoch as u64)));
        let kl_weight = params.kl_weight(epoch);
        let (mut nll_sum, mut kl_sum, mut bins) = (0.0, 0.0, 0.0);
        let mut learning_rate = 0.0;
        for (k, trials) in order.chunks(params.batch_trials).enumerate() {
            cancel.check()?;
            let batch = Batch::new(data, baseline, trials, &device)?;
            let noise_seed = derive_seed(derive_seed(seed, 3), (epoch * 1_000_003 + k) as u64);
            let terms = model.loss(&batch, Some(noise_seed))?;
            let mut loss = terms.nll.add(&terms.kl.affine(kl_weight, 0.0)?)?;
            if params.l2 > 0.0 {
                loss = loss.add(&model.squared_weights()?.affine(params.l2, 0.0)?)?;
            }
            let position = (epoch - 1) as f64 + k as f64 / batches_per_epoch as f64;
            learning_rate = params.learning_rate_at(position);
            optimiser.step(&loss, learning_rate)?;
            let valid = batch.lengths.iter().sum::<usize>() as f64;
            nll_sum += valid * f64::from(terms.nll.to_scalar::<f32>()?);
            kl_sum += valid * f64::from(terms.kl.to_scalar::<f32>()?);
            bins += valid;
        }
        let (validation_nll, validation_kl) = evaluate(
            model,
            data,
            baseline,
            &split.validation,
            Some(validation_seed),
        )?;
        let validation_predictive_nll = predictive_score(
            model,
            data,
            baseline,
            &split.validation,
            &params.predictive,
            params.predictive.validation_samples,
            derive_seed(seed, 4),
        )?
        .nll;
        let record = EpochRecord {
            epoch,
            learning_rate,
            kl_weight,
            train_nll: nll_sum / bins,
            train_kl: kl_sum / bins,
            validation_nll,
            validation_kl,
            validation_predictive_nll,
        };
        if !(record.train_nll.is_finite()
            && validation_nll.is_finite()
            && validation_predictive_nll.is_finite())
        {
            return Err(ComputeError::Numerical(format!(
                "the loss became non-finite at epoch {epoch}; lower the learning rate"
            )));
        }
        history.push(record);
        on_epoch(&record);
        let validation_loss = match params.select_by {
            Selection::HeldOutPredictive => validation_predictive_nll,
            Selection::Elbo => validation_nll + params.beta_kl * validation_kl,
        };
        if validation_loss < best.0 {
            best = (validation_loss, epoch, snapshot(&vars)?);
        }
        progress.set(
            epoch as f64 / params.max_epochs as f64,
            format!(
                "epoch {epoch}/{}: validation NLL {validation_nll:.4}, KL {validation_kl:.4}, \
                 predictive NLL {validation_predictive_nll:.4}",
                params.max_epochs
            ),
        );
        if epoch - best.1 >= params.patience_epochs {
            stopped_early = epoch < params.max_epochs;
            break;
        }
    }
    for (var, value) in vars.iter().zip(&best.2) {
        var.set(value)?;
    }
    Ok(TrainOutcome {
        history,
        best_epoch: best.1,
        stopped_early,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_warms_up_then_follows_cosine_cycles_that_double() {
        let p = TrainParams {
            learning_rate: 0.1,
            warmup_epochs: 10,
            first_cycle_epochs: 20,
            cycle_growth: 2,
            ..TrainParams::default()
        };
        assert!((p.learning_rate_at(0.0) - 0.01).abs() < 1e-12);
        assert!((p.learning_rate_at(9.0) - 0.1).abs() < 1e-12);
        assert!((p.learning_rate_at(10.0) - 0.1).abs() < 1e-12);
        // Half way through the first cycle: half the peak; the restart returns to the peak.
        assert!((p.learning_rate_at(20.0) - 0.05).abs() < 1e-12);
        assert!(p.learning_rate_at(29.99) < 1e-5);
        assert!((p.learning_rate_at(30.0) - 0.1).abs() < 1e-12);
        // The second cycle is 40 epochs long: its middle is at 30 + 20.
        assert!((p.learning_rate_at(50.0) - 0.05).abs() < 1e-12);
        assert!((p.learning_rate_at(70.0) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn kl_weight_rises_to_beta() {
        let p = TrainParams::paper();
        assert!((p.kl_weight(1) - 2.0 * 0.01).abs() < 1e-12);
        assert!((p.kl_weight(100) - 2.0 * (1.0 - 0.99f64.powi(100))).abs() < 1e-12);
        assert!(p.kl_weight(3000) > 1.999_99);
    }

    #[test]
    fn folds_partition_the_trials() {
        let s = split(103, 5, 4, 17).unwrap();
        let mut all: Vec<usize> = s
            .train
            .iter()
            .chain(&s.validation)
            .chain(&s.test)
            .copied()
            .collect();
        all.sort_unstable();
        assert_eq!(all, (0..103).collect::<Vec<_>>());
        assert!((20..=21).contains(&s.test.len()));
        assert!((20..=21).contains(&s.validation.len()));
        // Fold 4's validation set is fold 0, which is fold 0's test set.
        assert_eq!(split(103, 5, 0, 17).unwrap().test, s.validation);
        assert!(split(4, 5, 0, 1).is_err());
        assert!(split(10, 5, 5, 1).is_err());
    }

    #[test]
    fn momentum_step_matches_the_update_rule_and_clips() {
        let device = candle_core::Device::Cpu;
        let w = Var::new(&[1.0f32, -2.0], &device).unwrap();
        let mut sgd = SgdMomentum::new(vec![w.clone()], 0.9, 100.0).unwrap();
        // loss = Σ w²: gradient 2w.
        let loss = w.as_tensor().sqr().unwrap().sum_all().unwrap();
        let norm = sgd.step(&loss, 0.1).unwrap();
        assert!((norm - (4.0f64 + 16.0).sqrt()).abs() < 1e-5);
        let after: Vec<f32> = w.as_tensor().to_vec1().unwrap();
        assert!((after[0] - 0.8).abs() < 1e-6 && (after[1] + 1.6).abs() < 1e-6);
        // Second step: v = 0.9·(2, −4) + (1.6, −3.2) = (3.4, −6.8).
        let loss = w.as_tensor().sqr().unwrap().sum_all().unwrap();
        sgd.step(&loss, 0.1).unwrap();
        let after: Vec<f32> = w.as_tensor().to_vec1().unwrap();
        assert!((after[0] - 0.46).abs() < 1e-5 && (after[1] + 0.92).abs() < 1e-5);
        // Clipping: with clip 1 the first step moves w by lr·g/|g|.
        let w = Var::new(&[3.0f32, 4.0], &device).unwrap();
        let mut sgd = SgdMomentum::new(vec![w.clone()], 0.0, 1.0).unwrap();
        let loss = w.as_tensor().sqr().unwrap().sum_all().unwrap();
        sgd.step(&loss, 1.0).unwrap();
        let after: Vec<f32> = w.as_tensor().to_vec1().unwrap();
        assert!((after[0] - 2.4).abs() < 1e-5 && (after[1] - 3.2).abs() < 1e-5);
    }
}
