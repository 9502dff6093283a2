//! The Poisson-clicks task: click trains from the evidence strength γ, with click adaptation,
//! binned into per-bin inputs u_t = [left, right].
//!
//! Right clicks arrive at r_R = r/(1 + e^{−γ}) and left clicks at r_L = r/(1 + e^{γ}), with
//! r the total click rate. Each click's magnitude adapts as
//! a_i = 1 − (1 − φ a_{i−1}) e^{−k Δt_i}, where Δt_i is the time since the previous click of
//! either side (the first click has a = 1). A bin's input is the sum of the magnitudes of the
//! clicks that fall in it, per side.

use rand::Rng;
use rand_distr::{Distribution as _, Exp};

use serde::{Deserialize, Serialize};

use benchtop_compute::ComputeError;

/// Click rates (left, right) in Hz for evidence strength `gamma` and total rate `total_hz`.
pub fn click_rates_hz(gamma: f64, total_hz: f64) -> (f64, f64) {
    let right = total_hz / (1.0 + (-gamma).exp());
    let left = total_hz / (1.0 + gamma.exp());
    (left, right)
}

/// Click adaptation a_i = 1 − (1 − φ a_{i−1}) e^{−k Δt_i}.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adaptation {
    /// The carry-over φ of the previous click's magnitude.
    pub phi: f64,
    /// The recovery rate k, 1/s.
    pub recovery_per_s: f64,
}

impl Adaptation {
    /// The magnitude of a click `dt_s` after a click of magnitude `previous`.
    pub fn next(&self, previous: f64, dt_s: f64) -> f64 {
        1.0 - (1.0 - self.phi * previous) * (-self.recovery_per_s * dt_s).exp()
    }
}

/// One click: its time from trial start (s), its side and its adapted magnitude.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Click {
    /// Time from trial start, s.
    pub time_s: f64,
    /// True for a right click, false for a left one.
    pub right: bool,
    /// The adapted magnitude a_i.
    pub magnitude: f64,
}

/// Draws the clicks of one trial of `duration_s` seconds: two Poisson trains at the rates of
/// [`click_rates_hz`], merged in time order, with adapted magnitudes.
pub fn draw_clicks(
    rng: &mut impl Rng,
    gamma: f64,
    total_hz: f64,
    duration_s: f64,
    adaptation: Adaptation,
) -> Result<Vec<Click>, ComputeError> {
    let (left_hz, right_hz) = click_rates_hz(gamma, total_hz);
    let mut clicks = Vec::new();
    for (rate, right) in [(left_hz, false), (right_hz, true)] {
        if rate <= 0.0 {
            continue;
        }
        let gaps = Exp::new(rate)
            .map_err(|e| ComputeError::invalid("total_click_rate_hz", e.to_string()))?;
        let mut t = gaps.sample(rng);
        while t < duration_s {
            clicks.push(Click {
                time_s: t,
                right,
                magnitude: 1.0,
            });
            t += gaps.sample(rng);
        }
    }
    clicks.sort_by(|a, b| a.time_s.total_cmp(&b.time_s));
    let mut previous: Option<(f64, f64)> = None;
    for click in &mut clicks {
        if let Some((time, magnitude)) = previous {
            click.magnitude = adaptation.next(magnitude, click.time_s - time);
        }
        previous = Some((click.time_s, click.magnitude));
    }
    Ok(clicks)
}

/// Bins clicks into `n_bins` bins of `bin_s`: entry 2t is the left input of bin t, 2t + 1 the
/// right one.
pub fn bin_clicks(clicks: &[Click], n_bins: usize, bin_s: f64) -> Vec<f64> {
    let mut inputs = vec![0.0; 2 * n_bins];
    for click in clicks {
        let bin = (click.time_s / bin_s).floor() as usize;
        if bin < n_bins {
            inputs[2 * bin + usize::from(click.right)] += click.magnitude;
        }
    }
    inputs
}

#[cfg(test)]
mod tests {
    use super::*;
    use benchtop_compute::rng::seeded;

    #[test]
    fn rates_follow_the_logistic_and_sum_to_the_total() {
        let (l, r) = click_rates_hz(0.0, 40.0);
        assert!((l - 20.0).abs() < 1e-12 && (r - 20.0).abs() < 1e-12);
        let (l, r) = click_rates_hz(1.5, 40.0);
        assert!((l + r - 40.0).abs() < 1e-12);
        assert!((r / l - 1.5f64.exp()).abs() < 1e-9);
    }

    #[test]
    fn adaptation_recovers_and_depresses() {
        let a = Adaptation {
            phi: 1e-3,
            recovery_per_s: 100.0,
        };
        assert!((a.next(1.0, 10.0) - 1.0).abs() < 1e-12);
        assert!((a.next(1.0, 0.0) - 1e-3).abs() < 1e-15);
        let expected = 1.0 - (1.0 - 1e-3 * 0.5) * (-1.0f64).exp();
        assert!((a.next(0.5, 0.01) - expected).abs() < 1e-15);
    }

    #[test]
    fn click_counts_match_the_rates() {
        let adaptation = Adaptation {
            phi: 1e-3,
            recovery_per_s: 100.0,
        };
        let mut rng = seeded(3);
        let (mut left, mut right) = (0usize, 0usize);
        let trials = 400;
        for _ in 0..trials {
            let clicks = draw_clicks(&mut rng, 1.5, 40.0, 1.0, adaptation).unwrap();
            assert!(clicks.windows(2).all(|w| w[0].time_s <= w[1].time_s));
            assert!(
                clicks
                    .iter()
                    .all(|c| c.magnitude > 0.0 && c.magnitude <= 1.0)
            );
            right += clicks.iter().filter(|c| c.right).count();
            left += clicks.iter().filter(|c| !c.right).count();
        }
        let (l_hz, r_hz) = click_rates_hz(1.5, 40.0);
        // Poisson counts: within 4 standard deviations of the expected totals.
        let n = f64::from(trials);
        for (count, hz) in [(left as f64, l_hz), (right as f64, r_hz)] {
            let mean = hz * n;
            assert!(
                (count - mean).abs() < 4.0 * mean.sqrt(),
                "{count} vs {mean}"
            );
        }
    }

    #[test]
    fn binning_keeps_every_click_magnitude() {
        let clicks = [
            Click {
                time_s: 0.005,
                right: true,
                magnitude: 1.0,
            },
            Click {
                time_s: 0.012,
                right: false,
                magnitude: 0.5,
            },
            Click {
                time_s: 0.019,
                right: false,
                magnitude: 0.25,
            },
            Click {
                time_s: 0.5,
                right: true,
                magnitude: 1.0,
            },
        ];
        let inputs = bin_clicks(&clicks, 3, 0.01);
        assert_eq!(inputs, vec![0.0, 1.0, 0.75, 0.0, 0.0, 0.0]);
    }
}
