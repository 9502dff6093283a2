//! The held-out predictive likelihood: how well the learned prior flow predicts spikes the
//! encoder has not seen.
//!
//! For each trial the encoder reads the clicks and the spikes of the first
//! `observed_fraction` of its bins only (the trial is cut there); the noiseless posterior path
//! over those bins gives the latent at the cut. From there the learned prior SDE alone carries
//! the latent through the rest of the trial with the trial's clicks (`samples` Euler–Maruyama
//! paths, z ← z + α F(z, u) + √α σ ε), and the Poisson likelihood of the unseen bins is
//! averaged over the paths (log-mean-exp per trial). The baseline alone (z = 0) is scored on
//! the same bins. Both are in nats per predicted bin (summed over neurons), so the difference is
//! what the latent flow adds to the prediction of spikes it was not shown; a collapsed or
//! uninformative latent gains nothing.

use candle_core::DType;
use rand_distr::{Distribution as _, StandardNormal};
use serde::{Deserialize, Serialize};

use benchtop_compute::ComputeError;
use benchtop_compute::rng::{derive_seed, seeded};

use crate::flow_weights::FlowWeights;
use crate::model::{Batch, FindrModel, INPUT_DIM, LATENT_DIM};
use crate::softplus::softplus;
use crate::synthetic::RATE_FLOOR_HZ;
use crate::trials::TrialSet;

/// Parameters of the held-out predictive likelihood.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PredictiveParams {
    /// Fraction of each trial's bins the encoder sees; the rest are predicted.
    pub observed_fraction: f64,
    /// Prior paths per trial for the validation score of every epoch.
    pub validation_samples: usize,
    /// Prior paths per trial for the reported test score.
    pub test_samples: usize,
}

impl Default for PredictiveParams {
    fn default() -> Self {
        Self {
            observed_fraction: 0.5,
            validation_samples: 16,
            test_samples: 64,
        }
    }
}

impl PredictiveParams {
    /// Checks every parameter; errors name the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(self.observed_fraction > 0.0 && self.observed_fraction < 1.0) {
            return Err(ComputeError::invalid(
                "observed_fraction",
                "choose a fraction strictly between 0 and 1",
            ));
        }
        for (name, value) in [
            ("validation_samples", self.validation_samples),
            ("test_samples", self.test_samples),
        ] {
            if !(1..=10_000).contains(&value) {
                return Err(ComputeError::invalid(name, "choose 1 to 10000 paths"));
            }
        }
        Ok(())
    }

    /// The bins the encoder sees of a trial of `length` bins (at least one, and at least one
    /// left to predict); `None` when the trial is too short to split.
    pub fn observed_bins(&self, length: usize) -> Option<usize> {
        let cut = (self.observed_fraction * length as f64).round() as usize;
        (length >= 2).then(|| cut.clamp(1, length - 1))
    }
}

/// The held-out predictive scores of one set of trials.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PredictiveScore {
    /// The model's predictive Poisson NLL per predicted bin, nats.
    pub nll: f64,
    /// The baseline alone on the same bins, nats per bin.
    pub nll_baseline_only: f64,
    /// The standard error of the gain (baseline minus model, per bin) across trials.
    pub gain_standard_error: f64,
    /// Trials scored (those with at least two bins).
    pub trials: usize,
    /// Bins predicted.
    pub bins: usize,
}

impl PredictiveScore {
    /// The gain over the baseline alone, nats per predicted bin (positive: the latent helps).
    pub fn gain(&self) -> f64 {
        self.nll_baseline_only - self.nll
    }
}

/// ln p(y | λΔt) for one count.
fn poisson_log_likelihood(y: f64, rate_hz: f64, bin_s: f64, log_factorial: f64) -> f64 {
    let mean = rate_hz * bin_s;
    y * mean.ln() - mean - log_factorial
}

/// ln Σ exp(x) − ln n.
fn log_mean_exp(values: &[f64]) -> f64 {
    let top = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !top.is_finite() {
        return top;
    }
    let sum: f64 = values.iter().map(|v| (v - top).exp()).sum();
    let n = values.len() as f64;
    top + (sum / n).ln()
}

/// Scores `trials` (see the module notes) with `samples` prior paths per trial drawn from
/// `seed`. `baseline` is the per-cell pre-softplus baseline.
pub fn predictive_score(
    model: &FindrModel,
    data: &TrialSet,
    baseline: &[f64],
    trials: &[usize],
    params: &PredictiveParams,
    samples: usize,
    seed: u64,
) -> Result<PredictiveScore, ComputeError> {
    const CHUNK: usize = 100;
    params.validate()?;
    let scored: Vec<(usize, usize)> = trials
        .iter()
        .filter_map(|&t| params.observed_bins(data.lengths[t]).map(|cut| (t, cut)))
        .collect();
    if scored.is_empty() {
        return Err(ComputeError::invalid(
            "trials",
            "no trial has two or more bins to split into seen and predicted parts",
        ));
    }
    let device = model.readout.device().clone();
    let weights = FlowWeights::from_flow(model.prior.flow())?;
    let sigma = model.noise_sigma()?;
    let alpha = model.alpha();
    let step_sd: Vec<f64> = sigma.iter().map(|s| alpha.sqrt() * s).collect();
    let readout: Vec<f32> = model.readout_hz()?.flatten_all()?.to_vec1()?;
    let readout: Vec<f64> = readout.into_iter().map(f64::from).collect();
    let n = data.n_neurons;
    let mut log_factorial = vec![0.0f64];
    let mut ln_factorial = |y: f64| {
        let k = y.max(0.0).round() as usize;
        while log_factorial.len() <= k {
            let next = log_factorial[log_factorial.len() - 1] + (log_factorial.len() as f64).ln();
            log_factorial.push(next);
        }
        log_factorial[k]
    };

    let (mut model_total, mut baseline_total, mut bins) = (0.0, 0.0, 0usize);
    let mut gains = Vec::with_capacity(scored.len());
    let mut draws = Vec::with_capacity(samples);
    for chunk in scored.chunks(CHUNK) {
        let chunk_trials: Vec<usize> = chunk.iter().map(|&(t, _)| t).collect();
        let cuts: Vec<usize> = chunk.iter().map(|&(_, c)| c).collect();
        let batch = Batch::first_bins(data, baseline, &chunk_trials, &cuts, &device)?;
        let latents: Vec<Vec<Vec<f32>>> = model
            .posterior_path(&batch, None)?
            .latents
            .to_dtype(DType::F32)?
            .to_vec3()?;
        for (row, &(trial, cut)) in chunk.iter().enumerate() {
            let start_z = latents[row][cut - 1].iter().map(|&v| f64::from(v));
            let start_z: Vec<f64> = start_z.collect();
            let length = data.lengths[trial];
            // The baseline alone, and the constant part of every path's likelihood.
            let mut baseline_ll = 0.0;
            for bin in cut..length {
                for neuron in 0..n {
                    let i = data.spike_index(trial, bin, neuron);
                    let y = f64::from(data.spikes[i]);
                    let rate = softplus(baseline[i]) + RATE_FLOOR_HZ;
                    baseline_ll += poisson_log_likelihood(y, rate, data.bin_s, ln_factorial(y));
                }
            }
            let mut rng = seeded(derive_seed(seed, trial as u64));
            draws.clear();
            for _ in 0..samples {
                let mut z = start_z.clone();
                let mut ll = 0.0;
                for bin in cut..length {
                    let input = data.input(trial, bin);
                    let u: [f64; INPUT_DIM] = [f64::from(input[0]), f64::from(input[1])];
                    let drift = weights.drift(&z, &u);
                    for d in 0..LATENT_DIM {
                        let eps: f64 = StandardNormal.sample(&mut rng);
                        z[d] += alpha * drift[d] + step_sd[d] * eps;
                    }
                    for neuron in 0..n {
                        let i = data.spike_index(trial, bin, neuron);
                        let y = f64::from(data.spikes[i]);
                        let drive =
                            readout[neuron] * z[0] + readout[n + neuron] * z[1] + baseline[i];
                        let rate = softplus(drive) + RATE_FLOOR_HZ;
                        ll += poisson_log_likelihood(y, rate, data.bin_s, ln_factorial(y));
                    }
                }
                draws.push(ll);
            }
            let model_ll = log_mean_exp(&draws);
            let predicted = length - cut;
            model_total -= model_ll;
            baseline_total -= baseline_ll;
            bins += predicted;
            gains.push((model_ll - baseline_ll) / predicted as f64);
        }
    }
    let (per_bin, count) = (bins as f64, gains.len() as f64);
    let mean_gain = gains.iter().sum::<f64>() / count;
    let variance = if gains.len() > 1 {
        gains.iter().map(|g| (g - mean_gain).powi(2)).sum::<f64>() / (count - 1.0)
    } else {
        f64::NAN
    };
    Ok(PredictiveScore {
        nll: model_total / per_bin,
        nll_baseline_only: baseline_total / per_bin,
        gain_standard_error: (variance / count).sqrt(),
        trials: gains.len(),
        bins,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelConfig;
    use crate::synthetic::{SyntheticParams, generate};
    use benchtop_compute::{CancelToken, Progress};
    use candle_core::Device;

    #[test]
    fn observed_bins_leave_something_to_predict() {
        let p = PredictiveParams::default();
        assert_eq!(p.observed_bins(1), None);
        assert_eq!(p.observed_bins(2), Some(1));
        assert_eq!(p.observed_bins(10), Some(5));
        let late = PredictiveParams {
            observed_fraction: 0.99,
            ..p
        };
        assert_eq!(late.observed_bins(10), Some(9));
        assert!(
            PredictiveParams {
                observed_fraction: 1.0,
                ..PredictiveParams::default()
            }
            .validate()
            .is_err()
        );
    }

    #[test]
    fn log_mean_exp_is_stable() {
        assert!((log_mean_exp(&[-1000.0, -1000.0]) + 1000.0).abs() < 1e-12);
        let direct = ((1f64.exp() + 3f64.exp()) / 2.0).ln();
        assert!((log_mean_exp(&[1.0, 3.0]) - direct).abs() < 1e-12);
    }

    /// With a zero readout the latent cannot change a rate: the model's predictive NLL is the
    /// baseline's on the same bins, whatever the paths do.
    #[test]
    fn a_zero_readout_scores_as_the_baseline() {
        let data = generate(
            &SyntheticParams {
                n_trials: 6,
                n_neurons: 5,
                min_bins: 9,
                max_bins: 12,
                ..SyntheticParams::default()
            },
            2,
            &Progress::new(),
            &CancelToken::new(),
        )
        .unwrap()
        .trials;
        let config = ModelConfig {
            flow_width: 6,
            encoder_hidden: 4,
            ..ModelConfig::default()
        };
        let model =
            FindrModel::new(&config, data.n_neurons, data.bin_s, 10.0, 3, &Device::Cpu).unwrap();
        let baseline: Vec<f64> = (0..data.spikes.len()).map(|i| (i % 5) as f64).collect();
        let trials: Vec<usize> = (0..6).collect();
        let params = PredictiveParams::default();
        let score = predictive_score(&model, &data, &baseline, &trials, &params, 8, 1).unwrap();
        let predicted: usize = trials
            .iter()
            .map(|&t| data.lengths[t] - params.observed_bins(data.lengths[t]).unwrap())
            .sum();
        assert_eq!((score.trials, score.bins), (6, predicted));
        assert!(score.nll.is_finite() && score.nll_baseline_only.is_finite());
        // A random readout moves the rates; a zero one does not.
        assert!(score.gain().abs() > 1e-6);
        model
            .readout
            .set(&model.readout.as_tensor().zeros_like().unwrap())
            .unwrap();
        let zero = predictive_score(&model, &data, &baseline, &trials, &params, 8, 1).unwrap();
        assert!(zero.gain().abs() < 1e-9, "{zero:?}");
        // Same seed, same score.
        let again = predictive_score(&model, &data, &baseline, &trials, &params, 8, 1).unwrap();
        assert_eq!(zero, again);
    }
}
