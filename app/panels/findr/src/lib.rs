//! FINDR flow fields: infer a low-dimensional flow field and its attractors from spike trains
//! (Kim, Luo, Can, Krishnamurthy, Pillow, Brody, ICML 2025).
//!
//! Three tabs: **Data** (synthetic Poisson-clicks trials from a planted line-attractor flow, or
//! trials from a file; a spike raster and PSTHs by evidence strength), **Fit** (the sequential
//! VAE with a gated neural SDE prior, trained with live curves) and **Flow** (the inferred
//! autonomous flow with its speed map, fixed points and trajectories, the input fields, the
//! planted flow beside it for synthetic data, and PSTH fits).
//!
//! The panel is a [`PanelModel`]: its parameters are declared once in [`params`], each tab that
//! computes is one task of the kit, and [`Host`] supplies the rest.

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_findr as engine;

pub mod bench;
mod data_tab;
pub mod figures;
mod fit_tab;
mod flow_tab;
pub mod params;
mod saved;
mod selection;
pub mod sweeps;

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_findr::synthetic::SyntheticParams;
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, issues_of};
use benchtop_kit::project::{DataRef, Sidecar};
use benchtop_kit::sweep::SweepOutput;
use serde::{Deserialize, Serialize};

pub use benchtop_findr::model::ModelConfig;
pub use benchtop_findr::pipeline::{AnalysisParams, FindrParams};
pub use benchtop_findr::train::TrainParams;

/// The FINDR flow-field panel.
pub type FindrPanel = Host<FindrModel>;

/// Everything the project file stores for this panel.
pub type FindrState = DocOf<FindrModel>;

/// Which tab of the panel is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum FindrTab {
    /// The trials: source, raster and PSTHs.
    #[default]
    Data,
    /// Model, training and live curves.
    Fit,
    /// The inferred flow field and its analysis.
    Flow,
}

/// Where the trials come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DataSource {
    /// Generated from the planted flow (known answers).
    #[default]
    Synthetic,
    /// Read from an NPZ (FINDR layout) or CSV file.
    File,
}

/// What the data tab generates or reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DataParams {
    /// Synthetic or a file.
    pub source: DataSource,
    /// The synthetic data set.
    pub synthetic: SyntheticParams,
    /// Seed of the synthetic data set.
    pub synthetic_seed: u64,
    /// The trial file (relative to the project file).
    pub file: DataRef,
    /// Bin width of the file's counts, s.
    pub file_bin_s: f64,
}

impl Default for DataParams {
    fn default() -> Self {
        Self {
            source: DataSource::Synthetic,
            synthetic: SyntheticParams::default(),
            synthetic_seed: 1,
            file: DataRef::default(),
            file_bin_s: 0.01,
        }
    }
}

impl DataParams {
    /// Checks what can be checked without reading a file.
    pub fn validate(&self) -> Result<(), ComputeError> {
        match self.source {
            DataSource::Synthetic => self
                .synthetic
                .validate()
                .map_err(|e| prefix("synthetic", e)),
            DataSource::File => {
                if self.file.path.trim().is_empty() {
                    return Err(ComputeError::invalid("file", "choose a trial file"));
                }
                if !(self.file_bin_s.is_finite() && self.file_bin_s > 0.0) {
                    return Err(ComputeError::invalid(
                        "file_bin_s",
                        "the bin width must be a positive number of seconds",
                    ));
                }
                Ok(())
            }
        }
    }
}

/// Prefixes the key of an invalid-parameter error with `prefix.`.
fn prefix(prefix: &str, error: ComputeError) -> ComputeError {
    match error {
        ComputeError::InvalidParameter { name, reason } => ComputeError::InvalidParameter {
            name: format!("{prefix}.{name}"),
            reason,
        },
        other => other,
    }
}

/// The parameters a user edits (the unit of undo).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FindrPanelParams {
    /// The trials.
    pub data: DataParams,
    /// Baseline, model, training and analysis.
    pub fit: FindrParams,
    /// Seed of the fit (initial weights, folds' batches, noise).
    pub fit_seed: u64,
    /// The grid the fit tab's model selection scores.
    pub selection: benchtop_findr::selection::SelectionGrid,
}

impl Default for FindrPanelParams {
    fn default() -> Self {
        Self {
            data: DataParams::default(),
            fit: FindrParams::default(),
            fit_seed: 1,
            selection: benchtop_findr::selection::SelectionGrid::default(),
        }
    }
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FindrView {
    /// The tab shown.
    pub tab: FindrTab,
    /// The trial whose raster the data tab shows.
    pub trial: usize,
    /// The neuron whose PSTHs are shown.
    pub neuron: usize,
    /// Whether the flow tab shows the planted flow beside the recovered one.
    pub show_planted: bool,
    /// Whether the flow plots draw streamlines under the arrows.
    pub streamlines: bool,
}

impl Default for FindrView {
    fn default() -> Self {
        Self {
            tab: FindrTab::Data,
            trial: 0,
            neuron: 0,
            show_planted: true,
            streamlines: false,
        }
    }
}

/// Results kept with the project (arrays go to the sidecar).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The trials' description (source, sizes) and the planted flow of synthetic data.
    pub data: Option<benchtop_kit::panel::SavedValue>,
    /// Sidecar files of the trials and the planted truth, by array name.
    pub data_files: std::collections::BTreeMap<String, String>,
    /// The fit result without its training history and PSTHs.
    pub fit: Option<benchtop_kit::panel::SavedValue>,
    /// Sidecar file with the training history (one row per epoch).
    pub history_file: Option<String>,
    /// Sidecar file with the PSTHs (2 × groups × bins × neurons: data, model).
    pub psths_file: Option<String>,
    /// The model selection's scored points (a stopped selection resumes from them).
    pub selection: Vec<benchtop_findr::selection::CandidateScore>,
    /// The digest of the settings they were scored for.
    pub selection_key: String,
}

/// The trials in use, with the planted truth when they are synthetic.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedData {
    /// The trials.
    pub trials: benchtop_findr::trials::TrialSet,
    /// The planted truth (synthetic data only).
    pub truth: Option<benchtop_findr::synthetic::PlantedTruth>,
    /// Where they came from, for labels ("synthetic, seed 1" or the file name).
    pub source: String,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum FindrTask for FindrModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// Generate or read the trials.
    Load(data = true): data.task => |m, cx| m.data.start(cx);
    /// Train and analyse the model (minutes).
    Fit(fit = false): fit.task => |m, cx| {
        let loaded = m.data.loaded();
        m.fit.start(cx, loaded);
    };
    /// Score the model-selection grid by the held-out predictive likelihood and apply the best (minutes).
    Select(select = false): selection.task => |m, cx| m.selection.start_on(cx, m.data.loaded());
}

/// The FINDR panel's tabs and their results.
#[derive(Default)]
pub struct FindrModel {
    data: data_tab::DataTab,
    fit: fit_tab::FitTab,
    flow: flow_tab::FlowTab,
    selection: selection::Selection,
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-findr", env!("CARGO_PKG_VERSION"));

impl PanelModel for FindrModel {
    type Params = FindrPanelParams;
    type View = FindrView;
    type Results = SavedResults;
    type Tab = FindrTab;

    const KIND: PanelKind = PanelKind {
        id: "findr",
        name: "FINDR flow fields",
        description: "Infer low-dimensional flow fields, fixed points and attractors from spike \
                      trains with a sequential VAE and a gated neural SDE prior; check it on a \
                      planted line attractor.",
        field: Field::Neuroscience,
        paper: Paper {
            title: "Flow-field Inference from Neural Data using deep Recurrent networks",
            authors: "Timothy Doyeon Kim, Thomas Zhihao Luo, Tankut Can, Kamesh Krishnamurthy, \
                      Jonathan W. Pillow, Carlos D. Brody",
            venue: "ICML 2025",
            link: "https://proceedings.mlr.press/v267/kim25s.html",
        },
    };

    benchtop_kit::tabs!(FindrTab {
        Data => "Data",
        Fit => "Fit",
        Flow => "Flow",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;

    fn restore(
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &FindrPanelParams,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            data: data_tab::DataTab::restore(results, sidecar, params)?,
            fit: fit_tab::FitTab::restore(results, sidecar, params)?,
            flow: flow_tab::FlowTab::default(),
            selection: selection::Selection::restore(results),
        })
    }

    fn save(&self, results: &mut SavedResults, sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        self.data.task.save(results, sidecar)?;
        self.selection.save(results);
        self.fit.save(results, sidecar)
    }

    fn tab_ui(&mut self, tab: FindrTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        match tab {
            FindrTab::Data => self.data.ui(ui, cx),
            FindrTab::Fit => {
                let loaded = self.data.loaded();
                self.fit.ui(ui, cx, loaded, &mut self.selection);
            }
            FindrTab::Flow => {
                let loaded = self.data.loaded();
                self.flow
                    .ui(ui, self.fit.result(), cx.view, loaded.as_deref());
            }
        }
    }

    fn headless(&self, flags: &HeadlessTasks) -> Vec<(FindrTask, f64)> {
        // A fit and a selection need trials: without loaded ones they are made first.
        let needs_data = flags.fit || flags.select;
        let load = flags.data || (needs_data && self.data.loaded().is_none());
        let mut steps = Vec::new();
        if load {
            steps.push((FindrTask::Load, if needs_data { 0.1 } else { 1.0 }));
        }
        if flags.select {
            steps.push((FindrTask::Select, 0.45));
        }
        if flags.fit {
            steps.push((FindrTask::Fit, if flags.select { 0.45 } else { 0.9 }));
        }
        steps
    }

    fn poll(&mut self, params: &mut FindrPanelParams) {
        self.data.task.poll_result();
        self.fit.poll();
        self.selection.poll(params);
    }

    fn validate(params: &FindrPanelParams) -> Vec<ParamIssue> {
        let mut issues = issues_of([("params.data", params.data.validate())]);
        issues.extend(fit_tab::fit_issues(
            &params.fit,
            fit_tab::data_bin_s(&params.data),
        ));
        issues
    }

    fn figures(&self, params: &FindrPanelParams, view: &FindrView) -> Vec<PanelFigure> {
        let mut figures = self.data.figures(params, view);
        figures.extend(self.fit.figures(params));
        if let Some(result) = self.fit.result() {
            figures.extend(flow_tab::figures(
                result,
                params,
                view,
                self.data.loaded().as_deref(),
            ));
        }
        figures
    }

    fn tables(&self, _params: &FindrPanelParams, _view: &FindrView) -> Vec<DataTable> {
        let mut tables = self.fit.tables();
        if let Some(result) = self.fit.result() {
            tables.extend(flow_tab::tables(result));
        }
        tables
    }

    fn summary(&self, _params: &FindrPanelParams) -> serde_json::Value {
        let mut summary = self
            .fit
            .result()
            .map_or_else(|| serde_json::json!({}), fit_tab::summary);
        if let Some(object) = summary.as_object_mut() {
            object.insert("data".to_owned(), self.data.summary());
        }
        summary
    }

    fn sweep_outputs() -> Vec<SweepOutput> {
        sweeps::outputs()
    }

    fn evaluate(
        params: &FindrPanelParams,
        _outputs: &[String],
        seed: u64,
        cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        sweeps::evaluate(params, seed, cx, progress, cancel)
    }

    fn sweep_fingerprint(params: &FindrPanelParams) -> String {
        sweeps::fingerprint(params)
    }
}
