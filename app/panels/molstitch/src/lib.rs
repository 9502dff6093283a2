//! MolStitch: offline multi-objective molecular optimisation by stitching fragments (Shin et
//! al., ICML 2025).
//!
//! Two tabs: **Stitch** (the molecule stitching viewer: pick two parents from the offline set's
//! Pareto scatter or type SMILES, see their BRICS fragments highlighted, choose a fragment of
//! each and see the stitched child with its objective values and the changes from its parents;
//! a gallery holds every compatible pair's child) and **Optimise** (the MolStitch pipeline
//! against its baselines on the same oracle budget).

mod figures;
mod library;
mod mol_draw;
mod molecule_export;
mod objectives_ui;
mod optimise_tab;
mod stitch;
mod stitch_tab;
mod sweeps;

use std::path::{Path, PathBuf};

use benchtop_compute::{CancelToken, Progress};
use benchtop_molstitch::ObjectiveSpec;
use benchtop_molstitch::optimise::{OptimiseConfig, OptimiseResult};
use serde::{Deserialize, Serialize};

use benchtop_kit::panel::{
    DataTable, Field, Panel, PanelContext, PanelFigure, PanelKind, Paper, ParamIssue,
};
use benchtop_kit::project::{DataRef, Sidecar};
use benchtop_kit::sweep::SweepSupport;
use benchtop_kit::undo::UndoHistory;

/// The catalog entry.
pub const KIND: PanelKind = PanelKind {
    id: "molstitch",
    name: "MolStitch molecule stitching",
    description: "Stitch BRICS fragments of two molecules into a child and see what it gains; \
                  optimise molecules offline with a stitching network, rank proxies and \
                  preference fine-tuning.",
    field: Field::Chemistry,
    paper: Paper {
        title: "Offline Model-based Optimization for Real-World Molecular Discovery",
        authors: "Dong-Hee Shin et al.",
        venue: "ICML 2025",
        link: "https://openreview.net/forum?id=erbRHt0XgI",
    },
    create: create_panel,
};

fn create_panel() -> Box<dyn Panel> {
    Box::new(MolStitchPanel::new(MolStitchState::default()))
}

/// Which tab is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum MolStitchTab {
    /// The stitching viewer.
    #[default]
    Stitch,
    /// MolStitch against its baselines.
    Optimise,
}

/// Which parent a click in the scatter sets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ParentSlot {
    /// Parent A.
    #[default]
    A,
    /// Parent B.
    B,
}

/// Where the molecules come from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DataParams {
    /// A CSV, SMI or SDF file (relative to the project file); empty: the shipped offline set.
    pub file: DataRef,
}

impl DataParams {
    /// The file to read, or `None` for the shipped offline set.
    pub fn resolved_file(&self, project_dir: Option<&Path>) -> Option<PathBuf> {
        (!self.file.path.trim().is_empty()).then(|| self.file.resolve(project_dir))
    }
}

/// The two parents and the chosen fragments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StitchParams {
    /// Parent A (SMILES).
    pub parent_a: String,
    /// Parent B (SMILES).
    pub parent_b: String,
    /// Chosen fragment of A (index in its BRICS fragments).
    pub fragment_a: Option<usize>,
    /// Chosen fragment of B.
    pub fragment_b: Option<usize>,
}

impl Default for StitchParams {
    /// Two molecules of the offline set with three and four BRICS fragments.
    fn default() -> Self {
        Self {
            parent_a: "O=C(Nc1nccs1)c1cc(F)c(F)cc1Cl".to_owned(),
            parent_b: "Clc1ccc(Cn2nnc(N3CCCCC3)n2)cc1".to_owned(),
            fragment_a: None,
            fragment_b: None,
        }
    }
}

/// The objectives a new panel scores: the optimisation's defaults (QED, normalised SA and
/// similarity to celecoxib).
fn default_objectives() -> Vec<ObjectiveSpec> {
    OptimiseConfig::default().objectives
}

/// The parameters a user edits (the unit of undo).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MolStitchParams {
    /// The molecule set.
    pub data: DataParams,
    /// The objectives, each in [0, 1].
    pub objectives: Vec<ObjectiveSpec>,
    /// The viewer's parents and fragments.
    pub stitch: StitchParams,
    /// The optimisation settings (its objectives are replaced by [`Self::objectives`]).
    pub optimise: OptimiseConfig,
}

impl Default for MolStitchParams {
    fn default() -> Self {
        Self {
            data: DataParams::default(),
            objectives: default_objectives(),
            stitch: StitchParams::default(),
            optimise: OptimiseConfig::default(),
        }
    }
}

impl MolStitchParams {
    /// Problems with the parameters, keyed like the project file.
    pub fn issues(&self) -> Vec<ParamIssue> {
        let mut issues = Vec::new();
        if self.objectives.is_empty() {
            issues.push(ParamIssue {
                key: "params.objectives".to_owned(),
                message: "choose at least one objective".to_owned(),
            });
        }
        for (i, spec) in self.objectives.iter().enumerate() {
            if let Err(error) = spec.validate() {
                issues.push(ParamIssue {
                    key: format!("params.objectives[{i}]"),
                    message: error.to_string(),
                });
            }
        }
        if issues.is_empty() {
            issues.extend(ParamIssue::from_result(
                "params.optimise",
                optimise_tab::run_config(self).validate(),
            ));
        }
        issues
    }
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MolStitchView {
    /// The tab shown.
    pub tab: MolStitchTab,
    /// Objective on the scatter's x axis.
    pub x_objective: usize,
    /// Objective on the y axis.
    pub y_objective: usize,
    /// Which parent a click in the scatter sets.
    pub click_picks: ParentSlot,
}

impl Default for MolStitchView {
    fn default() -> Self {
        Self {
            tab: MolStitchTab::Stitch,
            x_objective: 0,
            y_objective: 1,
            click_picks: ParentSlot::A,
        }
    }
}

/// What `benchtop run` computes for this panel (the molecule set and the stitch always).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HeadlessTasks {
    /// Run the optimisation (minutes).
    pub optimise: bool,
}

/// Results kept with the project: the optimisation result (JSON in the sidecar).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// Sidecar file of the optimisation result.
    pub optimise_file: Option<String>,
}

/// Sidecar sub-folder of the cached prior and StitchNet weights.
const WEIGHTS_FOLDER: &str = "molstitch-weights";
/// Sidecar file of the optimisation result (RON, which keeps the NaN of a round without an IPO
/// step; JSON would turn it into null and refuse to read it back).
const RESULT_FILE: &str = "molstitch-optimisation.ron";

/// Everything the project file stores for this panel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MolStitchState {
    /// Parameters.
    pub params: MolStitchParams,
    /// View settings.
    pub view: MolStitchView,
    /// What a headless run computes.
    pub headless: HeadlessTasks,
    /// Results.
    pub results: SavedResults,
}

/// The panel.
pub struct MolStitchPanel {
    params: MolStitchParams,
    view: MolStitchView,
    headless: HeadlessTasks,
    history: UndoHistory<MolStitchParams>,
    project_dir: Option<PathBuf>,
    /// Where trained weights are cached: the project's sidecar once it has one.
    cache_dir: PathBuf,
    stitch: stitch_tab::StitchTab,
    optimise: optimise_tab::OptimiseTab,
    warning: Option<String>,
}

impl MolStitchPanel {
    /// A panel showing `state` (no results); weights are cached in the temporary folder until
    /// the project is saved.
    pub fn new(state: MolStitchState) -> Self {
        Self {
            history: UndoHistory::new(state.params.clone()),
            params: state.params,
            view: state.view,
            headless: state.headless,
            project_dir: None,
            cache_dir: std::env::temp_dir().join("benchtop-molstitch-weights"),
            stitch: stitch_tab::StitchTab::default(),
            optimise: optimise_tab::OptimiseTab::default(),
            warning: None,
        }
    }

    /// Rebuilds the panel from its saved state: the optimisation result and the weight cache
    /// come from `sidecar`; the molecule set is rescored and the stitching recomputed (both are
    /// deterministic). A result that cannot be read is dropped with a warning.
    pub fn restore(state: MolStitchState, sidecar: Option<&Sidecar>) -> anyhow::Result<Self> {
        let results = state.results.clone();
        let mut panel = Self::new(state);
        if let Some(sidecar) = sidecar {
            // Weights saved with the project are reused; a project without them (e.g. an
            // example in the repository) caches in the temporary folder, so that running it
            // writes nothing next to the project file.
            let saved_weights = sidecar.dir().join(WEIGHTS_FOLDER);
            if saved_weights.is_dir() {
                panel.cache_dir = saved_weights;
            }
            if let Some(file) = &results.optimise_file {
                let read = sidecar
                    .read_text(file)
                    .and_then(|text| Ok(ron::from_str::<OptimiseResult>(&text)?));
                match read {
                    Ok(result) => panel.optimise.set_result(Some(result)),
                    Err(error) => {
                        panel.warning = Some(format!(
                            "the saved optimisation result was not restored ({error:#}); run it again"
                        ));
                    }
                }
            }
        }
        Ok(panel)
    }

    /// Copies the weight files of the current result (prior, StitchNet) into the sidecar's
    /// weight folder, unless they already live there.
    fn save_weights(&self, sidecar: &Sidecar) -> anyhow::Result<()> {
        let target = sidecar.dir().join(WEIGHTS_FOLDER);
        let Some(result) = self.optimise.result() else {
            return Ok(());
        };
        for path in &result.weight_files {
            let Some(name) = path.file_name() else {
                continue;
            };
            if path.parent() == Some(target.as_path()) || !path.is_file() {
                continue;
            }
            std::fs::create_dir_all(&target)
                .map_err(|e| anyhow::anyhow!("{}: {e}", target.display()))?;
            std::fs::copy(path, target.join(name))
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        }
        Ok(())
    }
}

impl Panel for MolStitchPanel {
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
            ui.selectable_value(&mut self.view.tab, MolStitchTab::Stitch, "Stitch");
            ui.selectable_value(&mut self.view.tab, MolStitchTab::Optimise, "Optimise");
        });
        ui.separator();
        let project_dir = self.project_dir.clone();
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| match self.view.tab {
                MolStitchTab::Stitch => {
                    self.stitch.ui(
                        ui,
                        &mut self.params,
                        &mut self.view,
                        project_dir.as_deref(),
                        context,
                    );
                }
                MolStitchTab::Optimise => {
                    self.stitch
                        .refresh(&self.params, project_dir.as_deref(), context, ui.ctx());
                    let library = self.stitch.library();
                    self.optimise.ui(
                        ui,
                        &mut self.params,
                        &self.view,
                        library.as_ref(),
                        Some(&self.cache_dir),
                        context,
                    );
                }
            });
        let interacting = ui.input(|input| input.pointer.any_down());
        self.history.observe(&self.params, interacting);
    }

    fn poll(&mut self) {
        self.stitch.poll();
        self.optimise.poll();
    }

    fn is_busy(&self) -> bool {
        self.stitch.is_busy() || self.optimise.is_busy()
    }

    fn save(&self, sidecar: Option<&Sidecar>) -> anyhow::Result<Box<dyn std::any::Any>> {
        let mut results = SavedResults::default();
        if let Some(sidecar) = sidecar {
            self.save_weights(sidecar)?;
            if let Some(result) = self.optimise.result() {
                let text = ron::to_string(&*result)?;
                results.optimise_file = Some(sidecar.write_text(RESULT_FILE, &text)?);
            }
        }
        Ok(Box::new(MolStitchState {
            params: self.params.clone(),
            view: self.view.clone(),
            headless: self.headless,
            results,
        }))
    }

    fn validate(&self) -> Vec<ParamIssue> {
        self.params.issues()
    }

    fn figures(&self) -> Vec<PanelFigure> {
        let value = serde_json::to_value(&self.params).unwrap_or_default();
        let mut out = Vec::new();
        let stitched = self.stitch.stitched();
        if let Some(set) = self.stitch.library() {
            out.push(PanelFigure {
                name: "molstitch-molecules".into(),
                figure: figures::molecules_figure(
                    &set,
                    stitched.as_deref(),
                    &self.params.objectives,
                    (self.view.x_objective, self.view.y_objective),
                ),
                params: value.clone(),
                seed: None,
                engine: ENGINE,
            });
        }
        if let Some(figure) = stitched.as_deref().and_then(|s| {
            figures::stitch_figure(
                s,
                &self.params.objectives,
                (self.params.stitch.fragment_a, self.params.stitch.fragment_b),
            )
        }) {
            out.push(PanelFigure {
                name: "molstitch-stitch".into(),
                figure,
                params: value,
                seed: None,
                engine: ENGINE,
            });
        }
        if let Some(result) = self.optimise.result() {
            out.push(PanelFigure {
                name: "molstitch-optimisation".into(),
                figure: optimise_tab::results_figure(&result, &self.params, &self.view),
                params: serde_json::to_value(optimise_tab::run_config(&self.params))
                    .unwrap_or_default(),
                seed: Some(self.params.optimise.seed),
                engine: ENGINE,
            });
        }
        out
    }

    fn data_tables(&self) -> Vec<DataTable> {
        let mut tables = Vec::new();
        let labels: Vec<String> = self
            .params
            .objectives
            .iter()
            .map(|s| s.label().to_owned())
            .collect();
        if let Some(set) = self.stitch.library() {
            let mut columns = vec!["index".to_owned(), "on_front".to_owned()];
            columns.extend(labels.iter().cloned());
            #[allow(clippy::cast_precision_loss)]
            let rows = set
                .objectives
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let mut row = vec![i as f64, f64::from(u8::from(set.front.contains(&i)))];
                    row.extend(v.iter().copied());
                    row
                })
                .collect();
            tables.push(DataTable {
                name: "molstitch-molecule-objectives".into(),
                columns,
                rows,
            });
        }
        if let Some(s) = self.stitch.stitched()
            && let Some(Ok(child)) = &s.child
        {
            #[allow(clippy::cast_precision_loss)]
            let rows = (0..labels.len())
                .map(|k| {
                    vec![
                        (k + 1) as f64,
                        s.a.objectives[k],
                        s.b.objectives[k],
                        child.objectives[k],
                    ]
                })
                .collect();
            tables.push(DataTable {
                name: "molstitch-stitch-values".into(),
                columns: ["objective", "parent_a", "parent_b", "child"]
                    .map(str::to_owned)
                    .to_vec(),
                rows,
            });
        }
        if let Some(result) = self.optimise.result() {
            tables.extend(optimise_tab::tables(&result));
        }
        tables
    }

    fn summary(&self) -> serde_json::Value {
        let mut summary = serde_json::Map::new();
        summary.insert(
            "objectives".into(),
            self.params
                .objectives
                .iter()
                .map(|s| s.label())
                .collect::<Vec<_>>()
                .into(),
        );
        if let Some(set) = self.stitch.library() {
            summary.insert("molecules".into(), set.smiles.len().into());
            summary.insert("pareto_front_size".into(), set.front.len().into());
            summary.insert("rows_skipped".into(), set.skipped.len().into());
            summary.insert("source".into(), set.source.clone().into());
        }
        if let Some(s) = self.stitch.stitched() {
            summary.insert("parent_a".into(), s.a.smiles.clone().into());
            summary.insert("parent_b".into(), s.b.smiles.clone().into());
            summary.insert(
                "compatible_fragment_pairs".into(),
                s.compatible_pairs.into(),
            );
            summary.insert("gallery_children".into(), s.gallery.len().into());
            if let Some(Ok(child)) = &s.child {
                summary.insert(
                    "child".into(),
                    serde_json::json!({
                        "smiles": child.smiles,
                        "objectives": child.objectives,
                        "parent_a_objectives": s.a.objectives,
                        "parent_b_objectives": s.b.objectives,
                    }),
                );
            }
        }
        if let Some(result) = self.optimise.result() {
            summary.insert("optimisation".into(), optimise_tab::summary(&result));
        }
        serde_json::Value::Object(summary)
    }

    fn sweep_support(&self) -> SweepSupport {
        sweeps::support(
            &self.params,
            self.stitch.library(),
            Some(self.cache_dir.clone()),
        )
    }

    fn run_headless(&mut self, progress: &Progress, cancel: &CancelToken) -> anyhow::Result<()> {
        let stitch_share = if self.headless.optimise { 0.1 } else { 1.0 };
        self.stitch.run_blocking(
            &mut self.params,
            self.project_dir.as_deref(),
            &progress.slice(0.0, stitch_share),
            cancel,
        )?;
        if self.headless.optimise {
            let set = self
                .stitch
                .library()
                .ok_or_else(|| anyhow::anyhow!("no molecules to optimise"))?;
            self.optimise.run_blocking(
                &self.params,
                &set,
                Some(&self.cache_dir),
                &progress.slice(stitch_share, 1.0),
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
const ENGINE: (&str, &str) = ("benchtop-molstitch", env!("CARGO_PKG_VERSION"));

impl benchtop_kit::panel::PanelType for MolStitchPanel {
    type State = MolStitchState;
    const KIND: PanelKind = KIND;

    fn restore(state: MolStitchState, sidecar: Option<&Sidecar>) -> anyhow::Result<Self> {
        Self::restore(state, sidecar)
    }
}
