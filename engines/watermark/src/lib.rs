//! StealthInk (ICML 2025): distribution-preserving multi-bit watermarks for generated text, with
//! the KGW baselines, attacks and detection, on a small word-level language model.
//!
//! - [`message`]: user ID + timestamp → bits → symbols of c bits.
//! - [`prf`]: context seeds of the last H tokens, message positions, permutations, colour lists.
//! - [`reweight`]: the StealthInk CDF reweighting and the KGW logit bias.
//! - [`sampling`]: temperature, top-k and drawing a token.
//! - [`scheme`]: the key and message, and generation with each method.
//! - [`detect`]: colour counts, z, Gaussian and exact p-values, decoding, bit accuracy.
//! - [`stats`]: normal CDF, exact null laws, ROC/AUC, TPR at FPR, KS distance.
//! - [`attack`]: substitution, deletion, insertion and copy-paste at a rate.
//! - [`model`]: the language-model interface and a synthetic test model.
//! - [`corpus`]: the bundled King James text and the word tokenizer.
//! - [`ngram`]: the interpolated trigram word model and per-token NLL.
//! - [`lm`]: the model pair (generator and second model) and prompts.
//! - [`experiment`]: one full comparison (AUC, TPR, bit accuracy, perplexity, attacks, the
//!   Monte Carlo distribution check).
//! - [`bench`]: throughput of watermarked generation and detection.

pub mod attack;
pub mod bench;
pub mod corpus;
pub mod detect;
pub mod experiment;
pub mod lm;
pub mod message;
pub mod model;
pub mod ngram;
pub mod prf;
pub mod reweight;
pub mod sampling;
pub mod scheme;
pub mod stats;

#[cfg(test)]
mod wm_known_answers;
