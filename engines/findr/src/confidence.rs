//! Confidence in fixed points from restarts: each restart (another fit seed on the same trials
//! and folds) is mapped into the reported fit's display frame, and a reported fixed point counts
//! the fits that have a fixed point of the same stability within a match radius of it.

use crate::analysis::FixedPoint;

/// How many of the fits found each point of `reported`: the reported fit itself, plus every
/// entry of `restarts` (fixed points in the same frame) with a point of the same stability
/// within `radius`. A restart counts at most once per reported point.
pub fn support_counts(
    reported: &[FixedPoint],
    restarts: &[Vec<FixedPoint>],
    radius: f64,
) -> Vec<usize> {
    reported
        .iter()
        .map(|point| {
            1 + restarts
                .iter()
                .filter(|found| {
                    found.iter().any(|other| {
                        other.stability == point.stability
                            && (other.z[0] - point.z[0]).hypot(other.z[1] - point.z[1]) <= radius
                    })
                })
                .count()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Stability;

    fn point(x: f64, stability: Stability) -> FixedPoint {
        FixedPoint {
            z: [x, 0.0],
            eigenvalues: [(-1.0, 0.0), (-1.0, 0.0)],
            stability,
            residual: 0.0,
            starts: 1,
        }
    }

    #[test]
    fn restarts_count_matching_points_of_the_same_stability_once() {
        let reported = [point(1.0, Stability::Stable), point(0.0, Stability::Saddle)];
        let restarts = vec![
            // Both points, the stable one twice (counted once).
            vec![
                point(1.05, Stability::Stable),
                point(0.95, Stability::Stable),
                point(0.02, Stability::Saddle),
            ],
            // Near the saddle but stable: no match; the stable point too far.
            vec![
                point(0.01, Stability::Stable),
                point(1.5, Stability::Stable),
            ],
        ];
        assert_eq!(support_counts(&reported, &restarts, 0.1), vec![2, 2]);
        assert_eq!(support_counts(&reported, &restarts, 0.6), vec![3, 2]);
        assert_eq!(support_counts(&reported, &[], 0.1), vec![1, 1]);
    }
}
