//! The Kalman filter over the stacked state with either the Gaussian (STGP) or the robust
//! (ST-RCGP) update, followed by the Rauch–Tung–Striebel smoother. Cost is linear in the number
//! of time steps: each step costs O(n_s² d³ + n_s³ + (n_s d)² n_s) for the update and
//! O((n_s d)³) for the smoother gain.

use std::f64::consts::PI;

use benchtop_compute::{CancelToken, ComputeError};
use nalgebra::{DMatrix, DVector};

use crate::model::{Prior, Stacked};
use crate::robust::Observation;

/// The smoothed (or filtered) posterior of the latent field at every grid point and time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Posterior {
    /// Posterior mean, time-major (t · n_s + i).
    pub mean: Vec<f64>,
    /// Posterior variance of the latent f (without the observation noise), same layout.
    pub var: Vec<f64>,
    /// Each observation's weight relative to β (1 for the Gaussian update), same layout.
    pub weight: Vec<f64>,
    /// The filter's log marginal likelihood of the (pseudo-)observations,
    /// Σ_t log N(ỹ_t; H m⁻_t, H P⁻_t Hᵀ + R_eff,t). For the Gaussian update it is the exact
    /// log marginal likelihood of the data.
    pub log_likelihood: f64,
}

/// One filtered step kept for the smoother.
struct Step {
    a_t: DMatrix<f64>,
    m_pred: DVector<f64>,
    p_pred: DMatrix<f64>,
    m: DVector<f64>,
    p: DMatrix<f64>,
}

/// Checks the sizes and values of a problem; the error names what is wrong.
pub fn check_problem(prior: &Prior<'_>, y: &[f64]) -> Result<(), ComputeError> {
    prior
        .hyper
        .check()
        .map_err(|reason| ComputeError::invalid("hyper", reason))?;
    if prior.times.is_empty() || prior.locations.is_empty() {
        return Err(ComputeError::invalid("data", "no times or no locations"));
    }
    if y.len() != prior.times.len() * prior.n_space() {
        return Err(ComputeError::invalid(
            "data",
            format!(
                "{} values for {} times × {} locations",
                y.len(),
                prior.times.len(),
                prior.n_space()
            ),
        ));
    }
    if let Some(k) = prior
        .times
        .windows(2)
        .position(|w| w[1].partial_cmp(&w[0]) != Some(std::cmp::Ordering::Greater))
    {
        return Err(ComputeError::invalid(
            "data",
            format!(
                "times must increase strictly: time {} is {} after {}",
                k + 1,
                prior.times[k + 1],
                prior.times[k]
            ),
        ));
    }
    if let Some(k) = y.iter().position(|v| !v.is_finite()) {
        return Err(ComputeError::invalid(
            "data",
            format!(
                "value at time {} location {} is {}",
                k / prior.n_space(),
                k % prior.n_space(),
                y[k]
            ),
        ));
    }
    Ok(())
}

/// Runs the filter (and the smoother when `smooth`) on centred data `y` (prior mean zero,
/// time-major). `cancel` is checked once per time step.
pub fn run(
    prior: &Prior<'_>,
    y: &[f64],
    observation: Observation,
    smooth: bool,
    cancel: &CancelToken,
) -> Result<Posterior, ComputeError> {
    check_problem(prior, y)?;
    let model = Stacked::new(prior);
    let (ns, d, n) = (model.ns, model.d, model.dim());
    let kind = prior.kernel.temporal;
    let length = prior.hyper.time_length;
    let noise = prior.hyper.noise;
    let n_t = prior.times.len();

    let mut steps: Vec<Step> = Vec::with_capacity(if smooth { n_t } else { 0 });
    let mut weight = vec![1.0; n_t * ns];
    let mut log_likelihood = 0.0;
    let mut m = DVector::zeros(n);
    let mut p = model.stationary(&kind.stationary(length));
    let mut a_t = DMatrix::identity(d, d);
    for t in 0..n_t {
        cancel.check()?;
        let (m_pred, p_pred) = if t == 0 {
            (m.clone(), p.clone())
        } else {
            let (a, q) = kind.discretise(length, prior.times[t] - prior.times[t - 1]);
            let m_pred = model.apply_transition(&a, &m);
            let p_pred = model.predict_covariance(&a, &q, &p);
            a_t = a;
            (m_pred, p_pred)
        };
        // Observation terms at each location from the one-step predictive marginals.
        let mut r_eff = DVector::zeros(ns);
        let mut innovation = DVector::zeros(ns);
        for i in 0..ns {
            let f_hat = m_pred[i * d];
            let s2 = p_pred[(i * d, i * d)];
            let terms = observation.terms(y[t * ns + i], f_hat, s2, noise, 0.0);
            r_eff[i] = terms.r_eff;
            innovation[i] = terms.pseudo - f_hat;
            weight[t * ns + i] = terms.relative_weight;
        }
        // P⁻Hᵀ: the columns of the observed (first) state components.
        let pht = DMatrix::from_fn(n, ns, |r, i| p_pred[(r, i * d)]);
        let s = DMatrix::from_fn(ns, ns, |i, j| {
            pht[(i * d, j)] + if i == j { r_eff[i] } else { 0.0 }
        });
        let chol = s.cholesky().ok_or_else(|| {
            ComputeError::Numerical(format!(
                "innovation covariance not positive definite at time step {t}"
            ))
        })?;
        let l = chol.l();
        let z = l
            .solve_lower_triangular(&innovation)
            .ok_or_else(|| ComputeError::Numerical(format!("singular innovation at step {t}")))?;
        let w = l
            .solve_lower_triangular(&pht.transpose())
            .ok_or_else(|| ComputeError::Numerical(format!("singular innovation at step {t}")))?;
        let log_det: f64 = l.diagonal().iter().map(|v| 2.0 * v.ln()).sum();
        log_likelihood -= 0.5 * (z.norm_squared() + log_det + ns as f64 * (2.0 * PI).ln());
        m = &m_pred + w.transpose() * &z;
        p = &p_pred - w.transpose() * &w;
        crate::kernel::symmetrise(&mut p);
        if smooth {
            steps.push(Step {
                a_t: a_t.clone(),
                m_pred,
                p_pred,
                m: m.clone(),
                p: p.clone(),
            });
        }
    }
    if !log_likelihood.is_finite() {
        return Err(ComputeError::Numerical(
            "log likelihood is not finite".to_owned(),
        ));
    }
    let mut mean = vec![0.0; n_t * ns];
    let mut var = vec![0.0; n_t * ns];
    let mut write = |t: usize, m: &DVector<f64>, p: &DMatrix<f64>| {
        for i in 0..ns {
            mean[t * ns + i] = m[i * d];
            var[t * ns + i] = p[(i * d, i * d)].max(0.0);
        }
    };
    if !smooth {
        write(n_t - 1, &m, &p);
        return Ok(Posterior {
            mean,
            var,
            weight,
            log_likelihood,
        });
    }
    // RTS: G_t = P_t Aᵀ (P⁻_{t+1})⁻¹, m^s_t = m_t + G (m^s_{t+1} − m⁻_{t+1}),
    // P^s_t = P_t + G (P^s_{t+1} − P⁻_{t+1}) Gᵀ.
    let mut ms = m;
    let mut ps = p;
    write(n_t - 1, &ms, &ps);
    for t in (0..n_t - 1).rev() {
        cancel.check()?;
        let next = &steps[t + 1];
        let step = &steps[t];
        let ap = model.left_transition(&next.a_t, &step.p); // A P_t = (P_t Aᵀ)ᵀ
        let gt = solve_spd(&next.p_pred, &ap).ok_or_else(|| {
            ComputeError::Numerical(format!(
                "predicted covariance singular at time step {}",
                t + 1
            ))
        })?;
        let g = gt.transpose();
        ms = &step.m + &g * (&ms - &next.m_pred);
        ps = &step.p + &g * (&ps - &next.p_pred) * &gt;
        crate::kernel::symmetrise(&mut ps);
        write(t, &ms, &ps);
    }
    Ok(Posterior {
        mean,
        var,
        weight,
        log_likelihood,
    })
}

/// Solves S X = B for a symmetric positive (semi)definite S: Cholesky, or LU when round-off
/// makes the Cholesky factorisation fail.
fn solve_spd(s: &DMatrix<f64>, b: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    match s.clone().cholesky() {
        Some(chol) => Some(chol.solve(b)),
        None => s.clone().lu().solve(b),
    }
}

/// The exact log marginal likelihood of centred data under the Gaussian model, decoupled by
/// the eigendecomposition v K_s = Q Λ Qᵀ: every location is observed at every time with the
/// same noise, so z_t = Qᵀ y_t has n_s independent temporal GPs with variances λ_k. Equals
/// [`run`]'s `log_likelihood` with [`Observation::Gaussian`] at a cost of
/// O(n_s³ + T n_s (n_s + d³)). Used to fit the STGP's hyperparameters.
pub fn decoupled_log_likelihood(prior: &Prior<'_>, y: &[f64]) -> Result<f64, ComputeError> {
    check_problem(prior, y)?;
    let ns = prior.n_space();
    let kind = prior.kernel.temporal;
    let length = prior.hyper.time_length;
    let noise = prior.hyper.noise;
    let eig = prior.spatial_covariance().symmetric_eigen();
    let q = &eig.eigenvectors;
    let n_t = prior.times.len();
    let p_inf = kind.stationary(length);
    let transitions: Vec<(DMatrix<f64>, DMatrix<f64>)> = (1..n_t)
        .map(|t| kind.discretise(length, prior.times[t] - prior.times[t - 1]))
        .collect();
    let mut rotated = vec![0.0; n_t * ns];
    for t in 0..n_t {
        let yt = DVector::from_column_slice(&y[t * ns..(t + 1) * ns]);
        let zt = q.transpose() * yt;
        rotated[t * ns..(t + 1) * ns].copy_from_slice(zt.as_slice());
    }
    let mut total = 0.0;
    for k in 0..ns {
        let lambda = eig.eigenvalues[k].max(0.0);
        let mut m = DVector::zeros(kind.order());
        let mut p = &p_inf * lambda;
        for t in 0..n_t {
            if t > 0 {
                let (a, q_t) = &transitions[t - 1];
                m = a * &m;
                p = a * &p * a.transpose() + q_t * lambda;
            }
            let s = p[(0, 0)] + noise;
            let v = rotated[t * ns + k] - m[0];
            total -= 0.5 * (v * v / s + s.ln() + (2.0 * PI).ln());
            let gain = p.column(0) / s;
            m += &gain * v;
            p -= &gain * p.row(0);
        }
    }
    if total.is_finite() {
        Ok(total)
    } else {
        Err(ComputeError::Numerical(
            "log likelihood is not finite".to_owned(),
        ))
    }
}
