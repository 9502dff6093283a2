//! Function vs representation in two-layer linear networks `Y = W₂W₁X` (Braun, Grant, Saxe,
//! "Not all solutions are created equal", ICML 2025).
//!
//! - [`data`]: Saxe-style hierarchical data, random Gaussian tasks, a user's CSV.
//! - [`solutions`]: the least-squares map, the named solution families in closed form, the
//!   G-transform.
//! - [`train`]: full-batch gradient descent under no noise, input noise and parameter noise,
//!   linear or tanh.
//! - [`similarity`]: RSM, RSA, linear CKA, functional distance.
//! - [`experiment`]: the whole comparison the panel shows, with its summary numbers.
//! - [`bench`]: the timed training loop of `benchtop bench linnet`.

pub mod bench;
pub mod data;
pub mod experiment;
pub mod linalg;
pub mod similarity;
pub mod solutions;
pub mod train;
