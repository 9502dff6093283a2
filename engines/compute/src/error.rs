//! Errors shared by every engine.

use thiserror::Error;

/// What can go wrong in an engine.
#[derive(Debug, Error)]
pub enum ComputeError {
    /// The computation was cancelled through its [`crate::CancelToken`].
    #[error("cancelled")]
    Cancelled,
    /// A parameter is outside what the engine accepts; `name` is the parameter's key.
    #[error("invalid parameter `{name}`: {reason}")]
    InvalidParameter {
        /// The parameter's key, as written in a project file.
        name: String,
        /// What is wrong and what would be accepted.
        reason: String,
    },
    /// The requested compute backend is not available on this machine.
    #[error("{backend} is not available: {reason}")]
    BackendUnavailable {
        /// "wgpu", "CUDA", …
        backend: &'static str,
        /// Why, in words.
        reason: String,
    },
    /// A GPU call failed after the device was created.
    #[error("GPU error: {0}")]
    Gpu(String),
    /// A CUDA call failed (driver, NVRTC or launch).
    #[error("CUDA error: {0}")]
    Cuda(String),
    /// A candle tensor operation failed.
    #[error("tensor error: {0}")]
    Tensor(#[from] candle_core::Error),
    /// The computation produced non-finite numbers.
    #[error("numerical failure: {0}")]
    Numerical(String),
    /// A file named by the user cannot be read as asked (not a regular file, too large, not
    /// UTF-8, unreadable); the message starts with the file's path.
    #[error("{0}")]
    File(String),
}

impl ComputeError {
    /// Shorthand for [`ComputeError::InvalidParameter`].
    pub fn invalid(name: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidParameter {
            name: name.into(),
            reason: reason.into(),
        }
    }

    /// Refuses, before anything is allocated, a computation whose largest array would hold more
    /// than `limit_bytes`: `factors` are the sizes (named keys and values) whose product is the
    /// number of elements, each `bytes_each` bytes. The error names the first key.
    pub fn check_memory(
        factors: &[(&str, usize)],
        bytes_each: usize,
        limit_bytes: usize,
    ) -> Result<(), Self> {
        Self::check_bytes(factors, bytes_each, limit_bytes, "one array")
    }

    /// Refuses, before anything runs, a run whose working set (estimated as the product of
    /// `factors`, `bytes_each` bytes per element) would exceed `limit_bytes` in all: the budget
    /// is per run, not per array. The error names the first key.
    pub fn check_run_memory(
        factors: &[(&str, usize)],
        bytes_each: usize,
        limit_bytes: usize,
    ) -> Result<(), Self> {
        Self::check_bytes(factors, bytes_each, limit_bytes, "one run")
    }

    /// [`Self::check_memory`] and [`Self::check_run_memory`], `what` naming the budget.
    fn check_bytes(
        factors: &[(&str, usize)],
        bytes_each: usize,
        limit_bytes: usize,
        what: &str,
    ) -> Result<(), Self> {
        let bytes = factors.iter().try_fold(bytes_each, |product, &(_, value)| {
            product.checked_mul(value)
        });
        match bytes {
            Some(bytes) if bytes <= limit_bytes => Ok(()),
            _ => {
                let keys: Vec<String> = factors
                    .iter()
                    .map(|(key, value)| format!("{key} = {value}"))
                    .collect();
                let needed = bytes.map_or_else(
                    || "more than this machine can address".to_owned(),
                    |b| format!("{:.1} GiB", gib(b)),
                );
                Err(Self::invalid(
                    factors.first().map_or("size", |(key, _)| key),
                    format!(
                        "{} need {needed} for {what}; Benchtop allows {:.1} GiB (make them \
                         smaller)",
                        keys.join(" × "),
                        gib(limit_bytes)
                    ),
                ))
            }
        }
    }
}

/// Bytes in GiB, for messages.
fn gib(bytes: usize) -> f64 {
    bytes as f64 / f64::from(1_u32 << 30)
}

/// The memory limit for one array of user-sized data: 4 GiB.
pub const ARRAY_LIMIT_BYTES: usize = 4 << 30;

/// The memory limit for the working set of one run, all its arrays together: 6 GiB.
pub const RUN_LIMIT_BYTES: usize = 6 << 30;

/// `Result` with a [`ComputeError`].
pub type ComputeResult<T> = Result<T, ComputeError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_checks_name_the_sizes_and_never_overflow() {
        assert!(ComputeError::check_memory(&[("a", 10), ("b", 10)], 8, 1000).is_ok());
        let error =
            ComputeError::check_memory(&[("trials", 100_000), ("bins", 100_000)], 8, 1 << 30)
                .unwrap_err()
                .to_string();
        assert!(
            error.contains("trials") && error.contains("74.5 GiB"),
            "{error}"
        );
        let error = ComputeError::check_memory(&[("n", usize::MAX), ("m", 3)], 8, 1 << 30)
            .unwrap_err()
            .to_string();
        assert!(error.contains("more than this machine"), "{error}");
    }
}
