//! Small dense linear algebra: solving a few-by-few system, 2×2 eigenvalues, and the
//! eigen-decomposition of a symmetric 2×2 matrix.

use benchtop_compute::ComputeError;

/// Solves A x = b for a square row-major `a` (n×n) by Gaussian elimination with partial
/// pivoting; several right-hand sides are the columns of `b` (n×m row-major).
pub fn solve(a: &[f64], b: &[f64], n: usize, m: usize) -> Result<Vec<f64>, ComputeError> {
    if a.len() != n * n || b.len() != n * m {
        return Err(ComputeError::Numerical(format!(
            "solve: expected a {n}×{n} matrix and {n}×{m} right-hand sides"
        )));
    }
    let mut a = a.to_vec();
    let mut x = b.to_vec();
    let scale = a
        .iter()
        .fold(0.0f64, |s, v| s.max(v.abs()))
        .max(f64::MIN_POSITIVE);
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| a[i * n + col].abs().total_cmp(&a[j * n + col].abs()))
            .unwrap_or(col);
        if a[pivot * n + col].abs() <= 1e-13 * scale {
            return Err(ComputeError::Numerical(
                "solve: the matrix is singular".to_owned(),
            ));
        }
        if pivot != col {
            for k in 0..n {
                a.swap(col * n + k, pivot * n + k);
            }
            for k in 0..m {
                x.swap(col * m + k, pivot * m + k);
            }
        }
        let diag = a[col * n + col];
        for row in col + 1..n {
            let factor = a[row * n + col] / diag;
            if factor == 0.0 {
                continue;
            }
            for k in col..n {
                a[row * n + k] -= factor * a[col * n + k];
            }
            for k in 0..m {
                x[row * m + k] -= factor * x[col * m + k];
            }
        }
    }
    for col in (0..n).rev() {
        let diag = a[col * n + col];
        for k in 0..m {
            let mut value = x[col * m + k];
            for j in col + 1..n {
                value -= a[col * n + j] * x[j * m + k];
            }
            x[col * m + k] = value / diag;
        }
    }
    Ok(x)
}

/// Eigenvalues of a real 2×2 matrix as (real, imaginary) pairs, ordered by real part
/// (complex pairs: negative imaginary part first).
pub fn eigenvalues_2x2(j: [[f64; 2]; 2]) -> [(f64, f64); 2] {
    let half_trace = 0.5 * (j[0][0] + j[1][1]);
    let det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
    let disc = half_trace * half_trace - det;
    if disc >= 0.0 {
        let root = disc.sqrt();
        // Avoid cancellation: compute the larger-magnitude root first.
        let big = if half_trace >= 0.0 {
            half_trace + root
        } else {
            half_trace - root
        };
        let small = if big == 0.0 { 0.0 } else { det / big };
        let (lo, hi) = if big < small {
            (big, small)
        } else {
            (small, big)
        };
        [(lo, 0.0), (hi, 0.0)]
    } else {
        let im = (-disc).sqrt();
        [(half_trace, -im), (half_trace, im)]
    }
}

/// Eigen-decomposition of a symmetric 2×2 matrix: eigenvalues in descending order and the
/// matching unit eigenvectors as the rows of the second array.
pub fn symmetric_eigen_2x2(m: [[f64; 2]; 2]) -> ([f64; 2], [[f64; 2]; 2]) {
    let (a, b, d) = (m[0][0], 0.5 * (m[0][1] + m[1][0]), m[1][1]);
    let mean = 0.5 * (a + d);
    let radius = (0.25 * (a - d) * (a - d) + b * b).sqrt();
    let (hi, lo) = (mean + radius, mean - radius);
    // The angle of the leading eigenvector: tan 2φ = 2b / (a − d).
    let phi = 0.5 * (2.0 * b).atan2(a - d);
    let (s, c) = phi.sin_cos();
    ([hi, lo], [[c, s], [-s, c]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve_recovers_a_known_solution() {
        let a = [2.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 4.0];
        let x = [1.0, -2.0, 0.5, 3.0, 0.25, -1.0];
        let mut b = vec![0.0; 6];
        for r in 0..3 {
            for c in 0..2 {
                b[r * 2 + c] = (0..3).map(|k| a[r * 3 + k] * x[k * 2 + c]).sum();
            }
        }
        let solved = solve(&a, &b, 3, 2).unwrap();
        for (s, e) in solved.iter().zip(x) {
            assert!((s - e).abs() < 1e-12);
        }
        assert!(solve(&[1.0, 2.0, 2.0, 4.0], &[1.0, 1.0], 2, 1).is_err());
    }

    #[test]
    fn eigenvalues_of_known_matrices() {
        let e = eigenvalues_2x2([[0.0, -0.5], [0.0, -1.0]]);
        assert_eq!(e, [(-1.0, 0.0), (0.0, 0.0)]);
        let e = eigenvalues_2x2([[-0.1, -2.0], [2.0, -0.1]]);
        assert!((e[0].0 + 0.1).abs() < 1e-15 && (e[0].1 + 2.0).abs() < 1e-15);
        assert!((e[1].1 - 2.0).abs() < 1e-15);
        let e = eigenvalues_2x2([[1e8, 1.0], [1.0, 1e-8]]);
        let det = 1e8 * 1e-8 - 1.0;
        assert!((e[0].0 * e[1].0 - det).abs() < 1e-6);
    }

    #[test]
    fn symmetric_eigen_reconstructs_the_matrix() {
        for m in [
            [[2.0, 1.0], [1.0, 3.0]],
            [[4.0, 0.0], [0.0, 1.0]],
            [[1.0, -2.0], [-2.0, 1.0]],
        ] {
            let (values, vectors) = symmetric_eigen_2x2(m);
            assert!(values[0] >= values[1]);
            for r in 0..2 {
                for c in 0..2 {
                    let rebuilt: f64 = (0..2)
                        .map(|k| values[k] * vectors[k][r] * vectors[k][c])
                        .sum();
                    assert!((rebuilt - m[r][c]).abs() < 1e-12, "{m:?}");
                }
            }
            let dot = vectors[0][0] * vectors[1][0] + vectors[0][1] * vectors[1][1];
            assert!(dot.abs() < 1e-12);
        }
    }
}
