//! Time left of a running job, from how fast its progress moved lately.
//!
//! The average rate since the start misleads when a job's steps are not alike (a sweep whose
//! later sizes cost more, a fit whose first stage is quick): its estimate then doubles mid-run.
//! The rate over the recent window follows the work being done now, and a fraction that goes
//! back (a new stage restarting its count) starts the estimate afresh.

use std::time::Duration;

/// The recent window: this share of the time elapsed, but at least [`MIN_WINDOW_S`].
const WINDOW_SHARE: f64 = 0.3;
/// The shortest window (seconds).
const MIN_WINDOW_S: f64 = 5.0;
/// No estimate before this fraction is done or this many seconds have passed.
const MIN_FRACTION: f64 = 0.02;
const MIN_ELAPSED_S: f64 = 1.0;
/// Samples kept (older ones are dropped first).
const MAX_SAMPLES: usize = 512;

/// Progress samples `(seconds since the start, fraction done)` of one job.
#[derive(Clone, Debug, Default)]
pub struct EtaTracker {
    samples: Vec<(f64, f64)>,
}

impl EtaTracker {
    /// Records the fraction done at `elapsed_s` and estimates the time left; `None` until
    /// enough is done to say.
    pub fn observe(&mut self, elapsed_s: f64, fraction: f64) -> Option<Duration> {
        if !(elapsed_s.is_finite() && fraction.is_finite()) {
            return None;
        }
        let fraction = fraction.clamp(0.0, 1.0);
        if self.samples.last().is_some_and(|&(_, f)| fraction < f) {
            // A stage restarted its count: the rate so far says nothing about it.
            self.samples.clear();
        }
        if self.samples.last().is_none_or(|&(_, f)| fraction > f) {
            if self.samples.len() == MAX_SAMPLES {
                self.samples.remove(0);
            }
            self.samples.push((elapsed_s, fraction));
        }
        let &(first_t, first_f) = self.samples.first()?;
        if fraction < MIN_FRACTION || elapsed_s - first_t < MIN_ELAPSED_S {
            return None;
        }
        let window = (WINDOW_SHARE * (elapsed_s - first_t)).max(MIN_WINDOW_S);
        // The latest sample at least `window` old (else the first): the rate since then.
        let (t0, f0) = self
            .samples
            .iter()
            .rev()
            .find(|&&(t, _)| elapsed_s - t >= window)
            .copied()
            .unwrap_or((first_t, first_f));
        let (dt, df) = (elapsed_s - t0, fraction - f0);
        if dt <= 0.0 || df <= 0.0 {
            return None;
        }
        let seconds = (1.0 - fraction) * dt / df;
        seconds
            .is_finite()
            .then(|| Duration::from_secs_f64(seconds.min(1e7)))
    }
}

/// A time left as a person says it, rounded so that it does not flicker: `about 40 s left`,
/// `about 3 min left`, `about 2 h 5 min left`.
pub fn time_left_text(left: Duration) -> String {
    let seconds = left.as_secs_f64();
    if seconds < 60.0 {
        // To 5 s (at least 5 s).
        let rounded = ((seconds / 5.0).round() * 5.0).max(5.0);
        return format!("about {rounded:.0} s left");
    }
    let minutes = (seconds / 60.0).round() as u64;
    if minutes < 60 {
        format!("about {minutes} min left")
    } else {
        format!("about {} h {} min left", minutes / 60, minutes % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(d: Option<Duration>) -> f64 {
        d.expect("an estimate").as_secs_f64()
    }

    #[test]
    fn a_steady_job_is_estimated_exactly() {
        let mut eta = EtaTracker::default();
        let mut last = None;
        for t in 1..=40 {
            // 1 % a second: 100 s in all.
            last = eta.observe(f64::from(t), f64::from(t) / 100.0);
        }
        assert!((secs(last) - 60.0).abs() < 1e-9, "{last:?}");
    }

    #[test]
    fn a_job_that_slows_down_is_estimated_from_its_recent_rate() {
        let mut eta = EtaTracker::default();
        // Half the work in 10 s, then 1 % every 2 s: 30 % more by t = 70 s, 20 % left = 40 s.
        for t in 1..=10 {
            eta.observe(f64::from(t), 0.05 * f64::from(t));
        }
        let mut last = None;
        for t in 11..=70 {
            last = eta.observe(f64::from(t), 0.5 + 0.005 * f64::from(t - 10));
        }
        let left = secs(last);
        // The average since the start would say 70 s · 0.2/0.8 = 17.5 s, half the truth.
        assert!((left - 40.0).abs() < 1.0, "{left}");
    }

    #[test]
    fn a_stage_that_restarts_its_count_starts_a_new_estimate() {
        let mut eta = EtaTracker::default();
        for t in 1..=20 {
            eta.observe(f64::from(t), 0.04 * f64::from(t));
        }
        assert!(
            eta.observe(21.0, 0.01).is_none(),
            "no rate yet for the new stage"
        );
        let mut last = None;
        for t in 22..=40 {
            last = eta.observe(f64::from(t), 0.01 + 0.01 * f64::from(t - 21));
        }
        let left = secs(last);
        assert!((left - 80.0).abs() < 1.0, "{left}");
    }

    #[test]
    fn nothing_is_estimated_too_early_or_from_nonsense() {
        let mut eta = EtaTracker::default();
        assert!(eta.observe(0.5, 0.5).is_none());
        assert!(eta.observe(f64::NAN, 0.6).is_none());
        assert!(EtaTracker::default().observe(30.0, 0.01).is_none());
    }

    #[test]
    fn times_left_read_as_a_person_says_them() {
        assert_eq!(time_left_text(Duration::from_secs(2)), "about 5 s left");
        assert_eq!(time_left_text(Duration::from_secs(43)), "about 45 s left");
        assert_eq!(time_left_text(Duration::from_secs(190)), "about 3 min left");
        assert_eq!(
            time_left_text(Duration::from_secs(7500)),
            "about 2 h 5 min left"
        );
    }
}
