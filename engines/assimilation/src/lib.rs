//! Variational data assimilation on chaotic systems, classic and in a kernel feature space
//! (Tensor-Var; Yang, Cheng, Luo, Fan & Arcucci, ICML 2025). Nothing here knows about screens.
//!
//! * [`dynamics`]: Lorenz-96, RK4 and its tangent-linear and adjoint; the discrete [`dynamics::Model`].
//! * [`ks`]: Kuramoto–Sivashinsky by ETDRK4, its tangent-linear and adjoint.
//! * [`observe`]: the paper's 5·arctan(0.1x) observation of a fraction of components.
//! * L-BFGS is the shared one of `benchtop_learn::lbfgs`.
//! * [`variational`]: strong-constraint 4D-Var (adjoint gradient) and 3D-Var on the true model.
//! * [`enkf`]: the stochastic ensemble Kalman filter with Gaspari–Cohn localisation and
//!   inflation, the standard sequential baseline.
//! * [`references`]: the trivial references (climatology; observations inverted, no dynamics).
//! * [`tuning`]: the baselines' B scale, localisation and inflation chosen on training windows.
//! * [`claims`]: the paper's claims judged on one run (holds, holds partly, does not hold).
//! * [`features`]: random Fourier features + PCA and the kernel ridge pre-image.
//! * [`tensorvar`]: the CME operators, precisions and pseudo-observations.
//! * [`window`]: the window quadratic, solved exactly by block-tridiagonal Cholesky.
//! * [`experiment`]: data, training and cycling of every method over windows.
//! * [`linalg`]: ridge, covariances, precisions.
//! * [`bench`]: the `benchtop bench assimilation` workload and the peer's problem.

pub mod bench;
pub mod claims;
pub mod dynamics;
pub mod enkf;
pub mod experiment;
pub mod features;
pub mod ks;
pub mod linalg;
pub mod observe;
pub mod references;
pub mod tensorvar;
pub mod tuning;
pub mod variational;
pub mod window;

#[cfg(test)]
mod baseline_tests;
#[cfg(test)]
mod ks_tests;
#[cfg(test)]
mod tests;

pub use claims::{Claim, Verdict};
pub use enkf::EnkfSettings;
pub use experiment::{
    AssimParams, AssimResult, Data, MethodRun, SystemKind, make_data, run, run_live, run_on,
    run_on_live,
};
pub use tensorvar::{TensorVarModel, TensorVarSettings, TrainingFit};
pub use tuning::Tuning;
