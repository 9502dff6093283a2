//! MolStitch: offline multi-objective molecular optimisation by stitching fragments (Shin et
//! al., ICML 2025).
//!
//! Two tabs: **Stitch** (the molecule stitching viewer: pick two parents from the offline set's
//! Pareto scatter or type SMILES, see their BRICS fragments highlighted, choose a fragment of
//! each and see the stitched child with its objective values and the changes from its parents;
//! a gallery holds every compatible pair's child) and **Optimise** (the MolStitch pipeline
//! against its baselines on the same oracle budget).
//!
//! The panel is a [`PanelModel`]: its numeric parameters are declared once in [`params`], each
//! computation (scoring the molecule set, stitching, the optimisation) is a task of the kit, and
//! [`Host`] supplies the rest.

/// The chemistry the panel draws on (RDKit through the shared crate).
pub use benchtop_chem as chem;
/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_molstitch as engine;

pub mod bench;
pub mod cli;
mod figures;
pub mod library;
pub mod mol_draw;
pub mod molecule_export;
mod objectives_ui;
mod optimise_tab;
pub mod params;
pub mod saved_scores;
pub mod stitch;
mod stitch_tab;
pub mod sweeps;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, Recipe};
use benchtop_kit::project::{DataRef, Sidecar};
use benchtop_kit::sweep::SweepOutput;
use benchtop_molstitch::ObjectiveSpec;
use benchtop_molstitch::optimise::{OptimiseConfig, OptimiseResult};
use serde::{Deserialize, Serialize};

pub use optimise_tab::{result_axis_names, result_matches_objectives};

/// The MolStitch panel.
pub type MolStitchPanel = Host<MolStitchModel>;

/// Everything the project file stores for this panel.
pub type MolStitchState = DocOf<MolStitchModel>;

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

/// Results kept with the project: the scored molecule set and the optimisation result (in the
/// sidecar).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The scored molecule set.
    pub scores: Option<saved_scores::SavedScores>,
    /// Sidecar file of the optimisation result.
    pub optimise_file: Option<String>,
}

/// Sidecar sub-folder of the cached prior and StitchNet weights.
const WEIGHTS_FOLDER: &str = "molstitch-weights";
/// Sidecar file of the optimisation result (RON, which keeps the NaN of a round without an IPO
/// step; JSON would turn it into null and refuse to read it back).
const RESULT_FILE: &str = "molstitch-optimisation.ron";

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum MolStitchTask for MolStitchModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// Read the molecule set and score it on the objectives.
    Score(score = true): stitch.score => |m, cx| m.stitch.start_scoring(cx);
    /// Analyse the parents and stitch the chosen fragments.
    Stitch(stitch = true): stitch.stitch => |m, cx| m.stitch.start_stitching(cx);
    /// Run MolStitch and its baselines (minutes; needs the scored set).
    Optimise(optimise = false): optimise.task => |m, cx| {
        let library = m.stitch.library();
        m.optimise.start(cx, library, &m.cache_dir);
    };
}

/// Where trained weights are cached while the project has no sidecar folder of its own (an
/// unsaved project, an example in the repository, a sweep): the user's private cache folder
/// (`~/.cache/benchtop/molstitch-weights`, mode 0700), never a folder other users can write to;
/// without a home folder, a folder of this process's own in the temporary directory.
pub(crate) fn default_cache_dir() -> PathBuf {
    benchtop_kit::compute::cache::user_cache_dir("molstitch-weights").unwrap_or_else(|_| {
        std::env::temp_dir().join(format!("benchtop-molstitch-weights-{}", std::process::id()))
    })
}

/// The MolStitch panel's tabs, their results, and where trained weights are cached.
pub struct MolStitchModel {
    stitch: stitch_tab::StitchTab,
    optimise: optimise_tab::OptimiseTab,
    /// Where trained weights are cached: the project's sidecar once it has a weight folder,
    /// else the temporary folder (so running an example writes nothing next to it).
    cache_dir: PathBuf,
}

impl Default for MolStitchModel {
    fn default() -> Self {
        Self {
            stitch: stitch_tab::StitchTab::default(),
            optimise: optimise_tab::OptimiseTab::default(),
            cache_dir: default_cache_dir(),
        }
    }
}

impl MolStitchModel {
    /// Copies the weight files of the current result (prior, StitchNet) from the weight cache
    /// into the sidecar's weight folder. Only the files' names are taken from the result, and
    /// they are looked up in the cache: a result read from a file never makes the save copy
    /// anything from elsewhere.
    fn save_weights(&self, sidecar: &Sidecar) -> anyhow::Result<()> {
        let target = sidecar.path(WEIGHTS_FOLDER);
        let Some(result) = self.optimise.result() else {
            return Ok(());
        };
        for path in &result.weight_files {
            let Some(name) = path.file_name() else {
                continue;
            };
            let source = self.cache_dir.join(name);
            if self.cache_dir == target || !source.is_file() {
                continue;
            }
            std::fs::create_dir_all(&target)
                .map_err(|e| anyhow::anyhow!("{}: {e}", target.display()))?;
            std::fs::copy(&source, target.join(name))
                .map_err(|e| anyhow::anyhow!("{}: {e}", source.display()))?;
        }
        Ok(())
    }
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-molstitch", env!("CARGO_PKG_VERSION"));

impl PanelModel for MolStitchModel {
    type Params = MolStitchParams;
    type View = MolStitchView;
    type Results = SavedResults;
    type Tab = MolStitchTab;

    const KIND: PanelKind = PanelKind {
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
    };

    benchtop_kit::tabs!(MolStitchTab {
        Stitch => "Stitch",
        Optimise => "Optimise",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;
    const COMMANDS: &'static [benchtop_kit::cli::CommandEntry] = cli::COMMANDS;

    /// The scored molecule set, the optimisation result and the weight cache come from
    /// `sidecar`; the stitching is recomputed (it is deterministic and quick). Saved scores
    /// that cannot be read are scored again.
    fn restore(
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &MolStitchParams,
    ) -> anyhow::Result<Self> {
        let mut model = Self::default();
        let Some(sidecar) = sidecar else {
            return Ok(model);
        };
        // Weights saved with the project are reused; a project without them (e.g. an example in
        // the repository) caches in the temporary folder, so that running it writes nothing
        // next to the project file.
        if let Some(saved_weights) = sidecar
            .existing(WEIGHTS_FOLDER)
            .filter(|path| path.is_dir())
        {
            model.cache_dir = saved_weights;
        }
        if let Some(saved) = &results.scores
            && let Ok(set) = saved_scores::restore(saved, sidecar, &params.objectives)
        {
            model.stitch.restore_scores(set);
        }
        if let Some(file) = &results.optimise_file {
            let text = sidecar.read_text(file)?;
            let result: OptimiseResult =
                ron::from_str(&text).map_err(|error| anyhow::anyhow!("{file}: {error}"))?;
            model
                .optimise
                .task
                .set_result(optimise_tab::key(params), std::sync::Arc::new(result));
        }
        Ok(model)
    }

    fn save(&self, results: &mut SavedResults, sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        let Some(sidecar) = sidecar else {
            return Ok(());
        };
        self.save_weights(sidecar)?;
        if let Some(set) = self.stitch.scores_to_save() {
            results.scores = saved_scores::save(&set, sidecar)?;
        }
        if let Some(result) = self.optimise.result() {
            let text = ron::to_string(&*result)?;
            results.optimise_file = Some(sidecar.write_text(RESULT_FILE, &text)?);
        }
        Ok(())
    }

    /// A weight cache kept in the project's sidecar follows it to the new folder.
    fn sidecar_moved(&mut self, sidecar: &Sidecar) {
        let moved = sidecar.path(WEIGHTS_FOLDER);
        if self.cache_dir != default_cache_dir() && moved.is_dir() {
            self.cache_dir = moved;
        }
    }

    fn tab_ui(&mut self, tab: MolStitchTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| match tab {
                MolStitchTab::Stitch => self.stitch.ui(ui, cx),
                MolStitchTab::Optimise => {
                    let library = self.stitch.library();
                    self.optimise.ui(ui, cx, library.as_ref(), &self.cache_dir);
                }
            });
    }

    fn react(&mut self, cx: &mut Cx<'_, Self>) {
        // The molecule set and the stitching follow the parameters on either tab.
        self.stitch.react(cx);
    }

    /// The molecule set and the stitching always; the optimisation (which needs the set) when
    /// asked for.
    fn headless(&self, flags: &HeadlessTasks) -> Vec<(MolStitchTask, f64)> {
        // The optimisation draws its parents from the scored set, so the set is scored
        // whenever it runs; the optimisation then takes most of the time.
        let (score, stitch) = if flags.optimise {
            (0.08, 0.02)
        } else {
            (0.8, 0.2)
        };
        let mut steps = Vec::new();
        if flags.score || flags.optimise {
            steps.push((MolStitchTask::Score, score));
        }
        if flags.stitch {
            steps.push((MolStitchTask::Stitch, stitch));
        }
        if flags.optimise {
            steps.push((MolStitchTask::Optimise, 0.9));
        }
        steps
    }

    fn poll(&mut self, params: &mut MolStitchParams) {
        self.stitch.poll(params);
        self.optimise.poll();
    }

    fn validate(params: &MolStitchParams) -> Vec<ParamIssue> {
        params.issues()
    }

    fn figures(&self, params: &MolStitchParams, view: &MolStitchView) -> Vec<PanelFigure> {
        let recipe = Recipe::new(ENGINE, params, None);
        let mut out = Vec::new();
        let stitched = self.stitch.stitched();
        if let Some(set) = self.stitch.library() {
            out.push(recipe.figure(
                "molstitch-molecules",
                figures::molecules_figure(
                    &set,
                    stitched.as_deref(),
                    &params.objectives,
                    (view.x_objective, view.y_objective),
                ),
            ));
        }
        if let Some(figure) = stitched.as_deref().and_then(|s| {
            figures::stitch_figure(
                s,
                &params.objectives,
                (params.stitch.fragment_a, params.stitch.fragment_b),
            )
        }) {
            out.push(recipe.figure("molstitch-stitch", figure));
        }
        if let Some(result) = self.optimise.result() {
            let recipe = Recipe::new(
                ENGINE,
                &optimise_tab::run_config(params),
                Some(params.optimise.seed),
            );
            out.push(recipe.figure(
                "molstitch-optimisation",
                optimise_tab::results_figure(&result, params, view),
            ));
        }
        out
    }

    fn tables(&self, _params: &MolStitchParams, _view: &MolStitchView) -> Vec<DataTable> {
        // The columns are the objectives the set was scored on: the parameters' once scored.
        let mut tables = Vec::new();
        if let Some(set) = self.stitch.library() {
            let labels: Vec<&str> = set.specs.iter().map(ObjectiveSpec::label).collect();
            let mut columns = vec!["index", "on_front"];
            columns.extend(&labels);
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
            tables.push(DataTable::new(
                "molstitch-molecule-objectives",
                &columns,
                rows,
            ));
        }
        if let Some(s) = self.stitch.stitched()
            && let Some(Ok(child)) = &s.child
        {
            let rows =
                s.a.objectives
                    .iter()
                    .zip(&s.b.objectives)
                    .zip(&child.objectives)
                    .enumerate()
                    .map(|(k, ((a, b), c))| vec![(k + 1) as f64, *a, *b, *c])
                    .collect();
            tables.push(DataTable::new(
                "molstitch-stitch-values",
                &["objective", "parent_a", "parent_b", "child"],
                rows,
            ));
        }
        if let Some(result) = self.optimise.result() {
            tables.extend(optimise_tab::tables(&result));
        }
        tables
    }

    fn summary(&self, params: &MolStitchParams) -> serde_json::Value {
        let mut summary = serde_json::Map::new();
        summary.insert(
            "objectives".into(),
            params
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

    fn sweep_outputs() -> Vec<SweepOutput> {
        sweeps::outputs()
    }

    fn evaluate(
        params: &MolStitchParams,
        _outputs: &[String],
        seed: u64,
        cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        sweeps::evaluate(params, seed, cx, progress, cancel)
    }

    fn sweep_fingerprint(params: &MolStitchParams) -> String {
        format!("{:?}", (&params.data, &optimise_tab::run_config(params)))
    }
}
