//! A keyed watermarking scheme and generation with it: plain sampling, StealthInk, KGW and
//! multi-bit KGW, all on the same model, key and context hashing.

use crate::model::LanguageModel;
use crate::{prf, reweight, sampling};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// How a text is generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Method {
    /// No watermark.
    Plain,
    /// StealthInk: the distribution-preserving multi-bit reweighting.
    StealthInk,
    /// KGW: δ added to the logits of a green half of the vocabulary (zero-bit).
    Kgw,
    /// Multi-bit KGW: δ added to colour list m_b of the position the seed picks.
    KgwMulti,
}

impl Method {
    /// All methods in display order.
    pub const ALL: [Method; 4] = [
        Method::Plain,
        Method::StealthInk,
        Method::Kgw,
        Method::KgwMulti,
    ];

    /// The name used in summaries and tables.
    pub fn name(self) -> &'static str {
        match self {
            Method::Plain => "plain",
            Method::StealthInk => "StealthInk",
            Method::Kgw => "KGW",
            Method::KgwMulti => "KGW multi-bit",
        }
    }
}

/// The key and message of a watermark.
#[derive(Debug, Clone, PartialEq)]
pub struct Scheme {
    /// Secret key of the PRF.
    pub key: u64,
    /// Bits per symbol c (2^c colour lists).
    pub bits_per_symbol: usize,
    /// Context width H (tokens hashed into a seed).
    pub context: usize,
    /// KGW logit bias δ.
    pub delta: f64,
    /// The message symbols m_0..m_{L−1}, each in 0..2^c.
    pub symbols: Vec<usize>,
}

impl Scheme {
    /// Number of colour lists 2^c.
    pub fn colours(&self) -> usize {
        1 << self.bits_per_symbol
    }

    /// Colour lists and message positions the detector of `method` counts over.
    pub fn layout(&self, method: Method) -> (usize, usize) {
        match method {
            Method::Kgw => (1, 2),
            _ => (self.symbols.len().max(1), self.colours()),
        }
    }
}

/// Sampling settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    /// Temperature (1 = the model's distribution).
    pub temperature: f64,
    /// Keep the k most likely tokens (0 = all).
    pub top_k: usize,
}

/// Reusable buffers of one generator thread.
#[derive(Debug, Default)]
struct Buffers {
    p: Vec<f64>,
    q: Vec<f64>,
    order: Vec<u32>,
}

/// Generates `tokens` tokens after `prompt` with `method`. Only tokens whose H-token context lies
/// in the generated part carry the watermark (so a detector that sees only the generated tokens
/// replays every seed), and a seed already used in this text is skipped.
pub fn generate(
    model: &dyn LanguageModel,
    scheme: &Scheme,
    method: Method,
    prompt: &[u32],
    tokens: usize,
    sampling: Sampling,
    rng: &mut impl Rng,
) -> Vec<u32> {
    let vocab = model.vocab_size();
    let mut b = Buffers {
        p: vec![0.0; vocab],
        q: vec![0.0; vocab],
        order: Vec::with_capacity(vocab),
    };
    let mut context: Vec<u32> = prompt.to_vec();
    let mut seen = HashSet::new();
    let h = scheme.context;
    for i in 0..tokens {
        model.next_probs(&context, &mut b.p);
        sampling::temper(&mut b.p, sampling.temperature, sampling.top_k);
        let u: f64 = rng.random();
        let keyed = method != Method::Plain && i >= h;
        let seed = prf::context_seed(scheme.key, &context[context.len() - h.min(context.len())..]);
        let token = if keyed && seen.insert(seed) {
            step(scheme, method, seed, &mut b);
            sampling::draw(&b.q, u)
        } else {
            sampling::draw(&b.p, u)
        };
        context.push(token);
    }
    context.split_off(prompt.len())
}

/// The keyed distribution of one step into `b.q`.
fn step(scheme: &Scheme, method: Method, seed: u64, b: &mut Buffers) {
    let vocab = b.p.len();
    prf::permutation(seed, vocab, &mut b.order);
    let (positions, colours) = scheme.layout(method);
    let symbol = match method {
        Method::Kgw => 0,
        _ => scheme.symbols[prf::position(seed, positions)],
    };
    let chunk = prf::chunk_of_colour(seed, symbol, colours);
    match method {
        Method::StealthInk => {
            reweight::stealthink(&b.p, &b.order, chunk, colours, &mut b.q);
        }
        Method::Kgw | Method::KgwMulti => {
            reweight::kgw(&b.p, &b.order, chunk, colours, scheme.delta, &mut b.q);
        }
        Method::Plain => b.q.copy_from_slice(&b.p),
    }
}

/// The keyed distribution StealthInk samples from for a context (for checks and the panel).
pub fn stealthink_distribution(scheme: &Scheme, seed: u64, p: &[f64]) -> Vec<f64> {
    let mut b = Buffers {
        p: p.to_vec(),
        q: vec![0.0; p.len()],
        order: Vec::new(),
    };
    step(scheme, Method::StealthInk, seed, &mut b);
    b.q
}
