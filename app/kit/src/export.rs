//! Exporting a whole project: every figure (SVG, PNG, PDF with provenance), every data table
//! and sweep as CSV, and `summary.json` with each panel's key results.
//!
//! The bundle is collected on the UI thread (plain data) and written on a worker thread.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::Serialize;

use crate::figure::{ExportFormat, ExportOptions, Figure, Provenance, export_figure};
use crate::panel::{DataTable, Panel, PanelFigure};
use crate::project::PaneId;
use crate::sweep::{SweepDoc, SweepRun, to_csv};

/// What the binary is, for provenance and `summary.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildInfo {
    /// The app's version.
    pub app_version: &'static str,
    /// The git commit it was built from.
    pub git_commit: &'static str,
}

/// Everything to write, gathered from the open panels and sweeps.
#[derive(Clone, Debug)]
pub struct ExportBundle {
    /// The binary that writes it.
    pub build: BuildInfo,
    /// The project file, if saved.
    pub project: Option<PathBuf>,
    /// Per panel: folder name, title, kind, figures, tables and summary.
    pub panels: Vec<PanelExport>,
    /// Sweeps with their figures.
    pub sweeps: Vec<(SweepDoc, Figure)>,
}

/// One panel's share of an export.
#[derive(Clone, Debug)]
pub struct PanelExport {
    /// Folder name under the output folder, e.g. `1-ising`.
    pub folder: String,
    /// The tab title.
    pub title: String,
    /// The panel kind's id.
    pub kind: String,
    /// Its figures.
    pub figures: Vec<PanelFigure>,
    /// Its tables.
    pub tables: Vec<DataTable>,
    /// Its key results.
    pub summary: serde_json::Value,
}

/// What was written.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ExportReport {
    /// The folder everything was written under.
    pub root: PathBuf,
    /// Every file written, each once, in the order first written.
    pub files: Vec<PathBuf>,
}

impl ExportReport {
    /// Adds `written` to the files, skipping those already listed (a figure's provenance is
    /// written once per format, to one file).
    fn add(&mut self, written: impl IntoIterator<Item = PathBuf>) {
        for path in written {
            if !self.files.contains(&path) {
                self.files.push(path);
            }
        }
    }

    /// What the export did, for the user: `Exported 91 files to /out (figures, tables and
    /// summary.json in 3 folders)`.
    pub fn message(&self) -> String {
        let folders: std::collections::BTreeSet<&Path> =
            self.files.iter().filter_map(|f| f.parent()).collect();
        let count = self.files.len();
        format!(
            "Exported {count} file{} to {} ({} folder{})",
            if count == 1 { "" } else { "s" },
            self.root.display(),
            folders.len(),
            if folders.len() == 1 { "" } else { "s" },
        )
    }
}

impl ExportBundle {
    /// Collects figures, tables, summaries and sweeps from the open `panels` and `sweeps` of
    /// the project at `project`; only pane `only` and its sweeps when given.
    pub fn collect<'a>(
        build: BuildInfo,
        project: Option<PathBuf>,
        panels: impl IntoIterator<Item = (PaneId, &'a dyn Panel)>,
        sweeps: &[SweepRun],
        only: Option<PaneId>,
    ) -> Self {
        let wanted = |id: PaneId| only.is_none_or(|pane| pane == id);
        let panels: BTreeMap<PaneId, &dyn Panel> =
            panels.into_iter().filter(|(id, _)| wanted(*id)).collect();
        let sweeps = sweeps
            .iter()
            .filter(|run| wanted(run.doc.pane))
            .filter_map(|run| {
                let panel = panels.get(&run.doc.pane)?;
                let support = panel.sweep_support();
                Some((
                    run.doc.clone(),
                    crate::sweep::ui::sweep_figure(&run.doc, &support),
                ))
            })
            .collect();
        let panels = panels
            .iter()
            .map(|(id, panel)| PanelExport {
                folder: format!("{}-{}", id.0, panel.kind().id),
                title: panel.title(),
                kind: panel.kind().id.to_owned(),
                figures: panel.figures(),
                tables: panel.data_tables(),
                summary: panel.summary(),
            })
            .collect();
        Self {
            build,
            project,
            panels,
            sweeps,
        }
    }

    /// Writes everything under `out` (created if missing).
    pub fn write(
        &self,
        out: &Path,
        formats: &[ExportFormat],
        dpi: u32,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<ExportReport, ComputeError> {
        let io = |path: &Path, error: &dyn std::fmt::Display| {
            ComputeError::invalid("out", format!("{}: {error}", path.display()))
        };
        std::fs::create_dir_all(out).map_err(|e| io(out, &e))?;
        let mut report = ExportReport {
            root: out.to_path_buf(),
            files: Vec::new(),
        };
        let total: usize = self
            .panels
            .iter()
            .map(|p| p.figures.len() * formats.len())
            .sum::<usize>()
            + self.sweeps.len() * formats.len();
        let mut done = 0;
        for panel in &self.panels {
            let dir = out.join(&panel.folder);
            std::fs::create_dir_all(&dir).map_err(|e| io(&dir, &e))?;
            for item in &panel.figures {
                let provenance = Provenance {
                    project_path: self.project.clone(),
                    params: item.params.clone(),
                    seed: item.seed,
                    git_commit: Some(self.build.git_commit.to_owned()),
                    input_hashes: BTreeMap::new(),
                    ..Provenance::new(&panel.title, &item.name).engine(item.engine.0, item.engine.1)
                };
                for &format in formats {
                    cancel.check()?;
                    let path = dir.join(format!("{}.{}", item.name, format.extension()));
                    let options = ExportOptions {
                        format,
                        dpi,
                        ..ExportOptions::default()
                    };
                    let written = export_figure(&item.figure, &options, &provenance, &path)
                        .map_err(|e| io(&path, &e))?;
                    report.add(written);
                    done += 1;
                    progress.set(
                        fraction(done, total),
                        format!("{}: {}", panel.title, item.name),
                    );
                }
            }
            for table in &panel.tables {
                let path = dir.join(format!("{}.csv", table.name));
                let text = table.to_csv().map_err(|e| io(&path, &e))?;
                crate::project::write_atomic(&path, text.as_bytes()).map_err(|e| io(&path, &e))?;
                report.add([path]);
            }
        }
        if !self.sweeps.is_empty() {
            let dir = out.join("sweeps");
            std::fs::create_dir_all(&dir).map_err(|e| io(&dir, &e))?;
            for ((doc, figure), stem) in self.sweeps.iter().zip(self.sweep_stems()) {
                let path = dir.join(format!("{stem}.csv"));
                let text = to_csv(doc).map_err(|e| io(&path, &e))?;
                crate::project::write_atomic(&path, text.as_bytes()).map_err(|e| io(&path, &e))?;
                report.add([path]);
                let provenance = Provenance {
                    project_path: self.project.clone(),
                    params: serde_json::to_value(&doc.axes).unwrap_or_default(),
                    seed: Some(doc.base_seed),
                    git_commit: Some(self.build.git_commit.to_owned()),
                    ..Provenance::new(format!("sweep {}", doc.name), &stem)
                        .engine("benchtop sweep", self.build.app_version)
                };
                for &format in formats {
                    cancel.check()?;
                    let path = dir.join(format!("{stem}.{}", format.extension()));
                    let options = ExportOptions {
                        format,
                        dpi,
                        ..ExportOptions::default()
                    };
                    let written = export_figure(figure, &options, &provenance, &path)
                        .map_err(|e| io(&path, &e))?;
                    report.add(written);
                    done += 1;
                    progress.set(fraction(done, total), format!("sweep {}", doc.name));
                }
            }
        }
        let summary = self.summary_json();
        let path = out.join("summary.json");
        let text = serde_json::to_string_pretty(&summary).map_err(|e| io(&path, &e))?;
        crate::project::write_atomic(&path, text.as_bytes()).map_err(|e| io(&path, &e))?;
        report.add([path]);
        progress.set(1.0, "exported");
        Ok(report)
    }

    /// The file names (without extension) of the sweeps' exports: their names' slugs, made
    /// distinct (`beta`, `beta-2`) so that two sweeps never overwrite each other's files.
    pub fn sweep_stems(&self) -> Vec<String> {
        let mut taken = std::collections::BTreeSet::new();
        self.sweeps
            .iter()
            .map(|(doc, _)| {
                let base = slug(&doc.name);
                let mut stem = base.clone();
                let mut n = 2;
                while !taken.insert(stem.clone()) {
                    stem = format!("{base}-{n}");
                    n += 1;
                }
                stem
            })
            .collect()
    }

    /// The `summary.json` document.
    pub fn summary_json(&self) -> serde_json::Value {
        serde_json::json!({
            "project": self.project.as_ref().map(|p| p.display().to_string()),
            "app_version": self.build.app_version,
            "git_commit": self.build.git_commit,
            "panels": self.panels.iter().map(|panel| serde_json::json!({
                "folder": panel.folder,
                "kind": panel.kind,
                "title": panel.title,
                "summary": panel.summary,
            })).collect::<Vec<_>>(),
            "sweeps": self.sweeps.iter().zip(self.sweep_stems()).map(|((doc, _), stem)| serde_json::json!({
                "name": doc.name,
                "file": stem,
                "axes": doc.axes.iter().map(|a| a.param.clone()).collect::<Vec<_>>(),
                "outputs": doc.outputs,
                "points": doc.results.len(),
                "failed": doc.results.iter().filter(|p| p.error.is_some()).count(),
            })).collect::<Vec<_>>(),
        })
    }
}

fn fraction(done: usize, total: usize) -> f64 {
    if total == 0 {
        1.0
    } else {
        done as f64 / total as f64
    }
}

/// A file-name-safe version of `name`: lowercase letters, digits and dashes.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let trimmed = out.trim_end_matches('-');
    if trimmed.is_empty() {
        "unnamed".to_owned()
    } else {
        trimmed.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_counts_each_file_once_and_names_the_export_folder() {
        let root = PathBuf::from("/out");
        let mut report = ExportReport {
            root: root.clone(),
            files: Vec::new(),
        };
        for format in ["svg", "png"] {
            report.add([
                root.join(format!("1-ising/a.{format}")),
                root.join("1-ising/a.provenance.json"),
            ]);
        }
        report.add([root.join("summary.json")]);
        assert_eq!(report.files.len(), 4);
        assert_eq!(report.message(), "Exported 4 files to /out (2 folders)");
    }

    #[test]
    fn slugs_are_file_safe() {
        assert_eq!(
            slug("Binder crossing (L = 16, 32)"),
            "binder-crossing-l-16-32"
        );
        assert_eq!(slug("β/β*"), "unnamed");
    }
}
