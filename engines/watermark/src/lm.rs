//! The two language models of an experiment and the prompts they continue.
//!
//! The real pair: trigram word models on the bundled KJV text with one shared vocabulary, model A
//! trained on the even verses and model B (the "second, independently trained model" of the
//! perplexity column) on the odd verses. Prompts are the first words of held-out verses (every
//! tenth verse is kept out of both). The synthetic pair (tests): two [`SyntheticModel`]s with
//! different seeds and random prompts.

use crate::corpus::{KJV_TEXT, Tokenizer};
use crate::model::{LanguageModel, SyntheticModel};
use crate::ngram::TrigramModel;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Which models an experiment uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ModelChoice {
    /// Trigram word models on the bundled King James text.
    Kjv,
    /// Random per-context distributions (a test model).
    Synthetic,
}

/// A generator, an independent second model and prompts.
pub struct ModelPair {
    /// The model that generates (and whose perplexity is the main column).
    pub a: Arc<dyn LanguageModel>,
    /// The second model (other half of the text, or another seed).
    pub b: Arc<dyn LanguageModel>,
    /// Prompts to continue (cycled over the texts).
    pub prompts: Vec<Vec<u32>>,
}

/// Words a prompt has.
const PROMPT_WORDS: usize = 4;

/// Builds the pair for `choice` with a `vocab`-token vocabulary.
pub fn build(choice: ModelChoice, vocab: usize) -> ModelPair {
    match choice {
        ModelChoice::Kjv => {
            let tok = Tokenizer::build(KJV_TEXT, vocab);
            let words = Arc::new(
                (0..tok.len() as u32)
                    .map(|i| tok.word(i).to_owned())
                    .collect(),
            );
            let verses: Vec<Vec<u32>> = KJV_TEXT.lines().map(|l| tok.encode(l)).collect();
            let split = |rest: usize| -> Vec<Vec<u32>> {
                verses
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % 10 != 9 && i % 2 == rest)
                    .map(|(_, v)| v.clone())
                    .collect()
            };
            // One long stretch per half so the models also learn verse-to-verse transitions.
            let a = TrigramModel::train(&[split(0).concat()], Arc::clone(&words));
            let b = TrigramModel::train(&[split(1).concat()], words);
            let prompts = verses
                .iter()
                .enumerate()
                .filter(|(i, v)| i % 10 == 9 && v.len() >= PROMPT_WORDS)
                .map(|(_, v)| v[..PROMPT_WORDS].to_vec())
                .collect();
            ModelPair {
                a: Arc::new(a),
                b: Arc::new(b),
                prompts,
            }
        }
        ModelChoice::Synthetic => {
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
            }
        }
    }
}
