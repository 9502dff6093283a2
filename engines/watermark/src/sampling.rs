//! Temperature and top-k on a next-token distribution, and drawing a token from one.

/// Applies `temperature` (p^{1/T}, renormalised) and keeps the `top_k` most likely tokens
/// (`0` keeps all) in place.
pub fn temper(p: &mut [f64], temperature: f64, top_k: usize) {
    if top_k > 0 && top_k < p.len() {
        let mut sorted: Vec<f64> = p.to_vec();
        sorted.select_nth_unstable_by(top_k - 1, |a, b| b.total_cmp(a));
        let threshold = sorted[top_k - 1];
        let mut kept = 0;
        for x in p.iter_mut() {
            if *x >= threshold && kept < top_k {
                kept += 1;
            } else {
                *x = 0.0;
            }
        }
    }
    if (temperature - 1.0).abs() > 1e-12 {
        let inv = 1.0 / temperature.max(1e-3);
        let max = p.iter().copied().fold(0.0, f64::max);
        if max > 0.0 {
            p.iter_mut().for_each(|x| *x = (*x / max).powf(inv));
        }
    }
    let s: f64 = p.iter().sum();
    p.iter_mut().for_each(|x| *x /= s);
}

/// The token whose CDF interval (in id order) contains `u ∈ [0, 1)`.
pub fn draw(p: &[f64], u: f64) -> u32 {
    let mut cum = 0.0;
    for (v, &x) in p.iter().enumerate() {
        cum += x;
        if u < cum {
            return v as u32;
        }
    }
    // Rounding left u above the total: the last token with mass.
    p.iter().rposition(|&x| x > 0.0).unwrap_or(0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_keeps_the_k_largest_and_temperature_sharpens() {
        let mut p = vec![0.1, 0.4, 0.2, 0.3];
        temper(&mut p, 1.0, 2);
        assert_eq!(p[0], 0.0);
        assert_eq!(p[2], 0.0);
        assert!((p[1] - 4.0 / 7.0).abs() < 1e-12);
        let mut q = vec![0.25, 0.75];
        temper(&mut q, 0.5, 0);
        assert!((q[1] - 0.9).abs() < 1e-12);
        assert_eq!(draw(&[0.5, 0.0, 0.5], 0.75), 2);
    }
}
