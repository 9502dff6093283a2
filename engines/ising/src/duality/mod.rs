//! Neural duality discovery (Gupta, Ferrari, Iqbal, ICML 2025).
//!
//! Given the original model (β, K) on an L×L torus, learn dual couplings θ = (β̃, K̃) and a map
//! G_ψ from dual link variables to original link variables such that the 13 link correlators
//! of the mapped dual samples match the original model's: L = (1/13) Σ_m (⟨F_m(ô)⟩_θ − F̄_m)²
//! + penalty·softmax(e)₆. One training step:
//! 1. draws original samples (single-spin Metropolis, [`crate::single_spin`]) and folds their
//!    correlators into the running mean F̄;
//! 2. draws fresh dual samples at θ and evaluates the loss and ∂L/∂ψ with candle ([`map`]);
//! 3. estimates ∂L/∂θ by the score-function identity, preconditions it with the Gauss–Newton
//!    Hessian ([`score`]), takes an Adam step and damps it, θ ← 0.9·θ_new + 0.1·θ_prev;
//! 4. takes an Adam step on ψ;
//! 5. halves both learning rates after `lr_patience_steps` steps without a new best loss and
//!    stops after `stop_patience_steps`, or at `max_steps`;
//! 6. after the last step, estimates β̃ by a profile scan of the loss around the trajectory
//!    average ([`Refinement`]).
//!
//! ## Direction
//! [`Direction::Forward`] is the paper's setting above. For an ordered original (β > β_c)
//! its correlators are all close to 1 and a free affine map absorbs changes of β̃ (at β = 0.8
//! the best-fit loss changes by < 2·10⁻⁷ between 0.8 β* and 1.2 β*), so β̃ is not identified.
//! [`Direction::Reverse`] uses that Kramers–Wannier duality is an involution: it learns θ such
//! that the *given* model is the dual of θ. The given model's samples (pooled over all steps:
//! the given model never changes) are mapped to θ-model links and compared with the
//! correlators of θ's own, disordered samples, which depend strongly on θ; ∂L/∂θ flows through
//! that target by the same score-function identity. It relies on the involution, so it is for
//! K = 0; with K ≠ 0 use `Forward`. [`Direction::Auto`] (the default) picks `Reverse` when the
//! original's mean link correlator at step 0 exceeds `auto_link_threshold` (1/√2, its value at
//! the self-dual point) and K = 0, else `Forward`. Reported (w, b) are always those of the
//! forward map (the reverse map's affine part inverted).
//!
//! ## Where this differs from the paper, and why (each is a parameter)
//! Measured in release mode on a 2-core CPU, the paper's recipe at the paper's L = 8 lands
//! 10–170 % away from β* in the few thousand steps a desktop run affords. The defaults add:
//! - `direction`: the reverse direction for ordered originals (above);
//! - `refine_*`: the reported β̃ is the vertex of a parabola through a profile scan of the
//!   loss (map re-fitted at every point, common random numbers, inverse-variance weights of
//!   the 13 correlators, cross-chain unbiased loss), with a jackknife error over chains; the
//!   scan draws more samples when the scanned model is deeply ordered and repeats until the
//!   error is below `refine_tolerance` (see [`Refinement`]). The trajectory average is kept
//!   in [`DualityResult::trajectory_dual_beta`];
//! - `precondition_with_map`: the θ step solves the joint Gauss–Newton system of (θ, w, b) and
//!   keeps the θ part (a Schur complement), so θ moves along the valley in which (β̃, w, b)
//!   compensate each other instead of crawling across it;
//! - `unbiased_loss`: fit term and both gradients use only products of residuals from different
//!   chains (a U-statistic). The plain squared batch mean carries Var/N, whose θ- and
//!   ψ-dependence shifts β̃ by several per cent and favours near-constant maps;
//! - `hessian_smoothing_steps`, `max_coupling_step`: a moving-average preconditioner and a trust
//!   region on the direction fed to Adam (rare huge Gauss–Newton steps otherwise inflate Adam's
//!   second moment for hundreds of steps);
//! - `calibrate_bias`: b starts at F̄_link − w₀⟨x⟩ instead of 0.75, which avoids the early
//!   collapse to the constant map ô ≡ c;
//! - `coupling_warmup_steps`: θ is held while the attention organises;
//! - `loss_smoothing_steps`: the plateau schedule watches the median of recent losses (the
//!   per-step loss is heavy-tailed);
//! - the original model's chains persist from step to step (it never changes; one warm-up);
//!   the dual model's chains are fresh every step, as in the paper;
//! - L = 24 (the paper: 8): the periodic torus shifts the best β̃ at β_c by −9.5 % at L = 8.
//!
//! Limits (measured, L = 24): the periodic torus is not exactly self-dual, which shifts the
//! profile minimum at β_c by about −1 % (−1.8 % at L = 24 for the forward exact-form map; the
//! reverse direction measures about −1 %); it falls off quickly away from β_c. For β = 0.1 the
//! dual is deeply ordered and all information sits in rare flipped spins, so the scan needs
//! about ten times more samples there (it sizes itself from the dual's link correlator).
//!
//! For K = 0 the answer is known (Kramers–Wannier): β̃ = β* with sinh 2β·sinh 2β* = 1, one-hot
//! attention on the crossing dual link (candidate 2 or, equivalently, 5; see [`map`]),
//! w = −1/sinh 2β and b = coth 2β. It is used only in tests and reports, never in training.
//! For K ≠ 0 there is no exact dual in this family; [`residual_loss_map`] scans (β̃, K̃) and
//! reports how well the best map does at each point.

pub mod map;
mod refine;
mod residual_map;
pub mod score;
mod trainer;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::{Deserialize, Serialize};

use crate::couplings::{Couplings, kramers_wannier_dual};
use crate::lattice::validate_size;
use crate::links::CORRELATOR_COUNT;

pub use benchtop_learn::adam::Adam;
pub use map::{CANDIDATE_COUNT, CANDIDATE_NAMES, DUAL_CANDIDATES, MapParameters, SELF_CANDIDATE};
pub use refine::{MAX_SCAN_ROUNDS, Refinement};
pub use residual_map::{MAX_GRID_SIDE, ResidualMap, TARGET_SAMPLE_FACTOR, residual_loss_map};
pub use trainer::DualityTrainer;

/// Largest lattice side the duality trainer accepts.
pub const MAX_DUALITY_SIZE: usize = 32;

/// Most points of the final profile scan.
pub const MAX_REFINE_POINTS: usize = 15;

/// Which model's samples the map reads.
///
/// Kramers–Wannier duality is an involution (the dual of the dual is the original), which the
/// reverse direction relies on: it is meant for K = 0; with K ≠ 0 use `Forward`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Direction {
    /// The paper's direction: dual samples at θ are mapped to original links and compared with
    /// the original model's correlators F̄.
    Forward,
    /// The original is treated as the dual of the learned model θ: the original's samples
    /// (pooled over all steps, since the original never changes) are mapped to θ-model links
    /// and compared with the correlators of θ's own samples; ∂L/∂θ flows through that target
    /// by the same score-function identity. For an ordered original, whose correlators are all
    /// close to 1 and barely depend on β̃ through a free affine map, the disordered θ model's
    /// correlators depend strongly on θ, so β̃ is well identified.
    ///
    /// With θ free, the reverse loss has a trivial minimum: a frozen learned model (θ → ∞, all
    /// correlators 1) matched by the constant map ô ≡ 1. The learned model is therefore kept on
    /// the disordered side: it starts at `reverse_initial_dual_beta`, and whenever its measured
    /// link correlator exceeds `auto_link_threshold` the ceiling on β̃ drops to 98 % of that
    /// step's β̃ (a ratchet learned from the data, not from the known answer).
    Reverse,
    /// `Reverse` when the original looks ordered at step 0 (mean link correlator above
    /// `auto_link_threshold`), else `Forward`.
    #[default]
    Auto,
}

/// Largest memory the per-step candidate tensor (N × 2L² × 7 f64) may take, in bytes.
pub const MAX_BATCH_BYTES: usize = 512 << 20;

/// Everything that defines a duality-discovery run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DualityParams {
    /// Lattice side L of both models (even, 4..=32).
    pub size: usize,
    /// Original nearest-neighbour coupling β (> 0).
    pub beta: f64,
    /// Original plaquette coupling K.
    pub plaquette: f64,
    /// Learn the dual plaquette coupling K̃ too (mask "1,1"); otherwise K̃ stays at
    /// `initial_dual_plaquette` (mask "1,0").
    pub learn_plaquette: bool,
    /// Samples drawn from each model per step.
    pub samples_per_step: usize,
    /// Step cap.
    pub max_steps: usize,
    /// Adam learning rate of the couplings θ.
    pub learning_rate: f64,
    /// Adam learning rate of the map parameters ψ = (e, w, b).
    pub map_learning_rate: f64,
    /// Weight of the original-frame penalty softmax(e)₆.
    pub penalty: f64,
    /// Starting β̃.
    pub initial_dual_beta: f64,
    /// Starting K̃ (and its fixed value when it is not learned).
    pub initial_dual_plaquette: f64,
    /// Starting slope w of the map.
    pub initial_weight: f64,
    /// Starting offset b of the map (used when `calibrate_bias` is off).
    pub initial_bias: f64,
    /// Start the map's offset at b₀ = F̄_link − w₀·⟨x⟩, so that the mapped mean link equals
    /// the original's at step 0 (see the module docs).
    pub calibrate_bias: bool,
    /// Gumbel-softmax temperature τ at step 0.
    pub tau: f64,
    /// Floor of τ when it is annealed.
    pub tau_min: f64,
    /// τ is multiplied by this every step (1 = no annealing), down to `tau_min`.
    pub tau_decay: f64,
    /// Warm-up of every chain, in single-spin updates per site.
    pub warmup_per_site: u64,
    /// Updates per site between samples of a chain.
    pub thin_per_site: u64,
    /// Independent Markov chains per model and step (run in parallel).
    pub chains: usize,
    /// Map (ψ) updates per step on the step's dual batch (1 = the paper's one update).
    pub map_steps_per_step: usize,
    /// Steps at the start during which θ is held at its initial value while the map (attention,
    /// w, b) organises; 0 updates θ from the first step as in the paper.
    pub coupling_warmup_steps: usize,
    /// Weight of the previous couplings in the damping θ ← (1 − d)·θ_new + d·θ_prev.
    pub damping: f64,
    /// Precondition the coupling step with the joint Gauss–Newton Hessian of (θ, w, b)
    /// (see [`score::joint_matrix`]); `false` is the paper's θ-only Hessian, which crawls
    /// along the (β̃, w, b) valley and needs far more steps.
    pub precondition_with_map: bool,
    /// Levenberg–Marquardt damping λ of the preconditioner, (M + λ·diag M)·s = g (0 = plain
    /// Gauss–Newton as in the paper).
    pub marquardt_damping: f64,
    /// Time constant, in steps, of the moving average of the Gauss–Newton matrix used as the
    /// preconditioner (1 = this step's estimate only, as in the paper).
    pub hessian_smoothing_steps: usize,
    /// Estimate the fit term and both gradients from products of residuals of different
    /// chains only (a U-statistic, unbiased for (⟨F⟩_θ − F̄)²; needs `chains` ≥ 2); `false`
    /// is the paper's plain squared batch residual, whose Var/N part biases β̃.
    pub unbiased_loss: bool,
    /// Largest |component| of the preconditioned coupling direction fed to Adam (a trust
    /// region that keeps rare huge Gauss–Newton steps from inflating Adam's second moment).
    pub max_coupling_step: f64,
    /// The plateau schedule watches the median of the last this-many step losses (1 = the
    /// raw per-step loss, as in the paper).
    pub loss_smoothing_steps: usize,
    /// Steps without a new best (smoothed) loss before both learning rates halve.
    pub lr_patience_steps: usize,
    /// Steps without a new best (smoothed) loss before training stops early.
    pub stop_patience_steps: usize,
    /// Final steps averaged for the reported couplings and map (their spread is the error).
    pub averaging_window: usize,
    /// Adam steps of the map fit at every grid point of [`residual_loss_map`].
    pub map_fit_steps: usize,
    /// Which model's samples are mapped (see [`Direction`]); `Auto` decides from the
    /// original's samples at step 0.
    pub direction: Direction,
    /// `Auto` picks `Reverse` when the original's mean link correlator ⟨s_i s_j⟩ at step 0
    /// exceeds this (default 1/√2, the value at the self-dual point: above it the original is
    /// on the ordered side).
    pub auto_link_threshold: f64,
    /// Starting β̃ in the reverse direction (its learned model must be disordered; see
    /// [`Direction::Reverse`]).
    pub reverse_initial_dual_beta: f64,
    /// Original-model samples per step in the reverse direction (they are pooled over all
    /// steps, so fewer than `samples_per_step` suffice).
    pub reverse_pool_samples_per_step: usize,
    /// Points of the final profile scan of β̃ (0 = no refinement; otherwise at least 3, see
    /// [`Refinement`]).
    pub refine_points: usize,
    /// Spacing of the scan points relative to the centre, (β̃_{k+1} − β̃_k)/β̃_centre.
    pub refine_spacing: f64,
    /// Least samples of the scanned model drawn at every scan point.
    pub refine_samples: usize,
    /// The scan draws enough samples for about this many fluctuating links: N = this /
    /// (2L²·(1 − ⟨o⟩²)) with ⟨o⟩ the scanned model's mean link at the end of training, clamped
    /// to [`refine_samples`, `refine_max_samples`]. A deeply ordered scanned model (the dual
    /// of a very disordered original) has rare flipped spins that carry all of its
    /// information, so it needs many more samples than a disordered one.
    pub refine_link_fluctuations: f64,
    /// Most samples per scan point.
    pub refine_max_samples: usize,
    /// Relative error of β̃ the scan aims for: a scan whose jackknife error exceeds this
    /// fraction of its vertex repeats around the vertex with more samples (up to
    /// `refine_max_samples` and [`MAX_SCAN_ROUNDS`] scans).
    pub refine_tolerance: f64,
    /// Independent chains per scan point (the sample groups of the unbiased loss and the
    /// jackknife; at least 3).
    pub refine_chains: usize,
    /// Weight every correlator of the scan's loss by the inverse variance of its residual
    /// (estimated between chains at the scan's centre); `false` weights them equally, as the
    /// training loss does.
    pub refine_weighted: bool,
}

impl Default for DualityParams {
    fn default() -> Self {
        // Chosen from release-mode measurements on a 2-core CPU (see the crate report):
        // - L = 24: the periodic torus shifts the best β̃ at β_c by −9.5 % at L = 8, −3.1 % at
        //   L = 16 and −1.8 % at L = 24 (exact-form map, free w and b);
        // - 100 samples from 4 chains: the unbiased loss compares chains, and 4 groups are far
        //   less noisy than 2; 100 warm-up sweeps per chain, because 50 leave a cold-start bias
        //   near β_c at this size;
        // - the map organises while θ is held for 150 steps, then both train for at most 700
        //   steps; the final scan reports β̃ (a whole run takes 6–14 s at L = 24, the 9-point
        //   β sweep of projects/ising-kramers-wannier.ron about 75 s, release, 2 cores).
        Self {
            size: 24,
            beta: 0.3,
            plaquette: 0.0,
            learn_plaquette: false,
            samples_per_step: 100,
            max_steps: 700,
            learning_rate: 0.01,
            map_learning_rate: 0.05,
            penalty: 0.1,
            initial_dual_beta: 0.44,
            initial_dual_plaquette: 0.0,
            initial_weight: -0.25,
            initial_bias: 0.75,
            calibrate_bias: true,
            tau: 0.5,
            tau_min: 0.1,
            tau_decay: 0.995,
            warmup_per_site: 100,
            thin_per_site: 10,
            chains: 4,
            map_steps_per_step: 1,
            coupling_warmup_steps: 150,
            damping: 0.1,
            precondition_with_map: true,
            marquardt_damping: 0.0,
            hessian_smoothing_steps: 20,
            unbiased_loss: true,
            max_coupling_step: 0.25,
            loss_smoothing_steps: 50,
            lr_patience_steps: 100,
            stop_patience_steps: 200,
            averaging_window: 200,
            map_fit_steps: 300,
            direction: Direction::Auto,
            auto_link_threshold: std::f64::consts::FRAC_1_SQRT_2,
            reverse_initial_dual_beta: 0.1,
            reverse_pool_samples_per_step: 100,
            refine_points: 5,
            refine_spacing: 0.03,
            refine_samples: 800,
            refine_link_fluctuations: 8000.0,
            refine_max_samples: 12_000,
            refine_tolerance: 0.004,
            refine_chains: 8,
            refine_weighted: true,
        }
    }
}

impl DualityParams {
    /// Checks every parameter; the error names the offending key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        validate_size(self.size)?;
        if self.size > MAX_DUALITY_SIZE {
            return Err(ComputeError::invalid(
                "size",
                format!(
                    "L = {} is too large for duality training; use L ≤ {MAX_DUALITY_SIZE}",
                    self.size
                ),
            ));
        }
        if !(self.beta.is_finite() && self.beta > 0.0 && self.beta <= 5.0) {
            return Err(ComputeError::invalid(
                "beta",
                format!(
                    "β must be in (0, 5] (got {}); at β = 0 the dual coupling is infinite",
                    self.beta
                ),
            ));
        }
        self.original().validate()?;
        if self.samples_per_step < 2 {
            return Err(ComputeError::invalid(
                "samples_per_step",
                format!(
                    "need at least 2 samples per step for the covariance estimate (got {})",
                    self.samples_per_step
                ),
            ));
        }
        let batch_bytes = self
            .samples_per_step
            .saturating_mul(2 * self.size * self.size * CANDIDATE_COUNT * 8);
        if batch_bytes > MAX_BATCH_BYTES {
            return Err(ComputeError::invalid(
                "samples_per_step",
                format!(
                    "{} samples of L = {} need {} MiB per step; keep it under {} MiB",
                    self.samples_per_step,
                    self.size,
                    batch_bytes >> 20,
                    MAX_BATCH_BYTES >> 20
                ),
            ));
        }
        if self.max_steps == 0 {
            return Err(ComputeError::invalid(
                "max_steps",
                "at least one step is needed",
            ));
        }
        positive("learning_rate", self.learning_rate, 1.0)?;
        positive("map_learning_rate", self.map_learning_rate, 10.0)?;
        if !(self.penalty.is_finite() && self.penalty >= 0.0) {
            return Err(ComputeError::invalid(
                "penalty",
                format!(
                    "the penalty weight must be finite and ≥ 0 (got {})",
                    self.penalty
                ),
            ));
        }
        if !(self.initial_dual_beta.is_finite()
            && self.initial_dual_beta >= 0.0
            && self.initial_dual_beta <= MAX_DUAL_BETA)
        {
            return Err(ComputeError::invalid(
                "initial_dual_beta",
                format!(
                    "the starting β̃ must be in [0, {MAX_DUAL_BETA}] (got {})",
                    self.initial_dual_beta
                ),
            ));
        }
        if !(self.initial_dual_plaquette.is_finite()
            && self.initial_dual_plaquette.abs() <= MAX_DUAL_PLAQUETTE)
        {
            return Err(ComputeError::invalid(
                "initial_dual_plaquette",
                format!(
                    "the starting K̃ must be in [−{MAX_DUAL_PLAQUETTE}, {MAX_DUAL_PLAQUETTE}] \
                     (got {})",
                    self.initial_dual_plaquette
                ),
            ));
        }
        for (key, value) in [
            ("initial_weight", self.initial_weight),
            ("initial_bias", self.initial_bias),
        ] {
            if !value.is_finite() {
                return Err(ComputeError::invalid(
                    key,
                    format!("must be finite (got {value})"),
                ));
            }
        }
        positive("tau", self.tau, 100.0)?;
        positive("tau_min", self.tau_min, 100.0)?;
        if self.tau_min > self.tau {
            return Err(ComputeError::invalid(
                "tau_min",
                format!(
                    "the τ floor {} is above the starting τ {}",
                    self.tau_min, self.tau
                ),
            ));
        }
        if !(self.tau_decay.is_finite() && self.tau_decay > 0.0 && self.tau_decay <= 1.0) {
            return Err(ComputeError::invalid(
                "tau_decay",
                format!(
                    "τ is multiplied by tau_decay every step: use (0, 1] (got {})",
                    self.tau_decay
                ),
            ));
        }
        if self.thin_per_site == 0 {
            return Err(ComputeError::invalid(
                "thin_per_site",
                "thinning must be at least 1 update per site",
            ));
        }
        if self.warmup_per_site > 100_000 || self.thin_per_site > 100_000 {
            return Err(ComputeError::invalid(
                if self.warmup_per_site > 100_000 {
                    "warmup_per_site"
                } else {
                    "thin_per_site"
                },
                "use at most 100000 updates per site",
            ));
        }
        if self.chains == 0 || self.chains > self.samples_per_step {
            return Err(ComputeError::invalid(
                "chains",
                format!(
                    "need between 1 and samples_per_step = {} chains (got {})",
                    self.samples_per_step, self.chains
                ),
            ));
        }
        if self.unbiased_loss && self.chains < 2 {
            return Err(ComputeError::invalid(
                "chains",
                "the unbiased loss compares independent chains: use chains ≥ 2 or turn \
                 unbiased_loss off",
            ));
        }
        if !(self.damping.is_finite() && (0.0..1.0).contains(&self.damping)) {
            return Err(ComputeError::invalid(
                "damping",
                format!(
                    "the weight of the previous couplings must be in [0, 1) (got {})",
                    self.damping
                ),
            ));
        }
        positive("max_coupling_step", self.max_coupling_step, 10.0)?;
        if !(self.marquardt_damping.is_finite() && (0.0..=1e6).contains(&self.marquardt_damping)) {
            return Err(ComputeError::invalid(
                "marquardt_damping",
                format!("must be in [0, 1e6] (got {})", self.marquardt_damping),
            ));
        }
        for (key, value) in [
            ("map_steps_per_step", self.map_steps_per_step),
            ("loss_smoothing_steps", self.loss_smoothing_steps),
            ("hessian_smoothing_steps", self.hessian_smoothing_steps),
            ("lr_patience_steps", self.lr_patience_steps),
            ("stop_patience_steps", self.stop_patience_steps),
            ("averaging_window", self.averaging_window),
        ] {
            if value == 0 {
                return Err(ComputeError::invalid(key, "must be at least 1"));
            }
        }
        if !(self.auto_link_threshold.is_finite()
            && self.auto_link_threshold > 0.0
            && self.auto_link_threshold < 1.0)
        {
            return Err(ComputeError::invalid(
                "auto_link_threshold",
                format!(
                    "a link correlator threshold must be in (0, 1) (got {})",
                    self.auto_link_threshold
                ),
            ));
        }
        if !(self.reverse_initial_dual_beta.is_finite()
            && self.reverse_initial_dual_beta >= 0.0
            && self.reverse_initial_dual_beta <= MAX_DUAL_BETA)
        {
            return Err(ComputeError::invalid(
                "reverse_initial_dual_beta",
                format!(
                    "the starting β̃ must be in [0, {MAX_DUAL_BETA}] (got {})",
                    self.reverse_initial_dual_beta
                ),
            ));
        }
        if self.reverse_pool_samples_per_step < self.chains {
            return Err(ComputeError::invalid(
                "reverse_pool_samples_per_step",
                format!(
                    "need at least one sample per chain ({} chains, got {})",
                    self.chains, self.reverse_pool_samples_per_step
                ),
            ));
        }
        if self.refine_points > 0 {
            if self.refine_points < 3 || self.refine_points > MAX_REFINE_POINTS {
                return Err(ComputeError::invalid(
                    "refine_points",
                    format!(
                        "a parabola needs 3 to {MAX_REFINE_POINTS} scan points, or 0 for no \
                         refinement (got {})",
                        self.refine_points
                    ),
                ));
            }
            positive("refine_spacing", self.refine_spacing, 0.2)?;
            positive("refine_tolerance", self.refine_tolerance, 1.0)?;
            if self.refine_chains < 3 {
                return Err(ComputeError::invalid(
                    "refine_chains",
                    format!(
                        "the scan's unbiased loss and jackknife need at least 3 chains (got {})",
                        self.refine_chains
                    ),
                ));
            }
            if self.refine_samples < self.refine_chains {
                return Err(ComputeError::invalid(
                    "refine_samples",
                    format!(
                        "need at least one sample per chain ({} chains, got {})",
                        self.refine_chains, self.refine_samples
                    ),
                ));
            }
            if self.refine_max_samples < self.refine_samples {
                return Err(ComputeError::invalid(
                    "refine_max_samples",
                    format!(
                        "the cap {} is below refine_samples = {}",
                        self.refine_max_samples, self.refine_samples
                    ),
                ));
            }
            // A forward scan keeps every point's batch (4 bytes per site and sample) and
            // builds each from the spins and two pattern lists (about 16 more, transiently).
            let bytes = self
                .refine_max_samples
                .saturating_mul(self.size * self.size)
                .saturating_mul(4 * self.refine_points + 16);
            if bytes > MAX_BATCH_BYTES {
                return Err(ComputeError::invalid(
                    "refine_max_samples",
                    format!(
                        "{} samples of L = {} need {} MiB; keep it under {} MiB",
                        self.refine_max_samples,
                        self.size,
                        bytes >> 20,
                        MAX_BATCH_BYTES >> 20
                    ),
                ));
            }
            if !(self.refine_link_fluctuations.is_finite() && self.refine_link_fluctuations >= 0.0)
            {
                return Err(ComputeError::invalid(
                    "refine_link_fluctuations",
                    format!(
                        "must be finite and ≥ 0 (got {})",
                        self.refine_link_fluctuations
                    ),
                ));
            }
        }
        Ok(())
    }

    /// How many samples each chain contributes per step (the sample groups of the unbiased
    /// loss), in chain order.
    pub fn chain_sizes(&self) -> Vec<usize> {
        (0..self.chains)
            .map(|c| {
                self.samples_per_step / self.chains
                    + usize::from(c < self.samples_per_step % self.chains)
            })
            .collect()
    }

    /// The original model's couplings (β, K).
    pub fn original(&self) -> Couplings {
        Couplings {
            beta: self.beta,
            plaquette: self.plaquette,
        }
    }

    /// Which dual couplings are learned: β̃ always, K̃ when `learn_plaquette`.
    pub fn learned(&self) -> [bool; 2] {
        [true, self.learn_plaquette]
    }

    /// The exact Kramers–Wannier answer when K = 0, else `None`.
    pub fn analytic(&self) -> Option<AnalyticDual> {
        (self.plaquette == 0.0).then(|| AnalyticDual::for_beta(self.beta))
    }
}

/// Largest β̃ the trainer lets the dual coupling reach.
pub const MAX_DUAL_BETA: f64 = 10.0;
/// Largest |K̃| the trainer lets the dual plaquette coupling reach.
pub const MAX_DUAL_PLAQUETTE: f64 = 10.0;

fn positive(key: &str, value: f64, max: f64) -> Result<(), ComputeError> {
    if value.is_finite() && value > 0.0 && value <= max {
        Ok(())
    } else {
        Err(ComputeError::invalid(
            key,
            format!("must be in (0, {max}] (got {value})"),
        ))
    }
}

/// The exact Kramers–Wannier dual of the plain Ising model (K = 0, infinite volume).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnalyticDual {
    /// β* = ½ asinh(1/sinh 2β).
    pub dual_beta: f64,
    /// w = −1/sinh 2β = −sinh 2β*.
    pub w: f64,
    /// b = coth 2β = cosh 2β*.
    pub b: f64,
    /// Candidates on which the exact map puts all its attention (either one).
    pub attention_candidates: Vec<usize>,
}

impl AnalyticDual {
    /// The Kramers–Wannier dual of β.
    pub fn for_beta(beta: f64) -> Self {
        let sinh = (2.0 * beta).sinh();
        Self {
            dual_beta: kramers_wannier_dual(beta),
            w: -1.0 / sinh,
            b: (2.0 * beta).cosh() / sinh,
            attention_candidates: DUAL_CANDIDATES.to_vec(),
        }
    }
}

/// One training step, as the live view draws it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DualityStep {
    /// Step number, from 0.
    pub step: usize,
    /// β̃ at which this step's dual samples were drawn.
    pub dual_beta: f64,
    /// K̃ at which this step's dual samples were drawn.
    pub dual_plaquette: f64,
    /// The loss of this step (fit + penalty; in the reverse direction it compares the mapped
    /// original pool with the learned model's correlators).
    pub loss: f64,
    /// The fit part: the cross-chain estimate of (1/13) Σ_m δ_m² (can be slightly negative)
    /// or the plain one (see `unbiased_loss`).
    pub fit_loss: f64,
    /// The plain (1/13) Σ_m δ_m² of this step's whole batch, for display.
    pub plain_fit_loss: f64,
    /// The penalty part penalty·softmax(e)₆.
    pub penalty_term: f64,
    /// Noise-free attention softmax(e/τ) of the map used in this step.
    pub attention: Vec<f64>,
    /// Map slope w used in this step (forward convention: dual → original links).
    pub w: f64,
    /// Map offset b used in this step (forward convention).
    pub b: f64,
    /// Coupling learning rate in this step.
    pub learning_rate: f64,
    /// Map learning rate in this step.
    pub map_learning_rate: f64,
    /// Gumbel-softmax temperature in this step.
    pub tau: f64,
    /// Running mean F̄ of the original model's correlators.
    pub target_correlators: [f64; CORRELATOR_COUNT],
    /// ⟨F_m(ô)⟩ of this step's dual samples mapped to original links (in the reverse
    /// direction: through the inverted affine map, for display; the loss compares the mapped
    /// original pool with the learned model's correlators instead).
    pub mapped_correlators: [f64; CORRELATOR_COUNT],
}

/// The outcome of a training run.
///
/// `dual_beta` is the vertex of the final profile scan when it converged (its jackknife error
/// in `dual_beta_error`, and w, b the scan's re-fitted map interpolated there); otherwise the
/// trajectory average over the final window (its spread as the error). (w, b) are always in the
/// forward convention ô_original = w·x_dual + b, whichever direction was trained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DualityResult {
    /// The learned β̃ (see the type's docs).
    pub dual_beta: f64,
    /// Its error: the scan's jackknife error, or the spread over the window.
    pub dual_beta_error: f64,
    /// Mean K̃ over the window.
    pub dual_plaquette: f64,
    /// Standard deviation of K̃ over the window.
    pub dual_plaquette_error: f64,
    /// Map slope w (forward convention): at the scan's vertex, else the window mean.
    pub w: f64,
    /// Map offset b (forward convention): at the scan's vertex, else the window mean.
    pub b: f64,
    /// Final noise-free attention softmax(e/τ).
    pub attention: Vec<f64>,
    /// Mean loss over the window.
    pub final_loss: f64,
    /// Steps taken.
    pub steps: usize,
    /// Whether training stopped for lack of improvement before `max_steps`.
    pub stopped_early: bool,
    /// The exact answer when K = 0.
    pub analytic: Option<AnalyticDual>,
    /// The original model's correlators F̄ (running mean over all steps).
    pub target_correlators: [f64; CORRELATOR_COUNT],
    /// Mean mapped correlators over the window.
    pub mapped_correlators: [f64; CORRELATOR_COUNT],
    /// The direction used (`Forward` or `Reverse`; `Auto` only before any step).
    pub direction: Direction,
    /// Mean β̃ of the training trajectory over the final `averaging_window` steps.
    pub trajectory_dual_beta: f64,
    /// Standard deviation of β̃ over that window.
    pub trajectory_dual_beta_error: f64,
    /// The final profile scan, when `refine_points` > 0 and training has finished.
    pub refinement: Option<Refinement>,
}

/// Trains to the end (finished or stopped early), reporting progress per step.
pub fn run(
    params: &DualityParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<DualityResult, ComputeError> {
    let mut trainer = DualityTrainer::new(params, seed)?;
    while !trainer.is_finished() {
        let step = trainer.step(cancel)?;
        let fraction = (step.step + 1) as f64 / params.max_steps as f64;
        progress.set(
            fraction,
            format!(
                "step {}: β̃ = {:.4}, loss = {:.2e}",
                step.step + 1,
                step.dual_beta,
                step.loss
            ),
        );
    }
    progress.set(1.0, "done");
    Ok(trainer.result())
}

#[cfg(test)]
mod tests;
