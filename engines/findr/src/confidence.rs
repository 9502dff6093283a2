//! Confidence in fixed points from restarts: each restart (another fit seed on the same trials
//! and folds) is mapped into the reported fit's display frame, and a reported fixed point counts
//! the fits that have a fixed point of the same stability within a match radius of it. A point
//! is confirmed when more than half of the fits find it; attractors that other fits agree on but
//! the reported fit lacks are listed too, so a fit missing half of the structure is flagged.

use serde::{Deserialize, Serialize};

use crate::analysis::{FixedPoint, Stability};

/// Whether `count` of `fits` fits is a majority (more than half; never for a single fit,
/// which has nothing to agree with).
pub fn confirmed(count: usize, fits: usize) -> bool {
    fits > 1 && 2 * count > fits
}

/// An attractor that other fits find but the reported fit does not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MissingAttractor {
    /// The first such point found, in the reported fit's display frame.
    pub z: [f64; 2],
    /// How many of the other fits have a stable or marginal point within the radius.
    pub found_by: usize,
}

fn attracting(point: &FixedPoint) -> bool {
    matches!(point.stability, Stability::Stable | Stability::Marginal)
}

/// The attractors (stable or marginal points) of the other fits in `restarts` with no
/// attracting point of `reported` within `radius`, merged within `radius` and counted once per
/// fit, in the order first found.
pub fn missing_attractors(
    reported: &[FixedPoint],
    restarts: &[Vec<FixedPoint>],
    radius: f64,
) -> Vec<MissingAttractor> {
    let near = |a: [f64; 2], b: [f64; 2]| (a[0] - b[0]).hypot(a[1] - b[1]) <= radius;
    let mut missing: Vec<MissingAttractor> = Vec::new();
    for point in restarts.iter().flatten().filter(|p| attracting(p)) {
        let covered = reported.iter().any(|r| attracting(r) && near(r.z, point.z));
        if !covered && !missing.iter().any(|m| near(m.z, point.z)) {
            let found_by = restarts
                .iter()
                .filter(|found| found.iter().any(|o| attracting(o) && near(o.z, point.z)))
                .count();
            missing.push(MissingAttractor {
                z: point.z,
                found_by,
            });
        }
    }
    missing
}

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
    use crate::analysis::test_point as point;

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

    #[test]
    fn a_majority_confirms_and_one_fit_confirms_nothing() {
        assert!(!confirmed(1, 1));
        assert!(!confirmed(1, 3));
        assert!(confirmed(2, 3));
        assert!(!confirmed(2, 4));
        assert!(confirmed(3, 4));
    }

    #[test]
    fn attractors_the_reported_fit_lacks_are_counted_per_fit() {
        // The reported fit has one attractor at +1; both other fits also find one at −1 (one
        // of them twice, nearby), and one finds a saddle at 0 (not an attractor).
        let reported = [point(1.0, Stability::Stable)];
        let restarts = vec![
            vec![
                point(1.02, Stability::Stable),
                point(-0.98, Stability::Stable),
                point(-1.03, Stability::Marginal),
            ],
            vec![
                point(-1.01, Stability::Stable),
                point(0.0, Stability::Saddle),
            ],
        ];
        let missing = missing_attractors(&reported, &restarts, 0.1);
        assert_eq!(missing.len(), 1, "{missing:?}");
        assert!((missing[0].z[0] + 0.98).abs() < 1e-12);
        assert_eq!(missing[0].found_by, 2);
        // Nothing is missing when the reported fit has both.
        let both = [
            point(1.0, Stability::Stable),
            point(-1.0, Stability::Stable),
        ];
        assert!(missing_attractors(&both, &restarts, 0.1).is_empty());
    }
}
