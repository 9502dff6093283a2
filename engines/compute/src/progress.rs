//! Progress of a running computation: a fraction in [0, 1] and a short message.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use parking_lot::Mutex;

#[derive(Debug, Default)]
struct Shared {
    fraction_bits: AtomicU32,
    message: Mutex<String>,
}

/// Progress reported by an engine and read by the UI; cloning shares the state.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    shared: Arc<Shared>,
}

impl Progress {
    /// Progress at zero with an empty message.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the fraction done (clamped to [0, 1]; NaN counts as 0).
    pub fn set_fraction(&self, fraction: f64) {
        let clamped = if fraction.is_nan() {
            0.0
        } else {
            fraction.clamp(0.0, 1.0)
        };
        #[allow(clippy::cast_possible_truncation)]
        self.shared
            .fraction_bits
            .store((clamped as f32).to_bits(), Ordering::Relaxed);
    }

    /// Sets the fraction done and the message together.
    pub fn set(&self, fraction: f64, message: impl Into<String>) {
        self.set_fraction(fraction);
        *self.shared.message.lock() = message.into();
    }

    /// Sets the fraction as `done / total` (0 when `total` is 0).
    pub fn set_count(&self, done: u64, total: u64) {
        #[allow(clippy::cast_precision_loss)]
        let fraction = if total == 0 {
            0.0
        } else {
            done as f64 / total as f64
        };
        self.set_fraction(fraction);
    }

    /// The fraction done, in [0, 1].
    pub fn fraction(&self) -> f64 {
        f64::from(f32::from_bits(
            self.shared.fraction_bits.load(Ordering::Relaxed),
        ))
    }

    /// The latest message.
    pub fn message(&self) -> String {
        self.shared.message.lock().clone()
    }

    /// A view of this progress that maps its own [0, 1] onto `[start, end]` of the parent,
    /// for engines that run sub-steps.
    pub fn sub(&self, start: f64, end: f64) -> SubProgress<'_> {
        SubProgress {
            parent: self,
            start,
            end,
        }
    }
}

/// A slice `[start, end]` of a parent [`Progress`].
#[derive(Debug)]
pub struct SubProgress<'a> {
    parent: &'a Progress,
    start: f64,
    end: f64,
}

impl SubProgress<'_> {
    /// Sets the sub-step's own fraction (mapped onto the parent's slice).
    pub fn set_fraction(&self, fraction: f64) {
        self.parent
            .set_fraction(self.start + (self.end - self.start) * fraction.clamp(0.0, 1.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fraction_is_clamped_and_shared() {
        let progress = Progress::new();
        let reader = progress.clone();
        progress.set(0.25, "warm-up");
        assert!((reader.fraction() - 0.25).abs() < 1e-7);
        assert_eq!(reader.message(), "warm-up");
        progress.set_fraction(7.0);
        assert!((reader.fraction() - 1.0).abs() < 1e-7);
        progress.set_fraction(f64::NAN);
        assert!(reader.fraction().abs() < 1e-7);
        progress.sub(0.5, 1.0).set_fraction(0.5);
        assert!((reader.fraction() - 0.75).abs() < 1e-7);
        progress.set_count(1, 4);
        assert!((reader.fraction() - 0.25).abs() < 1e-7);
    }
}
