//! What a watermark needs from a language model: the next-token distribution of a context.
//!
//! [`SyntheticModel`] is the test model of the known answers: a fixed random distribution per
//! hashed context (the last two tokens), sharpened by a concentration.

use benchtop_compute::rng::splitmix64;

/// A next-token distribution over a fixed vocabulary.
pub trait LanguageModel: Send + Sync {
    /// Number of token ids (probabilities are indexed `0..vocab_size()`).
    fn vocab_size(&self) -> usize;
    /// Writes P(next | context) into `out` (length `vocab_size()`, summing to 1).
    fn next_probs(&self, context: &[u32], out: &mut [f64]);
    /// Display text of a token.
    fn token_text(&self, token: u32) -> String {
        format!("t{token}")
    }
}

/// A fixed random distribution per context: softmax of `concentration × N(0,1)`-like logits drawn
/// from a hash of the seed and the last two tokens.
#[derive(Debug, Clone)]
pub struct SyntheticModel {
    /// Vocabulary size.
    pub vocab: usize,
    /// Logit scale: 0 gives uniform distributions, larger values peakier ones.
    pub concentration: f64,
    /// Seed of the model (a different seed is a different model).
    pub seed: u64,
}

impl LanguageModel for SyntheticModel {
    fn vocab_size(&self) -> usize {
        self.vocab
    }

    fn next_probs(&self, context: &[u32], out: &mut [f64]) {
        let tail = &context[context.len().saturating_sub(2)..];
        let h = tail.iter().fold(splitmix64(self.seed), |h, &t| {
            splitmix64(h ^ u64::from(t).wrapping_mul(0x9e37_79b9_7f4a_7c15))
        });
        for (v, o) in out.iter_mut().enumerate() {
            let a = splitmix64(h.wrapping_add(2 * v as u64 + 1));
            let b = splitmix64(a);
            // Box–Muller from two 53-bit uniforms.
            let u1 = ((a >> 11) as f64 + 0.5) / (1_u64 << 53) as f64;
            let u2 = (b >> 11) as f64 / (1_u64 << 53) as f64;
            let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
            *o = self.concentration * z;
        }
        let max = out.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        out.iter_mut().for_each(|x| *x = (*x - max).exp());
        let s: f64 = out.iter().sum();
        out.iter_mut().for_each(|x| *x /= s);
    }
}
