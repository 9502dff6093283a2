//! The window: menus, docked panels, catalog, status bar, dialogs and the command palette.
//!
//! [`BenchtopApp`] owns the open [`Session`] and the UI preferences. Every user action goes
//! through [`Command`] (menus, shortcuts and the palette alike) or through a panel's own UI.

mod actions;
mod catalog;
mod dialogs;
mod dock;
mod menu;
pub mod prefs;
mod status_bar;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use benchtop_compute::backends::BackendReport;

use crate::commands::Command;
use crate::session::Session;
use benchtop_kit::jobs::{Job, JobBoard, JobOutcome};
use benchtop_kit::project::PaneId;
use benchtop_kit::sweep::ui::SweepForms;
pub use dialogs::{ExportDialog, Modal, PendingAction};
pub use prefs::Prefs;

/// The key under which preferences live in eframe's storage.
pub const PREFS_KEY: &str = "benchtop_prefs";

/// The file in eframe's storage folder that holds the autosaved copy of unsaved work.
pub const RECOVERY_FILE: &str = "recovery.ron";

/// The tour project, embedded so the window can always open it.
pub const TOUR_PROJECT: &str = include_str!("../../../projects/tour.ron");

/// A message shown at the top of the window until dismissed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    /// The text.
    pub text: String,
    /// Whether it reports an error (else information).
    pub is_error: bool,
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
    saved_doc: Option<crate::catalog::ProjectDoc>,
    dirty: bool,
    dirty_checked: Option<Instant>,
    focused: Option<PaneId>,
    palette: Option<String>,
    backend_job: Option<Job<(), BackendReport>>,
    backend: Option<BackendReport>,
    shared_gpu: bool,
    render_state: Option<eframe::egui_wgpu::RenderState>,
    export_job: Option<Job<(), benchtop_kit::export::ExportReport>>,
    sweep_forms: SweepForms,
    host_views: std::collections::BTreeMap<PaneId, dock::HostView>,
    last_autosave: Instant,
    quit_confirmed: bool,
    persist: bool,
}

impl BenchtopApp {
    /// A window over `session` with default preferences and no storage (tests, headless).
    pub fn new(session: Session) -> Self {
        let saved_doc = session.to_doc(None).ok();
        Self {
            session,
            prefs: Prefs::default(),
            jobs: JobBoard::new(),
            notices: Vec::new(),
            modal: None,
            saved_doc,
            dirty: false,
            dirty_checked: None,
            focused: None,
            palette: None,
            backend_job: None,
            backend: None,
            shared_gpu: false,
            render_state: None,
            export_job: None,
            sweep_forms: SweepForms::default(),
            host_views: std::collections::BTreeMap::new(),
            last_autosave: Instant::now(),
            quit_confirmed: false,
            persist: false,
        }
    }

    /// The window as eframe creates it: shares the renderer's GPU with the engines, restores
    /// preferences and opens `open` (else the last project, else the tour).
    pub fn from_creation_context(cc: &eframe::CreationContext<'_>, open: Option<PathBuf>) -> Self {
        let shared_gpu = cc.wgpu_render_state.as_ref().is_some_and(|state| {
            benchtop_compute::gpu::install(
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
        app.persist = true;
        app.start_backend_probe(Some(cc.egui_ctx.clone()));
        if let Some(recovery) = eframe::storage_dir("benchtop")
            .map(|dir| dir.join(RECOVERY_FILE))
            .filter(|p| p.exists())
        {
            app.notify(format!(
                "Unsaved work from an earlier session was kept in {}; open it with File > Open… to recover it.",
                recovery.display()
            ));
        }
        let target = open.or_else(|| app.prefs.recent.first().filter(|p| p.exists()).cloned());
        match target {
            Some(path) => app.open_path(&path),
            None => app.open_tour(),
        }
        app
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

    /// Whether the project has changes that are not saved.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// Adds an error message at the top of the window (and to the log).
    pub fn notify_error(&mut self, text: impl Into<String>) {
        let text = text.into();
        log::warn!("{text}");
        self.notices.push(Notice {
            text,
            is_error: true,
        });
    }

    /// Adds an information message at the top of the window.
    pub fn notify(&mut self, text: impl Into<String>) {
        self.notices.push(Notice {
            text: text.into(),
            is_error: false,
        });
    }

    fn refresh_dirty(&mut self, force: bool) {
        let due = self
            .dirty_checked
            .is_none_or(|at| at.elapsed() > Duration::from_millis(500));
        if !(force || due) {
            return;
        }
        self.dirty_checked = Some(Instant::now());
        self.dirty = match self.session.to_doc(None) {
            Ok(doc) => self.saved_doc.as_ref() != Some(&doc),
            Err(_) => true,
        };
    }

    /// Marks the current state as saved (after a save or a load).
    fn mark_saved(&mut self) {
        self.saved_doc = self.session.to_doc(None).ok();
        self.dirty = false;
        self.dirty_checked = Some(Instant::now());
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
                JobOutcome::Finished(report) => {
                    let folder = report
                        .files
                        .first()
                        .and_then(|f| f.parent())
                        .map(|p| p.display().to_string());
                    self.notify(format!(
                        "exported {} files{}",
                        report.files.len(),
                        folder.map(|f| format!(" to {f}")).unwrap_or_default()
                    ));
                }
                JobOutcome::Cancelled => self.notify("export cancelled"),
                JobOutcome::Failed(message) => {
                    self.notify_error(format!("export failed: {message}"));
                }
            }
        }
    }

    fn autosave_recovery(&mut self) {
        if !self.persist || !self.dirty || self.last_autosave.elapsed() < Duration::from_secs(60) {
            return;
        }
        self.last_autosave = Instant::now();
        let Some(dir) = eframe::storage_dir("benchtop") else {
            return;
        };
        let path = dir.join(RECOVERY_FILE);
        let result = std::fs::create_dir_all(&dir)
            .map_err(anyhow::Error::from)
            .and_then(|()| self.session.to_text())
            .and_then(|text| Ok(benchtop_kit::project::write_atomic(&path, text.as_bytes())?));
        if let Err(error) = result {
            log::warn!("autosave to {} failed: {error:#}", path.display());
        }
    }

    /// Draws one frame (also used by tests through egui_kittest).
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
        self.poll_jobs();
        self.refresh_dirty(false);
        self.autosave_recovery();
        if self.persist {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(self.window_title()));
        }

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
        self.modal_ui(&ctx);
        self.palette_ui(&ctx);
        if self.session.is_busy() || self.export_job.is_some() {
            ctx.request_repaint_after(Duration::from_millis(100));
        }
    }

    fn notices_ui(&mut self, ui: &mut egui::Ui) {
        let mut dismissed = None;
        for (index, notice) in self.notices.iter().enumerate() {
            ui.horizontal(|ui| {
                let colour = if notice.is_error {
                    ui.visuals().error_fg_color
                } else {
                    ui.visuals().text_color()
                };
                ui.colored_label(colour, &notice.text);
                if ui.small_button("Dismiss").clicked() {
                    dismissed = Some(index);
                }
            });
        }
        if let Some(index) = dismissed {
            self.notices.remove(index);
        }
    }

    fn handle_shortcuts(&mut self, ctx: &egui::Context) {
        for command in Command::ALL {
            if let Some(shortcut) = command.shortcut()
                && ctx.input_mut(|input| input.consume_shortcut(&shortcut))
            {
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
    }
}
