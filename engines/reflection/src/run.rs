//! Playing sessions: one agent on one task, and every chosen agent on every chosen task with
//! per-task mean, standard deviation and an overall score.

use std::collections::BTreeMap;

use benchtop_compute::rng::derive_seed;
use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::{Deserialize, Serialize};

use crate::agents::{Agent, Scripted, ScriptedAgent};
use crate::score;
use crate::session::{Session, TrialRecord};
use crate::task::{Settings, Task};

/// One finished session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionResult {
    /// The agent's name.
    pub agent: String,
    /// The task.
    pub task: Task,
    /// Session index.
    pub session: usize,
    /// The session's score (see [`score::score`]).
    pub score: f64,
    /// The trace.
    pub records: Vec<TrialRecord>,
}

/// The environment seed of session `session` of `task`: the same for every agent, so agents
/// face the same outcomes.
pub fn session_seed(seed: u64, task: Task, session: usize) -> u64 {
    let t = Task::ALL.iter().position(|x| *x == task).unwrap_or(0) as u64;
    derive_seed(seed, 1000 * (t + 1) + session as u64)
}

/// A stable seed for an agent's own random choices (from its name, not its list position).
pub fn agent_seed(seed: u64, name: &str) -> u64 {
    let h = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    derive_seed(seed, h)
}

/// Plays one session of `task` with `agent`.
pub fn play(
    agent: &mut dyn Agent,
    task: Task,
    settings: &Settings,
    session: usize,
    seed: u64,
) -> Result<SessionResult, String> {
    play_until(agent, task, settings, session, seed, &CancelToken::new()).map_err(|e| match e {
        ComputeError::InvalidParameter { reason, .. } => reason,
        other => other.to_string(),
    })
}

/// [`play`], checking `cancel` before every trial (for slow agents such as a language model);
/// an agent's failure is an `agent` parameter error carrying its message.
pub fn play_until(
    agent: &mut dyn Agent,
    task: Task,
    settings: &Settings,
    session: usize,
    seed: u64,
    cancel: &CancelToken,
) -> Result<SessionResult, ComputeError> {
    let fail = |e: String| ComputeError::invalid("agent", e);
    agent.begin(task, settings, session).map_err(fail)?;
    let mut s = Session::new(task, settings, session_seed(seed, task, session));
    while let Some(turn) = s.turn() {
        cancel.check()?;
        let answer = agent.answer(&turn).map_err(fail)?;
        s.submit(&answer);
    }
    Ok(SessionResult {
        agent: agent.name(),
        task,
        session,
        score: s.score(),
        records: s.records().to_vec(),
    })
}

/// Mean, sample standard deviation and count of a task's session scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Mean over sessions.
    pub mean: f64,
    /// Sample standard deviation (0 for one session).
    pub sd: f64,
    /// Sessions.
    pub sessions: usize,
}

impl Stats {
    /// Statistics of `xs`.
    pub fn of(xs: &[f64]) -> Self {
        let n = xs.len();
        if n == 0 {
            return Self::default();
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        let sd = if n > 1 {
            (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        Self {
            mean,
            sd,
            sessions: n,
        }
    }
}

/// What to run: scripted agents × tasks × sessions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchParams {
    /// The agents.
    pub agents: Vec<Scripted>,
    /// The tasks.
    pub tasks: Vec<Task>,
    /// Sessions per task; 0 uses the paper's (3 for oddball, 2 otherwise).
    pub sessions: usize,
    /// Task settings.
    pub settings: Settings,
}

impl Default for BenchParams {
    fn default() -> Self {
        Self {
            agents: Scripted::defaults(),
            tasks: Task::ALL.to_vec(),
            sessions: 0,
            settings: Settings::default(),
        }
    }
}

impl BenchParams {
    /// Sessions of `task` under these parameters.
    pub fn sessions_of(&self, task: Task) -> usize {
        if self.sessions == 0 {
            task.paper_sessions()
        } else {
            self.sessions
        }
    }
}

/// Every session's result and the score table.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BenchResult {
    /// Every session, agent-major.
    pub sessions: Vec<SessionResult>,
    /// `scores[agent][task]`.
    pub scores: BTreeMap<String, BTreeMap<Task, Stats>>,
    /// Per agent: mean over its tasks of the 0–100 normalised task means (meta-bandit as
    /// 100 × count / maximum).
    pub overall: BTreeMap<String, f64>,
    /// Agent names in run order.
    pub agents: Vec<String>,
}

/// Builds the score table from finished sessions.
pub fn tabulate(sessions: Vec<SessionResult>, settings: &Settings) -> BenchResult {
    let mut agents: Vec<String> = Vec::new();
    let mut raw: BTreeMap<String, BTreeMap<Task, Vec<f64>>> = BTreeMap::new();
    for s in &sessions {
        if !agents.contains(&s.agent) {
            agents.push(s.agent.clone());
        }
        raw.entry(s.agent.clone())
            .or_default()
            .entry(s.task)
            .or_default()
            .push(s.score);
    }
    let scores: BTreeMap<String, BTreeMap<Task, Stats>> = raw
        .into_iter()
        .map(|(a, t)| (a, t.into_iter().map(|(k, v)| (k, Stats::of(&v))).collect()))
        .collect();
    let overall = scores
        .iter()
        .map(|(a, t)| {
            let n: Vec<f64> = t
                .iter()
                .map(|(k, s)| score::normalized(*k, settings, s.mean))
                .collect();
            (a.clone(), n.iter().sum::<f64>() / n.len().max(1) as f64)
        })
        .collect();
    BenchResult {
        sessions,
        scores,
        overall,
        agents,
    }
}

/// Runs every agent on every task; progress counts sessions; cancellable between sessions.
pub fn run(
    params: &BenchParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<BenchResult, ComputeError> {
    params
        .settings
        .validate()
        .map_err(|e| ComputeError::invalid("settings", e))?;
    if params.agents.is_empty() || params.tasks.is_empty() {
        return Err(ComputeError::invalid(
            "agents",
            "choose at least one agent and one task",
        ));
    }
    let total: usize = params.agents.len()
        * params
            .tasks
            .iter()
            .map(|t| params.sessions_of(*t))
            .sum::<usize>();
    let mut done = 0usize;
    let mut out = Vec::new();
    for kind in &params.agents {
        let mut agent = ScriptedAgent::new(kind.clone(), agent_seed(seed, &kind.name()));
        for &task in &params.tasks {
            for session in 0..params.sessions_of(task) {
                cancel.check()?;
                let r = play_until(&mut agent, task, &params.settings, session, seed, cancel)?;
                out.push(r);
                done += 1;
                progress.set_count(done as u64, total as u64);
            }
        }
    }
    Ok(tabulate(out, &params.settings))
}
