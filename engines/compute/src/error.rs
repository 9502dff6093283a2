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
}

impl ComputeError {
    /// Shorthand for [`ComputeError::InvalidParameter`].
    pub fn invalid(name: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::InvalidParameter {
            name: name.into(),
            reason: reason.into(),
        }
    }
}

/// `Result` with a [`ComputeError`].
pub type ComputeResult<T> = Result<T, ComputeError>;
