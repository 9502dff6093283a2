//! The per-neuron baseline b_{t,n} that FINDR fits before the latent model: a ridge regression
//! of each neuron's rate (counts/Δt, Hz) on radial basis functions of within-trial time
//! (arcsinh-warped, u = asinh(t/η)) and of across-session time (trial start, scaled to [0, 1]),
//! plus an unpenalised intercept. The number of within-trial bases and the ridge are chosen per
//! neuron on held-out trials (every `validation_every`-th trial), then the model is refitted on
//! every trial. The fitted rate r̂ becomes the pre-softplus baseline b = softplus⁻¹(max(r̂, floor)).
//!
//! The objective per neuron is (1/n) Σ (y − Φw)² + λ Σ_{k≥1} w_k².

use serde::{Deserialize, Serialize};

use benchtop_compute::{CancelToken, ComputeError, Progress};

use crate::linalg::solve;
use crate::softplus::softplus_inverse;
use crate::trials::TrialSet;

/// Parameters of the baseline fit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BaselineParams {
    /// Candidate numbers of within-trial bases (each at least 2).
    pub within_trial_bases: Vec<usize>,
    /// Number of across-session bases (0: no drift term, otherwise at least 2).
    pub across_session_bases: usize,
    /// Candidate ridge penalties λ.
    pub ridges: Vec<f64>,
    /// The time scale η of the arcsinh warp, s.
    pub warp_eta_s: f64,
    /// Every this-many-th trial (the last of each group) is held out for validation.
    pub validation_every: usize,
    /// The smallest fitted rate turned into a baseline, Hz.
    pub min_rate_hz: f64,
}

impl Default for BaselineParams {
    fn default() -> Self {
        Self {
            within_trial_bases: vec![4, 6, 8, 10],
            across_session_bases: 3,
            ridges: vec![1e-1, 1e-2, 1e-3, 1e-4, 1e-5],
            warp_eta_s: 0.12,
            validation_every: 5,
            min_rate_hz: 0.1,
        }
    }
}

impl BaselineParams {
    /// Checks every parameter; errors name the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if self.within_trial_bases.is_empty()
            || self
                .within_trial_bases
                .iter()
                .any(|&k| !(2..=50).contains(&k))
        {
            return Err(ComputeError::invalid(
                "within_trial_bases",
                "give one or more basis counts between 2 and 50",
            ));
        }
        if self.across_session_bases == 1 || self.across_session_bases > 50 {
            return Err(ComputeError::invalid(
                "across_session_bases",
                "choose 0 (no drift) or 2 to 50 bases",
            ));
        }
        if self.ridges.is_empty() || self.ridges.iter().any(|r| !(r.is_finite() && *r > 0.0)) {
            return Err(ComputeError::invalid(
                "ridges",
                "give one or more positive ridge penalties",
            ));
        }
        if !(self.warp_eta_s.is_finite() && self.warp_eta_s > 0.0) {
            return Err(ComputeError::invalid("warp_eta_s", "must be positive"));
        }
        if self.validation_every < 2 {
            return Err(ComputeError::invalid(
                "validation_every",
                "hold out at most every second trial (at least 2)",
            ));
        }
        if !(self.min_rate_hz.is_finite() && self.min_rate_hz > 0.0) {
            return Err(ComputeError::invalid("min_rate_hz", "must be positive"));
        }
        Ok(())
    }
}

/// Gaussian radial basis functions evenly spaced over `[lo, hi]`, width equal to the spacing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RadialBasis {
    /// Centres.
    pub centres: Vec<f64>,
    /// Width (standard deviation).
    pub width: f64,
}

impl RadialBasis {
    /// `count` (≥ 2) bases over `[lo, hi]`.
    pub fn even(count: usize, lo: f64, hi: f64) -> Self {
        let span = if hi > lo { hi - lo } else { 1.0 };
        let spacing = span / (count.max(2) - 1) as f64;
        let centres = (0..count).map(|k| lo + spacing * k as f64).collect();
        Self {
            centres,
            width: spacing,
        }
    }

    /// Appends the basis values at `x` to `out`.
    pub fn eval_into(&self, x: f64, out: &mut Vec<f64>) {
        for c in &self.centres {
            let d = (x - c) / self.width;
            out.push((-0.5 * d * d).exp());
        }
    }
}

/// The fitted baseline of every neuron.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FittedBaseline {
    /// The warp time scale η, s.
    pub warp_eta_s: f64,
    /// Across-session time of the first and last trial, s (for scaling to [0, 1]).
    pub session_range_s: (f64, f64),
    /// Across-session bases (None without a drift term).
    pub across: Option<RadialBasis>,
    /// Per neuron: the within-trial bases chosen.
    pub within: Vec<RadialBasis>,
    /// Per neuron: weights [intercept, within…, across…].
    pub weights: Vec<Vec<f64>>,
    /// Per neuron: the ridge chosen.
    pub ridge: Vec<f64>,
    /// Per neuron: the validation mean squared error of the chosen model, Hz².
    pub validation_mse: Vec<f64>,
    /// The rate floor, Hz.
    pub min_rate_hz: f64,
}

struct Design {
    within: RadialBasis,
    across: Option<RadialBasis>,
    eta: f64,
    session: (f64, f64),
}

impl Design {
    fn size(&self) -> usize {
        1 + self.within.centres.len() + self.across.as_ref().map_or(0, |a| a.centres.len())
    }

    fn row(&self, t_s: f64, trial_time_s: f64, out: &mut Vec<f64>) {
        out.clear();
        out.push(1.0);
        self.within.eval_into((t_s / self.eta).asinh(), out);
        if let Some(across) = &self.across {
            across.eval_into(session_fraction(trial_time_s, self.session), out);
        }
    }
}

fn session_fraction(time_s: f64, (lo, hi): (f64, f64)) -> f64 {
    if hi > lo {
        (time_s - lo) / (hi - lo)
    } else {
        0.0
    }
}

/// Accumulated normal equations ΦᵀΦ (p×p) and Φᵀy (p×N) over a set of trials.
struct Normal {
    gram: Vec<f64>,
    rhs: Vec<f64>,
    rows: usize,
}

fn accumulate(data: &TrialSet, design: &Design, trials: &[usize]) -> Normal {
    let p = design.size();
    let n = data.n_neurons;
    let mut gram = vec![0.0; p * p];
    let mut rhs = vec![0.0; p * n];
    let mut rows = 0;
    let mut phi = Vec::with_capacity(p);
    for &trial in trials {
        for bin in 0..data.lengths[trial] {
            design.row(bin as f64 * data.bin_s, data.times_s[trial], &mut phi);
            for a in 0..p {
                for b in 0..p {
                    gram[a * p + b] += phi[a] * phi[b];
                }
            }
            let base = data.spike_index(trial, bin, 0);
            for (neuron, count) in data.spikes[base..base + n].iter().enumerate() {
                let y = f64::from(*count) / data.bin_s;
                for a in 0..p {
                    rhs[a * n + neuron] += phi[a] * y;
                }
            }
            rows += 1;
        }
    }
    Normal { gram, rhs, rows }
}

/// Ridge weights for every neuron: (G/n + λD) W = R/n, D = diag(0, 1, …, 1).
fn ridge_weights(
    normal: &Normal,
    p: usize,
    n: usize,
    ridge: f64,
) -> Result<Vec<f64>, ComputeError> {
    let rows = normal.rows.max(1) as f64;
    let mut a: Vec<f64> = normal.gram.iter().map(|g| g / rows).collect();
    for k in 1..p {
        a[k * p + k] += ridge;
    }
    let b: Vec<f64> = normal.rhs.iter().map(|r| r / rows).collect();
    solve(&a, &b, p, n)
}

/// Per-neuron mean squared error (Hz²) of weights `w` (p×N) on `trials`.
fn mse(data: &TrialSet, design: &Design, trials: &[usize], w: &[f64]) -> Vec<f64> {
    let p = design.size();
    let n = data.n_neurons;
    let mut sum = vec![0.0; n];
    let mut rows = 0usize;
    let mut phi = Vec::with_capacity(p);
    for &trial in trials {
        for bin in 0..data.lengths[trial] {
            design.row(bin as f64 * data.bin_s, data.times_s[trial], &mut phi);
            let base = data.spike_index(trial, bin, 0);
            for neuron in 0..n {
                let fit: f64 = (0..p).map(|a| phi[a] * w[a * n + neuron]).sum();
                let y = f64::from(data.spikes[base + neuron]) / data.bin_s;
                sum[neuron] += (y - fit) * (y - fit);
            }
            rows += 1;
        }
    }
    let rows = rows.max(1) as f64;
    sum.into_iter().map(|s| s / rows).collect()
}

fn check_layout(data: &TrialSet) -> Result<(), ComputeError> {
    let cells = data.n_trials * data.max_bins;
    if data.spikes.len() != cells * data.n_neurons {
        return Err(ComputeError::invalid(
            "spikes",
            format!(
                "expected shape [{}, {}, {}]",
                data.n_trials, data.max_bins, data.n_neurons
            ),
        ));
    }
    if data.lengths.len() != data.n_trials || data.lengths.iter().any(|&l| l > data.max_bins) {
        return Err(ComputeError::invalid(
            "lengths",
            format!(
                "expected {} lengths of at most {} bins",
                data.n_trials, data.max_bins
            ),
        ));
    }
    if data.times_s.len() != data.n_trials {
        return Err(ComputeError::invalid(
            "times",
            format!("expected {} trial start times", data.n_trials),
        ));
    }
    if !(data.bin_s.is_finite() && data.bin_s > 0.0) {
        return Err(ComputeError::invalid("bin_s", "must be positive"));
    }
    Ok(())
}

/// Fits the baseline of every neuron of `data`.
pub fn fit(
    data: &TrialSet,
    params: &BaselineParams,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<FittedBaseline, ComputeError> {
    params.validate()?;
    check_layout(data)?;
    let (train, validation): (Vec<usize>, Vec<usize>) = (0..data.n_trials)
        .partition(|t| t % params.validation_every != params.validation_every - 1);
    if train.is_empty() || validation.is_empty() {
        return Err(ComputeError::invalid(
            "trials",
            format!(
                "the data has {} trials; the baseline needs at least {} (one in every {} is held \
                 out for validation)",
                data.n_trials, params.validation_every, params.validation_every
            ),
        ));
    }
    let n = data.n_neurons;
    let session = data
        .times_s
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &t| {
            (lo.min(t), hi.max(t))
        });
    let across = (params.across_session_bases >= 2)
        .then(|| RadialBasis::even(params.across_session_bases, 0.0, 1.0));
    let t_max = (data.max_bins.max(2) - 1) as f64 * data.bin_s;
    let eta = params.warp_eta_s;

    // Best (validation MSE, bases, ridge) per neuron.
    let mut best: Vec<(f64, usize, f64)> = vec![(f64::INFINITY, 0, 0.0); n];
    let total = params.within_trial_bases.len() * params.ridges.len();
    let mut done = 0;
    for &count in &params.within_trial_bases {
        let design = Design {
            within: RadialBasis::even(count, 0.0, (t_max / eta).asinh()),
            across: across.clone(),
            eta,
            session,
        };
        let normal = accumulate(data, &design, &train);
        for &ridge in &params.ridges {
            cancel.check()?;
            let w = ridge_weights(&normal, design.size(), n, ridge)?;
            for (neuron, err) in mse(data, &design, &validation, &w).into_iter().enumerate() {
                if err < best[neuron].0 {
                    best[neuron] = (err, count, ridge);
                }
            }
            done += 1;
            progress.set_count(done, total as u64);
        }
    }

    // Refit each neuron on every trial with its chosen bases and ridge.
    let all: Vec<usize> = (0..data.n_trials).collect();
    let mut within = Vec::with_capacity(n);
    let mut weights = vec![Vec::new(); n];
    for &count in &params.within_trial_bases {
        let chosen: Vec<usize> = (0..n).filter(|&k| best[k].1 == count).collect();
        if chosen.is_empty() {
            continue;
        }
        let design = Design {
            within: RadialBasis::even(count, 0.0, (t_max / eta).asinh()),
            across: across.clone(),
            eta,
            session,
        };
        let p = design.size();
        let normal = accumulate(data, &design, &all);
        for &neuron in &chosen {
            let w = ridge_weights(&normal, p, n, best[neuron].2)?;
            weights[neuron] = (0..p).map(|a| w[a * n + neuron]).collect();
        }
    }
    for &(_, count, _) in &best {
        within.push(RadialBasis::even(count, 0.0, (t_max / eta).asinh()));
    }
    Ok(FittedBaseline {
        warp_eta_s: eta,
        session_range_s: session,
        across,
        within,
        weights,
        ridge: best.iter().map(|b| b.2).collect(),
        validation_mse: best.iter().map(|b| b.0).collect(),
        min_rate_hz: params.min_rate_hz,
    })
}

impl FittedBaseline {
    /// The fitted rate of `neuron` at within-trial time `t_s` in a trial starting at
    /// `trial_time_s`, Hz (not floored).
    pub fn rate_hz(&self, neuron: usize, t_s: f64, trial_time_s: f64) -> f64 {
        let mut phi = vec![1.0];
        self.within[neuron].eval_into((t_s / self.warp_eta_s).asinh(), &mut phi);
        if let Some(across) = &self.across {
            across.eval_into(
                session_fraction(trial_time_s, self.session_range_s),
                &mut phi,
            );
        }
        phi.iter()
            .zip(&self.weights[neuron])
            .map(|(a, b)| a * b)
            .sum()
    }

    /// The pre-softplus baseline b = softplus⁻¹(max(rate, floor)) for every valid bin of
    /// `data`, `[n_trials, max_bins, n_neurons]`, zero past each length.
    pub fn baseline(&self, data: &TrialSet) -> Vec<f64> {
        let mut out = vec![0.0; data.n_trials * data.max_bins * data.n_neurons];
        for trial in 0..data.n_trials {
            for bin in 0..data.lengths[trial] {
                let t_s = bin as f64 * data.bin_s;
                for neuron in 0..data.n_neurons.min(self.weights.len()) {
                    let rate = self.rate_hz(neuron, t_s, data.times_s[trial]);
                    out[data.spike_index(trial, bin, neuron)] =
                        softplus_inverse(rate.max(self.min_rate_hz));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::softplus::softplus;
    use crate::synthetic::{SyntheticParams, generate};

    #[test]
    fn recovers_a_planted_smooth_baseline() {
        // No latent drive: the rates are exactly softplus of the planted baseline.
        let params = SyntheticParams {
            n_trials: 2000,
            n_neurons: 4,
            min_bins: 100,
            max_bins: 100,
            readout_gain_hz: 0.0,
            baseline_min_hz: 20.0,
            baseline_max_hz: 30.0,
            baseline_within_trial_hz: 8.0,
            baseline_drift_hz: 4.0,
            ..SyntheticParams::default()
        };
        let data = generate(&params, 21, &Progress::new(), &CancelToken::new()).unwrap();
        let fitted = fit(
            &data.trials,
            &BaselineParams::default(),
            &Progress::new(),
            &CancelToken::new(),
        )
        .unwrap();
        let b = fitted.baseline(&data.trials);
        let truth = &data.truth.baseline;
        let t = &data.trials;
        let mut modulated = 0;
        for neuron in 0..t.n_neurons {
            let (mut err2, mut spread2, mut count) = (0.0, 0.0, 0.0);
            let mean_rate: f64 = (0..t.n_trials)
                .flat_map(|trial| (0..100).map(move |bin| (trial, bin)))
                .map(|(trial, bin)| softplus(truth[t.spike_index(trial, bin, neuron)]))
                .sum::<f64>()
                / (100.0 * 2000.0);
            for trial in 0..t.n_trials {
                for bin in 0..100 {
                    let i = t.spike_index(trial, bin, neuron);
                    let (fit_hz, true_hz) = (softplus(b[i]), softplus(truth[i]));
                    err2 += (fit_hz - true_hz).powi(2);
                    spread2 += (true_hz - mean_rate).powi(2);
                    count += 1.0;
                }
            }
            let (rms, spread) = ((err2 / count).sqrt(), (spread2 / count).sqrt());
            eprintln!("neuron {neuron}: rms {rms:.3} Hz, planted spread {spread:.3} Hz");
            // Absolute accuracy, and a fraction of the planted modulation where there is one.
            assert!(rms < 0.6, "neuron {neuron}: rms {rms} Hz");
            if spread > 1.5 {
                modulated += 1;
                assert!(
                    rms < 0.25 * spread,
                    "neuron {neuron}: rms {rms} vs spread {spread}"
                );
            }
            assert!(fitted.validation_mse[neuron].is_finite());
            assert!(
                BaselineParams::default()
                    .ridges
                    .contains(&fitted.ridge[neuron])
            );
        }
        assert!(modulated >= 2, "the planted baselines should vary");
    }

    #[test]
    fn a_constant_rate_is_fitted_exactly_without_noise() {
        // Counts equal to rate·Δt in every bin: the intercept carries it, every basis weight is 0.
        let (n_trials, max_bins) = (10, 20);
        let data = TrialSet {
            n_trials,
            max_bins,
            n_neurons: 1,
            bin_s: 0.01,
            spikes: vec![1.0; n_trials * max_bins],
            inputs: vec![0.0; n_trials * max_bins * 2],
            lengths: vec![max_bins; n_trials],
            times_s: (0..10u32).map(f64::from).collect(),
            choices: None,
        };
        let fitted = fit(
            &data,
            &BaselineParams::default(),
            &Progress::new(),
            &CancelToken::new(),
        )
        .unwrap();
        assert!((fitted.rate_hz(0, 0.07, 3.0) - 100.0).abs() < 1e-8);
        assert!(fitted.validation_mse[0] < 1e-12);
    }

    #[test]
    fn validate_and_layout_errors_name_the_key() {
        let bad = BaselineParams {
            ridges: vec![0.0],
            ..BaselineParams::default()
        };
        assert!(
            matches!(bad.validate(), Err(ComputeError::InvalidParameter { name, .. }) if name == "ridges")
        );
        let data = TrialSet {
            n_trials: 2,
            max_bins: 3,
            n_neurons: 2,
            bin_s: 0.01,
            spikes: vec![0.0; 5],
            inputs: vec![0.0; 12],
            lengths: vec![3, 3],
            times_s: vec![0.0, 1.0],
            choices: None,
        };
        let result = fit(
            &data,
            &BaselineParams::default(),
            &Progress::new(),
            &CancelToken::new(),
        );
        assert!(
            matches!(result, Err(ComputeError::InvalidParameter { name, .. }) if name == "spikes")
        );
    }
}
