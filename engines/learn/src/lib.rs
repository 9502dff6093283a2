//! Numerics shared by the engines, written once: a new engine reaches for these before it
//! writes its own.
//!
//! - [`adam`]: Adam as PyTorch's `torch.optim.Adam` (L2 weight decay added to the gradient),
//!   on `f64` slices ([`adam::Adam`]) and on candle variables ([`adam::VarAdam`]), and the
//!   cosine learning-rate decay. Decoupled weight decay (AdamW) on candle variables is
//!   `candle_nn::AdamW`.
//! - [`lbfgs`]: limited-memory BFGS with a backtracking Armijo line search, fallible and
//!   cancellable objectives, an optional step cap, and multi-start.
//! - [`nn`]: small networks on candle: a multilayer perceptron and a token GRU (embedding,
//!   stacked GRU layers, linear head) for sequence models.
//! - [`mlp_step`]: the micro-benchmark of candle's cost per small-tensor operation (training
//!   steps of a 64-wide MLP; `benchtop bench candle-mlp` against PyTorch).
//! - [`settings`]: range checks of training settings that name the key.
//!
//! Dense linear algebra is nalgebra's; gradients of candle graphs are candle's.

pub mod adam;
pub mod lbfgs;
pub mod mlp_step;
pub mod nn;
pub mod settings;
