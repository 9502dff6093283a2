//! `benchtop reflect --agent NAME --task NAME --sessions N [--endpoint URL --model M]
//! [--transcript FILE]`: plays Reflection-Bench sessions with one agent and prints one JSON
//! object with the scores. `--task all` plays the seven tasks. The agent `llm` (implied by
//! `--endpoint`) is a language model behind an OpenAI-compatible endpoint (key from
//! `BENCHTOP_LLM_API_KEY`); its transcript (every prompt, reply and extracted answer) goes to
//! `--transcript`. For a scripted agent the transcript is the trial records.

use std::io::Write as _;
use std::path::PathBuf;

use benchtop_kit::cli::{CommandEntry, run_command};
use benchtop_reflection::http::Url;
use benchtop_reflection::run::{play, tabulate};
use benchtop_reflection::trust;
use benchtop_reflection::{
    Agent, LlmAgent, LlmConfig, Scripted, ScriptedAgent, Settings, Strategy, Task,
};

/// The panel's own subcommand.
pub const COMMANDS: &[CommandEntry] = &[CommandEntry {
    name: "reflect",
    about: "Play Reflection-Bench sessions with one agent; prints one JSON object with the scores",
    run: |args| run_command("reflect", args, reflect),
}];

/// Options of `benchtop reflect`.
#[derive(Debug, clap::Parser)]
#[command(
    name = "benchtop reflect",
    about = "Play Reflection-Bench sessions with one agent; prints one JSON object with the scores"
)]
pub struct ReflectArgs {
    /// The agent: oracle, random, wsls, q_learning, bayesian, pattern, pattern_K or llm.
    #[arg(long, default_value = "oracle")]
    pub agent: String,
    /// The task: oddball, n_back, reversal, wcst, weather, iowa, meta_bandit, or all.
    #[arg(long, default_value = "all")]
    pub task: String,
    /// Sessions per task (0: the paper's, 3 for oddball and 2 otherwise).
    #[arg(long, default_value_t = 0)]
    pub sessions: usize,
    /// Seed of the environments and the agent.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// OpenAI-compatible endpoint (http://…/v1) of a language model; implies --agent llm.
    #[arg(long)]
    pub endpoint: Option<String>,
    /// The model name sent to the endpoint.
    #[arg(long)]
    pub model: Option<String>,
    /// The model's output strategy: free, direct or cot.
    #[arg(long, default_value = "free")]
    pub strategy: String,
    /// Write the transcript (the model's exchanges, or a scripted agent's trial records).
    #[arg(long)]
    pub transcript: Option<PathBuf>,
    /// Approve an endpoint's host:port to receive BENCHTOP_LLM_API_KEY from projects that name
    /// it (remembered in the user's approvals file), then stop.
    #[arg(long, value_name = "URL")]
    pub approve: Option<String>,
    /// Seconds one request to the endpoint may take in all (1 to 3600).
    #[arg(long, default_value_t = 120.0)]
    pub timeout_s: f64,
}

/// Runs the sessions and prints the JSON object.
pub fn reflect(args: &ReflectArgs) -> anyhow::Result<()> {
    if let Some(url) = &args.approve {
        let url = Url::parse(url).map_err(|e| anyhow::anyhow!("--approve: {e}"))?;
        let file = trust::approve_and_remember(&url.origin())
            .map_err(|e| anyhow::anyhow!("--approve: {e}"))?;
        benchtop_kit::note!(
            "{} may now receive BENCHTOP_LLM_API_KEY (listed in {})",
            url.origin(),
            file.display()
        );
        return Ok(());
    }
    let tasks: Vec<Task> = if args.task == "all" {
        Task::ALL.to_vec()
    } else {
        vec![Task::from_key(&args.task).ok_or_else(|| {
            let keys: Vec<&str> = Task::ALL.iter().map(|t| t.key()).collect();
            anyhow::anyhow!(
                "--task {}: use one of {} or all",
                args.task,
                keys.join(", ")
            )
        })?]
    };
    let settings = Settings::default();
    let strategy = match args.strategy.as_str() {
        "free" => Strategy::Free,
        "direct" => Strategy::Direct,
        "cot" => Strategy::ChainOfThought,
        other => anyhow::bail!("--strategy {other}: use free, direct or cot"),
    };
    let is_llm = args.agent == "llm" || args.endpoint.is_some();
    let mut llm: Option<LlmAgent> = None;
    let mut scripted: Option<ScriptedAgent> = None;
    if is_llm {
        let config = LlmConfig {
            endpoint: args.endpoint.clone().unwrap_or_default(),
            model: args.model.clone().unwrap_or_default(),
            strategy,
            timeout_s: args.timeout_s,
            ..LlmConfig::default()
        };
        // An endpoint typed here is the user's own choice.
        llm = Some(
            LlmAgent::with_typed_endpoint(config)
                .map_err(|e| anyhow::anyhow!("--endpoint: {e}"))?,
        );
    } else {
        let kind = Scripted::from_name(&args.agent).ok_or_else(|| {
            anyhow::anyhow!(
                "--agent {}: use oracle, random, wsls, q_learning, bayesian, pattern, pattern_K or llm",
                args.agent
            )
        })?;
        scripted = Some(ScriptedAgent::new(
            kind.clone(),
            benchtop_reflection::run::agent_seed(args.seed, &kind.name()),
        ));
    }
    let agent: &mut dyn Agent = match (&mut llm, &mut scripted) {
        (Some(a), _) => a,
        (_, Some(a)) => a,
        _ => unreachable!("one agent is built above"),
    };
    let mut results = Vec::new();
    let mut failure = None;
    'tasks: for &task in &tasks {
        let n = if args.sessions == 0 {
            task.paper_sessions()
        } else {
            args.sessions
        };
        for s in 0..n {
            match play(agent, task, &settings, s, args.seed) {
                Ok(result) => results.push(result),
                Err(e) => {
                    failure = Some(format!("{} session {}: {e}", task.key(), s + 1));
                    break 'tasks;
                }
            }
        }
    }
    // What was played is kept, also when a session failed midway.
    if let Some(path) = &args.transcript {
        let text = match &llm {
            Some(a) => a.transcript_json(),
            None => serde_json::to_string_pretty(&results)?,
        };
        std::fs::write(path, text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    }
    let table = tabulate(results.clone(), &settings);
    let name = table.agents.first().cloned().unwrap_or_default();
    let mut scores = serde_json::Map::new();
    for (t, s) in table.scores.get(&name).into_iter().flatten() {
        let per: Vec<f64> = results
            .iter()
            .filter(|r| r.task == *t)
            .map(|r| r.score)
            .collect();
        scores.insert(t.key().into(), serde_json::json!({"mean": s.mean, "sd": s.sd, "sessions": s.sessions, "per_session": per}));
    }
    let mut out = serde_json::json!({
        "agent": name,
        "seed": args.seed,
        "scores": scores,
        "overall": table.overall.get(&name).copied().unwrap_or(0.0),
    });
    if let [task] = tasks.as_slice()
        && let Some(stats) = table.scores.get(&name).and_then(|s| s.get(task))
    {
        out["task"] = serde_json::json!(task.key());
        out["score"] = serde_json::json!(stats.mean);
    }
    if let Some(why) = &failure {
        out["error"] = serde_json::json!(why);
    }
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{out}")?;
    match failure {
        Some(why) => Err(anyhow::anyhow!(
            "{why} (the sessions played before it are reported)"
        )),
        None => Ok(()),
    }
}
