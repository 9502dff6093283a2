//! State features φ_S and their pre-image φ_S⁻¹.
//!
//! [`FeatureMap::RffPca`]: random Fourier features of the Gaussian kernel,
//! ψ(x) = cos(Ωx + b) with Ω ~ N(0, 1/ℓ²) and b ~ U[0, 2π), reduced by PCA to k components
//! (z = Vᵀ(ψ − ψ̄)). This stands in for the paper's full kernel PCA on tens of thousands of
//! states. [`FeatureMap::Identity`] (z = x) is the linear check. [`Decoder`] is the pre-image:
//! kernel ridge regression from z back to x (subset of regressors on `centres` training points).

use benchtop_compute::ComputeError;
use nalgebra::{DMatrix, DVector};
use rand::Rng;
use rand_distr::{StandardNormal, Uniform};

use crate::linalg;

/// A feature map x ↦ z.
#[derive(Clone, Debug)]
pub enum FeatureMap {
    /// z = x.
    Identity,
    /// Random Fourier features + PCA.
    RffPca(RffPca),
}

/// Random Fourier features of a Gaussian kernel reduced by PCA.
#[derive(Clone, Debug)]
pub struct RffPca {
    /// Frequencies Ω (m × D).
    pub omega: DMatrix<f64>,
    /// Phases b (m).
    pub phase: DVector<f64>,
    /// Mean feature ψ̄ (m).
    pub mean: DVector<f64>,
    /// PCA basis V (m × k), columns by decreasing variance.
    pub basis: DMatrix<f64>,
    /// Fraction of the feature variance the k components keep.
    pub explained: f64,
    /// Kernel length ℓ used.
    pub length: f64,
}

impl RffPca {
    /// Fits the map on the rows of `states` (n × D): `features` random features, `components`
    /// kept, kernel length `length_scale` × the median distance between states.
    pub fn fit<R: Rng + ?Sized>(
        states: &DMatrix<f64>,
        features: usize,
        components: usize,
        length_scale: f64,
        rng: &mut R,
    ) -> Result<Self, ComputeError> {
        if components > features {
            return Err(ComputeError::invalid(
                "tensor_var.components",
                format!(
                    "{components} components need at least as many random features (have {features})"
                ),
            ));
        }
        let d = states.ncols();
        let length = length_scale * linalg::median_distance(states, 2000);
        let omega = DMatrix::from_fn(features, d, |_, _| {
            rng.sample::<f64, _>(StandardNormal) / length
        });
        let uniform = Uniform::new(0.0, std::f64::consts::TAU)
            .map_err(|e| ComputeError::Numerical(e.to_string()))?;
        let phase = DVector::from_fn(features, |_, _| rng.sample(uniform));
        let raw = raw_features(&omega, &phase, states);
        let (mean, cov) = linalg::mean_and_covariance(&raw);
        let eig = cov.symmetric_eigen();
        let mut order: Vec<usize> = (0..features).collect();
        order.sort_by(|&a, &b| eig.eigenvalues[b].total_cmp(&eig.eigenvalues[a]));
        let basis = DMatrix::from_fn(features, components, |r, c| eig.eigenvectors[(r, order[c])]);
        let total: f64 = eig.eigenvalues.iter().map(|v| v.max(0.0)).sum();
        let kept: f64 = order[..components]
            .iter()
            .map(|&i| eig.eigenvalues[i].max(0.0))
            .sum();
        Ok(Self {
            omega,
            phase,
            mean,
            basis,
            explained: if total > 0.0 { kept / total } else { 1.0 },
            length,
        })
    }
}

/// cos(Ωx + b) for every row x of `states` (n × m).
fn raw_features(omega: &DMatrix<f64>, phase: &DVector<f64>, states: &DMatrix<f64>) -> DMatrix<f64> {
    let mut proj = states * omega.transpose();
    for mut row in proj.row_iter_mut() {
        for (v, b) in row.iter_mut().zip(phase.iter()) {
            *v = (*v + b).cos();
        }
    }
    proj
}

impl FeatureMap {
    /// Feature dimension k for states of dimension `dim`.
    pub fn dim(&self, dim: usize) -> usize {
        match self {
            Self::Identity => dim,
            Self::RffPca(m) => m.basis.ncols(),
        }
    }

    /// Features of every row of `states` (n × k).
    pub fn encode_rows(&self, states: &DMatrix<f64>) -> DMatrix<f64> {
        match self {
            Self::Identity => states.clone(),
            Self::RffPca(m) => {
                let mut raw = raw_features(&m.omega, &m.phase, states);
                for mut row in raw.row_iter_mut() {
                    row -= m.mean.transpose();
                }
                raw * &m.basis
            }
        }
    }

    /// Features of one state.
    pub fn encode(&self, x: &[f64]) -> DVector<f64> {
        let row = DMatrix::from_row_slice(1, x.len(), x);
        self.encode_rows(&row).row(0).transpose()
    }
}

/// The pre-image x ≈ x̄ + Σ_c α_c k(z, z_c) (Gaussian kernel on features), or z itself.
#[derive(Clone, Debug)]
pub enum Decoder {
    /// x = z (for [`FeatureMap::Identity`]).
    Identity,
    /// Kernel ridge regression.
    KernelRidge {
        /// Centres z_c (c × k).
        centres: DMatrix<f64>,
        /// Weights α (c × D).
        weights: DMatrix<f64>,
        /// State mean x̄.
        mean: DVector<f64>,
        /// Kernel length on features.
        length: f64,
    },
}

fn gaussian_kernel(a: &DMatrix<f64>, b: &DMatrix<f64>, length: f64) -> DMatrix<f64> {
    let a2: Vec<f64> = a.row_iter().map(|r| r.norm_squared()).collect();
    let b2: Vec<f64> = b.row_iter().map(|r| r.norm_squared()).collect();
    let mut k = a * b.transpose();
    let inv = 1.0 / (2.0 * length * length);
    for i in 0..k.nrows() {
        for j in 0..k.ncols() {
            let d2 = (a2[i] + b2[j] - 2.0 * k[(i, j)]).max(0.0);
            k[(i, j)] = (-d2 * inv).exp();
        }
    }
    k
}

impl Decoder {
    /// Fits the kernel ridge pre-image from features `z` (n × k) to states `x` (n × D) with
    /// `centres` evenly spaced training points, ridge `lambda`, kernel length `length_scale` ×
    /// the median feature distance.
    pub fn fit(
        z: &DMatrix<f64>,
        x: &DMatrix<f64>,
        centres: usize,
        lambda: f64,
        length_scale: f64,
    ) -> Result<Self, ComputeError> {
        let n = z.nrows();
        let c = centres.clamp(1, n);
        let picks: Vec<usize> = (0..c).map(|i| i * n / c).collect();
        let zc = z.select_rows(&picks);
        let length = length_scale * linalg::median_distance(z, 2000);
        let (mean, _) = linalg::mean_and_covariance(x);
        let mut xc = x.clone();
        for mut row in xc.row_iter_mut() {
            row -= mean.transpose();
        }
        let knc = gaussian_kernel(z, &zc, length);
        let kcc = gaussian_kernel(&zc, &zc, length);
        let mut a = knc.tr_mul(&knc);
        let scale = n as f64;
        a += &kcc * (lambda * scale);
        for i in 0..c {
            a[(i, i)] += 1e-10 * scale;
        }
        let rhs = knc.tr_mul(&xc);
        let chol = a.cholesky().ok_or_else(|| {
            ComputeError::Numerical("pre-image kernel ridge system is singular; raise its λ".into())
        })?;
        Ok(Self::KernelRidge {
            centres: zc,
            weights: chol.solve(&rhs),
            mean,
            length,
        })
    }

    /// Decodes every row of `z` (n × k) to states (n × D).
    pub fn decode_rows(&self, z: &DMatrix<f64>) -> DMatrix<f64> {
        match self {
            Self::Identity => z.clone(),
            Self::KernelRidge {
                centres,
                weights,
                mean,
                length,
            } => {
                let mut x = gaussian_kernel(z, centres, *length) * weights;
                for mut row in x.row_iter_mut() {
                    row += mean.transpose();
                }
                x
            }
        }
    }

    /// Decodes one feature vector.
    pub fn decode(&self, z: &DVector<f64>) -> Vec<f64> {
        let row = z.transpose();
        self.decode_rows(&DMatrix::from_row_slice(1, row.len(), row.as_slice()))
            .row(0)
            .iter()
            .copied()
            .collect()
    }
}
