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
///
/// A [`Progress::slice`] is a child whose [0, 1] maps onto part of its parent's range, for
/// work made of stages.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    shared: Arc<Shared>,
    parent: Option<Box<(Progress, f64, f64)>>,
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
        self.shared
            .fraction_bits
            .store((clamped as f32).to_bits(), Ordering::Relaxed);
        if let Some(parent) = &self.parent {
            let (progress, start, end) = parent.as_ref();
            progress.set_fraction(start + (end - start) * clamped);
        }
    }

    /// Sets the fraction done and the message together.
    pub fn set(&self, fraction: f64, message: impl Into<String>) {
        let message = message.into();
        if let Some(parent) = &self.parent {
            parent.0.set_message(message.clone());
        }
        self.set_fraction(fraction);
        *self.shared.message.lock() = message;
    }

    /// Sets the message only.
    pub fn set_message(&self, message: impl Into<String>) {
        let message = message.into();
        if let Some(parent) = &self.parent {
            parent.0.set_message(message.clone());
        }
        *self.shared.message.lock() = message;
    }

    /// Sets the fraction as `done / total` (0 when `total` is 0).
    pub fn set_count(&self, done: u64, total: u64) {
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

    /// A child progress whose [0, 1] maps onto `[start, end]` of this one.
    pub fn slice(&self, start: f64, end: f64) -> Progress {
        Progress {
            shared: Arc::default(),
            parent: Some(Box::new((self.clone(), start, end))),
        }
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
        let child = progress.slice(0.5, 1.0);
        child.set(0.5, "stage two");
        assert!((reader.fraction() - 0.75).abs() < 1e-7);
        assert_eq!(reader.message(), "stage two");
        assert!((child.fraction() - 0.5).abs() < 1e-7);
        progress.set_count(1, 4);
        assert!((reader.fraction() - 0.25).abs() < 1e-7);
    }
}
