//! The separable spatio-temporal GP prior: k((s,t),(s',t')) = v · k_s(s,s') · k_t(t,t'), and
//! its stacked state-space form over a grid of locations.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use crate::kernel::{SpatialKernel, TemporalKernel};

/// The nugget ε added to the spatial correlation matrix, k_s(s, s') + ε·[s = s']: a smooth
/// (RBF) kernel on a fine grid is numerically singular, which makes the stacked state's
/// covariances singular and the smoother's gain unstable. The dense reference uses the same
/// kernel, so the two still agree exactly.
pub const SPATIAL_JITTER: f64 = 1e-6;

/// The hyperparameters of the prior and the observation noise.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Hyper {
    /// Temporal length scale ℓ_t (time units of the data).
    pub time_length: f64,
    /// Spatial length scale ℓ_s (coordinate units; unused for one location).
    pub space_length: f64,
    /// Signal variance v.
    pub variance: f64,
    /// Observation noise variance σ².
    pub noise: f64,
}

impl Default for Hyper {
    fn default() -> Self {
        Self {
            time_length: 0.2,
            space_length: 1.0,
            variance: 1.0,
            noise: 0.01,
        }
    }
}

impl Hyper {
    /// Checks that every value is finite and positive; the error names the field.
    pub fn check(&self) -> Result<(), String> {
        for (name, value) in [
            ("time_length", self.time_length),
            ("space_length", self.space_length),
            ("variance", self.variance),
            ("noise", self.noise),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!("{name} must be finite and positive, got {value}"));
            }
        }
        Ok(())
    }
}

/// The kernel choice of a model.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct KernelChoice {
    /// Matérn kernel over time.
    pub temporal: TemporalKernel,
    /// Kernel over space.
    pub spatial: SpatialKernel,
}

/// The prior on a grid: `locations` observed at every time in `times`.
#[derive(Clone, Debug)]
pub struct Prior<'a> {
    /// Kernels.
    pub kernel: KernelChoice,
    /// Hyperparameters.
    pub hyper: Hyper,
    /// Strictly increasing times.
    pub times: &'a [f64],
    /// Grid locations (one for a plain time series).
    pub locations: &'a [[f64; 2]],
}

impl Prior<'_> {
    /// Number of locations n_s.
    pub fn n_space(&self) -> usize {
        self.locations.len()
    }

    /// The temporal state dimension d.
    pub fn order(&self) -> usize {
        self.kernel.temporal.order()
    }

    /// v · (K_s + εI), the spatial covariance (n_s × n_s) with the nugget ε =
    /// [`SPATIAL_JITTER`].
    pub fn spatial_covariance(&self) -> DMatrix<f64> {
        let mut k = self
            .kernel
            .spatial
            .matrix(self.hyper.space_length, self.locations);
        for i in 0..k.nrows() {
            k[(i, i)] += SPATIAL_JITTER;
        }
        k * self.hyper.variance
    }

    /// The full covariance between two space-time points (for the dense reference).
    pub fn covariance(&self, (s1, t1): ([f64; 2], f64), (s2, t2): ([f64; 2], f64)) -> f64 {
        let nugget = if s1 == s2 { SPATIAL_JITTER } else { 0.0 };
        self.hyper.variance
            * (self
                .kernel
                .spatial
                .correlation(self.hyper.space_length, crate::kernel::distance(s1, s2))
                + nugget)
            * self
                .kernel
                .temporal
                .covariance(self.hyper.time_length, t1 - t2)
    }
}

/// The stacked state x = [x⁽¹⁾; …; x⁽ⁿˢ⁾] (each a d-dimensional Matérn state) of a separable
/// prior: P∞ = (v K_s) ⊗ P∞_t, A = I ⊗ A_t, Σ = (v K_s) ⊗ Σ_t.
pub struct Stacked {
    /// Locations n_s.
    pub ns: usize,
    /// Temporal state dimension d.
    pub d: usize,
    /// v K_s.
    pub ks: DMatrix<f64>,
}

impl Stacked {
    /// The stacked model of `prior`.
    pub fn new(prior: &Prior<'_>) -> Self {
        Self {
            ns: prior.n_space(),
            d: prior.order(),
            ks: prior.spatial_covariance(),
        }
    }

    /// Dimension n_s·d of the state.
    pub fn dim(&self) -> usize {
        self.ns * self.d
    }

    /// The stationary covariance (v K_s) ⊗ P∞_t.
    pub fn stationary(&self, p_inf_t: &DMatrix<f64>) -> DMatrix<f64> {
        self.ks.kronecker(p_inf_t)
    }

    /// A x for the block-diagonal A = I ⊗ A_t.
    pub fn apply_transition(&self, a_t: &DMatrix<f64>, x: &DVector<f64>) -> DVector<f64> {
        let d = self.d;
        let mut out = DVector::zeros(x.len());
        for i in 0..self.ns {
            out.rows_mut(i * d, d).copy_from(&(a_t * x.rows(i * d, d)));
        }
        out
    }

    /// A P for the block-diagonal A = I ⊗ A_t (cost n_s² d³ instead of (n_s d)³).
    pub fn left_transition(&self, a_t: &DMatrix<f64>, p: &DMatrix<f64>) -> DMatrix<f64> {
        let d = self.d;
        let mut out = DMatrix::zeros(p.nrows(), p.ncols());
        for i in 0..self.ns {
            out.rows_mut(i * d, d).copy_from(&(a_t * p.rows(i * d, d)));
        }
        out
    }

    /// A P Aᵀ + (v K_s) ⊗ Σ_t, the predicted covariance.
    pub fn predict_covariance(
        &self,
        a_t: &DMatrix<f64>,
        q_t: &DMatrix<f64>,
        p: &DMatrix<f64>,
    ) -> DMatrix<f64> {
        let d = self.d;
        let ap = self.left_transition(a_t, p);
        let a_tt = a_t.transpose();
        let mut out = DMatrix::zeros(p.nrows(), p.ncols());
        for j in 0..self.ns {
            out.columns_mut(j * d, d)
                .copy_from(&(ap.columns(j * d, d) * &a_tt));
        }
        for i in 0..self.ns {
            for j in 0..self.ns {
                let kij = self.ks[(i, j)];
                let mut block = out.view_mut((i * d, j * d), (d, d));
                block += q_t * kij;
            }
        }
        crate::kernel::symmetrise(&mut out);
        out
    }
}
