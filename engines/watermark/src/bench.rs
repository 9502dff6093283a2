//! Throughput for `benchtop bench watermark`: StealthInk generation (model + reweighting) and
//! detection (seed replay and colour counts) on the bundled trigram model or the GRU (whose
//! training, or loading from the cache, is timed too).

use crate::detect;
use crate::experiment::WatermarkParams;
use crate::lm::{self, ModelChoice, ModelReport, ModelSetup};
use crate::scheme::{self, Method, Sampling};
use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// What the benchmark measured.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// Texts generated and detected.
    pub texts: usize,
    /// Tokens per text.
    pub tokens: usize,
    /// Vocabulary size.
    pub vocab: usize,
    /// The language model pair.
    pub model: String,
    /// Seconds to build the pair (training the GRUs, or reading them from the cache).
    pub model_build_s: f64,
    /// Held-out perplexities and training losses of the pair.
    pub model_report: Option<ModelReport>,
    /// Watermarked tokens generated per second (one thread).
    pub tokens_per_s: f64,
    /// Texts detected per second (one thread).
    pub detections_per_s: f64,
    /// Detected tokens per second (one thread).
    pub detected_tokens_per_s: f64,
    /// Fraction of texts detected at p < 0.01 (a sanity check that the work was real).
    pub detected_fraction: f64,
    /// Generated token ids, text by text (for a peer to replay detection on).
    #[serde(skip)]
    pub generated: Vec<Vec<u32>>,
    /// The key, context width, message symbols and bits per symbol the texts carry.
    #[serde(skip)]
    pub scheme: PeerScheme,
}

/// What a peer needs to replay detection: the scheme and the texts.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PeerScheme {
    /// Secret key.
    pub key: u64,
    /// Context width H.
    pub context: usize,
    /// Bits per symbol c.
    pub bits_per_symbol: usize,
    /// Message symbols (their count is the number of positions L).
    pub symbols: Vec<usize>,
    /// Vocabulary size.
    pub vocab: usize,
}

/// The peer's problem: the scheme, the texts, and our per-text colour counts and p-values to
/// compare with.
#[derive(Debug, Clone, Serialize)]
pub struct PeerProblem {
    /// The scheme.
    pub scheme: PeerScheme,
    /// Token ids per text.
    pub texts: Vec<Vec<u32>>,
    /// Our colour counts per text, `[position][colour]`.
    pub counts: Vec<Vec<Vec<u32>>>,
    /// Our exact p-values per text.
    pub p_exact: Vec<f64>,
}

impl BenchReport {
    /// The problem a peer replays (detection of every generated text, recomputed here untimed).
    pub fn peer_problem(&self) -> PeerProblem {
        let s = &self.scheme;
        let scheme = crate::scheme::Scheme {
            key: s.key,
            bits_per_symbol: s.bits_per_symbol,
            context: s.context,
            delta: 0.0,
            symbols: s.symbols.clone(),
        };
        let (positions, colours) = scheme.layout(Method::StealthInk);
        PeerProblem {
            scheme: s.clone(),
            texts: self.generated.clone(),
            counts: self
                .generated
                .iter()
                .map(|t| detect::count(t, s.key, s.context, positions, colours, s.vocab).counts)
                .collect(),
            p_exact: self
                .generated
                .iter()
                .map(|t| detect::detect(t, &scheme, Method::StealthInk, s.vocab).p_exact)
                .collect(),
        }
    }
}

/// Generates `texts` StealthInk texts of `tokens` tokens with `model` (default GRU settings;
/// trained GRUs cached in `cache_dir`, or trained every time without one) and detects them,
/// timing the model's building, generation and detection.
pub fn run(
    texts: usize,
    tokens: usize,
    seed: u64,
    model: ModelChoice,
    cache_dir: Option<&Path>,
) -> Result<BenchReport, ComputeError> {
    let params = WatermarkParams {
        tokens,
        texts,
        model,
        ..WatermarkParams::default()
    };
    if model == ModelChoice::GruFile {
        return Err(ComputeError::invalid(
            "model",
            "the benchmark trains its models; choose kjv, gru or synthetic",
        ));
    }
    let setup = ModelSetup {
        gru: params.gru.clone(),
        weights_file: None,
        cache_dir: cache_dir.map(Path::to_path_buf),
    };
    let start = Instant::now();
    let pair = lm::build(
        model,
        params.vocab,
        &setup,
        &Progress::new(),
        &CancelToken::new(),
    )?;
    let model_build_s = start.elapsed().as_secs_f64();
    let scheme = params.scheme();
    let sampling = Sampling {
        temperature: params.temperature,
        top_k: params.top_k,
    };
    let start = Instant::now();
    let generated: Vec<Vec<u32>> = (0..texts)
        .map(|i| {
            let mut rng = seeded(derive_seed(seed, i as u64));
            let prompt = &pair.prompts[i % pair.prompts.len()];
            scheme::generate(
                pair.a.as_ref(),
                &scheme,
                Method::StealthInk,
                prompt,
                tokens,
                sampling,
                &mut rng,
            )
        })
        .collect();
    let gen_s = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let detected = generated
        .iter()
        .filter(|t| detect::detect(t, &scheme, Method::StealthInk, params.vocab).p_exact < 0.01)
        .count();
    let det_s = start.elapsed().as_secs_f64();
    Ok(BenchReport {
        texts,
        tokens,
        vocab: params.vocab,
        model: model.name().to_owned(),
        model_build_s,
        model_report: pair.report.clone(),
        tokens_per_s: (texts * tokens) as f64 / gen_s,
        detections_per_s: texts as f64 / det_s,
        detected_tokens_per_s: (texts * tokens) as f64 / det_s,
        detected_fraction: detected as f64 / texts.max(1) as f64,
        generated,
        scheme: PeerScheme {
            key: scheme.key,
            context: scheme.context,
            bits_per_symbol: scheme.bits_per_symbol,
            symbols: scheme.symbols.clone(),
            vocab: params.vocab,
        },
    })
}
