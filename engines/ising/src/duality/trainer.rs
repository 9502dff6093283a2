//! The training loop as a stepper, so a live view can draw every step.

use std::collections::VecDeque;
use std::ops::Range;

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError};
use candle_core::Device;
use rayon::prelude::*;

use super::map::{
    CANDIDATE_COUNT, DualBatch, MapEvaluation, MapObjective, MapParameters, PatternPool, apply_map,
    candidate_table, gumbel_noise,
};
use super::refine::{Refinement, ScanSetup, ScanTarget, refine, to_forward, u_statistic};
use super::score::{
    COUPLING_COUNT, CouplingGradient, hamiltonian_terms, joint_matrix, solve_ridge,
};
use super::{
    Direction, DualityParams, DualityResult, DualityStep, MAX_DUAL_BETA, MAX_DUAL_PLAQUETTE,
};
use crate::couplings::Couplings;
use crate::lattice::{SpinConfig, Start};
use crate::links::{CORRELATOR_COUNT, LinkField, correlators, link_correlators};
use crate::single_spin::{SingleSpinMetropolis, sample_configs};
use benchtop_learn::adam::Adam;

/// Random streams of one step (sub-streams of the step's seed).
const STREAM_DUAL: u64 = 1;
const STREAM_GUMBEL: u64 = 2;
const STREAM_INNER: u64 = 3;
/// Streams of the run's seed beyond every step index: the persistent original chains and the
/// final scan.
const STREAM_ORIGINAL_CHAINS: u64 = u64::MAX;
const STREAM_REFINE: u64 = u64::MAX - 1;

/// The reverse direction's ceiling on β̃ drops to this fraction of a β̃ at which the learned
/// model was measured on the ordered side.
const CEILING_RATCHET: f64 = 0.98;

/// Persistent single-spin Metropolis chains of the original model. The original never changes,
/// so its chains continue from step to step: one warm-up in the first step, then only the
/// thinning between samples.
#[derive(Clone, Debug)]
struct OriginalChains {
    samplers: Vec<SingleSpinMetropolis>,
    warmed: bool,
}

impl OriginalChains {
    fn new(params: &DualityParams, seed: u64) -> Result<Self, ComputeError> {
        let samplers = (0..params.chains)
            .map(|chain| {
                let start = SpinConfig::new(params.size, Start::Cold, 0)?;
                SingleSpinMetropolis::new(start, params.original(), derive_seed(seed, chain as u64))
            })
            .collect::<Result<_, ComputeError>>()?;
        Ok(Self {
            samplers,
            warmed: false,
        })
    }

    /// `n` samples, chain by chain in chain order (chain c gives ⌊n/chains⌋, plus one if
    /// c < n mod chains), `thin` updates apart; the first call warms up with `warmup` updates.
    fn draw(
        &mut self,
        n: usize,
        warmup: u64,
        thin: u64,
        cancel: &CancelToken,
    ) -> Result<Vec<SpinConfig>, ComputeError> {
        let chains = self.samplers.len();
        let warm_up = !self.warmed;
        let blocks: Vec<Vec<SpinConfig>> = self
            .samplers
            .par_iter_mut()
            .enumerate()
            .map(|(chain, sampler)| {
                let count = n / chains + usize::from(chain < n % chains);
                if warm_up {
                    sampler.update(warmup);
                }
                let mut samples = Vec::with_capacity(count);
                for index in 0..count {
                    cancel.check()?;
                    if !(warm_up && index == 0) {
                        sampler.update(thin);
                    }
                    samples.push(sampler.config().clone());
                }
                Ok(samples)
            })
            .collect::<Result<_, ComputeError>>()?;
        self.warmed = true;
        Ok(blocks.into_iter().flatten().collect())
    }
}

/// What one direction's half of a step hands to the shared update.
struct Update {
    evaluation: MapEvaluation,
    /// The fit part that the step reports (unbiased or plain).
    fit: f64,
    coupling_gradient: CouplingGradient,
    /// Columns of the map's (w, b) in the joint Gauss–Newton system, signed like the coupling
    /// column.
    map_jacobian: Option<[[f64; 2]; CORRELATOR_COUNT]>,
    /// The batch the map is fitted on (for the extra map updates).
    batch: DualBatch,
    /// The original model's correlators (for display).
    display_target: [f64; CORRELATOR_COUNT],
    /// The dual samples mapped to original links (for display).
    display_mapped: [f64; CORRELATOR_COUNT],
}

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
    /// The map in the trainer's own convention: dual → original links (forward) or
    /// original → learned-model links (reverse).
    map: MapParameters,
    theta_adam: Adam,
    map_adam: Adam,
    /// Persistent chains of the original model.
    original_chains: OriginalChains,
    /// Σ over all original samples of their correlators, and their number.
    original_sum: [f64; CORRELATOR_COUNT],
    original_count: usize,
    /// The direction, resolved at step 0.
    direction: Option<Direction>,
    /// The pooled original samples (reverse direction).
    pool: Option<PatternPool>,
    /// Upper bound on β̃ (the reverse direction's ratchet, see [`Direction::Reverse`]).
    theta_ceiling: f64,
    /// Mean link ⟨o⟩ of the last step's samples at θ (sizes the final scan).
    last_dual_link: f64,
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
    refinement: Option<Refinement>,
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
            theta: [
                if params.direction == Direction::Reverse {
                    params.reverse_initial_dual_beta
                } else {
                    params.initial_dual_beta
                },
                params.initial_dual_plaquette,
            ],
            theta_adam: Adam::new(COUPLING_COUNT, params.learning_rate),
            map_adam: Adam::new(map.to_vec().len(), params.map_learning_rate),
            map,
            original_chains: OriginalChains::new(
                params,
                derive_seed(seed, STREAM_ORIGINAL_CHAINS),
            )?,
            original_sum: [0.0; CORRELATOR_COUNT],
            original_count: 0,
            direction: match params.direction {
                Direction::Auto => None,
                fixed => Some(fixed),
            },
            pool: None,
            theta_ceiling: MAX_DUAL_BETA,
            last_dual_link: 0.0,
            hessian: None,
            recent_losses: VecDeque::new(),
            smoothed_loss: f64::NAN,
            best_loss: f64::INFINITY,
            steps_since_best: 0,
            steps_since_lr_change: 0,
            finished: false,
            stopped_early: false,
            history: Vec::new(),
            refinement: None,
        })
    }

    /// The parameters this trainer runs with.
    pub fn params(&self) -> &DualityParams {
        &self.params
    }

    /// Whether training has ended (step cap reached or stopped early; the final scan, if any,
    /// has run).
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Every step so far.
    pub fn history(&self) -> &[DualityStep] {
        &self.history
    }

    /// The direction in use: `Forward` or `Reverse` once step 0 has resolved `Auto`, `None`
    /// before that when the parameters ask for `Auto`.
    pub fn direction(&self) -> Option<Direction> {
        self.direction
    }

    /// The final profile scan, once training has finished (when `refine_points` > 0).
    pub fn refinement(&self) -> Option<&Refinement> {
        self.refinement.as_ref()
    }

    /// The current dual couplings.
    pub fn dual_couplings(&self) -> Couplings {
        Couplings {
            beta: self.theta[0],
            plaquette: self.theta[1],
        }
    }

    /// The current map parameters ψ in the trainer's own convention: dual → original links in
    /// the forward direction, original → learned-model links in the reverse one (the steps and
    /// the result report (w, b) in the forward convention).
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

    fn reverse(&self) -> bool {
        self.direction == Some(Direction::Reverse)
    }

    /// The running mean of the original model's correlators.
    fn original_mean(&self) -> [f64; CORRELATOR_COUNT] {
        let count = self.original_count.max(1) as f64;
        self.original_sum.map(|s| s / count)
    }

    /// One training step (see the module docs); returns what the live view draws. The step
    /// that ends training also runs the final profile scan when `refine_points` > 0.
    pub fn step(&mut self, cancel: &CancelToken) -> Result<DualityStep, ComputeError> {
        if self.finished {
            return Err(ComputeError::invalid(
                "max_steps",
                "training has already finished; start a new trainer",
            ));
        }
        cancel.check()?;
        let step = self.history.len();
        let step_seed = derive_seed(self.seed, step as u64);
        let dual_couplings = self.dual_couplings();
        let original_samples = if self.reverse() {
            self.params.reverse_pool_samples_per_step
        } else {
            self.params.samples_per_step
        };
        let (original, dual) = {
            let p = &self.params;
            let sites = (p.size * p.size) as u64;
            let chains = &mut self.original_chains;
            rayon::join(
                || {
                    chains.draw(
                        original_samples,
                        p.warmup_per_site.saturating_mul(sites),
                        p.thin_per_site.saturating_mul(sites),
                        cancel,
                    )
                },
                || {
                    sample_configs(
                        p.size,
                        dual_couplings,
                        p.samples_per_step,
                        p.warmup_per_site,
                        p.thin_per_site,
                        derive_seed(step_seed, STREAM_DUAL),
                        p.chains,
                        cancel,
                    )
                },
            )
        };
        let (original, dual) = (original?, dual?);
        for config in &original {
            for (sum, value) in self.original_sum.iter_mut().zip(correlators(config)) {
                *sum += value;
            }
        }
        self.original_count += original.len();
        let direction = match self.direction {
            Some(direction) => direction,
            None => {
                let mean = self.original_mean();
                let link = 0.5 * (mean[0] + mean[1]);
                // The reverse direction relies on the involution of K = 0 duality.
                let plain_ising = self.params.plaquette == 0.0 && !self.params.learn_plaquette;
                let resolved = if plain_ising && link > self.params.auto_link_threshold {
                    Direction::Reverse
                } else {
                    Direction::Forward
                };
                self.direction = Some(resolved);
                resolved
            }
        };
        let mut dual = dual;
        let mut dual_couplings = dual_couplings;
        if step == 0
            && direction == Direction::Reverse
            && self.theta[0] != self.params.reverse_initial_dual_beta
        {
            // The reverse search starts on the disordered side.
            self.theta[0] = self.params.reverse_initial_dual_beta;
            dual_couplings = self.dual_couplings();
            let p = &self.params;
            dual = sample_configs(
                p.size,
                dual_couplings,
                p.samples_per_step,
                p.warmup_per_site,
                p.thin_per_site,
                derive_seed(step_seed, STREAM_DUAL),
                p.chains,
                cancel,
            )?;
        }

        let terms: Vec<[f64; COUPLING_COUNT]> = dual.iter().map(hamiltonian_terms).collect();
        let dual_links = (dual.len() * 2 * self.params.size * self.params.size).max(1) as f64;
        self.last_dual_link = -terms.iter().map(|t| t[0]).sum::<f64>() / dual_links;
        let tau = self.tau_at(step);
        let noise = gumbel_noise(&mut seeded(derive_seed(step_seed, STREAM_GUMBEL)))?;
        let update = if direction == Direction::Reverse {
            self.reverse_update(&original, &dual, &terms, step, &noise, tau)?
        } else {
            self.forward_update(&dual, &terms, step, &noise, tau)?
        };
        let p = &self.params;
        let evaluation = &update.evaluation;
        let map_gradient = evaluation.gradient.ok_or_else(|| {
            ComputeError::Numerical("the map loss returned no gradient".to_owned())
        })?;

        // The coupling step: Gauss–Newton preconditioned, Adam, damped.
        let learned = p.learned();
        let coupling_gradient = &update.coupling_gradient;
        let matrix = joint_matrix(
            &coupling_gradient.jacobian,
            learned,
            update.map_jacobian.as_ref(),
        );
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
        if update.map_jacobian.is_some() {
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
        let mut direction_step = [0.0; COUPLING_COUNT];
        for (slot, a) in (0..COUPLING_COUNT).filter(|&a| learned[a]).enumerate() {
            direction_step[a] = solution[slot];
        }
        let direction_step =
            direction_step.map(|d| d.clamp(-p.max_coupling_step, p.max_coupling_step));
        let previous = self.theta;
        let mut proposed = self.theta;
        if step >= p.coupling_warmup_steps {
            self.theta_adam.step(&mut proposed, &direction_step);
        }
        for a in 0..COUPLING_COUNT {
            self.theta[a] = (1.0 - p.damping) * proposed[a] + p.damping * previous[a];
        }
        self.theta[0] = self.theta[0].clamp(0.0, self.theta_ceiling);
        self.theta[1] = self.theta[1].clamp(-MAX_DUAL_PLAQUETTE, MAX_DUAL_PLAQUETTE);
        if !p.learn_plaquette {
            self.theta[1] = p.initial_dual_plaquette;
        }

        let (w, b) = to_forward(
            direction == Direction::Reverse,
            self.map.weight,
            self.map.bias,
        );
        let record = DualityStep {
            step,
            dual_beta: dual_couplings.beta,
            dual_plaquette: dual_couplings.plaquette,
            loss: update.fit + evaluation.penalty_term,
            fit_loss: update.fit,
            plain_fit_loss: evaluation.plain_fit,
            penalty_term: evaluation.penalty_term,
            attention: self.map.attention(tau).to_vec(),
            w,
            b,
            learning_rate: self.theta_adam.config.learning_rate,
            map_learning_rate: self.map_adam.config.learning_rate,
            tau,
            target_correlators: update.display_target,
            mapped_correlators: update.display_mapped,
        };

        // Adam on ψ.
        let mut psi = self.map.to_vec();
        self.map_adam.step(&mut psi, &map_gradient.to_vec());
        self.map = MapParameters::from_slice(&psi)?;
        // Extra map updates on this batch (after the coupling gradient was taken, so that the
        // coupling step never sees a map fitted to its own samples).
        let mut inner_rng = seeded(derive_seed(step_seed, STREAM_INNER));
        let inner_unbiased = p.unbiased_loss && direction == Direction::Forward;
        for _ in 1..p.map_steps_per_step {
            let inner_noise = gumbel_noise(&mut inner_rng)?;
            let inner = self.objective.evaluate(
                &update.batch,
                &self.map,
                &inner_noise,
                tau,
                inner_unbiased,
                true,
            )?;
            let gradient = inner.gradient.ok_or_else(|| {
                ComputeError::Numerical("the map loss returned no gradient".to_owned())
            })?;
            let mut psi = self.map.to_vec();
            self.map_adam.step(&mut psi, &gradient.to_vec());
            self.map = MapParameters::from_slice(&psi)?;
        }
        if !(self.map.weight.is_finite()
            && self.map.bias.is_finite()
            && self.map.weight != 0.0
            && self.theta[0].is_finite())
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
        self.recent_losses.push_back(record.loss);
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
            self.theta_adam.config.learning_rate *= 0.5;
            self.map_adam.config.learning_rate *= 0.5;
            self.steps_since_lr_change = 0;
        }
        let mut finished = false;
        if self.steps_since_best >= p.stop_patience_steps {
            finished = true;
            self.stopped_early = true;
        }
        if step + 1 >= p.max_steps {
            finished = true;
        }
        self.history.push(record.clone());
        if finished && p.refine_points > 0 {
            self.refinement = Some(self.scan(cancel)?);
        }
        self.finished = finished;
        Ok(record)
    }

    /// The forward half of a step: dual samples mapped to original links, compared with F̄.
    fn forward_update(
        &mut self,
        dual: &[SpinConfig],
        terms: &[[f64; COUPLING_COUNT]],
        step: usize,
        noise: &[f64; CANDIDATE_COUNT],
        tau: f64,
    ) -> Result<Update, ComputeError> {
        let p = &self.params;
        self.objective.target = self.original_mean();
        let batch = DualBatch::new(dual, p.size, &self.table, &p.chain_sizes(), &self.device)?;
        if step == 0 && p.calibrate_bias {
            // b₀ = F̄_link − w₀·⟨x⟩: the mapped mean link starts at the original's.
            let mean_link = 0.5 * (self.objective.target[0] + self.objective.target[1]);
            let mixed_link = batch.mean_mixed_link(&self.map.attention_with_noise(noise, tau));
            self.map.bias = mean_link - self.map.weight * mixed_link;
        }
        let evaluation =
            self.objective
                .evaluate(&batch, &self.map, noise, tau, p.unbiased_loss, true)?;
        let coupling_gradient = if p.unbiased_loss {
            CouplingGradient::estimate_grouped(
                terms,
                &evaluation.per_sample,
                batch.groups(),
                &self.objective.target,
            )?
        } else {
            CouplingGradient::estimate(terms, &evaluation.per_sample, None, &self.objective.target)?
        };
        let map_jacobian = p
            .precondition_with_map
            .then(|| batch.affine_jacobian(&evaluation.mixed, self.map.weight, self.map.bias));
        Ok(Update {
            fit: evaluation.fit,
            display_target: self.objective.target,
            display_mapped: evaluation.mapped,
            coupling_gradient,
            map_jacobian,
            batch,
            evaluation,
        })
    }

    /// The reverse half of a step: the pooled original samples mapped to learned-model links,
    /// compared with the correlators of the learned model's own samples at θ.
    fn reverse_update(
        &mut self,
        original: &[SpinConfig],
        dual: &[SpinConfig],
        terms: &[[f64; COUPLING_COUNT]],
        step: usize,
        noise: &[f64; CANDIDATE_COUNT],
        tau: f64,
    ) -> Result<Update, ComputeError> {
        let p = &self.params;
        if self.pool.is_none() {
            self.pool = Some(PatternPool::new(p.size)?);
        }
        let batch = match &mut self.pool {
            Some(pool) => {
                pool.add(original)?;
                pool.batch(&self.device)?
            }
            None => {
                return Err(ComputeError::Numerical(
                    "the reverse direction has no sample pool".to_owned(),
                ));
            }
        };
        // The learned model's correlators: the target, and its per-chain parts.
        let rows: Vec<[f64; CORRELATOR_COUNT]> = dual.iter().map(correlators).collect();
        let groups = chain_ranges(&p.chain_sizes());
        let target = mean_rows(&rows, 0..rows.len());
        self.objective.target = target;
        if 0.5 * (target[0] + target[1]) > p.auto_link_threshold {
            // The learned model crossed to the ordered side: lower the ceiling below this β̃.
            // θ has not moved yet this step: it is the β̃ these samples were drawn at.
            self.theta_ceiling = self.theta_ceiling.min(CEILING_RATCHET * self.theta[0]);
        }
        if step == 0 && p.calibrate_bias {
            let mean_link = 0.5 * (target[0] + target[1]);
            let mixed_link = batch.mean_mixed_link(&self.map.attention_with_noise(noise, tau));
            self.map.bias = mean_link - self.map.weight * mixed_link;
        }
        // The pool is independent of the learned samples, so the plain loss already gives an
        // unbiased ψ gradient.
        let evaluation = self
            .objective
            .evaluate(&batch, &self.map, noise, tau, false, true)?;
        // With the roles swapped, the residual is ⟨F⟩_θ − M(ψ) and ∂/∂θ acts on ⟨F⟩_θ: the
        // forward estimator with the learned model's rows and the mapped pool as "target".
        let (coupling_gradient, fit) = if p.unbiased_loss {
            let residuals: Vec<[f64; CORRELATOR_COUNT]> = groups
                .iter()
                .map(|range| {
                    let group = mean_rows(&rows, range.clone());
                    std::array::from_fn(|m| evaluation.mapped[m] - group[m])
                })
                .collect();
            let shares: Vec<f64> = groups
                .iter()
                .map(|g| g.len() as f64 / rows.len() as f64)
                .collect();
            (
                CouplingGradient::estimate_grouped(terms, &rows, &groups, &evaluation.mapped)?,
                u_statistic(&residuals, &shares),
            )
        } else {
            (
                CouplingGradient::estimate(terms, &rows, None, &evaluation.mapped)?,
                evaluation.fit,
            )
        };
        // The residual ⟨F⟩_θ − M(ψ) falls with w and b: negative map columns.
        let map_jacobian = p.precondition_with_map.then(|| {
            batch
                .affine_jacobian(&evaluation.mixed, self.map.weight, self.map.bias)
                .map(|row| row.map(|v| -v))
        });
        // For display, the forward view: the learned samples through the inverse affine map.
        let (w, b) = to_forward(true, self.map.weight, self.map.bias);
        let attention = self.map.attention_with_noise(noise, tau);
        let mut mapped_sum = [0.0; CORRELATOR_COUNT];
        for config in dual {
            let mapped = apply_map(
                &LinkField::from_spins(config),
                &self.table,
                &attention,
                w,
                b,
            )?;
            for (sum, value) in mapped_sum.iter_mut().zip(link_correlators(&mapped)) {
                *sum += value;
            }
        }
        let count = dual.len().max(1) as f64;
        Ok(Update {
            fit,
            display_target: self.original_mean(),
            display_mapped: mapped_sum.map(|s| s / count),
            coupling_gradient,
            map_jacobian,
            batch,
            evaluation,
        })
    }

    /// The final profile scan around the trajectory average (see [`super::refine`]).
    fn scan(&self, cancel: &CancelToken) -> Result<Refinement, ComputeError> {
        let p = &self.params;
        let window = self.window();
        let centre =
            mean_and_spread(window.iter().map(|s| s.dual_beta)).map_or(self.theta[0], |m| m.0);
        let pool_batch = match (&self.pool, self.reverse()) {
            (Some(pool), true) => Some(pool.batch(&self.device)?),
            _ => None,
        };
        let target = match &pool_batch {
            Some(pool) => ScanTarget::Reverse { pool },
            None => ScanTarget::Forward {
                target: self.original_mean(),
            },
        };
        // Enough samples for `refine_link_fluctuations` fluctuating links (see the parameter).
        let per_sample = 2.0 * (p.size * p.size) as f64 * (1.0 - self.last_dual_link.powi(2));
        let wanted = p.refine_link_fluctuations / per_sample.max(1e-12);
        let samples = if wanted.is_finite() && wanted < p.refine_max_samples as f64 {
            (wanted.ceil() as usize).max(p.refine_samples)
        } else {
            p.refine_max_samples
        };
        let setup = ScanSetup {
            params: p,
            samples,
            centre,
            dual_plaquette: self.theta[1],
            logits: self.map.logits,
            tau: self.tau_at(self.history.len()),
            weight: self.map.weight,
            bias: self.map.bias,
            target,
            table: &self.table,
            device: &self.device,
            seed: derive_seed(self.seed, STREAM_REFINE),
        };
        refine(&setup, cancel)
    }

    /// The final `averaging_window` steps.
    fn window(&self) -> &[DualityStep] {
        let window_len = self.params.averaging_window.min(self.history.len());
        &self.history[self.history.len() - window_len..]
    }

    /// The result so far: the final scan's β̃ when it converged, else averages over the final
    /// `averaging_window` steps.
    pub fn result(&self) -> DualityResult {
        let p = &self.params;
        let window = self.window();
        let (trajectory_beta, trajectory_error) =
            mean_and_spread(window.iter().map(|s| s.dual_beta)).unwrap_or((self.theta[0], 0.0));
        let (dual_plaquette, dual_plaquette_error) =
            mean_and_spread(window.iter().map(|s| s.dual_plaquette))
                .unwrap_or((self.theta[1], 0.0));
        let (current_w, current_b) = to_forward(self.reverse(), self.map.weight, self.map.bias);
        let mut w = mean_and_spread(window.iter().map(|s| s.w)).map_or(current_w, |m| m.0);
        let mut b = mean_and_spread(window.iter().map(|s| s.b)).map_or(current_b, |m| m.0);
        let (mut dual_beta, mut dual_beta_error) = (trajectory_beta, trajectory_error);
        if let Some(scan) = self.refinement.as_ref().filter(|r| r.converged) {
            dual_beta = scan.dual_beta;
            dual_beta_error = scan.dual_beta_error;
            w = interpolate(&scan.dual_betas, &scan.w, dual_beta);
            b = interpolate(&scan.dual_betas, &scan.b, dual_beta);
        }
        let final_loss = mean_and_spread(window.iter().map(|s| s.loss)).map_or(f64::NAN, |m| m.0);
        let mapped_correlators = std::array::from_fn(|m| {
            mean_and_spread(window.iter().map(|s| s.mapped_correlators[m]))
                .map_or(f64::NAN, |v| v.0)
        });
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
            target_correlators: self.original_mean(),
            mapped_correlators,
            direction: self.direction.unwrap_or(p.direction),
            trajectory_dual_beta: trajectory_beta,
            trajectory_dual_beta_error: trajectory_error,
            refinement: self.refinement.clone(),
        }
    }
}

/// Consecutive index ranges of the given sizes.
fn chain_ranges(sizes: &[usize]) -> Vec<Range<usize>> {
    let mut ranges = Vec::with_capacity(sizes.len());
    let mut start = 0;
    for &size in sizes {
        ranges.push(start..start + size);
        start += size;
    }
    ranges
}

/// Mean of the rows in `range`.
fn mean_rows(rows: &[[f64; CORRELATOR_COUNT]], range: Range<usize>) -> [f64; CORRELATOR_COUNT] {
    let count = range.len().max(1) as f64;
    let rows = &rows[range];
    std::array::from_fn(|m| rows.iter().map(|r| r[m]).sum::<f64>() / count)
}

/// Piecewise-linear interpolation of `ys` over ascending `xs` at `x` (clamped to the ends).
fn interpolate(xs: &[f64], ys: &[f64], x: f64) -> f64 {
    let n = xs.len().min(ys.len());
    if n == 0 {
        return f64::NAN;
    }
    if n == 1 || x <= xs[0] {
        return ys[0];
    }
    for k in 1..n {
        if x <= xs[k] {
            let t = (x - xs[k - 1]) / (xs[k] - xs[k - 1]);
            return ys[k - 1] + t * (ys[k] - ys[k - 1]);
        }
    }
    ys[n - 1]
}

/// Mean of the 13 correlators over a set of configurations.
pub(super) fn mean_correlators(configs: &[SpinConfig]) -> [f64; CORRELATOR_COUNT] {
    let mut sum = [0.0; CORRELATOR_COUNT];
    for config in configs {
        for (s, f) in sum.iter_mut().zip(correlators(config)) {
            *s += f;
        }
    }
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
    let count = n as f64;
    let mean = values.clone().sum::<f64>() / count;
    let spread = if n > 1 {
        (values.map(|v| (v - mean).powi(2)).sum::<f64>() / (count - 1.0)).sqrt()
    } else {
        0.0
    };
    Some((mean, spread))
}
