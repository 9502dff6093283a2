//! The FINDR sequential VAE in candle: the gnSDE prior, the bidirectional GRU encoder, the
//! posterior SDE and the softplus-Poisson readout, with the negative ELBO's two terms.
//!
//! From z₀ = 0, each bin t of a trial takes one reparameterised posterior step from z_t with
//! input u_t and encoder output e_t, giving z_{t+1}; the spikes of bin t are read out from
//! z_{t+1} (as the synthetic generator does: the latent moves, then the neurons fire), and the
//! transition KL of bin t compares the prior and posterior drifts at the same z_t. Both terms are
//! averaged over valid bins.
//!
//! The readout is C = s·C′ with C′ learned and s a fixed rate scale (the data's mean rate, Hz):
//! rates are in Hz, so an unscaled C′ would spend most of training growing to the data's scale.

use candle_core::{DType, Device, Tensor, Var};
use serde::{Deserialize, Serialize};

use benchtop_compute::ComputeError;
use benchtop_compute::rng::{derive_seed, seeded};

use crate::encoder::{Encoder, EncoderConfig};
use crate::gnsde::{GnsdeConfig, GnsdePrior, transition_kl};
use crate::init::standard_normal;
use crate::observation::{log_factorials, poisson_nll, rates_hz};
use crate::posterior::PosteriorCell;
use crate::trials::TrialSet;

/// Latent dimension D of the model (the paper's flow-field analysis is 2-D).
pub const LATENT_DIM: usize = 2;
/// Click input width U (left, right).
pub const INPUT_DIM: usize = 2;

/// Sizes and time constants of the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelConfig {
    /// Hidden width H of the prior and posterior flows.
    pub flow_width: usize,
    /// Hidden units E per direction of the GRU encoder.
    pub encoder_hidden: usize,
    /// Time constant τ of the latent dynamics, s (α = Δt/τ).
    pub tau_s: f64,
    /// Upper bound of the learned noise σ = noise_level·sigmoid(ℓ).
    pub noise_level: f64,
}

impl Default for ModelConfig {
    fn default() -> Self {
        Self {
            flow_width: 30,
            encoder_hidden: 50,
            tau_s: 0.1,
            noise_level: 1.0,
        }
    }
}

impl ModelConfig {
    /// Checks every parameter against a bin width; errors name the key.
    pub fn validate(&self, bin_s: f64) -> Result<(), ComputeError> {
        if !(self.tau_s.is_finite() && self.tau_s > 0.0) {
            return Err(ComputeError::invalid("tau_s", "must be a positive number"));
        }
        if self.tau_s < bin_s {
            return Err(ComputeError::invalid(
                "tau_s",
                format!("must be at least the bin width ({bin_s} s) so that α = Δt/τ ≤ 1"),
            ));
        }
        self.gnsde(bin_s).validate()?;
        EncoderConfig {
            n_neurons: 1,
            input_dim: INPUT_DIM,
            hidden: self.encoder_hidden,
        }
        .validate()
    }

    /// The prior's configuration for bins of `bin_s` seconds.
    pub fn gnsde(&self, bin_s: f64) -> GnsdeConfig {
        GnsdeConfig {
            latent_dim: LATENT_DIM,
            input_dim: INPUT_DIM,
            flow_width: self.flow_width,
            alpha: bin_s / self.tau_s,
            noise_level: self.noise_level,
        }
    }
}

/// A batch of trials as tensors, trimmed to its longest trial.
#[derive(Clone, Debug)]
pub struct Batch {
    /// Spike counts `[B, T, N]`.
    pub spikes: Tensor,
    /// Click inputs `[B, T, 2]`.
    pub inputs: Tensor,
    /// Pre-softplus baseline `[B·T, N]`.
    pub baseline: Tensor,
    /// ln(y!) of the counts `[B·T, N]`.
    pub log_factorial: Tensor,
    /// 1 for valid bins, 0 for padding, `[B, T]`.
    pub mask: Tensor,
    /// Valid bins per trial.
    pub lengths: Vec<usize>,
}

impl Batch {
    /// The `trials` of `data` with the per-cell baseline `baseline` (`[n_trials, max_bins,
    /// n_neurons]`, as [`crate::baseline::FittedBaseline::baseline`] gives).
    pub fn new(
        data: &TrialSet,
        baseline: &[f64],
        trials: &[usize],
        device: &Device,
    ) -> Result<Self, ComputeError> {
        let lengths: Vec<usize> = trials.iter().map(|&t| data.lengths[t]).collect();
        Self::first_bins(data, baseline, trials, &lengths, device)
    }

    /// The first `lengths[k]` bins of each trial `trials[k]` (at most its length): the rest of
    /// every trial is left out, as if the trial ended there (zero spikes and inputs, masked).
    pub fn first_bins(
        data: &TrialSet,
        baseline: &[f64],
        trials: &[usize],
        lengths: &[usize],
        device: &Device,
    ) -> Result<Self, ComputeError> {
        if trials.is_empty() || trials.len() != lengths.len() {
            return Err(ComputeError::invalid(
                "trials",
                "a batch needs a trial and one length per trial",
            ));
        }
        if trials
            .iter()
            .zip(lengths)
            .any(|(&t, &l)| l > data.lengths[t])
        {
            return Err(ComputeError::invalid(
                "lengths",
                "a batch cannot run past a trial's length",
            ));
        }
        let n = data.n_neurons;
        let lengths = lengths.to_vec();
        let bins = lengths.iter().copied().max().unwrap_or(1).max(1);
        let rows = trials.len() * bins;
        let mut spikes = Vec::with_capacity(rows * n);
        let mut inputs = Vec::with_capacity(rows * INPUT_DIM);
        let mut base = Vec::with_capacity(rows * n);
        let mut mask = Vec::with_capacity(rows);
        for (&trial, &length) in trials.iter().zip(&lengths) {
            for bin in 0..bins {
                let start = data.spike_index(trial, bin, 0);
                base.extend(baseline[start..start + n].iter().map(|&b| b as f32));
                if bin < length {
                    spikes.extend_from_slice(&data.spikes[start..start + n]);
                    inputs.extend_from_slice(&data.input(trial, bin));
                    mask.push(1.0f32);
                } else {
                    spikes.extend(std::iter::repeat_n(0.0f32, n));
                    inputs.extend([0.0f32; INPUT_DIM]);
                    mask.push(0.0);
                }
            }
        }
        let log_factorial = log_factorials(&spikes);
        let b = trials.len();
        Ok(Self {
            spikes: Tensor::from_vec(spikes, (b, bins, n), device)?,
            inputs: Tensor::from_vec(inputs, (b, bins, INPUT_DIM), device)?,
            baseline: Tensor::from_vec(base, (rows, n), device)?,
            log_factorial: Tensor::from_vec(log_factorial, (rows, n), device)?,
            mask: Tensor::from_vec(mask, (b, bins), device)?,
            lengths,
        })
    }

    /// Trials in the batch.
    pub fn trials(&self) -> usize {
        self.lengths.len()
    }

    /// Bins per trial (the longest trial).
    pub fn bins(&self) -> usize {
        self.mask.dims().get(1).copied().unwrap_or(0)
    }
}

/// The two terms of the negative ELBO, scalar tensors (nats per valid bin).
#[derive(Clone, Debug)]
pub struct LossTerms {
    /// Poisson negative log-likelihood.
    pub nll: Tensor,
    /// One-step transition KL between posterior and prior.
    pub kl: Tensor,
}

/// The posterior path of a batch.
#[derive(Clone, Debug)]
pub struct PosteriorPath {
    /// Latents z_{t+1} for every bin, `[B, T, 2]`.
    pub latents: Tensor,
    /// Transition KL per bin, `[B, T]`.
    pub kl: Tensor,
}

/// The whole model.
#[derive(Clone, Debug)]
pub struct FindrModel {
    config: ModelConfig,
    bin_s: f64,
    readout_scale_hz: f64,
    /// The gnSDE prior (flow and learned noise).
    pub prior: GnsdePrior,
    /// The bidirectional GRU encoder.
    pub encoder: Encoder,
    /// The posterior SDE cell.
    pub posterior: PosteriorCell,
    /// The unscaled readout C′ `[2, N]`.
    pub readout: Var,
}

impl FindrModel {
    /// A freshly initialised model for `n_neurons` neurons in bins of `bin_s` seconds, with the
    /// readout scale `readout_scale_hz` (Hz per latent unit), seeded.
    pub fn new(
        config: &ModelConfig,
        n_neurons: usize,
        bin_s: f64,
        readout_scale_hz: f64,
        seed: u64,
        device: &Device,
    ) -> Result<Self, ComputeError> {
        config.validate(bin_s)?;
        if !(readout_scale_hz.is_finite() && readout_scale_hz > 0.0) {
            return Err(ComputeError::invalid(
                "readout_scale_hz",
                "must be a positive number",
            ));
        }
        let gnsde = config.gnsde(bin_s);
        let encoder_config = EncoderConfig {
            n_neurons,
            input_dim: INPUT_DIM,
            hidden: config.encoder_hidden,
        };
        encoder_config.validate()?;
        let readout = standard_normal(
            &mut seeded(derive_seed(seed, 3)),
            LATENT_DIM,
            n_neurons,
            device,
        )?
        .affine(1.0 / (LATENT_DIM as f64).sqrt(), 0.0)?;
        Ok(Self {
            config: config.clone(),
            bin_s,
            readout_scale_hz,
            prior: GnsdePrior::new(&gnsde, derive_seed(seed, 0), device)?,
            encoder: Encoder::new(&encoder_config, derive_seed(seed, 1), device)?,
            posterior: PosteriorCell::new(
                &gnsde,
                2 * config.encoder_hidden,
                derive_seed(seed, 2),
                device,
            )?,
            readout: Var::from_tensor(&readout)?,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// α = Δt/τ.
    pub fn alpha(&self) -> f64 {
        self.bin_s / self.config.tau_s
    }

    /// Bin width Δt, s.
    pub fn bin_s(&self) -> f64 {
        self.bin_s
    }

    /// Every trainable parameter.
    pub fn vars(&self) -> Vec<Var> {
        let mut vars = self.prior.vars();
        vars.extend(self.encoder.vars());
        vars.extend(self.posterior.vars());
        vars.push(self.readout.clone());
        vars
    }

    /// The readout C = s·C′ `[2, N]`, Hz per latent unit.
    pub fn readout_hz(&self) -> Result<Tensor, ComputeError> {
        Ok(self
            .readout
            .as_tensor()
            .affine(self.readout_scale_hz, 0.0)?)
    }

    /// Runs the posterior over `batch`. With `noise_seed` each step draws ε ~ N(0, 1) from that
    /// seed; without it the path is the noiseless posterior mean path.
    pub fn posterior_path(
        &self,
        batch: &Batch,
        noise_seed: Option<u64>,
    ) -> Result<PosteriorPath, ComputeError> {
        let (b, t) = (batch.trials(), batch.bins());
        let device = batch.spikes.device();
        let context = self
            .encoder
            .encode_bins(&batch.spikes, &batch.inputs, &batch.lengths)?;
        let sigma = self.prior.sigma()?;
        let noise = match noise_seed {
            Some(seed) => Some(standard_normal(
                &mut seeded(seed),
                t * b,
                LATENT_DIM,
                device,
            )?),
            None => None,
        };
        let zero_noise = Tensor::zeros((b, LATENT_DIM), DType::F32, device)?;
        // Kernels are joined once per sequence; per-bin slices come from constant data only
        // (see the encoder's note on quadratic backward passes).
        let posterior_kernels = self.posterior.kernels()?;
        let flow = self.prior.flow();
        let prior_kernels = flow.kernels()?;
        let output = (flow.output.as_tensor(), flow.output_bias.as_tensor());
        let inputs = batch.inputs.detach();
        let mut z = Tensor::zeros((b, LATENT_DIM), DType::F32, device)?;
        let mut latents = Vec::with_capacity(t);
        let mut kls = Vec::with_capacity(t);
        for (step, e) in context.iter().enumerate() {
            let u = inputs.narrow(1, step, 1)?.squeeze(1)?;
            let eps = match &noise {
                Some(all) => all.narrow(0, step * b, b)?,
                None => zero_noise.clone(),
            };
            let (drift_posterior, next) =
                self.posterior
                    .step_with(&posterior_kernels, &z, e, &u, &sigma, &eps)?;
            let drift_prior = prior_kernels.drift(&z, &[&u], output.0, output.1)?;
            kls.push(transition_kl(
                &drift_prior,
                &drift_posterior,
                &sigma,
                self.alpha(),
            )?);
            latents.push(next.clone());
            z = next;
        }
        Ok(PosteriorPath {
            latents: Tensor::stack(&latents, 1)?,
            kl: Tensor::stack(&kls, 1)?,
        })
    }

    /// Rates λ in Hz `[B·T, N]` for latents `[B, T, 2]` on the batch's baseline.
    pub fn rates(&self, batch: &Batch, latents: &Tensor) -> Result<Tensor, ComputeError> {
        let rows = batch.trials() * batch.bins();
        rates_hz(
            &latents.reshape((rows, LATENT_DIM))?,
            &self.readout_hz()?,
            &batch.baseline,
        )
    }

    /// NLL and KL of `batch` for one reparameterised sample drawn from `noise_seed` (or the
    /// noiseless path for `None`).
    pub fn loss(&self, batch: &Batch, noise_seed: Option<u64>) -> Result<LossTerms, ComputeError> {
        let path = self.posterior_path(batch, noise_seed)?;
        let rates = self.rates(batch, &path.latents)?;
        let mask = batch.mask.flatten_all()?;
        let nll = poisson_nll(
            &rates,
            &batch.spikes.flatten_to(1)?,
            &batch.log_factorial,
            &mask,
            self.bin_s,
        )?;
        let valid = batch.mask.sum_all()?.maximum(1.0)?;
        let kl = path.kl.mul(&batch.mask)?.sum_all()?.div(&valid)?;
        Ok(LossTerms { nll, kl })
    }

    /// Σ w² over every weight matrix and bias (the L2 term's sum).
    pub fn squared_weights(&self) -> Result<Tensor, ComputeError> {
        let mut total: Option<Tensor> = None;
        for var in self.vars() {
            let s = var.as_tensor().sqr()?.sum_all()?;
            total = Some(match total {
                Some(t) => t.add(&s)?,
                None => s,
            });
        }
        total.ok_or_else(|| ComputeError::Numerical("the model has no weights".into()))
    }

    /// The learned noise σ per latent dimension.
    pub fn noise_sigma(&self) -> Result<Vec<f64>, ComputeError> {
        let s: Vec<f32> = self.prior.sigma()?.to_vec1()?;
        Ok(s.into_iter().map(f64::from).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{SyntheticParams, generate};
    use benchtop_compute::{CancelToken, Progress};

    fn small_data() -> TrialSet {
        let params = SyntheticParams {
            n_trials: 6,
            n_neurons: 5,
            min_bins: 8,
            max_bins: 12,
            ..SyntheticParams::default()
        };
        generate(&params, 3, &Progress::new(), &CancelToken::new())
            .unwrap()
            .trials
    }

    fn small_model(n: usize) -> FindrModel {
        let config = ModelConfig {
            flow_width: 6,
            encoder_hidden: 4,
            ..ModelConfig::default()
        };
        FindrModel::new(&config, n, 0.01, 10.0, 7, &Device::Cpu).unwrap()
    }

    #[test]
    fn batch_trims_to_the_longest_trial_and_masks_padding() {
        let data = small_data();
        let baseline = vec![0.5; data.spikes.len()];
        let trials = [1, 4];
        let batch = Batch::new(&data, &baseline, &trials, &Device::Cpu).unwrap();
        let longest = data.lengths[1].max(data.lengths[4]);
        assert_eq!(batch.bins(), longest);
        let mask: Vec<Vec<f32>> = batch.mask.to_vec2().unwrap();
        for (row, &t) in trials.iter().enumerate() {
            let valid: f32 = mask[row].iter().sum();
            assert_eq!(valid as usize, data.lengths[t]);
        }
        let spikes: Vec<Vec<Vec<f32>>> = batch.spikes.to_vec3().unwrap();
        assert_eq!(spikes[1][2][3], data.spike(4, 2, 3));
        assert!(Batch::new(&data, &baseline, &[], &Device::Cpu).is_err());
    }

    #[test]
    #[allow(clippy::needless_range_loop)]
    fn noiseless_loss_matches_a_direct_computation_and_is_reproducible() {
        let data = small_data();
        let baseline: Vec<f64> = (0..data.spikes.len())
            .map(|i| (i % 7) as f64 * 0.3)
            .collect();
        let model = small_model(data.n_neurons);
        let batch = Batch::new(&data, &baseline, &[0, 2, 3], &Device::Cpu).unwrap();
        let terms = model.loss(&batch, None).unwrap();
        // Direct: rates from the noiseless path, NLL summed over neurons, averaged over bins.
        let path = model.posterior_path(&batch, None).unwrap();
        let z: Vec<Vec<Vec<f32>>> = path.latents.to_vec3().unwrap();
        let c: Vec<Vec<f32>> = model.readout_hz().unwrap().to_vec2().unwrap();
        let (mut total, mut bins) = (0.0f64, 0usize);
        for (row, &trial) in [0usize, 2, 3].iter().enumerate() {
            for bin in 0..data.lengths[trial] {
                for n in 0..data.n_neurons {
                    let i = data.spike_index(trial, bin, n);
                    let drive = f64::from(z[row][bin][0] * c[0][n] + z[row][bin][1] * c[1][n])
                        + baseline[i];
                    let rate = crate::softplus::softplus(drive) + 1e-5;
                    let mean = rate * 0.01;
                    let y = f64::from(data.spikes[i]);
                    let log_fact: f64 = (1..=y as usize).map(|k| (k as f64).ln()).sum();
                    total += mean - y * mean.ln() + log_fact;
                }
                bins += 1;
            }
        }
        let nll = f64::from(terms.nll.to_scalar::<f32>().unwrap());
        assert!(
            (nll - total / bins as f64).abs() < 1e-3 * nll.abs(),
            "{nll}"
        );
        let kl = f64::from(terms.kl.to_scalar::<f32>().unwrap());
        assert!(kl.is_finite() && kl >= 0.0);
        let again = small_model(data.n_neurons).loss(&batch, Some(5)).unwrap();
        let once = model.loss(&batch, Some(5)).unwrap();
        assert_eq!(
            again.nll.to_scalar::<f32>().unwrap(),
            once.nll.to_scalar::<f32>().unwrap()
        );
    }

    #[test]
    fn kl_vanishes_when_the_posterior_equals_the_prior() {
        // Copy the prior flow into the posterior and zero the context kernels: the drifts agree.
        let data = small_data();
        let baseline = vec![1.0; data.spikes.len()];
        let model = small_model(data.n_neurons);
        let flow = model.prior.flow();
        let post = &model.posterior;
        post.gate[0].set(flow.gate_state.as_tensor()).unwrap();
        post.gate[2].set(flow.gate_input.as_tensor()).unwrap();
        post.gate_bias.set(flow.gate_bias.as_tensor()).unwrap();
        post.hidden[0].set(flow.hidden_state.as_tensor()).unwrap();
        post.hidden[2].set(flow.hidden_input.as_tensor()).unwrap();
        post.hidden_bias.set(flow.hidden_bias.as_tensor()).unwrap();
        post.output.set(flow.output.as_tensor()).unwrap();
        post.output_bias.set(flow.output_bias.as_tensor()).unwrap();
        for k in [&post.gate[1], &post.hidden[1]] {
            k.set(&k.as_tensor().zeros_like().unwrap()).unwrap();
        }
        let batch = Batch::new(&data, &baseline, &[0, 1], &Device::Cpu).unwrap();
        let kl = model.loss(&batch, Some(9)).unwrap().kl;
        assert!(kl.to_scalar::<f32>().unwrap().abs() < 1e-10);
    }
}
