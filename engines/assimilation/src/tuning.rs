//! The baselines given the same care as the method: their settings chosen on training windows.
//!
//! The last `tune_windows` windows of the training trajectory (states Tensor-Var also learns
//! from, before the held-out truth) are assimilated from a background σ_b off their first
//! state, exactly as the held-out windows are, once per point of a small grid, and the point
//! with the smallest mean analysis RMSE is kept:
//! - 3D-Var and 4D-Var: B = s × the climatological covariance of the training states, with
//!   s in [`SCALE_GRID`] (each method its own s);
//! - the EnKF: Gaspari–Cohn half-width c = f·D for f in [`LOCALISATION_GRID`] and
//!   multiplicative inflation λ in [`INFLATION_GRID`] (its ensemble size is a setting: more
//!   members are better and cost more).
//!
//! With `tune_windows` = 0 the settings are used as given.

use std::time::Instant;

use benchtop_compute::{CancelToken, ComputeError, Progress, rng};
use benchtop_learn::lbfgs::LbfgsOptions;
use nalgebra::DMatrix;
use rand::Rng;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

use crate::enkf::{Enkf, initial_ensemble};
use crate::experiment::{AssimParams, Data, assumed_obs_sigma};
use crate::linalg;
use crate::variational::Variational;

/// B / climatology tried for 3D-Var and 4D-Var.
pub const SCALE_GRID: [f64; 5] = [0.03, 0.1, 0.3, 1.0, 3.0];

/// EnKF localisation half-widths tried, as fractions of D.
pub const LOCALISATION_GRID: [f64; 4] = [0.05, 0.1, 0.2, 0.4];

/// EnKF multiplicative inflations tried.
pub const INFLATION_GRID: [f64; 4] = [1.0, 1.05, 1.1, 1.2];

/// The settings the baselines run with and how they were chosen.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Tuning {
    /// Training windows the settings were chosen on (0: the settings as given).
    pub windows: usize,
    /// 4D-Var's B / climatology.
    pub fourdvar_scale: f64,
    /// 3D-Var's B / climatology.
    pub threedvar_scale: f64,
    /// The EnKF's Gaspari–Cohn half-width c (grid points).
    pub enkf_localisation: f64,
    /// The EnKF's multiplicative inflation λ.
    pub enkf_inflation: f64,
    /// 4D-Var's grid: (B / climatology, mean analysis RMSE on the training windows).
    pub fourdvar_trials: Vec<(f64, f64)>,
    /// 3D-Var's grid: (B / climatology, mean analysis RMSE).
    pub threedvar_trials: Vec<(f64, f64)>,
    /// The EnKF's grid: (c, λ, mean analysis RMSE).
    pub enkf_trials: Vec<(f64, f64, f64)>,
    /// Seconds spent choosing 4D-Var's scale.
    pub fourdvar_seconds: f64,
    /// Seconds spent choosing 3D-Var's scale.
    pub threedvar_seconds: f64,
    /// Seconds spent choosing the EnKF's localisation and inflation.
    pub enkf_seconds: f64,
}

impl Tuning {
    /// The settings as given, untuned.
    pub fn as_given(params: &AssimParams) -> Self {
        Self {
            windows: 0,
            fourdvar_scale: params.background_scale,
            threedvar_scale: params.background_scale,
            enkf_localisation: params.enkf.localisation,
            enkf_inflation: params.enkf.inflation,
            ..Self::default()
        }
    }
}

/// The climatological covariance of the training states (biased, 1/n).
pub fn climatological_covariance(data: &Data) -> DMatrix<f64> {
    let d = data.train_states.first().map_or(0, Vec::len);
    let x = DMatrix::from_fn(data.train_states.len(), d, |i, j| data.train_states[i][j]);
    linalg::mean_and_covariance(&x).1
}

/// B⁻¹ = (`scale` × `climatology`)⁻¹ with the relative diagonal `jitter`.
pub fn background_precision_at(
    climatology: &DMatrix<f64>,
    scale: f64,
    jitter: f64,
) -> Result<DMatrix<f64>, ComputeError> {
    linalg::precision_from_covariance(&(climatology * scale), jitter)
}

/// The options of every L-BFGS minimisation of 3D-/4D-Var.
pub fn lbfgs_options(params: &AssimParams) -> LbfgsOptions {
    LbfgsOptions {
        max_iterations: params.max_iterations,
        gradient_tolerance: 1e-6,
        ..LbfgsOptions::default()
    }
}

/// Root-mean-square error over every component and time (∞ if anything is not finite).
fn rmse(estimates: &[Vec<f64>], truth: &[Vec<f64>]) -> f64 {
    let mut sum = 0.0;
    let mut count = 0usize;
    for (e, t) in estimates.iter().zip(truth) {
        for (a, b) in e.iter().zip(t) {
            sum += (a - b) * (a - b);
            count += 1;
        }
    }
    let v = (sum / count.max(1) as f64).sqrt();
    if v.is_finite() { v } else { f64::INFINITY }
}

fn check(cancel: &CancelToken) -> Result<(), ComputeError> {
    if cancel.is_cancelled() {
        Err(ComputeError::Cancelled)
    } else {
        Ok(())
    }
}

/// The smallest entry's index by its last field (the first of equals).
fn best<T>(trials: &[T], key: impl Fn(&T) -> f64) -> usize {
    (0..trials.len())
        .min_by(|&a, &b| key(&trials[a]).total_cmp(&key(&trials[b])))
        .unwrap_or(0)
}

/// Chooses 3D-Var's and 4D-Var's B scale and the EnKF's localisation and inflation on the last
/// `params.tune_windows` windows of the training trajectory (fewer when the training is
/// shorter); the settings as given when that is 0.
pub fn tune(
    params: &AssimParams,
    data: &Data,
    climatology: &DMatrix<f64>,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Tuning, ComputeError> {
    let t_len = params.window;
    let windows = params.tune_windows.min(data.train_states.len() / t_len);
    if windows == 0 {
        return Ok(Tuning::as_given(params));
    }
    let start = data.train_states.len() - windows * t_len;
    let truth = &data.train_states[start..];
    let obs = &data.train_obs[start..];
    let mut r = rng::seeded(rng::derive_seed(seed, 3));
    let background: Vec<f64> = truth[0]
        .iter()
        .map(|v| v + params.background_noise * r.sample::<f64, _>(StandardNormal))
        .collect();
    let options = lbfgs_options(params);
    let sigma = assumed_obs_sigma(params);
    let mut tuning = Tuning {
        windows,
        ..Tuning::as_given(params)
    };
    let steps = 2 * SCALE_GRID.len() + LOCALISATION_GRID.len() * INFLATION_GRID.len();
    let mut done = 0usize;
    let mut tick = |what: &str| {
        progress.set(
            done as f64 / steps as f64,
            format!("tuning {what} on {windows} training windows"),
        );
        done += 1;
    };

    for four in [true, false] {
        let started = Instant::now();
        let mut trials = Vec::with_capacity(SCALE_GRID.len());
        for &scale in &SCALE_GRID {
            tick(if four { "4D-Var's B" } else { "3D-Var's B" });
            let b_inv = background_precision_at(climatology, scale, params.background_jitter)?;
            let var = Variational {
                system: &data.system,
                dt: params.dt,
                steps_per_obs: params.steps_per_obs,
                observer: &data.observer,
                b_inv: &b_inv,
                obs_sigma: sigma,
            };
            let mut xb = background.clone();
            let mut estimates = Vec::with_capacity(truth.len());
            for w in 0..windows {
                check(cancel)?;
                let window_obs = &obs[w * t_len..(w + 1) * t_len];
                xb = if four {
                    var.window_4dvar(&xb, window_obs, &options, &mut estimates)
                } else {
                    var.window_3dvar(&xb, window_obs, &options, &mut estimates)
                };
            }
            trials.push((scale, rmse(&estimates, truth)));
        }
        let chosen = trials[best(&trials, |t| t.1)].0;
        let seconds = started.elapsed().as_secs_f64();
        if four {
            (tuning.fourdvar_scale, tuning.fourdvar_trials) = (chosen, trials);
            tuning.fourdvar_seconds = seconds;
        } else {
            (tuning.threedvar_scale, tuning.threedvar_trials) = (chosen, trials);
            tuning.threedvar_seconds = seconds;
        }
    }

    let started = Instant::now();
    let dim = params.dim as f64;
    let mut trials = Vec::with_capacity(LOCALISATION_GRID.len() * INFLATION_GRID.len());
    for &fraction in &LOCALISATION_GRID {
        for &inflation in &INFLATION_GRID {
            tick("the EnKF");
            let c = fraction * dim;
            let filter = Enkf::new(
                &data.system,
                params.dt,
                params.steps_per_obs,
                &data.observer,
                sigma,
                c,
                inflation,
            );
            let mut er = rng::seeded(rng::derive_seed(seed, 4));
            let mut ensemble = initial_ensemble(
                &background,
                params.background_noise,
                params.enkf.members,
                &mut er,
            );
            let mut estimates = Vec::with_capacity(truth.len());
            for w in 0..windows {
                check(cancel)?;
                filter.window(
                    &mut ensemble,
                    &obs[w * t_len..(w + 1) * t_len],
                    &mut estimates,
                    &mut er,
                );
            }
            trials.push((c, inflation, rmse(&estimates, truth)));
        }
    }
    let chosen = trials[best(&trials, |t| t.2)];
    tuning.enkf_localisation = chosen.0;
    tuning.enkf_inflation = chosen.1;
    tuning.enkf_trials = trials;
    tuning.enkf_seconds = started.elapsed().as_secs_f64();
    Ok(tuning)
}
