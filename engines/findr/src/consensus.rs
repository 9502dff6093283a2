//! Which of several fits to report: the one whose attractors the other fits agree with most,
//! the validation score breaking ties.
//!
//! Fits from different seeds can score alike on validation data and still differ in structure
//! (a double well fitted with one attractor by one seed and with both by the two others). The
//! best validation score alone then reports a seed's accident; the fit the others agree with is
//! the reproducible answer. Each fit is analysed as it would be reported (its display frame and
//! sample zone, the other fits' fixed points mapped into it), so the agreement that chooses it
//! is the one its result shows. The pipeline adds the fits' agreement on whether the sample
//! zone has a slow direction ([`crate::zone_shape::shape_agreement`]), which fixed points
//! cannot show.

use crate::analysis::{FixedPoint, Stability};
use crate::confidence::{MissingAttractor, confirmed};

/// How well the other fits agree with a fit's attractors: +1 for each of its stable or
/// marginal `points` that most of the `fits` find (`support[k]` of them), −1 for each that they
/// do not, and −1 for each attractor it lacks that at least half of the fits find (`missing`).
/// Saddles do not count, as in [`crate::result::FindrResult::unconfirmed_reasons`].
pub fn agreement(
    points: &[FixedPoint],
    support: &[usize],
    missing: &[MissingAttractor],
    fits: usize,
) -> i64 {
    let found: i64 = points
        .iter()
        .zip(support)
        .filter(|(p, _)| matches!(p.stability, Stability::Stable | Stability::Marginal))
        .map(|(_, &count)| if confirmed(count, fits) { 1 } else { -1 })
        .sum();
    let lacking = missing.iter().filter(|m| 2 * m.found_by >= fits).count();
    found - i64::try_from(lacking).unwrap_or(i64::MAX)
}

/// The index of the fit to report: the highest of `agreements`, then the lowest of the
/// validation `scores` (lower is better); 0 when there is none.
pub fn choose(agreements: &[i64], scores: &[f64]) -> usize {
    (0..agreements.len().min(scores.len()))
        .max_by(|&a, &b| {
            agreements[a]
                .cmp(&agreements[b])
                .then_with(|| scores[b].total_cmp(&scores[a]))
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::test_point as point;

    #[test]
    fn agreement_counts_attractors_and_what_the_fit_lacks() {
        let both = [
            point(-1.0, Stability::Stable),
            point(0.0, Stability::Saddle),
            point(1.0, Stability::Marginal),
        ];
        // Both attractors found by 2 of 3 fits; the saddle by itself alone (not counted).
        assert_eq!(agreement(&both, &[2, 1, 2], &[], 3), 2);
        // One attractor most fits find, one they do not.
        assert_eq!(agreement(&both, &[3, 3, 1], &[], 3), 0);
        // One attractor, and one both others find that it lacks.
        let one = [point(1.0, Stability::Stable)];
        let lacks = [MissingAttractor {
            z: [-1.0, 0.0],
            found_by: 2,
        }];
        assert_eq!(agreement(&one, &[3], &lacks, 3), 0);
        // An attractor only one other fit of three finds is no reproach.
        let rare = [MissingAttractor {
            z: [-1.0, 0.0],
            found_by: 1,
        }];
        assert_eq!(agreement(&one, &[3], &rare, 3), 1);
        // One fit confirms nothing.
        assert_eq!(agreement(&one, &[1], &[], 1), -1);
    }

    #[test]
    fn the_most_agreed_fit_is_chosen_and_the_score_breaks_ties() {
        assert_eq!(choose(&[0, 2, 2], &[1.0, 1.2, 1.1]), 2);
        assert_eq!(choose(&[0, 2, 1], &[1.0, 1.2, 1.1]), 1);
        assert_eq!(choose(&[-1], &[5.0]), 0);
        assert_eq!(choose(&[], &[]), 0);
    }
}
