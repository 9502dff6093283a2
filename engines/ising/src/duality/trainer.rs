//! The training loop as a stepper, so a live view can draw every step.

use std::collections::VecDeque;

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError};
use candle_core::Device;

use super::adam::Adam;
use super::map::{DualBatch, MapObjective, MapParameters, candidate_table, gumbel_noise};
use super::score::{
    COUPLING_COUNT, CouplingGradient, hamiltonian_terms, joint_matrix, solve_ridge,
};
use super::{DualityParams, DualityResult, DualityStep, MAX_DUAL_BETA, MAX_DUAL_PLAQUETTE};
use crate::couplings::Couplings;
use crate::lattice::SpinConfig;
use crate::links::{CORRELATOR_COUNT, correlators};
use crate::single_spin::sample_configs;

/// Random streams of one step (sub-streams of the step's seed).
const STREAM_ORIGINAL: u64 = 0;
const STREAM_DUAL: u64 = 1;
const STREAM_GUMBEL: u64 = 2;
const STREAM_INNER: u64 = 3;

/// Learns the dual couplings and the observable map one step at a time.
#[derive(Debug)]
pub struct DualityTrainer {
    params: DualityParams,
    seed: u64,
    device: Device,
    table: Vec<u32>,
    objective: MapObjective,
    /// Current couplings θ = (β̃, K̃).
    theta: [f64; COUPLING_COUNT],
    map: MapParameters,
    theta_adam: Adam,
    map_adam: Adam,
    /// Σ over steps of the original model's per-step mean correlators.
    target_sum: [f64; CORRELATOR_COUNT],
    /// Exponential moving average of the Gauss–Newton matrix (the preconditioner).
    hessian: Option<Vec<Vec<f64>>>,
    /// The last `loss_smoothing_steps` losses.
    recent_losses: VecDeque<f64>,
    /// Their median (the plateau schedule watches it).
    smoothed_loss: f64,
    best_loss: f64,
    steps_since_best: usize,
    steps_since_lr_change: usize,
    finished: bool,
    stopped_early: bool,
    history: Vec<DualityStep>,
}

impl DualityTrainer {
    /// A trainer at the starting point of `params`; every random number derives from `seed`.
    pub fn new(params: &DualityParams, seed: u64) -> Result<Self, ComputeError> {
        params.validate()?;
        let device = Device::Cpu;
        let objective = MapObjective::new(
            params.size,
            [0.0; CORRELATOR_COUNT],
            params.penalty,
            &device,
        )?;
        let map = MapParameters::new(params.initial_weight, params.initial_bias);
        Ok(Self {
            params: params.clone(),
            seed,
            table: candidate_table(params.size),
            objective,
            device,
            theta: [params.initial_dual_beta, params.initial_dual_plaquette],
            theta_adam: Adam::new(COUPLING_COUNT, params.learning_rate),
            map_adam: Adam::new(map.to_vec().len(), params.map_learning_rate),
            map,
            target_sum: [0.0; CORRELATOR_COUNT],
            hessian: None,
            recent_losses: VecDeque::new(),
            smoothed_loss: f64::NAN,
            best_loss: f64::INFINITY,
            steps_since_best: 0,
            steps_since_lr_change: 0,
            finished: false,
            stopped_early: false,
            history: Vec::new(),
        })
    }

    /// The parameters this trainer runs with.
    pub fn params(&self) -> &DualityParams {
        &self.params
    }

    /// Whether training has ended (step cap reached or stopped early).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Every step so far.
    pub fn history(&self) -> &[DualityStep] {
        &self.history
    }

    /// The current dual couplings.
    pub fn dual_couplings(&self) -> Couplings {
        Couplings {
            beta: self.theta[0],
            plaquette: self.theta[1],
        }
    }

    /// The current map parameters ψ.
    pub fn map(&self) -> MapParameters {
        self.map
    }

    /// The Gumbel-softmax temperature at step `step`.
    fn tau_at(&self, step: usize) -> f64 {
        let decay = self
            .params
            .tau_decay
            .powi(i32::try_from(step).unwrap_or(i32::MAX));
        (self.params.tau * decay).max(self.params.tau_min)
    }

    /// One training step (see the module docs); returns what the live view draws.
    pub fn step(&mut self, cancel: &CancelToken) -> Result<DualityStep, ComputeError> {
        if self.finished {
            return Err(ComputeError::invalid(
                "max_steps",
                "training has already finished; start a new trainer",
            ));
        }
        cancel.check()?;
        let p = &self.params;
        let step = self.history.len();
        let step_seed = derive_seed(self.seed, step as u64);
        let dual_couplings = self.dual_couplings();
        let sample = |couplings: Couplings, stream: u64| {
            sample_configs(
                p.size,
                couplings,
                p.samples_per_step,
                p.warmup_per_site,
                p.thin_per_site,
                derive_seed(step_seed, stream),
                p.chains,
                cancel,
            )
        };
        let (original, dual) = rayon::join(
            || sample(p.original(), STREAM_ORIGINAL),
            || sample(dual_couplings, STREAM_DUAL),
        );
        let (original, dual) = (original?, dual?);

        // Running mean F̄ of the original correlators.
        let step_mean = mean_correlators(&original);
        for (sum, value) in self.target_sum.iter_mut().zip(step_mean) {
            *sum += value;
        }
        #[allow(clippy::cast_precision_loss)]
        let steps_seen = (step + 1) as f64;
        self.objective.target = self.target_sum.map(|s| s / steps_seen);

        // Loss and ∂L/∂ψ on the dual samples.
        let batch = DualBatch::new(&dual, p.size, &self.table, &p.chain_sizes(), &self.device)?;
        let tau = self.tau_at(step);
        let noise = gumbel_noise(&mut seeded(derive_seed(step_seed, STREAM_GUMBEL)))?;
        if step == 0 && p.calibrate_bias {
            // b₀ = F̄_link − w₀·⟨x⟩: the mapped mean link starts at the original's.
            let mean_link = 0.5 * (self.objective.target[0] + self.objective.target[1]);
            let mixed_link = batch.mean_mixed_link(&self.map.attention_with_noise(&noise, tau));
            self.map.bias = mean_link - self.map.weight * mixed_link;
        }
        let evaluation =
            self.objective
                .evaluate(&batch, &self.map, &noise, tau, p.unbiased_loss, true)?;
        let map_gradient = evaluation.gradient.ok_or_else(|| {
            ComputeError::Numerical("the map loss returned no gradient".to_owned())
        })?;

        // ∂L/∂θ by the score function, Gauss–Newton preconditioned, Adam, damped.
        let terms: Vec<[f64; COUPLING_COUNT]> = dual.iter().map(hamiltonian_terms).collect();
        let coupling_gradient = if p.unbiased_loss {
            CouplingGradient::estimate_grouped(
                &terms,
                &evaluation.per_sample,
                batch.groups(),
                &self.objective.target,
            )?
        } else {
            CouplingGradient::estimate(
                &terms,
                &evaluation.per_sample,
                None,
                &self.objective.target,
            )?
        };
        let learned = p.learned();
        let map_jacobian = p
            .precondition_with_map
            .then(|| batch.affine_jacobian(&evaluation.mixed, self.map.weight, self.map.bias));
        let matrix = joint_matrix(&coupling_gradient.jacobian, learned, map_jacobian.as_ref());
        #[allow(clippy::cast_precision_loss)]
        let alpha = 1.0 / p.hessian_smoothing_steps as f64;
        let smoothed = match self.hessian.take() {
            Some(previous) if previous.len() == matrix.len() => previous
                .iter()
                .zip(&matrix)
                .map(|(old, new)| {
                    old.iter()
                        .zip(new)
                        .map(|(o, n)| (1.0 - alpha) * o + alpha * n)
                        .collect()
                })
                .collect(),
            _ => matrix,
        };
        let mut joint_gradient: Vec<f64> = (0..COUPLING_COUNT)
            .filter(|&a| learned[a])
            .map(|a| coupling_gradient.gradient[a])
            .collect();
        if map_jacobian.is_some() {
            joint_gradient.push(map_gradient.weight);
            joint_gradient.push(map_gradient.bias);
        }
        // Levenberg–Marquardt damping: (M + λ·diag M) s = g keeps the joint step from
        // extrapolating far along the valley when the state is off its floor.
        let damped: Vec<Vec<f64>> = smoothed
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let mut row = row.clone();
                row[i] *= 1.0 + p.marquardt_damping;
                row
            })
            .collect();
        let solution = solve_ridge(&damped, &joint_gradient).ok_or_else(|| {
            ComputeError::Numerical(format!(
                "the Gauss–Newton system of step {step} is singular"
            ))
        })?;
        self.hessian = Some(smoothed);
        let mut direction = [0.0; COUPLING_COUNT];
        for (slot, a) in (0..COUPLING_COUNT).filter(|&a| learned[a]).enumerate() {
            direction[a] = solution[slot];
        }
        let direction = direction.map(|d| d.clamp(-p.max_coupling_step, p.max_coupling_step));
        let previous = self.theta;
        let mut proposed = self.theta;
        if step >= p.coupling_warmup_steps {
            self.theta_adam.step(&mut proposed, &direction);
        }
        for a in 0..COUPLING_COUNT {
            self.theta[a] = (1.0 - p.damping) * proposed[a] + p.damping * previous[a];
        }
        self.theta[0] = self.theta[0].clamp(0.0, MAX_DUAL_BETA);
        self.theta[1] = self.theta[1].clamp(-MAX_DUAL_PLAQUETTE, MAX_DUAL_PLAQUETTE);
        if !p.learn_plaquette {
            self.theta[1] = p.initial_dual_plaquette;
        }

        // Adam on ψ.
        let record = DualityStep {
            step,
            dual_beta: dual_couplings.beta,
            dual_plaquette: dual_couplings.plaquette,
            loss: evaluation.loss,
            fit_loss: evaluation.fit,
            plain_fit_loss: evaluation.plain_fit,
            penalty_term: evaluation.penalty_term,
            attention: self.map.attention(tau).to_vec(),
            w: self.map.weight,
            b: self.map.bias,
            learning_rate: self.theta_adam.learning_rate,
            map_learning_rate: self.map_adam.learning_rate,
            tau,
            target_correlators: self.objective.target,
            mapped_correlators: evaluation.mapped,
        };
        let mut psi = self.map.to_vec();
        self.map_adam.step(&mut psi, &map_gradient.to_vec());
        self.map = MapParameters::from_slice(&psi)?;
        // Extra map updates on this batch (after the coupling gradient was taken, so that the
        // coupling step never sees a map fitted to its own samples).
        let mut inner_rng = seeded(derive_seed(step_seed, STREAM_INNER));
        for _ in 1..p.map_steps_per_step {
            let inner_noise = gumbel_noise(&mut inner_rng)?;
            let inner = self.objective.evaluate(
                &batch,
                &self.map,
                &inner_noise,
                tau,
                p.unbiased_loss,
                true,
            )?;
            let gradient = inner.gradient.ok_or_else(|| {
                ComputeError::Numerical("the map loss returned no gradient".to_owned())
            })?;
            let mut psi = self.map.to_vec();
            self.map_adam.step(&mut psi, &gradient.to_vec());
            self.map = MapParameters::from_slice(&psi)?;
        }
        if !(self.map.weight.is_finite() && self.map.bias.is_finite() && self.theta[0].is_finite())
        {
            return Err(ComputeError::Numerical(format!(
                "training diverged at step {step} (w = {}, b = {}, β̃ = {})",
                self.map.weight, self.map.bias, self.theta[0]
            )));
        }

        // Plateau schedule and stopping.
        // The schedule watches the median of the recent losses: the per-step loss is
        // heavy-tailed (rare large mapped products), and one outlier must not set a record
        // that nothing beats for hundreds of steps.
        self.recent_losses.push_back(evaluation.loss);
        if self.recent_losses.len() > p.loss_smoothing_steps {
            self.recent_losses.pop_front();
        }
        self.smoothed_loss = median(self.recent_losses.iter().copied());
        if self.smoothed_loss < self.best_loss {
            self.best_loss = self.smoothed_loss;
            self.steps_since_best = 0;
            self.steps_since_lr_change = 0;
        } else {
            self.steps_since_best += 1;
            self.steps_since_lr_change += 1;
        }
        if self.steps_since_lr_change >= p.lr_patience_steps {
            self.theta_adam.learning_rate *= 0.5;
            self.map_adam.learning_rate *= 0.5;
            self.steps_since_lr_change = 0;
        }
        if self.steps_since_best >= p.stop_patience_steps {
            self.finished = true;
            self.stopped_early = true;
        }
        if step + 1 >= p.max_steps {
            self.finished = true;
        }
        self.history.push(record.clone());
        Ok(record)
    }

    /// The result so far: averages over the final `averaging_window` steps.
    pub fn result(&self) -> DualityResult {
        let p = &self.params;
        let window_len = p.averaging_window.min(self.history.len());
        let window = &self.history[self.history.len() - window_len..];
        let (dual_beta, dual_beta_error) =
            mean_and_spread(window.iter().map(|s| s.dual_beta)).unwrap_or((self.theta[0], 0.0));
        let (dual_plaquette, dual_plaquette_error) =
            mean_and_spread(window.iter().map(|s| s.dual_plaquette))
                .unwrap_or((self.theta[1], 0.0));
        let w = mean_and_spread(window.iter().map(|s| s.w)).map_or(self.map.weight, |m| m.0);
        let b = mean_and_spread(window.iter().map(|s| s.b)).map_or(self.map.bias, |m| m.0);
        let final_loss = mean_and_spread(window.iter().map(|s| s.loss)).map_or(f64::NAN, |m| m.0);
        let mapped_correlators = std::array::from_fn(|m| {
            mean_and_spread(window.iter().map(|s| s.mapped_correlators[m]))
                .map_or(f64::NAN, |v| v.0)
        });
        #[allow(clippy::cast_precision_loss)]
        let steps_seen = self.history.len().max(1) as f64;
        DualityResult {
            dual_beta,
            dual_beta_error,
            dual_plaquette,
            dual_plaquette_error,
            w,
            b,
            attention: self.map.attention(self.tau_at(self.history.len())).to_vec(),
            final_loss,
            steps: self.history.len(),
            stopped_early: self.stopped_early,
            analytic: p.analytic(),
            target_correlators: self.target_sum.map(|s| s / steps_seen),
            mapped_correlators,
        }
    }
}

/// Mean of the 13 correlators over a set of configurations.
pub(super) fn mean_correlators(configs: &[SpinConfig]) -> [f64; CORRELATOR_COUNT] {
    let mut sum = [0.0; CORRELATOR_COUNT];
    for config in configs {
        for (s, f) in sum.iter_mut().zip(correlators(config)) {
            *s += f;
        }
    }
    #[allow(clippy::cast_precision_loss)]
    let n = configs.len().max(1) as f64;
    sum.map(|s| s / n)
}

/// Median of a non-empty sequence (NaN when empty).
fn median(values: impl Iterator<Item = f64>) -> f64 {
    let mut sorted: Vec<f64> = values.collect();
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        0.5 * (sorted[mid - 1] + sorted[mid])
    }
}

/// Mean and standard deviation (n − 1 denominator; 0 for one value); `None` when empty.
fn mean_and_spread(values: impl Iterator<Item = f64> + Clone) -> Option<(f64, f64)> {
    let n = values.clone().count();
    if n == 0 {
        return None;
    }
    #[allow(clippy::cast_precision_loss)]
    let count = n as f64;
    let mean = values.clone().sum::<f64>() / count;
    let spread = if n > 1 {
        (values.map(|v| (v - mean).powi(2)).sum::<f64>() / (count - 1.0)).sqrt()
    } else {
        0.0
    };
    Some((mean, spread))
}
