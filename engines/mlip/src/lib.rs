//! PIWSL: physics-informed weak supervision for machine-learned interatomic potentials
//! (Takamoto et al., ICML 2025), on small systems with exact references.
//!
//! - [`potential`]: Müller–Brown, Lennard-Jones and Morse with exact energies and forces.
//! - [`sample`]: labelled configurations from Langevin dynamics.
//! - [`mlp`], [`model`]: a pair-descriptor MLP with hand-derived forces and the weight
//!   gradients of force losses (a second derivative; see [`model`] for why not candle).
//! - [`loss`]: supervised E + λ_F·F, PITC and PISC exactly as in the paper's trainer.
//! - [`train`], [`md`]: Adam, held-out errors and NVE velocity Verlet.
//! - [`experiment`]: the four variants side by side with the conservative and force-labelled
//!   baselines and the zero-force reference, and force-field slices.
//! - [`bench`]: the timing behind `benchtop bench mlip`.

pub mod bench;
pub mod experiment;
pub mod loss;
pub mod md;
pub mod mlp;
pub mod model;
pub mod potential;
pub mod sample;
pub mod train;

#[cfg(test)]
mod tests;

pub use experiment::{
    CONSERVATIVE, Comparison, FORCE_LABELLED, MlipParams, VARIANTS, VariantResult, compare,
};
pub use model::{ForceMode, Model};
pub use potential::{System, SystemKind};
