//! One experiment: generate many plain, StealthInk, KGW and multi-bit KGW texts with the same
//! model, key and prompts; detect, decode, attack, and measure perplexity under two models.

use crate::attack::{self, Attack};
use crate::claims::{self, Claim};
use crate::detect::{self, Detection};
use crate::gru::GruConfig;
use crate::lm::{self, ModelChoice, ModelPair, ModelReport, ModelSetup};
use crate::message;
use crate::model::{LanguageModel, SyntheticModel};
use crate::ngram::mean_nll;
use crate::prf;
use crate::scheme::{self, Method, Sampling, Scheme};
use crate::stats;
use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use rand::Rng as _;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Everything an experiment depends on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WatermarkParams {
    /// User ID embedded in the message.
    pub user_id: String,
    /// Timestamp (seconds) embedded in the message.
    pub timestamp: u64,
    /// Message length in bits.
    pub message_bits: usize,
    /// Bits per symbol c (2^c colour lists), 1..=4.
    pub bits_per_symbol: usize,
    /// Context width H.
    pub context: usize,
    /// Secret key.
    pub key: u64,
    /// KGW logit bias δ.
    pub delta: f64,
    /// Sampling temperature.
    pub temperature: f64,
    /// Top-k (0 = off).
    pub top_k: usize,
    /// Tokens per generated text.
    pub tokens: usize,
    /// Texts per method.
    pub texts: usize,
    /// Vocabulary size (a multiple of 16, so 2^c colour lists are equal).
    pub vocab: usize,
    /// The models.
    pub model: ModelChoice,
    /// Size and training of the GRU models ([`ModelChoice::Gru`], and the second model of
    /// [`ModelChoice::GruFile`]).
    pub gru: GruConfig,
    /// The user's GRU weights (safetensors) for [`ModelChoice::GruFile`]: a path, relative to the
    /// project folder or absolute.
    pub weights_file: String,
    /// Attack applied for the attack curve and the example.
    pub attack: Attack,
    /// Attack rate of the example and the headline robustness numbers.
    pub attack_rate: f64,
    /// Draws of the Monte Carlo distribution check.
    pub check_draws: usize,
}

impl Default for WatermarkParams {
    fn default() -> Self {
        Self {
            user_id: "ada.lovelace".into(),
            timestamp: 1_733_097_600,
            message_bits: 24,
            bits_per_symbol: 1,
            context: 3,
            key: 15_485_863,
            delta: 2.0,
            temperature: 1.0,
            top_k: 0,
            tokens: 200,
            texts: 100,
            vocab: 1024,
            model: ModelChoice::Gru,
            gru: GruConfig::default(),
            weights_file: String::new(),
            attack: Attack::Substitution,
            attack_rate: 0.2,
            check_draws: 100_000,
        }
    }
}

impl WatermarkParams {
    /// Checks every field; the error names the offending one.
    pub fn validate(&self) -> Result<(), ComputeError> {
        let bad = |n: &str, r: &str| Err(ComputeError::invalid(n, r));
        if !(1..=4).contains(&self.bits_per_symbol) {
            return bad("bits_per_symbol", "must be 1 to 4");
        }
        if !(1..=128).contains(&self.message_bits) {
            return bad("message_bits", "must be 1 to 128");
        }
        if !(1..=16).contains(&self.context) {
            return bad("context", "must be 1 to 16");
        }
        if self.vocab < 16 || !self.vocab.is_multiple_of(16) {
            return bad("vocab", "must be a multiple of 16, at least 16");
        }
        if self.tokens < self.context + 8 {
            return bad("tokens", "must exceed the context H by at least 8");
        }
        if self.texts < 4 {
            return bad("texts", "must be at least 4");
        }
        if !(self.temperature.is_finite() && self.temperature > 0.0) {
            return bad("temperature", "must be positive");
        }
        if !(0.0..=1.0).contains(&self.attack_rate) {
            return bad("attack_rate", "must be in [0, 1]");
        }
        if !(self.delta.is_finite() && self.delta >= 0.0) {
            return bad("delta", "must be a non-negative number");
        }
        if matches!(self.model, ModelChoice::Gru | ModelChoice::GruFile) {
            self.gru.validate()?;
        }
        if self.model == ModelChoice::GruFile && self.weights_file.trim().is_empty() {
            return bad("weights_file", "choose a safetensors file of GRU weights");
        }
        Ok(())
    }

    /// The message bits of the user ID and timestamp.
    pub fn bits(&self) -> Vec<u8> {
        message::message_bits(&self.user_id, self.timestamp, self.message_bits)
    }

    /// The scheme (key, c, H, δ, symbols).
    pub fn scheme(&self) -> Scheme {
        Scheme {
            key: self.key,
            bits_per_symbol: self.bits_per_symbol,
            context: self.context,
            delta: self.delta,
            symbols: message::to_symbols(&self.bits(), self.bits_per_symbol),
        }
    }

    /// Prefix lengths of the curves: eighths, quarters, halves and the whole text.
    pub fn lengths(&self) -> Vec<usize> {
        let mut l: Vec<usize> = [8, 4, 2, 1]
            .iter()
            .map(|d| self.tokens / d)
            .filter(|&n| n > self.context)
            .collect();
        l.dedup();
        l
    }
}

/// One point of a curve against text length.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AtLength {
    /// Tokens.
    pub tokens: usize,
    /// The value.
    pub value: f64,
}

/// What one method scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodResult {
    /// Which method.
    pub method: Method,
    /// Perplexity under the generating model (exp of the mean per-token NLL).
    pub perplexity: f64,
    /// Standard error of the mean per-token NLL across texts (nats).
    pub nll_se: f64,
    /// Perplexity under the second model.
    pub perplexity_second: f64,
    /// AUC (this method's texts against plain texts, its own detector) by length; for `plain`,
    /// one half of the plain texts against the other with the StealthInk detector.
    pub auc_by_tokens: Vec<AtLength>,
    /// TPR at 1 % FPR at full length.
    pub tpr_at_1pct_fpr: f64,
    /// Mean bit accuracy of the decoded message by length (empty for zero-bit KGW).
    pub bit_accuracy_by_tokens: Vec<AtLength>,
    /// Mean fraction of the message positions the decoder's keyed coin settled (no scored
    /// token, or tied counts), by length (empty for zero-bit KGW and for results saved before
    /// the coin).
    #[serde(default)]
    pub coin_fraction_by_tokens: Vec<AtLength>,
    /// ROC at full length.
    pub roc: Vec<(f64, f64)>,
}

/// The Monte Carlo check that StealthInk preserves the distribution.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DistributionCheck {
    /// Bits per symbol c the check ran at (2^c colour lists); 0 in results saved before it was
    /// recorded.
    #[serde(default)]
    pub bits_per_symbol: usize,
    /// Vocabulary of the check.
    pub vocab: usize,
    /// Random permutations averaged.
    pub draws: usize,
    /// max_v |mean p′_v − p_v|.
    pub max_abs_deviation: f64,
    /// Five standard errors of the mean of the p′_v with the largest spread.
    pub tolerance: f64,
    /// Mean red-list mass before reweighting.
    pub red_mass_before: f64,
    /// Mean red-list mass after.
    pub red_mass_after: f64,
}

/// One point of the attack curve.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AttackPoint {
    /// Attack rate.
    pub rate: f64,
    /// AUC of attacked StealthInk texts against plain texts.
    pub auc: f64,
    /// TPR at 1 % FPR.
    pub tpr_at_1pct_fpr: f64,
    /// Mean bit accuracy.
    pub bit_accuracy: f64,
}

/// A token of an example text with its replayed colour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarkedToken {
    /// The token's text.
    pub text: String,
    /// None: not scored (first H tokens, repeated seed); Some(true): in the red list of its
    /// position (the list StealthInk avoids); Some(false): another list.
    pub red: Option<bool>,
}

/// An example pair of texts for display.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Example {
    /// The prompt.
    pub prompt: String,
    /// Plain continuation.
    pub plain: Vec<MarkedToken>,
    /// StealthInk continuation, after the attack at the chosen rate.
    pub watermarked: Vec<MarkedToken>,
    /// (tokens, z, exact p) of the watermarked text's prefixes.
    pub watermarked_curve: Vec<(usize, f64, f64)>,
    /// (tokens, z, exact p) of the plain text's prefixes.
    pub plain_curve: Vec<(usize, f64, f64)>,
    /// Decoded bits of the watermarked example.
    pub decoded_bits: Vec<u8>,
}

/// Everything an experiment produces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WatermarkResult {
    /// The message bits.
    pub bits: Vec<u8>,
    /// Per method.
    pub methods: Vec<MethodResult>,
    /// The Monte Carlo distribution check.
    pub distribution_check: DistributionCheck,
    /// The attack curve (StealthInk, full length).
    pub attack_curve: Vec<AttackPoint>,
    /// Kolmogorov–Smirnov distance to uniform of the exact p-values of the plain texts
    /// (randomised within their atom).
    #[serde(alias = "null_ks_exact")]
    pub null_ks_distance_exact: f64,
    /// Kolmogorov–Smirnov distance to uniform of the paper's Gaussian p-values of the plain
    /// texts.
    #[serde(alias = "null_ks_gauss")]
    pub null_ks_distance_gauss: f64,
    /// The KS test's p-value of [`Self::null_ks_distance_exact`] for [`Self::null_texts`]
    /// texts ([`stats::ks_p_value`]; NaN in results saved before it was computed).
    #[serde(default = "not_computed")]
    pub null_ks_p_exact: f64,
    /// The KS test's p-value of [`Self::null_ks_distance_gauss`].
    #[serde(default = "not_computed")]
    pub null_ks_p_gauss: f64,
    /// Plain texts whose p-values the KS tests compare with the uniform law.
    #[serde(default)]
    pub null_texts: usize,
    /// The example texts.
    pub example: Example,
    /// How the models score on the held-out verses and how the GRUs trained (None for the
    /// synthetic pair).
    #[serde(default)]
    pub model: Option<ModelReport>,
    /// The paper's claims judged on this run ([`claims::judge`]; empty in results saved before
    /// they were).
    #[serde(default)]
    pub claims: Vec<Claim>,
}

/// NaN: a value older saved results do not hold.
fn not_computed() -> f64 {
    f64::NAN
}

/// The chance level of bit accuracy: a decoder that knows nothing gets each bit right with
/// probability ½ (plain text decodes at it; see [`detect`]).
pub const BIT_ACCURACY_CHANCE: f64 = 0.5;

/// Where an experiment's model files are: the GRU weight cache and the folder a relative
/// `weights_file` is read from.
#[derive(Debug, Clone, Default)]
pub struct ModelFiles {
    /// Where trained GRUs are cached (None: train every time).
    pub cache_dir: Option<PathBuf>,
    /// The project folder (None: relative paths are taken as they are).
    pub project_dir: Option<PathBuf>,
}

/// Generated texts of one method: (prompt index, tokens).
type Texts = Vec<(usize, Vec<u32>)>;

/// Generates `n` texts with `method` (in parallel; text i uses its own seed stream).
fn generate_all(
    pair: &ModelPair,
    scheme: &Scheme,
    method: Method,
    p: &WatermarkParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Texts, ComputeError> {
    let sampling = Sampling {
        temperature: p.temperature,
        top_k: p.top_k,
    };
    let done = std::sync::atomic::AtomicUsize::new(0);
    (0..p.texts)
        .into_par_iter()
        .map(|i| {
            cancel.check()?;
            let prompt_index = i % pair.prompts.len().max(1);
            let prompt = pair.prompts.get(prompt_index).cloned().unwrap_or_default();
            let mut rng = seeded(derive_seed(seed, i as u64));
            let text = scheme::generate(
                pair.a.as_ref(),
                scheme,
                method,
                &prompt,
                p.tokens,
                sampling,
                &mut rng,
            );
            let d = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress.set_fraction(d as f64 / p.texts as f64);
            Ok((prompt_index, text))
        })
        .collect()
}

/// Averages the StealthInk distribution over `draws` random permutations of a fixed distribution
/// on a `vocab`-token vocabulary with `c` bits per symbol.
pub fn distribution_check(vocab: usize, c: usize, draws: usize, seed: u64) -> DistributionCheck {
    let model = SyntheticModel {
        vocab,
        concentration: 1.0,
        seed,
    };
    let mut p = vec![0.0; vocab];
    model.next_probs(&[], &mut p);
    let scheme = Scheme {
        key: seed,
        bits_per_symbol: c,
        context: 1,
        delta: 0.0,
        symbols: vec![0, (1 << c) - 1],
    };
    let mut sum = vec![0.0; vocab];
    let mut sum_sq = vec![0.0; vocab];
    let (mut red_before, mut red_after) = (0.0, 0.0);
    let mut order = Vec::new();
    let colours = 1 << c;
    for d in 0..draws {
        let s = derive_seed(seed, d as u64);
        let q = scheme::stealthink_distribution(&scheme, s, &p);
        prf::permutation(s, vocab, &mut order);
        let red = prf::chunk_of_colour(s, scheme.symbols[prf::position(s, 2)], colours);
        for &v in &order[red * vocab / colours..(red + 1) * vocab / colours] {
            red_before += p[v as usize];
            red_after += q[v as usize];
        }
        for v in 0..vocab {
            sum[v] += q[v];
            sum_sq[v] += q[v] * q[v];
        }
    }
    let n = draws as f64;
    let mut max_dev: f64 = 0.0;
    let mut max_se: f64 = 0.0;
    for v in 0..vocab {
        let mean = sum[v] / n;
        let var = (sum_sq[v] / n - mean * mean).max(0.0);
        max_dev = max_dev.max((mean - p[v]).abs());
        max_se = max_se.max((var / n).sqrt());
    }
    DistributionCheck {
        bits_per_symbol: c,
        vocab,
        draws,
        max_abs_deviation: max_dev,
        tolerance: 5.0 * max_se,
        red_mass_before: red_before / n,
        red_mass_after: red_after / n,
    }
}

/// Detects every text's prefix of `len` tokens.
fn detect_all(
    texts: &[Vec<u32>],
    len: usize,
    scheme: &Scheme,
    m: Method,
    vocab: usize,
) -> Vec<Detection> {
    texts
        .par_iter()
        .map(|t| detect::detect(&t[..len.min(t.len())], scheme, m, vocab))
        .collect()
}

fn scores(d: &[Detection]) -> Vec<f64> {
    d.iter().map(Detection::score).collect()
}

fn mean_accuracy(d: &[Detection], scheme: &Scheme, bits: usize) -> f64 {
    d.iter()
        .map(|x| detect::bit_accuracy(&x.decoded, &scheme.symbols, scheme.bits_per_symbol, bits))
        .sum::<f64>()
        / d.len().max(1) as f64
}

/// Mean fraction of the message positions the keyed coin settled.
fn mean_coin_fraction(d: &[Detection], positions: usize) -> f64 {
    d.iter()
        .map(|x| x.by_coin as f64 / positions.max(1) as f64)
        .sum::<f64>()
        / d.len().max(1) as f64
}

/// Perplexity (exp mean NLL), standard error of the NLL, and perplexity under the second model.
fn perplexities(pair: &ModelPair, texts: &Texts) -> (f64, f64, f64) {
    let nll = |m: &dyn LanguageModel| -> Vec<f64> {
        texts
            .par_iter()
            .map(|(pi, t)| mean_nll(m, &pair.prompts[*pi], t))
            .collect()
    };
    let a = nll(pair.a.as_ref());
    let b = nll(pair.b.as_ref());
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
    let (ma, mb) = (mean(&a), mean(&b));
    let var = a.iter().map(|x| (x - ma).powi(2)).sum::<f64>() / (a.len() as f64 - 1.0).max(1.0);
    (ma.exp(), (var / a.len() as f64).sqrt(), mb.exp())
}

/// Marks of a text for display.
fn marked(pair: &ModelPair, text: &[u32], scheme: &Scheme) -> Vec<MarkedToken> {
    let (positions, colours) = scheme.layout(Method::StealthInk);
    let c = detect::count(
        text,
        scheme.key,
        scheme.context,
        positions,
        colours,
        pair.a.vocab_size(),
    );
    text.iter()
        .zip(&c.marks)
        .map(|(&t, m)| MarkedToken {
            text: pair.a.token_text(t),
            red: m.map(|(b, k)| scheme.symbols[b] == k),
        })
        .collect()
}

fn curve(text: &[u32], scheme: &Scheme, vocab: usize) -> Vec<(usize, f64, f64)> {
    (scheme.context + 1..=text.len())
        .step_by(5)
        .chain(std::iter::once(text.len()))
        .map(|n| {
            let d = detect::detect(&text[..n], scheme, Method::StealthInk, vocab);
            (n, d.z, d.p_exact)
        })
        .collect()
}

/// The models' setup for `p`: its GRU settings, its weights file resolved against
/// `files.project_dir`, and the cache folder.
pub fn model_setup(p: &WatermarkParams, files: &ModelFiles) -> ModelSetup {
    let weights_file = (!p.weights_file.trim().is_empty()).then(|| {
        let path = PathBuf::from(p.weights_file.trim());
        match &files.project_dir {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path,
        }
    });
    ModelSetup {
        gru: p.gru.clone(),
        weights_file,
        cache_dir: files.cache_dir.clone(),
    }
}

/// Runs the experiment: builds (trains, loads) the models, then [`run_with`].
pub fn run(
    p: &WatermarkParams,
    seed: u64,
    files: &ModelFiles,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<WatermarkResult, ComputeError> {
    p.validate()?;
    progress.set(0.0, "building the language models");
    let neural = matches!(p.model, ModelChoice::Gru | ModelChoice::GruFile);
    let split = if neural { 0.5 } else { 0.02 };
    let pair = lm::build(
        p.model,
        p.vocab,
        &model_setup(p, files),
        &progress.slice(0.0, split),
        cancel,
    )?;
    run_with(&pair, p, seed, &progress.slice(split, 1.0), cancel)
}

/// Runs the experiment on given models.
pub fn run_with(
    pair: &ModelPair,
    p: &WatermarkParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<WatermarkResult, ComputeError> {
    p.validate()?;
    if pair.a.vocab_size() != p.vocab || pair.b.vocab_size() != p.vocab {
        return Err(ComputeError::invalid(
            "vocab",
            "does not match the models' vocabulary",
        ));
    }
    let scheme = p.scheme();
    let vocab = p.vocab;
    let bits = p.bits();
    let mut texts = Vec::new();
    for (i, m) in Method::ALL.into_iter().enumerate() {
        progress.set_message(format!("generating {} texts", m.name()));
        let slice = progress.slice(0.05 + 0.15 * i as f64, 0.2 + 0.15 * i as f64);
        texts.push(generate_all(
            pair,
            &scheme,
            m,
            p,
            derive_seed(seed, 1000 + i as u64),
            &slice,
            cancel,
        )?);
    }
    progress.set(0.65, "detecting");
    let tokens_of = |t: &Texts| t.iter().map(|(_, x)| x.clone()).collect::<Vec<_>>();
    let plain = tokens_of(&texts[0]);
    let lengths = p.lengths();
    let full = p.tokens;
    let mut methods = Vec::new();
    for (i, m) in Method::ALL.into_iter().enumerate() {
        cancel.check()?;
        let own = tokens_of(&texts[i]);
        let detector = if m == Method::Plain {
            Method::StealthInk
        } else {
            m
        };
        let half = plain.len() / 2;
        let (pos, neg): (&[Vec<u32>], &[Vec<u32>]) = if m == Method::Plain {
            (&plain[..half], &plain[half..])
        } else {
            (&own, &plain)
        };
        let mut auc_by_tokens = Vec::new();
        let mut acc_by_tokens = Vec::new();
        let mut coin_by_tokens = Vec::new();
        let mut tpr = f64::NAN;
        let mut roc = Vec::new();
        for &len in &lengths {
            let dp = detect_all(pos, len, &scheme, detector, vocab);
            let dn = detect_all(neg, len, &scheme, detector, vocab);
            let (sp, sn) = (scores(&dp), scores(&dn));
            auc_by_tokens.push(AtLength {
                tokens: len,
                value: stats::auc(&sp, &sn),
            });
            if detector != Method::Kgw {
                let dp_all = detect_all(&own, len, &scheme, detector, vocab);
                acc_by_tokens.push(AtLength {
                    tokens: len,
                    value: mean_accuracy(&dp_all, &scheme, p.message_bits),
                });
                coin_by_tokens.push(AtLength {
                    tokens: len,
                    value: mean_coin_fraction(&dp_all, scheme.symbols.len()),
                });
            }
            if len == full {
                tpr = stats::tpr_at_fpr(&sp, &sn, 0.01);
                roc = stats::roc(&sp, &sn);
            }
        }
        let (perplexity, nll_se, perplexity_second) = perplexities(pair, &texts[i]);
        methods.push(MethodResult {
            method: m,
            perplexity,
            nll_se,
            perplexity_second,
            auc_by_tokens,
            tpr_at_1pct_fpr: tpr,
            bit_accuracy_by_tokens: acc_by_tokens,
            coin_fraction_by_tokens: coin_by_tokens,
            roc,
        });
    }
    // The null: exact and Gaussian p-values of the plain texts (randomised within the atom).
    let null = detect_all(&plain, full, &scheme, Method::StealthInk, vocab);
    let mut rng = seeded(derive_seed(seed, 7));
    let exact: Vec<f64> = null
        .iter()
        .map(|d| d.p_below + rng.random::<f64>() * (d.p_exact - d.p_below))
        .collect();
    let gauss: Vec<f64> = null.iter().map(|d| d.p_gauss).collect();
    let (ks_exact, ks_gauss) = (stats::ks_uniform(&exact), stats::ks_uniform(&gauss));
    progress.set(0.8, "attacking");
    let stealth = tokens_of(&texts[1]);
    let null_scores = scores(&null);
    let mut rates = vec![0.0, 0.1, 0.2, 0.3, 0.4, 0.5];
    if !rates.iter().any(|r| (r - p.attack_rate).abs() < 1e-9) {
        rates.push(p.attack_rate);
        rates.sort_by(f64::total_cmp);
    }
    let attack_curve = rates
        .iter()
        .enumerate()
        .map(|(ri, &rate)| {
            cancel.check()?;
            let attacked: Vec<Vec<u32>> = stealth
                .iter()
                .zip(&plain)
                .enumerate()
                .map(|(ti, (t, pl))| {
                    let mut r = seeded(derive_seed(seed, 10_000 + (ri * 100_000 + ti) as u64));
                    attack::apply(p.attack, rate, t, pl, vocab, &mut r)
                })
                .collect();
            let d = detect_all(&attacked, usize::MAX, &scheme, Method::StealthInk, vocab);
            let s = scores(&d);
            Ok(AttackPoint {
                rate,
                auc: stats::auc(&s, &null_scores),
                tpr_at_1pct_fpr: stats::tpr_at_fpr(&s, &null_scores, 0.01),
                bit_accuracy: mean_accuracy(&d, &scheme, p.message_bits),
            })
        })
        .collect::<Result<Vec<_>, ComputeError>>()?;
    progress.set(0.9, "checking distribution preservation");
    // Every c the panel accepts (1 to 4) is checked as it is: at c = 4 each of the 16 colour
    // lists of the 16-token check vocabulary is one token.
    let distribution_check = distribution_check(16, p.bits_per_symbol, p.check_draws, seed);
    // The example: the first plain and StealthInk texts, the latter attacked at the chosen rate.
    let mut r = seeded(derive_seed(seed, 99));
    let example_wm = attack::apply(
        p.attack,
        p.attack_rate,
        &stealth[0],
        &plain[1 % plain.len()],
        vocab,
        &mut r,
    );
    let d = detect::detect(&example_wm, &scheme, Method::StealthInk, vocab);
    let prompt_tokens = &pair.prompts[texts[1][0].0];
    let example = Example {
        prompt: prompt_tokens
            .iter()
            .map(|&t| pair.a.token_text(t))
            .collect::<Vec<_>>()
            .join(" "),
        plain: marked(pair, &plain[0], &scheme),
        watermarked: marked(pair, &example_wm, &scheme),
        watermarked_curve: curve(&example_wm, &scheme, vocab),
        plain_curve: curve(&plain[0], &scheme, vocab),
        decoded_bits: message::to_bits(&d.decoded, p.bits_per_symbol, p.message_bits),
    };
    progress.set(1.0, "done");
    let mut result = WatermarkResult {
        bits,
        methods,
        distribution_check,
        attack_curve,
        null_ks_distance_exact: ks_exact,
        null_ks_distance_gauss: ks_gauss,
        null_ks_p_exact: stats::ks_p_value(ks_exact, exact.len()),
        null_ks_p_gauss: stats::ks_p_value(ks_gauss, gauss.len()),
        null_texts: exact.len(),
        example,
        model: pair.report.clone(),
        claims: Vec::new(),
    };
    result.claims = claims::judge(&result, p);
    Ok(result)
}
