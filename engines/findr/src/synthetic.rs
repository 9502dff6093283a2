//! Synthetic data with known answers: Poisson-clicks trials driving the planted 2-D flow
//! ([`PlantedFlow`]), read out by N neurons with softplus rates on top of a smooth per-neuron
//! baseline (within-trial modulation plus slow across-session drift), and Poisson spikes.
//!
//! Per trial: γ is drawn from `gammas`, the length from `min_bins..=max_bins`, the clicks from
//! [`draw_clicks`]. The latent starts at z = 0 and follows Euler–Maruyama,
//! z ← z + α F(z, u_t) + √α σ ε_t with α = Δt/τ; bin t is read out from the state after its
//! step. Rates are λ = softplus(C z + b) + 1e-5 Hz and counts y ~ Poisson(λ Δt).

use rand::Rng as _;
use rand_distr::{Distribution as _, Normal, Poisson};
use serde::{Deserialize, Serialize};

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};

use crate::clicks::{Adaptation, Click, bin_clicks, draw_clicks};
use crate::planted::PlantedFlow;
use crate::softplus::{softplus, softplus_inverse};
use crate::trials::TrialSet;

/// Rate floor added to every softplus rate, Hz (as in the paper).
pub const RATE_FLOOR_HZ: f64 = 1e-5;

/// Parameters of the synthetic data set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SyntheticParams {
    /// Number of trials.
    pub n_trials: usize,
    /// Number of neurons N.
    pub n_neurons: usize,
    /// Shortest trial, bins.
    pub min_bins: usize,
    /// Longest trial, bins.
    pub max_bins: usize,
    /// Bin width Δt, s.
    pub bin_s: f64,
    /// Time constant τ of the latent dynamics, s (α = Δt/τ).
    pub tau_s: f64,
    /// Evidence strengths γ, drawn uniformly per trial.
    pub gammas: Vec<f64>,
    /// Total click rate r_L + r_R, Hz.
    pub total_click_rate_hz: f64,
    /// Click adaptation carry-over φ.
    pub adaptation_phi: f64,
    /// Click adaptation recovery rate k, 1/s.
    pub adaptation_recovery_per_s: f64,
    /// The planted flow.
    pub flow: PlantedFlow,
    /// Latent noise σ (per √τ).
    pub latent_noise: f64,
    /// Standard deviation of the readout weights C, Hz per latent unit.
    pub readout_gain_hz: f64,
    /// Lowest mean baseline rate of a neuron, Hz.
    pub baseline_min_hz: f64,
    /// Highest mean baseline rate of a neuron, Hz.
    pub baseline_max_hz: f64,
    /// Largest amplitude of the within-trial baseline modulation (pre-softplus, ≈ Hz).
    pub baseline_within_trial_hz: f64,
    /// Largest across-session baseline drift from start to end of the session (pre-softplus, ≈ Hz).
    pub baseline_drift_hz: f64,
    /// Time from one trial's start to the next, s.
    pub inter_trial_s: f64,
    /// When set, clicks arrive only during the first this-many seconds of a trial and the rest
    /// is a delay without input, where the autonomous flow alone moves the latent (this
    /// separates the flow from the input's push).
    pub stimulus_s: Option<f64>,
}

/// The default set is the FINDR panel's and its example project's: 200 trials with clicks in the
/// first 0.4 s and then a delay, bistable bumps strong enough to recover (strength 2/τ, width
/// 0.2, half a latent unit per click), and 100 neurons reading the latent out at 20 Hz per unit
/// (informative enough that the posterior does not blur the attractors outward). One source: a
/// project that sets some fields keeps these for the rest.
impl Default for SyntheticParams {
    fn default() -> Self {
        Self {
            n_trials: 200,
            n_neurons: 100,
            min_bins: 50,
            max_bins: 100,
            bin_s: 0.01,
            tau_s: 0.1,
            gammas: vec![-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5],
            total_click_rate_hz: 40.0,
            adaptation_phi: 1e-3,
            adaptation_recovery_per_s: 100.0,
            flow: PlantedFlow {
                bump_strength: 2.0,
                bump_width: 0.2,
                input_gain: 0.5,
                ..PlantedFlow::default()
            },
            latent_noise: 0.1,
            readout_gain_hz: 20.0,
            baseline_min_hz: 5.0,
            baseline_max_hz: 20.0,
            baseline_within_trial_hz: 3.0,
            baseline_drift_hz: 2.0,
            inter_trial_s: 6.0,
            stimulus_s: Some(0.4),
        }
    }
}

impl SyntheticParams {
    /// α = Δt/τ.
    pub fn alpha(&self) -> f64 {
        self.bin_s / self.tau_s
    }

    /// Checks every parameter; errors name the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if self.n_trials == 0 || self.n_trials > 100_000 {
            return Err(ComputeError::invalid(
                "n_trials",
                "choose 1 to 100000 trials",
            ));
        }
        if self.n_neurons == 0 || self.n_neurons > 10_000 {
            return Err(ComputeError::invalid(
                "n_neurons",
                "choose 1 to 10000 neurons",
            ));
        }
        if self.max_bins == 0 || self.max_bins > 10_000 {
            return Err(ComputeError::invalid("max_bins", "choose 1 to 10000 bins"));
        }
        if self.min_bins == 0 || self.min_bins > self.max_bins {
            return Err(ComputeError::invalid(
                "min_bins",
                "choose at least 1 bin and no more than max_bins",
            ));
        }
        ComputeError::check_memory(
            &[
                ("n_trials", self.n_trials),
                ("max_bins", self.max_bins),
                ("n_neurons", self.n_neurons),
            ],
            8,
            benchtop_compute::error::ARRAY_LIMIT_BYTES,
        )?;
        let positive = [
            ("bin_s", self.bin_s),
            ("tau_s", self.tau_s),
            ("inter_trial_s", self.inter_trial_s),
            ("adaptation_recovery_per_s", self.adaptation_recovery_per_s),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(ComputeError::invalid(name, "must be a positive number"));
            }
        }
        if self.alpha() > 1.0 {
            return Err(ComputeError::invalid(
                "tau_s",
                "τ must be at least the bin width (α = Δt/τ ≤ 1)",
            ));
        }
        let non_negative = [
            ("total_click_rate_hz", self.total_click_rate_hz),
            ("latent_noise", self.latent_noise),
            ("readout_gain_hz", self.readout_gain_hz),
            ("baseline_within_trial_hz", self.baseline_within_trial_hz),
            ("baseline_drift_hz", self.baseline_drift_hz),
        ];
        for (name, value) in non_negative {
            if !(value.is_finite() && value >= 0.0) {
                return Err(ComputeError::invalid(name, "must be zero or positive"));
            }
        }
        if !(self.adaptation_phi.is_finite() && (0.0..=1.0).contains(&self.adaptation_phi)) {
            return Err(ComputeError::invalid(
                "adaptation_phi",
                "choose φ in [0, 1]",
            ));
        }
        if !(self.baseline_min_hz.is_finite() && self.baseline_min_hz > 0.0) {
            return Err(ComputeError::invalid("baseline_min_hz", "must be positive"));
        }
        if !(self.baseline_max_hz.is_finite() && self.baseline_max_hz >= self.baseline_min_hz) {
            return Err(ComputeError::invalid(
                "baseline_max_hz",
                "must be at least baseline_min_hz",
            ));
        }
        if self.gammas.is_empty() || self.gammas.iter().any(|g| !g.is_finite()) {
            return Err(ComputeError::invalid(
                "gammas",
                "give at least one finite evidence strength",
            ));
        }
        if let Some(stimulus) = self.stimulus_s
            && !(stimulus.is_finite() && stimulus > 0.0)
        {
            return Err(ComputeError::invalid(
                "stimulus_s",
                "must be a positive number of seconds (or absent: clicks throughout)",
            ));
        }
        self.flow.validate()
    }
}

/// The planted truth behind a synthetic data set.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlantedTruth {
    /// The planted flow (units of 1/τ).
    pub flow: PlantedFlow,
    /// The time constant τ of the planted dynamics, s.
    pub tau_s: f64,
    /// Readout C, `[n_neurons, 2]` row-major, Hz per latent unit.
    pub readout_hz: Vec<f64>,
    /// Baseline b (pre-softplus), `[n_trials, max_bins, n_neurons]`, zero past each length.
    pub baseline: Vec<f64>,
    /// Latents z, `[n_trials, max_bins, 2]`, zero past each length.
    pub latents: Vec<f64>,
    /// Rates λ in Hz, `[n_trials, max_bins, n_neurons]`, zero past each length.
    pub rates_hz: Vec<f64>,
    /// Evidence strength γ of each trial.
    pub gammas: Vec<f64>,
    /// Clicks of each trial.
    pub clicks: Vec<Vec<Click>>,
}

/// A synthetic data set: the trials and the truth that made them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SyntheticData {
    /// The trials, in the FINDR layout.
    pub trials: TrialSet,
    /// The planted truth.
    pub truth: PlantedTruth,
}

/// Per-neuron baseline shape: b(t, s) = mean + within·cos(2π t/1 s + phase) + drift·(2s − 1),
/// where t is within-trial time (s) and s ∈ [0, 1] the position of the trial in the session.
#[derive(Clone, Copy, Debug)]
struct NeuronBaseline {
    mean: f64,
    within: f64,
    phase: f64,
    drift: f64,
}

impl NeuronBaseline {
    fn at(&self, t_s: f64, session_fraction: f64) -> f64 {
        self.mean
            + self.within * (std::f64::consts::TAU * t_s + self.phase).cos()
            + self.drift * (2.0 * session_fraction - 1.0)
    }
}

/// A zero-mean normal distribution of standard deviation `std`.
pub(crate) fn normal(std: f64) -> Result<Normal<f64>, ComputeError> {
    Normal::new(0.0, std).map_err(|e| ComputeError::Numerical(e.to_string()))
}

/// Generates the synthetic data set for `params` and `seed`; the same inputs give the same bits.
pub fn generate(
    params: &SyntheticParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<SyntheticData, ComputeError> {
    params.validate()?;
    let (n_trials, n_neurons, max_bins) = (params.n_trials, params.n_neurons, params.max_bins);
    let alpha = params.alpha();
    let flow = &params.flow;

    // Neurons: readout and baseline shapes.
    let mut neuron_rng = seeded(derive_seed(seed, 1));
    let readout_dist = normal(params.readout_gain_hz)?;
    let mut readout_hz = Vec::with_capacity(2 * n_neurons);
    let mut neurons = Vec::with_capacity(n_neurons);
    for _ in 0..n_neurons {
        readout_hz.push(readout_dist.sample(&mut neuron_rng));
        readout_hz.push(readout_dist.sample(&mut neuron_rng));
        let mean_hz = neuron_rng.random_range(params.baseline_min_hz..=params.baseline_max_hz);
        neurons.push(NeuronBaseline {
            mean: softplus_inverse(mean_hz),
            within: params.baseline_within_trial_hz * neuron_rng.random::<f64>(),
            phase: std::f64::consts::TAU * neuron_rng.random::<f64>(),
            drift: params.baseline_drift_hz * (2.0 * neuron_rng.random::<f64>() - 1.0),
        });
    }

    let adaptation = Adaptation {
        phi: params.adaptation_phi,
        recovery_per_s: params.adaptation_recovery_per_s,
    };
    let noise = normal(1.0)?;
    let noise_scale = alpha.sqrt() * params.latent_noise;
    let cells = n_trials * max_bins;
    let mut spikes = vec![0.0f32; cells * n_neurons];
    let mut inputs = vec![0.0f32; cells * 2];
    let mut baseline = vec![0.0; cells * n_neurons];
    let mut latents = vec![0.0; cells * 2];
    let mut rates_hz = vec![0.0; cells * n_neurons];
    let mut lengths = Vec::with_capacity(n_trials);
    let mut times_s = Vec::with_capacity(n_trials);
    let mut choices = Vec::with_capacity(n_trials);
    let mut gammas = Vec::with_capacity(n_trials);
    let mut all_clicks = Vec::with_capacity(n_trials);
    let session_span = (n_trials.max(2) - 1) as f64;

    for trial in 0..n_trials {
        cancel.check()?;
        let trial_u64 = trial as u64;
        let mut task_rng = seeded(derive_seed(derive_seed(seed, 2), trial_u64));
        let mut latent_rng = seeded(derive_seed(derive_seed(seed, 3), trial_u64));
        let mut spike_rng = seeded(derive_seed(derive_seed(seed, 4), trial_u64));

        let gamma = params.gammas[task_rng.random_range(0..params.gammas.len())];
        let length = task_rng.random_range(params.min_bins..=params.max_bins);
        let duration_s = length as f64 * params.bin_s;
        let clicks = draw_clicks(
            &mut task_rng,
            gamma,
            params.total_click_rate_hz,
            params.stimulus_s.map_or(duration_s, |s| s.min(duration_s)),
            adaptation,
        )?;
        let binned = bin_clicks(&clicks, length, params.bin_s);
        let session_fraction = trial as f64 / session_span;

        let mut z = [0.0f64; 2];
        for bin in 0..length {
            let u = [binned[2 * bin], binned[2 * bin + 1]];
            let f = flow.flow(z, u);
            for d in 0..2 {
                z[d] += alpha * f[d] + noise_scale * noise.sample(&mut latent_rng);
            }
            if !(z[0].is_finite() && z[1].is_finite()) {
                return Err(ComputeError::Numerical(format!(
                    "latent diverged in trial {trial}, bin {bin}"
                )));
            }
            let cell = trial * max_bins + bin;
            inputs[2 * cell] = u[0] as f32;
            inputs[2 * cell + 1] = u[1] as f32;
            latents[2 * cell] = z[0];
            latents[2 * cell + 1] = z[1];
            let t_s = bin as f64 * params.bin_s;
            for (n, shape) in neurons.iter().enumerate() {
                let b = shape.at(t_s, session_fraction);
                let drive = readout_hz[2 * n] * z[0] + readout_hz[2 * n + 1] * z[1] + b;
                let rate = softplus(drive) + RATE_FLOOR_HZ;
                let count = Poisson::new(rate * params.bin_s)
                    .map_err(|e| ComputeError::Numerical(e.to_string()))?
                    .sample(&mut spike_rng);
                let i = cell * n_neurons + n;
                baseline[i] = b;
                rates_hz[i] = rate;
                spikes[i] = count as f32;
            }
        }
        lengths.push(length);
        times_s.push(trial as f64 * params.inter_trial_s);
        choices.push(z[0] > 0.0);
        gammas.push(gamma);
        all_clicks.push(clicks);
        progress.set_count(trial as u64 + 1, n_trials as u64);
    }

    Ok(SyntheticData {
        trials: TrialSet {
            n_trials,
            max_bins,
            n_neurons,
            bin_s: params.bin_s,
            spikes,
            inputs,
            lengths,
            times_s,
            choices: Some(choices),
        },
        truth: PlantedTruth {
            flow: flow.clone(),
            tau_s: params.tau_s,
            readout_hz,
            baseline,
            latents,
            rates_hz,
            gammas,
            clicks: all_clicks,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> SyntheticParams {
        SyntheticParams {
            n_trials: 60,
            n_neurons: 20,
            min_bins: 40,
            max_bins: 60,
            ..SyntheticParams::default()
        }
    }

    fn run(params: &SyntheticParams, seed: u64) -> SyntheticData {
        generate(params, seed, &Progress::new(), &CancelToken::new()).unwrap()
    }

    #[test]
    fn spike_counts_average_to_the_rates() {
        let data = run(&small(), 11);
        let t = &data.trials;
        let (mut counts, mut expected) = (0.0f64, 0.0f64);
        for trial in 0..t.n_trials {
            for bin in 0..t.max_bins {
                for n in 0..t.n_neurons {
                    let i = t.spike_index(trial, bin, n);
                    if bin >= t.lengths[trial] {
                        assert_eq!(t.spikes[i], 0.0);
                        assert_eq!(data.truth.rates_hz[i], 0.0);
                        continue;
                    }
                    counts += f64::from(t.spikes[i]);
                    expected += data.truth.rates_hz[i] * t.bin_s;
                }
            }
        }
        // The total of independent Poisson counts has variance equal to its mean.
        assert!(expected > 1000.0);
        assert!(
            (counts - expected).abs() < 4.0 * expected.sqrt(),
            "{counts} vs {expected}"
        );
    }

    #[test]
    fn rates_are_softplus_of_readout_plus_baseline() {
        let data = run(&small(), 5);
        let (t, truth) = (&data.trials, &data.truth);
        for (trial, bin, n) in [(0, 0, 0), (7, 13, 4), (59, 39, 19)] {
            let i = t.spike_index(trial, bin, n);
            let cell = trial * t.max_bins + bin;
            let drive = truth.readout_hz[2 * n] * truth.latents[2 * cell]
                + truth.readout_hz[2 * n + 1] * truth.latents[2 * cell + 1]
                + truth.baseline[i];
            assert!((truth.rates_hz[i] - softplus(drive) - RATE_FLOOR_HZ).abs() < 1e-12);
        }
    }

    #[test]
    fn noiseless_latents_follow_euler_steps_of_the_flow() {
        let params = SyntheticParams {
            latent_noise: 0.0,
            ..small()
        };
        let data = run(&params, 2);
        let t = &data.trials;
        let alpha = params.alpha();
        for trial in [0, 9, 31] {
            let mut z = [0.0; 2];
            for bin in 0..t.lengths[trial] {
                let u = t.input(trial, bin);
                let f = params.flow.flow(z, [f64::from(u[0]), f64::from(u[1])]);
                z = [z[0] + alpha * f[0], z[1] + alpha * f[1]];
                let cell = trial * t.max_bins + bin;
                // Inputs are stored as f32, so allow for their rounding.
                assert!((data.truth.latents[2 * cell] - z[0]).abs() < 1e-5);
                assert!((data.truth.latents[2 * cell + 1] - z[1]).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn evidence_moves_the_latent_towards_the_favoured_side() {
        let params = SyntheticParams {
            gammas: vec![-3.5, 3.5],
            n_trials: 80,
            ..small()
        };
        let data = run(&params, 8);
        let choices = data.trials.choices.as_ref().unwrap();
        let agree = data
            .truth
            .gammas
            .iter()
            .zip(choices)
            .filter(|(g, c)| (**g > 0.0) == **c)
            .count();
        assert!(agree >= 76, "{agree} of 80 choices follow the evidence");
    }

    #[test]
    fn clicks_stop_after_the_stimulus_window() {
        let params = SyntheticParams {
            stimulus_s: Some(0.2),
            ..small()
        };
        let data = generate(&params, 3, &Progress::new(), &CancelToken::new()).unwrap();
        let t = &data.trials;
        let mut before = 0.0;
        for trial in 0..t.n_trials {
            for bin in 0..t.lengths[trial] {
                let u = t.input(trial, bin);
                if bin >= 20 {
                    assert_eq!(u, [0.0, 0.0], "trial {trial}, bin {bin}");
                } else {
                    before += f64::from(u[0] + u[1]);
                }
            }
            assert!(data.truth.clicks[trial].iter().all(|c| c.time_s < 0.2));
        }
        assert!(before > 0.0);
        let bad = SyntheticParams {
            stimulus_s: Some(-1.0),
            ..small()
        };
        assert!(bad.validate().is_err());
    }

    #[test]
    fn same_seed_same_bits_and_seeds_differ() {
        let params = small();
        let a = run(&params, 42);
        let b = run(&params, 42);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&a.trials.spikes), bits(&b.trials.spikes));
        assert_eq!(bits(&a.trials.inputs), bits(&b.trials.inputs));
        assert_eq!(a, b);
        let c = run(&params, 43);
        assert_ne!(a.trials.spikes, c.trials.spikes);
    }

    #[test]
    fn params_default_from_empty_json_and_validate_names_keys() {
        let params: SyntheticParams = serde_json::from_str("{}").unwrap();
        assert_eq!(params, SyntheticParams::default());
        params.validate().unwrap();
        let cases = [
            (
                SyntheticParams {
                    min_bins: 200,
                    ..SyntheticParams::default()
                },
                "min_bins",
            ),
            (
                SyntheticParams {
                    tau_s: 0.001,
                    ..SyntheticParams::default()
                },
                "tau_s",
            ),
            (
                SyntheticParams {
                    gammas: Vec::new(),
                    ..SyntheticParams::default()
                },
                "gammas",
            ),
            (
                SyntheticParams {
                    flow: PlantedFlow {
                        across_decay: -1.0,
                        ..PlantedFlow::default()
                    },
                    ..SyntheticParams::default()
                },
                "across_decay",
            ),
        ];
        for (params, key) in cases {
            match params.validate() {
                Err(ComputeError::InvalidParameter { name, .. }) => assert_eq!(name, key),
                other => panic!("expected an error naming {key}, got {other:?}"),
            }
        }
    }

    #[test]
    fn cancel_stops_generation() {
        let cancel = CancelToken::new();
        cancel.cancel();
        let result = generate(&small(), 1, &Progress::new(), &cancel);
        assert!(matches!(result, Err(ComputeError::Cancelled)));
    }
}
