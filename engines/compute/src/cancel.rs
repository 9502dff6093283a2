//! Cooperative cancellation shared between a job and whoever started it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::ComputeError;

/// A flag an engine checks at loop granularity; cloning shares the flag.
#[derive(Clone, Debug, Default)]
pub struct CancelToken {
    cancelled: Arc<AtomicBool>,
}

impl CancelToken {
    /// A token that has not been cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every holder of this token to stop as soon as possible.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    /// Whether [`CancelToken::cancel`] has been called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// `Err(ComputeError::Cancelled)` once cancelled, for use with `?` inside loops.
    pub fn check(&self) -> Result<(), ComputeError> {
        if self.is_cancelled() {
            Err(ComputeError::Cancelled)
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag() {
        let token = CancelToken::new();
        let other = token.clone();
        assert!(token.check().is_ok());
        other.cancel();
        assert!(token.is_cancelled());
        assert!(matches!(token.check(), Err(ComputeError::Cancelled)));
    }
}
