//! Statistics the detectors and the evaluation share: the normal CDF, the exact null law of the
//! StealthInk statistic (sums of per-position minimum colour counts), ROC/AUC, TPR at a false
//! positive rate, the Kolmogorov–Smirnov distance to the uniform law and its p-value (the exact
//! finite-n law of Marsaglia, Tsang and Wang, and Kolmogorov's asymptotic law).

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

/// The p-value P(D_n ≥ d) of a one-sample Kolmogorov–Smirnov distance `d` of `n` points from a
/// continuous law: 1 − K(n, d) with K the exact law of D_n by Marsaglia, Tsang and Wang, "Evaluating
/// Kolmogorov's distribution", J. Stat. Softw. 8(18), 2003 (a power of a (2k−1)² matrix, k =
/// ⌈nd⌉, with the exponent carried apart); in the far tail (n·d² > 7.24, or > 3.76 when n > 99)
/// their approximation 2·exp(−(2.000071 + 0.331/√n + 1.409/n)·n·d²), accurate there to about
/// 10⁻⁷ relative to 1 − K. NaN for n = 0 or a non-finite d.
pub fn ks_p_value(d: f64, n: usize) -> f64 {
    if n == 0 || !d.is_finite() {
        return f64::NAN;
    }
    if d <= 0.0 {
        return 1.0;
    }
    if d >= 1.0 {
        return 0.0;
    }
    let nf = n as f64;
    let s = d * d * nf;
    if s > 7.24 || (s > 3.76 && n > 99) {
        return (2.0 * (-(2.000_071 + 0.331 / nf.sqrt() + 1.409 / nf) * s).exp()).min(1.0);
    }
    (1.0 - kolmogorov_cdf_exact(d, n)).clamp(0.0, 1.0)
}

/// K(n, d) = P(D_n < d) by the matrix method of Marsaglia, Tsang and Wang (2003), for
/// 0 < d < 1 (the caller's range).
fn kolmogorov_cdf_exact(d: f64, n: usize) -> f64 {
    let nf = n as f64;
    // n·d < n here, so k ≤ n and the matrix is at most (2n − 1)².
    let k = (nf * d).floor() as usize + 1;
    let m = 2 * k - 1;
    let h = k as f64 - nf * d;
    let mut a = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..=(i + 1).min(m - 1) {
            a[i * m + j] = 1.0;
        }
    }
    for i in 0..m {
        a[i * m] -= h.powi(i as i32 + 1);
        a[(m - 1) * m + i] -= h.powi((m - i) as i32);
    }
    if 2.0 * h - 1.0 > 0.0 {
        a[(m - 1) * m] += (2.0 * h - 1.0).powi(m as i32);
    }
    for i in 0..m {
        for j in 0..=i {
            let factorial: f64 = (1..=(i - j + 1)).map(|g| g as f64).product();
            a[i * m + j] /= factorial;
        }
    }
    let (q, mut exponent) = matrix_power(&a, m, n);
    let mut s = q[(k - 1) * m + k - 1];
    for i in 1..=n {
        s = s * i as f64 / nf;
        if s < 1e-140 {
            s *= 1e140;
            exponent -= 140;
        }
    }
    s * 10_f64.powi(exponent)
}

/// The product of two m × m row-major matrices.
fn matrix_product(a: &[f64], b: &[f64], m: usize) -> Vec<f64> {
    let mut out = vec![0.0; m * m];
    for i in 0..m {
        for k in 0..m {
            let x = a[i * m + k];
            if x == 0.0 {
                continue;
            }
            for j in 0..m {
                out[i * m + j] += x * b[k * m + j];
            }
        }
    }
    out
}

/// `a`ⁿ (n ≥ 1) as a matrix and a power of ten, rescaled by 10⁻¹⁴⁰ whenever its centre grows
/// past 10¹⁴⁰ (Marsaglia, Tsang and Wang's `mPower`).
fn matrix_power(a: &[f64], m: usize, n: usize) -> (Vec<f64>, i32) {
    if n <= 1 {
        return (a.to_vec(), 0);
    }
    let (half, e_half) = matrix_power(a, m, n / 2);
    let square = matrix_product(&half, &half, m);
    let mut v = if n.is_multiple_of(2) {
        square
    } else {
        matrix_product(a, &square, m)
    };
    let mut exponent = 2 * e_half;
    if v[(m / 2) * m + m / 2] > 1e140 {
        v.iter_mut().for_each(|x| *x *= 1e-140);
        exponent += 140;
    }
    (v, exponent)
}

/// Kolmogorov's limiting law of √n·D_n: the survival function Q(λ) = 2 Σ_{k≥1} (−1)^{k−1}
/// e^{−2k²λ²} (for λ < 1.18 through the equivalent theta series 1 − √(2π)/λ Σ_{k≥1}
/// e^{−(2k−1)²π²/(8λ²)}, which converges there in a few terms). The large-n p-value of a KS
/// distance d is Q(√n·d); [`ks_p_value`] is exact for every n.
pub fn kolmogorov_sf(lambda: f64) -> f64 {
    if lambda.is_nan() {
        return f64::NAN;
    }
    if lambda <= 0.0 {
        return 1.0;
    }
    if lambda < 1.18 {
        let y = -std::f64::consts::PI.powi(2) / (8.0 * lambda * lambda);
        let theta: f64 = (1..=8_i32)
            .map(|k| (f64::from((2 * k - 1).pow(2)) * y).exp())
            .sum();
        (1.0 - (2.0 * std::f64::consts::PI).sqrt() / lambda * theta).clamp(0.0, 1.0)
    } else {
        let alternating: f64 = (1..=8_i32)
            .map(|k| {
                let sign = if k % 2 == 1 { 1.0 } else { -1.0 };
                sign * (-2.0 * f64::from(k * k) * lambda * lambda).exp()
            })
            .sum();
        (2.0 * alternating).clamp(0.0, 1.0)
    }
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

    /// The exact KS law against closed forms and the published value, and Kolmogorov's limit
    /// against its tabulated critical values.
    #[test]
    fn ks_p_values_match_known_values() {
        // n = 1: D_1 = max(x, 1 − x), so P(D_1 ≥ d) = 2(1 − d) for d ≥ ½.
        assert!((ks_p_value(0.75, 1) - 0.5).abs() < 1e-12);
        // 1/(2n) < d ≤ 1/n: K(n, d) = n!·(2d − 1/n)ⁿ (Ruben and Gambino 1982).
        let k = 6.0 * (0.6_f64 - 1.0 / 3.0).powi(3);
        assert!(
            (ks_p_value(0.3, 3) - (1.0 - k)).abs() < 1e-12,
            "{}",
            ks_p_value(0.3, 3)
        );
        // d ≥ 1 − 1/n: P(D_n ≥ d) = 2(1 − d)ⁿ.
        assert!((ks_p_value(0.9, 3) - 2e-3).abs() < 1e-12);
        assert!((ks_p_value(0.85, 5) - 2.0 * 0.15_f64.powi(5)).abs() < 1e-13);
        // Marsaglia, Tsang and Wang's example: K(10, 0.274) = 0.6284796154565043.
        assert!((ks_p_value(0.274, 10) - (1.0 - 0.628_479_615_456_504_3)).abs() < 1e-12);
        // Kolmogorov's limit: Q(1) = 0.26999967167735456 (both series agree at the switch), and
        // the 10 %, 5 % and 1 % critical values 1.2238, 1.3581 and 1.6276.
        assert!((kolmogorov_sf(1.0) - 0.269_999_671_677_354_56).abs() < 1e-12);
        assert!((kolmogorov_sf(1.179_999) - kolmogorov_sf(1.180_001)).abs() < 1e-5);
        for (lambda, p) in [(1.2238, 0.10), (1.3581, 0.05), (1.6276, 0.01)] {
            assert!(
                (kolmogorov_sf(lambda) - p).abs() < 2e-4,
                "Q({lambda}) = {}",
                kolmogorov_sf(lambda)
            );
        }
        // For large n the exact law approaches the limit: n = 400 at the 5 % point.
        let d = 1.3581 / 20.0;
        assert!(
            (ks_p_value(d, 400) - 0.05).abs() < 4e-3,
            "{}",
            ks_p_value(d, 400)
        );
        // The far tail and the edges.
        assert!(ks_p_value(0.993, 100) < 1e-80);
        assert_eq!(ks_p_value(0.0, 10), 1.0);
        assert!(ks_p_value(0.5, 0).is_nan());
    }
}
