//! The softplus link and its inverse, in f64.

/// softplus(x) = ln(1 + eˣ), computed without overflow.
pub fn softplus(x: f64) -> f64 {
    if x > 30.0 { x } else { x.exp().ln_1p() }
}

/// The inverse of softplus for y > 0: x = y + ln(1 − e^{−y}).
pub fn softplus_inverse(y: f64) -> f64 {
    y + (-(-y).exp_m1()).ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_round_trips() {
        for x in [-8.0, -1.0, 0.0, 0.5, 3.0, 25.0, 40.0] {
            let y = softplus(x);
            assert!(y > 0.0);
            assert!(
                (softplus_inverse(y) - x).abs() < 1e-9 * (1.0 + x.abs()),
                "{x}"
            );
        }
        assert!((softplus(0.0) - 2f64.ln()).abs() < 1e-15);
    }
}
