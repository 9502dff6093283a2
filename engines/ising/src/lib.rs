//! The Ising model with a plaquette coupling on an L×L torus, and neural duality discovery.
//!
//! H(s) = −β Σ_⟨ij⟩ s_i s_j − K Σ_□ s₁s₂s₃s₄ (K = 0 is the plain Ising model).
//!
//! - Samplers: the canonical checkerboard Metropolis ([`checkerboard`], CPU multi-spin coded,
//!   [`gpu`] for wgpu, [`cuda`] for NVIDIA GPUs; all three accept exactly the same flips),
//!   single-spin Metropolis with the plaquette term ([`single_spin`]) and Wolff clusters
//!   ([`wolff`], K = 0).
//! - Measurements: [`observables`] with error bars from [`stats`], spin correlations
//!   ([`correlation`]) and the paper's 13 link correlators ([`links`]).
//! - Known answers: [`exact`] (Onsager, exact enumeration) and [`couplings`] (Kramers–Wannier).
//! - [`duality`]: learning the dual couplings and observable map (Gupta, Ferrari, Iqbal,
//!   ICML 2025).

pub mod checkerboard;
pub mod correlation;
pub mod couplings;
pub mod cuda;
pub mod duality;
pub mod exact;
pub mod gpu;
pub mod lattice;
pub mod links;
pub mod observables;
pub mod simulation;
pub mod single_spin;
pub mod stats;
pub mod wolff;

pub use couplings::{BETA_CRITICAL, Couplings, kramers_wannier_dual};
pub use lattice::{SpinConfig, Start};
