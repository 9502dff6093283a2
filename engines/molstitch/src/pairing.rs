//! Random pairing and preference sampling of MolStitch: uniform derangements (the proxy and
//! IPO pairs, `generate_non_overlapping_indices` in the reference code), Dirichlet preference
//! vectors, and preference-weighted sampling of parents with and without replacement.
//!
//! Every function takes the caller's seeded generator ([`benchtop_compute::rng::seeded`]).

use benchtop_compute::ComputeError;
use benchtop_compute::rng::EngineRng;
use rand::Rng as _;
use rand_distr::{Distribution as _, Gamma};

/// A uniformly random derangement of 0..n: a permutation σ with σ(i) ≠ i for every i. Drawn by
/// rejection (uniform shuffles until one has no fixed point; about e ≈ 2.7 tries on average), so
/// every derangement is equally likely. n = 0 gives the empty permutation; n = 1 has none.
pub fn derangement(n: usize, rng: &mut EngineRng) -> Result<Vec<usize>, ComputeError> {
    if n == 1 {
        return Err(ComputeError::invalid(
            "n",
            "a single item cannot be paired with another",
        ));
    }
    let mut perm: Vec<usize> = (0..n).collect();
    loop {
        // Fisher–Yates.
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            perm.swap(i, j);
        }
        if perm.iter().enumerate().all(|(i, &p)| i != p) {
            return Ok(perm);
        }
    }
}

/// The pairs (i, σ(i)) of a uniform [`derangement`]: every item is compared with one other
/// item, and appears once as first and once as second element.
pub fn derangement_pairs(
    n: usize,
    rng: &mut EngineRng,
) -> Result<Vec<(usize, usize)>, ComputeError> {
    Ok(derangement(n, rng)?.into_iter().enumerate().collect())
}

/// A sample of Dirichlet(α): independent Gamma(αᵢ, 1) draws normalised to sum 1. Every αᵢ must
/// be finite and > 0.
pub fn dirichlet(alpha: &[f64], rng: &mut EngineRng) -> Result<Vec<f64>, ComputeError> {
    if alpha.is_empty() {
        return Err(ComputeError::invalid("alpha", "needs at least one entry"));
    }
    let mut x = Vec::with_capacity(alpha.len());
    for &a in alpha {
        let gamma = Gamma::new(a, 1.0).map_err(|e| {
            ComputeError::invalid("alpha", format!("{a} is not a valid concentration: {e}"))
        })?;
        if !(a.is_finite() && a > 0.0) {
            return Err(ComputeError::invalid(
                "alpha",
                format!("{a} must be finite and > 0"),
            ));
        }
        x.push(gamma.sample(rng));
    }
    let sum: f64 = x.iter().sum();
    if sum > 0.0 {
        x.iter_mut().for_each(|v| *v /= sum);
    } else {
        // All draws underflowed (tiny α): the limit is a vertex of the simplex.
        let k = rng.random_range(0..x.len());
        x.iter_mut()
            .enumerate()
            .for_each(|(i, v)| *v = f64::from(u8::from(i == k)));
    }
    Ok(x)
}

/// A symmetric Dirichlet(α·1_d) preference vector (MolStitch: α = 3 for the proxies, α = 1 for
/// priority sampling).
pub fn symmetric_dirichlet(
    d: usize,
    alpha: f64,
    rng: &mut EngineRng,
) -> Result<Vec<f64>, ComputeError> {
    dirichlet(&vec![alpha; d], rng)
}

/// The preference-weighted scores p · f(x) of each row of `values` (priority-sampling weights).
pub fn preference_scores(values: &[Vec<f64>], preference: &[f64]) -> Vec<f64> {
    values
        .iter()
        .map(|v| v.iter().zip(preference).map(|(a, b)| a * b).sum())
        .collect()
}

fn check_weights(weights: &[f64]) -> Result<usize, ComputeError> {
    if let Some(w) = weights.iter().find(|w| !(w.is_finite() && **w >= 0.0)) {
        return Err(ComputeError::invalid(
            "weights",
            format!("every weight must be finite and >= 0, found {w}"),
        ));
    }
    Ok(weights.iter().filter(|w| **w > 0.0).count())
}

/// `k` distinct indices drawn with probability proportional to `weights`, successively without
/// replacement (as `torch.multinomial(w, k, replacement=False)`), using the Efraimidis–Spirakis
/// keys ln(u)/wᵢ. Zero-weight items are never drawn; asking for more items than there are
/// positive weights is an error. The result is in draw order (largest key first).
pub fn weighted_sample_without_replacement(
    weights: &[f64],
    k: usize,
    rng: &mut EngineRng,
) -> Result<Vec<usize>, ComputeError> {
    let positive = check_weights(weights)?;
    if k > positive {
        return Err(ComputeError::invalid(
            "k",
            format!("cannot draw {k} distinct items from {positive} with positive weight"),
        ));
    }
    let mut keys: Vec<(f64, usize)> = weights
        .iter()
        .enumerate()
        .filter(|(_, w)| **w > 0.0)
        .map(|(i, &w)| {
            // u in (0, 1]: ln(u) in (−∞, 0].
            let u = 1.0 - rng.random::<f64>();
            (u.ln() / w, i)
        })
        .collect();
    keys.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(keys.into_iter().take(k).map(|(_, i)| i).collect())
}

/// `k` indices drawn independently with probability proportional to `weights` (with
/// replacement). At least one weight must be positive.
pub fn weighted_sample_with_replacement(
    weights: &[f64],
    k: usize,
    rng: &mut EngineRng,
) -> Result<Vec<usize>, ComputeError> {
    if check_weights(weights)? == 0 {
        return Err(ComputeError::invalid(
            "weights",
            "at least one weight must be positive",
        ));
    }
    let mut cumulative = Vec::with_capacity(weights.len());
    let mut total = 0.0;
    for w in weights {
        total += w;
        cumulative.push(total);
    }
    Ok((0..k)
        .map(|_| {
            let t = rng.random::<f64>() * total;
            let i = cumulative.partition_point(|&c| c <= t);
            // Guard the top edge and skip zero-weight items at ties.
            let mut i = i.min(weights.len() - 1);
            while weights[i] == 0.0 && i > 0 {
                i -= 1;
            }
            i
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use benchtop_compute::rng::{derive_seed, seeded};
    use std::collections::HashSet;

    #[test]
    fn derangements_have_no_fixed_points_and_are_permutations() {
        for seed in 0..500 {
            let mut rng = seeded(seed);
            let n = 2 + (seed as usize % 40);
            let d = derangement(n, &mut rng).unwrap();
            assert_eq!(d.len(), n);
            assert!(d.iter().enumerate().all(|(i, &p)| i != p), "seed {seed}");
            let mut sorted = d.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..n).collect::<Vec<_>>());
        }
        assert!(derangement(0, &mut seeded(0)).unwrap().is_empty());
        assert!(derangement(1, &mut seeded(0)).is_err());
        assert_eq!(derangement(2, &mut seeded(0)).unwrap(), [1, 0]);
        let pairs = derangement_pairs(5, &mut seeded(4)).unwrap();
        assert!(pairs.iter().all(|(a, b)| a != b));
    }

    #[test]
    fn every_derangement_of_four_appears_about_equally() {
        // D(4) = 9 derangements.
        let mut counts = std::collections::HashMap::new();
        let mut rng = seeded(42);
        let draws = 9000;
        for _ in 0..draws {
            *counts.entry(derangement(4, &mut rng).unwrap()).or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 9);
        for (d, c) in &counts {
            // Expected 1000 each; 5 standard deviations ≈ 150.
            assert!((850..=1150).contains(c), "{d:?}: {c}");
        }
        // Same seed, same bits.
        assert_eq!(
            derangement(10, &mut seeded(7)).unwrap(),
            derangement(10, &mut seeded(7)).unwrap()
        );
    }

    #[test]
    fn dirichlet_mean_is_alpha_over_its_sum() {
        let alpha = [1.0, 2.0, 5.0];
        let n = 20_000;
        let mut rng = seeded(derive_seed(1, 2));
        let mut mean = [0.0; 3];
        for _ in 0..n {
            let x = dirichlet(&alpha, &mut rng).unwrap();
            assert!((x.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            assert!(x.iter().all(|v| *v >= 0.0));
            for (m, v) in mean.iter_mut().zip(&x) {
                *m += v / f64::from(n);
            }
        }
        for (i, m) in mean.iter().enumerate() {
            let want = alpha[i] / 8.0;
            // Var = a_i(a0 − a_i)/(a0²(a0+1)) ≤ 0.028: standard error of the mean < 0.0012.
            assert!((m - want).abs() < 0.006, "component {i}: {m} vs {want}");
        }
        let s = symmetric_dirichlet(4, 3.0, &mut rng).unwrap();
        assert_eq!(s.len(), 4);
        assert!(dirichlet(&[1.0, 0.0], &mut rng).is_err());
        assert!(dirichlet(&[], &mut rng).is_err());
    }

    #[test]
    fn weighted_sampling_without_replacement() {
        let w = [1.0, 0.0, 3.0, 2.0, 4.0];
        let mut rng = seeded(8);
        // All positive-weight items, each once, never the zero-weight one.
        let all = weighted_sample_without_replacement(&w, 4, &mut rng).unwrap();
        let set: HashSet<usize> = all.iter().copied().collect();
        assert_eq!(set, HashSet::from([0, 2, 3, 4]));
        assert!(weighted_sample_without_replacement(&w, 5, &mut rng).is_err());
        assert!(weighted_sample_without_replacement(&[1.0, -1.0], 1, &mut rng).is_err());
        // The first draw is proportional to the weights.
        let n = 20_000;
        let mut first = [0_u32; 5];
        for _ in 0..n {
            first[weighted_sample_without_replacement(&w, 2, &mut rng).unwrap()[0]] += 1;
        }
        assert_eq!(first[1], 0);
        for (i, &c) in first.iter().enumerate() {
            let p = w[i] / 10.0;
            let sd = (f64::from(n) * p * (1.0 - p)).sqrt();
            assert!(
                (f64::from(c) - f64::from(n) * p).abs() < 5.0 * sd + 1.0,
                "{i}: {c}"
            );
        }
        // Second draw given first = 4 (weight 4): P(second = 2) = 3/6.
        let mut rng = seeded(9);
        let (mut given, mut hit) = (0, 0);
        for _ in 0..n {
            let s = weighted_sample_without_replacement(&w, 2, &mut rng).unwrap();
            if s[0] == 4 {
                given += 1;
                hit += u32::from(s[1] == 2);
            }
        }
        let frac = f64::from(hit) / f64::from(given);
        assert!((frac - 0.5).abs() < 0.03, "{frac}");
    }

    #[test]
    fn weighted_sampling_with_replacement_follows_the_weights() {
        let w = [0.0, 1.0, 0.0, 3.0, 0.0];
        let n = 20_000;
        let draws = weighted_sample_with_replacement(&w, n, &mut seeded(1)).unwrap();
        let threes = draws.iter().filter(|&&i| i == 3).count();
        assert!(draws.iter().all(|&i| i == 1 || i == 3));
        assert!((threes as f64 / n as f64 - 0.75).abs() < 0.02);
        assert!(weighted_sample_with_replacement(&[0.0, 0.0], 1, &mut seeded(1)).is_err());
        assert_eq!(
            preference_scores(&[vec![1.0, 0.5], vec![0.0, 1.0]], &[0.5, 0.5]),
            [0.75, 0.5]
        );
    }
}
