//! Ridge and Lasso on standardised inputs, with an intercept, their penalty chosen per group of
//! targets by cross-validation on the training set.
//!
//! Ridge: β = (XᵀX + nλI)⁻¹Xᵀy through one eigendecomposition of XᵀX per fit, so every λ of
//! the grid costs a product. Lasso: min (1/2n)‖y − Xβ‖² + λ‖β‖₁ by cyclic coordinate descent
//! on the Gram matrix, down a path of λ = r·λ_max (λ_max = max_j |x_jᵀy|/n, where β = 0) with
//! warm starts.

use std::ops::Range;

use benchtop_compute::{CancelToken, ComputeError};
use nalgebra::{DMatrix, SymmetricEigen};

use super::{centre, columns, cross_validate, uncentre};

/// Ridge penalties λ tried (per chain: the penalty is nλ‖β‖²).
pub const RIDGE_GRID: [f64; 13] = [
    1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0,
];

/// Lasso penalties as shares r of λ_max, from the empty model down.
pub const LASSO_GRID: [f64; 12] = [
    1.0, 0.5, 0.25, 0.1, 0.05, 0.025, 0.01, 5e-3, 2.5e-3, 1e-3, 5e-4, 1e-4,
];

/// Column means of `x` and `x` and `x_val` centred on them.
fn centre_inputs(x: &DMatrix<f64>, x_val: &DMatrix<f64>) -> (DMatrix<f64>, DMatrix<f64>) {
    let (means, xc) = centre(x);
    let vc = DMatrix::from_fn(x_val.nrows(), x_val.ncols(), |r, c| {
        x_val[(r, c)] - means[c]
    });
    (xc, vc)
}

/// Ridge predictions of `x_val` for every λ in `lambdas`.
pub fn ridge_path(
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    x_val: &DMatrix<f64>,
    lambdas: &[f64],
) -> Vec<DMatrix<f64>> {
    let n = x.nrows() as f64;
    let (xc, vc) = centre_inputs(x, x_val);
    let (means, yc) = centre(y);
    let eigen = SymmetricEigen::new(xc.transpose() * &xc);
    let q = &eigen.eigenvectors;
    let projected = q.transpose() * (xc.transpose() * &yc);
    let val_q = &vc * q;
    lambdas
        .iter()
        .map(|&lambda| {
            let mut scaled = projected.clone();
            for (r, mut row) in scaled.row_iter_mut().enumerate() {
                row /= eigen.eigenvalues[r].max(0.0) + n * lambda;
            }
            uncentre(&(&val_q * scaled), &means)
        })
        .collect()
}

/// Ridge, λ per group by cross-validation over `folds`; predictions of `x_test`.
pub fn ridge(
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    groups: &[Range<usize>],
    x_test: &DMatrix<f64>,
    folds: &[usize],
) -> Result<DMatrix<f64>, ComputeError> {
    let mut out = DMatrix::zeros(x_test.nrows(), y.ncols());
    for group in groups {
        let yg = columns(y, group);
        let best = cross_validate(x, &yg, folds, RIDGE_GRID.len(), |xt, yt, xv| {
            Ok(ridge_path(xt, yt, xv, &RIDGE_GRID))
        })?;
        let prediction = ridge_path(x, &yg, x_test, &[RIDGE_GRID[best]]);
        out.columns_mut(group.start, group.len())
            .copy_from(&prediction[0]);
    }
    Ok(out)
}

/// Soft thresholding.
fn soft(z: f64, lambda: f64) -> f64 {
    if z > lambda {
        z - lambda
    } else if z < -lambda {
        z + lambda
    } else {
        0.0
    }
}

/// Lasso predictions of `x_val` for every share of λ_max in `ratios` (descending).
pub fn lasso_path(
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    x_val: &DMatrix<f64>,
    ratios: &[f64],
    cancel: &CancelToken,
) -> Result<Vec<DMatrix<f64>>, ComputeError> {
    let n = x.nrows() as f64;
    let p = x.ncols();
    let (xc, vc) = centre_inputs(x, x_val);
    let (means, yc) = centre(y);
    let gram = (xc.transpose() * &xc) / n;
    let cross = (xc.transpose() * &yc) / n;
    let mut out = vec![DMatrix::zeros(x_val.nrows(), y.ncols()); ratios.len()];
    for t in 0..y.ncols() {
        cancel.check()?;
        let lambda_max = cross.column(t).amax();
        let mut beta = vec![0.0; p];
        // gradient_j = c_j − (Gβ)_j.
        let mut gradient: Vec<f64> = cross.column(t).iter().copied().collect();
        for (r, &ratio) in ratios.iter().enumerate() {
            let lambda = ratio * lambda_max;
            for _sweep in 0..2000 {
                let mut largest = 0.0_f64;
                for j in 0..p {
                    let g = gram[(j, j)];
                    if g <= 1e-12 {
                        continue;
                    }
                    let old = beta[j];
                    let new = soft(gradient[j] + g * old, lambda) / g;
                    let delta = new - old;
                    if delta != 0.0 {
                        beta[j] = new;
                        for (k, gk) in gradient.iter_mut().enumerate() {
                            *gk -= gram[(k, j)] * delta;
                        }
                        largest = largest.max(delta.abs() * g.sqrt());
                    }
                }
                if largest < 1e-8 {
                    break;
                }
            }
            for row in 0..vc.nrows() {
                let value: f64 = (0..p).map(|j| vc[(row, j)] * beta[j]).sum();
                out[r][(row, t)] = value + means[t];
            }
        }
    }
    Ok(out)
}

/// Lasso, its λ share per group by cross-validation over `folds`; predictions of `x_test`.
pub fn lasso(
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    groups: &[Range<usize>],
    x_test: &DMatrix<f64>,
    folds: &[usize],
    cancel: &CancelToken,
) -> Result<DMatrix<f64>, ComputeError> {
    let mut out = DMatrix::zeros(x_test.nrows(), y.ncols());
    for group in groups {
        let yg = columns(y, group);
        let best = cross_validate(x, &yg, folds, LASSO_GRID.len(), |xt, yt, xv| {
            lasso_path(xt, yt, xv, &LASSO_GRID, cancel)
        })?;
        // The path down to the chosen share (warm starts make the end point the same).
        let path = lasso_path(x, &yg, x_test, &LASSO_GRID[..=best], cancel)?;
        out.columns_mut(group.start, group.len())
            .copy_from(&path[best]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learners::fold_of;
    use rand::Rng as _;

    /// y = 2 + 3x₀ − x₂ + noise over 6 standard-normal-ish inputs.
    fn planted(n: usize, seed: u64) -> (DMatrix<f64>, DMatrix<f64>) {
        let mut rng = benchtop_compute::rng::seeded(seed);
        let x = DMatrix::from_fn(n, 6, |_, _| rng.random::<f64>() * 2.0 - 1.0);
        let y = DMatrix::from_fn(n, 1, |r, _| {
            2.0 + 3.0 * x[(r, 0)] - x[(r, 2)] + 0.01 * (rng.random::<f64>() - 0.5)
        });
        (x, y)
    }

    #[test]
    fn quantum_ridge_and_lasso_recover_a_planted_linear_map() {
        let (x, y) = planted(80, 1);
        let (xt, yt) = planted(40, 2);
        let folds = fold_of(80, 5, 3);
        let groups = vec![0..1; 1];
        let ridge = ridge(&x, &y, &groups, &xt, &folds).unwrap();
        let lasso = lasso(&x, &y, &groups, &xt, &folds, &CancelToken::new()).unwrap();
        for prediction in [ridge, lasso] {
            let rmse = ((&prediction - &yt).norm_squared() / 40.0).sqrt();
            assert!(rmse < 0.02, "{rmse}");
        }
        // The largest Lasso penalty keeps only the intercept: the training mean.
        let empty = lasso_path(&x, &y, &xt, &[1.0], &CancelToken::new()).unwrap();
        let mean = y.mean();
        assert!(empty[0].iter().all(|v| (v - mean).abs() < 1e-12));
    }
}
