//! Missingness of the weak features, injected row by row (all weak features of a row are
//! missing together): completely at random (MCAR), at random with a logistic dependence on the
//! observed features (MAR), or not at random with a logistic dependence on the weak features'
//! own values (MNAR). The same mechanism and rate apply to training and test rows.

use benchtop_compute::ComputeError;
use benchtop_compute::rng::seeded;
use nalgebra::DMatrix;
use rand::Rng as _;
use serde::{Deserialize, Serialize};

/// How a row comes to miss its weak features.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mechanism {
    /// Missing completely at random: every row with the same probability.
    #[default]
    Mcar,
    /// Missing at random: P(missing) = σ(α + s·score(x_o)).
    Mar,
    /// Missing not at random: P(missing) = σ(α + s·score(x_w)).
    Mnar,
}

impl Mechanism {
    /// Every mechanism, in the order the panel lists them.
    pub const ALL: [Mechanism; 3] = [Mechanism::Mcar, Mechanism::Mar, Mechanism::Mnar];

    /// Short name ("MCAR", "MAR", "MNAR").
    pub fn label(self) -> &'static str {
        match self {
            Mechanism::Mcar => "MCAR",
            Mechanism::Mar => "MAR",
            Mechanism::Mnar => "MNAR",
        }
    }
}

/// The missingness settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MissingParams {
    /// The mechanism.
    pub mechanism: Mechanism,
    /// Expected share ρ of rows whose weak features are missing.
    pub rate: f64,
    /// Logistic slope s of MAR and MNAR on the standardised score.
    pub strength: f64,
}

impl Default for MissingParams {
    fn default() -> Self {
        Self {
            mechanism: Mechanism::Mcar,
            rate: 0.5,
            strength: 2.0,
        }
    }
}

impl MissingParams {
    /// Range checks.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(0.0..=1.0).contains(&self.rate) {
            return Err(ComputeError::invalid("missing.rate", "choose 0 to 1"));
        }
        if !(self.strength.is_finite() && (0.0..=20.0).contains(&self.strength)) {
            return Err(ComputeError::invalid("missing.strength", "choose 0 to 20"));
        }
        Ok(())
    }
}

/// The standardised score of each row: the mean of the given columns, centred and scaled to
/// unit variance over the rows.
fn score(columns: &DMatrix<f64>) -> Vec<f64> {
    let n = columns.nrows();
    let raw: Vec<f64> = (0..n).map(|i| columns.row(i).mean()).collect();
    let mean = raw.iter().sum::<f64>() / n.max(1) as f64;
    let var = raw.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n.max(1) as f64;
    let sd = if var > 0.0 { var.sqrt() } else { 1.0 };
    raw.iter().map(|v| (v - mean) / sd).collect()
}

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

/// The probability of each row missing its weak features: `rate` for MCAR, else
/// σ(α + s·score) with α set by bisection so that the mean probability over the rows is `rate`.
pub fn probabilities(params: &MissingParams, x_o: &DMatrix<f64>, x_w: &DMatrix<f64>) -> Vec<f64> {
    let n = x_o.nrows();
    let rate = params.rate;
    if rate <= 0.0 || rate >= 1.0 || params.mechanism == Mechanism::Mcar || n == 0 {
        return vec![rate.clamp(0.0, 1.0); n];
    }
    let scores = match params.mechanism {
        Mechanism::Mar => score(x_o),
        _ => score(x_w),
    };
    let s = params.strength;
    let mean_at =
        |alpha: f64| scores.iter().map(|z| sigmoid(alpha + s * z)).sum::<f64>() / n as f64;
    let (mut low, mut high) = (-60.0, 60.0);
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        if mean_at(mid) < rate {
            low = mid;
        } else {
            high = mid;
        }
    }
    let alpha = 0.5 * (low + high);
    scores.iter().map(|z| sigmoid(alpha + s * z)).collect()
}

/// Draws the mask (true: the row's weak features are missing) from `probabilities` with `seed`.
pub fn draw(probabilities: &[f64], seed: u64) -> Vec<bool> {
    let mut rng = seeded(seed);
    probabilities
        .iter()
        .map(|&p| rng.random::<f64>() < p)
        .collect()
}

/// Share of true entries.
pub fn fraction(mask: &[bool]) -> f64 {
    if mask.is_empty() {
        return 0.0;
    }
    mask.iter().filter(|m| **m).count() as f64 / mask.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{GaussianParams, gaussian_problem};

    #[test]
    fn wf_mechanisms_hit_the_rate_and_depend_on_what_they_should() {
        let p = gaussian_problem(&GaussianParams::default(), 20_000, 10, 3);
        for mechanism in Mechanism::ALL {
            let params = MissingParams {
                mechanism,
                rate: 0.3,
                strength: 2.0,
            };
            let probs = probabilities(&params, &p.train.x_o, &p.train.x_w);
            let mean = probs.iter().sum::<f64>() / probs.len() as f64;
            assert!((mean - 0.3).abs() < 1e-6, "{mechanism:?}: {mean}");
            let mask = draw(&probs, 9);
            assert!((fraction(&mask) - 0.3).abs() < 0.015, "{mechanism:?}");
            // Mean feature values among missing rows against observed rows.
            let gap = |x: &DMatrix<f64>| {
                let avg = |missing: bool| {
                    let rows: Vec<usize> =
                        (0..mask.len()).filter(|&i| mask[i] == missing).collect();
                    rows.iter().map(|&i| x.row(i).mean()).sum::<f64>() / rows.len() as f64
                };
                avg(true) - avg(false)
            };
            let (gap_o, gap_w) = (gap(&p.train.x_o), gap(&p.train.x_w));
            match mechanism {
                Mechanism::Mcar => assert!(gap_o.abs() < 0.05 && gap_w.abs() < 0.05),
                Mechanism::Mar => assert!(gap_o > 0.3, "{gap_o}"),
                Mechanism::Mnar => assert!(gap_w > 0.3, "{gap_w}"),
            }
        }
        let none = MissingParams {
            rate: 0.0,
            ..MissingParams::default()
        };
        assert!(
            draw(&probabilities(&none, &p.train.x_o, &p.train.x_w), 1)
                .iter()
                .all(|m| !m)
        );
    }
}
