//! The two language models of an experiment and the prompts they continue.
//!
//! The real pairs share the word vocabulary of the bundled KJV text: model A is trained on the
//! even verses and model B (the "second, independently trained model" of the perplexity column)
//! on the odd verses; every tenth verse is kept out of both, for prompts (the first words of a
//! held-out verse) and for the held-out perplexity of [`ModelReport`]. A pair is either two
//! interpolated trigram models ([`ModelChoice::Kjv`]), two GRUs trained in candle with their own
//! seeds and cached on disk ([`ModelChoice::Gru`], see [`crate::gru`]), or a user's GRU weights
//! as model A with the trained odd-verse GRU as model B ([`ModelChoice::GruFile`]). The synthetic
//! pair (tests): two [`SyntheticModel`]s with different seeds and random prompts.

use std::path::PathBuf;
use std::sync::Arc;

use benchtop_compute::rng::derive_seed;
use benchtop_compute::{CancelToken, ComputeError, Progress};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::corpus::{KJV_TEXT, Tokenizer};
use crate::gru::{self, GruConfig, GruModel};
use crate::model::{LanguageModel, SyntheticModel};
use crate::ngram::TrigramModel;

/// Which models an experiment uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ModelChoice {
    /// Trigram word models on the bundled King James text.
    Kjv,
    /// Random per-context distributions (a test model).
    Synthetic,
    /// GRU word models trained in candle on the King James text (cached).
    Gru,
    /// A user's GRU weights (safetensors) as the generator; the second model is the trained GRU.
    GruFile,
}

impl ModelChoice {
    /// Every choice, in menu order.
    pub const ALL: [Self; 4] = [Self::Kjv, Self::Gru, Self::GruFile, Self::Synthetic];

    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Kjv => "KJV trigram",
            Self::Synthetic => "synthetic",
            Self::Gru => "KJV GRU",
            Self::GruFile => "GRU from file",
        }
    }
}

/// What building a neural pair needs besides the choice and the vocabulary size.
#[derive(Debug, Clone, Default)]
pub struct ModelSetup {
    /// Size and training of the GRUs.
    pub gru: GruConfig,
    /// The user's weights ([`ModelChoice::GruFile`]).
    pub weights_file: Option<PathBuf>,
    /// Where trained GRUs are cached (None: train every time).
    pub cache_dir: Option<PathBuf>,
}

/// How the real models do on the held-out verses, and how the neural ones were trained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelReport {
    /// The choice's display name.
    pub name: String,
    /// Held-out tokens scored.
    pub heldout_tokens: usize,
    /// Perplexity of model A on the held-out verses.
    pub heldout_perplexity_a: f64,
    /// Perplexity of model B on the held-out verses.
    pub heldout_perplexity_b: f64,
    /// Perplexity of an add-one unigram model of the even verses on the held-out verses.
    pub unigram_perplexity: f64,
    /// Training loss per epoch of model A (nats per token; empty for trigrams and files
    /// without it).
    pub loss_history_a: Vec<f64>,
    /// Training loss per epoch of model B.
    pub loss_history_b: Vec<f64>,
    /// File name of model A's weights (cache file or the user's file).
    pub weights_a: Option<String>,
    /// File name of model B's weights.
    pub weights_b: Option<String>,
}

/// A generator, an independent second model and prompts.
pub struct ModelPair {
    /// The model that generates (and whose perplexity is the main column).
    pub a: Arc<dyn LanguageModel>,
    /// The second model (other half of the text, or another seed).
    pub b: Arc<dyn LanguageModel>,
    /// Prompts to continue (cycled over the texts).
    pub prompts: Vec<Vec<u32>>,
    /// Held-out scores of the real pairs (None for the synthetic pair).
    pub report: Option<ModelReport>,
}

/// Words a prompt has.
const PROMPT_WORDS: usize = 4;

/// The KJV text split for a `vocab`-token vocabulary.
struct KjvSplit {
    words: Arc<Vec<String>>,
    /// Even verses (not held out), one stream.
    even: Vec<u32>,
    /// Odd verses (not held out), one stream.
    odd: Vec<u32>,
    /// Every tenth verse, one stream.
    heldout: Vec<u32>,
    prompts: Vec<Vec<u32>>,
}

impl KjvSplit {
    fn new(vocab: usize) -> Self {
        let tok = Tokenizer::build(KJV_TEXT, vocab);
        let words = Arc::new(
            (0..tok.len() as u32)
                .map(|i| tok.word(i).to_owned())
                .collect(),
        );
        let verses: Vec<Vec<u32>> = KJV_TEXT.lines().map(|l| tok.encode(l)).collect();
        // One long stretch per part so the models also learn verse-to-verse transitions.
        let part = |keep: &dyn Fn(usize) -> bool| -> Vec<u32> {
            verses
                .iter()
                .enumerate()
                .filter(|(i, _)| keep(*i))
                .flat_map(|(_, v)| v.iter().copied())
                .collect()
        };
        let prompts = verses
            .iter()
            .enumerate()
            .filter(|(i, v)| i % 10 == 9 && v.len() >= PROMPT_WORDS)
            .map(|(_, v)| v[..PROMPT_WORDS].to_vec())
            .collect();
        Self {
            words,
            even: part(&|i| i % 10 != 9 && i % 2 == 0),
            odd: part(&|i| i % 10 != 9 && i % 2 == 1),
            heldout: part(&|i| i % 10 == 9),
            prompts,
        }
    }

    /// Perplexity of the add-one unigram of the even verses on the held-out stream.
    fn unigram_perplexity(&self) -> f64 {
        let mut counts = vec![1.0; self.words.len()];
        for &t in &self.even {
            counts[t as usize] += 1.0;
        }
        let total: f64 = counts.iter().sum();
        let scored = &self.heldout[1..];
        let nll: f64 = scored
            .iter()
            .map(|&t| -(counts[t as usize] / total).ln())
            .sum();
        (nll / scored.len() as f64).exp()
    }

    /// The report of a pair on the held-out stream.
    fn report(
        &self,
        name: &str,
        a: &dyn LanguageModel,
        b: &dyn LanguageModel,
        trained: [(&[f64], Option<String>); 2],
    ) -> ModelReport {
        let [(la, wa), (lb, wb)] = trained;
        ModelReport {
            name: name.to_owned(),
            heldout_tokens: self.heldout.len() - 1,
            heldout_perplexity_a: stream_perplexity(a, &self.heldout),
            heldout_perplexity_b: stream_perplexity(b, &self.heldout),
            unigram_perplexity: self.unigram_perplexity(),
            loss_history_a: la.to_vec(),
            loss_history_b: lb.to_vec(),
            weights_a: wa,
            weights_b: wb,
        }
    }
}

/// Perplexity of `model` on `stream` (every token after the first, each given up to 64 tokens
/// before it), computed in parallel pieces and summed in order.
pub fn stream_perplexity(model: &dyn LanguageModel, stream: &[u32]) -> f64 {
    const PIECE: usize = 256;
    let positions: Vec<usize> = (1..stream.len()).collect();
    let sums: Vec<f64> = positions
        .par_chunks(PIECE)
        .map(|piece| {
            let mut p = vec![0.0; model.vocab_size()];
            piece
                .iter()
                .map(|&i| {
                    model.next_probs(&stream[i.saturating_sub(gru::MAX_WINDOW)..i], &mut p);
                    -p[stream[i] as usize].max(1e-300).ln()
                })
                .sum()
        })
        .collect();
    (sums.iter().sum::<f64>() / positions.len().max(1) as f64).exp()
}

/// The file name of a path, for reports.
fn file_name(path: Option<&std::path::Path>) -> Option<String> {
    path.and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
}

/// Seed of the second GRU (the odd verses).
fn seed_b(gru: &GruConfig) -> u64 {
    derive_seed(gru.seed, 2)
}

/// Two synthetic models with different seeds and fixed pseudo-random prompts.
fn synthetic_pair(vocab: usize) -> ModelPair {
    let model = |seed| SyntheticModel {
        vocab,
        concentration: 2.5,
        seed,
    };
    let prompts = (0..64_u32)
        .map(|i| {
            (0..PROMPT_WORDS as u32)
                .map(|j| (i * 7 + j * 3) % vocab as u32)
                .collect()
        })
        .collect();
    ModelPair {
        a: Arc::new(model(1)),
        b: Arc::new(model(2)),
        prompts,
        report: None,
    }
}

/// Builds the pair for `choice` with a `vocab`-token vocabulary. GRUs are trained (or read from
/// `setup.cache_dir`) with `progress` and `cancel`; the two train at the same time, model A
/// reporting progress.
pub fn build(
    choice: ModelChoice,
    vocab: usize,
    setup: &ModelSetup,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<ModelPair, ComputeError> {
    let kjv = KjvSplit::new(vocab);
    let cache = setup.cache_dir.as_deref();
    let gru_b = |progress: &Progress| {
        gru::trained_or_cached(
            &kjv.odd,
            Arc::clone(&kjv.words),
            &setup.gru,
            seed_b(&setup.gru),
            cache,
            progress,
            cancel,
        )
    };
    let (a, b, report): (Arc<dyn LanguageModel>, Arc<dyn LanguageModel>, ModelReport) = match choice
    {
        ModelChoice::Synthetic => return Ok(synthetic_pair(vocab)),
        ModelChoice::Kjv => {
            let a = TrigramModel::train(std::slice::from_ref(&kjv.even), Arc::clone(&kjv.words));
            let b = TrigramModel::train(std::slice::from_ref(&kjv.odd), Arc::clone(&kjv.words));
            let report = kjv.report(choice.name(), &a, &b, [(&[][..], None), (&[][..], None)]);
            (Arc::new(a), Arc::new(b), report)
        }
        ModelChoice::Gru => {
            progress.set_message("training or loading the GRU pair");
            let (ra, rb) = rayon::join(
                || {
                    gru::trained_or_cached(
                        &kjv.even,
                        Arc::clone(&kjv.words),
                        &setup.gru,
                        setup.gru.seed,
                        cache,
                        progress,
                        cancel,
                    )
                },
                || gru_b(&Progress::new()),
            );
            let ((a, sa), (b, sb)) = (ra?, rb?);
            let report = kjv.report(
                choice.name(),
                &a,
                &b,
                [
                    (a.loss_history(), file_name(sa.file())),
                    (b.loss_history(), file_name(sb.file())),
                ],
            );
            (Arc::new(a), Arc::new(b), report)
        }
        ModelChoice::GruFile => {
            let path = setup.weights_file.as_deref().ok_or_else(|| {
                ComputeError::invalid("weights_file", "choose a safetensors file of GRU weights")
            })?;
            let a = GruModel::load(path, Arc::clone(&kjv.words))?.with_window(setup.gru.window)?;
            progress.set_message("training or loading the second GRU");
            let (b, sb) = gru_b(progress)?;
            let report = kjv.report(
                choice.name(),
                &a,
                &b,
                [
                    (a.loss_history(), file_name(Some(path))),
                    (b.loss_history(), file_name(sb.file())),
                ],
            );
            (Arc::new(a), Arc::new(b), report)
        }
    };
    Ok(ModelPair {
        a,
        b,
        prompts: kjv.prompts,
        report: Some(report),
    })
}
