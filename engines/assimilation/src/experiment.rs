//! One assimilation experiment end to end: data, training, and cycling of every method over
//! consecutive windows on held-out truth, with normalised RMSE and wall-clock per window.
//!
//! Data: Lorenz-96 (RK4) or Kuramoto–Sivashinsky (ETDRK4) from a random state, spun up; a training trajectory (one state per
//! observation time); then, after a gap, the held-out truth the methods assimilate. All methods
//! start from the same background x_b = truth₀ + N(0, σ_b²). Methods:
//! - **Tensor-Var**: the window quadratic in feature space, background z_b = A z_last of the
//!   previous window (φ(x_b) for the first);
//! - **4D-Var**: strong-constraint on the true model, L-BFGS with the adjoint gradient,
//!   background = the model forecast of the previous window's last analysis;
//! - **3D-Var**: at every observation time, background = forecast of the previous analysis;
//! - **Free run**: the true model from x_b, no observations;
//! - **EnKF**: the stochastic ensemble Kalman filter of [`crate::enkf`] on the true model,
//!   its members drawn around x_b with the spread σ_b;
//! - **Climatology** and **No dynamics**: the trivial references of [`crate::references`].
//!
//! 3D-/4D-Var use B = s·(climatological covariance of the training states), s and the EnKF's
//! localisation and inflation chosen on training windows ([`crate::tuning`]) unless
//! `tune_windows` is 0 (then s = `background_scale` and the EnKF's settings as given).
//! Normalised RMSE at a time: RMSE over components / (max − min of the whole truth).

use std::time::Instant;

use benchtop_compute::error::RUN_LIMIT_BYTES;
use benchtop_compute::{CancelToken, ComputeError, Progress, rng};
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

use crate::dynamics::{Lorenz96, System, integrate, trajectory};
use crate::enkf::{Enkf, EnkfSettings, initial_ensemble};
use crate::ks::Ks;
use crate::observe::Observer;
use crate::references::Climatology;
use crate::tensorvar::{TensorVarModel, TensorVarSettings, TrainingFit};
use crate::tuning::{self, Tuning};
use crate::variational::Variational;

/// The dynamical system of an experiment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SystemKind {
    /// Lorenz-96 (D variables, forcing F), RK4.
    #[default]
    Lorenz96,
    /// Kuramoto–Sivashinsky (D grid points on a periodic domain of length L), ETDRK4.
    KuramotoSivashinsky,
}

impl SystemKind {
    /// The display name.
    pub fn label(self) -> &'static str {
        match self {
            Self::Lorenz96 => "Lorenz-96",
            Self::KuramotoSivashinsky => "Kuramoto–Sivashinsky",
        }
    }

    /// The short name used in summary.json and on the command line ("l96", "ks").
    pub fn short(self) -> &'static str {
        match self {
            Self::Lorenz96 => "l96",
            Self::KuramotoSivashinsky => "ks",
        }
    }
}

/// Settings of one experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AssimParams {
    /// The dynamical system.
    pub system: SystemKind,
    /// State dimension D (Lorenz-96 variables or KS grid points).
    pub dim: usize,
    /// Lorenz-96 forcing F.
    pub forcing: f64,
    /// Kuramoto–Sivashinsky domain length L.
    pub domain_length: f64,
    /// Model step (RK4 for Lorenz-96, ETDRK4 for KS).
    pub dt: f64,
    /// Model steps between observation times (Lorenz-96: 10 × 0.01 = 0.1 as in the paper).
    pub steps_per_obs: usize,
    /// Fraction of components observed.
    pub obs_fraction: f64,
    /// Observation noise standard deviation σ.
    pub obs_noise: f64,
    /// Observation times per window T.
    pub window: usize,
    /// Windows assimilated.
    pub windows: usize,
    /// Training states (observation times) for Tensor-Var and the climatology.
    pub train_steps: usize,
    /// Initial background error standard deviation σ_b.
    pub background_noise: f64,
    /// B of 3D-/4D-Var as a multiple of the climatological covariance.
    pub background_scale: f64,
    /// Jitter added to B's diagonal, relative to its mean variance, before inverting it (bounds
    /// B⁻¹ in directions the training states hardly vary in, such as the damped small scales
    /// of Kuramoto–Sivashinsky).
    pub background_jitter: f64,
    /// L-BFGS iteration limit of 3D-/4D-Var.
    pub max_iterations: usize,
    /// Training windows on which 3D-/4D-Var's B scale and the EnKF's localisation and
    /// inflation are chosen (0: `background_scale` and the EnKF's settings as given).
    pub tune_windows: usize,
    /// The ensemble Kalman filter's settings.
    pub enkf: EnkfSettings,
    /// Tensor-Var's model settings.
    pub tensor_var: TensorVarSettings,
}

impl Default for AssimParams {
    fn default() -> Self {
        Self {
            system: SystemKind::Lorenz96,
            dim: 40,
            forcing: 8.0,
            domain_length: 22.0,
            dt: 0.01,
            steps_per_obs: 10,
            obs_fraction: 0.2,
            obs_noise: 0.1,
            window: 5,
            windows: 40,
            train_steps: 3000,
            background_noise: 1.0,
            background_scale: 0.1,
            background_jitter: 1e-6,
            max_iterations: 100,
            tune_windows: 10,
            enkf: EnkfSettings::default(),
            tensor_var: TensorVarSettings::default(),
        }
    }
}

impl AssimParams {
    /// The defaults of `system`: Lorenz-96 as [`Default`]; Kuramoto–Sivashinsky with 128 grid
    /// points on L = 22, ETDRK4 step 0.25 and observations every 1.0 time unit (4 steps), an
    /// initial background error of 0.5 (the field's standard deviation is about 1.3) and a B
    /// jitter of 1e-2 (with 1e-6 the damped small scales make B⁻¹ so ill-conditioned that
    /// 4D-Var's L-BFGS stalls within 100 iterations).
    pub fn for_system(system: SystemKind) -> Self {
        let mut p = Self::default();
        p.set_system(system);
        p
    }

    /// Switches to `system`, setting the system's own settings (D, dt, steps per observation,
    /// the initial background error, B's jitter) to its defaults and keeping the rest.
    pub fn set_system(&mut self, system: SystemKind) {
        let defaults = Self::default();
        self.system = system;
        match system {
            SystemKind::Lorenz96 => {
                self.dim = defaults.dim;
                self.dt = defaults.dt;
                self.steps_per_obs = defaults.steps_per_obs;
                self.background_noise = defaults.background_noise;
                self.background_jitter = defaults.background_jitter;
            }
            SystemKind::KuramotoSivashinsky => {
                self.dim = 128;
                self.domain_length = defaults.domain_length;
                self.dt = 0.25;
                self.steps_per_obs = 4;
                self.background_noise = 0.5;
                self.background_jitter = 1e-2;
            }
        }
    }

    /// The system these settings describe, ready to step.
    pub fn build_system(&self) -> System {
        match self.system {
            SystemKind::Lorenz96 => System::Lorenz96(Lorenz96 {
                dim: self.dim,
                forcing: self.forcing,
            }),
            SystemKind::KuramotoSivashinsky => {
                System::Ks(Box::new(Ks::new(self.dim, self.domain_length, self.dt)))
            }
        }
    }

    /// Checks every setting, naming the first bad key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        let bad = |k: &str, why: &str| Err(ComputeError::invalid(k, why));
        match self.system {
            SystemKind::Lorenz96 => {
                if self.dim < 4 {
                    return bad("dim", "Lorenz-96 needs at least 4 variables");
                }
                if !(self.dt > 0.0 && self.dt <= 0.05) {
                    return bad("dt", "must be in (0, 0.05] for a stable RK4 on Lorenz-96");
                }
            }
            SystemKind::KuramotoSivashinsky => {
                if self.dim < 16 || !self.dim.is_multiple_of(2) {
                    return bad(
                        "dim",
                        "Kuramoto–Sivashinsky needs an even number of grid points ≥ 16",
                    );
                }
                if !(self.domain_length > 0.0 && self.domain_length.is_finite()) {
                    return bad("domain_length", "must be > 0");
                }
                if !(self.dt > 0.0 && self.dt <= 1.0) {
                    return bad("dt", "must be in (0, 1] for ETDRK4 on Kuramoto–Sivashinsky");
                }
            }
        }
        if !(self.obs_fraction > 0.0 && self.obs_fraction <= 1.0) {
            return bad("obs_fraction", "must be in (0, 1]");
        }
        if !(self.obs_noise >= 0.0 && self.obs_noise.is_finite()) {
            return bad("obs_noise", "must be ≥ 0");
        }
        if self.steps_per_obs == 0 || self.window == 0 || self.windows == 0 {
            return bad("window", "steps_per_obs, window and windows must be ≥ 1");
        }
        if self.train_steps < 50 {
            return bad("train_steps", "at least 50 training states");
        }
        let tv = &self.tensor_var;
        if tv.components == 0 || tv.components > tv.features {
            return bad(
                "tensor_var.components",
                "must be between 1 and the number of random features",
            );
        }
        for (key, value) in [
            ("tensor_var.ridge", tv.ridge),
            ("tensor_var.obs_ridge", tv.obs_ridge),
            ("tensor_var.preimage_ridge", tv.preimage_ridge),
        ] {
            if !(value > 0.0 && value.is_finite()) {
                return bad(key, "must be a finite number > 0");
            }
        }
        if self.background_scale.is_nan() || self.background_scale <= 0.0 {
            return bad("background_scale", "must be > 0");
        }
        if !(self.background_jitter > 0.0 && self.background_jitter.is_finite()) {
            return bad("background_jitter", "must be > 0");
        }
        if self.enkf.members < 2 {
            return bad("enkf.members", "an ensemble needs at least 2 members");
        }
        if self.enkf.localisation.is_nan() || self.enkf.localisation <= 0.0 {
            return bad("enkf.localisation", "must be > 0");
        }
        if !(self.enkf.inflation >= 1.0 && self.enkf.inflation.is_finite()) {
            return bad("enkf.inflation", "must be ≥ 1");
        }
        // The run's working set: Tensor-Var's random features and their copies for every
        // training state (about three m-wide rows and two states each), and the m × m
        // covariances of the PCA and the operators' fits.
        ComputeError::check_run_memory(
            &[
                ("train_steps", self.train_steps),
                (
                    "3 × tensor_var.features + 2 × dim",
                    3 * self.tensor_var.features + 2 * self.dim,
                ),
            ],
            8,
            RUN_LIMIT_BYTES,
        )?;
        ComputeError::check_run_memory(
            &[
                ("tensor_var.features", self.tensor_var.features),
                ("tensor_var.features × 4", 4 * self.tensor_var.features),
            ],
            8,
            RUN_LIMIT_BYTES,
        )?;
        Ok(())
    }
}

/// One method's run over all windows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MethodRun {
    /// "Tensor-Var", "4D-Var", "3D-Var", "Free run", "EnKF", "Climatology" or "No dynamics".
    pub name: String,
    /// The estimate at every observation time (windows × T states).
    pub estimates: Vec<Vec<f64>>,
    /// Normalised RMSE at every observation time.
    pub nrmse: Vec<f64>,
    /// Mean of `nrmse`.
    pub rmse_mean: f64,
    /// Mean of `nrmse` over the last window.
    pub rmse_final: f64,
    /// Wall-clock per window (ms).
    pub ms_per_window: f64,
    /// Offline wall-clock before the first window (s): Tensor-Var's training; a baseline's
    /// tuning on training windows; the climatology's statistics.
    #[serde(default)]
    pub training_seconds: f64,
}

impl MethodRun {
    /// Offline time plus `windows` windows at the measured time per window (s).
    pub fn total_seconds(&self, windows: usize) -> f64 {
        self.training_seconds + self.ms_per_window * windows as f64 * 1e-3
    }
}

/// Everything an experiment produces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AssimResult {
    /// The held-out truth at every observation time.
    pub truth: Vec<Vec<f64>>,
    /// Observed component indices.
    pub observed: Vec<usize>,
    /// max − min of the truth (the RMSE normaliser).
    pub range: f64,
    /// Methods in the order Tensor-Var, 4D-Var, 3D-Var, Free run, EnKF, Climatology,
    /// No dynamics.
    pub methods: Vec<MethodRun>,
    /// Tensor-Var's training diagnostics.
    pub fit: TrainingFit,
    /// Tensor-Var's training time (ms).
    pub train_ms: f64,
    /// The baselines' settings and how they were chosen on training windows.
    #[serde(default)]
    pub tuning: Tuning,
}

impl AssimResult {
    /// The run of method `name`.
    pub fn method(&self, name: &str) -> Option<&MethodRun> {
        self.methods.iter().find(|m| m.name == name)
    }
}

/// Truth, training data and observations of one experiment.
#[derive(Clone, Debug)]
pub struct Data {
    /// The system.
    pub system: System,
    /// What is observed.
    pub observer: Observer,
    /// Training states.
    pub train_states: Vec<Vec<f64>>,
    /// Their noisy observations.
    pub train_obs: Vec<Vec<f64>>,
    /// Held-out truth (windows × T states).
    pub truth: Vec<Vec<f64>>,
    /// Its noisy observations.
    pub obs: Vec<Vec<f64>>,
    /// The initial background.
    pub background: Vec<f64>,
}

/// Makes the data of `params` from `seed`.
pub fn make_data(params: &AssimParams, seed: u64) -> Data {
    let system = params.build_system();
    let mut r = rng::seeded(seed);
    let mut x = initial_state(params, &mut r);
    integrate(&system, &mut x, params.dt, spin_up_steps(params));
    let train_states = trajectory(
        &system,
        &x,
        params.dt,
        params.steps_per_obs,
        params.train_steps,
    );
    let mut x = train_states[params.train_steps - 1].clone();
    integrate(&system, &mut x, params.dt, 50 * params.steps_per_obs);
    let truth = trajectory(
        &system,
        &x,
        params.dt,
        params.steps_per_obs,
        params.windows * params.window,
    );
    let observer = Observer::random(params.dim, params.obs_fraction, true, &mut r);
    let train_obs = train_states
        .iter()
        .map(|s| observer.observe_noisy(s, params.obs_noise, &mut r))
        .collect();
    let obs = truth
        .iter()
        .map(|s| observer.observe_noisy(s, params.obs_noise, &mut r))
        .collect();
    let background = truth[0]
        .iter()
        .map(|v| v + params.background_noise * r.sample::<f64, _>(StandardNormal))
        .collect();
    Data {
        system,
        observer,
        train_states,
        train_obs,
        truth,
        obs,
        background,
    }
}

/// A random initial state: Lorenz-96 F + N(0, 1) per variable; KS a sum of the first four
/// Fourier modes with N(0, 0.5²) amplitudes.
fn initial_state<R: Rng>(params: &AssimParams, r: &mut R) -> Vec<f64> {
    match params.system {
        SystemKind::Lorenz96 => (0..params.dim)
            .map(|_| params.forcing + r.sample::<f64, _>(StandardNormal))
            .collect(),
        SystemKind::KuramotoSivashinsky => {
            let amplitudes: Vec<(f64, f64)> = (0..4)
                .map(|_| {
                    (
                        0.5 * r.sample::<f64, _>(StandardNormal),
                        0.5 * r.sample::<f64, _>(StandardNormal),
                    )
                })
                .collect();
            (0..params.dim)
                .map(|j| {
                    let phase = std::f64::consts::TAU * j as f64 / params.dim as f64;
                    amplitudes
                        .iter()
                        .enumerate()
                        .map(|(m, (a, b))| {
                            let arg = (m + 1) as f64 * phase;
                            a * arg.cos() + b * arg.sin()
                        })
                        .sum()
                })
                .collect()
        }
    }
}

/// Steps that carry the initial state onto the attractor: Lorenz-96 1000 (10 time units at
/// dt = 0.01); KS 150 time units (the transient of L = 22 is long).
fn spin_up_steps(params: &AssimParams) -> usize {
    match params.system {
        SystemKind::Lorenz96 => 1000,
        SystemKind::KuramotoSivashinsky => (150.0 / params.dt).ceil() as usize,
    }
}

/// The observation error σ the variational costs assume: the noise, at least 0.01.
pub fn assumed_obs_sigma(params: &AssimParams) -> f64 {
    params.obs_noise.max(0.01)
}

/// B⁻¹ of 3D-/4D-Var: the inverse of `scale` × the climatological covariance of the training
/// states (with the relative jitter `background_jitter`).
pub fn background_precision(
    params: &AssimParams,
    data: &Data,
    scale: f64,
) -> Result<DMatrix<f64>, ComputeError> {
    tuning::background_precision_at(
        &tuning::climatological_covariance(data),
        scale,
        params.background_jitter,
    )
}

fn nrmse(a: &[f64], b: &[f64], range: f64) -> f64 {
    let n = a.len().max(1) as f64;
    (a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum::<f64>() / n).sqrt() / range
}

fn method_run(
    name: &str,
    estimates: Vec<Vec<f64>>,
    data: &Data,
    range: f64,
    window: usize,
    (ms, training_seconds): (f64, f64),
) -> MethodRun {
    let nrmse: Vec<f64> = estimates
        .iter()
        .zip(&data.truth)
        .map(|(e, t)| nrmse(e, t, range))
        .collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let last = &nrmse[nrmse.len().saturating_sub(window)..];
    MethodRun {
        name: name.to_owned(),
        rmse_mean: mean(&nrmse),
        rmse_final: mean(last),
        estimates,
        nrmse,
        ms_per_window: ms,
        training_seconds,
    }
}

fn check(cancel: &CancelToken) -> Result<(), ComputeError> {
    if cancel.is_cancelled() {
        Err(ComputeError::Cancelled)
    } else {
        Ok(())
    }
}

/// Runs the experiment: data from `seed`, Tensor-Var trained, all methods cycled.
pub fn run(
    params: &AssimParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<AssimResult, ComputeError> {
    run_live(params, seed, progress, cancel, |_| {})
}

/// [`run`], handing `on_window` the result so far after every window.
pub fn run_live(
    params: &AssimParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
    on_window: impl FnMut(&AssimResult),
) -> Result<AssimResult, ComputeError> {
    params.validate()?;
    progress.set(0.0, format!("simulating {}", params.system.label()));
    let data = make_data(params, seed);
    run_on_live(params, &data, seed, progress, cancel, on_window)
}

/// Runs every method on prepared `data`.
pub fn run_on(
    params: &AssimParams,
    data: &Data,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<AssimResult, ComputeError> {
    run_on_live(params, data, seed, progress, cancel, |_| {})
}

/// Runs every method on prepared `data`, window by window (each method's own time is measured
/// separately), handing `on_window` the result so far after every window.
pub fn run_on_live(
    params: &AssimParams,
    data: &Data,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
    mut on_window: impl FnMut(&AssimResult),
) -> Result<AssimResult, ComputeError> {
    let truth_max = data
        .truth
        .iter()
        .flatten()
        .copied()
        .fold(f64::MIN, f64::max);
    let truth_min = data
        .truth
        .iter()
        .flatten()
        .copied()
        .fold(f64::MAX, f64::min);
    let range = (truth_max - truth_min).max(1e-12);
    let t_len = params.window;

    progress.set(0.0, "training Tensor-Var");
    let started = Instant::now();
    let mut trng = rng::seeded(rng::derive_seed(seed, 1));
    let model = TensorVarModel::train(
        &data.train_states,
        &data.train_obs,
        &params.tensor_var,
        &mut trng,
    )?;
    let solver = model.window_solver(t_len)?;
    let train_ms = started.elapsed().as_secs_f64() * 1e3;
    check(cancel)?;

    // The trivial references' statistics, and the baselines' settings chosen on training
    // windows.
    let started = Instant::now();
    let clim = Climatology::of(&data.train_states);
    let clim_seconds = started.elapsed().as_secs_f64();
    let clim_cov = tuning::climatological_covariance(data);
    let tuned = tuning::tune(
        params,
        data,
        &clim_cov,
        seed,
        &progress.slice(0.05, 0.4),
        cancel,
    )?;

    let sigma = assumed_obs_sigma(params);
    let b4_inv =
        tuning::background_precision_at(&clim_cov, tuned.fourdvar_scale, params.background_jitter)?;
    let b3_inv = tuning::background_precision_at(
        &clim_cov,
        tuned.threedvar_scale,
        params.background_jitter,
    )?;
    let var4 = Variational {
        system: &data.system,
        dt: params.dt,
        steps_per_obs: params.steps_per_obs,
        observer: &data.observer,
        b_inv: &b4_inv,
        obs_sigma: sigma,
    };
    let var3 = Variational {
        b_inv: &b3_inv,
        ..var4
    };
    let options = tuning::lbfgs_options(params);
    let filter = Enkf::new(
        &data.system,
        params.dt,
        params.steps_per_obs,
        &data.observer,
        sigma,
        tuned.enkf_localisation,
        tuned.enkf_inflation,
    );
    let free = trajectory(
        &data.system,
        &data.background,
        params.dt,
        params.steps_per_obs,
        data.truth.len(),
    );

    let n = data.truth.len();
    // Estimates of Tensor-Var, 4D-Var, 3D-Var, EnKF, Climatology, No dynamics.
    let mut est: [Vec<Vec<f64>>; 6] = std::array::from_fn(|_| Vec::with_capacity(n));
    let mut seconds = [0.0_f64; 6];
    let offline = [
        train_ms * 1e-3,
        tuned.fourdvar_seconds,
        tuned.threedvar_seconds,
        tuned.enkf_seconds,
        clim_seconds,
        clim_seconds,
    ];
    let mut zb = model.features.encode(&data.background);
    let mut xb4 = data.background.clone();
    let mut xb3 = data.background.clone();
    let mut erng = rng::seeded(rng::derive_seed(seed, 2));
    let mut ensemble = initial_ensemble(
        &data.background,
        params.background_noise.max(1e-3),
        params.enkf.members,
        &mut erng,
    );
    let assemble = |est: &[Vec<Vec<f64>>; 6], seconds: &[f64; 6], done: usize| {
        let per = |s: f64| s * 1e3 / done.max(1) as f64;
        let len = est[0].len();
        let run = |k: usize, name: &str| {
            method_run(
                name,
                est[k].clone(),
                data,
                range,
                t_len,
                (per(seconds[k]), offline[k]),
            )
        };
        AssimResult {
            truth: data.truth[..len].to_vec(),
            observed: data.observer.indices.clone(),
            range,
            methods: vec![
                run(0, "Tensor-Var"),
                run(1, "4D-Var"),
                run(2, "3D-Var"),
                method_run(
                    "Free run",
                    free[..len].to_vec(),
                    data,
                    range,
                    t_len,
                    (0.0, 0.0),
                ),
                run(3, "EnKF"),
                run(4, "Climatology"),
                run(5, "No dynamics"),
            ],
            fit: model.fit.clone(),
            train_ms,
            tuning: tuned.clone(),
        }
    };
    let cycling = progress.slice(0.4, 1.0);
    for w in 0..params.windows {
        check(cancel)?;
        cycling.set(
            w as f64 / params.windows as f64,
            format!("window {}/{}", w + 1, params.windows),
        );
        let obs = &data.obs[w * t_len..(w + 1) * t_len];

        // Tensor-Var: the window quadratic in feature space, then the pre-image.
        let started = Instant::now();
        let zhat: Vec<DVector<f64>> = (0..t_len)
            .map(|t| model.pseudo_observation(&data.obs, w * t_len + t))
            .collect();
        let z = solver.solve(&zb, &zhat);
        for zt in &z {
            est[0].push(model.decoder.decode(zt));
        }
        zb = &model.forward * &z[t_len - 1];
        seconds[0] += started.elapsed().as_secs_f64();

        // 4D-Var on the true model.
        let started = Instant::now();
        xb4 = var4.window_4dvar(&xb4, obs, &options, &mut est[1]);
        seconds[1] += started.elapsed().as_secs_f64();

        // 3D-Var at every time of the window.
        let started = Instant::now();
        xb3 = var3.window_3dvar(&xb3, obs, &options, &mut est[2]);
        seconds[2] += started.elapsed().as_secs_f64();

        // The EnKF on the true model.
        let started = Instant::now();
        filter.window(&mut ensemble, obs, &mut est[3], &mut erng);
        seconds[3] += started.elapsed().as_secs_f64();

        // The trivial references.
        let started = Instant::now();
        est[4].extend(obs.iter().map(|_| clim.mean.clone()));
        seconds[4] += started.elapsed().as_secs_f64();
        let started = Instant::now();
        est[5].extend(obs.iter().map(|y| clim.no_dynamics(&data.observer, y)));
        seconds[5] += started.elapsed().as_secs_f64();

        if w + 1 < params.windows {
            on_window(&assemble(&est, &seconds, w + 1));
        }
    }
    progress.set(1.0, "done");
    Ok(assemble(&est, &seconds, params.windows))
}
