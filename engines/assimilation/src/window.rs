//! The Tensor-Var window objective, solved exactly.
//!
//! min over z_0..z_{T−1} of ‖z₀ − z_b‖²_B + Σ_t ‖z_t − ẑ_t‖²_R + Σ_{t≥1} p_t‖z_t − A z_{t−1}‖²_Q
//! is a quadratic whose normal equations are block tridiagonal:
//! diagonal blocks R + [t = 0]·B + [t ≥ 1]·p_t Q + [t < T−1]·p_{t+1} AᵀQA, off-diagonal
//! blocks −p_t QA below and −p_t AᵀQ above, right-hand side [t = 0]·B z_b + R ẑ_t.
//! [`WindowSolver::new`] factors it once by block Cholesky (the matrix depends only on A, B,
//! Q, R and the weights); [`WindowSolver::solve`] is two block substitutions per window.

use benchtop_compute::ComputeError;
use nalgebra::{DMatrix, DVector};

/// The paper's dynamics weights p_t, t = 1..T−1, decreasing linearly from 1 to `last`
/// (index 0 is unused and set to 0).
pub fn linear_weights(len: usize, last: f64) -> Vec<f64> {
    (0..len)
        .map(|t| {
            if t == 0 {
                0.0
            } else if len <= 2 {
                1.0
            } else {
                let s = (t - 1) as f64 / (len - 2) as f64;
                1.0 + (last - 1.0) * s
            }
        })
        .collect()
}

/// The factored block-tridiagonal normal equations of one window length.
#[derive(Clone, Debug)]
pub struct WindowSolver {
    /// Background precision B (for the right-hand side).
    b: DMatrix<f64>,
    /// Observation precision R (for the right-hand side).
    r: DMatrix<f64>,
    /// Cholesky factors L_t of the Schur complements.
    diag: Vec<DMatrix<f64>>,
    /// Sub-diagonal blocks M_t = A_{t,t−1} L_{t−1}^{−T} (index 0 unused).
    sub: Vec<DMatrix<f64>>,
}

impl WindowSolver {
    /// Factors the normal equations for a window of `weights.len()` times with forward operator
    /// `a` (z⁺ = A z) and precisions `b`, `q`, `r`; `weights[t]` is p_t (index 0 unused).
    pub fn new(
        a: &DMatrix<f64>,
        b: &DMatrix<f64>,
        q: &DMatrix<f64>,
        r: &DMatrix<f64>,
        weights: &[f64],
    ) -> Result<Self, ComputeError> {
        let len = weights.len();
        if len == 0 {
            return Err(ComputeError::invalid(
                "window",
                "a window needs at least one time",
            ));
        }
        let qa = q * a;
        let atqa = a.tr_mul(&qa);
        let mut diag: Vec<DMatrix<f64>> = Vec::with_capacity(len);
        let mut sub: Vec<DMatrix<f64>> = Vec::with_capacity(len);
        for t in 0..len {
            let mut block = r.clone();
            if t == 0 {
                block += b;
            } else {
                block += q * weights[t];
            }
            if t + 1 < len {
                block += &atqa * weights[t + 1];
            }
            if t == 0 {
                sub.push(DMatrix::zeros(0, 0));
            } else {
                // A_{t−1,t} = −p_t AᵀQ; M_tᵀ = L_{t−1}⁻¹ A_{t−1,t}.
                let upper = qa.transpose() * (-weights[t]);
                let mt_t = diag[t - 1]
                    .solve_lower_triangular(&upper)
                    .ok_or_else(|| ComputeError::Numerical("window factor is singular".into()))?;
                block -= mt_t.tr_mul(&mt_t);
                sub.push(mt_t.transpose());
            }
            let sym = (&block + block.transpose()) * 0.5;
            let chol = sym.cholesky().ok_or_else(|| {
                ComputeError::Numerical(
                    "the window's normal equations are not positive definite".into(),
                )
            })?;
            diag.push(chol.l());
        }
        Ok(Self {
            b: b.clone(),
            r: r.clone(),
            diag,
            sub,
        })
    }

    /// Window length T.
    pub fn len(&self) -> usize {
        self.diag.len()
    }

    /// Whether the window is empty (never, by construction).
    pub fn is_empty(&self) -> bool {
        self.diag.is_empty()
    }

    /// The minimiser z_0..z_{T−1} for background `zb` and pseudo-observations `zhat` (T of them).
    pub fn solve(&self, zb: &DVector<f64>, zhat: &[DVector<f64>]) -> Vec<DVector<f64>> {
        let len = self.len();
        assert_eq!(zhat.len(), len, "one pseudo-observation per window time");
        let mut y: Vec<DVector<f64>> = Vec::with_capacity(len);
        for t in 0..len {
            let mut rhs = &self.r * &zhat[t];
            if t == 0 {
                rhs += &self.b * zb;
            } else {
                rhs -= &self.sub[t] * &y[t - 1];
            }
            let yt = self.diag[t]
                .solve_lower_triangular(&rhs)
                .unwrap_or_else(|| DVector::zeros(rhs.len()));
            y.push(yt);
        }
        let mut z: Vec<DVector<f64>> = vec![DVector::zeros(0); len];
        for t in (0..len).rev() {
            let mut rhs = y[t].clone();
            if t + 1 < len {
                rhs -= self.sub[t + 1].tr_mul(&z[t + 1]);
            }
            z[t] = self.diag[t]
                .tr_solve_lower_triangular(&rhs)
                .unwrap_or_else(|| DVector::zeros(rhs.len()));
        }
        z
    }
}
