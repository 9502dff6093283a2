//! Reflection-Bench (Li et al., ICML 2025): seven cognitive tasks that probe an agent's
//! epistemic agency. The panel runs seeded scripted agents on every task (score bars per task
//! and the seven-dimension radar), shows any session's trial trace, lets a person play any task
//! with buttons under the same scorer, and runs a language model behind an OpenAI-compatible
//! endpoint with a transcript.

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_reflection as engine;

pub mod bench;
pub mod cli;
mod figures;
mod params;
mod play;

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, Recipe};
use benchtop_kit::project::Sidecar;
use benchtop_kit::sweep::SweepOutput;
use benchtop_kit::task::Task as KitTask;
use benchtop_kit::widgets::controls_and_view;
use benchtop_reflection::http::Url;
use benchtop_reflection::llm::Exchange;
use benchtop_reflection::run::{BenchParams, tabulate};
use benchtop_reflection::trust;
use benchtop_reflection::{
    BenchResult, LlmAgent, LlmConfig, SessionResult, Settings, Strategy, Task,
};
use serde::{Deserialize, Serialize};

pub use params::{AGENT_NAMES, ReflectionParams};

/// The panel.
pub type ReflectionPanel = Host<ReflectionModel>;

/// Everything the project file stores for this panel.
pub type ReflectionState = DocOf<ReflectionModel>;

/// The tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReflectionTab {
    /// Agents × tasks: bars and radar.
    #[default]
    Scores,
    /// One session's trial trace.
    Trace,
    /// A person plays.
    Play,
    /// The language-model agent.
    Model,
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReflectionView {
    /// The tab shown.
    pub tab: ReflectionTab,
    /// Scores tab: show the radar (else the bars).
    pub radar: bool,
    /// Trace: the agent.
    pub trace_agent: String,
    /// Trace: the task.
    pub trace_task: Task,
    /// Trace: the session.
    pub trace_session: usize,
    /// Trace: trials shown (stepping); 0 shows all.
    pub trace_upto: usize,
    /// Play: the task to play.
    pub play_task: Task,
    /// Model tab: the transcript's session shown.
    pub transcript_task: Task,
}

impl Default for ReflectionView {
    fn default() -> Self {
        Self {
            tab: ReflectionTab::Scores,
            radar: true,
            trace_agent: "bayesian".into(),
            trace_task: Task::Reversal,
            trace_session: 0,
            trace_upto: 0,
            play_task: Task::Reversal,
            transcript_task: Task::Reversal,
        }
    }
}

/// A language-model run: its sessions and transcript.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelRun {
    /// Scores and traces.
    pub result: BenchResult,
    /// Every exchange.
    pub transcript: Vec<Exchange>,
    /// Why the run stopped before its last session (the sessions before it are kept).
    pub failure: Option<String>,
}

/// Results kept with the project.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The scripted agents' table.
    pub table: Option<BenchResult>,
    /// The language-model run.
    pub model: Option<ModelRun>,
    /// Finished games played by a person.
    pub human: Vec<SessionResult>,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum ReflectionTask for ReflectionModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// The scripted agents × tasks table.
    Table(table = true): table => |m, cx| m.start_table(cx);
    /// The language-model agent (needs an endpoint; off by default).
    Model(model = false): model => |m, cx| m.start_model(cx);
}

type TableKey = (BenchParams, u64);

/// What a model run depends on.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelKey {
    llm: LlmConfig,
    tasks: Vec<Task>,
    sessions: usize,
    settings: Settings,
    seed: u64,
}

fn model_key(p: &ReflectionParams) -> ModelKey {
    let b = p.bench();
    ModelKey {
        llm: p.llm.clone(),
        tasks: b.tasks,
        sessions: p.sessions,
        settings: p.settings.clone(),
        seed: p.seed,
    }
}

/// The endpoint's approval: a project can name an endpoint, but Benchtop contacts it (and sends
/// the key) only once the user approves its host:port here (or in the environment or the
/// approvals file, see `benchtop_reflection::trust`).
fn endpoint_approval(ui: &mut egui::Ui, endpoint: &str) {
    if endpoint.trim().is_empty() {
        ui.label("No endpoint: BENCHTOP_LLM_ENDPOINT is used (your own setting).");
        return;
    }
    let url = match Url::parse(endpoint) {
        Ok(url) => url,
        Err(why) => {
            ui.colored_label(ui.visuals().warn_fg_color, why);
            return;
        }
    };
    let origin = url.origin();
    if trust::is_approved(&origin) {
        ui.label(format!("{origin} is approved to receive the key."));
        return;
    }
    ui.colored_label(
        ui.visuals().warn_fg_color,
        format!(
            "{origin} is not approved: nothing is sent to it (and never BENCHTOP_LLM_API_KEY) \
             until you approve it."
        ),
    );
    ui.horizontal(|ui| {
        if ui.button("Approve for this session").clicked() {
            trust::approve_for_session(&origin);
        }
        if ui.button("Approve and remember").clicked()
            && let Err(why) = trust::approve_and_remember(&origin)
        {
            log::warn!("approving {origin}: {why}");
        }
    });
}

/// Runs the language-model agent on every task of `key`.
pub fn run_model(
    key: &ModelKey,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<ModelRun, ComputeError> {
    key.settings
        .validate()
        .map_err(|e| ComputeError::invalid("settings", e))?;
    let mut agent =
        LlmAgent::new(key.llm.clone()).map_err(|e| ComputeError::invalid("llm.endpoint", e))?;
    let bench = BenchParams {
        agents: Vec::new(),
        tasks: key.tasks.clone(),
        sessions: key.sessions,
        settings: key.settings.clone(),
    };
    let total: usize = key.tasks.iter().map(|t| bench.sessions_of(*t)).sum();
    let mut out = Vec::new();
    for &task in &key.tasks {
        for s in 0..bench.sessions_of(task) {
            progress.set(
                out.len() as f64 / total.max(1) as f64,
                format!("{} session {}", task.key(), s + 1),
            );
            match benchtop_reflection::play_until(
                &mut agent,
                task,
                &key.settings,
                s,
                key.seed,
                cancel,
            ) {
                Ok(session) => out.push(session),
                Err(ComputeError::Cancelled) => return Err(ComputeError::Cancelled),
                // Nothing exchanged: the endpoint never answered; say so as an error.
                Err(error) if out.is_empty() && agent.transcript.is_empty() => {
                    return Err(error);
                }
                // Keep the sessions and the transcript so far, and say why it stopped.
                Err(error) => {
                    return Ok(ModelRun {
                        result: tabulate(out, &key.settings),
                        transcript: agent.transcript,
                        failure: Some(format!("{} session {}: {error}", task.key(), s + 1)),
                    });
                }
            }
        }
    }
    Ok(ModelRun {
        result: tabulate(out, &key.settings),
        transcript: agent.transcript,
        failure: None,
    })
}

/// The panel's tabs and results.
pub struct ReflectionModel {
    table: KitTask<TableKey, (), BenchResult>,
    model: KitTask<ModelKey, (), ModelRun>,
    game: play::Game,
    human: Vec<SessionResult>,
    plot_scores: FigureViewState,
    plot_trace: FigureViewState,
}

impl Default for ReflectionModel {
    fn default() -> Self {
        Self {
            table: KitTask::new("reflection: agents × tasks"),
            model: KitTask::new("reflection: language model"),
            game: play::Game::default(),
            human: Vec::new(),
            plot_scores: FigureViewState::default(),
            plot_trace: FigureViewState::default(),
        }
    }
}

const ENGINE: (&str, &str) = ("benchtop-reflection", env!("CARGO_PKG_VERSION"));

fn table_key(p: &ReflectionParams) -> TableKey {
    (p.bench(), p.seed)
}

impl ReflectionModel {
    fn start_table(&mut self, cx: &mut Cx<'_, Self>) {
        let key = table_key(cx.params);
        let (bench, seed) = key.clone();
        self.table.start(&cx.runner, key, move |job| {
            benchtop_reflection::run(&bench, seed, &job.progress, &job.cancel)
        });
    }

    fn start_model(&mut self, cx: &mut Cx<'_, Self>) {
        let key = model_key(cx.params);
        let k = key.clone();
        self.model.start(&cx.runner, key, move |job| {
            run_model(&k, &job.progress, &job.cancel)
        });
    }

    /// Every session result the panel holds: scripted, model, human.
    fn all_sessions(&self) -> Vec<&SessionResult> {
        let mut v: Vec<&SessionResult> = self
            .table
            .result()
            .map(|r| r.sessions.iter().collect())
            .unwrap_or_default();
        if let Some(m) = self.model.result() {
            v.extend(m.result.sessions.iter());
        }
        v.extend(self.human.iter());
        v
    }

    /// The combined table: scripted agents, then the model and the person where present.
    fn combined(&self, settings: &Settings) -> BenchResult {
        tabulate(self.all_sessions().into_iter().cloned().collect(), settings)
    }

    fn scores_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        controls_and_view(
            ui,
            "reflection scores controls",
            310.0,
            &mut (self, cx),
            |(model, cx), ui| {
                ui.label("Agents");
                for name in AGENT_NAMES {
                    let mut on = cx.params.agents.iter().any(|a| a == name);
                    if ui.checkbox(&mut on, name).changed() {
                        cx.params.agents.retain(|a| a != name);
                        if on {
                            cx.params.agents.push(name.to_owned());
                        }
                    }
                }
                ui.separator();
                ui.label("Tasks");
                for task in Task::ALL {
                    let mut on = cx.params.tasks.contains(&task);
                    if ui.checkbox(&mut on, task.label()).changed() {
                        cx.params.tasks.retain(|t| *t != task);
                        if on {
                            cx.params.tasks.push(task);
                        }
                    }
                }
                ui.separator();
                cx.params(
                    ui,
                    &[
                        "seed",
                        "sessions",
                        "q_alpha",
                        "q_beta",
                        "hazard",
                        "pattern_period",
                    ],
                );
                ui.collapsing("Task settings", |ui| {
                    cx.params(
                        ui,
                        &[
                            "settings.data_seed",
                            "settings.nback.n",
                            "settings.reversal.p",
                            "settings.reversal.trials",
                            "settings.wcst.rule_interval",
                            "settings.weather.persist",
                            "settings.iowa.trials",
                            "settings.meta.interval",
                            "settings.meta.trials",
                        ],
                    );
                });
                let key = table_key(cx.params);
                if model.table.controls(ui, &key, "Run all agents", "Stop") {
                    model.start_table(cx);
                }
                ui.separator();
                ui.checkbox(&mut cx.view.radar, "Show the radar (else the bars)");
                let table = model.combined(&cx.params.settings);
                score_grid(ui, &table, &cx.params.settings);
            },
            |(model, cx), ui| {
                let table = model.combined(&cx.params.settings);
                if table.agents.is_empty() {
                    ui.label("Run all agents to see the scores.");
                    return;
                }
                let t = figures::Table {
                    agents: &table.agents,
                    scores: &table.scores,
                };
                let fig = if cx.view.radar {
                    figures::radar(&t, &cx.params.settings)
                } else {
                    figures::bars(&t, &present_tasks(&table), &cx.params.settings)
                };
                show_figure(ui, &fig, &mut model.plot_scores);
            },
        );
    }

    fn trace_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        let sessions: Vec<SessionResult> = self.all_sessions().into_iter().cloned().collect();
        let mut agents: Vec<String> = Vec::new();
        for s in &sessions {
            if !agents.contains(&s.agent) {
                agents.push(s.agent.clone());
            }
        }
        controls_and_view(
            ui,
            "reflection trace controls",
            310.0,
            &mut (self, cx),
            |(_, cx), ui| {
                egui::ComboBox::from_label("Agent")
                    .selected_text(cx.view.trace_agent.clone())
                    .show_ui(ui, |ui| {
                        for a in &agents {
                            ui.selectable_value(&mut cx.view.trace_agent, a.clone(), a);
                        }
                    });
                egui::ComboBox::from_label("Task")
                    .selected_text(cx.view.trace_task.label())
                    .show_ui(ui, |ui| {
                        for t in Task::ALL {
                            ui.selectable_value(&mut cx.view.trace_task, t, t.label());
                        }
                    });
                let n = sessions
                    .iter()
                    .filter(|s| s.agent == cx.view.trace_agent && s.task == cx.view.trace_task)
                    .count();
                ui.add(
                    egui::Slider::new(&mut cx.view.trace_session, 0..=n.saturating_sub(1))
                        .text("Session (0-based)"),
                );
                let trials = cx.params.settings.trials(cx.view.trace_task);
                ui.add(
                    egui::Slider::new(&mut cx.view.trace_upto, 0..=trials)
                        .text("Trials shown (0: all)"),
                );
                ui.horizontal(|ui| {
                    if ui.button("◀ Step back").clicked() {
                        cx.view.trace_upto = cx.view.trace_upto.saturating_sub(1).max(1);
                    }
                    if ui.button("Step ▶").clicked() {
                        cx.view.trace_upto = (cx.view.trace_upto + 1).min(trials);
                    }
                });
                if let Some(s) = find(&sessions, cx.view) {
                    ui.label(format!("Session score {:.3}", s.score));
                    let upto = if cx.view.trace_upto == 0 {
                        s.records.len()
                    } else {
                        cx.view.trace_upto.min(s.records.len())
                    };
                    if let Some(r) = s.records.get(upto.wrapping_sub(1)) {
                        ui.label(format!("Trial {}: chose {}", r.trial + 1, short(&r.label)));
                        ui.label(format!("reward {:.3}; truth: {}", r.reward, r.hidden_label));
                        if let Some(b) = r.belief {
                            ui.label(format!("belief {b:.3}"));
                        }
                    }
                }
            },
            |(model, cx), ui| match find(&sessions, cx.view) {
                Some(s) => {
                    let upto = if cx.view.trace_upto == 0 {
                        s.records.len()
                    } else {
                        cx.view.trace_upto
                    };
                    show_figure(ui, &figures::trace(s, upto), &mut model.plot_trace);
                }
                None => {
                    ui.label("No session of this agent and task yet: run the agents, play, or run the model.");
                }
            },
        );
    }

    fn model_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        ui.label("An OpenAI-compatible chat endpoint (llama.cpp, vLLM, Ollama …) on http://. Off until you run it; the key is read from BENCHTOP_LLM_API_KEY and never saved.");
        egui::Grid::new("reflection llm")
            .num_columns(2)
            .show(ui, |ui| {
                let name = ui.label("Endpoint");
                ui.add(
                    egui::TextEdit::singleline(&mut cx.params.llm.endpoint)
                        .hint_text("http://127.0.0.1:8080/v1"),
                )
                .labelled_by(name.id);
                ui.end_row();
                let name = ui.label("Model");
                ui.add(
                    egui::TextEdit::singleline(&mut cx.params.llm.model).hint_text("model name"),
                )
                .labelled_by(name.id);
                ui.end_row();
                let name = ui.label("Output strategy");
                egui::ComboBox::from_id_salt("reflection strategy")
                    .selected_text(format!("{:?}", cx.params.llm.strategy))
                    .show_ui(ui, |ui| {
                        for s in [Strategy::Free, Strategy::Direct, Strategy::ChainOfThought] {
                            ui.selectable_value(&mut cx.params.llm.strategy, s, format!("{s:?}"));
                        }
                    })
                    .response
                    .labelled_by(name.id);
                ui.end_row();
            });
        ui.checkbox(
            &mut cx.params.llm.llm_extractor,
            "Ask the model to extract answers the rules miss",
        );
        cx.param(ui, "llm.temperature");
        cx.param(ui, "llm.timeout_s");
        endpoint_approval(ui, &cx.params.llm.endpoint);
        let key = model_key(cx.params);
        if self.model.controls(
            ui,
            &key,
            "Run the model on the ticked tasks",
            "Stop the model",
        ) {
            self.start_model(cx);
        }
        let Some(run) = self.model.result() else {
            return;
        };
        if let Some(why) = &run.failure {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!("The run stopped early ({why}); the sessions played before are kept."),
            );
        }
        for (agent, tasks) in &run.result.scores {
            let line: Vec<String> = tasks
                .iter()
                .map(|(t, s)| format!("{} {:.1}", t.key(), s.mean))
                .collect();
            ui.label(format!("{agent}: {}", line.join(", ")));
        }
        egui::ComboBox::from_label("Transcript of task")
            .selected_text(cx.view.transcript_task.label())
            .show_ui(ui, |ui| {
                for t in Task::ALL {
                    ui.selectable_value(&mut cx.view.transcript_task, t, t.label());
                }
            });
        egui::ScrollArea::vertical()
            .id_salt("reflection transcript")
            .show(ui, |ui| {
                for e in run
                    .transcript
                    .iter()
                    .filter(|e| e.task == cx.view.transcript_task)
                {
                    ui.label(
                        egui::RichText::new(format!(
                            "session {} trial {} → {}",
                            e.session + 1,
                            e.trial + 1,
                            e.prompt
                        ))
                        .strong(),
                    );
                    ui.label(format!("model: {}", e.reply));
                    ui.label(format!(
                        "extracted ({}): {}",
                        e.extractor,
                        e.extracted.as_deref().unwrap_or("—")
                    ));
                    ui.separator();
                }
            });
    }
}

fn short(s: &str) -> String {
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(60).collect::<String>())
    } else {
        s.to_owned()
    }
}

fn find<'a>(sessions: &'a [SessionResult], view: &ReflectionView) -> Option<&'a SessionResult> {
    sessions
        .iter()
        .filter(|s| s.agent == view.trace_agent && s.task == view.trace_task)
        .nth(view.trace_session)
}

fn present_tasks(table: &BenchResult) -> Vec<Task> {
    Task::ALL
        .into_iter()
        .filter(|t| table.scores.values().any(|m| m.contains_key(t)))
        .collect()
}

/// The score table as a grid of labels (agents × tasks, overall).
fn score_grid(ui: &mut egui::Ui, table: &BenchResult, settings: &Settings) {
    if table.agents.is_empty() {
        return;
    }
    egui::Grid::new("reflection score grid")
        .striped(true)
        .show(ui, |ui| {
            ui.label("agent");
            for t in Task::ALL {
                ui.label(t.key());
            }
            ui.label("overall");
            ui.end_row();
            for a in &table.agents {
                ui.label(a);
                for t in Task::ALL {
                    match table.scores.get(a).and_then(|m| m.get(&t)) {
                        Some(s) => ui.label(format!("{:.1}", s.mean)),
                        None => ui.label("—"),
                    };
                }
                ui.label(format!(
                    "{:.1}",
                    table.overall.get(a).copied().unwrap_or(0.0)
                ));
                ui.end_row();
            }
        });
    let _ = settings;
}

impl PanelModel for ReflectionModel {
    type Params = ReflectionParams;
    type View = ReflectionView;
    type Results = SavedResults;
    type Tab = ReflectionTab;

    const KIND: PanelKind = PanelKind {
        id: "reflection",
        name: "Reflection-Bench",
        description: "Seven cognitive tasks (oddball, 2-back, reversal, WCST, weather, double-choice Iowa, meta-bandit) that probe an agent's epistemic agency: scripted agents, human play and a language model under the paper's scorers.",
        field: Field::MachineLearning,
        paper: Paper {
            title: "Reflection-Bench: Evaluating Epistemic Agency in Large Language Models",
            authors: "Li, Wang, Zhang, Zhang, Li, Shao, Teng, Qiao, Wang, Hu (Shanghai AI Laboratory)",
            venue: "ICML 2025",
            link: "https://arxiv.org/abs/2410.16270",
        },
    };

    benchtop_kit::tabs!(ReflectionTab {
        Scores => "Scores",
        Trace => "Trace",
        Play => "Play",
        Model => "Language model",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;
    const COMMANDS: &'static [benchtop_kit::cli::CommandEntry] = cli::COMMANDS;

    fn restore(
        results: &SavedResults,
        _sidecar: Option<&Sidecar>,
        params: &ReflectionParams,
    ) -> anyhow::Result<Self> {
        let mut model = Self::default();
        if let Some(r) = &results.table {
            model.table.set_result(table_key(params), r.clone());
        }
        if let Some(r) = &results.model {
            model.model.set_result(model_key(params), r.clone());
        }
        model.human = results.human.clone();
        Ok(model)
    }

    fn save(&self, results: &mut SavedResults, _sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        results.table = self.table.result().cloned();
        results.model = self.model.result().cloned();
        results.human = self.human.clone();
        Ok(())
    }

    fn react(&mut self, cx: &mut Cx<'_, Self>) {
        // The scripted table takes well under a second: it follows the settings.
        let key = table_key(cx.params);
        if !self.table.is_current(&key) && !key.0.agents.is_empty() && !key.0.tasks.is_empty() {
            self.start_table(cx);
        }
    }

    fn tab_ui(&mut self, tab: ReflectionTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        match tab {
            ReflectionTab::Scores => self.scores_ui(ui, cx),
            ReflectionTab::Trace => self.trace_ui(ui, cx),
            ReflectionTab::Play => {
                if let Some(done) =
                    self.game
                        .ui(ui, cx.params, &mut cx.view.play_task, self.human.len())
                {
                    self.human.push(done);
                }
            }
            ReflectionTab::Model => self.model_ui(ui, cx),
        }
    }

    fn validate(params: &ReflectionParams) -> Vec<ParamIssue> {
        match params.settings.validate() {
            Ok(()) => Vec::new(),
            Err(e) => vec![ParamIssue {
                key: "settings".into(),
                message: e,
            }],
        }
    }

    fn figures(&self, params: &ReflectionParams, view: &ReflectionView) -> Vec<PanelFigure> {
        let recipe = Recipe::new(ENGINE, params, Some(params.seed));
        let table = self.combined(&params.settings);
        let mut out = Vec::new();
        if !table.agents.is_empty() {
            let t = figures::Table {
                agents: &table.agents,
                scores: &table.scores,
            };
            out.push(recipe.figure(
                "reflection-bars",
                figures::bars(&t, &present_tasks(&table), &params.settings),
            ));
            out.push(recipe.figure("reflection-radar", figures::radar(&t, &params.settings)));
        }
        let sessions: Vec<SessionResult> = self.all_sessions().into_iter().cloned().collect();
        if let Some(s) = find(&sessions, view) {
            let upto = if view.trace_upto == 0 {
                s.records.len()
            } else {
                view.trace_upto
            };
            out.push(recipe.figure("reflection-trace", figures::trace(s, upto)));
        }
        out
    }

    fn tables(&self, params: &ReflectionParams, _view: &ReflectionView) -> Vec<DataTable> {
        let table = self.combined(&params.settings);
        if table.agents.is_empty() {
            return Vec::new();
        }
        // One row per agent: its index in the summary's agent order, then each task's mean.
        let rows = table
            .agents
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let mut row = vec![i as f64];
                for t in Task::ALL {
                    row.push(
                        table
                            .scores
                            .get(a)
                            .and_then(|m| m.get(&t))
                            .map_or(f64::NAN, |s| s.mean),
                    );
                }
                row.push(table.overall.get(a).copied().unwrap_or(f64::NAN));
                row
            })
            .collect();
        let mut cols = vec!["agent_index"];
        cols.extend(Task::ALL.iter().map(|t| t.key()));
        cols.push("overall");
        vec![DataTable::new("reflection-scores", &cols, rows)]
    }

    fn summary(&self, params: &ReflectionParams) -> serde_json::Value {
        let table = self.combined(&params.settings);
        if table.agents.is_empty() {
            return serde_json::Value::Null;
        }
        let mut scores = serde_json::Map::new();
        for a in &table.agents {
            let mut m = serde_json::Map::new();
            for (t, s) in table.scores.get(a).into_iter().flatten() {
                m.insert(
                    t.key().into(),
                    serde_json::json!({"mean": s.mean, "sd": s.sd, "sessions": s.sessions}),
                );
            }
            m.insert(
                "overall".into(),
                serde_json::json!(table.overall.get(a).copied().unwrap_or(0.0)),
            );
            scores.insert(a.clone(), serde_json::Value::Object(m));
        }
        serde_json::json!({ "scores": scores, "agents": table.agents })
    }

    fn sweep_outputs() -> Vec<SweepOutput> {
        AGENT_NAMES
            .iter()
            .map(|a| SweepOutput::new(&format!("overall_{a}"), &format!("Overall score of {a}")))
            .collect()
    }

    fn evaluate(
        params: &ReflectionParams,
        outputs: &[String],
        seed: u64,
        _cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        let r = benchtop_reflection::run(&params.bench(), seed, progress, cancel)?;
        Ok(outputs
            .iter()
            .filter_map(|o| {
                let a = o.strip_prefix("overall_")?;
                Some((o.clone(), *r.overall.get(a)?))
            })
            .collect())
    }
}
