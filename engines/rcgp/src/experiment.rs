//! One experiment: load or generate the data, inject outliers, fit and run STGP and ST-RCGP,
//! and score both against the clean truth; and the sweep over the outlier rate.

use std::path::Path;
use std::time::Instant;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::{Deserialize, Serialize};

use crate::data::{self, Dataset};
use crate::filter::{self, Posterior};
use crate::fit::{self, Budget, FitReport, Objective};
use crate::metrics;
use crate::model::{Hyper, KernelChoice, Prior};
use crate::robust::{Observation, RobustSettings};

/// Where the data come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// The paper's Figure-1 field on a grid.
    #[default]
    Figure1,
    /// A monthly stock price (vendored vega-datasets `stocks.csv`).
    Stocks,
    /// A daily Seattle weather column (vendored vega-datasets `seattle-weather.csv`).
    SeattleWeather,
    /// The user's CSV file.
    Csv,
}

impl Source {
    /// Every source, for choosers.
    pub const ALL: [Self; 4] = [Self::Figure1, Self::Stocks, Self::SeattleWeather, Self::Csv];

    /// Name for people.
    pub fn label(self) -> &'static str {
        match self {
            Self::Figure1 => "Figure-1 field (synthetic)",
            Self::Stocks => "Stock price (vega-datasets)",
            Self::SeattleWeather => "Seattle weather (vega-datasets)",
            Self::Csv => "CSV file",
        }
    }
}

/// What data to use and how to contaminate them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DataSpec {
    /// The source.
    pub source: Source,
    /// Figure-1: grid points per side.
    pub grid: usize,
    /// Figure-1: number of times in [0, 1].
    pub n_times: usize,
    /// Figure-1: observation noise standard deviation.
    pub noise_sd: f64,
    /// Stocks: the ticker.
    pub symbol: String,
    /// Seattle weather: the column.
    pub weather_column: String,
    /// CSV: the file (relative paths are relative to the project's folder).
    pub csv_path: String,
    /// CSV (wide layout): the value column (1-based), 0 for all as points on a line.
    pub csv_column: usize,
    /// Fraction of observations given an outlier.
    pub outlier_rate: f64,
    /// Outlier shift lower bound; shifts are ±U[size, size + 2] times the data's scale (1 for
    /// the Figure-1 field, the series' robust standard deviation for real data).
    pub outlier_size: f64,
}

impl Default for DataSpec {
    fn default() -> Self {
        Self {
            source: Source::Figure1,
            grid: 10,
            n_times: 100,
            noise_sd: 0.1,
            symbol: "IBM".to_owned(),
            weather_column: "temp_max".to_owned(),
            csv_path: String::new(),
            csv_column: 0,
            outlier_rate: 0.05,
            outlier_size: 6.0,
        }
    }
}

/// How ST-RCGP's hyperparameters are fitted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RobustFit {
    /// Twice: run ST-RCGP, replace the observations it down-weights below
    /// [`CLEAN_THRESHOLD`] by its smoothed mean, and fit the exact marginal likelihood on the
    /// cleaned data (fast: the decoupled likelihood). Inliers keep their noise, so σ² stays
    /// honest.
    #[default]
    Cleaned,
    /// Maximise the robust filter's pseudo-marginal likelihood directly (slow: one stacked
    /// filter pass per evaluation; tends to shrink σ² on heavy-tailed real data).
    PseudoLikelihood,
}

impl RobustFit {
    /// Both, for choosers.
    pub const ALL: [Self; 2] = [Self::Cleaned, Self::PseudoLikelihood];

    /// Name for people.
    pub fn label(self) -> &'static str {
        match self {
            Self::Cleaned => "likelihood after IMQ down-weighting",
            Self::PseudoLikelihood => "robust pseudo-likelihood",
        }
    }
}

/// Relative IMQ weight below which [`RobustFit::Cleaned`] replaces an observation by the
/// robust posterior mean (with the default c this is a residual beyond ≈ 4.5 predictive SDs).
pub const CLEAN_THRESHOLD: f64 = 0.3;

/// Starting points of each hyperparameter fit unless set ([`RcgpParams::fit_starts`]).
pub const DEFAULT_FIT_STARTS: usize = 8;

/// All settings of one experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RcgpParams {
    /// The data.
    pub data: DataSpec,
    /// Kernels.
    pub kernel: KernelChoice,
    /// Hyperparameters in standardised units (data minus its median, over its robust
    /// standard deviation): used as they are, or as the fit's starting point.
    pub hyper: Hyper,
    /// Fit the hyperparameters (each method on its own objective).
    pub fit: bool,
    /// Most L-BFGS iterations of a fit, from each start.
    pub fit_iterations: usize,
    /// Starting points of each fit: the hyperparameters above and `fit_starts − 1` spread over
    /// decades (see [`fit::starts`]); the same for both methods. 1 fits from the given
    /// hyperparameters only.
    pub fit_starts: usize,
    /// How ST-RCGP's hyperparameters are fitted.
    pub robust_fit: RobustFit,
    /// The robust update.
    pub robust: RobustSettings,
    /// Seed of the noise and the outliers.
    pub seed: u64,
}

impl Default for RcgpParams {
    fn default() -> Self {
        Self {
            data: DataSpec::default(),
            kernel: KernelChoice::default(),
            hyper: Hyper::default(),
            fit: true,
            fit_iterations: 20,
            fit_starts: DEFAULT_FIT_STARTS,
            robust_fit: RobustFit::Cleaned,
            robust: RobustSettings::default(),
            seed: 1,
        }
    }
}

/// One method's outcome.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MethodResult {
    /// "STGP" or "ST-RCGP".
    pub name: String,
    /// The hyperparameters used (standardised units).
    pub hyper: Hyper,
    /// The fit, when fitted.
    pub fit: Option<FitReport>,
    /// Posterior mean in data units, time-major.
    pub mean: Vec<f64>,
    /// Posterior variance of the latent field in data units².
    pub var: Vec<f64>,
    /// Weight of each observation relative to β.
    pub weight: Vec<f64>,
    /// The filter's log (pseudo-)marginal likelihood at `hyper` (standardised units).
    pub log_likelihood: f64,
    /// RMSE of the mean against the reference values ([`Dataset::clean`]: the truth, or the
    /// observations before the injected outliers; see [`Dataset::scored_against`]).
    pub rmse: f64,
    /// NLPD of the reference values (latent truth: N(mean, var); observations:
    /// N(mean, var + σ²)).
    pub nlpd: f64,
    /// Wall time of fit + filter + smoother.
    pub seconds: f64,
}

/// The trivial references a referee asks for first, scored against the same reference values as
/// the methods: what no model at all gives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct References {
    /// RMSE of the observations themselves (the injected outliers included) taken as the
    /// prediction.
    pub observations_rmse: f64,
    /// RMSE of each location's mean observation over time taken as the prediction there (a
    /// per-location constant).
    pub location_mean_rmse: f64,
    /// NLPD of the reference values under N(location mean, location variance over time).
    pub location_mean_nlpd: f64,
}

impl References {
    /// The references of `data` (scored against `data.clean`).
    pub fn of(data: &Dataset) -> Self {
        let (means, vars) = location_moments(data);
        let ns = data.n_space().max(1);
        let mean: Vec<f64> = (0..data.y.len()).map(|k| means[k % ns]).collect();
        let var: Vec<f64> = (0..data.y.len()).map(|k| vars[k % ns]).collect();
        Self {
            observations_rmse: metrics::rmse(&data.y, &data.clean),
            location_mean_rmse: metrics::rmse(&mean, &data.clean),
            location_mean_nlpd: metrics::nlpd(&mean, &var, 0.0, &data.clean),
        }
    }
}

/// Each location's mean and variance of the observations over time.
pub fn location_moments(data: &Dataset) -> (Vec<f64>, Vec<f64>) {
    let ns = data.n_space().max(1);
    let nt = data.n_times().max(1) as f64;
    let mut mean = vec![0.0; ns];
    for (k, v) in data.y.iter().enumerate() {
        mean[k % ns] += v / nt;
    }
    let mut var = vec![0.0; ns];
    for (k, v) in data.y.iter().enumerate() {
        var[k % ns] += (v - mean[k % ns]).powi(2) / nt;
    }
    (mean, var)
}

/// One experiment's outcome.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    /// The data, with the injected outliers.
    pub data: Dataset,
    /// The median subtracted before modelling.
    pub offset: f64,
    /// The robust standard deviation divided out before modelling.
    pub scale: f64,
    /// The standard Kalman filter + smoother.
    pub stgp: MethodResult,
    /// The robust conjugate filter + smoother.
    pub rcgp: MethodResult,
    /// The trivial references (absent in results saved before they were computed).
    #[serde(default)]
    pub references: Option<References>,
}

impl RunResult {
    /// STGP's RMSE over ST-RCGP's (how many times lower ST-RCGP's is).
    pub fn rmse_ratio(&self) -> f64 {
        self.stgp.rmse / self.rcgp.rmse
    }

    /// The comparison in one line, computed from the result: how much lower ST-RCGP's RMSE is
    /// than STGP's, at which STGP fit, and against what.
    pub fn verdict(&self) -> String {
        let ratio = self.rmse_ratio();
        let against = match self.stgp.fit {
            Some(f) if f.starts > 1 => format!(
                "STGP fitted at its maximum likelihood (best of {} starts)",
                f.starts
            ),
            Some(_) => "STGP fitted from one start".to_owned(),
            None => "STGP at the given (unfitted) hyperparameters".to_owned(),
        };
        let what = self.data.scored_against();
        let head = if !ratio.is_finite() {
            "ST-RCGP and STGP cannot be compared (an RMSE is zero or not finite)".to_owned()
        } else if ratio >= 1.0 {
            format!("ST-RCGP RMSE {ratio:.1}× lower than {against}")
        } else {
            format!("ST-RCGP RMSE {:.1}× higher than {against}", 1.0 / ratio)
        };
        format!("{head}, against the {what}")
    }
}

/// Loads or generates the data and injects the outliers.
pub fn load_data(
    spec: &DataSpec,
    seed: u64,
    project_dir: Option<&Path>,
) -> Result<Dataset, ComputeError> {
    let data_error = |e: data::DataError| ComputeError::invalid("data", e.to_string());
    let (mut data, scale) = match spec.source {
        Source::Figure1 => {
            if spec.grid == 0 || spec.n_times < 2 {
                return Err(ComputeError::invalid(
                    "data.grid",
                    "need a grid of at least 1 and at least 2 times",
                ));
            }
            if !(spec.noise_sd.is_finite() && spec.noise_sd >= 0.0) {
                return Err(ComputeError::invalid(
                    "data.noise_sd",
                    "must be finite and non-negative",
                ));
            }
            (
                data::figure1(spec.grid, spec.n_times, spec.noise_sd, seed),
                1.0,
            )
        }
        source => {
            let d = match source {
                Source::Stocks => data::stocks(&spec.symbol).map_err(data_error)?,
                Source::SeattleWeather => {
                    data::seattle_weather(&spec.weather_column).map_err(data_error)?
                }
                _ => {
                    if spec.csv_path.trim().is_empty() {
                        return Err(ComputeError::invalid("data.csv_path", "choose a CSV file"));
                    }
                    let path = Path::new(spec.csv_path.trim());
                    let path = match project_dir {
                        Some(dir) if path.is_relative() => dir.join(path),
                        _ => path.to_path_buf(),
                    };
                    data::load_csv(&path, spec.csv_column).map_err(data_error)?
                }
            };
            let scale = robust_scale(&d.y).1;
            (d, scale)
        }
    };
    if !(spec.outlier_rate.is_finite() && (0.0..=1.0).contains(&spec.outlier_rate)) {
        return Err(ComputeError::invalid(
            "data.outlier_rate",
            "must be in [0, 1]",
        ));
    }
    data::inject_outliers(&mut data, spec.outlier_rate, spec.outlier_size, scale, seed);
    Ok(data)
}

/// (median, 1.4826 · median absolute deviation), falling back to the standard deviation and
/// then 1 for constant data.
pub fn robust_scale(y: &[f64]) -> (f64, f64) {
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n == 0 {
            0.0
        } else if n % 2 == 1 {
            v[n / 2]
        } else {
            0.5 * (v[n / 2 - 1] + v[n / 2])
        }
    };
    let mut sorted = y.to_vec();
    let m = median(&mut sorted);
    let mut dev: Vec<f64> = y.iter().map(|v| (v - m).abs()).collect();
    let mad = 1.4826 * median(&mut dev);
    if mad > 0.0 {
        return (m, mad);
    }
    let sd = (y.iter().map(|v| (v - m).powi(2)).sum::<f64>() / y.len().max(1) as f64).sqrt();
    (m, if sd > 0.0 { sd } else { 1.0 })
}

/// Runs both methods on `data`.
pub fn run_on(
    params: &RcgpParams,
    data: Dataset,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<RunResult, ComputeError> {
    let (offset, scale) = robust_scale(&data.y);
    let ys: Vec<f64> = data.y.iter().map(|v| (v - offset) / scale).collect();
    let prior = Prior {
        kernel: params.kernel,
        hyper: params.hyper,
        times: &data.times,
        locations: &data.locations,
    };
    filter::check_problem(&prior, &ys)?;
    let finish = |name: &str,
                  hyper: Hyper,
                  fit: Option<FitReport>,
                  observation: Observation,
                  start: Instant,
                  progress: &Progress| {
        let fitted = Prior {
            hyper,
            ..prior.clone()
        };
        progress.set(0.95, format!("{name}: filter and smoother"));
        let Posterior {
            mean,
            var,
            weight,
            log_likelihood,
        } = filter::run(&fitted, &ys, observation, true, cancel)?;
        let seconds = start.elapsed().as_secs_f64();
        let mean: Vec<f64> = mean.iter().map(|m| m * scale + offset).collect();
        let var: Vec<f64> = var.iter().map(|v| v * scale * scale).collect();
        let extra = if data.clean_is_latent {
            0.0
        } else {
            hyper.noise * scale * scale
        };
        Ok::<_, ComputeError>(MethodResult {
            name: name.to_owned(),
            hyper,
            fit,
            rmse: metrics::rmse(&mean, &data.clean),
            nlpd: metrics::nlpd(&mean, &var, extra, &data.clean),
            mean,
            var,
            weight,
            log_likelihood,
            seconds,
        })
    };
    if params.fit && params.fit_starts == 0 {
        return Err(ComputeError::invalid(
            "fit_starts",
            "a fit needs at least one starting point",
        ));
    }
    let budget = Budget {
        max_iterations: params.fit_iterations,
        starts: params.fit_starts,
    };
    // STGP: the exact marginal likelihood.
    let start = Instant::now();
    let p = progress.slice(0.0, 0.3);
    let fit = if params.fit {
        Some(fit::fit(
            &prior,
            &ys,
            Objective::Marginal,
            budget,
            &[],
            &p,
            cancel,
        )?)
    } else {
        None
    };
    let hyper = fit.map_or(params.hyper, |f| f.hyper);
    let stgp = finish("STGP", hyper, fit, Observation::Gaussian, start, &p)?;
    // ST-RCGP.
    let start = Instant::now();
    let p = progress.slice(0.3, 1.0);
    let robust = Observation::Robust(params.robust);
    let fit = match (params.fit, params.robust_fit) {
        (false, _) => None,
        (true, RobustFit::PseudoLikelihood) => Some(fit::fit(
            &prior,
            &ys,
            Objective::Robust(params.robust),
            budget,
            &[],
            &p,
            cancel,
        )?),
        (true, RobustFit::Cleaned) => {
            let mut hyper = params.hyper;
            let mut report = None;
            for round in 0..2 {
                let round_progress = p.slice(0.45 * f64::from(round), 0.45 * f64::from(round + 1));
                round_progress.set(0.0, "ST-RCGP: down-weighting");
                let fitted = Prior {
                    hyper,
                    ..prior.clone()
                };
                let post = filter::run(&fitted, &ys, robust, true, cancel)?;
                let cleaned: Vec<f64> = ys
                    .iter()
                    .zip(post.weight.iter().zip(&post.mean))
                    .map(|(&y, (&w, &m))| if w < CLEAN_THRESHOLD { m } else { y })
                    .collect();
                // From the user's start (and the spread ones, the same budget as STGP's fit),
                // and in the second round also from the first round's fit.
                let earlier: Vec<Hyper> = report.iter().map(|r: &FitReport| r.hyper).collect();
                let f = fit::fit(
                    &prior,
                    &cleaned,
                    Objective::Marginal,
                    budget,
                    &earlier,
                    &round_progress,
                    cancel,
                )?;
                hyper = f.hyper;
                report = Some(f);
            }
            report
        }
    };
    let hyper = fit.map_or(params.hyper, |f| f.hyper);
    let rcgp = finish("ST-RCGP", hyper, fit, robust, start, &p)?;
    progress.set(1.0, "done");
    Ok(RunResult {
        references: Some(References::of(&data)),
        data,
        offset,
        scale,
        stgp,
        rcgp,
    })
}

/// Loads the data and runs both methods.
pub fn run(
    params: &RcgpParams,
    project_dir: Option<&Path>,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<RunResult, ComputeError> {
    let data = load_data(&params.data, params.seed, project_dir)?;
    run_on(params, data, progress, cancel)
}

/// One point of the outlier-rate sweep.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Outlier rate.
    pub rate: f64,
    /// STGP's RMSE against the reference values.
    pub stgp_rmse: f64,
    /// ST-RCGP's RMSE against the reference values.
    pub rcgp_rmse: f64,
    /// The observations' own RMSE (no model; absent in sweeps saved before it was computed).
    #[serde(default)]
    pub observations_rmse: Option<f64>,
    /// The per-location mean's RMSE (absent in sweeps saved before it was computed).
    #[serde(default)]
    pub location_mean_rmse: Option<f64>,
    /// Whether the scores are against a clean truth (else against the observations before the
    /// injected outliers; absent in sweeps saved before it was recorded).
    #[serde(default)]
    pub against_truth: Option<bool>,
}

/// Runs the experiment at each outlier rate (same seed, so the same noise).
pub fn sweep_outlier_rate(
    params: &RcgpParams,
    rates: &[f64],
    project_dir: Option<&Path>,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Vec<SweepPoint>, ComputeError> {
    let mut out = Vec::with_capacity(rates.len());
    for (k, &rate) in rates.iter().enumerate() {
        let n = rates.len() as f64;
        let mut p = params.clone();
        p.data.outlier_rate = rate;
        let r = run(
            &p,
            project_dir,
            &progress.slice(k as f64 / n, (k + 1) as f64 / n),
            cancel,
        )?;
        out.push(SweepPoint {
            rate,
            stgp_rmse: r.stgp.rmse,
            rcgp_rmse: r.rcgp.rmse,
            observations_rmse: r.references.map(|x| x.observations_rmse),
            location_mean_rmse: r.references.map(|x| x.location_mean_rmse),
            against_truth: Some(r.data.clean_is_latent),
        });
    }
    Ok(out)
}
