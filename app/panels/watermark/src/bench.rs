//! `benchtop bench watermark`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_kit::cli::{BenchEntry, run_bench, within};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "watermark",
    about: "StealthInk on the KJV trigram or GRU model: watermarked tokens per second, detections per second, and the GRU's training time",
    run: |args| run_bench("watermark", args, watermark),
}];

/// Options of `benchtop bench watermark`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench watermark",
    about = "StealthInk on the KJV trigram or GRU model: watermarked tokens per second, detections per second, and the GRU's training time"
)]
pub struct WatermarkBench {
    /// Language model: `kjv` (trigram), `gru` (trained in candle) or `synthetic`.
    #[arg(long, default_value = "kjv", value_parser = ["kjv", "gru", "synthetic"])]
    pub model: String,
    /// Cache trained GRU weights in this folder (without it the GRUs are trained every time,
    /// so `model_build_s` is the training time).
    #[arg(long)]
    pub cache: Option<std::path::PathBuf>,
    /// Texts generated and then detected.
    #[arg(long, default_value_t = 100)]
    pub texts: usize,
    /// Tokens per text.
    #[arg(long, default_value_t = 200)]
    pub tokens: usize,
    /// Seed of sampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the scheme, the texts, our colour counts and p-values as JSON here for the NumPy
    /// peer (scripts/bench_watermark_peer.py).
    #[arg(long)]
    pub dump: Option<std::path::PathBuf>,
}

/// The watermark benchmark: `tokens_per_s` (generation with StealthInk) and `detections_per_s`.
pub fn watermark(options: &WatermarkBench) -> anyhow::Result<serde_json::Value> {
    within("--texts", options.texts, 1..=10_000)?;
    within("--tokens", options.tokens, 9..=10_000)?;
    use benchtop_watermark::lm::ModelChoice;
    let model = match options.model.as_str() {
        "gru" => ModelChoice::Gru,
        "synthetic" => ModelChoice::Synthetic,
        _ => ModelChoice::Kjv,
    };
    let report = benchtop_watermark::bench::run(
        options.texts,
        options.tokens,
        options.seed,
        model,
        options.cache.as_deref(),
    )?;
    if let Some(path) = &options.dump {
        std::fs::write(path, serde_json::to_string(&report.peer_problem())?)
            .map_err(|e| anyhow::anyhow!("--dump {}: {e}", path.display()))?;
    }
    Ok(serde_json::to_value(report)?)
}
