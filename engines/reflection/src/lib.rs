//! Reflection-Bench (Li et al., ICML 2025): seven cognitive tasks that probe an agent's
//! epistemic agency — oddball (perception), n-back (working memory), probabilistic reversal
//! (belief updating), WCST (decision making), weather prediction, double-choice Iowa gambling
//! (counterfactual thinking) and the meta-bandit (meta-reflection) — with the authors' scoring
//! formulas, seeded scripted agents, a session stepper a person can play, and an agent behind an
//! OpenAI-compatible chat endpoint. Nothing here knows about screens.
//!
//! * [`task`]: the tasks and their settings.
//! * [`data`]: the fixed stimuli (regenerated from the rules; our oddball paragraphs).
//! * [`session`]: one session as a state machine (turn → answer → record).
//! * [`score`]: the seven scorers.
//! * [`tfidf`]: the local sentence similarity of the oddball scorer.
//! * [`agents`]: the scripted agents.
//! * [`llm`] and [`http`]: the language-model agent and its bounded HTTP client (ureq).
//! * [`trust`]: which endpoints may receive the API key, and its redaction from all output.
//! * [`run`]: sessions, the agent × task table and summary statistics.
//! * [`bench`]: the `benchtop bench reflection` workload.

pub mod agents;
pub mod bench;
pub mod data;
pub mod http;
pub mod llm;
pub mod run;
pub mod score;
pub mod session;
pub mod task;
pub mod tfidf;
pub mod trust;

#[cfg(test)]
mod tests;

pub use agents::{Agent, Scripted, ScriptedAgent};
pub use llm::{LlmAgent, LlmConfig, Strategy};
pub use run::{BenchParams, BenchResult, SessionResult, Stats, play, play_until, run};
pub use session::{Answer, Session, TrialRecord, Turn};
pub use task::{Settings, Task};
