//! Tensor-Var data assimilation: 4D-Var in a kernel feature space against classic 4D-Var
//! (Yang, Cheng, Luo, Fan & Arcucci, "Tensor-Var: Efficient Four-Dimensional Variational Data
//! Assimilation", ICML 2025).
//!
//! One task simulates Lorenz-96 or Kuramoto–Sivashinsky (chosen in the controls), trains
//! Tensor-Var's operators, tunes the baselines on training windows, and cycles Tensor-Var,
//! strong-constraint 4D-Var (adjoint + L-BFGS on the true model), 3D-Var, an ensemble Kalman
//! filter, the trivial references (climatology; observations inverted, no dynamics) and a free
//! run over consecutive windows of held-out truth, streaming the analyses window by window so
//! the figures grow while it runs. Tabs: Hovmöller diagrams of truth, analyses and errors; RMSE
//! over time with the time per window, the total time and the paper's claims judged on the
//! run; the training fit. The engine is `benchtop-assimilation`.

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_assimilation as engine;

pub mod bench;
mod figures;
mod params;
mod report;
mod sweeps;

use std::collections::BTreeMap;

use benchtop_assimilation::{AssimParams, AssimResult, SystemKind};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, Recipe};
use benchtop_kit::project::Sidecar;
use benchtop_kit::sweep::SweepOutput;
use benchtop_kit::task::{Latest, Task};
use benchtop_kit::widgets::controls_and_view;
use serde::{Deserialize, Serialize};

/// The panel.
pub type AssimilationPanel = Host<AssimilationModel>;

/// Everything the project file stores for this panel.
pub type AssimilationState = DocOf<AssimilationModel>;

/// The parameters a user edits (the unit of undo and of sweeps).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AssimilationParams {
    /// The engine's experiment.
    pub run: AssimParams,
    /// Seed of the data and the random features.
    pub seed: u64,
}

impl Default for AssimilationParams {
    fn default() -> Self {
        Self {
            run: AssimParams::default(),
            seed: 1,
        }
    }
}

/// The tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum AssimilationTab {
    /// Hovmöller diagrams.
    #[default]
    Hovmoller,
    /// RMSE over time and the cost per window.
    Accuracy,
    /// Tensor-Var's training fit.
    Training,
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AssimilationView {
    /// The tab shown.
    pub tab: AssimilationTab,
}

/// Results kept with the project.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The last experiment.
    pub run: Option<AssimResult>,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum AssimilationTask for AssimilationModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// Run the assimilation experiment.
    Run(run = true): run => |m, cx| m.start_run(cx);
}

/// What a result depends on.
type RunKey = AssimilationParams;

/// The panel's tabs and results.
pub struct AssimilationModel {
    run: Task<RunKey, Latest<AssimResult>, AssimResult>,
    plot: FigureViewState,
}

impl Default for AssimilationModel {
    fn default() -> Self {
        Self {
            run: Task::new("assimilation: run"),
            plot: FigureViewState::default(),
        }
    }
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-assimilation", env!("CARGO_PKG_VERSION"));

fn compute(
    params: &AssimilationParams,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<AssimResult, ComputeError> {
    benchtop_assimilation::run(&params.run, params.seed, progress, cancel)
}

/// The system selector: switching sets the system's own settings (size, step, observation
/// spacing, initial background error, B's jitter) to its defaults and keeps the rest.
fn system_choice(ui: &mut egui::Ui, run: &mut AssimParams) {
    ui.horizontal(|ui| {
        ui.label("System");
        for kind in [SystemKind::Lorenz96, SystemKind::KuramotoSivashinsky] {
            if ui
                .selectable_label(run.system == kind, kind.label())
                .on_hover_text(match kind {
                    SystemKind::Lorenz96 => "Lorenz-96, RK4 dt = 0.01, observations every 0.1.",
                    SystemKind::KuramotoSivashinsky => {
                        "Kuramoto–Sivashinsky u_t = −u u_x − u_xx − u_xxxx on a periodic domain, ETDRK4 dt = 0.25 on 128 points, observations every 1.0."
                    }
                })
                .clicked()
                && run.system != kind
            {
                run.set_system(kind);
            }
        }
    });
}

impl AssimilationModel {
    fn start_run(&mut self, cx: &mut Cx<'_, Self>) {
        let params = cx.params.clone();
        self.run.start(&cx.runner, params.clone(), move |job| {
            benchtop_assimilation::run_live(
                &params.run,
                params.seed,
                &job.progress,
                &job.cancel,
                |partial| {
                    job.send(partial.clone());
                },
            )
        });
    }

    /// The result to draw: the partial one while the run streams windows, else the last.
    fn shown(&self) -> Option<&AssimResult> {
        if self.run.is_running() {
            self.run.live().0.as_ref().or_else(|| self.run.result())
        } else {
            self.run.result()
        }
    }

    fn controls(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>, keys: &[&str]) {
        system_choice(ui, &mut cx.params.run);
        cx.params(ui, keys);
        if self
            .run
            .controls(ui, &cx.params.clone(), "Assimilate", "Stop")
        {
            self.start_run(cx);
        }
        if let Some(result) = self.shown() {
            ui.separator();
            report::results(ui, result, &cx.params.run);
        }
    }

    fn tab_view(&mut self, tab: AssimilationTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        let keys: &[&str] = match tab {
            AssimilationTab::Training => &[
                "run.tensor_var.components",
                "run.tensor_var.features",
                "run.tensor_var.ridge",
                "run.tensor_var.obs_ridge",
                "run.tensor_var.length_scale",
                "run.tensor_var.history",
                "run.tensor_var.history_components",
                "run.tensor_var.preimage_centres",
                "run.tensor_var.last_weight",
                "run.train_steps",
            ],
            _ if cx.params.run.system == SystemKind::KuramotoSivashinsky => &[
                "run.dim",
                "run.domain_length",
                "run.obs_fraction",
                "run.obs_noise",
                "run.window",
                "run.windows",
                "run.background_noise",
                "run.tensor_var.components",
                "run.tensor_var.ridge",
                "run.background_scale",
                "run.background_jitter",
                "run.max_iterations",
                "run.tune_windows",
                "run.enkf.members",
                "seed",
            ],
            _ => &[
                "run.dim",
                "run.forcing",
                "run.obs_fraction",
                "run.obs_noise",
                "run.window",
                "run.windows",
                "run.background_noise",
                "run.tensor_var.components",
                "run.tensor_var.ridge",
                "run.background_scale",
                "run.max_iterations",
                "run.tune_windows",
                "run.enkf.members",
                "seed",
            ],
        };
        let (dt, steps) = (cx.params.run.dt, cx.params.run.steps_per_obs);
        let windows = cx.params.run.windows;
        let kind = cx.params.run.system;
        let system = kind.label();
        controls_and_view(
            ui,
            "assimilation controls",
            330.0,
            &mut (self, cx),
            |(model, cx), ui| model.controls(ui, cx, keys),
            |(model, _), ui| {
                let figure = model.shown().map(|r| match tab {
                    AssimilationTab::Hovmoller => figures::hovmoller_figure(r, kind, dt, steps),
                    AssimilationTab::Accuracy => figures::rmse_figure(r, dt, steps, windows),
                    AssimilationTab::Training => figures::training_figure(r),
                });
                match figure {
                    Some(figure) => {
                        if tab == AssimilationTab::Training
                            && let Some(r) = model.shown()
                        {
                            ui.label(format!(
                                "pre-image nRMSE {:.4} · forward residual {:.3} · observation residual {:.3} · PCA keeps {:.1} % · k = {} · trained in {:.0} ms",
                                r.fit.preimage_nrmse,
                                r.fit.forward_residual,
                                r.fit.observation_residual,
                                100.0 * r.fit.explained_variance,
                                r.fit.feature_dim,
                                r.train_ms
                            ));
                        }
                        show_figure(ui, &figure, &mut model.plot);
                    }
                    None => model.run.placeholder(
                        ui,
                        &format!("Press Assimilate to simulate {system} and run every method."),
                    ),
                }
            },
        );
    }
}

impl PanelModel for AssimilationModel {
    type Params = AssimilationParams;
    type View = AssimilationView;
    type Results = SavedResults;
    type Tab = AssimilationTab;

    const KIND: PanelKind = PanelKind {
        id: "assimilation",
        name: "Tensor-Var data assimilation",
        description: "Track a chaotic Lorenz-96 or Kuramoto–Sivashinsky truth from sparse nonlinear observations with Tensor-Var (4D-Var linearised in a kernel feature space) against classic adjoint 4D-Var, 3D-Var and an ensemble Kalman filter (tuned on training windows) and the trivial references: accuracy, time per window and total time.",
        field: Field::Climate,
        paper: Paper {
            title: "Tensor-Var: Efficient Four-Dimensional Variational Data Assimilation",
            authors: "Yiming Yang, Xiaoyuan Cheng, Daniel Giles, Sibo Cheng, Yi He, Xiao Xue, Boli Chen, Yukun Hu",
            venue: "ICML 2025",
            link: "https://github.com/yyimingucl/TensorVar",
        },
    };

    benchtop_kit::tabs!(AssimilationTab {
        Hovmoller => "Hovmöller",
        Accuracy => "RMSE and time",
        Training => "Training fit",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;

    fn restore(
        results: &SavedResults,
        _sidecar: Option<&Sidecar>,
        params: &AssimilationParams,
    ) -> anyhow::Result<Self> {
        let mut model = Self::default();
        if let Some(result) = &results.run {
            model.run.set_result(params.clone(), result.clone());
        }
        Ok(model)
    }

    fn save(&self, results: &mut SavedResults, _sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        results.run = self.run.result().cloned();
        Ok(())
    }

    fn tab_ui(&mut self, tab: AssimilationTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        self.tab_view(tab, ui, cx);
    }

    fn validate(params: &AssimilationParams) -> Vec<ParamIssue> {
        ParamIssue::from_result("run", params.run.validate())
            .into_iter()
            .collect()
    }

    fn figures(&self, params: &AssimilationParams, _view: &AssimilationView) -> Vec<PanelFigure> {
        let recipe = Recipe::new(ENGINE, params, Some(params.seed));
        let (dt, steps) = (params.run.dt, params.run.steps_per_obs);
        match self.run.result() {
            Some(r) => vec![
                recipe.figure(
                    "assimilation-hovmoller",
                    figures::hovmoller_figure(r, params.run.system, dt, steps),
                ),
                recipe.figure(
                    "assimilation-rmse",
                    figures::rmse_figure(r, dt, steps, params.run.windows),
                ),
                recipe.figure("assimilation-training", figures::training_figure(r)),
            ],
            None => Vec::new(),
        }
    }

    fn tables(&self, params: &AssimilationParams, _view: &AssimilationView) -> Vec<DataTable> {
        let Some(r) = self.run.result() else {
            return Vec::new();
        };
        let spacing = params.run.dt * params.run.steps_per_obs as f64;
        let mut columns = vec!["time".to_owned()];
        columns.extend(
            r.methods
                .iter()
                .map(|m| format!("nrmse_{}", m.name.replace(' ', "_"))),
        );
        let names: Vec<&str> = columns.iter().map(String::as_str).collect();
        let rows = (0..r.truth.len())
            .map(|k| {
                let mut row = vec![k as f64 * spacing];
                row.extend(r.methods.iter().map(|m| m.nrmse[k]));
                row
            })
            .collect();
        vec![DataTable::new("assimilation-rmse", &names, rows)]
    }

    fn summary(&self, params: &AssimilationParams) -> serde_json::Value {
        self.run
            .result()
            .map_or(serde_json::Value::Null, |r| report::summary(r, &params.run))
    }

    fn sweep_outputs() -> Vec<SweepOutput> {
        sweeps::outputs()
    }

    fn evaluate(
        params: &AssimilationParams,
        _outputs: &[String],
        seed: u64,
        _cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        let params = AssimilationParams {
            seed,
            ..params.clone()
        };
        let r = compute(&params, progress, cancel)?;
        Ok(sweeps::values(&r, params.run.windows))
    }
}
