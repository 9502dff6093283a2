//! Data sets from generators other than [`crate::synthetic`], to check FINDR on data it was not
//! tuned on: other flows (a gradient double well, a pure line attractor, a single stable focus),
//! another task (one input pulse of random side, strength and length per trial instead of
//! Poisson clicks), other observation models (softplus or exponential link, any gain, no
//! within-trial baseline modulation) and other bin widths.
//!
//! Per trial the latent starts at z = 0 and follows Euler–Maruyama in units of τ,
//! z ← z + α [F(z) + g (u_R − u_L) e₁] + √α σ ε with α = Δt/τ; bin t is read out from the state
//! after its step, λ = link(C z + b) Hz, and counts are Poisson(λΔt). The baseline b of each
//! neuron drifts linearly across the session (`drift`, in the link's units).

use rand::Rng as _;
use rand_distr::{Distribution as _, Poisson};
use serde::{Deserialize, Serialize};

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError};

use crate::analysis::Stability;
use crate::softplus::{softplus, softplus_inverse};
use crate::synthetic::{RATE_FLOOR_HZ, normal};
use crate::trials::TrialSet;

/// The planted autonomous flow F(z), units of 1/τ.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Dynamics {
    /// A gradient double well, F = (k x (1 − x²/a²), −d y): stable points at (±a, 0), a saddle
    /// at the origin; a small k makes the line between them slow.
    DoubleWell {
        /// Half the distance between the attractors, latent units.
        a: f64,
        /// Strength k of the wells, 1/τ.
        k: f64,
        /// Decay d across the line, 1/τ.
        across: f64,
    },
    /// A pure line attractor along z₁, F = (0, −d y): every point of the line is marginal.
    LineAttractor {
        /// Decay d across the line, 1/τ.
        across: f64,
    },
    /// One stable focus at p, F = A (z − p) with A = [[−λ, −ω], [ω, −λ]].
    Focus {
        /// The attractor p, latent units.
        at: [f64; 2],
        /// Decay λ, 1/τ.
        decay: f64,
        /// Rotation ω, 1/τ.
        rotation: f64,
    },
}

impl Dynamics {
    /// F(z), units of 1/τ.
    pub fn drift(&self, z: [f64; 2]) -> [f64; 2] {
        match *self {
            Self::DoubleWell { a, k, across } => {
                [k * z[0] * (1.0 - (z[0] / a).powi(2)), -across * z[1]]
            }
            Self::LineAttractor { across } => [0.0, -across * z[1]],
            Self::Focus {
                at,
                decay,
                rotation,
            } => {
                let (x, y) = (z[0] - at[0], z[1] - at[1]);
                [-decay * x - rotation * y, rotation * x - decay * y]
            }
        }
    }

    /// The planted fixed points with their eigenvalues (real parts, 1/s for time constant
    /// `tau_s`, slowest first) and kinds; empty for the line attractor, whose fixed points form
    /// a line.
    pub fn fixed_points(&self, tau_s: f64) -> Vec<PlantedPoint> {
        let per_second = 1.0 / tau_s;
        match *self {
            Self::DoubleWell { a, k, across } => {
                let well = PlantedPoint {
                    z: [a, 0.0],
                    eigenvalues: sorted([-2.0 * k * per_second, -across * per_second]),
                    stability: Stability::Stable,
                };
                vec![
                    PlantedPoint {
                        z: [-a, 0.0],
                        ..well
                    },
                    PlantedPoint {
                        z: [0.0, 0.0],
                        eigenvalues: sorted([k * per_second, -across * per_second]),
                        stability: Stability::Saddle,
                    },
                    well,
                ]
            }
            Self::LineAttractor { .. } => Vec::new(),
            Self::Focus { at, decay, .. } => vec![PlantedPoint {
                z: at,
                eigenvalues: [-decay * per_second; 2],
                stability: Stability::Stable,
            }],
        }
    }

    /// A short name for tables.
    pub fn describe(&self, tau_s: f64) -> String {
        let per_second = 1.0 / tau_s;
        match *self {
            Self::DoubleWell { a, k, across } => format!(
                "2 attractors (±{a}, 0) λ = {:.0}, {:.0}/s; saddle (0, 0) λ = +{:.0}, {:.0}/s",
                -2.0 * k * per_second,
                -across * per_second,
                k * per_second,
                -across * per_second
            ),
            Self::LineAttractor { across } => {
                format!(
                    "line attractor along z₁: λ = 0 along, {:.0}/s across",
                    -across * per_second
                )
            }
            Self::Focus {
                at,
                decay,
                rotation,
            } => format!(
                "1 attractor (focus) at ({}, {}): λ = {:.0} ± {:.0}i/s",
                at[0],
                at[1],
                -decay * per_second,
                rotation * per_second
            ),
        }
    }
}

fn sorted(mut values: [f64; 2]) -> [f64; 2] {
    // Slowest (largest real part) first.
    if values[0] < values[1] {
        values.swap(0, 1);
    }
    values
}

/// A planted fixed point.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlantedPoint {
    /// Position, latent units.
    pub z: [f64; 2],
    /// Real parts of the eigenvalues, 1/s, largest first.
    pub eigenvalues: [f64; 2],
    /// The kind.
    pub stability: Stability,
}

/// The link from the drive C z + b to the rate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Link {
    /// λ = softplus(x) Hz (FINDR's own; gains and baselines in Hz).
    #[default]
    Softplus,
    /// λ = exp(x) Hz (gains in log-rate per latent unit, baselines as ln Hz).
    Exponential,
}

impl Link {
    fn rate_hz(self, drive: f64) -> f64 {
        match self {
            Self::Softplus => softplus(drive),
            Self::Exponential => drive.min(10.0).exp(),
        }
    }

    fn inverse(self, rate_hz: f64) -> f64 {
        match self {
            Self::Softplus => softplus_inverse(rate_hz),
            Self::Exponential => rate_hz.ln(),
        }
    }
}

/// Parameters of a generated data set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GeneratorParams {
    /// The planted flow.
    pub dynamics: Dynamics,
    /// Trials.
    pub n_trials: usize,
    /// Neurons.
    pub n_neurons: usize,
    /// Bin width, s.
    pub bin_s: f64,
    /// Shortest and longest trial, s.
    pub duration_s: (f64, f64),
    /// Time constant τ, s.
    pub tau_s: f64,
    /// Latent noise σ (per √τ).
    pub latent_noise: f64,
    /// Push of the pulse along z₁ per unit input, 1/τ.
    pub input_gain: f64,
    /// The pulse: start (s), shortest and longest length (s), weakest and strongest input.
    pub pulse: PulseParams,
    /// The link.
    pub link: Link,
    /// Standard deviation of the readout weights (Hz per latent unit for softplus, log-rate
    /// per latent unit for the exponential link).
    pub readout_gain: f64,
    /// Lowest and highest mean baseline rate, Hz.
    pub baseline_hz: (f64, f64),
    /// Largest baseline drift from the start to the end of the session (in the link's units:
    /// Hz for softplus, ln Hz for the exponential).
    pub drift: f64,
    /// Time from one trial's start to the next, s.
    pub inter_trial_s: f64,
}

/// One input pulse per trial.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PulseParams {
    /// Start of the pulse, s.
    pub start_s: f64,
    /// Shortest and longest pulse, s.
    pub length_s: (f64, f64),
    /// Weakest and strongest input during the pulse.
    pub strength: (f64, f64),
}

impl Default for PulseParams {
    fn default() -> Self {
        Self {
            start_s: 0.05,
            length_s: (0.05, 0.3),
            strength: (0.5, 1.5),
        }
    }
}

impl GeneratorParams {
    /// A set of `n_trials` trials of 0.6–1 s read out by `n_neurons` softplus neurons at 15 Hz
    /// per latent unit with drifting baselines, in 10 ms bins, for `dynamics`.
    pub fn new(dynamics: Dynamics, n_trials: usize, n_neurons: usize) -> Self {
        Self {
            dynamics,
            n_trials,
            n_neurons,
            bin_s: 0.01,
            duration_s: (0.6, 1.0),
            tau_s: 0.1,
            latent_noise: 0.1,
            input_gain: 1.0,
            pulse: PulseParams::default(),
            link: Link::Softplus,
            readout_gain: 15.0,
            baseline_hz: (5.0, 20.0),
            drift: 2.0,
            inter_trial_s: 6.0,
        }
    }

    /// Checks every parameter; errors name the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(1..=100_000).contains(&self.n_trials) || !(1..=10_000).contains(&self.n_neurons) {
            return Err(ComputeError::invalid(
                "n_trials",
                "choose 1 to 100000 trials and 1 to 10000 neurons",
            ));
        }
        let positive = [
            ("bin_s", self.bin_s),
            ("tau_s", self.tau_s),
            ("duration_s", self.duration_s.0),
            ("inter_trial_s", self.inter_trial_s),
            ("baseline_hz", self.baseline_hz.0),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(ComputeError::invalid(name, "must be a positive number"));
            }
        }
        if self.tau_s < self.bin_s {
            return Err(ComputeError::invalid(
                "tau_s",
                "must be at least the bin width",
            ));
        }
        if self.duration_s.1 < self.duration_s.0 || self.baseline_hz.1 < self.baseline_hz.0 {
            return Err(ComputeError::invalid(
                "duration_s",
                "ranges need their lower end first",
            ));
        }
        let max_bins = self.bins(self.duration_s.1);
        ComputeError::check_memory(
            &[
                ("n_trials", self.n_trials),
                ("max_bins", max_bins),
                ("n_neurons", self.n_neurons),
            ],
            8,
            benchtop_compute::error::ARRAY_LIMIT_BYTES,
        )
    }

    fn bins(&self, duration_s: f64) -> usize {
        (duration_s / self.bin_s).round().max(2.0) as usize
    }
}

/// A generated data set with what made it.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedData {
    /// The trials.
    pub trials: TrialSet,
    /// Latents `[n_trials, max_bins, 2]`, zero past each length.
    pub latents: Vec<f64>,
    /// The planted fixed points (empty for a line attractor).
    pub planted: Vec<PlantedPoint>,
}

/// Generates the data set for `params` and `seed`; the same inputs give the same bits.
pub fn generate(
    params: &GeneratorParams,
    seed: u64,
    cancel: &CancelToken,
) -> Result<GeneratedData, ComputeError> {
    params.validate()?;
    let (n_trials, n_neurons) = (params.n_trials, params.n_neurons);
    let max_bins = params.bins(params.duration_s.1);
    let alpha = params.bin_s / params.tau_s;
    let mut neuron_rng = seeded(derive_seed(seed, 21));
    let readout_dist = normal(params.readout_gain.abs())?;
    let mut readout = Vec::with_capacity(2 * n_neurons);
    let mut base = Vec::with_capacity(n_neurons);
    for _ in 0..n_neurons {
        readout.push([
            readout_dist.sample(&mut neuron_rng),
            readout_dist.sample(&mut neuron_rng),
        ]);
        let mean_hz = neuron_rng.random_range(params.baseline_hz.0..=params.baseline_hz.1);
        let drift = params.drift * (2.0 * neuron_rng.random::<f64>() - 1.0);
        base.push((params.link.inverse(mean_hz), drift));
    }
    let noise = normal(1.0)?;
    let noise_scale = alpha.sqrt() * params.latent_noise;
    let cells = n_trials * max_bins;
    let mut spikes = vec![0.0f32; cells * n_neurons];
    let mut inputs = vec![0.0f32; cells * 2];
    let mut latents = vec![0.0; cells * 2];
    let mut lengths = Vec::with_capacity(n_trials);
    let session_span = (n_trials.max(2) - 1) as f64;
    for trial in 0..n_trials {
        cancel.check()?;
        let trial_u64 = trial as u64;
        let mut task_rng = seeded(derive_seed(derive_seed(seed, 22), trial_u64));
        let mut latent_rng = seeded(derive_seed(derive_seed(seed, 23), trial_u64));
        let mut spike_rng = seeded(derive_seed(derive_seed(seed, 24), trial_u64));
        let duration = task_rng.random_range(params.duration_s.0..=params.duration_s.1);
        let length = params.bins(duration).min(max_bins);
        let right = task_rng.random_bool(0.5);
        let strength = task_rng.random_range(params.pulse.strength.0..=params.pulse.strength.1);
        let pulse_length = task_rng.random_range(params.pulse.length_s.0..=params.pulse.length_s.1);
        let session = trial as f64 / session_span;
        let mut z = [0.0f64; 2];
        for bin in 0..length {
            let t = bin as f64 * params.bin_s;
            let on = t >= params.pulse.start_s && t < params.pulse.start_s + pulse_length;
            let u = if on { strength } else { 0.0 };
            let cell = trial * max_bins + bin;
            inputs[2 * cell + usize::from(right)] = u as f32;
            let push = if right { u } else { -u } * params.input_gain;
            let f = params.dynamics.drift(z);
            z[0] += alpha * (f[0] + push) + noise_scale * noise.sample(&mut latent_rng);
            z[1] += alpha * f[1] + noise_scale * noise.sample(&mut latent_rng);
            latents[2 * cell] = z[0];
            latents[2 * cell + 1] = z[1];
            for (neuron, (c, (b, drift))) in readout.iter().zip(&base).enumerate() {
                let drive = c[0] * z[0] + c[1] * z[1] + b + drift * (2.0 * session - 1.0);
                let mean = (params.link.rate_hz(drive) + RATE_FLOOR_HZ) * params.bin_s;
                let count = Poisson::new(mean)
                    .map_err(|e| ComputeError::Numerical(e.to_string()))?
                    .sample(&mut spike_rng);
                spikes[cell * n_neurons + neuron] = count as f32;
            }
        }
        lengths.push(length);
    }
    let times_s = (0..n_trials)
        .map(|t| t as f64 * params.inter_trial_s)
        .collect();
    Ok(GeneratedData {
        trials: TrialSet {
            n_trials,
            max_bins,
            n_neurons,
            bin_s: params.bin_s,
            spikes,
            inputs,
            lengths,
            times_s,
            choices: None,
        },
        latents,
        planted: params.dynamics.fixed_points(params.tau_s),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{FixedPointParams, find_fixed_points};

    #[test]
    fn planted_points_are_the_flows_fixed_points_with_their_eigenvalues() {
        let tau = 0.1;
        let flows = [
            Dynamics::DoubleWell {
                a: 1.0,
                k: 1.0,
                across: 2.0,
            },
            Dynamics::Focus {
                at: [0.3, -0.2],
                decay: 1.0,
                rotation: 2.0,
            },
        ];
        for dynamics in flows {
            let per_second = |z: [f64; 2]| {
                let f = dynamics.drift(z);
                [f[0] / tau, f[1] / tau]
            };
            let search = FixedPointParams {
                box_min: [-2.0, -2.0],
                box_max: [2.0, 2.0],
                ..FixedPointParams::default()
            };
            let found = find_fixed_points(per_second, &search, &CancelToken::new()).unwrap();
            let planted = dynamics.fixed_points(tau);
            assert_eq!(found.len(), planted.len(), "{dynamics:?}: {found:?}");
            for p in &planted {
                let q = found
                    .iter()
                    .find(|q| (q.z[0] - p.z[0]).hypot(q.z[1] - p.z[1]) < 1e-6)
                    .unwrap_or_else(|| panic!("{p:?} in {found:?}"));
                assert_eq!(q.stability, p.stability);
                let mut real = [q.eigenvalues[0].0, q.eigenvalues[1].0];
                real.sort_by(|a, b| b.total_cmp(a));
                for (a, b) in real.iter().zip(p.eigenvalues) {
                    assert!((a - b).abs() < 1e-3 * b.abs().max(1.0), "{real:?} {p:?}");
                }
            }
        }
        assert!(
            Dynamics::LineAttractor { across: 1.0 }
                .fixed_points(tau)
                .is_empty()
        );
    }

    #[test]
    fn trials_are_reproducible_and_pulses_move_the_latent_their_way() {
        let params = GeneratorParams {
            bin_s: 0.02,
            link: Link::Exponential,
            readout_gain: 0.3,
            drift: 0.2,
            ..GeneratorParams::new(Dynamics::LineAttractor { across: 1.0 }, 40, 7)
        };
        let a = generate(&params, 5, &CancelToken::new()).unwrap();
        assert_eq!(a, generate(&params, 5, &CancelToken::new()).unwrap());
        let t = &a.trials;
        assert_eq!((t.n_trials, t.n_neurons, t.max_bins), (40, 7, 50));
        assert!(t.lengths.iter().all(|&l| (30..=50).contains(&l)));
        // On a line attractor the latent keeps the pulse's push: its sign follows the side.
        let mut agree = 0;
        for trial in 0..t.n_trials {
            let right = (0..t.lengths[trial]).any(|b| t.input(trial, b)[1] > 0.0);
            let last = trial * t.max_bins + t.lengths[trial] - 1;
            agree += usize::from((a.latents[2 * last] > 0.0) == right);
        }
        assert!(agree >= 36, "{agree} of 40");
        assert!(t.spikes.iter().any(|&y| y > 0.0));
        assert!(
            GeneratorParams {
                tau_s: 0.001,
                ..params
            }
            .validate()
            .is_err()
        );
    }
}
