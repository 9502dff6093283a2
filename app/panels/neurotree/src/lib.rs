//! NeuroTree brain trees: hierarchical functional brain pathways from fMRI (Ding, Luo, Wu,
//! Zilverstand, Kulkarni, Liu, ICML 2025).
//!
//! Three tabs: **Data** (a synthetic cohort with a planted default-mode group effect and an age
//! effect, a folder of ROI time series, or the bundled real resting-state sample; the subject
//! table and static and windowed |r| heatmaps of a subject or a group mean), **Tree** (the
//! brain-tree explorer: the MST on 1 − |r| in a radial or force-directed layout with its trunk
//! levels, nodes coloured by network, per-network trunk membership) and **Model** (AGE-GCN and
//! its baselines under cross-validation, ROC curves, brain age and the k-hop norms).

mod data_tab;
mod explore;
mod figures;
mod layout;
mod model_tab;
mod saved;
mod sweeps;
mod tree_tab;
mod views;

use std::path::{Path, PathBuf};

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_neurotree::cohort::CohortParams;
use benchtop_neurotree::load::TimeAxis;
use benchtop_neurotree::pipeline::NeuroTreeParams;
use serde::{Deserialize, Serialize};

use benchtop_kit::panel::{
    DataTable, Field, Panel, PanelContext, PanelFigure, PanelKind, Paper, ParamIssue,
};
use benchtop_kit::project::{DataRef, Sidecar};
use benchtop_kit::sweep::SweepSupport;
use benchtop_kit::undo::UndoHistory;

pub use explore::Pick;

/// The catalog entry.
pub const KIND: PanelKind = PanelKind {
    id: "neurotree",
    name: "NeuroTree brain trees",
    description: "Brain trees and trunks from fMRI functional connectivity, and an age-aware \
                  graph network that tells patients from controls; check it on a synthetic \
                  cohort with a planted default-mode effect.",
    field: Field::Neuroscience,
    paper: Paper {
        title: "NeuroTree: Hierarchical Functional Brain Pathway Decoding for Mental Health \
                Disorders",
        authors: "Jun-En Ding, Dongsheng Luo, Chenwei Wu, Anna Zilverstand, Kaustubh \
                  Kulkarni, Feng Liu",
        venue: "ICML 2025",
        link: "https://openreview.net/forum?id=ckbo9yutGO",
    },
    create: create_panel,
};

fn create_panel() -> Box<dyn Panel> {
    Box::new(NeuroTreePanel::new(NeuroTreeState::default()))
}

/// Which tab is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NeuroTreeTab {
    /// Subjects and connectivity.
    #[default]
    Data,
    /// The brain-tree explorer.
    Tree,
    /// Classification, brain age and k-hop norms.
    Model,
}

/// Where the subjects come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum DataSource {
    /// A seeded synthetic cohort (known answers).
    #[default]
    Synthetic,
    /// A folder of ROI time series (with optional demographics and networks files).
    Folder,
    /// The bundled real resting-state sample (5 subjects, 94 AAL2 ROIs).
    RealSample,
}

/// The cohort a new panel starts with (the example project's size).
fn demo_cohort() -> CohortParams {
    CohortParams {
        subjects: 80,
        rois: 90,
        seed: 1,
        ..CohortParams::default()
    }
}

/// What the data tab generates or reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DataParams {
    /// Synthetic, a folder or the real sample.
    pub source: DataSource,
    /// The synthetic cohort.
    pub cohort: CohortParams,
    /// The folder of series files (relative to the project file).
    pub folder: DataRef,
    /// Where time runs in the folder's files.
    pub time_axis: TimeAxis,
}

impl Default for DataParams {
    fn default() -> Self {
        Self {
            source: DataSource::Synthetic,
            cohort: demo_cohort(),
            folder: DataRef::default(),
            time_axis: TimeAxis::Auto,
        }
    }
}

impl DataParams {
    /// Checks what can be checked without reading files.
    pub fn validate(&self) -> Result<(), ComputeError> {
        match self.source {
            DataSource::Synthetic => self.cohort.validate().map_err(|e| prefix("cohort", e)),
            DataSource::Folder if self.folder.path.trim().is_empty() => Err(ComputeError::invalid(
                "folder",
                "choose a folder of series files",
            )),
            DataSource::Folder | DataSource::RealSample => Ok(()),
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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NeuroTreePanelParams {
    /// The subjects.
    pub data: DataParams,
    /// Features, model, training, folds, trunks (levels, α, S), k-hop curves and seed.
    pub run: NeuroTreeParams,
}

/// How the tree is laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TreeLayout {
    /// Root at the centre, depth on rings.
    #[default]
    Radial,
    /// Fruchterman–Reingold from the radial layout.
    ForceDirected,
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NeuroTreeView {
    /// The tab shown.
    pub tab: NeuroTreeTab,
    /// Whose connectivity and tree are shown.
    pub pick: Pick,
    /// Number of equal windows of the dynamic FC heatmap.
    pub windows: usize,
    /// The window shown.
    pub window: usize,
    /// The tree layout.
    pub layout: TreeLayout,
    /// Trunk levels whose edges are hidden (collapsed).
    pub hidden_levels: Vec<usize>,
    /// Whether the tree shows ROI names next to trunk nodes.
    pub trunk_labels: bool,
}

impl Default for NeuroTreeView {
    fn default() -> Self {
        Self {
            tab: NeuroTreeTab::Data,
            pick: Pick::AllSubjects,
            windows: 2,
            window: 0,
            layout: TreeLayout::Radial,
            hidden_levels: Vec::new(),
            trunk_labels: false,
        }
    }
}

/// What `benchtop run` computes for this panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HeadlessTasks {
    /// Generate or read the subjects.
    pub data: bool,
    /// Train and evaluate the models (minutes).
    pub model: bool,
}

impl Default for HeadlessTasks {
    fn default() -> Self {
        Self {
            data: true,
            model: false,
        }
    }
}

/// Results kept with the project (arrays go to the sidecar).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The subjects' description (ids, groups, ages, ROI and network names).
    pub data: Option<serde_json::Value>,
    /// Sidecar file of the series (subjects × ROIs × time points).
    pub series_file: Option<String>,
    /// The model result without its group-mean FC matrices.
    pub result: Option<serde_json::Value>,
    /// Sidecar file of the group-mean FC matrices (groups × ROIs × ROIs).
    pub group_fc_file: Option<String>,
}

/// Everything the project file stores for this panel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NeuroTreeState {
    /// Parameters.
    pub params: NeuroTreePanelParams,
    /// View settings.
    pub view: NeuroTreeView,
    /// What a headless run computes.
    pub headless: HeadlessTasks,
    /// Results.
    pub results: SavedResults,
}

/// The subjects in use and where they came from.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedData {
    /// The subjects.
    pub dataset: benchtop_neurotree::dataset::Dataset,
    /// `synthetic, seed 1`, `real sample` or the folder's name.
    pub source: String,
}

/// The panel.
pub struct NeuroTreePanel {
    params: NeuroTreePanelParams,
    view: NeuroTreeView,
    headless: HeadlessTasks,
    history: UndoHistory<NeuroTreePanelParams>,
    project_dir: Option<PathBuf>,
    data: data_tab::DataTab,
    tree: tree_tab::TreeTab,
    model: model_tab::ModelTab,
    warning: Option<String>,
}

impl NeuroTreePanel {
    /// A panel showing `state` (no results).
    pub fn new(state: NeuroTreeState) -> Self {
        Self {
            history: UndoHistory::new(state.params.clone()),
            params: state.params,
            view: state.view,
            headless: state.headless,
            project_dir: None,
            data: data_tab::DataTab::default(),
            tree: tree_tab::TreeTab::default(),
            model: model_tab::ModelTab::default(),
            warning: None,
        }
    }

    /// Rebuilds the panel with its saved results (arrays from `sidecar`); results that cannot
    /// be read are dropped with a warning (they can be recomputed).
    pub fn restore(state: NeuroTreeState, sidecar: Option<&Sidecar>) -> anyhow::Result<Self> {
        let results = state.results.clone();
        let mut panel = Self::new(state);
        let restored = panel.data.restore(&results, sidecar).and_then(|()| {
            panel
                .model
                .set_result(saved::restore_result(&results, sidecar)?);
            Ok(())
        });
        if let Err(error) = restored {
            panel.data = data_tab::DataTab::default();
            panel.model = model_tab::ModelTab::default();
            panel.warning = Some(format!(
                "saved results were not restored ({error:#}); run again to recompute them"
            ));
        }
        panel.data.mark_current(&panel.params);
        panel.model.mark_current(&panel.params);
        panel.sync_trained_trees();
        Ok(panel)
    }

    /// Hands the trained group trees (if any) to the tree explorer.
    fn sync_trained_trees(&mut self) {
        let trees = self.model.result().map(model_tab::group_bases);
        self.tree.set_trained(trees);
    }
}

impl Panel for NeuroTreePanel {
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
            ui.selectable_value(&mut self.view.tab, NeuroTreeTab::Data, "Data");
            ui.selectable_value(&mut self.view.tab, NeuroTreeTab::Tree, "Tree");
            ui.selectable_value(&mut self.view.tab, NeuroTreeTab::Model, "Model");
        });
        ui.separator();
        let project_dir = self.project_dir.clone();
        let loaded = self.data.loaded();
        match self.view.tab {
            NeuroTreeTab::Data => self.data.ui(
                ui,
                &mut self.params,
                &mut self.view,
                project_dir.as_deref(),
                context,
            ),
            NeuroTreeTab::Tree => {
                self.tree
                    .ui(ui, &mut self.params, &mut self.view, loaded.as_ref());
            }
            NeuroTreeTab::Model => {
                self.model
                    .ui(ui, &mut self.params, loaded.as_ref(), context);
            }
        }
        let interacting = ui.input(|input| input.pointer.any_down());
        self.history.observe(&self.params, interacting);
    }

    fn poll(&mut self) {
        self.data.poll();
        if self.model.poll() {
            self.sync_trained_trees();
        }
    }

    fn is_busy(&self) -> bool {
        self.data.is_busy() || self.model.is_busy()
    }

    fn save(&self, sidecar: Option<&Sidecar>) -> anyhow::Result<Box<dyn std::any::Any>> {
        let mut results = SavedResults::default();
        self.data.save(&mut results, sidecar)?;
        saved::save_result(self.model.result(), &mut results, sidecar)?;
        Ok(Box::new(NeuroTreeState {
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
        issues.extend(model_tab::run_issues(&self.params.run));
        issues
    }

    fn figures(&self) -> Vec<PanelFigure> {
        let loaded = self.data.loaded();
        let mut figures = self.data.figures(&self.params, &self.view);
        if let Some(data) = loaded.as_deref() {
            figures.extend(self.tree.figures(&self.params, &self.view, data));
        }
        figures.extend(self.model.figures(&self.params));
        figures
    }

    fn data_tables(&self) -> Vec<DataTable> {
        let loaded = self.data.loaded();
        let mut tables = Vec::new();
        if let Some(data) = loaded.as_deref() {
            tables.extend(self.tree.tables(&self.params, &self.view, data));
        }
        tables.extend(self.model.tables());
        tables
    }

    fn summary(&self) -> serde_json::Value {
        let mut summary = serde_json::Map::new();
        let mut notes: Vec<String> = Vec::new();
        if let Some(data) = self.data.loaded() {
            let d = &data.dataset;
            summary.insert("subjects".into(), d.subjects.len().into());
            summary.insert("rois".into(), d.rois().into());
            summary.insert("source".into(), data.source.clone().into());
            summary.extend(self.tree.summary(&self.params, &data));
        } else {
            notes.push("no data loaded".to_owned());
        }
        let model = self.model.summary();
        if let Some(model_notes) = self.model.result().map(|r| r.notes.clone()) {
            notes.extend(model_notes);
        }
        summary.extend(model);
        summary.insert("notes".into(), notes.into());
        serde_json::Value::Object(summary)
    }

    fn sweep_support(&self) -> SweepSupport {
        sweeps::support(&self.params, self.data.loaded())
    }

    fn run_headless(&mut self, progress: &Progress, cancel: &CancelToken) -> anyhow::Result<()> {
        if self.headless.data || self.data.loaded().is_none() {
            self.data
                .load_blocking(&self.params, self.project_dir.as_deref(), progress, cancel)?;
        }
        if self.headless.model {
            let data = self
                .data
                .loaded()
                .ok_or_else(|| anyhow::anyhow!("no subjects to train on"))?;
            self.model
                .run_blocking(&self.params, &data, &progress.slice(0.05, 1.0), cancel)?;
            self.sync_trained_trees();
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
const ENGINE: (&str, &str) = ("benchtop-neurotree", env!("CARGO_PKG_VERSION"));

impl benchtop_kit::panel::PanelType for NeuroTreePanel {
    type State = NeuroTreeState;
    const KIND: PanelKind = KIND;

    fn restore(state: NeuroTreeState, sidecar: Option<&Sidecar>) -> anyhow::Result<Self> {
        Self::restore(state, sidecar)
    }
}
