//! Dense O(n³) GP regression with the same separable kernel: the reference the state-space
//! filter is tested against, and the cubic baseline of the benchmark.

use std::f64::consts::PI;

use benchtop_compute::ComputeError;
use nalgebra::{DMatrix, DVector};

use crate::filter::check_problem;
use crate::model::Prior;

/// Posterior mean and latent variance at every observed point, and the log marginal
/// likelihood, all time-major like the filter's.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseFit {
    /// Posterior mean.
    pub mean: Vec<f64>,
    /// Posterior variance of f.
    pub var: Vec<f64>,
    /// log p(y).
    pub log_likelihood: f64,
}

/// GP regression on centred data `y` (n = T·n_s points): mean K (K + σ²I)⁻¹ y and variance
/// diag(K − K (K + σ²I)⁻¹ K).
pub fn regress(prior: &Prior<'_>, y: &[f64]) -> Result<DenseFit, ComputeError> {
    check_problem(prior, y)?;
    let ns = prior.n_space();
    let n = y.len();
    let point = |k: usize| (prior.locations[k % ns], prior.times[k / ns]);
    let k = DMatrix::from_fn(n, n, |a, b| prior.covariance(point(a), point(b)));
    let mut ky = k.clone();
    for i in 0..n {
        ky[(i, i)] += prior.hyper.noise;
    }
    let chol = ky
        .cholesky()
        .ok_or_else(|| ComputeError::Numerical("K + σ²I is not positive definite".to_owned()))?;
    let yv = DVector::from_column_slice(y);
    let alpha = chol.solve(&yv);
    let mean = &k * &alpha;
    let v = chol
        .l()
        .solve_lower_triangular(&k)
        .ok_or_else(|| ComputeError::Numerical("singular Cholesky factor".to_owned()))?;
    let var = (0..n)
        .map(|i| k[(i, i)] - v.column(i).norm_squared())
        .collect();
    let log_det: f64 = chol.l().diagonal().iter().map(|d| 2.0 * d.ln()).sum();
    let log_likelihood = -0.5 * (yv.dot(&alpha) + log_det + n as f64 * (2.0 * PI).ln());
    Ok(DenseFit {
        mean: mean.as_slice().to_vec(),
        var,
        log_likelihood,
    })
}
