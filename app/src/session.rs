//! The open project: its panels, sweeps and layout, and the conversions to and from the file.
//!
//! Used by the window (shell) and by the headless runner alike, so both read and write
//! projects the same way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use benchtop_kit::compute::Progress;

use anyhow::Context as _;
use benchtop_kit::export::ExportBundle;
use benchtop_kit::jobs::JobBoard;
use benchtop_kit::panel::{Panel, PanelKind};
use benchtop_kit::project::{PaneId, Preset, ProjectError, Sidecar, SidecarSave, sidecar_of};
use benchtop_kit::sweep::{SweepRun, run_sweep, start_sweep_run};

use crate::catalog::{self, PanelEntry, ProjectDoc};

/// The open project.
pub struct Session {
    /// The project file, once saved or opened.
    pub path: Option<PathBuf>,
    /// Open panels by id.
    pub panels: BTreeMap<PaneId, Box<dyn Panel>>,
    /// Sweeps, each belonging to a panel.
    pub sweeps: Vec<SweepRun>,
    /// The dock layout.
    pub layout: egui_tiles::Tree<PaneId>,
    /// Named sets of changes (`benchtop run --preset`).
    pub presets: BTreeMap<String, Preset>,
    /// Whether the project asks the window to compute missing results when it opens
    /// (`compute_on_open` in the file; the examples and the tour set it).
    pub compute_on_open: bool,
    /// Whether that has still to be done (see [`Session::compute_missing_on_open`]).
    open_computation_pending: bool,
    /// The sidecar the panels' saved arrays were read from (or last written to).
    sidecar: Option<Sidecar>,
    next_id: u64,
}

impl Default for Session {
    fn default() -> Self {
        Self::new()
    }
}

impl Session {
    /// An empty project.
    pub fn new() -> Self {
        Self {
            path: None,
            panels: BTreeMap::new(),
            sweeps: Vec::new(),
            layout: egui_tiles::Tree::empty(egui::Id::unique("benchtop_dock")),
            presets: BTreeMap::new(),
            compute_on_open: false,
            open_computation_pending: false,
            sidecar: None,
            next_id: 1,
        }
    }

    /// Opens a project file, first removing what an interrupted save left next to it.
    pub fn open(path: &Path) -> Result<Self, ProjectError> {
        let doc = ProjectDoc::load(path)?;
        benchtop_kit::project::tidy(path, doc.sidecar_folder.as_deref());
        Self::from_doc(doc, Some(path))
    }

    /// Builds the session from a parsed document; `path` locates the sidecar and names errors.
    pub fn from_doc(doc: ProjectDoc, path: Option<&Path>) -> Result<Self, ProjectError> {
        let shown = path.map_or_else(|| PathBuf::from("(unsaved project)"), Path::to_path_buf);
        let sidecar = path.map(|p| sidecar_of(p, doc.sidecar_folder.as_deref()));
        let mut panels = BTreeMap::new();
        for entry in doc.panels {
            if panels.contains_key(&entry.id) {
                return Err(ProjectError::Invalid {
                    path: shown,
                    panel: format!("#{}", entry.id.0),
                    key: "panels[].id".to_owned(),
                    message: format!(
                        "two panels have the id {}; every panel needs its own",
                        entry.id.0
                    ),
                });
            }
            let scoped = sidecar.as_ref().map(|s| s.scoped(&pane_prefix(entry.id)));
            let mut panel = catalog::restore(entry.state, scoped.as_ref()).map_err(|error| {
                ProjectError::Invalid {
                    path: shown.clone(),
                    panel: format!("#{}", entry.id.0),
                    key: "state".to_owned(),
                    message: format!("{error:#}"),
                }
            })?;
            panel.set_project_dir(path.and_then(Path::parent));
            if let Some(issue) = panel.validate().into_iter().next() {
                return Err(ProjectError::Invalid {
                    path: shown,
                    panel: panel.title(),
                    key: issue.key,
                    message: issue.message,
                });
            }
            panels.insert(entry.id, panel);
        }
        for sweep in &doc.sweeps {
            if !panels.contains_key(&sweep.pane) {
                return Err(ProjectError::Invalid {
                    path: shown,
                    panel: format!("#{}", sweep.pane.0),
                    key: format!("sweeps[{}].pane", sweep.name),
                    message: "the sweep refers to a panel that is not in the project".to_owned(),
                });
            }
            if let Err((key, message)) = sweep.check_saved() {
                return Err(ProjectError::Invalid {
                    path: shown,
                    panel: format!("#{}", sweep.pane.0),
                    key: format!("sweeps[{}].{key}", sweep.name),
                    message,
                });
            }
        }
        let next_id = panels.keys().map(|id| id.0 + 1).max().unwrap_or(1);
        let layout = match doc.layout {
            Some(tree) if layout_matches(&tree, &panels) => tree,
            _ => egui_tiles::Tree::new_tabs(
                egui::Id::unique("benchtop_dock"),
                panels.keys().copied().collect(),
            ),
        };
        Ok(Self {
            path: path.map(Path::to_path_buf),
            panels,
            sweeps: doc.sweeps.into_iter().map(SweepRun::new).collect(),
            layout,
            presets: doc.presets,
            compute_on_open: doc.compute_on_open,
            open_computation_pending: doc.compute_on_open,
            sidecar,
            next_id,
        })
    }

    /// Once after opening a project with `compute_on_open`: every panel without results queues
    /// what its headless run computes (started in the window when the panel is shown).
    pub fn compute_missing_on_open(&mut self) {
        if std::mem::take(&mut self.open_computation_pending) {
            for panel in self.panels.values_mut() {
                panel.compute_missing();
            }
        }
    }

    /// Why panels' saved results could not be restored, one line per panel (e.g. a sidecar
    /// array is missing); such results stay in the file until recomputed.
    pub fn restore_warnings(&self) -> Vec<String> {
        self.panels
            .iter()
            .filter_map(|(id, panel)| {
                panel
                    .restore_warning()
                    .map(|reason| format!("panel #{} ({}): {reason}", id.0, panel.title()))
            })
            .collect()
    }

    /// The document for this session; panel arrays go to `sidecar` when given.
    pub fn to_doc(&self, sidecar: Option<&Sidecar>) -> anyhow::Result<ProjectDoc> {
        let mut panels = Vec::new();
        for (&id, panel) in &self.panels {
            panels.push(PanelEntry {
                id,
                state: catalog::save(
                    panel.as_ref(),
                    sidecar.map(|s| s.scoped(&pane_prefix(id))).as_ref(),
                )?,
            });
        }
        Ok(ProjectDoc {
            panels,
            layout: Some(self.layout.clone()),
            sweeps: self.sweeps.iter().map(|run| run.doc.clone()).collect(),
            presets: self.presets.clone(),
            compute_on_open: self.compute_on_open,
            ..ProjectDoc::default()
        })
    }

    /// The project text without touching the disk (for change detection).
    pub fn to_text(&self) -> anyhow::Result<String> {
        Ok(self.to_doc(None)?.to_text()?)
    }

    /// Saves to `path` and remembers the path. The arrays go to a new sidecar folder (with
    /// the entries of open panels that the panels do not rewrite carried over from the old
    /// one); the project file then switches to it in one atomic rename. Interrupted at any
    /// point, the previous project file and its arrays stay whole.
    pub fn save_as(&mut self, path: &Path) -> anyhow::Result<()> {
        let open: Vec<String> = self.panels.keys().map(|id| pane_prefix(*id)).collect();
        // `cluster/` holds the project's Slurm job folders (crate::cluster), never sidecar data:
        // a project whose arrays still lie loose in `<stem>.data/` must not carry it along.
        let carried = |name: &str| {
            name != crate::cluster::folder::CLUSTER_DIR
                && (!is_pane_entry(name) || open.iter().any(|p| name.starts_with(p)))
        };
        let save = SidecarSave::begin(path, self.sidecar.as_ref(), carried)?;
        let mut doc = self.to_doc(Some(&save.sidecar()))?;
        doc.sidecar_folder = Some(save.name().to_owned());
        let text = doc.to_text()?;
        let sidecar = save.sidecar();
        save.commit(path, text.as_bytes())?;
        for panel in self.panels.values_mut() {
            panel.sidecar_moved(&sidecar);
        }
        self.sidecar = Some(sidecar);
        self.path = Some(path.to_path_buf());
        Ok(())
    }

    /// Applies preset `name`: sets each of its parameters through the panel's declaration and
    /// replaces the sweep grids it names (their results go, being for another grid).
    pub fn apply_preset(&mut self, name: &str) -> anyhow::Result<()> {
        let Some(preset) = self.presets.get(name).cloned() else {
            let known: Vec<&str> = self.presets.keys().map(String::as_str).collect();
            anyhow::bail!(
                "there is no preset `{name}` (the project has: {})",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            );
        };
        for item in preset.set {
            self.set_param(item.pane, &item.key, item.value)
                .with_context(|| format!("preset `{name}`"))?;
        }
        for item in preset.grids {
            let run = self
                .sweeps
                .iter_mut()
                .find(|run| run.doc.name == item.sweep)
                .ok_or_else(|| {
                    anyhow::anyhow!("preset `{name}`: there is no sweep `{}`", item.sweep)
                })?;
            let axis = run.doc.axes.get_mut(item.axis).ok_or_else(|| {
                anyhow::anyhow!(
                    "preset `{name}`: sweep `{}` has no axis {}",
                    item.sweep,
                    item.axis
                )
            })?;
            axis.grid = item.grid;
            run.doc.results.clear();
        }
        Ok(())
    }

    /// Sets the declared parameter `key` of panel `pane` to `value`.
    pub fn set_param(&mut self, pane: PaneId, key: &str, value: f64) -> anyhow::Result<()> {
        let panel = self
            .panels
            .get_mut(&pane)
            .ok_or_else(|| anyhow::anyhow!("there is no panel #{} in the project", pane.0))?;
        panel
            .set_param(key, value)
            .map_err(|message| anyhow::anyhow!("panel #{} ({}): {message}", pane.0, panel.title()))
    }

    /// Opens a new panel of `kind` as a tab and returns its id (`None` for a kind that is
    /// not in the catalog).
    pub fn add_panel(&mut self, kind: &PanelKind) -> Option<PaneId> {
        let panel = catalog::create(kind)?;
        let id = PaneId(self.next_id);
        self.next_id += 1;
        self.panels.insert(id, panel);
        let tile = self.layout.tiles.insert_pane(id);
        match self.layout.root() {
            Some(root) => {
                if let Some(egui_tiles::Tile::Container(container)) =
                    self.layout.tiles.get_mut(root)
                {
                    container.add_child(tile);
                } else {
                    let tabs = self.layout.tiles.insert_tab_tile(vec![root, tile]);
                    self.layout.root = Some(tabs);
                }
            }
            None => self.layout.root = Some(tile),
        }
        self.layout
            .make_active(|_, t| matches!(t, egui_tiles::Tile::Pane(pane) if *pane == id));
        Some(id)
    }

    /// Closes a panel, cancelling its jobs and dropping its sweeps.
    pub fn close_panel(&mut self, id: PaneId) {
        self.panels.remove(&id);
        self.sweeps.retain(|run| run.doc.pane != id);
        if let Some(tile) = self.layout.tiles.find_pane(&id) {
            self.layout.remove_recursively(tile);
        }
    }

    /// Collects job results of every panel and sweep.
    pub fn poll(&mut self) {
        for panel in self.panels.values_mut() {
            panel.poll();
        }
        for run in &mut self.sweeps {
            run.poll();
        }
    }

    /// Whether any panel or sweep is computing.
    pub fn is_busy(&self) -> bool {
        self.panels.values().any(|p| p.is_busy()) || self.sweeps.iter().any(SweepRun::is_busy)
    }

    /// Everything to export: every panel and sweep, or only pane `only` and its sweeps.
    pub fn export_bundle(&self, only: Option<PaneId>) -> ExportBundle {
        ExportBundle::collect(
            crate::build_info::BUILD,
            self.path.clone(),
            self.panels.iter().map(|(id, panel)| (*id, panel.as_ref())),
            &self.sweeps,
            only,
        )
    }

    /// Starts computing the missing points of sweep `index` in the background.
    pub fn start_sweep(&mut self, index: usize, board: &JobBoard, repaint: Option<egui::Context>) {
        let Some(run) = self.sweeps.get_mut(index) else {
            return;
        };
        let Some(panel) = self.panels.get(&run.doc.pane) else {
            run.error = Some("the sweep's panel is closed".to_owned());
            return;
        };
        start_sweep_run(run, &panel.sweep_support(), board, repaint);
    }

    /// Runs sweep `index` to completion on this thread (headless use).
    pub fn run_sweep_blocking(
        &mut self,
        index: usize,
        progress: &Progress,
        cancel: &benchtop_kit::compute::CancelToken,
    ) -> anyhow::Result<()> {
        let run = self
            .sweeps
            .get_mut(index)
            .ok_or_else(|| anyhow::anyhow!("no sweep {index}"))?;
        let panel = self
            .panels
            .get(&run.doc.pane)
            .ok_or_else(|| anyhow::anyhow!("sweep `{}`: its panel is not open", run.doc.name))?;
        let support = panel.sweep_support();
        run.doc.validate(&support).map_err(anyhow::Error::msg)?;
        if !run.doc.is_current(&support) {
            run.doc.results.clear();
            run.doc.fingerprint = support.fingerprint.clone();
        }
        let doc = run.doc.clone();
        let mut points = Vec::new();
        run_sweep(
            &doc,
            support.evaluator.as_ref(),
            progress,
            cancel,
            |point| points.push(point),
        )?;
        run.doc.results.extend(points);
        Ok(())
    }
}

/// The prefix of the sidecar names a pane writes, e.g. `3-`.
fn pane_prefix(id: PaneId) -> String {
    format!("{}-", id.0)
}

/// Whether a sidecar entry was written by a pane (`3-ising-series.npy`).
fn is_pane_entry(name: &str) -> bool {
    name.split_once('-')
        .is_some_and(|(id, _)| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
}

fn layout_matches(
    tree: &egui_tiles::Tree<PaneId>,
    panels: &BTreeMap<PaneId, Box<dyn Panel>>,
) -> bool {
    let in_tree: Vec<PaneId> = tree
        .tiles
        .iter()
        .filter_map(|(_, tile)| match tile {
            egui_tiles::Tile::Pane(id) => Some(*id),
            egui_tiles::Tile::Container(_) => None,
        })
        .collect();
    in_tree.len() == panels.len() && in_tree.iter().all(|id| panels.contains_key(id))
}
