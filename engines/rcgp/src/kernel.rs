//! Kernels: the temporal Matérn family in state-space form and the spatial kernels.
//!
//! A Matérn kernel with smoothness ν = p + ½ and unit variance is the covariance of the first
//! component of a linear SDE dx = F x dt + L dβ with a d = p + 1 dimensional state
//! (Hartikainen & Särkkä 2010). Its stationary covariance P∞ is written in closed form; the
//! exact discretisation over a step dt is A = expm(F·dt), Σ = P∞ − A P∞ Aᵀ.

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// The temporal kernel: a Matérn kernel of half-integer smoothness.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TemporalKernel {
    /// ν = 1/2 (exponential, Ornstein–Uhlenbeck), state dimension 1.
    Matern12,
    /// ν = 3/2, state dimension 2 (the paper's default).
    #[default]
    Matern32,
    /// ν = 5/2, state dimension 3.
    Matern52,
}

/// The spatial kernel over the grid's coordinates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SpatialKernel {
    /// Matérn ν = 1/2.
    Matern12,
    /// Matérn ν = 3/2.
    Matern32,
    /// Matérn ν = 5/2.
    Matern52,
    /// Squared exponential (radial basis function).
    #[default]
    Rbf,
}

impl TemporalKernel {
    /// Every kernel, for choosers.
    pub const ALL: [Self; 3] = [Self::Matern12, Self::Matern32, Self::Matern52];

    /// Name for people.
    pub fn label(self) -> &'static str {
        match self {
            Self::Matern12 => "Matérn ν=1/2",
            Self::Matern32 => "Matérn ν=3/2",
            Self::Matern52 => "Matérn ν=5/2",
        }
    }

    /// Dimension d of the state.
    pub fn order(self) -> usize {
        match self {
            Self::Matern12 => 1,
            Self::Matern32 => 2,
            Self::Matern52 => 3,
        }
    }

    /// λ = √(2ν)/ℓ.
    fn lambda(self, length: f64) -> f64 {
        match self {
            Self::Matern12 => 1.0 / length,
            Self::Matern32 => 3f64.sqrt() / length,
            Self::Matern52 => 5f64.sqrt() / length,
        }
    }

    /// The feedback matrix F of the SDE for length scale `length`.
    pub fn feedback(self, length: f64) -> DMatrix<f64> {
        let l = self.lambda(length);
        match self {
            Self::Matern12 => DMatrix::from_element(1, 1, -l),
            Self::Matern32 => DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -l * l, -2.0 * l]),
            Self::Matern52 => DMatrix::from_row_slice(
                3,
                3,
                &[
                    0.0,
                    1.0,
                    0.0,
                    0.0,
                    0.0,
                    1.0,
                    -l * l * l,
                    -3.0 * l * l,
                    -3.0 * l,
                ],
            ),
        }
    }

    /// The stationary state covariance P∞ for unit variance: the covariances of the process
    /// and its derivatives, (−1)^j k^{(i+j)}(0).
    pub fn stationary(self, length: f64) -> DMatrix<f64> {
        let l = self.lambda(length);
        match self {
            Self::Matern12 => DMatrix::from_element(1, 1, 1.0),
            Self::Matern32 => DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.0, l * l]),
            Self::Matern52 => {
                let kappa = l * l / 3.0;
                DMatrix::from_row_slice(
                    3,
                    3,
                    &[1.0, 0.0, -kappa, 0.0, kappa, 0.0, -kappa, 0.0, l.powi(4)],
                )
            }
        }
    }

    /// The exact discretisation over `dt`: (A, Σ) with A = expm(F·dt), Σ = P∞ − A P∞ Aᵀ.
    pub fn discretise(self, length: f64, dt: f64) -> (DMatrix<f64>, DMatrix<f64>) {
        let a = (self.feedback(length) * dt).exp();
        let p_inf = self.stationary(length);
        let mut q = &p_inf - &a * &p_inf * a.transpose();
        symmetrise(&mut q);
        (a, q)
    }

    /// The unit-variance covariance k(τ) at lag `tau`.
    pub fn covariance(self, length: f64, tau: f64) -> f64 {
        matern(self, tau.abs() / length)
    }
}

/// The unit-variance Matérn correlation at scaled distance r = |τ|/ℓ.
fn matern(kind: TemporalKernel, r: f64) -> f64 {
    match kind {
        TemporalKernel::Matern12 => (-r).exp(),
        TemporalKernel::Matern32 => {
            let a = 3f64.sqrt() * r;
            (1.0 + a) * (-a).exp()
        }
        TemporalKernel::Matern52 => {
            let a = 5f64.sqrt() * r;
            (1.0 + a + a * a / 3.0) * (-a).exp()
        }
    }
}

impl SpatialKernel {
    /// Every kernel, for choosers.
    pub const ALL: [Self; 4] = [Self::Matern12, Self::Matern32, Self::Matern52, Self::Rbf];

    /// Name for people.
    pub fn label(self) -> &'static str {
        match self {
            Self::Matern12 => "Matérn ν=1/2",
            Self::Matern32 => "Matérn ν=3/2",
            Self::Matern52 => "Matérn ν=5/2",
            Self::Rbf => "RBF (squared exponential)",
        }
    }

    /// The unit-variance correlation of two points at Euclidean distance `distance`.
    pub fn correlation(self, length: f64, distance: f64) -> f64 {
        let r = distance / length;
        match self {
            Self::Matern12 => matern(TemporalKernel::Matern12, r),
            Self::Matern32 => matern(TemporalKernel::Matern32, r),
            Self::Matern52 => matern(TemporalKernel::Matern52, r),
            Self::Rbf => (-0.5 * r * r).exp(),
        }
    }

    /// The unit-variance kernel matrix K_s over `locations`.
    pub fn matrix(self, length: f64, locations: &[[f64; 2]]) -> DMatrix<f64> {
        let n = locations.len();
        DMatrix::from_fn(n, n, |i, j| {
            self.correlation(length, distance(locations[i], locations[j]))
        })
    }
}

/// Euclidean distance in the plane.
pub fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// Replaces `m` by (m + mᵀ)/2, removing round-off asymmetry.
pub fn symmetrise(m: &mut DMatrix<f64>) {
    let n = m.nrows();
    for i in 0..n {
        for j in (i + 1)..n {
            let v = 0.5 * (m[(i, j)] + m[(j, i)]);
            m[(i, j)] = v;
            m[(j, i)] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The state-space model reproduces the kernel: the first entry of A(τ) P∞ is k(τ), and
    /// P∞ is stationary (A P∞ Aᵀ + Σ = P∞ by construction, and F P∞ + P∞ Fᵀ is rank one).
    #[test]
    fn rcgp_kernel_state_space_reproduces_the_matern_covariance() {
        for kind in TemporalKernel::ALL {
            for &length in &[0.3, 1.0, 2.5] {
                let p_inf = kind.stationary(length);
                for &tau in &[0.0, 0.1, 0.7, 3.0] {
                    let (a, q) = kind.discretise(length, tau);
                    let k = (&a * &p_inf)[(0, 0)];
                    assert!(
                        (k - kind.covariance(length, tau)).abs() < 1e-12,
                        "{kind:?} ℓ={length} τ={tau}: {k}"
                    );
                    assert!(
                        q.symmetric_eigenvalues().min() > -1e-12,
                        "Σ is a covariance"
                    );
                }
                // Lyapunov: F P∞ + P∞ Fᵀ + L Q Lᵀ = 0 with L = e_d: only the last entry is
                // non-zero.
                let f = kind.feedback(length);
                let lyap = &f * &p_inf + &p_inf * f.transpose();
                let d = kind.order();
                for i in 0..d {
                    for j in 0..d {
                        if i + 1 < d || j + 1 < d {
                            assert!(lyap[(i, j)].abs() < 1e-10, "{kind:?}: {lyap}");
                        }
                    }
                }
                assert!(lyap[(d - 1, d - 1)] < 0.0);
            }
        }
    }

    #[test]
    fn rcgp_kernel_spatial_matrix_is_a_correlation() {
        let locs = [[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]];
        for kind in SpatialKernel::ALL {
            let k = kind.matrix(0.8, &locs);
            for i in 0..3 {
                assert!((k[(i, i)] - 1.0).abs() < 1e-15);
            }
            assert!(k.symmetric_eigenvalues().min() > 0.0);
            assert!(k[(0, 1)] > k[(0, 2)], "{kind:?} decays with distance");
        }
    }
}
