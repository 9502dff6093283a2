//! Scores of a posterior against the clean truth.

use std::f64::consts::PI;

/// Root mean squared error of `mean` against `truth`.
pub fn rmse(mean: &[f64], truth: &[f64]) -> f64 {
    let n = mean.len().max(1);
    let mse = mean
        .iter()
        .zip(truth)
        .map(|(m, t)| (m - t).powi(2))
        .sum::<f64>()
        / n as f64;
    mse.sqrt()
}

/// Mean negative log predictive density of `truth` under independent normals N(mean, var + extra).
pub fn nlpd(mean: &[f64], var: &[f64], extra: f64, truth: &[f64]) -> f64 {
    let n = mean.len().max(1);

    mean.iter()
        .zip(var)
        .zip(truth)
        .map(|((m, v), t)| {
            let v = (v + extra).max(1e-300);
            0.5 * ((2.0 * PI * v).ln() + (t - m).powi(2) / v)
        })
        .sum::<f64>()
        / n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rcgp_metrics_closed_forms() {
        assert!((rmse(&[1.0, 3.0], &[0.0, 0.0]) - 5f64.sqrt()).abs() < 1e-15);
        let standard = 0.5 * (2.0 * PI).ln();
        assert!((nlpd(&[0.0], &[1.0], 0.0, &[0.0]) - standard).abs() < 1e-15);
        assert!((nlpd(&[0.0], &[0.5], 0.5, &[2.0]) - (standard + 2.0)).abs() < 1e-15);
    }
}
