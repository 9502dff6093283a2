//! Evaluation metrics of MolStitch (paper appendix L.1), all for maximised objectives in [0, 1]:
//! Pareto front, exact hypervolume with reference point 0, the R2 indicator, average top-k of a
//! scalar score, diversity (mean pairwise Tanimoto distance), validity, uniqueness and novelty.

use std::collections::HashSet;

use benchtop_compute::ComputeError;

use crate::objectives::{MORGAN_BITS, MORGAN_RADIUS};
use benchtop_chem::mol::{Fingerprint, Molecule};

/// Number of lattice values per dimension of the R2 weight set (0, 1/9, …, 1).
pub const R2_VALUES_PER_DIM: usize = 10;

/// Checks that `points` are finite and all of dimension `d` (the first point's), returning `d`.
fn dimension(points: &[Vec<f64>]) -> Result<usize, ComputeError> {
    let d = points.first().map_or(0, Vec::len);
    for (i, p) in points.iter().enumerate() {
        if p.len() != d {
            return Err(ComputeError::invalid(
                "points",
                format!("point {i} has {} coordinates, point 0 has {d}", p.len()),
            ));
        }
        if p.iter().any(|x| !x.is_finite()) {
            return Err(ComputeError::invalid(
                "points",
                format!("point {i} has a non-finite coordinate: {p:?}"),
            ));
        }
    }
    Ok(d)
}

/// Whether `a` Pareto-dominates `b` (maximisation): a ≥ b everywhere and a > b somewhere.
pub fn dominates(a: &[f64], b: &[f64]) -> bool {
    let mut strictly = false;
    for (x, y) in a.iter().zip(b) {
        if x < y {
            return false;
        }
        if x > y {
            strictly = true;
        }
    }
    strictly
}

/// Indices of the non-dominated points (maximisation), in input order. Of several identical
/// non-dominated points only the first is kept.
pub fn pareto_front(points: &[Vec<f64>]) -> Result<Vec<usize>, ComputeError> {
    dimension(points)?;
    // In lexicographically descending order no point can dominate an earlier one, so each point
    // only needs checking against the front found so far.
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| {
        points[b]
            .iter()
            .zip(&points[a])
            .map(|(x, y)| x.total_cmp(y))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    let mut front: Vec<usize> = Vec::new();
    for i in order {
        let p = &points[i];
        if !front
            .iter()
            .any(|&j| dominates(&points[j], p) || points[j] == *p)
        {
            front.push(i);
        }
    }
    front.sort_unstable();
    Ok(front)
}

/// Exact hypervolume of `points` with reference point 0, for maximisation: the volume of the
/// union of the boxes [0, p] (coordinates below 0 are clipped to 0). Any dimension; computed on
/// the Pareto front by slicing along the last objective down to an exact 2-D sweep, so it is
/// meant for the fronts of a few hundred points that molecular runs produce.
pub fn hypervolume(points: &[Vec<f64>]) -> Result<f64, ComputeError> {
    let d = dimension(points)?;
    if points.is_empty() || d == 0 {
        return Ok(0.0);
    }
    let clipped: Vec<Vec<f64>> = points
        .iter()
        .map(|p| p.iter().map(|x| x.max(0.0)).collect())
        .collect();
    let front = pareto_front(&clipped)?;
    let front: Vec<Vec<f64>> = front.into_iter().map(|i| clipped[i].clone()).collect();
    Ok(hv_slices(front, d))
}

/// Hypervolume of non-negative points in the first `d` coordinates.
fn hv_slices(mut pts: Vec<Vec<f64>>, d: usize) -> f64 {
    match d {
        0 => 0.0,
        1 => pts.iter().map(|p| p[0]).fold(0.0, f64::max),
        2 => {
            pts.sort_by(|a, b| b[0].total_cmp(&a[0]).then(b[1].total_cmp(&a[1])));
            let (mut area, mut y_max) = (0.0, 0.0);
            for p in &pts {
                if p[1] > y_max {
                    area += p[0] * (p[1] - y_max);
                    y_max = p[1];
                }
            }
            area
        }
        _ => {
            let k = d - 1;
            pts.sort_by(|a, b| b[k].total_cmp(&a[k]));
            let mut volume = 0.0;
            let mut i = 0;
            while i < pts.len() {
                let level = pts[i][k];
                while i < pts.len() && pts[i][k] == level {
                    i += 1;
                }
                let next = pts.get(i).map_or(0.0, |p| p[k]);
                if level > next {
                    volume += (level - next) * hv_slices(pts[..i].to_vec(), k);
                }
            }
            volume
        }
    }
}

/// The R2 weight set of dimension `d`: every vector with coordinates in {0, 1/(n−1), …, 1}
/// (n = `values_per_dim`) that sum to 1, in lexicographic order of the integer lattice.
pub fn simplex_lattice(d: usize, values_per_dim: usize) -> Vec<Vec<f64>> {
    fn rec(d: usize, left: usize, total: usize, prefix: &mut Vec<usize>, out: &mut Vec<Vec<f64>>) {
        if prefix.len() + 1 == d {
            prefix.push(left);
            out.push(prefix.iter().map(|&k| k as f64 / total as f64).collect());
            prefix.pop();
            return;
        }
        for k in 0..=left {
            prefix.push(k);
            rec(d, left - k, total, prefix, out);
            prefix.pop();
        }
    }
    let mut out = Vec::new();
    if d == 0 || values_per_dim < 2 {
        return out;
    }
    let total = values_per_dim - 1;
    rec(d, total, total, &mut Vec::with_capacity(d), &mut out);
    out
}

/// The R2 indicator (lower is better) of `points` against the utopia point 1, as MolStitch's
/// evaluator: Σ_{w∈W} min_x max_i wᵢ |1 − fᵢ(x)|, divided by the Frobenius norm of W, with W
/// the simplex lattice of 10 values per dimension ([`simplex_lattice`]).
pub fn r2_indicator(points: &[Vec<f64>]) -> Result<f64, ComputeError> {
    let d = dimension(points)?;
    if points.is_empty() || d == 0 {
        return Err(ComputeError::invalid(
            "points",
            "R2 needs at least one point",
        ));
    }
    let weights = simplex_lattice(d, R2_VALUES_PER_DIM);
    let norm = weights.iter().flatten().map(|w| w * w).sum::<f64>().sqrt();
    let sum: f64 = weights
        .iter()
        .map(|w| {
            points
                .iter()
                .map(|p| {
                    w.iter()
                        .zip(p)
                        .map(|(wi, fi)| wi * (1.0 - fi).abs())
                        .fold(0.0, f64::max)
                })
                .fold(f64::INFINITY, f64::min)
        })
        .sum();
    Ok(sum / norm)
}

/// Mean of the `k` largest scores (of all of them when there are fewer than `k`); 0 for no
/// scores. MolStitch logs k = 1, 10, 100 of the scalar reward.
pub fn top_k_mean(scores: &[f64], k: usize) -> f64 {
    let mut s: Vec<f64> = scores.iter().copied().filter(|x| !x.is_nan()).collect();
    s.sort_by(|a, b| b.total_cmp(a));
    let n = k.min(s.len());
    if n == 0 {
        return 0.0;
    }
    s[..n].iter().sum::<f64>() / n as f64
}

/// Diversity as TDC's: the mean Tanimoto distance 1 − T(a, b) over all unordered pairs of
/// distinct entries; 0 for fewer than two fingerprints.
pub fn diversity(fingerprints: &[Fingerprint]) -> f64 {
    let n = fingerprints.len();
    if n < 2 {
        return 0.0;
    }
    let mut sum = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            sum += 1.0 - fingerprints[i].tanimoto(&fingerprints[j]);
        }
    }
    sum / (n * (n - 1) / 2) as f64
}

/// The Morgan (r = 2, 2048-bit) fingerprints of the valid SMILES, skipping invalid ones.
pub fn fingerprints<S: AsRef<str>>(smiles: &[S]) -> Vec<Fingerprint> {
    smiles
        .iter()
        .filter_map(|s| {
            Molecule::from_smiles(s.as_ref())
                .and_then(|m| m.morgan_fingerprint(MORGAN_RADIUS, MORGAN_BITS))
                .ok()
        })
        .collect()
}

/// Validity, uniqueness and novelty of a generated set.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct GenerationStats {
    /// Number of generated strings.
    pub generated: usize,
    /// How many RDKit parses.
    pub valid: usize,
    /// Distinct canonical SMILES among the valid ones.
    pub unique: usize,
    /// Distinct valid molecules not in the reference (offline) set.
    pub novel: usize,
    /// valid / generated (0 for an empty set).
    pub validity: f64,
    /// unique / valid (0 when nothing is valid).
    pub uniqueness: f64,
    /// novel / unique (0 when nothing is valid).
    pub novelty: f64,
}

/// Validity, uniqueness and novelty of `generated` against `reference`, a set of RDKit
/// canonical SMILES (e.g. [`benchtop_chem::offline::Dataset::canonical_set`]).
pub fn generation_stats<S: AsRef<str>>(
    generated: &[S],
    reference: &HashSet<String>,
) -> GenerationStats {
    let mut valid = 0;
    let mut unique = HashSet::new();
    for s in generated {
        if let Ok(c) = Molecule::from_smiles(s.as_ref()).and_then(|m| m.canonical_smiles()) {
            valid += 1;
            unique.insert(c);
        }
    }
    let novel = unique.iter().filter(|c| !reference.contains(*c)).count();
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    GenerationStats {
        generated: generated.len(),
        valid,
        unique: unique.len(),
        novel,
        validity: ratio(valid, generated.len()),
        uniqueness: ratio(unique.len(), valid),
        novelty: ratio(novel, unique.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use benchtop_compute::rng::seeded;
    use rand::Rng as _;

    fn hv<P: AsRef<[f64]>>(points: &[P]) -> f64 {
        hypervolume(
            &points
                .iter()
                .map(|p| p.as_ref().to_vec())
                .collect::<Vec<_>>(),
        )
        .unwrap()
    }

    /// Inclusion–exclusion: Σ over non-empty subsets S of (−1)^{|S|+1} Π_i min_{p∈S} p_i.
    fn hv_inclusion_exclusion(points: &[Vec<f64>]) -> f64 {
        let n = points.len();
        let d = points[0].len();
        let mut total = 0.0;
        for mask in 1_u32..(1 << n) {
            let mut corner = vec![f64::INFINITY; d];
            for (i, p) in points.iter().enumerate() {
                if mask >> i & 1 == 1 {
                    for (c, x) in corner.iter_mut().zip(p) {
                        *c = c.min(x.max(0.0));
                    }
                }
            }
            let vol: f64 = corner.iter().product();
            total += if mask.count_ones() % 2 == 1 {
                vol
            } else {
                -vol
            };
        }
        total
    }

    #[test]
    fn hypervolume_known_answers() {
        assert_eq!(hv(&[&[0.3, 0.7]]), 0.3 * 0.7);
        assert_eq!(hv(&[&[1.0, 0.5], &[0.5, 1.0]]), 0.75);
        assert_eq!(hv(&[&[0.5, 0.5, 0.5]]), 0.125);
        assert_eq!(hv(&[&[0.9]]), 0.9);
        assert_eq!(hypervolume(&[]).unwrap(), 0.0);
        // Negative coordinates are clipped to the reference point.
        assert_eq!(hv(&[&[-1.0, 0.5]]), 0.0);
        // Dominated and duplicate points change nothing.
        let base = hv(&[&[1.0, 0.5], &[0.5, 1.0]]);
        assert_eq!(
            hv(&[
                &[1.0, 0.5],
                &[0.4, 0.4],
                &[0.5, 1.0],
                &[0.5, 0.5],
                &[1.0, 0.5]
            ]),
            base
        );
        let three = hv(&[&[1.0, 0.5, 0.2], &[0.5, 1.0, 0.6]]);
        assert_eq!(
            hv(&[&[1.0, 0.5, 0.2], &[0.5, 1.0, 0.6], &[0.1, 0.9, 0.6]]),
            three
        );
        // Two boxes in 3-D: 0.1 + 0.3 − overlap 0.5·0.5·0.2.
        assert!((three - (0.1 + 0.3 - 0.05)).abs() < 1e-15);
        assert!(hypervolume(&[vec![0.1, 0.2], vec![0.3]]).is_err());
        assert!(hypervolume(&[vec![f64::NAN, 0.2]]).is_err());
    }

    #[test]
    fn hypervolume_equals_inclusion_exclusion_on_random_fronts() {
        let mut rng = seeded(11);
        for d in 2..=5 {
            for _ in 0..20 {
                let n = rng.random_range(1..=9);
                let points: Vec<Vec<f64>> = (0..n)
                    .map(|_| (0..d).map(|_| rng.random_range(-0.1..1.0)).collect())
                    .collect();
                let exact = hv_inclusion_exclusion(&points);
                let got = hypervolume(&points).unwrap();
                assert!((got - exact).abs() < 1e-12, "d {d}: {got} vs {exact}");
            }
        }
    }

    #[test]
    fn hypervolume_on_a_grid_equals_the_count_of_dominated_cells() {
        // Points with coordinates k/10: the union of boxes is exactly a set of grid cells.
        let mut rng = seeded(5);
        for _ in 0..10 {
            let points: Vec<Vec<f64>> = (0..25)
                .map(|_| {
                    (0..3)
                        .map(|_| f64::from(rng.random_range(0..=10_u8)) / 10.0)
                        .collect()
                })
                .collect();
            let mut cells = 0;
            for a in 0..10 {
                for b in 0..10 {
                    for c in 0..10 {
                        let centre = [a, b, c].map(|k| (f64::from(k) + 0.5) / 10.0);
                        if points
                            .iter()
                            .any(|p| p.iter().zip(&centre).all(|(x, y)| x >= y))
                        {
                            cells += 1;
                        }
                    }
                }
            }
            let got = hypervolume(&points).unwrap();
            assert!(
                (got - f64::from(cells) / 1000.0).abs() < 1e-12,
                "{got} vs {cells}"
            );
        }
    }

    #[test]
    fn hypervolume_within_grid_bounds_for_continuous_3d_fronts() {
        let mut rng = seeded(9);
        let g = 40;
        for _ in 0..3 {
            let points: Vec<Vec<f64>> = (0..12)
                .map(|_| (0..3).map(|_| rng.random_range(0.0..1.0)).collect())
                .collect();
            let covered = |corner: [f64; 3]| {
                points
                    .iter()
                    .any(|p| p.iter().zip(&corner).all(|(x, y)| x >= y))
            };
            let (mut lower, mut upper) = (0, 0);
            for a in 0..g {
                for b in 0..g {
                    for c in 0..g {
                        let lo = [a, b, c].map(|k| f64::from(k) / f64::from(g));
                        let hi = [a, b, c].map(|k| f64::from(k + 1) / f64::from(g));
                        lower += usize::from(covered(hi));
                        upper += usize::from(covered(lo));
                    }
                }
            }
            let cell = 1.0 / f64::from(g * g * g);
            let got = hypervolume(&points).unwrap();
            assert!(lower as f64 * cell <= got && got <= upper as f64 * cell);
        }
    }

    #[test]
    fn pareto_front_keeps_exactly_the_non_dominated_points() {
        let points = vec![
            vec![0.2, 0.9],
            vec![0.5, 0.5],
            vec![0.4, 0.4],
            vec![0.9, 0.1],
            vec![0.5, 0.5],
            vec![0.9, 0.05],
        ];
        assert_eq!(pareto_front(&points).unwrap(), [0, 1, 3]);
        let mut rng = seeded(3);
        let pts: Vec<Vec<f64>> = (0..200)
            .map(|_| (0..3).map(|_| rng.random_range(0.0..1.0)).collect())
            .collect();
        let front = pareto_front(&pts).unwrap();
        for (i, p) in pts.iter().enumerate() {
            let dominated = pts.iter().any(|q| dominates(q, p));
            assert_eq!(front.contains(&i), !dominated, "point {i}");
        }
    }

    #[test]
    fn r2_known_answers() {
        assert_eq!(simplex_lattice(2, 10).len(), 10);
        assert_eq!(simplex_lattice(3, 10).len(), 55);
        assert_eq!(simplex_lattice(4, 10).len(), 220);
        for w in simplex_lattice(3, 10) {
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
        // A front containing the utopia point has R2 = 0.
        assert_eq!(
            r2_indicator(&[vec![0.2, 0.3], vec![1.0, 1.0]]).unwrap(),
            0.0
        );
        assert_eq!(
            r2_indicator(&[vec![1.0, 1.0, 1.0], vec![0.0, 0.5, 0.0]]).unwrap(),
            0.0
        );
        // The origin in 2-D: Σ_k max(k, 9−k)/9 = 70/9 over ‖W‖_F = √570/9, so 70/√570.
        let r = r2_indicator(&[vec![0.0, 0.0]]).unwrap();
        assert!((r - 70.0 / 570_f64.sqrt()).abs() < 1e-12, "{r}");
        // Adding a point never increases R2; a dominating one strictly decreases it here.
        let a = r2_indicator(&[vec![0.3, 0.6]]).unwrap();
        let b = r2_indicator(&[vec![0.3, 0.6], vec![0.5, 0.7]]).unwrap();
        assert!(b < a);
        assert!(r2_indicator(&[]).is_err());
    }

    #[test]
    fn top_k_and_diversity() {
        let s = [0.1, 0.9, 0.5, 0.7];
        assert_eq!(top_k_mean(&s, 1), 0.9);
        assert!((top_k_mean(&s, 2) - 0.8).abs() < 1e-15);
        assert!((top_k_mean(&s, 100) - 0.55).abs() < 1e-15);
        assert_eq!(top_k_mean(&[], 10), 0.0);
        let fps = fingerprints(&["CC(=O)Oc1ccccc1C(=O)O", "OC(=O)c1ccccc1O", "C1CC("]);
        assert_eq!(fps.len(), 2);
        // 1 − 0.4482758620689655 (mol::tests::tanimoto_identities).
        assert!((diversity(&fps) - (1.0 - 0.448_275_862_068_965_5)).abs() < 1e-15);
        let same = fingerprints(&["CCO", "OCC", "C(O)C"]);
        assert_eq!(diversity(&same), 0.0);
        assert_eq!(diversity(&same[..1]), 0.0);
    }

    #[test]
    fn validity_uniqueness_novelty() {
        let reference: HashSet<String> = ["CCO".to_owned()].into();
        let stats = generation_stats(&["OCC", "CCO", "c1ccccc1", "C1CC(", "CCN"], &reference);
        assert_eq!(
            (stats.generated, stats.valid, stats.unique, stats.novel),
            (5, 4, 3, 2)
        );
        assert_eq!(stats.validity, 0.8);
        assert_eq!(stats.uniqueness, 0.75);
        assert!((stats.novelty - 2.0 / 3.0).abs() < 1e-15);
        let empty: [&str; 0] = [];
        assert_eq!(generation_stats(&empty, &reference).validity, 0.0);
    }
}
