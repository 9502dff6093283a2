//! Small dense linear-algebra helpers on nalgebra matrices (samples are rows).

use benchtop_compute::ComputeError;
use nalgebra::{DMatrix, DVector};

/// Column means and the (biased, 1/n) covariance of the rows of `x`.
pub fn mean_and_covariance(x: &DMatrix<f64>) -> (DVector<f64>, DMatrix<f64>) {
    let n = x.nrows().max(1) as f64;
    let mean = x.row_sum().transpose() / n;
    let mut centred = x.clone();
    for mut row in centred.row_iter_mut() {
        row -= mean.transpose();
    }
    let cov = centred.tr_mul(&centred) / n;
    (mean, cov)
}

/// Ridge regression W = (XᵀX + λI)⁻¹XᵀY (X: n×p, Y: n×q, W: p×q), by Cholesky.
pub fn ridge(
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    lambda: f64,
) -> Result<DMatrix<f64>, ComputeError> {
    let mut gram = x.tr_mul(x);
    for i in 0..gram.nrows() {
        gram[(i, i)] += lambda;
    }
    let rhs = x.tr_mul(y);
    let chol = gram.cholesky().ok_or_else(|| {
        ComputeError::Numerical("ridge normal equations are not positive definite; raise λ".into())
    })?;
    Ok(chol.solve(&rhs))
}

/// The inverse of the symmetric positive semi-definite `m` after adding `jitter`·(trace/n)·I,
/// symmetrised: a precision matrix from a covariance.
pub fn precision_from_covariance(
    m: &DMatrix<f64>,
    jitter: f64,
) -> Result<DMatrix<f64>, ComputeError> {
    let n = m.nrows();
    let scale = (m.trace() / n.max(1) as f64).max(1e-300);
    let mut a = m.clone();
    for i in 0..n {
        a[(i, i)] += jitter * scale;
    }
    let chol = a.cholesky().ok_or_else(|| {
        ComputeError::Numerical("a covariance is not positive definite after the jitter".into())
    })?;
    let inv = chol.inverse();
    Ok((&inv + inv.transpose()) * 0.5)
}

/// Median Euclidean distance between the rows of `x` over at most `pairs` deterministic pairs.
pub fn median_distance(x: &DMatrix<f64>, pairs: usize) -> f64 {
    let n = x.nrows();
    if n < 2 {
        return 1.0;
    }
    let mut d: Vec<f64> = (0..pairs)
        .map(|k| {
            let i = (k * 7919) % n;
            let mut j = (k * 104_729 + n / 2 + 1) % n;
            if j == i {
                j = (i + 1) % n;
            }
            (x.row(i) - x.row(j)).norm()
        })
        .collect();
    d.sort_by(f64::total_cmp);
    d[d.len() / 2].max(1e-12)
}
