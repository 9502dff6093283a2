//! Small dense linear-algebra helpers on `nalgebra::DMatrix<f64>`: symmetric matrix functions
//! through the eigen-decomposition, orthogonal and general invertible matrices from a seed, and
//! relative Frobenius distances.

use benchtop_compute::rng::seeded;
use nalgebra::{DMatrix, SymmetricEigen};
use rand_distr::{Distribution as _, StandardNormal};

/// Eigenvalues below `RELATIVE_RANK_TOL · λ_max` count as zero in pseudo-inverses.
pub const RELATIVE_RANK_TOL: f64 = 1e-10;

/// `f(A)` for a symmetric `A`: `V f(Λ) Vᵀ` from the eigen-decomposition (the input is
/// symmetrised first, so rounding asymmetry does not matter).
pub fn symmetric_function(a: &DMatrix<f64>, f: impl Fn(f64) -> f64) -> DMatrix<f64> {
    let symmetric = (a + a.transpose()) * 0.5;
    let eigen = SymmetricEigen::new(symmetric);
    let mapped = eigen.eigenvalues.map(f);
    &eigen.eigenvectors * DMatrix::from_diagonal(&mapped) * eigen.eigenvectors.transpose()
}

/// The largest absolute eigenvalue of a symmetric matrix (0 for an empty one).
fn spectral_radius(a: &DMatrix<f64>) -> f64 {
    let symmetric = (a + a.transpose()) * 0.5;
    SymmetricEigen::new(symmetric)
        .eigenvalues
        .iter()
        .fold(0.0_f64, |m, v| m.max(v.abs()))
}

/// The positive semi-definite square root `A^{1/2}` of a symmetric PSD matrix (negative
/// rounding-level eigenvalues are clipped to zero).
pub fn psd_sqrt(a: &DMatrix<f64>) -> DMatrix<f64> {
    symmetric_function(a, |l| l.max(0.0).sqrt())
}

/// The pseudo-inverse square root `A^{+1/2}` of a symmetric PSD matrix: `λ^{-1/2}` on
/// eigenvalues above [`RELATIVE_RANK_TOL`]`·λ_max`, zero on the rest.
pub fn psd_pinv_sqrt(a: &DMatrix<f64>) -> DMatrix<f64> {
    let cutoff = RELATIVE_RANK_TOL * spectral_radius(a);
    symmetric_function(a, |l| if l > cutoff { 1.0 / l.sqrt() } else { 0.0 })
}

/// The pseudo-inverse `A^+` of a symmetric PSD matrix (same cut-off as [`psd_pinv_sqrt`]).
pub fn psd_pinv(a: &DMatrix<f64>) -> DMatrix<f64> {
    let cutoff = RELATIVE_RANK_TOL * spectral_radius(a);
    symmetric_function(a, |l| if l > cutoff { 1.0 / l } else { 0.0 })
}

/// The numerical rank of a matrix: singular values above [`RELATIVE_RANK_TOL`]`·σ_max` (0 when
/// `σ_max < 1e-12`).
pub fn rank(a: &DMatrix<f64>) -> usize {
    if a.is_empty() {
        return 0;
    }
    let singular = a.clone().svd(false, false).singular_values;
    let top = singular.iter().fold(0.0_f64, |m, v| m.max(*v));
    if top < 1e-12 {
        return 0;
    }
    singular
        .iter()
        .filter(|s| **s > RELATIVE_RANK_TOL * top)
        .count()
}

/// An `rows × cols` matrix of independent standard normal numbers from `seed`.
pub fn gaussian(rows: usize, cols: usize, seed: u64) -> DMatrix<f64> {
    let mut rng = seeded(seed);
    DMatrix::from_fn(rows, cols, |_, _| StandardNormal.sample(&mut rng))
}

/// A random antisymmetric `n × n` matrix `(Z − Zᵀ)/(2√n)` from `seed` (entries of order
/// `1/√n`, so its spectral norm is of order one).
pub fn random_antisymmetric(n: usize, seed: u64) -> DMatrix<f64> {
    let z = gaussian(n, n, seed);
    let scale = 0.5 / (n.max(1) as f64).sqrt();
    (&z - z.transpose()) * scale
}

/// A random symmetric `n × n` matrix `(Z + Zᵀ)/(2√n)` from `seed`.
pub fn random_symmetric(n: usize, seed: u64) -> DMatrix<f64> {
    let z = gaussian(n, n, seed);
    let scale = 0.5 / (n.max(1) as f64).sqrt();
    (&z + z.transpose()) * scale
}

/// The Cayley transform `Q = (I − Ω)(I + Ω)⁻¹` of an antisymmetric `Ω`: always orthogonal
/// (`I + Ω` is invertible because `Ω`'s eigenvalues are imaginary).
pub fn cayley(omega: &DMatrix<f64>) -> DMatrix<f64> {
    let n = omega.nrows();
    let identity = DMatrix::<f64>::identity(n, n);
    let plus = &identity + omega;
    let minus = &identity - omega;
    // (I − Ω)(I + Ω)⁻¹ = ((I + Ω)⁻ᵀ (I − Ω)ᵀ)ᵀ, solved without forming the inverse.
    let solved = plus
        .transpose()
        .lu()
        .solve(&minus.transpose())
        .unwrap_or_else(|| identity.clone());
    solved.transpose()
}

/// Frobenius norm of `a − b` divided by that of `b` (the absolute distance when `b` is zero).
pub fn relative_frobenius(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    let scale = b.norm();
    let distance = (a - b).norm();
    if scale > 0.0 {
        distance / scale
    } else {
        distance
    }
}

/// The largest absolute entry of `a − b`.
pub fn max_abs_difference(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    (a - b).iter().fold(0.0_f64, |m, v| m.max(v.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linnet_linalg_square_roots_and_cayley_are_exact() {
        let z = gaussian(6, 4, 3);
        // Rank-4 PSD 6×6 matrix: its square root squares back; the pseudo-inverse square root
        // satisfies A^{+1/2} A A^{+1/2} = projector onto the range.
        let a = &z * z.transpose();
        let root = psd_sqrt(&a);
        assert!(relative_frobenius(&(&root * &root), &a) < 1e-10);
        let pinv_root = psd_pinv_sqrt(&a);
        let projector = &pinv_root * &a * &pinv_root;
        assert!(relative_frobenius(&(&projector * &projector), &projector) < 1e-9);
        assert!((projector.trace() - 4.0).abs() < 1e-9);
        assert_eq!(rank(&a), 4);
        let pinv = psd_pinv(&a);
        assert!(relative_frobenius(&(&a * &pinv * &a), &a) < 1e-9);

        let q = cayley(&(random_antisymmetric(5, 9) * 3.0));
        let identity = DMatrix::<f64>::identity(5, 5);
        assert!(max_abs_difference(&(q.transpose() * &q), &identity) < 1e-12);
        assert!(max_abs_difference(&q, &identity) > 0.1, "not the identity");
    }
}
