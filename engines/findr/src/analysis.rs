//! Fixed points of a 2-D flow F(z): damped Newton (Levenberg–Marquardt) from a grid of starts,
//! each converged point labelled by the eigenvalues of its Jacobian (central differences).
//!
//! A line attractor shows up as many marginal points along the line (one eigenvalue near zero,
//! the other negative); point attractors as stable ones.

use serde::{Deserialize, Serialize};

use benchtop_compute::{CancelToken, ComputeError};

use crate::linalg::eigenvalues_2x2;

/// Parameters of the fixed-point search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FixedPointParams {
    /// Starts per axis on an even grid over the box (total: the square of this).
    pub starts_per_axis: usize,
    /// Lower corner of the box of starts, latent units.
    pub box_min: [f64; 2],
    /// Upper corner of the box of starts, latent units.
    pub box_max: [f64; 2],
    /// A point is fixed when |F(z)| is below this (units of F).
    pub tolerance: f64,
    /// Newton iterations per start.
    pub max_iterations: usize,
    /// Longest Newton step, latent units.
    pub max_step: f64,
    /// Converged points closer than this are merged, latent units.
    pub merge_radius: f64,
    /// Eigenvalues with |real part| below this count as zero (marginal), units of F per latent unit.
    pub marginal_tolerance: f64,
    /// Step of the central differences for the Jacobian, latent units.
    pub jacobian_step: f64,
}

impl Default for FixedPointParams {
    fn default() -> Self {
        Self {
            starts_per_axis: 12,
            box_min: [-3.0, -3.0],
            box_max: [3.0, 3.0],
            tolerance: 1e-9,
            max_iterations: 200,
            max_step: 0.5,
            merge_radius: 1e-3,
            marginal_tolerance: 1e-2,
            jacobian_step: 1e-5,
        }
    }
}

impl FixedPointParams {
    /// Checks every parameter; errors name the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(1..=1000).contains(&self.starts_per_axis) {
            return Err(ComputeError::invalid("starts_per_axis", "choose 1 to 1000"));
        }
        for d in 0..2 {
            let (lo, hi) = (self.box_min[d], self.box_max[d]);
            if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                return Err(ComputeError::invalid(
                    "box_min",
                    "the box corners must be finite with box_min ≤ box_max",
                ));
            }
        }
        let positive = [
            ("tolerance", self.tolerance),
            ("max_step", self.max_step),
            ("merge_radius", self.merge_radius),
            ("marginal_tolerance", self.marginal_tolerance),
            ("jacobian_step", self.jacobian_step),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(ComputeError::invalid(name, "must be a positive number"));
            }
        }
        if self.max_iterations == 0 {
            return Err(ComputeError::invalid(
                "max_iterations",
                "must be at least 1",
            ));
        }
        Ok(())
    }
}

/// The stability of a fixed point from its Jacobian eigenvalues.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stability {
    /// Both real parts negative: an attractor.
    Stable,
    /// Both real parts positive: a repeller.
    Unstable,
    /// One positive, one negative real part.
    Saddle,
    /// A real part within the marginal tolerance of zero (e.g. a point on a line attractor).
    Marginal,
}

/// The label for eigenvalues `(re, im)` with zero tolerance `tolerance`.
pub fn classify(eigenvalues: [(f64, f64); 2], tolerance: f64) -> Stability {
    let re = [eigenvalues[0].0, eigenvalues[1].0];
    if re.iter().any(|r| r.abs() < tolerance) {
        Stability::Marginal
    } else if re.iter().all(|r| *r < 0.0) {
        Stability::Stable
    } else if re.iter().all(|r| *r > 0.0) {
        Stability::Unstable
    } else {
        Stability::Saddle
    }
}

/// One fixed point found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FixedPoint {
    /// Position, latent units.
    pub z: [f64; 2],
    /// Jacobian eigenvalues (real, imaginary), ordered by real part.
    pub eigenvalues: [(f64, f64); 2],
    /// The stability label.
    pub stability: Stability,
    /// |F(z)| at the point.
    pub residual: f64,
    /// How many starts converged here.
    pub starts: usize,
}

/// A point at (x, 0) of the given stability (its eigenvalues are placeholders), for tests of
/// matching and counting.
#[cfg(test)]
pub(crate) fn test_point(x: f64, stability: Stability) -> FixedPoint {
    FixedPoint {
        z: [x, 0.0],
        eigenvalues: [(-1.0, 0.0), (-1.0, 0.0)],
        stability,
        residual: 0.0,
        starts: 1,
    }
}

/// The Jacobian of `flow` at `z` by central differences with step `h` (row-major).
pub fn jacobian(flow: &impl Fn([f64; 2]) -> [f64; 2], z: [f64; 2], h: f64) -> [[f64; 2]; 2] {
    let mut j = [[0.0; 2]; 2];
    for c in 0..2 {
        let (mut plus, mut minus) = (z, z);
        plus[c] += h;
        minus[c] -= h;
        let (fp, fm) = (flow(plus), flow(minus));
        for r in 0..2 {
            j[r][c] = (fp[r] - fm[r]) / (2.0 * h);
        }
    }
    j
}

fn norm(v: [f64; 2]) -> f64 {
    v[0].hypot(v[1])
}

/// Runs damped Newton from `start`; returns the converged point, or None.
fn newton(
    flow: &impl Fn([f64; 2]) -> [f64; 2],
    start: [f64; 2],
    params: &FixedPointParams,
) -> Option<[f64; 2]> {
    let mut z = start;
    let mut f = flow(z);
    for _ in 0..params.max_iterations {
        let residual = norm(f);
        if !residual.is_finite() {
            return None;
        }
        if residual < params.tolerance {
            return Some(z);
        }
        let j = jacobian(flow, z, params.jacobian_step);
        // Levenberg–Marquardt step: (JᵀJ + μI) δ = −Jᵀ F.
        let jtj = [
            [
                j[0][0] * j[0][0] + j[1][0] * j[1][0],
                j[0][0] * j[0][1] + j[1][0] * j[1][1],
            ],
            [
                j[0][1] * j[0][0] + j[1][1] * j[1][0],
                j[0][1] * j[0][1] + j[1][1] * j[1][1],
            ],
        ];
        let jtf = [
            j[0][0] * f[0] + j[1][0] * f[1],
            j[0][1] * f[0] + j[1][1] * f[1],
        ];
        let mu = 1e-12 * (jtj[0][0] + jtj[1][1]) + 1e-300;
        let a = [[jtj[0][0] + mu, jtj[0][1]], [jtj[1][0], jtj[1][1] + mu]];
        let det = a[0][0] * a[1][1] - a[0][1] * a[1][0];
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        let mut step = [
            -(a[1][1] * jtf[0] - a[0][1] * jtf[1]) / det,
            -(a[0][0] * jtf[1] - a[1][0] * jtf[0]) / det,
        ];
        let length = norm(step);
        if !length.is_finite() {
            return None;
        }
        if length > params.max_step {
            step = [
                step[0] * params.max_step / length,
                step[1] * params.max_step / length,
            ];
        }
        // Backtrack until the residual falls.
        let mut accepted = false;
        for _ in 0..30 {
            let trial = [z[0] + step[0], z[1] + step[1]];
            let f_trial = flow(trial);
            if norm(f_trial) < residual {
                z = trial;
                f = f_trial;
                accepted = true;
                break;
            }
            step = [0.5 * step[0], 0.5 * step[1]];
        }
        if !accepted {
            return None;
        }
    }
    (norm(f) < params.tolerance).then_some(z)
}

/// Finds the fixed points of `flow` from a grid of starts over the box, merged and labelled,
/// ordered by their first coordinate.
pub fn find_fixed_points(
    flow: impl Fn([f64; 2]) -> [f64; 2],
    params: &FixedPointParams,
    cancel: &CancelToken,
) -> Result<Vec<FixedPoint>, ComputeError> {
    params.validate()?;
    let n = params.starts_per_axis;
    let coordinate = |d: usize, k: usize| {
        if n == 1 {
            0.5 * (params.box_min[d] + params.box_max[d])
        } else {
            let t = k as f64 / (n - 1) as f64;
            params.box_min[d] + t * (params.box_max[d] - params.box_min[d])
        }
    };
    let mut found: Vec<FixedPoint> = Vec::new();
    for a in 0..n {
        cancel.check()?;
        for b in 0..n {
            let start = [coordinate(0, a), coordinate(1, b)];
            let Some(z) = newton(&flow, start, params) else {
                continue;
            };
            if let Some(existing) = found
                .iter_mut()
                .find(|p| norm([p.z[0] - z[0], p.z[1] - z[1]]) < params.merge_radius)
            {
                existing.starts += 1;
                continue;
            }
            let eigenvalues = eigenvalues_2x2(jacobian(&flow, z, params.jacobian_step));
            found.push(FixedPoint {
                z,
                eigenvalues,
                stability: classify(eigenvalues, params.marginal_tolerance),
                residual: norm(flow(z)),
                starts: 1,
            });
        }
    }
    found.sort_by(|p, q| p.z[0].total_cmp(&q.z[0]).then(p.z[1].total_cmp(&q.z[1])));
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planted::PlantedFlow;

    #[test]
    fn finds_the_planted_attractors_and_the_line() {
        let flow = PlantedFlow::default();
        let params = FixedPointParams::default();
        let points =
            find_fixed_points(|z| flow.autonomous(z), &params, &CancelToken::new()).unwrap();
        let stable: Vec<&FixedPoint> = points
            .iter()
            .filter(|p| p.stability == Stability::Stable)
            .collect();
        assert_eq!(stable.len(), 2, "{points:#?}");
        let expected = flow.attractor_eigenvalues();
        for (point, planted) in stable.iter().zip([[-1.0, 0.0], [1.0, 0.0]]) {
            assert!((point.z[0] - planted[0]).abs() < 1e-6, "{point:?}");
            assert!(point.z[1].abs() < 1e-6, "{point:?}");
            for (eigenvalue, planted) in point.eigenvalues.iter().zip(expected) {
                assert!((eigenvalue.0 - planted).abs() < 1e-5, "{point:?}");
                assert_eq!(eigenvalue.1, 0.0);
            }
        }
        // Everything else is on the line (y = 0) and marginal: ≈ 0 along it, −a across it.
        let marginal: Vec<&FixedPoint> = points
            .iter()
            .filter(|p| p.stability != Stability::Stable)
            .collect();
        assert!(!marginal.is_empty());
        for point in &points {
            assert!(point.z[1].abs() < 1e-6, "{point:?}");
            assert!(point.residual < params.tolerance);
        }
        for point in &marginal {
            assert_eq!(point.stability, Stability::Marginal, "{point:?}");
            assert!(
                (point.eigenvalues[0].0 + flow.across_decay).abs() < 1e-2,
                "{point:?}"
            );
            assert!(point.eigenvalues[1].0.abs() < 1e-2, "{point:?}");
        }
        assert!(
            marginal.iter().any(|p| p.z[0] > 2.0) && marginal.iter().any(|p| p.z[0] < -2.0),
            "line points far from the bumps on both sides: {points:#?}"
        );
    }

    #[test]
    fn labels_linear_flows() {
        let params = FixedPointParams {
            starts_per_axis: 3,
            ..FixedPointParams::default()
        };
        let cancel = CancelToken::new();
        type Flow = fn([f64; 2]) -> [f64; 2];
        let cases: [(Flow, Stability); 4] = [
            (|z| [z[0] - 0.5, -(z[1] + 0.25)], Stability::Saddle),
            (
                |z| [-z[1] - 0.1 * z[0], z[0] - 0.1 * z[1]],
                Stability::Stable,
            ),
            (|z| [2.0 * z[0], z[1]], Stability::Unstable),
            (|z| [-z[0], 0.0 * z[1]], Stability::Marginal),
        ];
        for (flow, label) in cases {
            let points = find_fixed_points(flow, &params, &cancel).unwrap();
            assert!(points.iter().all(|p| p.stability == label), "{points:?}");
            if label != Stability::Marginal {
                assert_eq!(points.len(), 1, "{points:?}");
            }
        }
        let spiral = find_fixed_points(
            |z| [-z[1] - 0.1 * z[0], z[0] - 0.1 * z[1]],
            &params,
            &cancel,
        )
        .unwrap();
        let e = spiral[0].eigenvalues;
        assert!(
            (e[0].0 + 0.1).abs() < 1e-8 && (e[1].1 - 1.0).abs() < 1e-8,
            "{e:?}"
        );
        let saddle = find_fixed_points(|z| [z[0] - 0.5, -(z[1] + 0.25)], &params, &cancel).unwrap();
        assert!((saddle[0].z[0] - 0.5).abs() < 1e-9 && (saddle[0].z[1] + 0.25).abs() < 1e-9);
        assert_eq!(saddle[0].starts, 9);
    }

    #[test]
    fn validate_names_the_bad_key() {
        let bad = FixedPointParams {
            tolerance: -1.0,
            ..FixedPointParams::default()
        };
        assert!(
            matches!(bad.validate(), Err(ComputeError::InvalidParameter { name, .. }) if name == "tolerance")
        );
    }
}
