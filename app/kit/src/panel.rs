//! What a panel is to the rest of the app.
//!
//! A [`PanelKind`] is the catalog entry (name, description, paper) and a factory; a [`Panel`]
//! is one open instance with its parameters, jobs and figures. A panel never reaches into
//! another panel or into the shell; it talks to the rest of the app through [`PanelContext`]
//! and the data it returns (state, figures, tables, sweep support).

use std::any::Any;
use std::path::Path;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::Serialize;

use crate::figure::Figure;
use crate::jobs::JobBoard;
use crate::project::Sidecar;
use crate::sweep::SweepSupport;

/// A field of science, for grouping the catalog.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    /// Molecules and materials.
    Chemistry,
    /// Neural data.
    Neuroscience,
    /// Statistical physics.
    StatisticalPhysics,
    /// Weather and climate.
    Climate,
    /// Machine-learning methods.
    MachineLearning,
}

impl Field {
    /// Sentence-case name.
    pub fn label(self) -> &'static str {
        match self {
            Self::Chemistry => "Chemistry",
            Self::Neuroscience => "Neuroscience",
            Self::StatisticalPhysics => "Statistical physics",
            Self::Climate => "Climate",
            Self::MachineLearning => "Machine-learning methods",
        }
    }
}

/// The paper a panel reproduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paper {
    /// Title.
    pub title: &'static str,
    /// Authors as printed.
    pub authors: &'static str,
    /// Venue and year, e.g. `ICML 2025`.
    pub venue: &'static str,
    /// Where to read it (arXiv or OpenReview).
    pub link: &'static str,
}

impl Paper {
    /// `Authors, "Title", Venue.`
    pub fn citation(&self) -> String {
        format!("{}, \"{}\", {}.", self.authors, self.title, self.venue)
    }
}

/// A kind of panel: its catalog entry.
#[derive(Clone, Copy, Debug)]
pub struct PanelKind {
    /// Stable identifier used in project files and on the command line.
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// One line saying what it does.
    pub description: &'static str,
    /// Field, for grouping.
    pub field: Field,
    /// The paper reproduced.
    pub paper: Paper,
}

/// A panel type the catalog registers: its saved state and how to rebuild a panel from it.
pub trait PanelType: Panel + Sized + 'static {
    /// Everything the project file stores for one panel of this kind.
    type State: Clone
        + std::fmt::Debug
        + PartialEq
        + Default
        + Serialize
        + serde::de::DeserializeOwned
        + 'static;

    /// The catalog entry.
    const KIND: PanelKind;

    /// The `benchtop bench NAME` entries of this kind.
    const BENCHES: &'static [crate::cli::BenchEntry] = &[];

    /// The `benchtop NAME …` subcommands of this kind.
    const COMMANDS: &'static [crate::cli::CommandEntry] = &[];

    /// Rebuilds a panel from its saved state; arrays are read from `sidecar` when given.
    fn restore(state: Self::State, sidecar: Option<&Sidecar>) -> anyhow::Result<Self>;

    /// A new panel with default parameters and no results.
    fn create() -> Self;
}

/// Which part of a pane is shown: the panel itself or its parameter sweeps. Saved with the
/// panel, so a project reopens showing what it showed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub enum PaneView {
    /// The panel itself.
    #[default]
    Panel,
    /// Its parameter sweeps.
    Sweeps,
}

impl PaneView {
    /// Whether this is the default view (not written to project files).
    pub fn is_default(&self) -> bool {
        *self == Self::default()
    }
}

/// A problem with a saved parameter: the key and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamIssue {
    /// The parameter key, e.g. `mc.beta`.
    pub key: String,
    /// What is wrong and what is accepted.
    pub message: String,
}

impl ParamIssue {
    /// The issue of a failed validation, its key prefixed with `prefix` (e.g. `params.mc`).
    pub fn from_result(prefix: &str, result: Result<(), ComputeError>) -> Option<Self> {
        let error = result.err()?;
        let key = match &error {
            ComputeError::InvalidParameter { name, .. } => format!("{prefix}.{name}"),
            _ => prefix.to_owned(),
        };
        Some(Self {
            key,
            message: error.to_string(),
        })
    }
}

/// The issues of several validations, each key prefixed with its place (e.g.
/// `("params.mc", params.mc.validate())`).
pub fn issues_of<'a>(
    checks: impl IntoIterator<Item = (&'a str, Result<(), ComputeError>)>,
) -> Vec<ParamIssue> {
    checks
        .into_iter()
        .filter_map(|(prefix, result)| ParamIssue::from_result(prefix, result))
        .collect()
}

/// A result kept in a project file as it is written there (RON text, inline in the file), so
/// that every value, NaN and infinities included, reads back as it was.
pub type SavedValue = Box<ron::value::RawValue>;

/// Converts a serialisable result into the value kept in a project.
pub fn to_saved<T: Serialize>(value: &T) -> anyhow::Result<SavedValue> {
    Ok(ron::value::RawValue::from_rust(value)?)
}

/// The inverse of [`to_saved`].
pub fn from_saved<T: serde::de::DeserializeOwned>(value: &SavedValue) -> anyhow::Result<T> {
    Ok(ron::from_str(value.get_ron())?)
}

/// What a panel can use from the app while drawing.
pub struct PanelContext<'a> {
    /// Where jobs are listed (status bar).
    pub jobs: &'a JobBoard,
    /// The folder of the project file, for resolving data paths.
    pub project_dir: Option<&'a Path>,
    /// Whether engines run on the renderer's wgpu device (so GPU buffers can be drawn directly).
    pub shared_gpu: bool,
    /// The window's renderer, when there is one (for paint callbacks).
    pub render_state: Option<&'a eframe::egui_wgpu::RenderState>,
}

/// A figure a panel can export, with what is needed for its provenance.
#[derive(Clone, Debug)]
pub struct PanelFigure {
    /// File stem, e.g. `ising-observables`.
    pub name: String,
    /// The figure.
    pub figure: Figure,
    /// The parameters that produced it.
    pub params: serde_json::Value,
    /// The seed, if any.
    pub seed: Option<u64>,
    /// Engine name and version.
    pub engine: (&'static str, &'static str),
}

/// What made a panel's figures: the engine, the parameters and the seed, recorded as each
/// figure's provenance.
#[derive(Clone, Debug)]
pub struct Recipe {
    engine: (&'static str, &'static str),
    params: serde_json::Value,
    seed: Option<u64>,
}

impl Recipe {
    /// Figures made by `engine` (name, version) from `params` and `seed`.
    pub fn new(
        engine: (&'static str, &'static str),
        params: &impl Serialize,
        seed: Option<u64>,
    ) -> Self {
        Self {
            engine,
            params: serde_json::to_value(params).unwrap_or_default(),
            seed,
        }
    }

    /// `figure`, to be exported as `name` with this recipe.
    pub fn figure(&self, name: &str, figure: Figure) -> PanelFigure {
        PanelFigure {
            name: name.to_owned(),
            figure,
            params: self.params.clone(),
            seed: self.seed,
            engine: self.engine,
        }
    }
}

/// A table of numbers a panel exports as CSV.
#[derive(Clone, Debug, PartialEq)]
pub struct DataTable {
    /// File stem.
    pub name: String,
    /// Column names.
    pub columns: Vec<String>,
    /// Rows of values.
    pub rows: Vec<Vec<f64>>,
}

impl DataTable {
    /// A table `name` with `columns` and `rows`.
    pub fn new(name: &str, columns: &[&str], rows: Vec<Vec<f64>>) -> Self {
        Self {
            name: name.to_owned(),
            columns: columns.iter().map(|c| (*c).to_owned()).collect(),
            rows,
        }
    }

    /// The table as CSV text.
    pub fn to_csv(&self) -> anyhow::Result<String> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.write_record(&self.columns)?;
        for row in &self.rows {
            writer.write_record(row.iter().map(|v| format!("{v}")))?;
        }
        Ok(String::from_utf8(writer.into_inner()?)?)
    }
}

/// One open panel.
pub trait Panel {
    /// Its kind.
    fn kind(&self) -> &'static PanelKind;

    /// Tells the panel the folder of its project file, against which relative data paths
    /// resolve (called when a project is opened or saved).
    fn set_project_dir(&mut self, _dir: Option<&Path>) {}

    /// Called after a save moved the project's arrays to `sidecar` (each save writes a new
    /// sidecar folder), so that paths the panel keeps into the old one (e.g. a weight cache)
    /// follow them.
    fn sidecar_moved(&mut self, _sidecar: &Sidecar) {}

    /// Queues what the panel's headless run computes, if the panel has no results at all; the
    /// window starts the queued tasks one after another, the first when the panel is next
    /// drawn (a project with `compute_on_open` calls this when it opens).
    fn compute_missing(&mut self) {}

    /// Why the saved results could not be restored when the project was opened (`None` when
    /// they were, or there were none). The results are kept in the file until the panel
    /// computes new ones.
    fn restore_warning(&self) -> Option<String> {
        None
    }

    /// The tab title.
    fn title(&self) -> String {
        self.kind().name.to_owned()
    }

    /// Draws the panel: controls, plots, progress bars.
    fn ui(&mut self, ui: &mut egui::Ui, context: &mut PanelContext<'_>);

    /// Collects finished or streamed job results; called every frame, even when hidden.
    fn poll(&mut self) {}

    /// Whether a job of this panel is running.
    fn is_busy(&self) -> bool;

    /// The persisted state (the panel kind's own state type, which the catalog turns into the
    /// project's entry); arrays go to `sidecar` (when saving to a file).
    fn save(&self, sidecar: Option<&Sidecar>) -> anyhow::Result<Box<dyn Any>>;

    /// Problems with the current parameters (shown after loading a project).
    fn validate(&self) -> Vec<ParamIssue>;

    /// Figures of the current results, the same on screen and in files.
    fn figures(&self) -> Vec<PanelFigure>;

    /// Tables of the current results, for CSV export.
    fn data_tables(&self) -> Vec<DataTable>;

    /// Key scalar results for `summary.json`.
    fn summary(&self) -> serde_json::Value;

    /// What sweeps may vary and record.
    fn sweep_support(&self) -> SweepSupport;

    /// Computes every result without a window (for `benchtop run`), blocking the caller.
    fn run_headless(&mut self, progress: &Progress, cancel: &CancelToken) -> anyhow::Result<()>;

    /// Undoes the last parameter edit; false when there is none.
    fn undo(&mut self) -> bool;

    /// Redoes the last undone edit; false when there is none.
    fn redo(&mut self) -> bool;

    /// What undo would change, e.g. `k_c change` (None when there is nothing to undo).
    fn undo_label(&self) -> Option<String> {
        None
    }

    /// What redo would change (None when there is nothing to redo).
    fn redo_label(&self) -> Option<String> {
        None
    }

    /// How many times the user has edited this panel's parameters (each undo step recorded,
    /// undone or redone). The shell sends Edit › Undo to the panel edited or focused last.
    fn edit_count(&self) -> u64 {
        0
    }

    /// Whether the panel changed since [`Panel::mark_saved`]: parameters that differ from the
    /// saved ones, or results of computations the user started. View settings, and results and
    /// choices the panel makes by itself from the saved parameters, are no change.
    fn has_unsaved_changes(&self) -> bool {
        false
    }

    /// How long the results the panel holds took to compute, counting those delivered since
    /// [`Panel::mark_saved`] (whoever started them: the user, the panel itself, or a project's
    /// `compute_on_open`). The window asks before throwing away more than
    /// [`LONG_COMPUTE`](crate::task::LONG_COMPUTE) of them.
    fn unsaved_compute_time(&self) -> std::time::Duration {
        std::time::Duration::ZERO
    }

    /// Takes the current state as the saved one (after a save or an open).
    fn mark_saved(&mut self) {}

    /// Which part of the pane is shown (saved with the panel).
    fn pane_view(&self) -> PaneView {
        PaneView::Panel
    }

    /// Shows `view` in the pane.
    fn set_pane_view(&mut self, _view: PaneView) {}

    /// Sets declared parameter `key` to `value` (e.g. `benchtop run --set`), refusing an
    /// unknown key or a value out of range.
    fn set_param(&mut self, key: &str, _value: f64) -> Result<(), String> {
        Err(format!(
            "`{key}`: {} declares no parameters",
            self.kind().name
        ))
    }

    /// The declared numeric parameters with their ranges, defaults and current values.
    fn declared_params(&self) -> Vec<DeclaredParam> {
        Vec::new()
    }

    /// The labels of the panel's tabs, in order.
    fn tab_labels(&self) -> Vec<&'static str> {
        Vec::new()
    }
}

/// A declared parameter as the shell and the command line list it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeclaredParam {
    /// The key.
    pub key: &'static str,
    /// Sentence-case label with the paper's symbol (with its group, e.g. `Monte Carlo: …`).
    pub label: String,
    /// Unit, empty for none.
    pub unit: &'static str,
    /// What it does.
    pub tooltip: &'static str,
    /// Smallest accepted value.
    pub min: f64,
    /// Largest accepted value.
    pub max: f64,
    /// Whether only whole numbers make sense.
    pub integer: bool,
    /// Whether sweeps may vary it.
    pub sweep: bool,
    /// The value of a new panel.
    pub default: f64,
    /// The value now.
    pub value: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_export_as_csv() {
        let table = DataTable {
            name: "t".into(),
            columns: vec!["r".into(), "g".into()],
            rows: vec![vec![0.0, 1.0], vec![1.0, 0.5]],
        };
        assert_eq!(table.to_csv().unwrap(), "r,g\n0,1\n1,0.5\n");
    }
}
