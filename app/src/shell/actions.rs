//! What each command does.

use std::path::{Path, PathBuf};

use super::{BenchtopApp, ExportDialog, Modal, PendingAction, TOUR_PROJECT};
use crate::catalog::ProjectDoc;
use crate::commands::Command;
use crate::session::Session;
use benchtop_kit::jobs::Job;
use benchtop_kit::project::EXTENSION;

impl BenchtopApp {
    /// Runs `command`.
    pub fn run_command(&mut self, ctx: &egui::Context, command: Command) {
        match command {
            Command::NewProject => self.request(ctx, PendingAction::New),
            Command::OpenProject => self.request(ctx, PendingAction::Open(None)),
            Command::OpenTour => self.request(ctx, PendingAction::OpenTour),
            Command::Save => {
                self.save();
            }
            Command::SaveAs => {
                self.save_as_dialog();
            }
            Command::ExportFigures => self.modal = Some(Modal::Export(ExportDialog::default())),
            Command::Undo => self.undo_focused(),
            Command::Redo => self.redo_focused(),
            Command::ToggleTheme => self.prefs.dark = !self.prefs.dark,
            Command::ToggleCatalog => self.prefs.show_catalog = !self.prefs.show_catalog,
            Command::CommandPalette => self.open_palette(),
            Command::ClosePanel => {
                if let Some(id) = self.focused.take() {
                    self.session.close_panel(id);
                }
            }
            Command::About => self.modal = Some(Modal::About),
            Command::Quit => self.request(ctx, PendingAction::Quit),
        }
    }

    /// Does `action`, first asking about unsaved changes when it would discard them.
    pub fn request(&mut self, ctx: &egui::Context, action: PendingAction) {
        self.refresh_dirty(true);
        if self.dirty {
            self.modal = Some(Modal::UnsavedChanges(action));
        } else {
            self.perform(ctx, action);
        }
    }

    /// Does `action` without asking.
    pub fn perform(&mut self, ctx: &egui::Context, action: PendingAction) {
        match action {
            PendingAction::New => self.replace_session(Session::new()),
            PendingAction::Open(Some(path)) => self.open_path(&path),
            PendingAction::Open(None) => {
                let picked = rfd::FileDialog::new()
                    .add_filter("Benchtop project", &[EXTENSION])
                    .set_title("Open a Benchtop project")
                    .pick_file();
                if let Some(path) = picked {
                    self.open_path(&path);
                }
            }
            PendingAction::OpenTour => self.open_tour(),
            PendingAction::Quit => {
                self.quit_confirmed = true;
                self.jobs.cancel_all();
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
    }

    fn replace_session(&mut self, session: Session) {
        self.jobs.cancel_all();
        self.session = session;
        self.focused = None;
        self.host_views.clear();
        self.sweep_forms = benchtop_kit::sweep::ui::SweepForms::default();
        self.mark_saved();
    }

    /// Opens a project file; on failure the open project is left untouched and the error shown.
    pub fn open_path(&mut self, path: &Path) {
        match Session::open(path) {
            Ok(session) => {
                self.replace_session(session);
                self.prefs.remember(path);
            }
            Err(error) => self.notify_error(format!("could not open the project: {error}")),
        }
    }

    /// Opens the embedded tour project (unsaved: Save asks for a file name).
    pub fn open_tour(&mut self) {
        let parsed = ProjectDoc::parse(TOUR_PROJECT, Path::new("tour.ron"))
            .and_then(|doc| Session::from_doc(doc, None));
        match parsed {
            Ok(session) => self.replace_session(session),
            Err(error) => self.notify_error(format!("the tour project is broken (a bug): {error}")),
        }
    }

    /// Saves to the project's file, asking for a name the first time. Returns success.
    pub fn save(&mut self) -> bool {
        match self.session.path.clone() {
            Some(path) => self.save_to(&path),
            None => self.save_as_dialog(),
        }
    }

    fn save_as_dialog(&mut self) -> bool {
        let picked = rfd::FileDialog::new()
            .add_filter("Benchtop project", &[EXTENSION])
            .set_file_name("project.ron")
            .set_title("Save the Benchtop project")
            .save_file();
        match picked {
            Some(path) => self.save_to(&with_extension(path)),
            None => false,
        }
    }

    /// Saves to `path` (atomically; a failure leaves the old file intact). Returns success.
    pub fn save_to(&mut self, path: &Path) -> bool {
        match self.session.save_as(path) {
            Ok(()) => {
                self.prefs.remember(path);
                self.mark_saved();
                self.discard_recovery();
                true
            }
            Err(error) => {
                self.notify_error(format!("could not save {}: {error:#}", path.display()));
                false
            }
        }
    }

    /// Exports every figure, table and sweep to `folder` in the background.
    pub fn export_to(&mut self, ctx: &egui::Context, folder: PathBuf, dialog: &ExportDialog) {
        let bundle = self.session.export_bundle(dialog.pane);
        let formats = dialog.formats();
        if formats.is_empty() {
            self.notify_error("choose at least one figure format to export");
            return;
        }
        let dpi = dialog.dpi;
        let spawned = Job::spawn(
            "export figures",
            &self.jobs,
            Some(ctx.clone()),
            move |context| bundle.write(&folder, &formats, dpi, &context.progress, &context.cancel),
        );
        match spawned {
            Ok(job) => self.export_job = Some(job),
            Err(error) => self.notify_error(format!("could not start the export: {error}")),
        }
    }

    fn focused_panel(&mut self) -> Option<&mut Box<dyn benchtop_kit::panel::Panel>> {
        let id = self
            .focused
            .or_else(|| self.session.panels.keys().next().copied())?;
        self.session.panels.get_mut(&id)
    }

    fn undo_focused(&mut self) {
        if let Some(panel) = self.focused_panel() {
            panel.undo();
        }
    }

    fn redo_focused(&mut self) {
        if let Some(panel) = self.focused_panel() {
            panel.redo();
        }
    }

    fn open_palette(&mut self) {
        self.palette = Some(String::new());
    }

    /// Opens a new panel of the kind with identifier `kind_id`.
    pub fn open_panel(&mut self, kind_id: &str) {
        if let Some(id) =
            crate::catalog::kind_by_id(kind_id).and_then(|kind| self.session.add_panel(kind))
        {
            self.focused = Some(id);
        }
    }
}

impl BenchtopApp {
    /// Removes the autosaved recovery copy once the work is safely saved.
    fn discard_recovery(&self) {
        if !self.persist {
            return;
        }
        if let Some(path) =
            eframe::storage_dir("benchtop").map(|dir| dir.join(super::RECOVERY_FILE))
            && path.exists()
            && let Err(error) = std::fs::remove_file(&path)
        {
            log::warn!("could not remove {}: {error}", path.display());
        }
    }
}

fn with_extension(path: PathBuf) -> PathBuf {
    if path.extension().is_some_and(|e| e == EXTENSION) {
        path
    } else {
        path.with_extension(EXTENSION)
    }
}
