//! Tensor-Var: 4D-Var linearised in a kernel feature space (Yang et al., ICML 2025).
//!
//! Training on a trajectory of states x_t and their observations o_t:
//! - state features z_t = φ_S(x_t) ([`FeatureMap`]) and the pre-image φ_S⁻¹ ([`Decoder`]);
//! - the forward CME operator by ridge regression, C_fwd = (ZᵀZ + nλI)⁻¹ZᵀZ⁺, so
//!   z_{t+1} ≈ A z_t with A = C_fwdᵀ;
//! - the observation/history CME: φ_O(o_t) = [1, o_t] and φ_H = [1, principal components of
//!   (o_{t−1}, …, o_{t−h})] combined by the Khatri–Rao (per-sample Kronecker) product,
//!   regressed by ridge onto z_t, giving a pseudo-observation ẑ_t of the state feature;
//! - precisions B = cov(Z)⁻¹, Q = cov(forward residuals)⁻¹, R = cov(ẑ residuals)⁻¹, each
//!   with a relative jitter on the covariance and symmetrised.
//!
//! Assimilation of one window is then the quadratic of [`crate::window`], solved exactly, and
//! decoding by the pre-image.

use benchtop_compute::ComputeError;
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::features::{Decoder, FeatureMap, RffPca};
use crate::linalg;
use crate::window::{WindowSolver, linear_weights};

/// Settings of the Tensor-Var model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TensorVarSettings {
    /// Random Fourier features m before PCA.
    pub features: usize,
    /// Feature dimension k kept by PCA.
    pub components: usize,
    /// Kernel length as a multiple of the median distance between training states.
    pub length_scale: f64,
    /// Ridge λ of the forward CME (per sample).
    pub ridge: f64,
    /// Ridge λ of the observation/history CME (per sample).
    pub obs_ridge: f64,
    /// Past observation times h in the history features.
    pub history: usize,
    /// Principal components of the observation history kept in φ_H.
    pub history_components: usize,
    /// Training points used as kernel ridge centres of the pre-image.
    pub preimage_centres: usize,
    /// Ridge λ of the pre-image (per sample).
    pub preimage_ridge: f64,
    /// Relative jitter added to each covariance before inverting it into a precision.
    pub jitter: f64,
    /// Last dynamics weight p_{T−1} (p_t falls linearly from 1).
    pub last_weight: f64,
    /// Use z = x instead of random features (the linear check).
    pub identity_features: bool,
}

impl Default for TensorVarSettings {
    fn default() -> Self {
        Self {
            features: 400,
            components: 80,
            length_scale: 1.0,
            ridge: 1e-3,
            obs_ridge: 1e-3,
            history: 2,
            history_components: 16,
            preimage_centres: 600,
            preimage_ridge: 1e-6,
            jitter: 1e-3,
            last_weight: 0.1,
            identity_features: false,
        }
    }
}

/// How well the trained operators fit their training data.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainingFit {
    /// Pre-image round trip ‖φ⁻¹(φ(x)) − x‖ RMSE over training states, / (max − min) of x.
    pub preimage_nrmse: f64,
    /// Forward operator residual ‖Z⁺ − Z C_fwd‖_F / ‖Z⁺‖_F.
    pub forward_residual: f64,
    /// Observation CME residual ‖Z − Ẑ‖_F / ‖Z‖_F.
    pub observation_residual: f64,
    /// Fraction of the random-feature variance kept by PCA (1 for identity features).
    pub explained_variance: f64,
    /// Feature dimension k.
    pub feature_dim: usize,
    /// Per-component pre-image RMSE (for the training tab), length D.
    pub preimage_rmse_by_component: Vec<f64>,
    /// Singular values of the forward operator A, decreasing.
    pub forward_singular_values: Vec<f64>,
}

/// Principal components of the stacked observation history.
#[derive(Clone, Debug)]
struct HistoryBasis {
    mean: DVector<f64>,
    basis: DMatrix<f64>,
}

/// A trained Tensor-Var model.
#[derive(Clone, Debug)]
pub struct TensorVarModel {
    /// φ_S.
    pub features: FeatureMap,
    /// φ_S⁻¹.
    pub decoder: Decoder,
    /// Forward operator A (z⁺ = A z).
    pub forward: DMatrix<f64>,
    /// Background precision B.
    pub b: DMatrix<f64>,
    /// Model-error precision Q.
    pub q: DMatrix<f64>,
    /// Pseudo-observation precision R.
    pub r: DMatrix<f64>,
    /// How the operators fit the training data.
    pub fit: TrainingFit,
    history: usize,
    history_basis: HistoryBasis,
    observation_map: DMatrix<f64>,
    last_weight: f64,
}

/// The stacked history (o_{t−1}, …, o_{t−h}) of time `t` in `obs` (clamped at the start).
fn stacked_history(obs: &[Vec<f64>], t: usize, history: usize) -> Vec<f64> {
    (1..=history)
        .flat_map(|lag| obs[t.saturating_sub(lag)].iter().copied())
        .collect()
}

impl TensorVarModel {
    /// Trains on consecutive `states` (one per observation time) and their `observations`.
    pub fn train<R: Rng + ?Sized>(
        states: &[Vec<f64>],
        observations: &[Vec<f64>],
        settings: &TensorVarSettings,
        rng: &mut R,
    ) -> Result<Self, ComputeError> {
        let n = states.len();
        if n < 10 || observations.len() != n {
            return Err(ComputeError::invalid(
                "train_steps",
                format!(
                    "Tensor-Var needs at least 10 training states with observations (have {n})"
                ),
            ));
        }
        let d = states[0].len();
        let x = DMatrix::from_fn(n, d, |i, j| states[i][j]);
        let (features, decoder) = if settings.identity_features {
            (FeatureMap::Identity, Decoder::Identity)
        } else {
            let map = FeatureMap::RffPca(RffPca::fit(
                &x,
                settings.features,
                settings.components,
                settings.length_scale,
                rng,
            )?);
            let z = map.encode_rows(&x);
            let dec = Decoder::fit(
                &z,
                &x,
                settings.preimage_centres,
                settings.preimage_ridge,
                1.0,
            )?;
            (map, dec)
        };
        let z = features.encode_rows(&x);
        let k = z.ncols();
        let nf = n as f64;

        // Forward CME.
        let z_in = z.rows(0, n - 1).into_owned();
        let z_out = z.rows(1, n - 1).into_owned();
        let c_fwd = linalg::ridge(&z_in, &z_out, settings.ridge * nf)?;
        let fwd_res = &z_out - &z_in * &c_fwd;
        let forward = c_fwd.transpose();

        // Observation/history CME.
        let history_basis = Self::history_basis(observations, settings)?;
        let model_obs = |t: usize| -> DVector<f64> {
            obs_features(observations, t, settings.history, &history_basis)
        };
        let width = model_obs(0).len();
        let mut phi = DMatrix::zeros(n, width);
        for t in 0..n {
            phi.row_mut(t).copy_from(&model_obs(t).transpose());
        }
        let observation_map = linalg::ridge(&phi, &z, settings.obs_ridge * nf)?;
        let obs_res = &z - &phi * &observation_map;

        // Precisions.
        let (_, cov_z) = linalg::mean_and_covariance(&z);
        let (_, cov_q) = linalg::mean_and_covariance(&fwd_res);
        let (_, cov_r) = linalg::mean_and_covariance(&obs_res);
        let b = linalg::precision_from_covariance(&cov_z, settings.jitter)?;
        let q = linalg::precision_from_covariance(&cov_q, settings.jitter)?;
        let r = linalg::precision_from_covariance(&cov_r, settings.jitter)?;

        // Fit diagnostics.
        let x_back = decoder.decode_rows(&z);
        let range = x.max() - x.min();
        let err = &x_back - &x;
        let preimage_nrmse = (err.norm_squared() / (nf * d as f64)).sqrt() / range.max(1e-300);
        let preimage_rmse_by_component = (0..d)
            .map(|j| (err.column(j).norm_squared() / nf).sqrt())
            .collect();
        let mut sv: Vec<f64> = forward.clone().singular_values().iter().copied().collect();
        sv.sort_by(|a, b| b.total_cmp(a));
        let fit = TrainingFit {
            preimage_nrmse,
            forward_residual: fwd_res.norm() / z_out.norm().max(1e-300),
            observation_residual: obs_res.norm() / z.norm().max(1e-300),
            explained_variance: match &features {
                FeatureMap::Identity => 1.0,
                FeatureMap::RffPca(m) => m.explained,
            },
            feature_dim: k,
            preimage_rmse_by_component,
            forward_singular_values: sv,
        };
        Ok(Self {
            features,
            decoder,
            forward,
            b,
            q,
            r,
            fit,
            history: settings.history,
            history_basis,
            observation_map,
            last_weight: settings.last_weight,
        })
    }

    fn history_basis(
        observations: &[Vec<f64>],
        settings: &TensorVarSettings,
    ) -> Result<HistoryBasis, ComputeError> {
        let n = observations.len();
        let width = observations[0].len() * settings.history;
        if width == 0 {
            return Ok(HistoryBasis {
                mean: DVector::zeros(0),
                basis: DMatrix::zeros(0, 0),
            });
        }
        let mut h = DMatrix::zeros(n, width);
        for t in 0..n {
            let row = stacked_history(observations, t, settings.history);
            h.row_mut(t).copy_from_slice(&row);
        }
        let (mean, cov) = linalg::mean_and_covariance(&h);
        let eig = cov.symmetric_eigen();
        let mut order: Vec<usize> = (0..width).collect();
        order.sort_by(|&a, &b| eig.eigenvalues[b].total_cmp(&eig.eigenvalues[a]));
        let r = settings.history_components.min(width);
        let basis = DMatrix::from_fn(width, r, |i, c| eig.eigenvectors[(i, order[c])]);
        Ok(HistoryBasis { mean, basis })
    }

    /// A solver for windows of `len` observation times (factored once).
    pub fn window_solver(&self, len: usize) -> Result<WindowSolver, ComputeError> {
        WindowSolver::new(
            &self.forward,
            &self.b,
            &self.q,
            &self.r,
            &linear_weights(len, self.last_weight),
        )
    }

    /// The pseudo-observation ẑ_t for time `t` of the observation sequence `obs`
    /// (history from earlier entries, clamped at the start).
    pub fn pseudo_observation(&self, obs: &[Vec<f64>], t: usize) -> DVector<f64> {
        let phi = obs_features(obs, t, self.history, &self.history_basis);
        self.observation_map.tr_mul(&phi)
    }
}

/// φ_H(o_{t−1..t−h}) ⊗ φ_O(o_t) with φ_O = [1, o_t], φ_H = [1, Uᵀ(history − mean)].
fn obs_features(obs: &[Vec<f64>], t: usize, history: usize, basis: &HistoryBasis) -> DVector<f64> {
    let o = &obs[t];
    let mut phi_o = Vec::with_capacity(o.len() + 1);
    phi_o.push(1.0);
    phi_o.extend_from_slice(o);
    let mut phi_h = vec![1.0];
    if basis.basis.ncols() > 0 {
        let hist = DVector::from_vec(stacked_history(obs, t, history));
        let proj = basis.basis.tr_mul(&(hist - &basis.mean));
        phi_h.extend(proj.iter());
    }
    let mut out = Vec::with_capacity(phi_h.len() * phi_o.len());
    for a in &phi_h {
        for b in &phi_o {
            out.push(a * b);
        }
    }
    DVector::from_vec(out)
}
