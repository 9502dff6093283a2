//! The ensemble Kalman filter, the standard sequential baseline: a stochastic EnKF with
//! perturbed observations (Burgers, van Leeuwen & Evensen 1998; Houtekamer & Mitchell 1998) on
//! the true model and the nonlinear observation operator, with Gaspari–Cohn covariance
//! localisation on the ring (Lorenz-96) or the periodic grid (Kuramoto–Sivashinsky) and
//! multiplicative prior inflation.
//!
//! At every observation time the forecast ensemble x_i is inflated about its mean
//! (x_i ← x̄ + λ(x_i − x̄)), mapped through the observation operator (y_i = h(x_i)), and each
//! member is moved by the localised gain K = (ρ_xy ∘ P_xy)(ρ_yy ∘ P_yy + σ²I)⁻¹ towards its own
//! perturbed copy of the observations (y + σε_i, the ε_i centred over the members), with
//! P_xy = cov(x, h(x)) and P_yy = cov(h(x)) the ensemble's sample covariances. The estimate is
//! the analysis mean; the members are then stepped to the next observation time.

use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

use crate::dynamics::Model;
use crate::observe::Observer;

/// Settings of the ensemble Kalman filter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EnkfSettings {
    /// Ensemble members N.
    pub members: usize,
    /// Gaspari–Cohn half-width c in grid points (correlations vanish beyond 2c); used when the
    /// baselines are not tuned on training windows.
    pub localisation: f64,
    /// Multiplicative prior inflation λ ≥ 1; used when the baselines are not tuned.
    pub inflation: f64,
}

impl Default for EnkfSettings {
    fn default() -> Self {
        Self {
            members: 40,
            localisation: 4.0,
            inflation: 1.05,
        }
    }
}

/// The Gaspari–Cohn (1999) fifth-order piecewise rational correlation at distance `r` for
/// half-width `c`: 1 at 0, compactly supported on [0, 2c), twice differentiable. An infinite or
/// non-positive `c` means no localisation (1 everywhere).
pub fn gaspari_cohn(r: f64, c: f64) -> f64 {
    if !(c.is_finite() && c > 0.0) {
        return 1.0;
    }
    let z = r.abs() / c;
    if z <= 1.0 {
        let z2 = z * z;
        let z3 = z2 * z;
        -0.25 * z3 * z2 + 0.5 * z2 * z2 + 0.625 * z3 - 5.0 / 3.0 * z2 + 1.0
    } else if z < 2.0 {
        let z2 = z * z;
        let z3 = z2 * z;
        z3 * z2 / 12.0 - 0.5 * z2 * z2 + 0.625 * z3 + 5.0 / 3.0 * z2 - 5.0 * z + 4.0
            - 2.0 / (3.0 * z)
    } else {
        0.0
    }
}

/// The distance between grid points `i` and `j` on a ring of `dim` points.
pub fn ring_distance(i: usize, j: usize, dim: usize) -> f64 {
    let d = i.abs_diff(j);
    d.min(dim - d) as f64
}

/// An ensemble Kalman filter on a model and an observer, with its localisation precomputed.
pub struct Enkf<'a, S: Model + ?Sized> {
    /// The (true) model the members are stepped with.
    pub system: &'a S,
    /// Model step size.
    pub dt: f64,
    /// Model steps between observation times.
    pub steps_per_obs: usize,
    /// What is observed.
    pub observer: &'a Observer,
    /// Observation error standard deviation σ assumed by the filter.
    pub obs_sigma: f64,
    /// Multiplicative prior inflation λ.
    pub inflation: f64,
    /// ρ(distance(state j, observation k)), D × p.
    rho_xy: DMatrix<f64>,
    /// ρ(distance(observation k, observation l)), p × p.
    rho_yy: DMatrix<f64>,
}

impl<'a, S: Model + ?Sized> Enkf<'a, S> {
    /// A filter for `system` observed by `observer`, localised with Gaspari–Cohn half-width
    /// `localisation` grid points on the ring (infinite: no localisation).
    pub fn new(
        system: &'a S,
        dt: f64,
        steps_per_obs: usize,
        observer: &'a Observer,
        obs_sigma: f64,
        localisation: f64,
        inflation: f64,
    ) -> Self {
        let d = system.dim();
        let idx = &observer.indices;
        let p = idx.len();
        let rho_xy = DMatrix::from_fn(d, p, |j, k| {
            gaspari_cohn(ring_distance(j, idx[k], d), localisation)
        });
        let rho_yy = DMatrix::from_fn(p, p, |k, l| {
            gaspari_cohn(ring_distance(idx[k], idx[l], d), localisation)
        });
        Self {
            system,
            dt,
            steps_per_obs,
            observer,
            obs_sigma,
            inflation,
            rho_xy,
            rho_yy,
        }
    }

    /// One analysis at an observation time: inflates the forecast `ensemble` about its mean and
    /// moves every member with the localised gain towards its perturbed copy of `y`.
    pub fn analysis<R: Rng + ?Sized>(&self, ensemble: &mut [Vec<f64>], y: &[f64], rng: &mut R) {
        let n = ensemble.len();
        let p = self.observer.len();
        if n < 2 {
            return;
        }
        let d = ensemble[0].len();
        let mean = ensemble_mean(ensemble);
        for member in ensemble.iter_mut() {
            for (x, m) in member.iter_mut().zip(&mean) {
                *x = m + self.inflation * (*x - m);
            }
        }
        if p == 0 {
            return;
        }
        let scale = 1.0 / ((n - 1) as f64).sqrt();
        let hx: Vec<Vec<f64>> = ensemble.iter().map(|x| self.observer.observe(x)).collect();
        let hmean = ensemble_mean(&hx);
        let xa = DMatrix::from_fn(d, n, |j, i| (ensemble[i][j] - mean[j]) * scale);
        let ya = DMatrix::from_fn(p, n, |k, i| (hx[i][k] - hmean[k]) * scale);
        let pxy = (&xa * ya.transpose()).component_mul(&self.rho_xy);
        let mut pyy = (&ya * ya.transpose()).component_mul(&self.rho_yy);
        let var = self.obs_sigma * self.obs_sigma;
        for k in 0..p {
            pyy[(k, k)] += var;
        }
        let Some(chol) = pyy.cholesky() else {
            return;
        };
        // Perturbed observations, centred over the members so that the analysis mean is the
        // Kalman update of the forecast mean.
        let mut eps = DMatrix::from_fn(p, n, |_, _| rng.sample::<f64, _>(StandardNormal));
        for k in 0..p {
            let row_mean = eps.row(k).sum() / n as f64;
            eps.row_mut(k).add_scalar_mut(-row_mean);
        }
        let innovations =
            DMatrix::from_fn(p, n, |k, i| y[k] + self.obs_sigma * eps[(k, i)] - hx[i][k]);
        let increments = pxy * chol.solve(&innovations);
        for (i, member) in ensemble.iter_mut().enumerate() {
            for (j, x) in member.iter_mut().enumerate() {
                *x += increments[(j, i)];
            }
        }
    }

    /// Steps every member one observation interval forward.
    pub fn forecast(&self, ensemble: &mut [Vec<f64>]) {
        for member in ensemble.iter_mut() {
            for _ in 0..self.steps_per_obs {
                self.system.step(member, self.dt);
            }
        }
    }

    /// Assimilates the observations `obs` of one window (one per observation time, the first at
    /// the ensemble's time): analysis, the mean pushed to `estimates`, forecast to the next time.
    pub fn window<R: Rng + ?Sized>(
        &self,
        ensemble: &mut [Vec<f64>],
        obs: &[Vec<f64>],
        estimates: &mut Vec<Vec<f64>>,
        rng: &mut R,
    ) {
        for y in obs {
            self.analysis(ensemble, y, rng);
            estimates.push(ensemble_mean(ensemble));
            self.forecast(ensemble);
        }
    }
}

/// An initial ensemble of `members` states: `background` plus N(0, `spread`²) per component.
pub fn initial_ensemble<R: Rng + ?Sized>(
    background: &[f64],
    spread: f64,
    members: usize,
    rng: &mut R,
) -> Vec<Vec<f64>> {
    (0..members)
        .map(|_| {
            background
                .iter()
                .map(|v| v + spread * rng.sample::<f64, _>(StandardNormal))
                .collect()
        })
        .collect()
}

/// The mean of the members.
pub fn ensemble_mean(ensemble: &[Vec<f64>]) -> Vec<f64> {
    let n = ensemble.len().max(1) as f64;
    let d = ensemble.first().map_or(0, Vec::len);
    let mut mean = vec![0.0; d];
    for member in ensemble {
        for (m, v) in mean.iter_mut().zip(member) {
            *m += v;
        }
    }
    mean.iter_mut().for_each(|m| *m /= n);
    mean
}

/// The sample covariance of the members (D × D, 1/(N − 1)).
pub fn ensemble_covariance(ensemble: &[Vec<f64>]) -> DMatrix<f64> {
    let n = ensemble.len();
    let d = ensemble.first().map_or(0, Vec::len);
    let mean = DVector::from_vec(ensemble_mean(ensemble));
    let a = DMatrix::from_fn(d, n, |j, i| ensemble[i][j] - mean[j]);
    (&a * a.transpose()) / (n.max(2) - 1) as f64
}
