//! Robust and conjugate spatio-temporal Gaussian processes (ST-RCGP; Laplante, Altamirano,
//! Duncan, Knoblauch & Briol, ICML 2025).
//!
//! A separable space × time GP with a temporal Matérn kernel in state-space form is filtered
//! over time with a stacked state (cost linear in the number of time steps) and smoothed with
//! the RTS smoother. The standard update gives the STGP; the robust update replaces the noise by
//! R_eff = σ⁴/(2w²) and the observation by ỹ = y − 2σ² ∂_y w/w with an IMQ weight w, which
//! down-weights outliers while staying conjugate. Nothing here knows about screens.
//!
//! * [`kernel`]: Matérn state-space forms and spatial kernels.
//! * [`model`]: the separable prior and its stacked state.
//! * [`robust`]: the IMQ weight, R_eff and the corrected observation.
//! * [`filter`]: Kalman filter, RTS smoother, the decoupled exact likelihood.
//! * [`dense`]: O(n³) GP regression, the reference.
//! * [`fit`]: hyperparameters by L-BFGS (`benchtop_learn::lbfgs`).
//! * [`data`]: the Figure-1 field, outliers, vendored series and the CSV loader.
//! * [`metrics`]: RMSE and NLPD.
//! * [`experiment`]: one experiment end to end and the outlier-rate sweep.
//! * [`bench`]: the `benchtop bench rcgp` workload.

pub mod bench;
pub mod data;
pub mod dense;
pub mod experiment;
pub mod filter;
pub mod fit;
pub mod kernel;
pub mod metrics;
pub mod model;
pub mod robust;

#[cfg(test)]
mod tests;

pub use experiment::{
    DataSpec, MethodResult, RcgpParams, RobustFit, RunResult, Source, SweepPoint, run, run_on,
    sweep_outlier_rate,
};
pub use kernel::{SpatialKernel, TemporalKernel};
pub use model::{Hyper, KernelChoice};
pub use robust::RobustSettings;
