//! Weak-features learning: weak features x_w missing for part of the rows (MCAR, MAR or
//! MNAR), a feature estimator f: x_o → x̂_w and a label model h(x_o, x̃_w) trained sequentially
//! or iteratively (Sugiyama, Uchida, "Continuous Weak-Features Learning", ICML 2025).
//!
//! Three tabs over one computation (the engine's `run`): **Schemes** (excess risk of every
//! method beside its closed form, and the iterative scheme round by round), **Estimation
//! error** (excess risk against the injected estimation MSE ε, closed forms and the panel's
//! own Lipschitz bound) and **Sample size** (excess risk against n). The closed forms are the
//! panel's own derivation for the Gaussian-linear model; the paper's theorem statements were
//! not checked, and the window says so.

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_weakfeatures as engine;

pub mod bench;
mod controls;
mod figures;
pub mod params;
pub mod sweeps;

use std::collections::BTreeMap;
use std::path::Path;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{
    DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, Recipe, from_saved, issues_of,
    to_saved,
};
use benchtop_kit::project::{DataRef, Sidecar};
use benchtop_kit::sweep::SweepOutput;
use benchtop_kit::task::Task;
use benchtop_kit::widgets::controls_and_view;
use benchtop_weakfeatures::data::{Columns, DataParams, GaussianParams, Source};
use benchtop_weakfeatures::experiment::{CurveParams, IterativeParams, Output, Params};
use benchtop_weakfeatures::missing::MissingParams;
use benchtop_weakfeatures::models::{EstimatorKind, EstimatorParams, LabelKind, LabelParams};
use serde::{Deserialize, Serialize};

/// The panel.
pub type WeakfeaturesPanel = Host<WeakfeaturesModel>;

/// Everything the project file stores for this panel.
pub type WeakfeaturesState = DocOf<WeakfeaturesModel>;

/// The data settings as the panel keeps them (the CSV file relative to the project).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PanelData {
    /// Where the rows come from.
    pub source: Source,
    /// The generator.
    pub gaussian: GaussianParams,
    /// A CSV file (relative to the project file).
    pub file: DataRef,
    /// Column roles of a table.
    pub columns: Columns,
    /// Training rows n.
    pub n_train: usize,
    /// Test rows of the generator.
    pub n_test: usize,
    /// Test share of a table.
    pub test_fraction: f64,
}

impl Default for PanelData {
    fn default() -> Self {
        let engine = DataParams::default();
        Self {
            source: engine.source,
            gaussian: engine.gaussian,
            file: DataRef::default(),
            columns: engine.columns,
            n_train: engine.n_train,
            n_test: engine.n_test,
            test_fraction: engine.test_fraction,
        }
    }
}

/// The parameters a user edits (the unit of undo and of sweeps).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WeakfeaturesParams {
    /// The data.
    pub data: PanelData,
    /// The missingness.
    pub missing: MissingParams,
    /// The feature estimator f.
    pub estimator: EstimatorParams,
    /// The label model h.
    pub label: LabelParams,
    /// The iterative scheme.
    pub iterative: IterativeParams,
    /// The two curves.
    pub curves: CurveParams,
    /// Seed of the data, missingness, noise and networks.
    pub seed: u64,
}

impl Default for WeakfeaturesParams {
    fn default() -> Self {
        Self {
            data: PanelData::default(),
            missing: MissingParams::default(),
            estimator: EstimatorParams::default(),
            label: LabelParams::default(),
            iterative: IterativeParams::default(),
            curves: CurveParams::default(),
            seed: 1,
        }
    }
}

impl WeakfeaturesParams {
    /// The engine's parameters, the CSV path resolved against `project_dir`.
    pub fn engine(&self, project_dir: Option<&Path>) -> Params {
        let d = &self.data;
        Params {
            data: DataParams {
                source: d.source.clone(),
                gaussian: d.gaussian.clone(),
                path: if d.file.path.is_empty() {
                    std::path::PathBuf::new()
                } else {
                    d.file.resolve(project_dir)
                },
                columns: d.columns.clone(),
                n_train: d.n_train,
                n_test: d.n_test,
                test_fraction: d.test_fraction,
            },
            missing: self.missing.clone(),
            estimator: self.estimator.clone(),
            label: self.label.clone(),
            iterative: self.iterative.clone(),
            curves: self.curves.clone(),
        }
    }

    /// Whether a run takes well under a second (no network), so the figures may follow edits.
    pub fn is_quick(&self) -> bool {
        self.estimator.kind != EstimatorKind::Mlp
            && self.label.kind != LabelKind::Mlp
            && self.data.n_train <= 20_000
            && self.data.n_test <= 50_000
    }
}

/// Which scheme the figures draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SchemeShown {
    /// Sequential and iterative.
    #[default]
    Both,
    /// Sequential only.
    Sequential,
    /// Iterative only.
    Iterative,
}

impl SchemeShown {
    /// Whether the sequential scheme is drawn.
    pub fn sequential(self) -> bool {
        self != SchemeShown::Iterative
    }

    /// Whether the iterative scheme is drawn.
    pub fn iterative(self) -> bool {
        self != SchemeShown::Sequential
    }
}

/// The tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum WeakfeaturesTab {
    /// Every method's excess risk and the iterative rounds.
    #[default]
    Schemes,
    /// Excess risk against the injected estimation MSE.
    EstimationError,
    /// Excess risk against the training size.
    SampleSize,
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WeakfeaturesView {
    /// The tab shown.
    pub tab: WeakfeaturesTab,
    /// The schemes drawn.
    pub scheme: SchemeShown,
}

/// Results kept with the project (small: stored inline).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The last run.
    pub run: Option<benchtop_kit::panel::SavedValue>,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations: each named once, with its headless flag and default, the
    /// field that holds it and how it starts.
    pub enum WeakfeaturesTask for WeakfeaturesModel;
    /// What `benchtop run` computes.
    pub struct HeadlessTasks;
    /// Both schemes, the references, the rounds and the two curves.
    Run(run = true): run => |model, cx| model.start_run(cx);
}

/// The panel's computation and figure views.
pub struct WeakfeaturesModel {
    run: Task<WeakfeaturesParams, (), Output>,
    plots: [FigureViewState; 3],
}

impl Default for WeakfeaturesModel {
    fn default() -> Self {
        Self {
            run: Task::new("weakfeatures: sequential and iterative schemes"),
            plots: Default::default(),
        }
    }
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-weakfeatures", env!("CARGO_PKG_VERSION"));

/// The note every figure and the window carry about the closed forms and the bound.
pub const PROVENANCE_NOTE: &str = "Closed forms and the Lipschitz bound are the panel's own \
                                   (Gaussian-linear model, triangle inequality), not checked \
                                   against the paper's theorems.";

impl WeakfeaturesModel {
    fn start_run(&mut self, cx: &mut Cx<'_, Self>) {
        let params = cx.params.clone();
        let engine = params.engine(cx.project_dir);
        let seed = params.seed;
        self.run.start(&cx.runner, params, move |job| {
            benchtop_weakfeatures::run(&engine, seed, &job.progress, &job.cancel)
        });
    }

    fn tab_view(&mut self, tab: WeakfeaturesTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        controls_and_view(
            ui,
            "weakfeatures controls",
            330.0,
            &mut (self, cx),
            |(model, cx), ui| controls::controls(model, cx, ui),
            |(model, cx), ui| {
                ui.horizontal(|ui| {
                    ui.label("Show:");
                    let shown = &mut cx.view.scheme;
                    ui.selectable_value(shown, SchemeShown::Both, "Both schemes");
                    ui.selectable_value(shown, SchemeShown::Sequential, "Sequential only");
                    ui.selectable_value(shown, SchemeShown::Iterative, "Iterative only");
                });
                ui.small(PROVENANCE_NOTE);
                let Some(output) = model.run.result() else {
                    model.run.placeholder(ui, "Press Run to fit both schemes.");
                    return;
                };
                let figure = match tab {
                    WeakfeaturesTab::Schemes => figures::schemes(output, cx.params, cx.view.scheme),
                    WeakfeaturesTab::EstimationError => {
                        figures::risk_vs_mse(output, cx.params, cx.view.scheme)
                    }
                    WeakfeaturesTab::SampleSize => {
                        figures::risk_vs_n(output, cx.params, cx.view.scheme)
                    }
                };
                let index = match tab {
                    WeakfeaturesTab::Schemes => 0,
                    WeakfeaturesTab::EstimationError => 1,
                    WeakfeaturesTab::SampleSize => 2,
                };
                show_figure(ui, &figure, &mut model.plots[index]);
            },
        );
    }
}

impl PanelModel for WeakfeaturesModel {
    type Params = WeakfeaturesParams;
    type View = WeakfeaturesView;
    type Results = SavedResults;
    type Tab = WeakfeaturesTab;

    const KIND: PanelKind = PanelKind {
        id: "weakfeatures",
        name: "Weak-features learning",
        description: "Weak features missing at random or not: estimate them first (sequential) \
                      or together with the label model (iterative), and see the downstream \
                      excess risk grow with the estimator's error, beside closed forms.",
        field: Field::MachineLearning,
        paper: Paper {
            title: "Continuous Weak-Features Learning",
            authors: "Sugiyama, Uchida",
            venue: "ICML 2025",
            link: "https://proceedings.mlr.press/v267/sugiyama25b.html",
        },
    };

    benchtop_kit::tabs!(WeakfeaturesTab {
        Schemes => "Schemes",
        EstimationError => "Estimation error",
        SampleSize => "Sample size",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;

    fn restore(
        results: &SavedResults,
        _sidecar: Option<&Sidecar>,
        params: &WeakfeaturesParams,
    ) -> anyhow::Result<Self> {
        let mut model = Self::default();
        if let Some(value) = &results.run {
            model.run.set_result(params.clone(), from_saved(value)?);
        }
        Ok(model)
    }

    fn save(&self, results: &mut SavedResults, _sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        results.run = self.run.result().map(to_saved).transpose()?;
        Ok(())
    }

    fn tab_ui(&mut self, tab: WeakfeaturesTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        self.tab_view(tab, ui, cx);
    }

    fn react(&mut self, cx: &mut Cx<'_, Self>) {
        // Without networks a run takes milliseconds: the figures follow the parameters.
        if cx.params.is_quick()
            && self.run.result().is_some()
            && !self.run.is_running()
            && !self.run.is_current(cx.params)
            && Self::validate(cx.params).is_empty()
        {
            self.start_run(cx);
        }
    }

    fn validate(params: &WeakfeaturesParams) -> Vec<ParamIssue> {
        let engine = params.engine(None);
        issues_of([
            ("params", engine.data.validate()),
            ("params", engine.missing.validate()),
            ("params", engine.estimator.validate()),
            ("params", engine.label.validate()),
            ("params", engine.iterative.validate()),
            ("params", engine.curves.validate()),
        ])
    }

    fn figures(&self, params: &WeakfeaturesParams, view: &WeakfeaturesView) -> Vec<PanelFigure> {
        let Some(output) = self.run.result() else {
            return Vec::new();
        };
        let recipe = Recipe::new(ENGINE, params, Some(params.seed));
        let mut out = vec![recipe.figure(
            "weakfeatures-schemes",
            figures::schemes(output, params, view.scheme),
        )];
        if !output.risk_vs_mse.is_empty() {
            out.push(recipe.figure(
                "weakfeatures-risk-vs-estimation-mse",
                figures::risk_vs_mse(output, params, view.scheme),
            ));
        }
        if !output.risk_vs_n.is_empty() {
            out.push(recipe.figure(
                "weakfeatures-risk-vs-n",
                figures::risk_vs_n(output, params, view.scheme),
            ));
        }
        out
    }

    fn tables(&self, _params: &WeakfeaturesParams, _view: &WeakfeaturesView) -> Vec<DataTable> {
        self.run.result().map(figures::tables).unwrap_or_default()
    }

    fn summary(&self, params: &WeakfeaturesParams) -> serde_json::Value {
        match self.run.result() {
            Some(output) => sweeps::summary(output, params),
            None => serde_json::Value::Null,
        }
    }

    fn sweep_outputs() -> Vec<SweepOutput> {
        sweeps::outputs()
    }

    fn evaluate(
        params: &WeakfeaturesParams,
        outputs: &[String],
        seed: u64,
        cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        sweeps::evaluate(params, outputs, seed, cx.project_dir, progress, cancel)
    }
}
