//! Hyperparameter fitting: BFGS on the log hyperparameters with central finite-difference
//! gradients (4 parameters, so 8 objective evaluations per gradient; acceptable at these sizes).
//!
//! STGP maximises the exact log marginal likelihood (the decoupled filter of
//! [`crate::filter::decoupled_log_likelihood`]). ST-RCGP maximises the robust filter's own
//! pseudo-marginal likelihood Σ_t log N(ỹ_t; H m⁻_t, H P⁻_t Hᵀ + R_eff,t), i.e. the same
//! filter's normaliser with the IMQ-weighted effective noise and corrected observations.

use benchtop_compute::{CancelToken, ComputeError, Progress};
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
    /// BFGS iterations taken.
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
/// `max_iterations` BFGS iterations. Each log hyperparameter stays within ±12 of its start.
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
    let k = x0.len();
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
    let h = 1e-4;
    let gradient = |x: &[f64], f: &mut dyn FnMut(&[f64]) -> Result<f64, ComputeError>| {
        let mut g = vec![0.0; k];
        for i in 0..k {
            let mut xp = x.to_vec();
            let mut xm = x.to_vec();
            xp[i] += h;
            xm[i] -= h;
            g[i] = (f(&xp)? - f(&xm)?) / (2.0 * h);
        }
        Ok::<_, ComputeError>(g)
    };
    let mut x = x0.clone();
    let mut fx = f(&x)?;
    if !fx.is_finite() {
        return Err(ComputeError::Numerical(
            "the objective is not finite at the starting hyperparameters".to_owned(),
        ));
    }
    let start_objective = -fx;
    let mut g = gradient(&x, &mut f)?;
    let mut inv_h = identity(k);
    let mut iterations = 0;
    for it in 0..max_iterations {
        iterations = it + 1;
        #[allow(clippy::cast_precision_loss)]
        progress.set(
            it as f64 / max_iterations as f64,
            format!("fit: iteration {iterations}, log likelihood {:.3}", -fx),
        );
        let mut p: Vec<f64> = (0..k)
            .map(|i| -(0..k).map(|j| inv_h[i][j] * g[j]).sum::<f64>())
            .collect();
        let mut slope: f64 = p.iter().zip(&g).map(|(a, b)| a * b).sum();
        if slope >= 0.0 {
            inv_h = identity(k);
            p = g.iter().map(|v| -v).collect();
            slope = -g.iter().map(|v| v * v).sum::<f64>();
        }
        // At most 2 in any log hyperparameter per step.
        let longest = p.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        if longest > 2.0 {
            let scale = 2.0 / longest;
            p.iter_mut().for_each(|v| *v *= scale);
            slope *= scale;
        }
        let mut alpha = 1.0;
        let mut accepted = None;
        for _ in 0..30 {
            let xn: Vec<f64> = x.iter().zip(&p).map(|(a, b)| a + alpha * b).collect();
            let fxn = f(&xn)?;
            if fxn <= fx + 1e-4 * alpha * slope {
                accepted = Some((xn, fxn));
                break;
            }
            alpha *= 0.5;
        }
        let Some((xn, fxn)) = accepted else {
            break;
        };
        let gn = gradient(&xn, &mut f)?;
        let s: Vec<f64> = xn.iter().zip(&x).map(|(a, b)| a - b).collect();
        let yv: Vec<f64> = gn.iter().zip(&g).map(|(a, b)| a - b).collect();
        let sy: f64 = s.iter().zip(&yv).map(|(a, b)| a * b).sum();
        if sy > 1e-12 {
            bfgs_update(&mut inv_h, &s, &yv, sy);
        }
        let change = fx - fxn;
        x = xn;
        fx = fxn;
        g = gn;
        let gmax = g.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        if gmax < 1e-5 * (1.0 + fx.abs()) || change < 1e-9 * (1.0 + fx.abs()) {
            break;
        }
    }
    Ok(FitReport {
        hyper: unpack(&x, &prior.hyper),
        objective: -fx,
        start_objective,
        iterations,
        evaluations,
    })
}

fn identity(k: usize) -> Vec<Vec<f64>> {
    (0..k)
        .map(|i| (0..k).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect()
}

/// H ← (I − ρ s yᵀ) H (I − ρ y sᵀ) + ρ s sᵀ with ρ = 1/(yᵀs).
fn bfgs_update(h: &mut [Vec<f64>], s: &[f64], y: &[f64], sy: f64) {
    let k = s.len();
    let rho = 1.0 / sy;
    let hy: Vec<f64> = (0..k)
        .map(|i| (0..k).map(|j| h[i][j] * y[j]).sum())
        .collect();
    let yhy: f64 = y.iter().zip(&hy).map(|(a, b)| a * b).sum();
    for i in 0..k {
        for j in 0..k {
            h[i][j] += -rho * (hy[i] * s[j] + s[i] * hy[j]) + (rho * rho * yhy + rho) * s[i] * s[j];
        }
    }
}
