//! Hyperparameter fitting: L-BFGS (`benchtop_learn::lbfgs`) on the log hyperparameters with
//! central finite-difference gradients (4 parameters, so 8 objective evaluations per gradient;
//! acceptable at these sizes), from several starting points ([`starts`]): the user's
//! hyperparameters and a deterministic set spread over decades of the length scales, variance
//! and noise. A fit from one start can stop at a bound or a poor local optimum (STGP on the
//! Figure-1 field with outliers explains them by a spatially flat field, ℓ_s at its bound);
//! the best of the starts is kept and the fit from the user's start is reported beside it.
//!
//! STGP maximises the exact log marginal likelihood (the decoupled filter of
//! [`crate::filter::decoupled_log_likelihood`]). ST-RCGP maximises the robust filter's own
//! pseudo-marginal likelihood Σ_t log N(ỹ_t; H m⁻_t, H P⁻_t Hᵀ + R_eff,t), i.e. the same
//! filter's normaliser with the IMQ-weighted effective noise and corrected observations.

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_learn::lbfgs::{LbfgsOptions, central_gradient, multi_start};
use serde::{Deserialize, Serialize};

use crate::filter;
use crate::model::{Hyper, Prior};
use crate::robust::{Observation, RobustSettings};

/// How far (in natural-log units) each log hyperparameter may move from the user's start.
pub const LOG_BOUND: f64 = 12.0;

/// What is maximised.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Objective {
    /// The exact Gaussian log marginal likelihood (STGP).
    Marginal,
    /// The robust filter's pseudo-marginal likelihood (ST-RCGP).
    Robust(RobustSettings),
}

/// The outcome of a fit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FitReport {
    /// The fitted hyperparameters (the best start's).
    pub hyper: Hyper,
    /// The objective at the fit (a log likelihood; larger is better).
    pub objective: f64,
    /// The objective at the user's starting point.
    pub start_objective: f64,
    /// L-BFGS iterations taken, all starts together.
    pub iterations: usize,
    /// Objective evaluations, all starts together.
    pub evaluations: usize,
    /// Starting points tried (1: the user's only).
    #[serde(default = "one")]
    pub starts: usize,
    /// Which start gave the fit (0: the user's).
    #[serde(default)]
    pub best_start: usize,
    /// The objective reached by L-BFGS from the user's start alone.
    #[serde(default = "nan")]
    pub single_start_objective: f64,
    /// The hyperparameters reached from the user's start alone.
    #[serde(default)]
    pub single_start_hyper: Hyper,
    /// Whether the fit from the user's start alone ended with a log hyperparameter within 0.5
    /// of [`LOG_BOUND`] from its start.
    #[serde(default)]
    pub single_start_at_bound: bool,
}

fn one() -> usize {
    1
}

fn nan() -> f64 {
    f64::NAN
}

/// The log hyperparameters the fit moves (the spatial length scale only with >1 location).
fn pack(h: &Hyper, spatial: bool) -> Vec<f64> {
    let mut x = vec![h.time_length.ln(), h.variance.ln(), h.noise.ln()];
    if spatial {
        x.push(h.space_length.ln());
    }
    x
}

fn unpack(x: &[f64], base: &Hyper) -> Hyper {
    Hyper {
        time_length: x[0].exp(),
        variance: x[1].exp(),
        noise: x[2].exp(),
        space_length: x.get(3).map_or(base.space_length, |v| v.exp()),
    }
}

/// Evaluates the objective (a log likelihood) at hyperparameters `hyper`.
pub fn objective(
    prior: &Prior<'_>,
    hyper: Hyper,
    y: &[f64],
    objective: Objective,
    cancel: &CancelToken,
) -> Result<f64, ComputeError> {
    let prior = Prior {
        hyper,
        ..prior.clone()
    };
    match objective {
        Objective::Marginal => filter::decoupled_log_likelihood(&prior, y),
        Objective::Robust(settings) => {
            filter::run(&prior, y, Observation::Robust(settings), false, cancel)
                .map(|p| p.log_likelihood)
        }
    }
}

/// The k-th point (k ≥ 1) of the Halton sequence in base `base`, in (0, 1).
fn halton(mut k: usize, base: usize) -> f64 {
    let (mut f, mut r) = (1.0, 0.0);
    while k > 0 {
        f /= base as f64;
        r += f * (k % base) as f64;
        k /= base;
    }
    r
}

/// `count` starting points in log space: the user's hyperparameters `x0` first, then
/// `count − 1` points of a Halton sequence over a box set by the data (no random numbers: the
/// same data give the same starts): ℓ_t from the median time step to the time span, v and σ²
/// from 10⁻³ to 1 times the variance of `y` (noise and signal over three decades), ℓ_s from
/// the smallest to twice the largest distance between locations. Each is kept within
/// [`LOG_BOUND`] − 1 of `x0`.
pub fn starts(prior: &Prior<'_>, y: &[f64], x0: &[f64], count: usize) -> Vec<Vec<f64>> {
    let mut out = vec![x0.to_vec()];
    let times = prior.times;
    let mut steps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    steps.sort_by(f64::total_cmp);
    let step = steps.get(steps.len() / 2).copied().unwrap_or(1.0);
    let span = match (times.first(), times.last()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => 1.0,
    };
    let n = y.len().max(1) as f64;
    let mean = y.iter().sum::<f64>() / n;
    let var = (y.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).max(1e-12);
    let (mut near, mut far) = (f64::INFINITY, 0.0_f64);
    for (i, a) in prior.locations.iter().enumerate() {
        for b in &prior.locations[i + 1..] {
            let d = crate::kernel::distance(*a, *b);
            if d > 0.0 {
                near = near.min(d);
                far = far.max(d);
            }
        }
    }
    if !(near.is_finite() && far > 0.0) {
        (near, far) = (1.0, 1.0);
    }
    let ranges = [
        (step.max(1e-12).ln(), span.max(step).max(1e-12).ln()),
        ((1e-3 * var).ln(), var.ln()),
        ((1e-3 * var).ln(), var.ln()),
        (near.ln(), (2.0 * far).ln()),
    ];
    const BASES: [usize; 4] = [2, 3, 5, 7];
    for k in 1..count {
        let point = x0
            .iter()
            .enumerate()
            .map(|(j, &start)| {
                let (lo, hi) = ranges[j];
                let v = lo + (hi - lo) * halton(k, BASES[j]);
                v.clamp(start - (LOG_BOUND - 1.0), start + (LOG_BOUND - 1.0))
            })
            .collect();
        out.push(point);
    }
    out
}

/// The work a fit may do: the same for both methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Most L-BFGS iterations from each start.
    pub max_iterations: usize,
    /// Starting points: the user's and `starts − 1` spread ones ([`starts`]).
    pub starts: usize,
}

/// Maximises `objective` over the log hyperparameters from `prior.hyper` and
/// `budget.starts − 1` further starting points ([`starts`]), each for at most
/// `budget.max_iterations` L-BFGS iterations, and keeps the best. Each log hyperparameter stays
/// within [`LOG_BOUND`] of `prior.hyper`. `extra_starts` (e.g. an earlier fit) are tried right
/// after the user's start, in place of the last spread ones.
pub fn fit(
    prior: &Prior<'_>,
    y: &[f64],
    which: Objective,
    budget: Budget,
    extra_starts: &[Hyper],
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<FitReport, ComputeError> {
    let Budget {
        max_iterations,
        starts: starts_count,
    } = budget;
    let spatial = prior.n_space() > 1;
    let x0 = pack(&prior.hyper, spatial);
    let mut evaluations = 0usize;
    // Negative log likelihood; failures (non-positive-definite steps) count as +∞.
    let mut f = |x: &[f64]| -> Result<f64, ComputeError> {
        evaluations += 1;
        if x.iter().zip(&x0).any(|(a, b)| (a - b).abs() > LOG_BOUND) {
            return Ok(f64::INFINITY);
        }
        match objective(prior, unpack(x, &prior.hyper), y, which, cancel) {
            Ok(v) => Ok(-v),
            Err(ComputeError::Cancelled) => Err(ComputeError::Cancelled),
            Err(_) => Ok(f64::INFINITY),
        }
    };
    let start = f(&x0)?;
    if !start.is_finite() {
        return Err(ComputeError::Numerical(
            "the objective is not finite at the starting hyperparameters".to_owned(),
        ));
    }
    // The extra starts take the place of the last spread ones: the budget stays the same.
    let mut points = starts(prior, y, &x0, starts_count.max(1));
    for (k, h) in extra_starts.iter().enumerate() {
        points.insert(1 + k, pack(h, spatial));
    }
    points.truncate(starts_count.max(1));
    let options = LbfgsOptions {
        memory: 8,
        max_iterations,
        gradient_tolerance: 1e-5,
        value_change_tolerance: Some(1e-9),
        // At most 2 in any log hyperparameter per step.
        max_step: Some(2.0),
        // Gradients are central differences (2k evaluations): only at accepted points.
        gradient_in_line_search: false,
    };
    let total = (points.len() * max_iterations.max(1)) as f64;
    let count = points.len();
    let (results, best) = multi_start(
        |x: &[f64], g: Option<&mut [f64]>| {
            if let Some(g) = g {
                central_gradient(&mut f, x, 1e-4, g)?;
            }
            f(x)
        },
        &points,
        &options,
        |k, iteration, value| {
            progress.set(
                (k * max_iterations.max(1) + iteration) as f64 / total,
                format!(
                    "fit: start {} of {count}, iteration {iteration}, log likelihood {:.3}",
                    k + 1,
                    -value
                ),
            );
        },
    )?;
    // The user's start ends finite (its value only decreases), so there is a best.
    let best = best.unwrap_or(0);
    let single = &results[0];
    let single_start_at_bound = single
        .x
        .iter()
        .zip(&x0)
        .any(|(a, b)| (a - b).abs() > LOG_BOUND - 0.5);
    Ok(FitReport {
        hyper: unpack(&results[best].x, &prior.hyper),
        objective: -results[best].value,
        start_objective: -start,
        iterations: results.iter().map(|r| r.iterations).sum(),
        evaluations,
        starts: count,
        best_start: best,
        single_start_objective: -single.value,
        single_start_hyper: unpack(&single.x, &prior.hyper),
        single_start_at_bound,
    })
}
