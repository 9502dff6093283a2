//! Display frames for a learned 2-D latent: the paper's orthogonalised readout with PCA axes, and
//! the least-squares affine alignment onto planted latents. A flow maps between frames as
//! F′(z′) = A F(A⁻¹(z′ − c)); fixed points map with the frame and eigenvalues do not change.

use benchtop_compute::ComputeError;

use crate::linalg::{solve, symmetric_eigen_2x2};
use crate::result::Affine2;

impl Affine2 {
    /// The identity map.
    pub fn identity() -> Self {
        Self {
            matrix: [[1.0, 0.0], [0.0, 1.0]],
            offset: [0.0, 0.0],
        }
    }

    /// A z + c.
    pub fn apply(&self, z: [f64; 2]) -> [f64; 2] {
        let m = &self.matrix;
        [
            m[0][0] * z[0] + m[0][1] * z[1] + self.offset[0],
            m[1][0] * z[0] + m[1][1] * z[1] + self.offset[1],
        ]
    }

    /// A v (a vector: no offset).
    pub fn apply_vector(&self, v: [f64; 2]) -> [f64; 2] {
        let m = &self.matrix;
        [
            m[0][0] * v[0] + m[0][1] * v[1],
            m[1][0] * v[0] + m[1][1] * v[1],
        ]
    }

    /// The inverse map, or an error when A is singular.
    pub fn inverse(&self) -> Result<Self, ComputeError> {
        let m = &self.matrix;
        let det = m[0][0] * m[1][1] - m[0][1] * m[1][0];
        let scale = m.iter().flatten().map(|v| v.abs()).fold(0.0, f64::max);
        if !(det.is_finite() && det.abs() > 1e-12 * scale * scale && scale > 0.0) {
            return Err(ComputeError::Numerical(
                "the latent frame is singular: the model's latent collapsed to a line".into(),
            ));
        }
        let inv = [
            [m[1][1] / det, -m[0][1] / det],
            [-m[1][0] / det, m[0][0] / det],
        ];
        let c = self.offset;
        Ok(Self {
            matrix: inv,
            offset: [
                -(inv[0][0] * c[0] + inv[0][1] * c[1]),
                -(inv[1][0] * c[0] + inv[1][1] * c[1]),
            ],
        })
    }
}

/// The paper's frame: z̃ = S Uᵀ z from the SVD of the readout C = U S Vᵀ (`readout` is C,
/// `[2, N]` row-major, so z C = z̃ Vᵀ has orthonormal readout rows), then rotated onto the
/// principal axes of `points` (noiseless trajectories in the model's frame). No offset.
pub fn orthogonalised_readout(readout: &[f64], points: &[[f64; 2]]) -> Affine2 {
    let n = readout.len() / 2;
    let dot = |a: usize, b: usize| -> f64 {
        (0..n)
            .map(|k| readout[a * n + k] * readout[b * n + k])
            .sum()
    };
    // C Cᵀ = U S² Uᵀ.
    let (s2, u_rows) = symmetric_eigen_2x2([[dot(0, 0), dot(0, 1)], [dot(1, 0), dot(1, 1)]]);
    let s = [s2[0].max(0.0).sqrt(), s2[1].max(0.0).sqrt()];
    // z̃_k = s_k (u_k · z).
    let readout_frame = Affine2 {
        matrix: [
            [s[0] * u_rows[0][0], s[0] * u_rows[0][1]],
            [s[1] * u_rows[1][0], s[1] * u_rows[1][1]],
        ],
        offset: [0.0, 0.0],
    };
    let projected: Vec<[f64; 2]> = points.iter().map(|&p| readout_frame.apply(p)).collect();
    let rotation = principal_axes(&projected);
    Affine2 {
        matrix: multiply(rotation, readout_frame.matrix),
        offset: [0.0, 0.0],
    }
}

fn multiply(a: [[f64; 2]; 2], b: [[f64; 2]; 2]) -> [[f64; 2]; 2] {
    let mut out = [[0.0; 2]; 2];
    for (r, row) in out.iter_mut().enumerate() {
        for (c, value) in row.iter_mut().enumerate() {
            *value = a[r][0] * b[0][c] + a[r][1] * b[1][c];
        }
    }
    out
}

/// The rotation whose rows are the principal axes of `points` (largest variance first), each
/// signed so that its largest component is positive. Identity for fewer than two points.
pub fn principal_axes(points: &[[f64; 2]]) -> [[f64; 2]; 2] {
    if points.len() < 2 {
        return [[1.0, 0.0], [0.0, 1.0]];
    }
    let count = points.len() as f64;
    let mean = [
        points.iter().map(|p| p[0]).sum::<f64>() / count,
        points.iter().map(|p| p[1]).sum::<f64>() / count,
    ];
    let mut cov = [[0.0; 2]; 2];
    for p in points {
        let d = [p[0] - mean[0], p[1] - mean[1]];
        for r in 0..2 {
            for c in 0..2 {
                cov[r][c] += d[r] * d[c] / count;
            }
        }
    }
    let (_, mut axes) = symmetric_eigen_2x2(cov);
    for axis in &mut axes {
        let lead = if axis[0].abs() >= axis[1].abs() {
            axis[0]
        } else {
            axis[1]
        };
        if lead < 0.0 {
            *axis = [-axis[0], -axis[1]];
        }
    }
    axes
}

/// The least-squares affine map `target ≈ A source + c` and its R² (the fraction of the
/// target's variance it explains).
pub fn align(source: &[[f64; 2]], target: &[[f64; 2]]) -> Result<(Affine2, f64), ComputeError> {
    if source.len() != target.len() || source.len() < 3 {
        return Err(ComputeError::invalid(
            "latents",
            "alignment needs at least three matching points",
        ));
    }
    // Normal equations for [x, y, 1] → target, both target columns at once.
    let mut gram = [0.0; 9];
    let mut rhs = [0.0; 6];
    for (s, t) in source.iter().zip(target) {
        let x = [s[0], s[1], 1.0];
        for r in 0..3 {
            for c in 0..3 {
                gram[3 * r + c] += x[r] * x[c];
            }
            rhs[2 * r] += x[r] * t[0];
            rhs[2 * r + 1] += x[r] * t[1];
        }
    }
    let w = solve(&gram, &rhs, 3, 2)?;
    let map = Affine2 {
        matrix: [[w[0], w[2]], [w[1], w[3]]],
        offset: [w[4], w[5]],
    };
    let count = target.len() as f64;
    let mean = [
        target.iter().map(|p| p[0]).sum::<f64>() / count,
        target.iter().map(|p| p[1]).sum::<f64>() / count,
    ];
    let (mut residual, mut total) = (0.0, 0.0);
    for (s, t) in source.iter().zip(target) {
        let fit = map.apply(*s);
        for d in 0..2 {
            residual += (t[d] - fit[d]).powi(2);
            total += (t[d] - mean[d]).powi(2);
        }
    }
    let r2 = if total > 0.0 {
        1.0 - residual / total
    } else {
        0.0
    };
    Ok((map, r2))
}

/// The flow `flow` (model frame) seen in the frame `to_display`: F′(z′) = A F(A⁻¹(z′ − c))·scale.
pub fn transformed_flow(
    flow: impl Fn([f64; 2]) -> [f64; 2],
    to_display: Affine2,
    scale: f64,
) -> Result<impl Fn([f64; 2]) -> [f64; 2], ComputeError> {
    let back = to_display.inverse()?;
    Ok(move |z: [f64; 2]| {
        let f = to_display.apply_vector(flow(back.apply(z)));
        [f[0] * scale, f[1] * scale]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::jacobian;
    use crate::linalg::eigenvalues_2x2;
    use crate::planted::PlantedFlow;

    #[test]
    fn alignment_recovers_a_planted_affine_map_exactly() {
        let truth = Affine2 {
            matrix: [[0.3, -1.2], [2.0, 0.5]],
            offset: [0.7, -0.4],
        };
        let source: Vec<[f64; 2]> = (0..20)
            .map(|k| {
                let t = f64::from(k);
                [(0.37 * t).sin() * 2.0, (0.11 * t * t).cos()]
            })
            .collect();
        let target: Vec<[f64; 2]> = source.iter().map(|&s| truth.apply(s)).collect();
        let (map, r2) = align(&source, &target).unwrap();
        for r in 0..2 {
            for c in 0..2 {
                assert!((map.matrix[r][c] - truth.matrix[r][c]).abs() < 1e-9);
            }
            assert!((map.offset[r] - truth.offset[r]).abs() < 1e-9);
        }
        assert!((r2 - 1.0).abs() < 1e-12);
        let back = map.inverse().unwrap();
        let p = back.apply(map.apply([0.25, -3.0]));
        assert!((p[0] - 0.25).abs() < 1e-12 && (p[1] + 3.0).abs() < 1e-12);
    }

    #[test]
    fn reframing_moves_fixed_points_and_keeps_eigenvalues() {
        let planted = PlantedFlow::default();
        let frame = Affine2 {
            matrix: [[0.0, 2.0], [-1.5, 0.5]],
            offset: [1.0, 2.0],
        };
        let flow = transformed_flow(|z| planted.autonomous(z), frame, 10.0).unwrap();
        let attractor = planted.point_attractors()[1];
        let moved = frame.apply(attractor);
        let at = flow(moved);
        assert!(at[0].abs() < 1e-12 && at[1].abs() < 1e-12);
        let original = eigenvalues_2x2(planted.jacobian(attractor));
        let seen = eigenvalues_2x2(jacobian(&flow, moved, 1e-6));
        for k in 0..2 {
            assert!(
                (seen[k].0 - 10.0 * original[k].0).abs() < 1e-4,
                "{seen:?} {original:?}"
            );
        }
    }

    #[test]
    fn orthogonalised_readout_makes_readout_rows_orthonormal() {
        // C [2, 3]; in the new frame z′ = A z the readout is C′ = A⁻ᵀ C with C′ C′ᵀ = I.
        let c = [1.0, 2.0, -0.5, 0.3, -1.0, 2.0];
        let points: Vec<[f64; 2]> = (0..30)
            .map(|k| {
                let t = f64::from(k) * 0.2;
                [t.cos() * 3.0, t.sin()]
            })
            .collect();
        let a = orthogonalised_readout(&c, &points);
        let inv = a.inverse().unwrap().matrix;
        // C′_{r,n} = Σ_k inv[k][r] C_{k,n}.
        let cp: Vec<[f64; 3]> = (0..2)
            .map(|r| {
                let mut row = [0.0; 3];
                for (n, value) in row.iter_mut().enumerate() {
                    *value = inv[0][r] * c[n] + inv[1][r] * c[3 + n];
                }
                row
            })
            .collect();
        for r in 0..2 {
            for s in 0..2 {
                let d: f64 = (0..3).map(|n| cp[r][n] * cp[s][n]).sum();
                let expected = if r == s { 1.0 } else { 0.0 };
                assert!((d - expected).abs() < 1e-9, "{r}{s}: {d}");
            }
        }
    }
}
