//! Kernel ridge regression on standardised inputs: α = (K + λI)⁻¹(y − ȳ), ŷ = k(x)ᵀα + ȳ,
//! with one eigendecomposition of K per kernel setting, so every λ costs a product.
//!
//! - RBF: k(x, x') = exp(−γ‖x − x'‖²/d) over d inputs.
//! - Dirichlet (the kernel Huang et al. use for ground-state properties, here as a sum over
//!   inputs): k(x, x') = (1/d) Σ_i D_K(ω(x_i − x'_i))/(2K + 1), D_K(t) = 1 + 2Σ_{k≤K} cos kt,
//!   a trigonometric-polynomial feature map of order K per input.
//!
//! The kernel's setting and λ are chosen per group of targets by cross-validation.

use std::ops::Range;

use benchtop_compute::{CancelToken, ComputeError};
use nalgebra::{DMatrix, SymmetricEigen};
use serde::{Deserialize, Serialize};

use super::{Learner, centre, columns, cross_validate, uncentre};

/// One kernel with its setting.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Kernel {
    /// exp(−γ‖x − x'‖²/d).
    Rbf {
        /// γ.
        gamma: f64,
    },
    /// (1/d) Σ_i D_K(ω Δ_i)/(2K + 1).
    Dirichlet {
        /// The order K.
        order: usize,
        /// The frequency ω (per standard deviation of an input).
        frequency: f64,
    },
}

impl Kernel {
    /// k(a, b) for two rows of equal length.
    pub fn eval(&self, a: &[f64], b: &[f64]) -> f64 {
        let d = a.len().max(1) as f64;
        match *self {
            Self::Rbf { gamma } => {
                let squared: f64 = a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum();
                (-gamma * squared / d).exp()
            }
            Self::Dirichlet { order, frequency } => {
                let norm = 2.0 * order as f64 + 1.0;
                a.iter()
                    .zip(b)
                    .map(|(x, y)| {
                        let t = frequency * (x - y);
                        1.0 + 2.0 * (1..=order).map(|k| (k as f64 * t).cos()).sum::<f64>()
                    })
                    .sum::<f64>()
                    / (d * norm)
            }
        }
    }

    /// The kernel matrix between the rows of `a` and of `b`.
    pub fn matrix(&self, a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
        let rows_a: Vec<Vec<f64>> = a.row_iter().map(|r| r.iter().copied().collect()).collect();
        let rows_b: Vec<Vec<f64>> = b.row_iter().map(|r| r.iter().copied().collect()).collect();
        DMatrix::from_fn(a.nrows(), b.nrows(), |i, j| {
            self.eval(&rows_a[i], &rows_b[j])
        })
    }
}

/// The kernel settings tried for `learner`.
pub fn settings_of(learner: Learner) -> Vec<Kernel> {
    match learner {
        Learner::KernelDirichlet => [1, 2, 3]
            .iter()
            .flat_map(|&order| {
                [0.3, 0.6]
                    .iter()
                    .map(move |&frequency| Kernel::Dirichlet { order, frequency })
            })
            .collect(),
        _ => [0.1, 0.3, 1.0, 3.0]
            .iter()
            .map(|&gamma| Kernel::Rbf { gamma })
            .collect(),
    }
}

/// Ridge penalties λ tried (the kernel's diagonal is 1).
pub const KERNEL_LAMBDAS: [f64; 7] = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0];

/// Predictions of `x_val` for every λ in `lambdas` with `kernel`.
pub fn kernel_path(
    kernel: &Kernel,
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    x_val: &DMatrix<f64>,
    lambdas: &[f64],
) -> Vec<DMatrix<f64>> {
    let (means, yc) = centre(y);
    let eigen = SymmetricEigen::new(kernel.matrix(x, x));
    let u = &eigen.eigenvectors;
    let projected = u.transpose() * yc;
    let cross = kernel.matrix(x_val, x) * u;
    lambdas
        .iter()
        .map(|&lambda| {
            let mut scaled = projected.clone();
            for (r, mut row) in scaled.row_iter_mut().enumerate() {
                row /= eigen.eigenvalues[r].max(0.0) + lambda;
            }
            uncentre(&(&cross * scaled), &means)
        })
        .collect()
}

/// Kernel ridge with `learner`'s kernel, setting and λ per group by cross-validation over
/// `folds`; predictions of `x_test`.
pub fn kernel_ridge(
    learner: Learner,
    x: &DMatrix<f64>,
    y: &DMatrix<f64>,
    groups: &[Range<usize>],
    x_test: &DMatrix<f64>,
    folds: &[usize],
    cancel: &CancelToken,
) -> Result<DMatrix<f64>, ComputeError> {
    let kernels = settings_of(learner);
    let per = KERNEL_LAMBDAS.len();
    let mut out = DMatrix::zeros(x_test.nrows(), y.ncols());
    for group in groups {
        let yg = columns(y, group);
        let best = cross_validate(x, &yg, folds, kernels.len() * per, |xt, yt, xv| {
            let mut all = Vec::with_capacity(kernels.len() * per);
            for kernel in &kernels {
                cancel.check()?;
                all.extend(kernel_path(kernel, xt, yt, xv, &KERNEL_LAMBDAS));
            }
            Ok(all)
        })?;
        let (kernel, lambda) = (kernels[best / per], KERNEL_LAMBDAS[best % per]);
        let prediction = kernel_path(&kernel, x, &yg, x_test, &[lambda]);
        out.columns_mut(group.start, group.len())
            .copy_from(&prediction[0]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learners::fold_of;
    use rand::Rng as _;

    #[test]
    fn quantum_kernels_fit_a_smooth_nonlinear_map_and_are_positive_definite() {
        let mut rng = benchtop_compute::rng::seeded(5);
        let make = |n: usize, rng: &mut benchtop_compute::rng::EngineRng| {
            let x = DMatrix::from_fn(n, 2, |_, _| rng.random::<f64>() * 3.0 - 1.5);
            let y = DMatrix::from_fn(n, 1, |r, _| (x[(r, 0)]).sin() + 0.5 * x[(r, 1)].powi(2));
            (x, y)
        };
        let (x, y) = make(120, &mut rng);
        let (xt, yt) = make(60, &mut rng);
        let folds = fold_of(120, 5, 1);
        for learner in [Learner::KernelRbf, Learner::KernelDirichlet] {
            let p = kernel_ridge(
                learner,
                &x,
                &y,
                std::slice::from_ref(&(0..1)),
                &xt,
                &folds,
                &CancelToken::new(),
            )
            .unwrap();
            let rmse = ((&p - &yt).norm_squared() / 60.0).sqrt();
            let sd = (yt.map(|v| v - yt.mean()).norm_squared() / 60.0).sqrt();
            assert!(rmse < 0.05 * sd, "{learner:?}: {rmse} vs sd {sd}");
            for kernel in settings_of(learner) {
                let k = kernel.matrix(&x, &x);
                let smallest = SymmetricEigen::new(k).eigenvalues.min();
                assert!(smallest > -1e-9, "{kernel:?}: {smallest}");
            }
        }
    }
}
