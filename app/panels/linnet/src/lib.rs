//! Function vs representation: two-layer linear networks `Y = W₂W₁X` whose function is fixed
//! while their hidden representation is not (Braun, Grant, Saxe, "Not all solutions are
//! created equal", ICML 2025).
//!
//! Two tabs: **Solutions** (the G-transform `(W₂G⁻¹, GW₁)` keeps the output while the RSM
//! morphs; the named solution families' RSMs side by side) and **Training** (N seeds under no
//! noise, input noise and parameter noise, plus a tanh network; which ones share an RSM, and
//! the parameter-noise RSM against its closed form). Both compute in kit tasks that rerun when
//! their parameters change.

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_linnet as engine;

pub mod bench;
pub mod figures;
pub mod params;
mod solutions_tab;
pub mod sweeps;
mod training_tab;

use std::collections::BTreeMap;
use std::path::Path;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, issues_of};
use benchtop_kit::project::{DataRef, Sidecar};
use benchtop_kit::sweep::SweepOutput;
use benchtop_linnet::data::DataSource;
use benchtop_linnet::experiment::ExperimentParams;
use benchtop_linnet::solutions::GParams;
use benchtop_linnet::train::TrainParams;
use serde::{Deserialize, Serialize};

/// The panel.
pub type LinnetPanel = Host<LinnetModel>;

/// Everything the project file stores for this panel.
pub type LinnetState = DocOf<LinnetModel>;

/// Where the items come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// A Saxe-style item × feature tree.
    #[default]
    Hierarchy,
    /// Gaussian inputs and a random low-rank teacher.
    Gaussian,
    /// A CSV file of inputs (x… columns) and targets (y… columns), one row per item.
    Csv,
}

/// The data set's settings (only the chosen source's are used).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DataParams {
    /// The source.
    pub source: Source,
    /// Tree levels below the root.
    pub depth: usize,
    /// Children per tree node.
    pub branching: usize,
    /// Input correlation m (inputs `I + m·ZZᵀ/P`).
    pub input_mixing: f64,
    /// Gaussian task: input dimension.
    pub n_in: usize,
    /// Gaussian task: output dimension.
    pub n_out: usize,
    /// Gaussian task: items.
    pub items: usize,
    /// Gaussian task: teacher rank.
    pub rank: usize,
    /// Gaussian task: target noise.
    pub target_noise: f64,
    /// The CSV file (relative to the project file).
    pub file: DataRef,
}

impl Default for DataParams {
    fn default() -> Self {
        Self {
            source: Source::Hierarchy,
            depth: 3,
            branching: 2,
            input_mixing: 1.0,
            n_in: 6,
            n_out: 5,
            items: 20,
            rank: 3,
            target_noise: 0.1,
            file: DataRef::default(),
        }
    }
}

impl DataParams {
    /// The engine's data source, the CSV path resolved against `project_dir`.
    pub fn source(&self, project_dir: Option<&Path>) -> DataSource {
        match self.source {
            Source::Hierarchy => DataSource::Hierarchy {
                depth: self.depth,
                branching: self.branching,
                input_mixing: self.input_mixing,
            },
            Source::Gaussian => DataSource::Gaussian {
                n_in: self.n_in,
                n_out: self.n_out,
                items: self.items,
                rank: self.rank,
                target_noise: self.target_noise,
            },
            Source::Csv => DataSource::Csv {
                path: self.file.resolve(project_dir),
            },
        }
    }
}

/// The parameters a user edits (the unit of undo and of sweeps).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LinnetParams {
    /// The data set.
    pub data: DataParams,
    /// Training (hidden width, steps, learning rate, noise levels).
    pub train: TrainParams,
    /// Seeds per regime.
    pub seeds: usize,
    /// Also train a tanh network under parameter noise.
    pub nonlinear: bool,
    /// The invertible G of the Solutions tab.
    pub g: GParams,
    /// Seed of the data and of the trained networks.
    pub seed: u64,
}

impl Default for LinnetParams {
    fn default() -> Self {
        Self {
            data: DataParams::default(),
            train: TrainParams::default(),
            seeds: 8,
            nonlinear: true,
            g: GParams::default(),
            seed: 1,
        }
    }
}

impl LinnetParams {
    /// The engine's parameters.
    pub fn experiment(&self, project_dir: Option<&Path>) -> ExperimentParams {
        ExperimentParams {
            data: self.data.source(project_dir),
            train: self.train.clone(),
            seeds: self.seeds,
            g: self.g.clone(),
            nonlinear: self.nonlinear,
            ..ExperimentParams::default()
        }
    }
}

/// The tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum LinnetTab {
    /// The G-transform and the solution families.
    #[default]
    Solutions,
    /// Seeds trained under each noise regime.
    Training,
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LinnetView {
    /// The tab shown.
    pub tab: LinnetTab,
}

/// Results kept with the project (small matrices, stored inline).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The solutions and G-transform.
    pub solutions: Option<benchtop_kit::panel::SavedValue>,
    /// The trained seeds (without their loss histories).
    pub training: Option<benchtop_kit::panel::SavedValue>,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum LinnetTask for LinnetModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// The solution families and the G-transform.
    Solve(solve = true): solutions.task => |m, cx| m.solutions.start(cx);
    /// Train the seeds under every regime.
    Train(train = true): training.task => |m, cx| m.training.start(cx);
}

/// The panel's tabs and their results.
#[derive(Default)]
pub struct LinnetModel {
    solutions: solutions_tab::SolutionsTab,
    training: training_tab::TrainingTab,
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-linnet", env!("CARGO_PKG_VERSION"));

impl PanelModel for LinnetModel {
    type Params = LinnetParams;
    type View = LinnetView;
    type Results = SavedResults;
    type Tab = LinnetTab;

    const KIND: PanelKind = PanelKind {
        id: "linnet",
        name: "Function vs representation",
        description: "Two-layer linear networks computing the same function with different \
                      hidden representations: the G-transform, the named solution families, \
                      and which training noise (none, input, parameter) pins the RSM.",
        field: Field::MachineLearning,
        paper: Paper {
            title: "Not all solutions are created equal: an analytical dissociation of \
                    functional and representational similarity in deep linear neural networks",
            authors: "Lukas Braun, Erin Grant, Andrew M. Saxe",
            venue: "ICML 2025",
            link: "https://openreview.net/forum?id=YucuAuXMpT",
        },
    };

    benchtop_kit::tabs!(LinnetTab {
        Solutions => "Solutions",
        Training => "Training",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;

    fn restore(
        results: &SavedResults,
        _sidecar: Option<&Sidecar>,
        params: &LinnetParams,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            solutions: solutions_tab::SolutionsTab::restore(results, params)?,
            training: training_tab::TrainingTab::restore(results, params)?,
        })
    }

    fn save(&self, results: &mut SavedResults, _sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        self.solutions.save(results)?;
        self.training.save(results)
    }

    fn tab_ui(&mut self, tab: LinnetTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        match tab {
            LinnetTab::Solutions => self.solutions.ui(ui, cx),
            LinnetTab::Training => self.training.ui(ui, cx),
        }
    }

    fn react(&mut self, cx: &mut Cx<'_, Self>) {
        // Both take well under a second at the default size, so the figures follow the
        // parameters.
        self.solutions.react(cx);
        self.training.react(cx);
    }

    fn validate(params: &LinnetParams) -> Vec<ParamIssue> {
        let experiment = params.experiment(None);
        let data = match params.data.source {
            // The file is checked when it is read.
            Source::Csv => Ok(()),
            _ => experiment.data.validate("data"),
        };
        issues_of([
            // The engine's keys already start with `data.`, `train.` or `g.`.
            ("params", data),
            ("params", experiment.train.validate("train")),
            ("params", experiment.g.validate()),
        ])
    }

    fn figures(&self, params: &LinnetParams, _view: &LinnetView) -> Vec<PanelFigure> {
        let mut figures = self.solutions.figures(params);
        figures.extend(self.training.figures(params));
        figures
    }

    fn tables(&self, _params: &LinnetParams, _view: &LinnetView) -> Vec<DataTable> {
        let mut tables = self.solutions.tables();
        tables.extend(self.training.tables());
        tables
    }

    fn summary(&self, _params: &LinnetParams) -> serde_json::Value {
        let mut summary = serde_json::Map::new();
        if let Some(g) = self.solutions.summary() {
            summary.insert("g_transform".into(), g);
        }
        if let Some(serde_json::Value::Object(regimes)) = self.training.summary() {
            summary.extend(regimes);
        }
        if summary.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::Value::Object(summary)
        }
    }

    fn sweep_outputs() -> Vec<SweepOutput> {
        sweeps::outputs()
    }

    fn evaluate(
        params: &LinnetParams,
        outputs: &[String],
        seed: u64,
        cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        sweeps::evaluate(params, outputs, seed, cx.project_dir, progress, cancel)
    }
}
