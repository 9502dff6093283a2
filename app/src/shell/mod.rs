//! The window: menus, docked panels, catalog, status bar, dialogs and the command palette.
//!
//! [`BenchtopApp`] owns the open [`Session`] and the UI preferences. Every user action goes
//! through [`Command`] (menus, shortcuts and the palette alike) or through a panel's own UI.

mod actions;
mod catalog;
mod changes;
mod cluster;
mod dialogs;
mod dock;
mod menu;
mod open_sweeps;
pub mod prefs;
pub mod recovery;
mod status_bar;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use benchtop_kit::compute::backends::BackendReport;

use crate::commands::Command;
use crate::session::Session;
pub use actions::Step;
use benchtop_kit::jobs::{Job, JobBoard, JobOutcome};
use benchtop_kit::project::PaneId;
use benchtop_kit::sweep::ui::SweepForms;
pub use dialogs::{ExportDialog, FileModal, FilePurpose, Modal, PendingAction};
pub use prefs::Prefs;
pub use recovery::{RECOVERY_FILE, Recovery};

/// The key under which preferences live in eframe's storage.
pub const PREFS_KEY: &str = "benchtop_prefs";

/// The app id: the window's and the storage folder's name.
pub const APP_ID: &str = "benchtop";

/// The tour project, embedded so the window can always open it.
pub const TOUR_PROJECT: &str = include_str!("../../../projects/tour.ron");

/// How often the window looks at running jobs while nothing else wakes it.
const JOB_POLL: Duration = Duration::from_millis(100);

/// A message shown at the top of the window until dismissed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The text.
    pub text: String,
    /// Whether it reports an error (else information).
    pub is_error: bool,
    /// Work kept from an earlier session, which the notice offers to open or delete.
    pub recovered: Option<PathBuf>,
}

/// The workbench window.
pub struct BenchtopApp {
    /// The open project.
    pub session: Session,
    /// UI preferences.
    pub prefs: Prefs,
    /// Running jobs, for the status bar.
    pub jobs: JobBoard,
    /// Messages at the top of the window.
    pub notices: Vec<Notice>,
    /// The dialog on top, if any.
    pub modal: Option<Modal>,
    /// Where unsaved work is autosaved (off unless set, e.g. by the real window).
    pub recovery: Recovery,
    /// Whether a project that asks for it computes its missing results when it opens (on in
    /// the window; tests that do not look at those results turn it off).
    pub compute_on_open: bool,
    /// Results that are not saved and took longer than this to compute, whoever started them,
    /// are unsaved changes: quitting or opening another project asks first
    /// ([`LONG_COMPUTE`](benchtop_kit::task::LONG_COMPUTE); tests set their own).
    pub long_compute: Duration,
    /// The sweeps the open project computes on open.
    open_sweeps: open_sweeps::OpenSweeps,
    saved: changes::SavedShape,
    dirty: bool,
    /// The recovery file the open project came from: unsaved until saved elsewhere.
    recovered_from: Option<PathBuf>,
    focused: Option<PaneId>,
    edit_counts: BTreeMap<PaneId, u64>,
    title: Option<String>,
    toast: Option<status_bar::Toast>,
    palette: Option<String>,
    backend_job: Option<Job<(), BackendReport>>,
    backend: Option<BackendReport>,
    shared_gpu: bool,
    render_state: Option<eframe::egui_wgpu::RenderState>,
    export_job: Option<Job<(), benchtop_kit::export::ExportReport>>,
    sweep_forms: SweepForms,
    quit_confirmed: bool,
    /// The open project's sweep jobs on a Slurm cluster (the Sweeps view's "Run on").
    pub cluster: crate::cluster::watch::ClusterWatch,
}

impl BenchtopApp {
    /// A window over `session` with default preferences and no storage (tests, headless).
    pub fn new(mut session: Session) -> Self {
        let saved = changes::SavedShape::mark(&mut session);
        let open_sweeps = open_sweeps::OpenSweeps::new(&session);
        Self {
            session,
            prefs: Prefs::default(),
            jobs: JobBoard::new(),
            notices: Vec::new(),
            modal: None,
            recovery: Recovery::off(),
            compute_on_open: true,
            long_compute: benchtop_kit::task::LONG_COMPUTE,
            open_sweeps,
            saved,
            dirty: false,
            recovered_from: None,
            focused: None,
            edit_counts: BTreeMap::new(),
            title: None,
            toast: None,
            palette: None,
            backend_job: None,
            backend: None,
            shared_gpu: false,
            render_state: None,
            export_job: None,
            sweep_forms: SweepForms::default(),
            quit_confirmed: false,
            cluster: crate::cluster::watch::ClusterWatch::default(),
        }
    }

    /// The window as eframe creates it: shares the renderer's GPU with the engines, restores
    /// preferences and opens `open` (else the last project, else the tour).
    pub fn from_creation_context(cc: &eframe::CreationContext<'_>, open: Option<PathBuf>) -> Self {
        let shared_gpu = cc.wgpu_render_state.as_ref().is_some_and(|state| {
            benchtop_kit::compute::gpu::install(
                state.device.clone(),
                state.queue.clone(),
                state.adapter.get_info(),
            )
        });
        let prefs: Prefs = cc
            .storage
            .and_then(|storage| eframe::get_value(storage, PREFS_KEY))
            .unwrap_or_default();
        benchtop_kit::figure::install_figure_font(&cc.egui_ctx);
        let mut app = Self::new(Session::new());
        app.prefs = prefs;
        app.shared_gpu = shared_gpu;
        app.render_state = if shared_gpu {
            cc.wgpu_render_state.clone()
        } else {
            None
        };
        if let Some(state) = &app.render_state {
            // Engines submit compute work from their own threads on this device. wgpu reports
            // a surface reconfiguration (window resize) that overlaps such a submission as an
            // error, and by default errors abort the process. Log them instead: egui-wgpu
            // reconfigures the surface on the next frame.
            state
                .device
                .on_uncaptured_error(std::sync::Arc::new(|error| {
                    log::error!("wgpu: {error}");
                }));
        }
        log::info!("engines share the window's GPU device: {shared_gpu}");
        app.start_backend_probe(Some(cc.egui_ctx.clone()));
        app.recovery = Recovery::in_storage(APP_ID);
        app.offer_previous_recovery();
        let target = open.or_else(|| app.prefs.recent.first().filter(|p| p.exists()).cloned());
        match target {
            Some(path) => app.open_path(&path),
            None => app.open_tour(),
        }
        app
    }

    /// Shows a notice offering the work an earlier session left in the recovery file (moved
    /// aside first, so this session's autosaves do not overwrite it).
    pub fn offer_previous_recovery(&mut self) {
        if let Some(kept) = self.recovery.take_previous() {
            self.notices.push(Notice {
                text: format!(
                    "Unsaved work from an earlier session was kept in {}.",
                    kept.display()
                ),
                is_error: false,
                recovered: Some(kept),
            });
        }
    }

    /// Probes compute backends on a worker thread (creating a GPU device can take a moment).
    pub fn start_backend_probe(&mut self, repaint: Option<egui::Context>) {
        match Job::spawn("backend probe", &self.jobs, repaint, |_| {
            Ok(BackendReport::probe())
        }) {
            Ok(job) => self.backend_job = Some(job),
            Err(error) => self.notify_error(format!("could not probe compute backends: {error}")),
        }
    }

    /// Whether the project has changes that are not saved (as of the last frame).
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// The pane that Edit › Undo and Redo act on: the one the user edited, clicked or chose
    /// last while it is shown, else the first one shown; never a hidden one.
    pub fn focused_pane(&self) -> Option<PaneId> {
        let layout = &self.session.layout;
        let shown: Vec<PaneId> = layout
            .active_tiles()
            .into_iter()
            .filter_map(|tile| layout.tiles.get_pane(&tile).copied())
            .filter(|id| self.session.panels.contains_key(id))
            .collect();
        self.focused
            .filter(|id| shown.contains(id))
            .or_else(|| shown.first().copied())
    }

    /// Adds an error message at the top of the window (and to the log).
    pub fn notify_error(&mut self, text: impl Into<String>) {
        let text = text.into();
        log::warn!("{text}");
        self.notices.push(Notice {
            text,
            is_error: true,
            recovered: None,
        });
    }

    /// Adds an information message at the top of the window.
    pub fn notify(&mut self, text: impl Into<String>) {
        self.notices.push(Notice {
            text: text.into(),
            is_error: false,
            recovered: None,
        });
    }

    fn refresh_dirty(&mut self) {
        self.dirty = self.recovered_from.is_some()
            || self.saved.has_changes(&self.session)
            || self.unsaved_compute_time() > self.long_compute;
    }

    /// How long the results that are not saved took to compute: every panel's, whoever started
    /// them, and the sweeps computed on open.
    pub fn unsaved_compute_time(&self) -> Duration {
        self.session
            .panels
            .values()
            .map(|panel| panel.unsaved_compute_time())
            .sum::<Duration>()
            + self.open_sweeps.unsaved_compute_time()
    }

    /// Marks the current state as saved (after a save or a load).
    fn mark_saved(&mut self) {
        self.open_sweeps.mark_saved();
        self.saved = changes::SavedShape::mark(&mut self.session);
        self.edit_counts.clear();
        self.dirty = false;
    }

    fn window_title(&self) -> String {
        let name = self
            .session
            .path
            .as_ref()
            .and_then(|p| p.file_name())
            .map_or_else(
                || "untitled".to_owned(),
                |n| n.to_string_lossy().into_owned(),
            );
        format!("{}{name} — Benchtop", if self.dirty { "● " } else { "" })
    }

    /// Sends the window title when it changed (every viewport command wakes the window for
    /// another frame, so sending it each frame would redraw forever).
    fn update_title(&mut self, ctx: &egui::Context) {
        let title = self.window_title();
        if self.title.as_ref() != Some(&title) {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = Some(title);
        }
    }

    /// Focuses the pane whose parameters the user edited since the last frame.
    fn follow_edits(&mut self) {
        self.edit_counts
            .retain(|id, _| self.session.panels.contains_key(id));
        for (id, panel) in &self.session.panels {
            let count = panel.edit_count();
            if self
                .edit_counts
                .insert(*id, count)
                .is_some_and(|old| old != count)
            {
                self.focused = Some(*id);
            }
        }
    }

    fn poll_jobs(&mut self) {
        self.session.poll();
        if let Some(job) = &mut self.backend_job
            && let Some(outcome) = job.try_finish()
        {
            if let JobOutcome::Finished(report) = outcome {
                self.backend = Some(report);
            }
            self.backend_job = None;
        }
        if let Some(job) = &mut self.export_job
            && let Some(outcome) = job.try_finish()
        {
            self.export_job = None;
            match outcome {
                JobOutcome::Finished(report) => self.notify(report.message()),
                JobOutcome::Cancelled => self.notify("export cancelled"),
                JobOutcome::Failed(message) => {
                    self.notify_error(format!("export failed: {message}"));
                }
            }
        }
    }

    /// Whether anything computes in the background (the window then polls it).
    fn is_busy(&self) -> bool {
        self.session.is_busy() || self.export_job.is_some() || self.backend_job.is_some()
    }

    /// Draws one frame (also used by tests through egui_kittest). Nothing here asks for
    /// another frame unless something changes by itself: a running job (polled every
    /// 100 ms), or a message that goes away after a while.
    pub fn show(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        ctx.set_theme(if self.prefs.dark {
            egui::Theme::Dark
        } else {
            egui::Theme::Light
        });
        self.handle_shortcuts(&ctx);
        self.handle_dropped_files(&ctx);
        self.handle_close_request(&ctx);
        if self.compute_on_open {
            self.session.compute_missing_on_open();
        }
        self.poll_jobs();
        self.open_sweeps
            .follow(&self.session, self.compute_on_open, &mut self.saved);
        self.refresh_dirty();
        // Once the user has chosen to quit, what is left is given up or saved.
        self.recovery
            .autosave(&self.session, self.dirty && !self.quit_confirmed);

        egui::Panel::top("benchtop_menu").show(ui, |ui| self.menu_bar(ui));
        egui::Panel::bottom("benchtop_status").show(ui, |ui| self.status_bar(ui));
        if self.prefs.show_catalog {
            egui::Panel::left("benchtop_catalog")
                .resizable(true)
                .default_size(260.0)
                .show(ui, |ui| self.catalog_ui(ui));
        }
        egui::CentralPanel::default_margins().show(ui, |ui| {
            self.notices_ui(ui);
            if self.session.panels.is_empty() {
                self.welcome_ui(ui);
            } else {
                self.dock_ui(ui);
            }
        });
        self.saved.drawn(&self.session);
        // After the panels were drawn, which starts their queued tasks: a sweep waits for them.
        self.open_sweeps
            .start_next(&mut self.session, &self.jobs, &ctx);
        if self.open_sweeps.is_waiting() {
            ctx.request_repaint_after(JOB_POLL);
        }
        self.modal_ui(&ctx);
        self.palette_ui(&ctx);
        self.follow_edits();
        self.refresh_dirty();
        self.update_title(&ctx);
        if self.is_busy() {
            ctx.request_repaint_after(JOB_POLL);
        }
    }

    fn notices_ui(&mut self, ui: &mut egui::Ui) {
        let mut dismissed = None;
        let mut open_recovered = None;
        for (index, notice) in self.notices.iter().enumerate() {
            ui.horizontal(|ui| {
                let colour = if notice.is_error {
                    ui.visuals().error_fg_color
                } else {
                    ui.visuals().text_color()
                };
                ui.colored_label(colour, &notice.text);
                if let Some(path) = &notice.recovered {
                    if ui.small_button("Open it").clicked() {
                        open_recovered = Some(path.clone());
                        dismissed = Some(index);
                    }
                    if ui.small_button("Delete it").clicked() {
                        if let Err(error) = std::fs::remove_file(path) {
                            log::warn!("could not remove {}: {error}", path.display());
                        }
                        dismissed = Some(index);
                    }
                } else if ui.small_button("Dismiss").clicked() {
                    dismissed = Some(index);
                }
            });
        }
        if let Some(index) = dismissed {
            self.notices.remove(index);
        }
        if let Some(path) = open_recovered {
            self.request(ui.ctx(), PendingAction::OpenRecovered(path));
        }
    }

    fn handle_shortcuts(&mut self, ctx: &egui::Context) {
        for (shortcut, command) in Command::shortcut_table() {
            if ctx.input_mut(|input| input.consume_shortcut(&shortcut)) {
                self.run_command(ctx, command);
            }
        }
    }

    fn handle_dropped_files(&mut self, ctx: &egui::Context) {
        let dropped: Vec<PathBuf> = ctx.input(|input| {
            input
                .raw
                .dropped_files
                .iter()
                .map(|f| f.path().to_path_buf())
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        });
        if let Some(path) = dropped.into_iter().next() {
            self.request(ctx, PendingAction::Open(Some(path)));
        }
    }

    fn handle_close_request(&mut self, ctx: &egui::Context) {
        if ctx.input(|input| input.viewport().close_requested())
            && self.dirty
            && !self.quit_confirmed
        {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.modal = Some(Modal::UnsavedChanges(PendingAction::Quit));
        }
    }
}

impl eframe::App for BenchtopApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        eframe::set_value(storage, PREFS_KEY, &self.prefs);
    }

    fn on_exit(&mut self) {
        self.jobs.cancel_all();
        if !self.dirty {
            self.recovery.discard();
        }
    }
}
