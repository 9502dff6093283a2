//! The saved project: one human-readable RON file plus a sidecar folder for arrays.
//!
//! The file holds a `format_version`, the open panels with their parameters, seeds and view
//! settings, the dock layout, and the sweeps with their results. Larger computed results go to
//! `<stem>.data/` next to it (NPY), so a project folder can be zipped and shared. Writes are
//! atomic (temporary file + rename): a failed save leaves the old file intact. A failed load
//! names the file and the line or key, and leaves the open project untouched. A project file is
//! data only: nothing in it is ever executed.

mod atomic;
mod error;
mod generations;
mod sidecar;
mod unknown_keys;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use atomic::{TEMPORARY_PREFIX, write_atomic};
pub use error::ProjectError;
pub use generations::{SidecarSave, check_generation_name, sidecar_of, tidy};
pub use sidecar::Sidecar;

use crate::sweep::SweepDoc;

/// The format this build writes. Files with a larger number are refused with a clear message.
pub const FORMAT_VERSION: u32 = 1;

/// The file extension of project files.
pub const EXTENSION: &str = "ron";

/// Identifies one open panel within a project (stable across save and reopen).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct PaneId(pub u64);

/// One open panel: its id and its persisted state (`S`: the catalog's tagged union of every
/// panel kind's state).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PanelEntry<S> {
    /// The pane's id (used by the layout and by sweeps).
    pub id: PaneId,
    /// Parameters, seeds, view settings and small results.
    pub state: S,
}

/// One parameter value a preset sets: the pane, the declared parameter's key and the value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Override {
    /// The panel.
    pub pane: PaneId,
    /// The declared parameter, e.g. `mc.measurement_sweeps`.
    pub key: String,
    /// Its value.
    pub value: f64,
}

/// A sweep axis whose grid a preset replaces (e.g. fewer points at the test size).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GridOverride {
    /// The sweep's name.
    pub sweep: String,
    /// The axis (0 or 1).
    pub axis: usize,
    /// Its values.
    pub grid: crate::sweep::GridSpec,
}

/// A named set of changes applied on top of a project (`benchtop run --preset NAME`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Preset {
    /// Declared parameter values.
    pub set: Vec<Override>,
    /// Sweep grids.
    pub grids: Vec<GridOverride>,
}

/// Everything a project file holds; `S` is the catalog's tagged union of panel states.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(
    default,
    bound(serialize = "S: Serialize", deserialize = "S: Deserialize<'de>")
)]
pub struct ProjectDoc<S> {
    /// The file format version ([`FORMAT_VERSION`] when written by this build).
    pub format_version: u32,
    /// The app version that wrote the file (informative).
    pub app_version: String,
    /// The open panels.
    pub panels: Vec<PanelEntry<S>>,
    /// The dock layout (tabs and splits); `None` lays the panels out as tabs.
    pub layout: Option<egui_tiles::Tree<PaneId>>,
    /// Parameter sweeps with their results.
    pub sweeps: Vec<SweepDoc>,
    /// Named sets of parameter values applied on top of the panels' own
    /// (`benchtop run --preset NAME`); `test` is the size the test suite runs the project at.
    pub presets: BTreeMap<String, Preset>,
    /// The folder inside `<stem>.data/` that holds this save's arrays (each save writes a new
    /// one, then switches this name atomically); `None`: the arrays lie directly in
    /// `<stem>.data/` (projects saved before folders were versioned).
    pub sidecar_folder: Option<String>,
    /// Whether the window computes what the panels' headless runs compute when the project
    /// opens and a panel has no results yet (examples and the tour set it, so that they open
    /// showing the paper's point); the computation starts when the panel is first shown.
    pub compute_on_open: bool,
}

impl<S> Default for ProjectDoc<S> {
    fn default() -> Self {
        Self {
            format_version: FORMAT_VERSION,
            app_version: env!("CARGO_PKG_VERSION").to_owned(),
            panels: Vec::new(),
            layout: None,
            sweeps: Vec::new(),
            presets: BTreeMap::new(),
            sidecar_folder: None,
            compute_on_open: false,
        }
    }
}

impl<S: PartialEq> PartialEq for ProjectDoc<S> {
    fn eq(&self, other: &Self) -> bool {
        // `app_version` records who wrote the file; it is not part of the project's content.
        // Layouts compare structurally: their serialised form lists tiles in hash order.
        self.format_version == other.format_version
            && self.panels == other.panels
            && self.sweeps == other.sweeps
            && self.layout == other.layout
            && self.presets == other.presets
    }
}

#[derive(Deserialize)]
struct Header {
    #[serde(default)]
    format_version: u32,
    #[serde(default)]
    sidecar_folder: Option<String>,
}

/// The sidecar holding the arrays of the project file at `path`, as the file names it.
pub fn saved_sidecar(path: &Path) -> Result<Sidecar, ProjectError> {
    let text = read_project_text(path)?;
    let header = Header::parse(without_bom(&text), path)?;
    check_sidecar_folder(header.sidecar_folder.as_deref(), path)?;
    Ok(sidecar_of(path, header.sidecar_folder.as_deref()))
}

impl Header {
    /// The header of project text; text that is not a RON struct at all (another kind of file,
    /// a garbled start) says it is not a project, instead of naming an internal type.
    fn parse(text: &str, path: &Path) -> Result<Self, ProjectError> {
        ron::from_str(text).map_err(|error| {
            let starts_as_project = text
                .lines()
                .map(str::trim)
                .find(|line| !line.is_empty() && !line.starts_with("//"))
                .is_some_and(|line| line.starts_with('('));
            if starts_as_project {
                ProjectError::syntax(path, &error, None)
            } else {
                ProjectError::NotAProject {
                    path: path.to_path_buf(),
                    detail: format!(
                        "line {}, column {}",
                        error.span.start.line, error.span.start.col
                    ),
                }
            }
        })
    }
}

/// The largest project file read (its arrays live in the sidecar).
pub const MAX_PROJECT_BYTES: u64 = 64 * 1024 * 1024;

/// The text of the project file `path`: a regular file (a FIFO is refused rather than waited
/// on) of at most [`MAX_PROJECT_BYTES`].
fn read_project_text(path: &Path) -> Result<String, ProjectError> {
    benchtop_compute::files::read_text(path, MAX_PROJECT_BYTES).map_err(|error| ProjectError::Io {
        path: path.to_path_buf(),
        error: std::io::Error::other(
            error
                .to_string()
                .trim_start_matches(&format!("{}: ", path.display()))
                .to_owned(),
        ),
    })
}

/// The text after a byte-order mark (some editors on Windows write one).
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Refuses a sidecar folder name that is not a generation folder inside `<stem>.data/`.
fn check_sidecar_folder(folder: Option<&str>, path: &Path) -> Result<(), ProjectError> {
    match folder {
        Some(name) => check_generation_name(name).map_err(|message| ProjectError::Value {
            path: path.to_path_buf(),
            key: "sidecar_folder".to_owned(),
            message,
        }),
        None => Ok(()),
    }
}

impl<S: Serialize + serde::de::DeserializeOwned> ProjectDoc<S> {
    /// Parses project text; `path` is only used in error messages. A byte-order mark is
    /// skipped; a key the format does not know is refused, naming the closest known key.
    pub fn parse(text: &str, path: &Path) -> Result<Self, ProjectError> {
        let text = without_bom(text);
        let header = Header::parse(text, path)?;
        if header.format_version > FORMAT_VERSION {
            return Err(ProjectError::NewerFormat {
                path: path.to_path_buf(),
                found: header.format_version,
                supported: FORMAT_VERSION,
            });
        }
        let mut deserializer = ron::Deserializer::from_str(text)
            .map_err(|error| ProjectError::syntax(path, &error, None))?;
        let mut unknown = Vec::new();
        let mut note_unknown =
            |ignored: serde_ignored::Path<'_>| unknown.push(unknown_keys::steps(&ignored));
        let ignoring = serde_ignored::Deserializer::new(&mut deserializer, &mut note_unknown);
        let doc: Self = serde_path_to_error::deserialize(ignoring).map_err(|error| {
            let key = error.path().to_string();
            let spanned = deserializer.span_error(error.into_inner());
            ProjectError::syntax(path, &spanned, Some(key))
        })?;
        if let Some(steps) = unknown.first() {
            return Err(unknown_keys::error(path, text, steps, &doc));
        }
        check_sidecar_folder(doc.sidecar_folder.as_deref(), path)?;
        Ok(migrate(doc))
    }

    /// Reads and parses a project file.
    pub fn load(path: &Path) -> Result<Self, ProjectError> {
        let text = read_project_text(path)?;
        Self::parse(&text, path)
    }

    /// The RON text of this project.
    pub fn to_text(&self) -> Result<String, ProjectError> {
        let config = ron::ser::PrettyConfig::new()
            .depth_limit(8)
            .struct_names(false)
            .separate_tuple_members(false)
            .compact_arrays(true);
        ron::ser::to_string_pretty(self, config).map_err(|error| ProjectError::Serialize {
            message: error.to_string(),
        })
    }

    /// Writes the project atomically.
    pub fn save(&self, path: &Path) -> Result<(), ProjectError> {
        let text = self.to_text()?;
        write_atomic(path, text.as_bytes()).map_err(|error| ProjectError::Io {
            path: path.to_path_buf(),
            error,
        })
    }
}

/// Brings an older document up to [`FORMAT_VERSION`]. Version 0 (no version key) and 1 share
/// one layout, so the only step is stamping the version.
fn migrate<S>(mut doc: ProjectDoc<S>) -> ProjectDoc<S> {
    if doc.format_version < FORMAT_VERSION {
        log::info!(
            "migrating project from format {} to {FORMAT_VERSION}",
            doc.format_version
        );
        doc.format_version = FORMAT_VERSION;
    }
    doc
}

/// The sidecar folder of a project file: `dir/name.ron` → `dir/name.data`.
pub fn sidecar_dir(project_path: &Path) -> PathBuf {
    // Through a symbolic link the project file is its target (writes replace the target), so
    // its arrays lie beside the target too, whether it is opened or saved through the link.
    let project_path =
        &atomic::resolve_links(project_path).unwrap_or_else(|_| project_path.to_path_buf());
    let stem = project_path
        .file_stem()
        .map_or_else(|| "project".into(), |s| s.to_os_string());
    let mut name = stem;
    name.push(".data");
    project_path.with_file_name(name)
}

/// A data file referenced by a project, stored relative to the project file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DataRef {
    /// Path relative to the project file's folder (absolute paths are kept as given).
    pub path: String,
    /// SHA-256 of the file when it was chosen, to notice changed inputs.
    pub sha256: Option<String>,
}

impl DataRef {
    /// The absolute path, resolved against the project folder.
    pub fn resolve(&self, project_dir: Option<&Path>) -> PathBuf {
        let path = Path::new(&self.path);
        match project_dir {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_format_is_refused_with_the_file_name() {
        let error =
            ProjectDoc::<()>::parse("(format_version: 99)", Path::new("future.ron")).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("future.ron") && message.contains("99"),
            "{message}"
        );
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let text = "(\n  format_version: 1,\n  panels: [ oops ],\n)";
        let message = ProjectDoc::<()>::parse(text, Path::new("bad.ron"))
            .unwrap_err()
            .to_string();
        assert!(message.contains("bad.ron:3"), "{message}");
    }

    #[test]
    fn unknown_keys_are_refused_with_the_closest_known_one() {
        let text = "\u{feff}(\n  format_version: 1,\n  presets: {\"test\": (sett: [])},\n)";
        let message = ProjectDoc::<()>::parse(text, Path::new("typo.ron"))
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("typo.ron:3")
                && message.contains("`presets.test.sett`")
                && message.contains("did you mean `set`"),
            "{message}"
        );
        let message =
            ProjectDoc::<()>::parse("(sidecar_folder: Some(\"../x\"))", Path::new("p.ron"))
                .unwrap_err()
                .to_string();
        assert!(message.contains("sidecar_folder"), "{message}");
    }

    #[test]
    fn empty_project_round_trips() {
        let doc = ProjectDoc::<()>::default();
        let text = doc.to_text().unwrap();
        assert_eq!(ProjectDoc::parse(&text, Path::new("x.ron")).unwrap(), doc);
    }

    #[test]
    fn sidecar_sits_next_to_the_file() {
        assert_eq!(
            sidecar_dir(Path::new("/a/b/run.ron")),
            PathBuf::from("/a/b/run.data")
        );
        let data = DataRef {
            path: "in/x.nc".into(),
            sha256: None,
        };
        assert_eq!(
            data.resolve(Some(Path::new("/p"))),
            PathBuf::from("/p/in/x.nc")
        );
    }
}
