//! What each command does.

use std::path::{Path, PathBuf};

use super::{BenchtopApp, ExportDialog, FilePurpose, Modal, PendingAction, TOUR_PROJECT};
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
            Command::Undo => self.step_history(Step::Undo),
            Command::Redo => self.step_history(Step::Redo),
            Command::ToggleTheme => self.prefs.dark = !self.prefs.dark,
            Command::ToggleCatalog => self.prefs.show_catalog = !self.prefs.show_catalog,
            Command::CommandPalette => self.open_palette(),
            Command::ClosePanel => {
                if let Some(id) = self.focused_pane() {
                    self.focused = None;
                    self.session.close_panel(id);
                }
            }
            Command::About => self.modal = Some(Modal::About),
            Command::Quit => self.request(ctx, PendingAction::Quit),
        }
    }

    /// Does `action`, first asking about unsaved changes when it would discard them.
    pub fn request(&mut self, ctx: &egui::Context, action: PendingAction) {
        self.refresh_dirty();
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
            PendingAction::Open(None) => self.choose_file(ctx, FilePurpose::Open),
            PendingAction::OpenTour => self.open_tour(),
            PendingAction::OpenRecovered(path) => self.open_recovered(&path),
            PendingAction::Quit => {
                // Saved, discarded or unchanged: nothing is left to recover.
                self.recovery.discard();
                self.quit_confirmed = true;
                self.jobs.cancel_all();
                ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
    }

    /// Gives up the unsaved changes (and their autosaved copy), then does `action`.
    pub fn discard_changes_and(&mut self, ctx: &egui::Context, action: PendingAction) {
        self.recovery.discard();
        self.forget_recovered_file();
        self.perform(ctx, action);
    }

    /// Removes the recovery file the open project came from (its work is saved or given up).
    fn forget_recovered_file(&mut self) {
        if let Some(path) = self.recovered_from.take()
            && let Err(error) = std::fs::remove_file(&path)
        {
            log::warn!("could not remove {}: {error}", path.display());
        }
    }

    fn replace_session(&mut self, session: Session) {
        self.jobs.cancel_all();
        self.open_sweeps = super::open_sweeps::OpenSweeps::new(&session);
        self.session = session;
        self.focused = None;
        self.recovered_from = None;
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

    /// Opens work kept from an earlier session as an untitled project with unsaved changes
    /// (Save asks for a file name; the recovery file goes once it is saved or discarded).
    pub fn open_recovered(&mut self, path: &Path) {
        let parsed = ProjectDoc::load(path).and_then(|doc| Session::from_doc(doc, None));
        match parsed {
            Ok(session) => {
                self.replace_session(session);
                self.recovered_from = Some(path.to_path_buf());
                self.refresh_dirty();
            }
            Err(error) => self.notify_error(format!("could not open the recovered work: {error}")),
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

    /// Asks for a file name and saves there; false when not saved yet (cancelled, failed, or
    /// Benchtop's own dialog is asking: it saves once the user chooses).
    fn save_as_dialog(&mut self) -> bool {
        self.ask_for_path(&FilePurpose::SaveAs(None))
            .is_some_and(|path| self.save_to(&with_extension(path)))
    }

    /// Saves to `path` (atomically; a failure leaves the old file intact). Returns success.
    pub fn save_to(&mut self, path: &Path) -> bool {
        match self.session.save_as(path) {
            Ok(()) => {
                self.prefs.remember(path);
                self.forget_recovered_file();
                self.mark_saved();
                self.recovery.discard();
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

    /// What Edit › Undo (or Redo) would do now, e.g. `Undo k_c change in Weather spectra`,
    /// and whether there is anything to do.
    pub fn history_label(&self, step: Step) -> (String, bool) {
        let Some(panel) = self
            .focused_pane()
            .and_then(|id| self.session.panels.get(&id))
        else {
            return (step.verb().to_owned(), false);
        };
        let label = match step {
            Step::Undo => panel.undo_label(),
            Step::Redo => panel.redo_label(),
        };
        match label {
            Some(label) => (
                format!("{} {label} in {}", step.verb(), panel.title()),
                true,
            ),
            None => (
                format!(
                    "Nothing to {} in {}",
                    step.verb().to_lowercase(),
                    panel.title()
                ),
                false,
            ),
        }
    }

    /// Undoes or redoes the last edit of the focused pane and says what it did.
    fn step_history(&mut self, step: Step) {
        let (label, possible) = self.history_label(step);
        let Some(id) = self.focused_pane() else {
            return;
        };
        let done = self
            .session
            .panels
            .get_mut(&id)
            .is_some_and(|panel| match step {
                Step::Undo => panel.undo(),
                Step::Redo => panel.redo(),
            });
        self.focused = Some(id);
        let text = if possible && done {
            label.replacen(step.verb(), step.past(), 1)
        } else {
            label
        };
        self.show_toast(text);
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

/// A step through a panel's edit history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Back one edit.
    Undo,
    /// Forward one undone edit.
    Redo,
}

impl Step {
    fn verb(self) -> &'static str {
        match self {
            Self::Undo => "Undo",
            Self::Redo => "Redo",
        }
    }

    fn past(self) -> &'static str {
        match self {
            Self::Undo => "Undid",
            Self::Redo => "Redid",
        }
    }
}

/// `path` with the project extension added when it has another or none.
pub(super) fn with_extension(path: PathBuf) -> PathBuf {
    if path.extension().is_some_and(|e| e == EXTENSION) {
        path
    } else {
        path.with_extension(EXTENSION)
    }
}
