//! Shared compute infrastructure for Benchtop engines.
//!
//! Every engine takes a seed, reports [`Progress`], honours a [`CancelToken`] and returns a
//! [`ComputeError`] on failure. GPU work goes through one lazily created wgpu device
//! ([`gpu`]), NVIDIA GPUs through a CUDA context that is loaded at run time ([`cuda`]), and
//! neural networks through a candle device chosen in [`candle_device`]. [`npy`] is the one
//! hardened NumPy `.npy`/`.npz` reader every loader shares; [`cache`] keeps computed files (trained
//! weights) private to the user and verified; [`files`] reads a named file only when it is a
//! regular file within a stated size. Nothing here knows about screens.

pub mod backends;
pub mod cache;
pub mod cancel;
pub mod candle_device;
pub mod cuda;
pub mod error;
pub mod files;
pub mod gpu;
pub mod npy;
pub mod progress;
pub mod rng;
pub mod threads;
pub mod verdict;

pub use cancel::CancelToken;
pub use error::{ComputeError, ComputeResult};
pub use progress::Progress;
