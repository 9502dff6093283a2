//! A 2-D flow sampled on an even grid: the vectors F(z) and the speed |F(z)|, for quiver plots
//! and speed maps (dark, slow regions are the steady states).

use serde::{Deserialize, Serialize};

use benchtop_compute::ComputeError;

/// A flow field on a grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlowGrid {
    /// Grid coordinates along the first axis.
    pub xs: Vec<f64>,
    /// Grid coordinates along the second axis.
    pub ys: Vec<f64>,
    /// F at (xs[i], ys[j]) stored at j·len(xs) + i, in the flow's units.
    pub vectors: Vec<[f64; 2]>,
    /// |F| at the same places.
    pub speed: Vec<f64>,
}

fn axis(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|k| lo + (hi - lo) * k as f64 / (n - 1) as f64)
        .collect()
}

/// Samples `flow` on an `n × n` grid over `[min, max]` (n ≥ 2).
pub fn flow_grid(
    flow: impl Fn([f64; 2]) -> [f64; 2],
    min: [f64; 2],
    max: [f64; 2],
    n: usize,
) -> Result<FlowGrid, ComputeError> {
    if !(2..=4096).contains(&n) {
        return Err(ComputeError::invalid(
            "grid_size",
            "choose 2 to 4096 points per axis",
        ));
    }
    for d in 0..2 {
        if !(min[d].is_finite() && max[d].is_finite() && min[d] < max[d]) {
            return Err(ComputeError::invalid(
                "grid_min",
                "the grid corners must be finite with min < max",
            ));
        }
    }
    let (xs, ys) = (axis(min[0], max[0], n), axis(min[1], max[1], n));
    let mut vectors = Vec::with_capacity(n * n);
    for &y in &ys {
        for &x in &xs {
            vectors.push(flow([x, y]));
        }
    }
    let speed = vectors.iter().map(|v| v[0].hypot(v[1])).collect();
    Ok(FlowGrid {
        xs,
        ys,
        vectors,
        speed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planted::PlantedFlow;

    #[test]
    fn grid_samples_the_flow_and_is_slow_at_the_attractors() {
        let flow = PlantedFlow::default();
        let grid = flow_grid(|z| flow.autonomous(z), [-2.0, -1.0], [2.0, 1.0], 9).unwrap();
        assert_eq!(
            grid.xs,
            vec![-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0]
        );
        assert_eq!(grid.ys[0], -1.0);
        assert_eq!(grid.vectors.len(), 81);
        let at = |i: usize, j: usize| j * 9 + i;
        // (1, 0) and (−1, 0) are the planted attractors; (2, 0.25) is an ordinary point.
        assert!(grid.speed[at(6, 4)] < 1e-12 && grid.speed[at(2, 4)] < 1e-12);
        assert_eq!(grid.vectors[at(8, 5)], flow.autonomous([2.0, 0.25]));
        assert!(grid.speed[at(8, 5)] > 0.1);
        assert!(flow_grid(|z| z, [0.0, 0.0], [1.0, 1.0], 1).is_err());
    }
}
