//! The two ways a key changes a next-token distribution.
//!
//! - StealthInk: lay the distribution out in permuted order on [0, 1] (token `order[r]` owns the
//!   CDF interval of its mass). The red list, colour chunk `red`, spans [α, β]. The sampling density
//!   on [0, 1] becomes g(u) = 1 − 1[α ≤ u < β] + 1[1−β ≤ u < 1−α]: the red interval is zeroed and
//!   its mirror doubled (where the two overlap they cancel, g = 1). g ≥ 0 and ∫g = 1, and a token's
//!   new probability is the g-mass of its interval. Averaged over a uniform permutation the result
//!   is the original distribution (reversing the order maps chunk k onto chunk 2^c−1−k mirrored).
//! - KGW: add δ to the logits of one colour chunk (the green list) and renormalise; biased.

/// Length of the overlap of [a, b] and [c, d].
fn overlap(a: f64, b: f64, c: f64, d: f64) -> f64 {
    (b.min(d) - a.max(c)).max(0.0)
}

/// The StealthInk reweighting of `p` (indexed by token id) under the permutation `order` with red
/// colour chunk `red` of `colours`; writes p′ (indexed by token id) to `out` and returns (α, β).
pub fn stealthink(
    p: &[f64],
    order: &[u32],
    red: usize,
    colours: usize,
    out: &mut [f64],
) -> (f64, f64) {
    let vocab = order.len();
    let start = red * vocab / colours;
    let end = (red + 1) * vocab / colours;
    let mut alpha = 0.0;
    let mut beta = 0.0;
    let mut cum = 0.0;
    for (r, &v) in order.iter().enumerate() {
        if r == start {
            alpha = cum;
        }
        cum += p[v as usize];
        if r + 1 == end {
            beta = cum;
        }
    }
    // Normalise the bounds by the total (p may carry rounding).
    let total = cum.max(f64::MIN_POSITIVE);
    let (alpha, beta) = (alpha / total, beta / total);
    let (m_lo, m_hi) = (1.0 - beta, 1.0 - alpha);
    // G(u) = ∫₀ᵘ g: the new CDF at u.
    let g = |u: f64| u - overlap(0.0, u, alpha, beta) + overlap(0.0, u, m_lo, m_hi);
    let mut lo = 0.0;
    let mut g_lo = 0.0;
    for &v in order {
        let hi = (lo + p[v as usize] / total).min(1.0);
        let g_hi = g(hi);
        out[v as usize] = (g_hi - g_lo).max(0.0);
        lo = hi;
        g_lo = g_hi;
    }
    (alpha, beta)
}

/// The KGW reweighting: `p` with its colour chunk `green` (of `colours`) multiplied by e^δ,
/// renormalised, into `out`.
pub fn kgw(p: &[f64], order: &[u32], green: usize, colours: usize, delta: f64, out: &mut [f64]) {
    let vocab = order.len();
    let boost = delta.exp();
    out.copy_from_slice(p);
    for &v in &order[green * vocab / colours..(green + 1) * vocab / colours] {
        out[v as usize] *= boost;
    }
    let total: f64 = out.iter().sum();
    out.iter_mut().for_each(|x| *x /= total);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prf;

    fn dirichlet_like(vocab: usize, seed: u64) -> Vec<f64> {
        let raw: Vec<f64> = (0..vocab as u32)
            .map(|v| {
                let u = (prf::token_key(seed, v) >> 11) as f64 / (1_u64 << 53) as f64;
                (4.0 * u).exp()
            })
            .collect();
        let s: f64 = raw.iter().sum();
        raw.into_iter().map(|x| x / s).collect()
    }

    #[test]
    fn the_red_list_gets_no_mass_and_the_total_stays_one() {
        let p = dirichlet_like(16, 3);
        let mut order = Vec::new();
        let mut out = vec![0.0; 16];
        for seed in 0..50 {
            prf::permutation(seed, 16, &mut order);
            for red in 0..4 {
                let (alpha, beta) = stealthink(&p, &order, red, 4, &mut out);
                assert!((out.iter().sum::<f64>() - 1.0).abs() < 1e-12);
                let red_mass: f64 = order[red * 4..red * 4 + 4]
                    .iter()
                    .map(|&v| out[v as usize])
                    .sum();
                // The red interval is only ever refilled by its own mirror where they overlap.
                let mirror = overlap(alpha, beta, 1.0 - beta, 1.0 - alpha);
                assert!((red_mass - mirror).abs() < 1e-12, "{red_mass} vs {mirror}");
            }
        }
    }

    #[test]
    fn kgw_multiplies_green_odds_by_e_delta() {
        let p = dirichlet_like(8, 9);
        let mut order = Vec::new();
        prf::permutation(4, 8, &mut order);
        let mut out = vec![0.0; 8];
        kgw(&p, &order, 1, 2, 2.0, &mut out);
        let (g, r) = (order[5] as usize, order[0] as usize);
        let ratio = (out[g] / out[r]) / (p[g] / p[r]);
        assert!((ratio - 2.0_f64.exp()).abs() < 1e-9);
    }
}
