//! StealthInk (ICML 2025): distribution-preserving multi-bit watermarks for generated text, with
//! the KGW baselines, attacks and detection, on small word-level language models (a trigram and
//! a GRU).
//!
//! - [`message`]: user ID + timestamp → bits → symbols of c bits.
//! - [`prf`]: context seeds of the last H tokens, message positions, permutations, colour lists.
//! - [`reweight`]: the StealthInk CDF reweighting and the KGW logit bias.
//! - [`sampling`]: temperature, top-k and drawing a token.
//! - [`scheme`]: the key and message, and generation with each method.
//! - [`detect`]: colour counts, z, Gaussian and exact p-values, decoding (ties and unscored
//!   positions settled by a keyed coin), bit accuracy.
//! - [`stats`]: normal CDF, exact null laws, ROC/AUC, TPR at FPR, KS distance and p-value.
//! - [`attack`]: substitution, deletion, insertion and copy-paste at a rate.
//! - [`model`]: the language-model interface and a synthetic test model.
//! - [`corpus`]: the bundled King James text and the word tokenizer.
//! - [`ngram`]: the interpolated trigram word model and per-token NLL.
//! - [`gru`]: the GRU word model trained in candle (plain-Rust inference, safetensors files,
//!   the weight cache).
//! - [`lm`]: the model pairs (generator and second model), prompts and held-out perplexity.
//! - [`experiment`]: one full comparison (AUC, TPR, bit accuracy, perplexity, attacks, the
//!   Monte Carlo distribution check).
//! - [`claims`]: the paper's claims judged on one experiment by fixed rules.
//! - [`bench`]: throughput of watermarked generation and detection.

pub mod attack;
pub mod bench;
pub mod claims;
pub mod corpus;
pub mod detect;
pub mod experiment;
pub mod gru;
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
