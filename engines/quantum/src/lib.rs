//! Deep learning against classical machine learning for quantum ground states under one
//! measurement budget (Zhao, Zhang, Du, "Rethink the Role of Deep Learning towards Large-scale
//! Quantum Systems", ICML 2025), at the scale of exact diagonalisation.
//!
//! - [`hamiltonian`]: random-bond Heisenberg and transverse-field Ising chains, open or
//!   periodic, applied matrix-free on the 2^L basis.
//! - [`lanczos`]: their ground states by Lanczos with full reorthogonalisation and restarts.
//! - [`observables`]: exact Pauli expectations, correlations C_ij, Rényi-2 entropies of
//!   blocks, the TFIM order parameter.
//! - [`shadows`]: classical shadows (random Pauli bases) and their estimators.
//! - [`dataset`]: pools of chains with exact targets; the shadow data of a budget.
//! - [`learners`]: ridge, Lasso, kernel ridge (RBF, Dirichlet), an MLP and a CNN.
//! - [`experiment`]: the comparison at one budget, the randomisation test, error against n.
//! - [`study`]: shadow estimates converging on one chain; the known answers.
//! - [`bench`]: the `benchtop bench quantum` workload.

pub mod bench;
pub mod dataset;
pub mod experiment;
pub mod hamiltonian;
pub mod lanczos;
pub mod learners;
pub mod observables;
pub mod shadows;
pub mod study;
