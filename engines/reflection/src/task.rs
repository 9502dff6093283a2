//! The seven tasks, their names and their settings (trial counts, probabilities, intervals).

use serde::{Deserialize, Serialize};

/// One of the seven Reflection-Bench tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Task {
    /// Oddball paradigm (perception): comment on a paragraph with one off-topic sentence.
    Oddball,
    /// 2-back (working memory): is the current letter the one n steps before?
    NBack,
    /// Probabilistic reversal (belief updating): a two-arm bandit whose better arm reverses.
    Reversal,
    /// Wisconsin card sorting (decision making): match a card under a hidden, cycling rule.
    Wcst,
    /// Weather prediction: learn two device-dependent transition matrices.
    Weather,
    /// Double-choice Iowa gambling (counterfactual thinking): pick, see the outcome, pick again.
    Iowa,
    /// Meta-bandit (meta-reflection): the rewarded arm reverses on a fixed schedule.
    MetaBandit,
}

impl Task {
    /// All seven, in the paper's order (the radar's order).
    pub const ALL: [Self; 7] = [
        Self::Oddball,
        Self::NBack,
        Self::Reversal,
        Self::Wcst,
        Self::Weather,
        Self::Iowa,
        Self::MetaBandit,
    ];

    /// The key used in summary.json and on the command line.
    pub fn key(self) -> &'static str {
        match self {
            Self::Oddball => "oddball",
            Self::NBack => "n_back",
            Self::Reversal => "reversal",
            Self::Wcst => "wcst",
            Self::Weather => "weather",
            Self::Iowa => "iowa",
            Self::MetaBandit => "meta_bandit",
        }
    }

    /// Name for people, with the cognitive dimension it probes.
    pub fn label(self) -> &'static str {
        match self {
            Self::Oddball => "Oddball (perception)",
            Self::NBack => "n-back (working memory)",
            Self::Reversal => "Probabilistic reversal (belief updating)",
            Self::Wcst => "WCST (decision making)",
            Self::Weather => "Weather prediction (prediction)",
            Self::Iowa => "Double-choice Iowa (counterfactual)",
            Self::MetaBandit => "Meta-bandit (meta-reflection)",
        }
    }

    /// Short axis name for the radar.
    pub fn axis(self) -> &'static str {
        match self {
            Self::Oddball => "Perception",
            Self::NBack => "Memory",
            Self::Reversal => "Belief updating",
            Self::Wcst => "Decision",
            Self::Weather => "Prediction",
            Self::Iowa => "Counterfactual",
            Self::MetaBandit => "Meta-reflection",
        }
    }

    /// The task for a key (`oddball`, `n_back`, …); also accepts a few spellings.
    pub fn from_key(key: &str) -> Option<Self> {
        let k = key.trim().to_ascii_lowercase().replace('-', "_");
        Self::ALL
            .into_iter()
            .find(|t| t.key() == k)
            .or(match k.as_str() {
                "nback" | "2back" | "two_back" => Some(Self::NBack),
                "prt" | "prlt" => Some(Self::Reversal),
                "wpt" => Some(Self::Weather),
                "dcigt" | "igt" => Some(Self::Iowa),
                "mbt" | "metaprt" | "meta" => Some(Self::MetaBandit),
                _ => None,
            })
    }

    /// The paper's number of sessions for this task (3 for oddball, 2 otherwise).
    pub fn paper_sessions(self) -> usize {
        if self == Self::Oddball { 3 } else { 2 }
    }

    /// The largest score a session can reach (19 for the default meta-bandit, 100 otherwise).
    pub fn max_score(self, settings: &Settings) -> f64 {
        match self {
            Self::MetaBandit => settings.meta.reversal_count() as f64,
            _ => 100.0,
        }
    }
}

/// n-back settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NBackSettings {
    /// How many steps back (the paper: 2).
    pub n: usize,
    /// Length of the letter sequence (the paper: 52).
    pub length: usize,
}

impl Default for NBackSettings {
    fn default() -> Self {
        Self { n: 2, length: 52 }
    }
}

/// Probabilistic reversal settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReversalSettings {
    /// Trials per session (the paper: 40); the better arm reverses at half.
    pub trials: usize,
    /// Reward probability of the right arm (`AAA`) before the reversal (the paper: 0.8).
    pub p: f64,
    /// Window of the Beta(0.1, 0.1) belief estimator (the paper: 5).
    pub window: usize,
}

impl Default for ReversalSettings {
    fn default() -> Self {
        Self {
            trials: 40,
            p: 0.8,
            window: 5,
        }
    }
}

/// WCST settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WcstSettings {
    /// Trials per session (the paper: 72 cards).
    pub trials: usize,
    /// The hidden rule changes shape → colour → number every this many trials (the paper: 12).
    pub rule_interval: usize,
}

impl Default for WcstSettings {
    fn default() -> Self {
        Self {
            trials: 72,
            rule_interval: 12,
        }
    }
}

/// Weather prediction settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WeatherSettings {
    /// Trials (days) per session (the paper: 50).
    pub trials: usize,
    /// Probability that the weather persists when device 1 is active (T₁ = [[q, 1−q], [1−q, q]];
    /// T₂ flips it: [[1−q, q], [q, 1−q]]). The paper: 0.9.
    pub persist: f64,
    /// Scoring uses the trials from this index on (the paper: 20).
    pub estimate_from: usize,
}

impl Default for WeatherSettings {
    fn default() -> Self {
        Self {
            trials: 50,
            persist: 0.9,
            estimate_from: 20,
        }
    }
}

/// Double-choice Iowa gambling settings (the deck table is the paper's, fixed).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IowaSettings {
    /// Trials per session (the paper: 50).
    pub trials: usize,
    /// Starting money (the paper: $2000).
    pub start_money: i64,
}

impl Default for IowaSettings {
    fn default() -> Self {
        Self {
            trials: 50,
            start_money: 2000,
        }
    }
}

/// Meta-bandit settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MetaSettings {
    /// Trials per session (the paper: 40).
    pub trials: usize,
    /// The rewarded arm reverses every this many trials (the paper: 2).
    pub interval: usize,
}

impl Default for MetaSettings {
    fn default() -> Self {
        Self {
            trials: 40,
            interval: 2,
        }
    }
}

impl MetaSettings {
    /// Whether trial `i` (0-based) is a reversal trial (the authors' schedule: both halves
    /// restart their count, so trial `trials/2` reverses too).
    pub fn is_reversal(&self, i: usize) -> bool {
        let half = self.trials / 2;
        let mark = if i < half { i } else { i - half };
        i > 0 && self.interval > 0 && mark % self.interval == 0
    }

    /// How many reversal trials can score (those with a following trial): 19 by default.
    pub fn reversal_count(&self) -> usize {
        (0..self.trials.saturating_sub(1))
            .filter(|&i| self.is_reversal(i))
            .count()
    }
}

/// Every task's settings, plus the seed of the fixed stimulus data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Seed of the fixed stimuli (n-back letters, WCST cards, weather devices): the same
    /// sequences in every session, as the paper's vendored files are.
    pub data_seed: u64,
    /// n-back.
    pub nback: NBackSettings,
    /// Probabilistic reversal.
    pub reversal: ReversalSettings,
    /// WCST.
    pub wcst: WcstSettings,
    /// Weather prediction.
    pub weather: WeatherSettings,
    /// Double-choice Iowa gambling.
    pub iowa: IowaSettings,
    /// Meta-bandit.
    pub meta: MetaSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            data_seed: 2025,
            nback: NBackSettings::default(),
            reversal: ReversalSettings::default(),
            wcst: WcstSettings::default(),
            weather: WeatherSettings::default(),
            iowa: IowaSettings::default(),
            meta: MetaSettings::default(),
        }
    }
}

impl Settings {
    /// Checks every setting; the error names the key (`reversal.p`, …) and what is accepted.
    pub fn validate(&self) -> Result<(), String> {
        let bad = |k: &str, why: &str| Err(format!("invalid setting `{k}`: {why}"));
        if self.nback.n == 0 || self.nback.length <= self.nback.n {
            return bad("nback", "need n ≥ 1 and length > n");
        }
        if self.reversal.trials < 2 || !self.reversal.trials.is_multiple_of(2) {
            return bad("reversal.trials", "an even number ≥ 2");
        }
        if !(self.reversal.p > 0.0 && self.reversal.p <= 1.0) {
            return bad("reversal.p", "a probability in (0, 1]");
        }
        if self.reversal.window == 0 {
            return bad("reversal.window", "at least 1");
        }
        if self.wcst.trials == 0 || self.wcst.rule_interval == 0 {
            return bad("wcst", "trials and rule_interval at least 1");
        }
        if !(0.0..=1.0).contains(&self.weather.persist) {
            return bad("weather.persist", "a probability in [0, 1]");
        }
        if self.weather.estimate_from >= self.weather.trials {
            return bad("weather.estimate_from", "less than weather.trials");
        }
        if self.iowa.trials == 0 {
            return bad("iowa.trials", "at least 1");
        }
        if self.meta.trials < 4 || self.meta.interval == 0 {
            return bad("meta", "trials ≥ 4 and interval ≥ 1");
        }
        Ok(())
    }

    /// Trials in one session of `task` (the oddball count is the number of paragraphs).
    pub fn trials(&self, task: Task) -> usize {
        match task {
            Task::Oddball => crate::data::ODDBALL_PARAGRAPHS.len(),
            Task::NBack => self.nback.length,
            Task::Reversal => self.reversal.trials,
            Task::Wcst => self.wcst.trials,
            Task::Weather => self.weather.trials,
            Task::Iowa => self.iowa.trials,
            Task::MetaBandit => self.meta.trials,
        }
    }
}
