//! ML vs DL for quantum systems: classical learners against deep ones under one measurement
//! budget of n chains × M snapshots (Zhao, Zhang, Du, "Rethink the Role of Deep Learning
//! towards Large-scale Quantum Systems", ICML 2025).
//!
//! Six tabs on three tasks. **Budget** (the comparison at the slider's n, M = n·M/n: every
//! learner's errors against the trivial reference, over repeats) feeds **Correlations** (one
//! held-out chain's C_ij exact, from its own snapshots and predicted), **Phases** (the TFIM
//! phase diagram predicted vs true) and **Randomisation** (errors before and after the
//! measurement inputs are shuffled across chains). **Error vs n** sweeps n at fixed n·M.
//! **Shadows** draws shadow estimates converging on their exact values, with the known answers.

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_quantum as engine;

pub mod bench;
mod budget_tab;
mod curve_tab;
mod figures;
pub mod params;
mod results_tab;
mod shadows_tab;
pub mod sweeps;

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, issues_of};
use benchtop_kit::project::Sidecar;
use benchtop_kit::sweep::SweepOutput;
use benchtop_quantum::dataset::SystemParams;
use benchtop_quantum::experiment::{BudgetParams, CurveParams, ExperimentParams};
use benchtop_quantum::lanczos::LanczosSettings;
use benchtop_quantum::learners::{Inputs, Learner, LearnerSettings};
use benchtop_quantum::study::StudyParams;
use serde::{Deserialize, Serialize};

/// The panel.
pub type QuantumPanel = Host<QuantumModel>;

/// Everything the project file stores for this panel.
pub type QuantumState = DocOf<QuantumModel>;

/// The parameters a user edits (the unit of undo and of sweeps).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct QuantumParams {
    /// The chains: size, boundary, model, coupling and field ranges, entropy block.
    pub system: SystemParams,
    /// n·M, n and the held-out chains.
    pub budget: BudgetParams,
    /// What the classical learners see.
    pub ml_inputs: Inputs,
    /// What the networks see.
    pub dl_inputs: Inputs,
    /// Cross-validation folds and network settings.
    pub learners: LearnerSettings,
    /// Independent repeats (pools, snapshots, initialisations).
    pub repeats: usize,
    /// Run the randomisation test with the comparison.
    pub randomisation: bool,
    /// The n values of the error-against-n curve.
    pub curve: CurveParams,
    /// The shadow-convergence study.
    pub shadows: StudyParams,
    /// Seed of everything random.
    pub seed: u64,
}

impl Default for QuantumParams {
    fn default() -> Self {
        let experiment = ExperimentParams::default();
        Self {
            system: experiment.system,
            budget: experiment.budget,
            ml_inputs: experiment.ml_inputs,
            dl_inputs: experiment.dl_inputs,
            learners: experiment.learners,
            repeats: experiment.repeats,
            randomisation: experiment.randomisation,
            curve: experiment.curve,
            shadows: StudyParams::default(),
            seed: 1,
        }
    }
}

impl QuantumParams {
    /// The engine's parameters.
    pub fn experiment(&self) -> ExperimentParams {
        ExperimentParams {
            system: self.system.clone(),
            budget: self.budget.clone(),
            ml_inputs: self.ml_inputs,
            dl_inputs: self.dl_inputs,
            learners: self.learners.clone(),
            repeats: self.repeats,
            randomisation: self.randomisation,
            curve: self.curve.clone(),
            lanczos: LanczosSettings::default(),
        }
    }
}

/// The tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum QuantumTab {
    /// The comparison at one budget.
    #[default]
    Budget,
    /// Error against n at fixed n·M.
    Curve,
    /// One held-out chain's correlations.
    Correlations,
    /// The TFIM phase diagram.
    Phases,
    /// The randomisation test.
    Randomisation,
    /// Shadow estimates converging; the known answers.
    Shadows,
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct QuantumView {
    /// The tab shown.
    pub tab: QuantumTab,
    /// The learner whose predictions the Correlations and Phases tabs draw.
    pub learner: Learner,
}

impl Default for QuantumView {
    fn default() -> Self {
        Self {
            tab: QuantumTab::Budget,
            learner: Learner::KernelRbf,
        }
    }
}

/// Results kept with the project (small, stored inline).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The comparison at one budget.
    pub comparison: Option<benchtop_kit::panel::SavedValue>,
    /// The error-against-n curve.
    pub curve: Option<benchtop_kit::panel::SavedValue>,
    /// The shadow study and the known answers.
    pub shadows: Option<benchtop_kit::panel::SavedValue>,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum QuantumTask for QuantumModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// Every learner at the budget, over repeats, with the randomisation test.
    Compare(compare = true): budget.task => |m, cx| m.budget.start(cx);
    /// Every learner at each n of the curve, at fixed n·M.
    Curve(curve = true): curve.task => |m, cx| m.curve.start(cx);
    /// Shadow estimates converging on one chain, and the known answers.
    Shadows(shadows = true): shadows.task => |m, cx| m.shadows.start(cx);
}

/// The panel's tabs and their results.
#[derive(Default)]
pub struct QuantumModel {
    budget: budget_tab::BudgetTab,
    curve: curve_tab::CurveTab,
    shadows: shadows_tab::ShadowsTab,
    results: results_tab::ResultsViews,
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-quantum", env!("CARGO_PKG_VERSION"));

impl PanelModel for QuantumModel {
    type Params = QuantumParams;
    type View = QuantumView;
    type Results = SavedResults;
    type Tab = QuantumTab;

    const KIND: PanelKind = PanelKind {
        id: "quantum",
        name: "ML vs DL for quantum systems",
        description: "Ground states of random Heisenberg and transverse-field Ising chains by \
                      Lanczos, classical shadows under one budget of n chains × M snapshots, \
                      and ridge, Lasso and kernels against an MLP and a CNN: errors against n \
                      at fixed n·M, the phase diagram and the randomisation test.",
        field: Field::StatisticalPhysics,
        paper: Paper {
            title: "Rethink the Role of Deep Learning towards Large-scale Quantum Systems",
            authors: "Zhao, Zhang, Du",
            venue: "ICML 2025",
            link: "https://arxiv.org/abs/2505.13852",
        },
    };

    benchtop_kit::tabs!(QuantumTab {
        Budget => "Budget",
        Curve => "Error vs n",
        Correlations => "Correlations",
        Phases => "Phases",
        Randomisation => "Randomisation",
        Shadows => "Shadows",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;

    fn restore(
        results: &SavedResults,
        _sidecar: Option<&Sidecar>,
        params: &QuantumParams,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            budget: budget_tab::BudgetTab::restore(results, params)?,
            curve: curve_tab::CurveTab::restore(results, params)?,
            shadows: shadows_tab::ShadowsTab::restore(results, params)?,
            results: results_tab::ResultsViews::default(),
        })
    }

    fn save(&self, results: &mut SavedResults, _sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        self.budget.save(results)?;
        self.curve.save(results)?;
        self.shadows.save(results)
    }

    fn tab_ui(&mut self, tab: QuantumTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        match tab {
            QuantumTab::Budget => self.budget.ui(ui, cx),
            QuantumTab::Curve => self.curve.ui(ui, cx),
            QuantumTab::Correlations => self.results.correlations_ui(ui, cx, &mut self.budget),
            QuantumTab::Phases => self.results.phases_ui(ui, cx, &mut self.budget),
            QuantumTab::Randomisation => self.results.randomisation_ui(ui, cx, &mut self.budget),
            QuantumTab::Shadows => self.shadows.ui(ui, cx),
        }
    }

    fn validate(params: &QuantumParams) -> Vec<ParamIssue> {
        let experiment = params.experiment();
        issues_of([
            // The engine's keys already start with `system.`, `budget.`, … .
            ("params", experiment.validate()),
            ("params", params.shadows.validate("shadows")),
        ])
    }

    fn figures(&self, params: &QuantumParams, view: &QuantumView) -> Vec<PanelFigure> {
        let mut figures = self.budget.figures(params, view);
        figures.extend(self.curve.figures(params));
        figures.extend(self.shadows.figures(params));
        figures
    }

    fn tables(&self, _params: &QuantumParams, _view: &QuantumView) -> Vec<DataTable> {
        let mut tables = self.budget.tables();
        tables.extend(self.curve.tables());
        tables.extend(self.shadows.tables());
        tables
    }

    fn summary(&self, params: &QuantumParams) -> serde_json::Value {
        let mut summary = serde_json::Map::new();
        if let Some(serde_json::Value::Object(budget)) = self.budget.summary(params) {
            summary.extend(budget);
        }
        if let Some(curve) = self.curve.summary() {
            summary.insert("curve".into(), curve);
        }
        if let Some(serde_json::Value::Object(shadows)) = self.shadows.summary() {
            summary.extend(shadows);
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
        params: &QuantumParams,
        outputs: &[String],
        seed: u64,
        _cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        sweeps::evaluate(params, outputs, seed, progress, cancel)
    }
}
