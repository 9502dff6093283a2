//! The panel's parameters: which agents and tasks, sessions, seeds, the agents' parameters, the
//! task settings and the language-model endpoint.

use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param, grouped};
use benchtop_reflection::run::BenchParams;
use benchtop_reflection::{LlmConfig, Scripted, Settings, Task};
use serde::{Deserialize, Serialize};

/// The scripted agents a user can tick, by name.
pub const AGENT_NAMES: [&str; 6] = [
    "oracle",
    "random",
    "wsls",
    "q_learning",
    "bayesian",
    "pattern",
];

/// The parameters a user edits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReflectionParams {
    /// Seed of the environments and agents.
    pub seed: u64,
    /// Sessions per task; 0 uses the paper's (3 for oddball, 2 otherwise).
    pub sessions: usize,
    /// The ticked scripted agents (names from [`AGENT_NAMES`]).
    pub agents: Vec<String>,
    /// The ticked tasks.
    pub tasks: Vec<Task>,
    /// Q-learning learning rate α.
    pub q_alpha: f64,
    /// Q-learning inverse temperature β.
    pub q_beta: f64,
    /// Bayesian learner's hazard rate h.
    pub hazard: f64,
    /// Pattern detector: a fixed period (0 learns it from the reversals it sees).
    pub pattern_period: usize,
    /// Task settings.
    pub settings: Settings,
    /// The language-model agent (off until a user runs it).
    pub llm: LlmConfig,
}

impl Default for ReflectionParams {
    fn default() -> Self {
        Self {
            seed: 1,
            sessions: 0,
            agents: AGENT_NAMES.map(String::from).to_vec(),
            tasks: Task::ALL.to_vec(),
            q_alpha: 0.3,
            q_beta: 5.0,
            hazard: 0.05,
            pattern_period: 0,
            settings: Settings::default(),
            llm: LlmConfig::default(),
        }
    }
}

impl ReflectionParams {
    /// The scripted agent named `name` with these parameters.
    pub fn agent(&self, name: &str) -> Option<Scripted> {
        Some(match name {
            "q_learning" => Scripted::QLearning {
                alpha: self.q_alpha,
                beta: self.q_beta,
            },
            "bayesian" => Scripted::Bayesian {
                hazard: self.hazard,
            },
            "pattern" => Scripted::Pattern {
                period: (self.pattern_period > 0).then_some(self.pattern_period),
            },
            other => Scripted::from_name(other)?,
        })
    }

    /// The engine's run parameters (ticked agents in the order of [`AGENT_NAMES`], ticked tasks
    /// in the paper's order).
    pub fn bench(&self) -> BenchParams {
        BenchParams {
            agents: AGENT_NAMES
                .iter()
                .filter(|n| self.agents.iter().any(|a| a == *n))
                .filter_map(|n| self.agent(n))
                .collect(),
            tasks: Task::ALL
                .into_iter()
                .filter(|t| self.tasks.contains(t))
                .collect(),
            sessions: self.sessions,
            settings: self.settings.clone(),
        }
    }
}

impl Declare for ReflectionParams {
    fn declare() -> Vec<Param<Self>> {
        let mut v = vec![
            Param::new("seed", "Seed", field!(ReflectionParams, seed))
                .seed()
                .tooltip("Seed of the environments' outcomes and the agents' random choices; every agent faces the same outcomes."),
            Param::new("sessions", "Sessions per task", field!(ReflectionParams, sessions))
                .range(0.0, 200.0)
                .tooltip("Sessions of each task per agent; 0 uses the paper's (3 for oddball, 2 for the others)."),
        ];
        v.extend(grouped(
            "Agents",
            vec![
                Param::new("q_alpha", "Q-learning α", field!(ReflectionParams, q_alpha))
                    .range(0.0, 1.0)
                    .slider()
                    .tooltip("Learning rate of the Q-learning agent."),
                Param::new("q_beta", "Q-learning β", field!(ReflectionParams, q_beta))
                    .range(0.0, 100.0)
                    .tooltip("Inverse temperature of the Q-learning agent's softmax (0: random)."),
                Param::new("hazard", "Bayesian hazard h", field!(ReflectionParams, hazard))
                    .range(0.0, 0.5)
                    .tooltip("Probability per trial that the Bayesian learner expects the hidden state (better arm, rule) to change."),
                Param::new("pattern_period", "Pattern period (0 learns)", field!(ReflectionParams, pattern_period))
                    .range(0.0, 40.0)
                    .tooltip("Meta-bandit pattern detector: switch every this many trials from the start; 0 learns the period from the reversals it sees."),
            ],
        ));
        v.extend(grouped(
            "Tasks",
            vec![
                Param::new("settings.data_seed", "Stimulus seed", field!(ReflectionParams, settings.data_seed))
                    .tooltip("Seed of the fixed stimuli (n-back letters, WCST cards, weather devices), the same in every session.")
                    .no_sweep(),
                Param::new("settings.nback.n", "n-back n", field!(ReflectionParams, settings.nback.n))
                    .range(1.0, 6.0)
                    .tooltip("How many steps back the n-back compares (the paper: 2)."),
                Param::new("settings.reversal.p", "Reversal p", field!(ReflectionParams, settings.reversal.p))
                    .range(0.5, 1.0)
                    .slider()
                    .tooltip("Reward probability of the better arm in the probabilistic reversal task (the paper: 0.8)."),
                Param::new("settings.reversal.trials", "Reversal trials", field!(ReflectionParams, settings.reversal.trials))
                    .range(4.0, 400.0)
                    .tooltip("Trials per reversal session (even; the arms reverse at half; the paper: 40)."),
                Param::new("settings.wcst.rule_interval", "WCST rule interval", field!(ReflectionParams, settings.wcst.rule_interval))
                    .range(1.0, 72.0)
                    .tooltip("The WCST rule changes shape → colour → number every this many trials (the paper: 12)."),
                Param::new("settings.weather.persist", "Weather persistence q", field!(ReflectionParams, settings.weather.persist))
                    .range(0.0, 1.0)
                    .slider()
                    .tooltip("P(weather stays) with device [1, 0]; device [0, 1] flips it with the same probability (the paper: 0.9)."),
                Param::new("settings.iowa.trials", "Iowa trials", field!(ReflectionParams, settings.iowa.trials))
                    .range(1.0, 500.0)
                    .tooltip("Trials per double-choice Iowa session (the paper: 50)."),
                Param::new("settings.meta.interval", "Meta-bandit interval", field!(ReflectionParams, settings.meta.interval))
                    .range(1.0, 20.0)
                    .tooltip("The meta-bandit's rewarded arm reverses every this many trials (the paper: 2)."),
                Param::new("settings.meta.trials", "Meta-bandit trials", field!(ReflectionParams, settings.meta.trials))
                    .range(4.0, 400.0)
                    .tooltip("Trials per meta-bandit session (the paper: 40)."),
            ],
        ));
        v.push(
            Param::new(
                "llm.temperature",
                "Model temperature",
                field!(ReflectionParams, llm.temperature),
            )
            .range(0.0, 2.0)
            .tooltip("Sampling temperature sent to the language model (the paper: 1).")
            .no_sweep(),
        );
        v.push(
            Param::new(
                "llm.timeout_s",
                "Model request deadline (s)",
                field!(ReflectionParams, llm.timeout_s),
            )
            .range(1.0, 3600.0)
            .tooltip(
                "Seconds one request to the endpoint may take in all: connecting, sending and \
                 reading the reply (a server that trickles bytes fails at this deadline).",
            )
            .no_sweep(),
        );
        v
    }
}
