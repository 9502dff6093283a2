//! Continuous weak-features learning (Sugiyama, Uchida, ICML 2025) at small scale: weak
//! features x_w missing for part of the rows (MCAR, MAR or MNAR), a feature estimator
//! f: x_o → x̂_w and a label model h(x_o, x̃_w), trained sequentially (f, then h) or
//! iteratively (alternating f- and h-steps for R rounds), with the measured excess risk beside
//! closed forms of the Gaussian-linear model.
//!
//! - [`data`]: the jointly Gaussian generator, the bundled breast-cancer table, a user's CSV.
//! - [`missing`]: the missingness mechanisms.
//! - [`linear`], [`mlp`]: ridge regression (nalgebra) and small candle MLPs with a Lipschitz cap.
//! - [`models`]: the estimators f and label models h, the iterative f-step.
//! - [`closed_form`]: plug-in and oracle-plus-noise excess risks, the attenuation factor.
//! - [`experiment`]: one run: schemes, references, rounds and the two curves.
//! - [`bench`]: the workload of `benchtop bench weakfeatures`.

pub mod bench;
pub mod closed_form;
pub mod data;
pub mod experiment;
pub mod linear;
pub mod missing;
pub mod mlp;
pub mod models;

pub use experiment::{Output, Params, run};
