//! Which of several fits to report: the one whose fixed-point structure the other fits agree
//! with most, the validation score breaking ties.
//!
//! Fits from different seeds can score alike on validation data and still differ in structure
//! (a double well fitted with one attractor by one seed and with both by the two others). The
//! best validation score alone then reports a seed's accident; the fit the others agree with is
//! the reproducible answer. Each fit's fixed points are found once in its own latent frame and
//! mapped into every other fit's frame by the affine map between their posterior means (fixed
//! points move with an affine change of coordinates and keep their stability).

use benchtop_compute::ComputeError;

use crate::analysis::{FixedPoint, Stability};
use crate::confidence::{confirmed, missing_attractors, support_counts};
use crate::frame::align;

/// One fit's structure in its own latent frame.
#[derive(Clone, Debug, PartialEq)]
pub struct FitStructure {
    /// The posterior means of every valid bin, in one fixed order shared by all fits.
    pub means: Vec<[f64; 2]>,
    /// Fixed points where the data go.
    pub points: Vec<FixedPoint>,
    /// Match radius in this frame, latent units.
    pub radius: f64,
}

/// How well the other fits agree with `reference`'s attractors, given their fixed points
/// mapped into its frame: +1 for each of its stable or marginal points that most fits find, −1
/// for each that they do not, and −1 for each attractor it lacks that at least half of the fits
/// find (saddles do not count, as in [`crate::result::FindrResult::unconfirmed_reasons`]).
pub fn agreement(reference: &FitStructure, others: &[Vec<FixedPoint>]) -> i64 {
    let fits = others.len() + 1;
    let support = support_counts(&reference.points, others, reference.radius);
    let points: i64 = reference
        .points
        .iter()
        .zip(&support)
        .filter(|(p, _)| matches!(p.stability, Stability::Stable | Stability::Marginal))
        .map(|(_, &count)| if confirmed(count, fits) { 1 } else { -1 })
        .sum();
    let missing = missing_attractors(&reference.points, others, reference.radius);
    let lacking = missing.iter().filter(|m| 2 * m.found_by >= fits).count();
    points - i64::try_from(lacking).unwrap_or(i64::MAX)
}

/// The index of the fit to report among `structures` (validation `scores`, lower is better):
/// the highest [`agreement`], then the best score (one fit is chosen as itself); and every
/// fit's agreement.
pub fn choose(
    structures: &[FitStructure],
    scores: &[f64],
) -> Result<(usize, Vec<i64>), ComputeError> {
    if structures.len() != scores.len() || structures.is_empty() {
        return Err(ComputeError::invalid(
            "restarts",
            "one structure and one score per fit are needed",
        ));
    }
    let mut best: Option<(i64, f64, usize)> = None;
    let mut agreements = Vec::with_capacity(structures.len());
    for (k, reference) in structures.iter().enumerate() {
        let mut others = Vec::with_capacity(structures.len() - 1);
        for (j, other) in structures.iter().enumerate() {
            if j != k {
                let (map, _) = align(&other.means, &reference.means)?;
                others.push(
                    other
                        .points
                        .iter()
                        .map(|p| FixedPoint {
                            z: map.apply(p.z),
                            ..p.clone()
                        })
                        .collect(),
                );
            }
        }
        let candidate = (agreement(reference, &others), scores[k], k);
        agreements.push(candidate.0);
        let better = best.is_none_or(|(a, s, _)| {
            candidate.0 > a || (candidate.0 == a && candidate.1.total_cmp(&s).is_lt())
        });
        if better {
            best = Some(candidate);
        }
    }
    Ok((best.map_or(0, |(_, _, k)| k), agreements))
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

    /// Posterior means on a small grid, mapped by z ↦ scale·z + shift.
    fn means(scale: f64, shift: f64) -> Vec<[f64; 2]> {
        (0..25)
            .map(|k| {
                let z = [f64::from(k % 5) - 2.0, f64::from(k / 5) - 2.0];
                [scale * z[0] + shift, scale * z[1] + shift]
            })
            .collect()
    }

    #[test]
    fn the_fit_the_others_agree_with_is_chosen_over_a_better_score() {
        // Fit 0 (best score) has one attractor; fits 1 and 2 have both attractors and the
        // saddle, fit 2 in a frame scaled by 2 and shifted by 0.5 (same structure).
        let one = FitStructure {
            means: means(1.0, 0.0),
            points: vec![point(1.0, Stability::Stable)],
            radius: 0.2,
        };
        let both = |scale: f64, shift: f64| FitStructure {
            means: means(scale, shift),
            points: [-1.0, 0.0, 1.0]
                .iter()
                .zip([Stability::Stable, Stability::Saddle, Stability::Stable])
                .map(|(&x, s)| {
                    let mut p = point(scale * x + shift, s);
                    p.z[1] = shift;
                    p
                })
                .collect(),
            radius: 0.2 * scale,
        };
        let structures = [one, both(1.0, 0.0), both(2.0, 0.5)];
        // Fit 0: its attractor is confirmed (+1) but it lacks the one both others find (−1);
        // fits 1 and 2: both attractors confirmed, the saddle not counted.
        assert_eq!(
            choose(&structures, &[1.0, 1.1, 1.2]).unwrap(),
            (1, vec![0, 2, 2])
        );
        // With equal agreement the score decides.
        let alike = [both(1.0, 0.0), both(2.0, 0.5)];
        assert_eq!(choose(&alike, &[1.3, 1.2]).unwrap().0, 1);
        // One fit confirms nothing, but is chosen as itself.
        assert_eq!(choose(&alike[..1], &[1.0]).unwrap(), (0, vec![-2]));
        assert!(choose(&alike, &[1.0]).is_err());
    }
}
