//! Hyperparameter fitting: L-BFGS (`benchtop_learn::lbfgs`) on the log hyperparameters with
//! central finite-difference gradients (4 parameters, so 8 objective evaluations per gradient; acceptable at these sizes).
//!
//! STGP maximises the exact log marginal likelihood (the decoupled filter of
//! [`crate::filter::decoupled_log_likelihood`]). ST-RCGP maximises the robust filter's own
//! pseudo-marginal likelihood Σ_t log N(ỹ_t; H m⁻_t, H P⁻_t Hᵀ + R_eff,t), i.e. the same
//! filter's normaliser with the IMQ-weighted effective noise and corrected observations.

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_learn::lbfgs::{LbfgsOptions, central_gradient, minimize};
use serde::{Deserialize, Serialize};

use crate::filter;
use crate::model::{Hyper, Prior};
use crate::robust::{Observation, RobustSettings};

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
    /// The fitted hyperparameters.
    pub hyper: Hyper,
    /// The objective at the fit (a log likelihood; larger is better).
    pub objective: f64,
    /// The objective at the starting point.
    pub start_objective: f64,
    /// L-BFGS iterations taken.
    pub iterations: usize,
    /// Objective evaluations.
    pub evaluations: usize,
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

/// Maximises `objective` over the log hyperparameters from `prior.hyper`, for at most
/// `max_iterations` L-BFGS iterations. Each log hyperparameter stays within ±12 of its start.
pub fn fit(
    prior: &Prior<'_>,
    y: &[f64],
    which: Objective,
    max_iterations: usize,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<FitReport, ComputeError> {
    let spatial = prior.n_space() > 1;
    let x0 = pack(&prior.hyper, spatial);
    let mut evaluations = 0usize;
    // Negative log likelihood; failures (non-positive-definite steps) count as +∞.
    let mut f = |x: &[f64]| -> Result<f64, ComputeError> {
        evaluations += 1;
        if x.iter().zip(&x0).any(|(a, b)| (a - b).abs() > 12.0) {
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
    let result = minimize(
        |x: &[f64], g: Option<&mut [f64]>| {
            if let Some(g) = g {
                central_gradient(&mut f, x, 1e-4, g)?;
            }
            f(x)
        },
        &x0,
        &options,
        |iteration, value| {
            progress.set(
                iteration as f64 / max_iterations.max(1) as f64,
                format!("fit: iteration {iteration}, log likelihood {:.3}", -value),
            );
        },
    )?;
    Ok(FitReport {
        hyper: unpack(&result.x, &prior.hyper),
        objective: -result.value,
        start_objective: -start,
        iterations: result.iterations,
        evaluations,
    })
}
