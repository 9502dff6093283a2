//! Ridge regression with an unpenalised intercept, for one or several outputs:
//! `min (1/n)‖Y − XW − 1cᵀ‖² + λ‖W‖²`, solved in closed form (Cholesky; with λ = 0 and a
//! singular Gram matrix, the least-squares solution of least norm).

use benchtop_compute::ComputeError;
use nalgebra::{DMatrix, DVector};

/// A fitted linear map `x ↦ Wᵀx + c`.
#[derive(Clone, Debug, PartialEq)]
pub struct Ridge {
    /// Coefficients, inputs × outputs.
    pub weights: DMatrix<f64>,
    /// Intercepts, one per output.
    pub intercept: DVector<f64>,
}

impl Ridge {
    /// Fits `y` (n × outputs) on `x` (n × inputs) with penalty `lambda` ≥ 0.
    pub fn fit(x: &DMatrix<f64>, y: &DMatrix<f64>, lambda: f64) -> Result<Self, ComputeError> {
        let n = x.nrows();
        if n == 0 || y.nrows() != n {
            return Err(ComputeError::Numerical(format!(
                "ridge: {n} input rows and {} target rows",
                y.nrows()
            )));
        }
        let (p, k) = (x.ncols(), y.ncols());
        let x_mean = DVector::from_fn(p, |j, _| x.column(j).mean());
        let y_mean = DVector::from_fn(k, |j, _| y.column(j).mean());
        let mut xc = x.clone();
        for j in 0..p {
            xc.column_mut(j).add_scalar_mut(-x_mean[j]);
        }
        let mut yc = y.clone();
        for j in 0..k {
            yc.column_mut(j).add_scalar_mut(-y_mean[j]);
        }
        let scale = 1.0 / n as f64;
        let mut gram = xc.transpose() * &xc * scale;
        for j in 0..p {
            gram[(j, j)] += lambda;
        }
        let rhs = xc.transpose() * &yc * scale;
        let weights = solve_spd(gram, &rhs)?;
        let intercept = y_mean - weights.transpose() * x_mean;
        Ok(Self { weights, intercept })
    }

    /// Fits one output.
    pub fn fit_vector(
        x: &DMatrix<f64>,
        y: &DVector<f64>,
        lambda: f64,
    ) -> Result<Self, ComputeError> {
        let y = DMatrix::from_column_slice(y.len(), 1, y.as_slice());
        Self::fit(x, &y, lambda)
    }

    /// Predictions, n × outputs.
    pub fn predict(&self, x: &DMatrix<f64>) -> DMatrix<f64> {
        let mut out = x * &self.weights;
        for j in 0..out.ncols() {
            out.column_mut(j).add_scalar_mut(self.intercept[j]);
        }
        out
    }

    /// Predictions of the first output.
    pub fn predict_vector(&self, x: &DMatrix<f64>) -> DVector<f64> {
        self.predict(x).column(0).into_owned()
    }
}

/// Solves `A X = B` for a symmetric positive semi-definite A: Cholesky, else the
/// pseudo-inverse (least norm).
pub fn solve_spd(a: DMatrix<f64>, b: &DMatrix<f64>) -> Result<DMatrix<f64>, ComputeError> {
    if let Some(chol) = a.clone().cholesky() {
        return Ok(chol.solve(b));
    }
    a.svd(true, true)
        .solve(b, 1e-12)
        .map_err(|e| ComputeError::Numerical(format!("least squares: {e}")))
}

/// Columns of `a` then `b` side by side (same rows).
pub fn hstack(a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    let n = a.nrows();
    let mut out = DMatrix::zeros(n, a.ncols() + b.ncols());
    out.view_mut((0, 0), (n, a.ncols())).copy_from(a);
    out.view_mut((0, a.ncols()), (n, b.ncols())).copy_from(b);
    out
}

/// The rows of `m` whose index is in `rows`.
pub fn select_rows(m: &DMatrix<f64>, rows: &[usize]) -> DMatrix<f64> {
    DMatrix::from_fn(rows.len(), m.ncols(), |i, j| m[(rows[i], j)])
}

/// The entries of `v` whose index is in `rows`.
pub fn select_entries(v: &DVector<f64>, rows: &[usize]) -> DVector<f64> {
    DVector::from_fn(rows.len(), |i, _| v[rows[i]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wf_ridge_recovers_a_planted_map_and_shrinks_with_lambda() {
        let x = DMatrix::from_fn(50, 2, |i, j| ((i * 7 + j * 3) % 11) as f64 - 5.0 + j as f64);
        let y = DVector::from_fn(50, |i, _| 2.0 * x[(i, 0)] - 0.5 * x[(i, 1)] + 3.0);
        let fit = Ridge::fit_vector(&x, &y, 0.0).unwrap();
        assert!((fit.weights[(0, 0)] - 2.0).abs() < 1e-10);
        assert!((fit.weights[(1, 0)] + 0.5).abs() < 1e-10);
        assert!((fit.intercept[0] - 3.0).abs() < 1e-10);
        let shrunk = Ridge::fit_vector(&x, &y, 10.0).unwrap();
        assert!(shrunk.weights.norm() < fit.weights.norm());
        // A duplicated column with λ = 0: least-norm solution splits the weight.
        let dup = hstack(&x.columns(0, 1).into_owned(), &x.columns(0, 1).into_owned());
        let y = DVector::from_fn(50, |i, _| 2.0 * x[(i, 0)]);
        let fit = Ridge::fit_vector(&dup, &y, 0.0).unwrap();
        assert!((fit.weights[(0, 0)] - 1.0).abs() < 1e-8, "{}", fit.weights);
    }
}
