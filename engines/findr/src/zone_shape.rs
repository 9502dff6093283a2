//! The shape of a learned flow where the data go: whether the sample zone has a slow direction
//! (a line attractor or a slow manifold) or attracts about equally in every direction (isolated
//! attractors), read from the median over the zone of the flow's Jacobian eigenvalues.
//!
//! Fixed points alone cannot tell a line attractor from a point attractor: a line learned from
//! finite data breaks into marginal points that move from seed to seed, and a flow with no slow
//! direction can still have one stable point on the line's span. Fits from different seeds that
//! disagree on whether the zone has a slow direction disagree on the structure, whatever their
//! fixed points say (docs/benchmarks.md, "FINDR robustness": on a planted line attractor one
//! seed learned a point attractor whose stable point another seed shared at the end of its
//! line, so the points agreed and only the zone's eigenvalues showed the disagreement). The
//! shape also counts when choosing the fit to report ([`shape_agreement`]).

use serde::{Deserialize, Serialize};

use crate::field::FlowGrid;
use crate::linalg::eigenvalues_2x2;

/// A zone whose slow eigenvalue is at most this fraction of the fast one in magnitude (and the
/// fast one negative) has a slow direction: a line attractor or a slow manifold.
pub const SLOW_DIRECTION_RATIO: f64 = 1.0 / 3.0;

/// A zone whose slow eigenvalue is at least this fraction of the fast one in magnitude has no
/// slow direction. Between the two thresholds a fit takes neither side, so fits near one
/// threshold do not disagree over noise.
pub const NO_SLOW_DIRECTION_RATIO: f64 = 2.0 / 3.0;

/// The median over the sample zone of the learned flow's Jacobian eigenvalues, real parts in
/// the flow's units (1/s for the display flow), slow then fast by magnitude.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ZoneEigenvalues {
    /// The median of each zone node's smaller-magnitude eigenvalue.
    pub slow: f64,
    /// The median of each zone node's larger-magnitude eigenvalue.
    pub fast: f64,
}

/// What [`ZoneEigenvalues`] say about the flow's shape in the zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneShape {
    /// One direction much slower than the other, which attracts: a line attractor.
    SlowDirection,
    /// Both directions of comparable speed: isolated points.
    NoSlowDirection,
    /// In between the two thresholds, or the fast direction repels.
    Undecided,
}

impl ZoneEigenvalues {
    /// The median over the nodes of `grid` for which `in_zone(cell)` holds and which have four
    /// neighbours on the grid, each node's Jacobian from central differences; `None` when no
    /// node qualifies.
    pub fn of(grid: &FlowGrid, in_zone: impl Fn(usize) -> bool) -> Option<Self> {
        let (nx, ny) = (grid.xs.len(), grid.ys.len());
        let (mut slow, mut fast) = (Vec::new(), Vec::new());
        for j in 1..ny.saturating_sub(1) {
            for i in 1..nx.saturating_sub(1) {
                if !in_zone(j * nx + i) {
                    continue;
                }
                let at = |a: usize, b: usize| grid.vectors[b * nx + a];
                let (dx, dy) = (
                    grid.xs[i + 1] - grid.xs[i - 1],
                    grid.ys[j + 1] - grid.ys[j - 1],
                );
                let (right, left) = (at(i + 1, j), at(i - 1, j));
                let (up, down) = (at(i, j + 1), at(i, j - 1));
                let jacobian = [
                    [(right[0] - left[0]) / dx, (up[0] - down[0]) / dy],
                    [(right[1] - left[1]) / dx, (up[1] - down[1]) / dy],
                ];
                let [(a, _), (b, _)] = eigenvalues_2x2(jacobian);
                let (s, f) = if a.abs() <= b.abs() { (a, b) } else { (b, a) };
                slow.push(s);
                fast.push(f);
            }
        }
        let median = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v.get(v.len() / 2).copied()
        };
        Some(Self {
            slow: median(slow)?,
            fast: median(fast)?,
        })
    }

    /// The flow's shape in the zone, by [`SLOW_DIRECTION_RATIO`] and
    /// [`NO_SLOW_DIRECTION_RATIO`].
    pub fn shape(self) -> ZoneShape {
        let ratio = self.slow.abs() / self.fast.abs();
        if !ratio.is_finite() || self.fast >= 0.0 {
            ZoneShape::Undecided
        } else if ratio <= SLOW_DIRECTION_RATIO {
            ZoneShape::SlowDirection
        } else if ratio >= NO_SLOW_DIRECTION_RATIO {
            ZoneShape::NoSlowDirection
        } else {
            ZoneShape::Undecided
        }
    }
}

/// Why fits disagree on the zone's shape, when they do: `by_fit[k]` is fit k's zone
/// eigenvalues (`None` where it has no zone), `kept` the reported fit. Some fits with a slow
/// direction and some without are a disagreement, described from the reported fit's side.
pub fn shape_disagreement(by_fit: &[Option<ZoneEigenvalues>], kept: usize) -> Option<String> {
    let shapes: Vec<Option<ZoneShape>> = by_fit
        .iter()
        .map(|e| e.map(ZoneEigenvalues::shape))
        .collect();
    let count = |shape| shapes.iter().filter(|s| **s == Some(shape)).count();
    let (slow, none) = (
        count(ZoneShape::SlowDirection),
        count(ZoneShape::NoSlowDirection),
    );
    if slow == 0 || none == 0 {
        return None;
    }
    let describe = |e: &ZoneEigenvalues| format!("λ ≈ {:.1}, {:.1}/s", e.slow, e.fast);
    let example = |shape| {
        shapes
            .iter()
            .zip(by_fit)
            .find(|(s, _)| **s == Some(shape))
            .and_then(|(_, e)| e.as_ref())
            .map(describe)
            .unwrap_or_default()
    };
    let fits = by_fit.len();
    Some(
        match (
            shapes.get(kept).copied().flatten(),
            by_fit.get(kept).copied().flatten(),
        ) {
            (Some(ZoneShape::SlowDirection), Some(own)) => format!(
                "the shown fit has a slow direction in the sample zone ({}, a line attractor or slow \
             manifold) but {none} of {fits} fits have none ({})",
                describe(&own),
                example(ZoneShape::NoSlowDirection)
            ),
            (Some(ZoneShape::NoSlowDirection), Some(own)) => format!(
                "{slow} of {fits} fits have a slow direction in the sample zone ({}, a line attractor \
             or slow manifold) that the shown fit lacks ({})",
                example(ZoneShape::SlowDirection),
                describe(&own)
            ),
            _ => format!(
                "{slow} of {fits} fits have a slow direction in the sample zone ({}) and {none} have \
             none ({})",
                example(ZoneShape::SlowDirection),
                example(ZoneShape::NoSlowDirection)
            ),
        },
    )
}

/// How the fits agree with fit `k` on the zone's shape, for choosing which fit to report
/// ([`crate::consensus`]): +1 when more than half of the fits share its slow direction (or its
/// lack of one), −1 when more than half take the other side, 0 otherwise (its own shape
/// undecided, or no majority).
pub fn shape_agreement(by_fit: &[Option<ZoneEigenvalues>], k: usize) -> i64 {
    let shapes: Vec<Option<ZoneShape>> = by_fit
        .iter()
        .map(|e| e.map(ZoneEigenvalues::shape))
        .collect();
    let opposite = match shapes.get(k).copied().flatten() {
        Some(ZoneShape::SlowDirection) => ZoneShape::NoSlowDirection,
        Some(ZoneShape::NoSlowDirection) => ZoneShape::SlowDirection,
        _ => return 0,
    };
    let own = shapes[k];
    let count = |shape: Option<ZoneShape>| shapes.iter().filter(|s| **s == shape).count();
    let fits = by_fit.len();
    if 2 * count(own) > fits {
        1
    } else if 2 * count(Some(opposite)) > fits {
        -1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::flow_grid;

    /// The zones of the robustness table's line attractor: one fit with the line, one without,
    /// and one in between the thresholds.
    const LINE: Option<ZoneEigenvalues> = Some(ZoneEigenvalues {
        slow: -0.5,
        fast: -5.1,
    });
    const POINT: Option<ZoneEigenvalues> = Some(ZoneEigenvalues {
        slow: -5.0,
        fast: -5.1,
    });
    const BETWEEN: Option<ZoneEigenvalues> = Some(ZoneEigenvalues {
        slow: -2.5,
        fast: -5.0,
    });

    fn linear(a: f64, b: f64) -> FlowGrid {
        flow_grid(|z| [a * z[0], b * z[1]], [-1.0, -1.0], [1.0, 1.0], 9).unwrap()
    }

    #[test]
    fn zone_eigenvalues_of_a_linear_flow_are_its_own() {
        let grid = linear(-0.5, -5.0);
        let e = ZoneEigenvalues::of(&grid, |_| true).unwrap();
        assert!(
            (e.slow + 0.5).abs() < 1e-9 && (e.fast + 5.0).abs() < 1e-9,
            "{e:?}"
        );
        assert_eq!(e.shape(), ZoneShape::SlowDirection);
        // Only the zone counts: nothing in it, nothing to say.
        assert!(ZoneEigenvalues::of(&grid, |_| false).is_none());
        let point = ZoneEigenvalues::of(&linear(-4.0, -5.0), |_| true).unwrap();
        assert_eq!(point.shape(), ZoneShape::NoSlowDirection);
        let between = ZoneEigenvalues::of(&linear(-2.5, -5.0), |_| true).unwrap();
        assert_eq!(between.shape(), ZoneShape::Undecided);
        // A repelling fast direction is not a line attractor.
        let saddle = ZoneEigenvalues::of(&linear(0.1, 5.0), |_| true).unwrap();
        assert_eq!(saddle.shape(), ZoneShape::Undecided);
    }

    #[test]
    fn fits_with_and_without_a_slow_direction_disagree() {
        let (line, point, between) = (LINE, POINT, BETWEEN);
        // The robustness table's line attractor: two fits learned a point attractor.
        let shown_point = shape_disagreement(&[line, point, point], 1).unwrap();
        assert!(
            shown_point.starts_with("1 of 3 fits have a slow direction")
                && shown_point.contains("-0.5"),
            "{shown_point}"
        );
        let shown_line = shape_disagreement(&[line, point, point], 0).unwrap();
        assert!(shown_line.contains("2 of 3 fits have none"), "{shown_line}");
        assert!(shape_disagreement(&[line, line, between], 0).is_none());
        assert!(shape_disagreement(&[point, point, None], 0).is_none());
        assert!(shape_disagreement(&[line, None, point], 1).is_some());
        assert!(shape_disagreement(&[], 0).is_none());
    }

    #[test]
    fn the_fits_majority_shape_is_preferred() {
        let (line, point, between) = (LINE, POINT, BETWEEN);
        let fits = [line, line, point];
        assert_eq!(shape_agreement(&fits, 0), 1);
        assert_eq!(shape_agreement(&fits, 2), -1);
        // Undecided or no majority: no say.
        assert_eq!(shape_agreement(&[line, between, point], 0), 0);
        assert_eq!(shape_agreement(&[line, between, point], 1), 0);
        assert_eq!(shape_agreement(&[line, None], 1), 0);
        // One fit alone agrees with itself, as every fit would: ranks do not change.
        assert_eq!(shape_agreement(&[point], 0), 1);
    }
}
