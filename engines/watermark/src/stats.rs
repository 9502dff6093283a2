//! Statistics the detectors and the evaluation share: the normal CDF, the exact null law of the
//! StealthInk statistic (sums of per-position minimum colour counts), ROC/AUC, TPR at a false
//! positive rate and the Kolmogorov–Smirnov distance to the uniform law.

/// Standard normal CDF Φ (erfc with the Numerical Recipes Chebyshev fit, |error| < 1.2e-7).
pub fn normal_cdf(z: f64) -> f64 {
    let x = -z / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let poly = -x * x - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    0.5 * if x >= 0.0 { erfc } else { 2.0 - erfc }
}

/// ln k! for k = 0..=n.
fn ln_factorials(n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n + 1];
    for k in 1..=n {
        out[k] = out[k - 1] + (k as f64).ln();
    }
    out
}

/// The law of the smallest cell of a multinomial(`total`, `cells` equal cells): entry t is
/// P(min = t). Built from P(all cells ≥ m) by peeling cells one at a time, each a binomial of what
/// is left.
pub fn min_count_pmf(total: usize, cells: usize) -> Vec<f64> {
    if cells <= 1 {
        let mut out = vec![0.0; total + 1];
        out[total] = 1.0;
        return out;
    }
    let lf = ln_factorials(total);
    let binom = |n: usize, k: usize, p: f64| -> f64 {
        if p >= 1.0 {
            return if k == n { 1.0 } else { 0.0 };
        }
        (lf[n] - lf[k] - lf[n - k] + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp()
    };
    let max_min = total / cells;
    // at_least[m] = P(every cell ≥ m).
    let at_least: Vec<f64> = (0..=max_min + 1)
        .map(|m| {
            // remaining[r]: P(cells so far all ≥ m and r tokens are left).
            let mut remaining = vec![0.0; total + 1];
            remaining[total] = 1.0;
            for j in 0..cells - 1 {
                let p = 1.0 / (cells - j) as f64;
                let mut next = vec![0.0; total + 1];
                for (r, &w) in remaining.iter().enumerate() {
                    if w == 0.0 {
                        continue;
                    }
                    for k in m..=r {
                        next[r - k] += w * binom(r, k, p);
                    }
                }
                remaining = next;
            }
            remaining.iter().skip(m).sum()
        })
        .collect();
    (0..=max_min)
        .map(|t| (at_least[t] - at_least[t + 1]).max(0.0))
        .collect()
}

/// Convolution of two laws on 0, 1, 2, ….
pub fn convolve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, &x) in a.iter().enumerate() {
        if x == 0.0 {
            continue;
        }
        for (j, &y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    out
}

/// Area under the ROC curve of `positive` against `negative` scores (larger = positive), ties
/// counted one half (the Mann–Whitney statistic).
pub fn auc(positive: &[f64], negative: &[f64]) -> f64 {
    if positive.is_empty() || negative.is_empty() {
        return f64::NAN;
    }
    let mut wins = 0.0;
    for &p in positive {
        for &n in negative {
            wins += if p > n {
                1.0
            } else if p == n {
                0.5
            } else {
                0.0
            };
        }
    }
    wins / (positive.len() * negative.len()) as f64
}

/// The ROC curve: (false positive rate, true positive rate) at every threshold, from (0,0) to
/// (1,1).
pub fn roc(positive: &[f64], negative: &[f64]) -> Vec<(f64, f64)> {
    let mut thresholds: Vec<f64> = positive.iter().chain(negative).copied().collect();
    thresholds.sort_by(|a, b| b.total_cmp(a));
    thresholds.dedup();
    let rate = |s: &[f64], t: f64| s.iter().filter(|&&x| x >= t).count() as f64 / s.len() as f64;
    let mut out = vec![(0.0, 0.0)];
    out.extend(
        thresholds
            .iter()
            .map(|&t| (rate(negative, t), rate(positive, t))),
    );
    out.push((1.0, 1.0));
    out
}

/// The fraction of `positive` scores above the threshold that at most `fpr` of the `negative`
/// scores exceed (strictly greater than the ⌈(1−fpr)·n⌉-th smallest null score).
pub fn tpr_at_fpr(positive: &[f64], negative: &[f64], fpr: f64) -> f64 {
    if positive.is_empty() || negative.is_empty() {
        return f64::NAN;
    }
    let mut null = negative.to_vec();
    null.sort_by(f64::total_cmp);
    let allowed = (fpr * null.len() as f64).floor() as usize;
    let threshold = null[null.len() - 1 - allowed.min(null.len() - 1)];
    positive.iter().filter(|&&x| x > threshold).count() as f64 / positive.len() as f64
}

/// Kolmogorov–Smirnov distance of a sample to the uniform law on [0, 1].
pub fn ks_uniform(sample: &[f64]) -> f64 {
    let mut s = sample.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len() as f64;
    s.iter()
        .enumerate()
        .map(|(i, &x)| (x - i as f64 / n).abs().max(((i + 1) as f64 / n - x).abs()))
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_cdf_matches_known_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.959_963_985) - 0.975).abs() < 1e-6);
        assert!((normal_cdf(-3.0) - 0.001_349_898).abs() < 1e-7);
    }

    #[test]
    fn min_count_law_matches_enumeration() {
        // Two cells: min(K, T−K) with K ~ Binomial(T, 1/2).
        let pmf = min_count_pmf(5, 2);
        let expected = [2.0 / 32.0, 10.0 / 32.0, 20.0 / 32.0];
        for (a, b) in pmf.iter().zip(expected) {
            assert!((a - b).abs() < 1e-12, "{pmf:?}");
        }
        // Three cells, four tokens: brute force over 3^4 sequences.
        let mut counts = [0.0; 2];
        for s in 0..81_usize {
            let mut c = [0; 3];
            let mut x = s;
            for _ in 0..4 {
                c[x % 3] += 1;
                x /= 3;
            }
            counts[*c.iter().min().unwrap()] += 1.0 / 81.0;
        }
        let pmf = min_count_pmf(4, 3);
        assert!((pmf[0] - counts[0]).abs() < 1e-12 && (pmf[1] - counts[1]).abs() < 1e-12);
    }

    #[test]
    fn auc_and_tpr_on_separated_and_tied_scores() {
        assert_eq!(auc(&[3.0, 4.0], &[1.0, 2.0]), 1.0);
        assert_eq!(auc(&[1.0], &[1.0]), 0.5);
        let null: Vec<f64> = (0..100).map(f64::from).collect();
        // One null score (99) lies above 98, the threshold at 1 % FPR.
        assert_eq!(tpr_at_fpr(&[98.5, 99.5, 50.0, 100.0], &null, 0.01), 0.75);
        assert!(ks_uniform(&[0.5]) - 0.5 < 1e-12);
    }
}
