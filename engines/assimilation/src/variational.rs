//! Classic variational assimilation on the true model: strong-constraint 4D-Var over a window
//! (gradient by the discrete adjoint of the model's step) and 3D-Var at one time, both minimised by L-BFGS.
//!
//! 4D-Var: J(x₀) = ½(x₀ − x_b)ᵀB⁻¹(x₀ − x_b) + ½ Σ_t ‖h(x_t) − y_t‖² / σ², x_t = M_t(x₀).
//! 3D-Var: the same with a single time and no model.

use nalgebra::{DMatrix, DVector};

use crate::dynamics::Model;
use crate::observe::Observer;
use benchtop_learn::lbfgs::{LbfgsOptions, LbfgsResult, minimize_smooth as minimize};

/// The pieces a variational cost needs.
pub struct Variational<'a, S: Model + ?Sized> {
    /// The (true) model.
    pub system: &'a S,
    /// Model step size.
    pub dt: f64,
    /// Model steps between observation times.
    pub steps_per_obs: usize,
    /// What is observed.
    pub observer: &'a Observer,
    /// Background precision B⁻¹ (D × D).
    pub b_inv: &'a DMatrix<f64>,
    /// Observation error standard deviation σ assumed by the cost.
    pub obs_sigma: f64,
}

impl<S: Model + ?Sized> Variational<'_, S> {
    fn background_term(&self, x0: &[f64], xb: &[f64], grad: &mut [f64]) -> f64 {
        let dx = DVector::from_iterator(x0.len(), x0.iter().zip(xb).map(|(a, b)| a - b));
        let bdx = self.b_inv * &dx;
        grad.copy_from_slice(bdx.as_slice());
        0.5 * dx.dot(&bdx)
    }

    /// Adds the observation term at state `x` with data `y`: returns its cost and adds
    /// Hᵀ(h(x) − y)/σ² into `adj`.
    fn observation_term(&self, x: &[f64], y: &[f64], adj: &mut [f64]) -> f64 {
        let inv = 1.0 / (self.obs_sigma * self.obs_sigma);
        let mut cost = 0.0;
        for (&i, &yi) in self.observer.indices.iter().zip(y) {
            let r = self.observer.h(x[i]) - yi;
            cost += 0.5 * r * r * inv;
            adj[i] += r * inv * self.observer.dh(x[i]);
        }
        cost
    }

    /// 4D-Var cost at `x0` for background `xb` and observations `obs` at the window's times
    /// (the first at x₀); writes the gradient into `grad`.
    pub fn cost_4dvar(&self, x0: &[f64], xb: &[f64], obs: &[Vec<f64>], grad: &mut [f64]) -> f64 {
        let d = x0.len();
        let len = obs.len();
        // Forward sweep, keeping every model state.
        let mut states: Vec<Vec<f64>> =
            Vec::with_capacity(1 + len.saturating_sub(1) * self.steps_per_obs);
        let mut x = x0.to_vec();
        states.push(x.clone());
        for _ in 1..len {
            for _ in 0..self.steps_per_obs {
                self.system.step(&mut x, self.dt);
                states.push(x.clone());
            }
        }
        let mut cost = self.background_term(x0, xb, grad);
        // Backward sweep.
        let mut adj = vec![0.0; d];
        for t in (0..len).rev() {
            let k = t * self.steps_per_obs;
            cost += self.observation_term(&states[k], &obs[t], &mut adj);
            if t > 0 {
                for s in (k - self.steps_per_obs..k).rev() {
                    adj = self.system.step_adjoint(&states[s], &adj, self.dt);
                }
            }
        }
        for (g, a) in grad.iter_mut().zip(&adj) {
            *g += a;
        }
        cost
    }

    /// Minimises the 4D-Var cost from `xb`; returns the analysed initial state.
    pub fn solve_4dvar(&self, xb: &[f64], obs: &[Vec<f64>], options: &LbfgsOptions) -> LbfgsResult {
        minimize(|x, g| self.cost_4dvar(x, xb, obs, g), xb, options)
    }

    /// 3D-Var cost at `x` for background `xb` and one observation `y`.
    pub fn cost_3dvar(&self, x: &[f64], xb: &[f64], y: &[f64], grad: &mut [f64]) -> f64 {
        let mut cost = self.background_term(x, xb, grad);
        cost += self.observation_term(x, y, grad);
        cost
    }

    /// Minimises the 3D-Var cost from `xb`.
    pub fn solve_3dvar(&self, xb: &[f64], y: &[f64], options: &LbfgsOptions) -> LbfgsResult {
        minimize(|x, g| self.cost_3dvar(x, xb, y, g), xb, options)
    }

    /// Cycles one window of 4D-Var from background `xb` with observations `obs`: pushes the
    /// analysed trajectory at every observation time onto `estimates` and returns the next
    /// window's background (the forecast of the last analysis).
    pub fn window_4dvar(
        &self,
        xb: &[f64],
        obs: &[Vec<f64>],
        options: &LbfgsOptions,
        estimates: &mut Vec<Vec<f64>>,
    ) -> Vec<f64> {
        let mut x = self.solve_4dvar(xb, obs, options).x;
        for t in 0..obs.len() {
            if t > 0 {
                x = self.forecast(&x, 1);
            }
            estimates.push(x.clone());
        }
        self.forecast(&x, 1)
    }

    /// Cycles one window of 3D-Var (an analysis at every observation time, each from the
    /// forecast of the one before) from background `xb`: pushes the analyses onto `estimates`
    /// and returns the next window's background.
    pub fn window_3dvar(
        &self,
        xb: &[f64],
        obs: &[Vec<f64>],
        options: &LbfgsOptions,
        estimates: &mut Vec<Vec<f64>>,
    ) -> Vec<f64> {
        let mut xb = xb.to_vec();
        for y in obs {
            let xa = self.solve_3dvar(&xb, y, options).x;
            xb = self.forecast(&xa, 1);
            estimates.push(xa);
        }
        xb
    }

    /// The model state `intervals` observation intervals after `x`.
    pub fn forecast(&self, x: &[f64], intervals: usize) -> Vec<f64> {
        let mut y = x.to_vec();
        for _ in 0..intervals * self.steps_per_obs {
            self.system.step(&mut y, self.dt);
        }
        y
    }
}
