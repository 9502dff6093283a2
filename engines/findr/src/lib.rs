//! FINDR: flow-field inference from neural data using deep recurrent networks (Kim, Luo, Can,
//! Krishnamurthy, Pillow, Brody, ICML 2025).
//!
//! - [`bench`]: timing of one training step for `benchtop bench findr`.
//! - [`planted`]: the constrained 2-D hypothesis family (line attractor plus bumps) with its
//!   exact Jacobian and the fixed points and eigenvalues its parameters imply.
//! - [`clicks`]: the Poisson-clicks task (click rates from γ, click adaptation, binning).
//! - [`synthetic`]: trials from the planted flow, read out by softplus-Poisson neurons.
//! - [`generators`]: data from other flows, inputs and observation models (robustness checks).
//! - [`robustness`]: fits of those data sets with the default settings, and what they recovered.
//! - [`trials`]: trials in the FINDR layout.
//! - [`load`]: reading trials from NPZ (FINDR's layout) or CSV, and writing them.
//! - [`softplus`]: the softplus link and its inverse.
//! - [`baseline`]: the per-neuron baseline (ridge regression on radial basis functions).
//! - [`confidence`]: how many restarts found each fixed point.
//! - [`analysis`]: fixed points of a 2-D flow with Jacobian eigenvalues and stability labels.
//! - [`linalg`]: small dense solves and 2×2 eigenvalues.
//! - [`gnsde`]: the gated neural SDE prior cell (candle) and the one-step transition KL.
//! - [`init`]: seeded parameter initialisation and noise tensors.
//! - [`flow_weights`]: an f64 copy of a learned gated flow, for analysis.
//! - [`field`]: a 2-D flow and its speed on a grid.
//! - [`encoder`]: the bidirectional GRU encoder (candle), padding-aware.
//! - [`posterior`]: the posterior SDE cell (candle), the prior form with the encoder output.
//! - [`predictive`]: the held-out predictive likelihood (the prior predicts unseen bins).
//! - [`observation`]: softplus-Poisson rates on the baseline and the Poisson NLL (candle).
//! - [`model`]: the sequential VAE (prior, encoder, posterior, readout) and its loss terms.
//! - [`train`]: SGD with momentum, clipping, SGDR, KL warm-up, k-fold splits, early stopping.
//! - [`frame`]: display frames (orthogonalised readout, alignment to planted latents).
//! - [`trajectories`]: noiseless paths, trial groups, visits, click probability, PSTHs.
//! - [`pipeline`]: the whole fit (baseline, training, analysis) behind one call.
//! - [`selection`]: model selection over a small grid by k-fold held-out predictive likelihood.
//! - [`result`]: what a fit produces (curves, flow, fixed points, trajectories, PSTHs).

pub mod analysis;
pub mod baseline;
pub mod bench;
pub mod clicks;
pub mod confidence;
pub mod consensus;
pub mod encoder;
pub mod field;
pub mod flow_weights;
pub mod frame;
pub mod generators;
pub mod gnsde;
pub mod init;
pub mod linalg;
pub mod load;
pub mod model;
pub mod observation;
pub mod pipeline;
pub mod planted;
pub mod posterior;
pub mod predictive;
pub mod result;
pub mod robustness;
pub mod selection;
pub mod softplus;
pub mod synthetic;
pub mod train;
pub mod trajectories;
pub mod trials;
pub mod zone_shape;
