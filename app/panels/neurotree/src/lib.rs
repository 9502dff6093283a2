//! NeuroTree brain trees: hierarchical functional brain pathways from fMRI (Ding, Luo, Wu,
//! Zilverstand, Kulkarni, Liu, ICML 2025).
//!
//! Three tabs: **Data** (a synthetic cohort with a planted default-mode group effect and an age
//! effect, a folder of ROI time series, or the bundled real resting-state sample; the subject
//! table and static and windowed |r| heatmaps of a subject or a group mean), **Tree** (the
//! brain-tree explorer: the MST on 1 − |r| in a radial or force-directed layout with its trunk
//! levels, nodes coloured by network, per-network trunk membership) and **Model** (AGE-GCN and
//! its baselines under cross-validation, ROC curves, brain age and the k-hop norms).
//!
//! The panel is a [`PanelModel`]: its parameters are declared once in [`params`], loading the
//! subjects and the cross-validated model run are tasks of the kit, and [`Host`] supplies the
//! rest.

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_neurotree as engine;

pub mod bench;
mod data_tab;
pub mod explore;
pub mod figures;
pub mod layout;
mod model_tab;
pub mod params;
mod saved;
pub mod sweeps;
mod tree_tab;
mod views;

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, issues_of};
use benchtop_kit::project::{DataRef, Sidecar};
use benchtop_kit::sweep::SweepOutput;
use benchtop_neurotree::cohort::CohortParams;
use benchtop_neurotree::load::TimeAxis;
use benchtop_neurotree::pipeline::NeuroTreeParams;
use serde::{Deserialize, Serialize};

pub use explore::Pick;
pub use tree_tab::{TreeBase, group_picks, tree_base};

/// The NeuroTree brain-tree panel.
pub type NeuroTreePanel = Host<NeuroTreeModel>;

/// Everything the project file stores for this panel.
pub type NeuroTreeState = DocOf<NeuroTreeModel>;

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

/// Results kept with the project (arrays go to the sidecar).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The subjects' description (ids, groups, ages, ROI and network names).
    pub data: Option<benchtop_kit::panel::SavedValue>,
    /// Sidecar file of the series (subjects × ROIs × time points).
    pub series_file: Option<String>,
    /// The model result without its group-mean FC matrices.
    pub result: Option<benchtop_kit::panel::SavedValue>,
    /// Sidecar file of the group-mean FC matrices (groups × ROIs × ROIs).
    pub group_fc_file: Option<String>,
}

/// The subjects in use and where they came from.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedData {
    /// The subjects.
    pub dataset: benchtop_neurotree::dataset::Dataset,
    /// `synthetic, seed 1`, `real sample` or the folder's name.
    pub source: String,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum NeuroTreeTask for NeuroTreeModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// Generate or read the subjects.
    Load(data = true): data.task => |m, cx| m.data.start(cx);
    /// Train and evaluate the models under cross-validation (minutes).
    Model(model = false): model.task => |m, cx| {
        let loaded = m.data.loaded();
        m.model.start(cx, loaded);
    };
}

/// The NeuroTree panel's tabs and their results.
#[derive(Default)]
pub struct NeuroTreeModel {
    data: data_tab::DataTab,
    tree: tree_tab::TreeTab,
    model: model_tab::ModelTab,
}

impl NeuroTreeModel {
    /// Hands the trained group trees (if any) to the tree explorer.
    fn sync_trained_trees(&mut self) {
        let trees = self.model.result().map(model_tab::group_bases);
        self.tree.set_trained(trees);
    }
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-neurotree", env!("CARGO_PKG_VERSION"));

impl PanelModel for NeuroTreeModel {
    type Params = NeuroTreePanelParams;
    type View = NeuroTreeView;
    type Results = SavedResults;
    type Tab = NeuroTreeTab;

    const KIND: PanelKind = PanelKind {
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
    };

    benchtop_kit::tabs!(NeuroTreeTab {
        Data => "Data",
        Tree => "Tree",
        Model => "Model",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;

    fn restore(
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &NeuroTreePanelParams,
    ) -> anyhow::Result<Self> {
        let mut model = Self::default();
        model.data.restore(results, sidecar, params)?;
        if let Some(result) = saved::restore_result(results, sidecar)? {
            model.model.restore(result, params);
        }
        model.sync_trained_trees();
        Ok(model)
    }

    fn save(&self, results: &mut SavedResults, sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        self.data.task.save(results, sidecar)?;
        saved::save_result(self.model.result(), results, sidecar)
    }

    fn tab_ui(&mut self, tab: NeuroTreeTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        let loaded = self.data.loaded();
        match tab {
            NeuroTreeTab::Data => self.data.ui(ui, cx),
            NeuroTreeTab::Tree => self.tree.ui(ui, cx, loaded.as_ref()),
            NeuroTreeTab::Model => self.model.ui(ui, cx, loaded.as_ref()),
        }
    }

    fn headless(&self, flags: &HeadlessTasks) -> Vec<(NeuroTreeTask, f64)> {
        let mut steps = Vec::new();
        // The model trains on the subjects, so they are made when there are none yet.
        if flags.data || self.data.loaded().is_none() {
            steps.push((NeuroTreeTask::Load, 0.05));
        }
        if flags.model {
            steps.push((NeuroTreeTask::Model, 0.95));
        }
        steps
    }

    fn poll(&mut self, _params: &mut NeuroTreePanelParams) {
        if self.data.task.poll_result() {
            self.data.loaded_now();
            self.tree.forget_data();
        }
        if self.model.task.poll_result() {
            self.sync_trained_trees();
        }
    }

    fn validate(params: &NeuroTreePanelParams) -> Vec<ParamIssue> {
        issues_of([
            ("params.data", params.data.validate()),
            ("params.run", params.run.validate()),
        ])
    }

    fn figures(&self, params: &NeuroTreePanelParams, view: &NeuroTreeView) -> Vec<PanelFigure> {
        let loaded = self.data.loaded();
        let mut figures = self.data.figures(params, view);
        if let Some(data) = loaded.as_deref() {
            figures.extend(self.tree.figures(params, view, data));
        }
        figures.extend(self.model.figures(params));
        figures
    }

    fn tables(&self, params: &NeuroTreePanelParams, view: &NeuroTreeView) -> Vec<DataTable> {
        let loaded = self.data.loaded();
        let mut tables = Vec::new();
        if let Some(data) = loaded.as_deref() {
            tables.extend(self.tree.tables(params.run.trunk, view, data));
        }
        tables.extend(self.model.tables());
        tables
    }

    fn summary(&self, params: &NeuroTreePanelParams) -> serde_json::Value {
        let mut summary = serde_json::Map::new();
        let mut notes: Vec<String> = Vec::new();
        if let Some(data) = self.data.loaded() {
            let d = &data.dataset;
            summary.insert("subjects".into(), d.subjects.len().into());
            summary.insert("rois".into(), d.rois().into());
            summary.insert("source".into(), data.source.clone().into());
            summary.extend(self.tree.summary(params, &data));
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

    fn sweep_outputs() -> Vec<SweepOutput> {
        sweeps::outputs()
    }

    fn evaluate(
        params: &NeuroTreePanelParams,
        outputs: &[String],
        seed: u64,
        cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        sweeps::evaluate(params, outputs, seed, cx, progress, cancel)
    }

    fn sweep_fingerprint(params: &NeuroTreePanelParams) -> String {
        sweeps::fingerprint(params)
    }
}
