//! The panel's parameters: the engine's experiment settings and the seed, declared once.

use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param};
use benchtop_watermark::experiment::WatermarkParams;
use serde::{Deserialize, Serialize};

/// Everything a user edits (the unit of undo and of sweeps).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PanelParams {
    /// The experiment.
    pub run: WatermarkParams,
    /// Seed of generation and attacks.
    pub seed: u64,
}

impl Default for PanelParams {
    fn default() -> Self {
        Self {
            run: WatermarkParams::default(),
            seed: 1,
        }
    }
}

type P = PanelParams;

impl Declare for PanelParams {
    fn declare() -> Vec<Param<Self>> {
        vec![
            Param::new("timestamp", "Timestamp (s)", field!(P, run.timestamp))
                .range(0.0, 4e9)
                .tooltip("Seconds since 1970; its low bits fill the second half of the message."),
            Param::new("message_bits", "Message length (bits)", field!(P, run.message_bits))
                .range(1.0, 128.0)
                .slider()
                .tooltip("Bits embedded: the first half from a hash of the user ID, the rest from the timestamp. More bits need more tokens to decode."),
            Param::new("bits_per_symbol", "Bits per symbol c", field!(P, run.bits_per_symbol))
                .range(1.0, 4.0)
                .slider()
                .tooltip("Each message position carries c bits: the vocabulary is cut into 2^c colour lists and the red list (ratio R = 2^−c) is the one the symbol names."),
            Param::new("context", "Context H (tokens)", field!(P, run.context))
                .range(1.0, 16.0)
                .slider()
                .tooltip("The last H tokens are hashed (key × sum of ids) into the seed of a step; a seed already used in the text is skipped."),
            Param::new("temperature", "Temperature", field!(P, run.temperature))
                .range(0.1, 3.0)
                .slider()
                .tooltip("Sampling temperature applied before watermarking; lower temperature means less entropy and a weaker watermark."),
            Param::new("top_k", "Top-k (0: off)", field!(P, run.top_k))
                .range(0.0, 1024.0)
                .tooltip("Keep only the k most likely tokens before watermarking (0 keeps all)."),
            Param::new("tokens", "Text length (tokens)", field!(P, run.tokens))
                .range(16.0, 2000.0)
                .slider()
                .tooltip("Tokens generated per text; AUC and bit accuracy are also reported at ⅛, ¼ and ½ of it."),
            Param::new("texts", "Texts per method", field!(P, run.texts))
                .range(4.0, 2000.0)
                .tooltip("Texts generated with each method (plain, StealthInk, KGW, multi-bit KGW) for the ROC, AUC and perplexity."),
            Param::new("attack_rate", "Attack rate", field!(P, run.attack_rate))
                .range(0.0, 1.0)
                .slider()
                .tooltip("Rate of the chosen attack on the example text and the extra point of the attack curve."),
            Param::new("delta", "KGW bias δ", field!(P, run.delta))
                .range(0.0, 10.0)
                .slider()
                .tooltip("Logit bias KGW adds to its green list (biased: raises perplexity)."),
            Param::new("vocab", "Vocabulary (words)", field!(P, run.vocab))
                .range(16.0, 4096.0)
                .tooltip("Word vocabulary of the language model (a multiple of 16; rarer words become <unk>)."),
            Param::new("gru_hidden", "GRU hidden units", field!(P, run.gru.hidden))
                .range(1.0, 1024.0)
                .tooltip("Hidden units H of the GRU layer (embedding → GRU → linear to the vocabulary)."),
            Param::new("gru_embedding", "GRU embedding width", field!(P, run.gru.embedding))
                .range(1.0, 1024.0)
                .tooltip("Width E of the word embedding the GRU reads."),
            Param::new("gru_window", "GRU context window (tokens)", field!(P, run.gru.window))
                .range(1.0, 64.0)
                .tooltip("Tokens of context the GRU reads for each next-word distribution (the last W, from a zero state); at most the training length."),
            Param::new("gru_epochs", "GRU training epochs", field!(P, run.gru.epochs))
                .range(1.0, 1000.0)
                .tooltip("Passes of AdamW over the training verses (windows of 32 tokens, batches of 32). A trained model is cached and loaded the next time."),
            Param::new("gru_seed", "GRU seed", field!(P, run.gru.seed))
                .range(0.0, 1.8e19)
                .tooltip("Seed of the first GRU's weights and batches (the second GRU derives its own)."),
            Param::new("key", "Secret key", field!(P, run.key))
                .range(0.0, 1.8e19)
                .tooltip("The watermark key; detection needs it, nothing else (no model, no prompt)."),
            Param::new("check_draws", "Distribution check draws", field!(P, run.check_draws))
                .range(100.0, 1e7)
                .log()
                .tooltip("Random permutations averaged in the Monte Carlo check that StealthInk preserves the distribution."),
            Param::new("seed", "Seed", field!(P, seed))
                .seed()
                .tooltip("Seed of sampling and attacks."),
        ]
    }
}
