//! FINDR flow fields: infer a low-dimensional flow field and its attractors from spike trains
//! (Kim, Luo, Can, Krishnamurthy, Pillow, Brody, ICML 2025).
//!
//! Three tabs: **Data** (synthetic Poisson-clicks trials from a planted line-attractor flow, or
//! trials from a file; a spike raster and PSTHs by evidence strength), **Fit** (the sequential
//! VAE with a gated neural SDE prior, trained with live curves) and **Flow** (the inferred
//! autonomous flow with its speed map, fixed points and trajectories, the input fields, the
//! planted flow beside it for synthetic data, and PSTH fits).

mod data_tab;
mod engine;
mod figures;
mod fit_tab;
mod flow_tab;
mod saved;
mod sweeps;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_findr::synthetic::SyntheticParams;
use serde::{Deserialize, Serialize};

use benchtop_kit::panel::{
    DataTable, Field, Panel, PanelContext, PanelFigure, PanelKind, Paper, ParamIssue,
};
use benchtop_kit::project::{DataRef, Sidecar};
use benchtop_kit::sweep::SweepSupport;
use benchtop_kit::undo::UndoHistory;

pub use engine::{AnalysisParams, FindrParams, ModelConfig, TrainParams};

/// The catalog entry.
pub const KIND: PanelKind = PanelKind {
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
    create: create_panel,
};

fn create_panel() -> Box<dyn Panel> {
    Box::new(FindrPanel::new(FindrState::default()))
}

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

/// The synthetic set a new panel starts with (the example project's): 200 trials with clicks in
/// the first 0.4 s and then a delay, bistable bumps strong enough to recover, and 100 neurons
/// reading the latent out at 20 Hz per unit (informative enough that the posterior does not
/// blur the attractors outward), so that the first training shows two attractors and a saddle
/// within a minute.
fn demo_synthetic() -> SyntheticParams {
    let engine = SyntheticParams::default();
    SyntheticParams {
        n_trials: 200,
        n_neurons: 100,
        readout_gain_hz: 20.0,
        latent_noise: 0.1,
        stimulus_s: Some(0.4),
        flow: benchtop_findr::planted::PlantedFlow {
            bump_strength: 2.0,
            bump_width: 0.2,
            input_gain: 0.5,
            ..engine.flow.clone()
        },
        ..engine
    }
}

/// The fit a new panel starts with (the example project's): 80 epochs of batches of 8 trials at
/// learning rate 0.1 with a faster KL warm-up than the paper's 0.99, which fits the planted
/// system in about 40 s in a release build instead of the paper's thousands of epochs.
fn demo_fit() -> FindrParams {
    let engine = FindrParams::default();
    FindrParams {
        train: TrainParams {
            max_epochs: 80,
            batch_trials: 8,
            learning_rate: 0.1,
            kl_warmup_decay: 0.95,
            ..engine.train.clone()
        },
        ..engine
    }
}

impl Default for DataParams {
    fn default() -> Self {
        Self {
            source: DataSource::Synthetic,
            synthetic: demo_synthetic(),
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
}

impl Default for FindrPanelParams {
    fn default() -> Self {
        Self {
            data: DataParams::default(),
            fit: demo_fit(),
            fit_seed: 1,
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

/// What `benchtop run` computes for this panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HeadlessTasks {
    /// Generate or read the trials.
    pub data: bool,
    /// Train and analyse the model (minutes).
    pub fit: bool,
}

impl Default for HeadlessTasks {
    fn default() -> Self {
        Self {
            data: true,
            fit: false,
        }
    }
}

/// Results kept with the project (arrays go to the sidecar).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The trials' description (source, sizes) and the planted flow of synthetic data.
    pub data: Option<serde_json::Value>,
    /// Sidecar files of the trials and the planted truth, by array name.
    pub data_files: std::collections::BTreeMap<String, String>,
    /// The fit result without its training history and PSTHs.
    pub fit: Option<serde_json::Value>,
    /// Sidecar file with the training history (one row per epoch).
    pub history_file: Option<String>,
    /// Sidecar file with the PSTHs (2 × groups × bins × neurons: data, model).
    pub psths_file: Option<String>,
}

/// Everything the project file stores for this panel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FindrState {
    /// Parameters and seeds.
    pub params: FindrPanelParams,
    /// View settings.
    pub view: FindrView,
    /// What a headless run computes.
    pub headless: HeadlessTasks,
    /// Results.
    pub results: SavedResults,
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

/// The panel.
pub struct FindrPanel {
    params: FindrPanelParams,
    view: FindrView,
    headless: HeadlessTasks,
    history: UndoHistory<FindrPanelParams>,
    project_dir: Option<PathBuf>,
    data: data_tab::DataTab,
    fit: fit_tab::FitTab,
    flow: flow_tab::FlowTab,
    /// A problem to show at the top of the panel until dismissed.
    warning: Option<String>,
}

impl FindrPanel {
    /// A panel showing `state` (no results).
    pub fn new(state: FindrState) -> Self {
        Self {
            history: UndoHistory::new(state.params.clone()),
            params: state.params,
            view: state.view,
            headless: state.headless,
            project_dir: None,
            data: data_tab::DataTab::default(),
            fit: fit_tab::FitTab::default(),
            flow: flow_tab::FlowTab::default(),
            warning: None,
        }
    }

    /// Rebuilds the panel with its saved results (arrays from `sidecar`); results whose arrays
    /// cannot be read are dropped with a warning (they can be recomputed).
    pub fn restore(state: FindrState, sidecar: Option<&Sidecar>) -> anyhow::Result<Self> {
        let results = state.results.clone();
        let mut panel = Self::new(state);
        let restored = panel
            .data
            .restore(&results, sidecar)
            .and_then(|()| panel.fit.restore(&results, sidecar));
        if let Err(error) = restored {
            panel.data = data_tab::DataTab::default();
            panel.fit = fit_tab::FitTab::default();
            panel.warning = Some(format!(
                "saved results were not restored ({error:#}); run again to recompute them"
            ));
        }
        panel.data.mark_current(&panel.params);
        panel.fit.mark_current(&panel.params);
        Ok(panel)
    }

    /// The trials in use, if any.
    fn loaded(&self) -> Option<Arc<LoadedData>> {
        self.data.loaded()
    }
}

impl Panel for FindrPanel {
    fn kind(&self) -> &'static PanelKind {
        &KIND
    }

    fn set_project_dir(&mut self, dir: Option<&Path>) {
        self.project_dir = dir.map(Path::to_path_buf);
    }

    fn ui(&mut self, ui: &mut egui::Ui, context: &mut PanelContext<'_>) {
        benchtop_kit::widgets::dismissible_warning(ui, &mut self.warning);
        if let Some(dir) = context.project_dir {
            self.project_dir = Some(dir.to_path_buf());
        }
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.view.tab, FindrTab::Data, "Data");
            ui.selectable_value(&mut self.view.tab, FindrTab::Fit, "Fit");
            ui.selectable_value(&mut self.view.tab, FindrTab::Flow, "Flow");
        });
        ui.separator();
        let project_dir = self.project_dir.clone();
        match self.view.tab {
            FindrTab::Data => self.data.ui(
                ui,
                &mut self.params,
                &mut self.view,
                project_dir.as_deref(),
                context,
            ),
            FindrTab::Fit => {
                let loaded = self.data.loaded();
                self.fit.ui(ui, &mut self.params, loaded.as_ref(), context);
            }
            FindrTab::Flow => {
                let loaded = self.data.loaded();
                self.flow
                    .ui(ui, self.fit.result(), &mut self.view, loaded.as_deref());
            }
        }
        let interacting = ui.input(|input| input.pointer.any_down());
        self.history.observe(&self.params, interacting);
    }

    fn poll(&mut self) {
        self.data.poll();
        self.fit.poll();
    }

    fn is_busy(&self) -> bool {
        self.data.is_busy() || self.fit.is_busy()
    }

    fn save(&self, sidecar: Option<&Sidecar>) -> anyhow::Result<Box<dyn std::any::Any>> {
        let mut results = SavedResults::default();
        self.data.save(&mut results, sidecar)?;
        self.fit.save(&mut results, sidecar)?;
        Ok(Box::new(FindrState {
            params: self.params.clone(),
            view: self.view.clone(),
            headless: self.headless,
            results,
        }))
    }

    fn validate(&self) -> Vec<ParamIssue> {
        let mut issues: Vec<ParamIssue> =
            ParamIssue::from_result("params.data", self.params.data.validate())
                .into_iter()
                .collect();
        issues.extend(fit_tab::fit_issues(
            &self.params.fit,
            fit_tab::data_bin_s(&self.params.data),
        ));
        issues
    }

    fn figures(&self) -> Vec<PanelFigure> {
        let mut figures = self.data.figures(&self.params, &self.view);
        figures.extend(self.fit.figures(&self.params));
        if let Some(result) = self.fit.result() {
            figures.extend(flow_tab::figures(
                result,
                &self.params,
                &self.view,
                self.loaded().as_deref(),
            ));
        }
        figures
    }

    fn data_tables(&self) -> Vec<DataTable> {
        let mut tables = self.fit.tables();
        if let Some(result) = self.fit.result() {
            tables.extend(flow_tab::tables(result));
        }
        tables
    }

    fn summary(&self) -> serde_json::Value {
        let mut summary = self
            .fit
            .result()
            .map_or_else(|| serde_json::json!({}), fit_tab::summary);
        if let Some(object) = summary.as_object_mut() {
            object.insert("data".to_owned(), self.data.summary());
        }
        summary
    }

    fn sweep_support(&self) -> SweepSupport {
        sweeps::support(&self.params, self.project_dir.clone())
    }

    fn run_headless(&mut self, progress: &Progress, cancel: &CancelToken) -> anyhow::Result<()> {
        let fit_share = if self.headless.fit { 0.1 } else { 1.0 };
        if self.headless.data || (self.headless.fit && self.loaded().is_none()) {
            self.data.load_blocking(
                &self.params,
                self.project_dir.as_deref(),
                &progress.slice(0.0, fit_share),
                cancel,
            )?;
        }
        if self.headless.fit {
            let data = self
                .loaded()
                .ok_or_else(|| anyhow::anyhow!("no trials to fit"))?;
            self.fit.train_blocking(
                &self.params,
                &data,
                &progress.slice(fit_share, 1.0),
                cancel,
            )?;
        }
        progress.set(1.0, "done");
        Ok(())
    }

    fn undo(&mut self) -> bool {
        self.history.undo_into(&mut self.params)
    }

    fn redo(&mut self) -> bool {
        self.history.redo_into(&mut self.params)
    }
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-findr", env!("CARGO_PKG_VERSION"));

impl benchtop_kit::panel::PanelType for FindrPanel {
    type State = FindrState;
    const KIND: PanelKind = KIND;

    fn restore(state: FindrState, sidecar: Option<&Sidecar>) -> anyhow::Result<Self> {
        Self::restore(state, sidecar)
    }
}
