//! Part (b) of the AMSE paper's argument, learned: two small neural forecasters of a real
//! dynamical system on the sphere, one trained with MSE and one with AMSE.
//!
//! - **System**: the barotropic vorticity model ([`crate::barotropic`]) at a coarse truncation
//!   (default T31 on a 48×96 Gauss grid), started from the real NCEP/NCAR 200 hPa monthly
//!   mean wind plus random perturbations ([`dataset`]).
//! - **Task**: predict the vorticity one lead time τ ahead (default 6 h) from the vorticity
//!   and wind now; longer leads by feeding forecasts back (autoregressive rollout, projected
//!   on the model's truncation after every step).
//! - **Forecasters**: identical small CNNs ([`net`]) with the same initial weights and the same
//!   batches (random longitude rotations as augmentation), trained with Adam on the spectral
//!   MSE or on the AMSE of the normalised vorticity ([`spectral`]: the SHT as a fixed linear
//!   map in candle). Everything runs on the CPU with candle.
//! - **Evaluation** on held-out trajectories at several leads: spectra, amplitude ratio R_k,
//!   coherence Coh_k, effective resolution and RMSE, for both forecasters and persistence.
//!
//! The paper's point in miniature: the MSE forecaster's spectrum decays with lead time (its
//! effective resolution falls) while the AMSE forecaster keeps its amplitude.

pub mod dataset;
pub mod net;
pub mod spectral;

use benchtop_compute::rng::{EngineRng, derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use candle_core::{Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use rand::Rng as _;
use serde::{Deserialize, Serialize};

use crate::barotropic::{BarotropicModel, BarotropicParams, SECONDS_PER_DAY};
use crate::resolution::{EffectiveResolution, effective_resolution_from, wavelength_km};
use crate::sht::Coeffs;
use crate::spectrum::{coherence_from, joint_spectra};

use dataset::{DYNAMIC_CHANNELS, Dataset};
use net::ConvNet;
use spectral::{SpectralMap, values_f64};

/// Everything that defines a forecaster experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ForecastParams {
    /// The barotropic model that makes the data (its truncation is the forecasters').
    pub model: BarotropicParams,
    /// NetCDF file with the zonal wind `u` (12 months); empty: the bundled 200 hPa sample.
    pub wind_u_path: String,
    /// NetCDF file with the meridional wind `v`; empty: the bundled 200 hPa sample.
    pub wind_v_path: String,
    /// Lead time of one forecaster step, in hours (a whole number of model steps).
    pub lead_h: f64,
    /// Trajectories for training.
    pub train_trajectories: usize,
    /// Held-out trajectories for evaluation.
    pub test_trajectories: usize,
    /// Model spin-up before the first recorded state, in days.
    pub spinup_days: f64,
    /// States recorded per trajectory, one lead time apart.
    pub states_per_trajectory: usize,
    /// Rms of the initial random vorticity perturbation relative to the mean flow's.
    pub perturbation: f64,
    /// Hidden channels of the CNN.
    pub hidden_channels: usize,
    /// 3×3 convolution layers of the CNN.
    pub layers: usize,
    /// Optimiser steps (each trains both forecasters on the same batch).
    pub train_steps: usize,
    /// Pairs per batch.
    pub batch_size: usize,
    /// Peak Adam learning rate (cosine decay to 5 % of it).
    pub learning_rate: f64,
    /// Live spectra are computed every this many steps (0: never).
    pub snapshot_every: usize,
    /// Lead times evaluated, in forecaster steps.
    pub eval_leads: Vec<usize>,
    /// Smallest k searched for the effective resolution (see
    /// [`crate::resolution::effective_resolution_from`]): the small CNN sees only a few grid
    /// points around each point, so its planetary-scale amplitudes wander on their
    /// own (R_k ≈ 0.85–1.1 for k < 10 in the default run, for both losses alike) and would
    /// otherwise decide both first-crossing definitions. Default 10 (λ ≈ 4000 km).
    pub resolution_min_k: usize,
}

impl Default for ForecastParams {
    fn default() -> Self {
        Self {
            model: BarotropicParams {
                lmax: 31,
                ..BarotropicParams::default()
            },
            wind_u_path: String::new(),
            wind_v_path: String::new(),
            lead_h: 6.0,
            train_trajectories: 24,
            test_trajectories: 4,
            spinup_days: 2.0,
            states_per_trajectory: 16,
            perturbation: 0.5,
            hidden_channels: 12,
            layers: 4,
            train_steps: 300,
            batch_size: 8,
            learning_rate: 2e-3,
            snapshot_every: 50,
            eval_leads: vec![1, 2, 3, 4],
            resolution_min_k: 10,
        }
    }
}

impl ForecastParams {
    /// Model steps per lead time.
    pub fn steps_per_lead(&self) -> Result<usize, ComputeError> {
        let steps = self.lead_h * 60.0 / self.model.dt_minutes;
        let rounded = steps.round();
        if !(steps.is_finite() && rounded >= 1.0 && (steps - rounded).abs() < 1e-9) {
            return Err(ComputeError::invalid(
                "lead_h",
                format!(
                    "{} h is not a whole number of {}-minute model steps",
                    self.lead_h, self.model.dt_minutes
                ),
            ));
        }
        Ok(rounded as usize)
    }

    /// The longest evaluated lead, in forecaster steps.
    pub fn max_lead(&self) -> usize {
        self.eval_leads.iter().copied().max().unwrap_or(1)
    }

    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ComputeError> {
        self.model.validate()?;
        self.steps_per_lead()?;
        let positive = [
            ("train_trajectories", self.train_trajectories),
            ("test_trajectories", self.test_trajectories),
            ("hidden_channels", self.hidden_channels),
            ("train_steps", self.train_steps),
            ("batch_size", self.batch_size),
        ];
        for (name, value) in positive {
            if value == 0 {
                return Err(ComputeError::invalid(name, "must be at least 1"));
            }
        }
        if self.layers < 2 {
            return Err(ComputeError::invalid("layers", "must be at least 2"));
        }
        if self.states_per_trajectory < 2 {
            return Err(ComputeError::invalid(
                "states_per_trajectory",
                "must be at least 2 (one training pair)",
            ));
        }
        if self.resolution_min_k == 0 {
            return Err(ComputeError::invalid(
                "resolution_min_k",
                "must be at least 1",
            ));
        }
        if self.eval_leads.is_empty() || self.eval_leads.contains(&0) {
            return Err(ComputeError::invalid(
                "eval_leads",
                "needs at least one lead, each ≥ 1 step",
            ));
        }
        if self.max_lead() >= self.states_per_trajectory {
            return Err(ComputeError::invalid(
                "eval_leads",
                format!(
                    "the longest lead ({} steps) needs more than {} states per trajectory",
                    self.max_lead(),
                    self.states_per_trajectory
                ),
            ));
        }
        if !(self.spinup_days.is_finite() && self.spinup_days >= 0.0) {
            return Err(ComputeError::invalid(
                "spinup_days",
                "must be finite and ≥ 0",
            ));
        }
        if !(self.perturbation.is_finite() && self.perturbation >= 0.0) {
            return Err(ComputeError::invalid(
                "perturbation",
                "must be finite and ≥ 0",
            ));
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return Err(ComputeError::invalid(
                "learning_rate",
                "must be finite and > 0",
            ));
        }
        Ok(())
    }
}

/// Which loss a forecaster is trained with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LossKind {
    /// Area-weighted mean squared error (spectral form).
    Mse,
    /// Adjusted MSE (paper eq. 6).
    Amse,
}

/// Losses of both forecasters on one training batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrainingStep {
    /// Step, from 1.
    pub step: usize,
    /// Learning rate used.
    pub learning_rate: f64,
    /// MSE of the MSE-trained forecaster (normalised vorticity).
    pub mse_net_mse: f64,
    /// AMSE of the MSE-trained forecaster.
    pub mse_net_amse: f64,
    /// MSE of the AMSE-trained forecaster.
    pub amse_net_mse: f64,
    /// AMSE of the AMSE-trained forecaster.
    pub amse_net_amse: f64,
    /// Spectra on held-out pairs, every `snapshot_every` steps.
    pub snapshot: Option<LeadEvaluation>,
}

/// Skill of one forecaster at one lead, from sums over held-out samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// Mean PSD_k of the forecasts (normalised vorticity).
    pub psd: Vec<f64>,
    /// Amplitude ratio `R_k = √(ΣPSD_k(forecast)/ΣPSD_k(truth))` (1 where the truth has no
    /// power, i.e. at k = 0).
    pub ratio: Vec<f64>,
    /// Coherence `Σ X_k / √(ΣPSD_k(forecast)·ΣPSD_k(truth))`.
    pub coherence: Vec<f64>,
    /// Effective resolution of `ratio`.
    pub resolution: EffectiveResolution,
    /// Root-mean-square error of the normalised vorticity (truncated at L).
    pub rmse: f64,
}

/// Both forecasters (and persistence) at one lead.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LeadEvaluation {
    /// Lead in forecaster steps.
    pub steps: usize,
    /// Lead in hours.
    pub lead_h: f64,
    /// Mean PSD_k of the truth (normalised vorticity).
    pub psd_truth: Vec<f64>,
    /// The MSE-trained forecaster.
    pub mse: Skill,
    /// The AMSE-trained forecaster.
    pub amse: Skill,
    /// Persistence (the initial state as the forecast).
    pub persistence: Skill,
}

/// Vorticity maps at the longest lead for one held-out case (1/s, model grid).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForecastMaps {
    /// Grid of the maps (Gauss).
    pub grid: crate::grid::Grid,
    /// Lead in hours.
    pub lead_h: f64,
    /// The model's state.
    pub truth_per_s: Vec<f64>,
    /// The MSE forecaster's rollout.
    pub mse_per_s: Vec<f64>,
    /// The AMSE forecaster's rollout.
    pub amse_per_s: Vec<f64>,
}

/// The outcome of [`run`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForecastResult {
    /// Total wavenumbers k = 0..=L.
    pub k: Vec<usize>,
    /// Wavelength 2πR_E/k in km (0 at k = 0, where it is undefined).
    pub wavelength_km: Vec<f64>,
    /// Trainable parameters per forecaster.
    pub parameters: usize,
    /// Training pairs available (before longitude augmentation).
    pub training_pairs: usize,
    /// Held-out forecasts per lead.
    pub test_cases: usize,
    /// Normalisation of the vorticity (1/s).
    pub vorticity_std_per_s: f64,
    /// Training history.
    pub history: Vec<TrainingStep>,
    /// Evaluation at every lead of `eval_leads`.
    pub leads: Vec<LeadEvaluation>,
    /// Maps at the longest lead.
    pub maps: ForecastMaps,
}

/// One forecaster: its loss, network and optimiser.
struct Learner {
    kind: LossKind,
    net: ConvNet,
    optimizer: AdamW,
}

/// Spectra summed over samples, to be turned into a [`Skill`].
#[derive(Clone)]
struct SpectralSums {
    forecast: Vec<f64>,
    truth: Vec<f64>,
    cross: Vec<f64>,
    squared_error: f64,
    count: usize,
}

impl SpectralSums {
    fn new(lmax: usize) -> Self {
        Self {
            forecast: vec![0.0; lmax + 1],
            truth: vec![0.0; lmax + 1],
            cross: vec![0.0; lmax + 1],
            squared_error: 0.0,
            count: 0,
        }
    }

    /// Adds one forecast/truth pair (coefficients of normalised vorticity).
    fn add(&mut self, forecast: &Coeffs, truth: &Coeffs) {
        let (pf, pt, x) = joint_spectra(forecast, truth);
        for k in 0..pf.len() {
            self.forecast[k] += pf[k];
            self.truth[k] += pt[k];
            self.cross[k] += x[k];
            self.squared_error += pf[k] + pt[k] - 2.0 * x[k];
        }
        self.count += 1;
    }

    fn skill(&self, min_k: usize) -> Skill {
        let n = self.count.max(1) as f64;
        // Where the truth has no power (k = 0: vorticity has no global mean) the ratio is
        // reported as 1, so that results stay finite (and JSON-friendly).
        let ratio: Vec<f64> = self
            .forecast
            .iter()
            .zip(&self.truth)
            .map(|(f, t)| if *t > 0.0 { (f / t).sqrt() } else { 1.0 })
            .collect();
        let coherence = (0..self.forecast.len())
            .map(|k| coherence_from(self.forecast[k], self.truth[k], self.cross[k]))
            .collect();
        Skill {
            psd: self.forecast.iter().map(|p| p / n).collect(),
            resolution: effective_resolution_from(&ratio, min_k),
            ratio,
            coherence,
            rmse: (self.squared_error.max(0.0) / n).sqrt(),
        }
    }
}

/// Trains the two forecasters step by step (for live views) and evaluates them.
pub struct ForecastTrainer {
    params: ForecastParams,
    device: Device,
    model: BarotropicModel,
    data: Dataset,
    map: SpectralMap,
    learners: [Learner; 2],
    rng: EngineRng,
    /// Training pairs: (trajectory, state index).
    pairs: Vec<(usize, usize)>,
    history: Vec<TrainingStep>,
}

impl std::fmt::Debug for ForecastTrainer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForecastTrainer")
            .field("params", &self.params)
            .field("steps", &self.history.len())
            .finish_non_exhaustive()
    }
}

impl ForecastTrainer {
    /// Generates the data (the slow part, with progress) and sets up both forecasters.
    pub fn new(
        params: &ForecastParams,
        seed: u64,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<Self, ComputeError> {
        params.validate()?;
        // The CPU: the experiment is sized for it, and the same bits everywhere.
        let device = Device::Cpu;
        let model = BarotropicModel::new(&params.model)?;
        let data = Dataset::generate(params, &model, seed, progress, cancel)?;
        let map = SpectralMap::new(&data.sht, &device)?;
        let mut init_rng = seeded(derive_seed(seed, 1_000));
        let net = ConvNet::new(
            data.input_channels(),
            params.hidden_channels,
            params.layers,
            &mut init_rng,
            &device,
        )?;
        let adam = || ParamsAdamW {
            lr: params.learning_rate,
            weight_decay: 0.0,
            ..ParamsAdamW::default()
        };
        let twin = net.duplicate()?;
        let learners = [
            Learner {
                kind: LossKind::Mse,
                optimizer: AdamW::new(net.vars(), adam())?,
                net,
            },
            Learner {
                kind: LossKind::Amse,
                optimizer: AdamW::new(twin.vars(), adam())?,
                net: twin,
            },
        ];
        let pairs = data
            .train
            .iter()
            .enumerate()
            .flat_map(|(t, traj)| (0..traj.states.len() - 1).map(move |i| (t, i)))
            .collect();
        Ok(Self {
            params: params.clone(),
            device,
            model,
            data,
            map,
            learners,
            rng: seeded(derive_seed(seed, 2_000)),
            pairs,
            history: Vec::new(),
        })
    }

    /// The settings.
    pub fn params(&self) -> &ForecastParams {
        &self.params
    }

    /// Training history so far.
    pub fn history(&self) -> &[TrainingStep] {
        &self.history
    }

    /// Whether all training steps are done.
    pub fn is_finished(&self) -> bool {
        self.history.len() >= self.params.train_steps
    }

    /// The learning rate at step `step` (from 0): 5 % linear warm-up, then cosine decay to
    /// 5 % of the peak.
    fn learning_rate(&self, step: usize) -> f64 {
        let (s, n) = (step as f64, self.params.train_steps as f64);
        let warmup = (0.05 * n).max(1.0);
        let peak = self.params.learning_rate;
        if s < warmup {
            peak * (s + 1.0) / warmup
        } else {
            let progress = ((s - warmup) / (n - warmup).max(1.0)).min(1.0);
            peak * (0.05 + 0.95 * 0.5 * (1.0 + (std::f64::consts::PI * progress).cos()))
        }
    }

    /// Input features (B × C × H × W) of normalised dynamic features, each rotated by its
    /// longitude shift, with the static channels appended.
    fn batch_features(&self, dynamic: &[(&[f32], usize)]) -> Result<Tensor, ComputeError> {
        let (nlat, nlon) = (self.data.grid.nlat, self.data.grid.nlon);
        let plane = nlat * nlon;
        let channels = self.data.input_channels();
        let mut buffer = Vec::with_capacity(dynamic.len() * channels * plane);
        for (features, shift) in dynamic {
            for c in 0..DYNAMIC_CHANNELS {
                let source = &features[c * plane..(c + 1) * plane];
                for row in source.chunks(nlon) {
                    buffer.extend_from_slice(&row[*shift..]);
                    buffer.extend_from_slice(&row[..*shift]);
                }
            }
            buffer.extend_from_slice(&self.data.static_features);
        }
        Ok(Tensor::from_vec(
            buffer,
            (dynamic.len(), channels, nlat, nlon),
            &self.device,
        )?)
    }

    /// One optimiser step of both forecasters on the same random batch.
    pub fn step(&mut self) -> Result<TrainingStep, ComputeError> {
        let step_index = self.history.len();
        let lr = self.learning_rate(step_index);
        let nlon = self.data.grid.nlon;
        let picks: Vec<(usize, usize, usize)> = (0..self.params.batch_size)
            .map(|_| {
                let pair = self.pairs[self.rng.random_range(0..self.pairs.len())];
                (pair.0, pair.1, self.rng.random_range(0..nlon))
            })
            .collect();
        let inputs: Vec<(&[f32], usize)> = picks
            .iter()
            .map(|&(t, i, s)| (self.data.train_features[t][i].as_slice(), s))
            .collect();
        let targets: Vec<(&[f32], usize)> = picks
            .iter()
            .map(|&(t, i, s)| (self.data.train_features[t][i + 1].as_slice(), s))
            .collect();
        let x = self.batch_features(&inputs)?;
        let target = self.batch_features(&targets)?.narrow(1, 0, 1)?.squeeze(1)?;
        let now = x.narrow(1, 0, 1)?.squeeze(1)?;
        let mut losses = [[0.0; 2]; 2];
        for (slot, learner) in self.learners.iter_mut().enumerate() {
            learner.optimizer.set_learning_rate(lr);
            let prediction = (&now + learner.net.forward(&x)?.squeeze(1)?)?;
            let mse = self.map.mse(&prediction, &target)?.mean(0)?;
            let amse = self.map.amse(&prediction, &target)?.mean(0)?;
            let objective = match learner.kind {
                LossKind::Mse => &mse,
                LossKind::Amse => &amse,
            };
            learner.optimizer.backward_step(objective)?;
            losses[slot] = [
                f64::from(mse.to_scalar::<f32>()?),
                f64::from(amse.to_scalar::<f32>()?),
            ];
        }
        if losses.iter().flatten().any(|v| !v.is_finite()) {
            return Err(ComputeError::Numerical(format!(
                "training diverged at step {} (lower learning_rate)",
                step_index + 1
            )));
        }
        let snapshot = if self.params.snapshot_every > 0
            && ((step_index + 1).is_multiple_of(self.params.snapshot_every)
                || step_index + 1 == self.params.train_steps)
        {
            Some(self.snapshot()?)
        } else {
            None
        };
        let record = TrainingStep {
            step: step_index + 1,
            learning_rate: lr,
            mse_net_mse: losses[0][0],
            mse_net_amse: losses[0][1],
            amse_net_mse: losses[1][0],
            amse_net_amse: losses[1][1],
            snapshot,
        };
        self.history.push(record.clone());
        Ok(record)
    }

    /// One-step forecasts of a batch of states by one forecaster (normalised vorticity
    /// coefficients in and out, truncated at L).
    fn forecast_step(
        &self,
        learner: &Learner,
        states: &[Coeffs],
    ) -> Result<Vec<Coeffs>, ComputeError> {
        let dynamic = states
            .iter()
            .map(|s| {
                self.data
                    .dynamic_features(&self.model, &self.denormalise(s))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let inputs: Vec<(&[f32], usize)> = dynamic.iter().map(|d| (d.as_slice(), 0)).collect();
        let x = self.batch_features(&inputs)?;
        let now = x.narrow(1, 0, 1)?.squeeze(1)?;
        let prediction = (now + learner.net.forward(&x)?.squeeze(1)?)?;
        let plane = self.data.grid.len();
        let values = values_f64(&prediction)?;
        values
            .chunks(plane)
            .map(|field| self.data.sht.forward(field))
            .collect()
    }

    /// Model-unit vorticity of normalised coefficients.
    fn denormalise(&self, normalised: &Coeffs) -> Coeffs {
        normalised.map_by_degree(|_, c| c * self.data.vorticity_std)
    }

    /// Normalised coefficients of a model state.
    fn normalise(&self, state: &Coeffs) -> Coeffs {
        state.map_by_degree(|_, c| c / self.data.vorticity_std)
    }

    /// Held-out cases: (trajectory, start index) with room for `lead` steps.
    fn cases(&self, lead: usize) -> Vec<(usize, usize)> {
        self.data
            .test
            .iter()
            .enumerate()
            .flat_map(|(t, traj)| (0..traj.states.len().saturating_sub(lead)).map(move |i| (t, i)))
            .collect()
    }

    /// Rolls both forecasters out from `starts` for `leads` and sums the spectra; also
    /// returns the rollouts of the first case at the longest lead.
    fn evaluate_cases(
        &self,
        starts: &[(usize, usize)],
        leads: &[usize],
        cancel: &CancelToken,
    ) -> Result<(Vec<LeadEvaluation>, [Coeffs; 3]), ComputeError> {
        let lmax = self.data.sht.lmax();
        let longest = leads.iter().copied().max().unwrap_or(1);
        let truth_at = |(t, i): (usize, usize), lead: usize| {
            self.normalise(&self.data.test[t].states[i + lead])
        };
        let initial: Vec<Coeffs> = starts.iter().map(|&c| truth_at(c, 0)).collect();
        let mut states = [initial.clone(), initial.clone()];
        let mut sums = vec![
            [
                SpectralSums::new(lmax),
                SpectralSums::new(lmax),
                SpectralSums::new(lmax)
            ];
            leads.len()
        ];
        let mut first = [
            Coeffs::zeros(lmax),
            Coeffs::zeros(lmax),
            Coeffs::zeros(lmax),
        ];
        for lead in 1..=longest {
            cancel.check()?;
            for (slot, learner) in self.learners.iter().enumerate() {
                states[slot] = self.forecast_step(learner, &states[slot])?;
            }
            if let Some(position) = leads.iter().position(|&l| l == lead) {
                for (case, &start) in starts.iter().enumerate() {
                    let truth = truth_at(start, lead);
                    sums[position][0].add(&states[0][case], &truth);
                    sums[position][1].add(&states[1][case], &truth);
                    sums[position][2].add(&initial[case], &truth);
                    if lead == longest && case == 0 {
                        first = [truth, states[0][case].clone(), states[1][case].clone()];
                    }
                }
            }
        }
        let evaluations = leads
            .iter()
            .zip(&sums)
            .map(|(&steps, [mse, amse, persistence])| {
                let n = mse.count.max(1) as f64;
                LeadEvaluation {
                    steps,
                    lead_h: steps as f64 * self.params.lead_h,
                    psd_truth: mse.truth.iter().map(|p| p / n).collect(),
                    mse: mse.skill(self.params.resolution_min_k),
                    amse: amse.skill(self.params.resolution_min_k),
                    persistence: persistence.skill(self.params.resolution_min_k),
                }
            })
            .collect();
        Ok((evaluations, first))
    }

    /// Spectra of one-step forecasts on (up to) 16 held-out pairs, for live views.
    pub fn snapshot(&self) -> Result<LeadEvaluation, ComputeError> {
        let cases = self.cases(1);
        let stride = (cases.len() / 16).max(1);
        let picked: Vec<(usize, usize)> = cases.into_iter().step_by(stride).take(16).collect();
        let (mut evaluations, _) = self.evaluate_cases(&picked, &[1], &CancelToken::new())?;
        evaluations
            .pop()
            .ok_or_else(|| ComputeError::Numerical("no held-out pairs".to_owned()))
    }

    /// Evaluates both forecasters on all held-out cases at every lead of `eval_leads`.
    pub fn evaluate(&self, cancel: &CancelToken) -> Result<ForecastResult, ComputeError> {
        let mut leads = self.params.eval_leads.clone();
        leads.sort_unstable();
        leads.dedup();
        let longest = self.params.max_lead();
        let cases = self.cases(longest);
        let (evaluations, first) = self.evaluate_cases(&cases, &leads, cancel)?;
        let to_per_s = self.data.vorticity_std / SECONDS_PER_DAY;
        let grid_values = |c: &Coeffs| -> Result<Vec<f64>, ComputeError> {
            Ok(self
                .data
                .sht
                .inverse(c)?
                .iter()
                .map(|v| v * to_per_s)
                .collect())
        };
        let lmax = self.data.sht.lmax();
        Ok(ForecastResult {
            k: (0..=lmax).collect(),
            wavelength_km: (0..=lmax)
                .map(|k| if k == 0 { 0.0 } else { wavelength_km(k as f64) })
                .collect(),
            parameters: self.learners[0].net.parameter_count(),
            training_pairs: self.pairs.len(),
            test_cases: cases.len(),
            vorticity_std_per_s: to_per_s,
            history: self.history.clone(),
            leads: evaluations,
            maps: ForecastMaps {
                grid: self.data.grid.clone(),
                lead_h: longest as f64 * self.params.lead_h,
                truth_per_s: grid_values(&first[0])?,
                mse_per_s: grid_values(&first[1])?,
                amse_per_s: grid_values(&first[2])?,
            },
        })
    }
}

/// Generates the data, trains both forecasters and evaluates them.
pub fn run(
    params: &ForecastParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<ForecastResult, ComputeError> {
    run_with(params, seed, progress, cancel, |_| {})
}

/// [`run`], calling `on_step` after every training step (for live curves).
pub fn run_with(
    params: &ForecastParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
    mut on_step: impl FnMut(TrainingStep),
) -> Result<ForecastResult, ComputeError> {
    let mut trainer = ForecastTrainer::new(params, seed, &progress.slice(0.0, 0.15), cancel)?;
    let training = progress.slice(0.15, 0.95);
    while !trainer.is_finished() {
        cancel.check()?;
        let step = trainer.step()?;
        training.set(
            step.step as f64 / params.train_steps.max(1) as f64,
            format!(
                "step {}: MSE net {:.3e} (MSE), AMSE net {:.3e} (AMSE)",
                step.step, step.mse_net_mse, step.amse_net_amse
            ),
        );
        on_step(step);
    }
    progress.set(0.95, "evaluating on held-out trajectories");
    let result = trainer.evaluate(cancel)?;
    progress.set(1.0, "done");
    Ok(result)
}

#[cfg(test)]
mod tests;
