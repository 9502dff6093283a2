//! MolStitch engine: offline molecular optimisation (Shin et al., ICML 2025) on top of the
//! shared chemistry crate [`benchtop_chem`] (RDKit through a cxx bridge, QED, SA, BRICS, the
//! shipped offline set and its loaders).
//!
//! On top of the chemistry: objectives in [0, 1] ([`objectives`]; the paper's JNK3/GSK3β oracles are trained models not
//! available offline), evaluation metrics ([`metrics`]: hypervolume, R2, top-k, diversity,
//! validity, uniqueness, novelty), random pairing and preference sampling ([`pairing`]), the
//! generator losses ([`losses`]: IPO, trajectory balance, REINVENT) and the scoring benchmark
//! ([`bench`]).
//!
//! The generator side:
//! - [`crossover`]: seeded BRICS crossover pairs (fragment A, fragment B, child), StitchNet's
//!   pretraining data.
//! - [`stitchnet`]: StitchNet, the GRU encoder–decoder that writes a child from the mean of two
//!   fragment encodings (pretraining, seeded decoding, save/load), run on one thread.
//! - [`vocab`]: the SMILES tokenizer and the token vocabulary (PAD, BOS, EOS + corpus tokens).
//! - [`prior`]: the SMILES GRU language-model prior in candle (teacher-forced NLL, Adam
//!   training, seeded sampling, sequence log-likelihood), run on one thread.
//! - [`optimise`]: the MolStitch pipeline (prior, trajectory balance, rank proxies, stitch +
//!   IPO rounds) and its evaluation against two baselines under one oracle budget.

pub mod bench;
pub mod crossover;
mod init;
pub mod losses;
pub mod metrics;
pub mod objectives;
pub mod optimise;
pub mod pairing;
pub mod prior;
pub mod stitchnet;
pub mod vocab;

pub use objectives::{ObjectiveSpec, Objectives};
