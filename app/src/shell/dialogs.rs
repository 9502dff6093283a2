//! Modal dialogs (about, paper reference, unsaved changes, export, files) and the command
//! palette.
//!
//! Files are chosen through [`benchtop_kit::file_dialog`]: the system's dialog when it can be
//! shown, else Benchtop's own, kept here as [`Modal::File`] until the user chooses.

use std::path::PathBuf;

use super::BenchtopApp;
use crate::commands::Command;
use crate::session::Session;
use benchtop_kit::figure::ExportFormat;
use benchtop_kit::file_dialog::{self, Asked, Filter, InWindowDialog, Kind, Outcome, Request};
use benchtop_kit::panel::PanelKind;
use benchtop_kit::project::EXTENSION;

/// What to do once a dialog has closed (it needs the whole app, so it runs after the dialog).
type AfterModal = Box<dyn FnOnce(&mut BenchtopApp, &egui::Context)>;

/// Something that would discard unsaved changes, waiting for the user's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum PendingAction {
    /// Start an empty project.
    New,
    /// Open a project (`None`: ask for the file).
    Open(Option<std::path::PathBuf>),
    /// Open the tour.
    OpenTour,
    /// Open work an earlier session left in a recovery file.
    OpenRecovered(std::path::PathBuf),
    /// Quit.
    Quit,
}

/// Choices of the export dialog.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportDialog {
    /// Write SVG.
    pub svg: bool,
    /// Write PNG.
    pub png: bool,
    /// Write PDF.
    pub pdf: bool,
    /// PNG resolution.
    pub dpi: u32,
    /// Export only this panel's figures (and its sweeps); `None` exports the whole project.
    pub pane: Option<benchtop_kit::project::PaneId>,
}

impl Default for ExportDialog {
    fn default() -> Self {
        Self {
            svg: true,
            png: true,
            pdf: true,
            dpi: 300,
            pane: None,
        }
    }
}

impl ExportDialog {
    /// The chosen formats.
    pub fn formats(&self) -> Vec<ExportFormat> {
        let mut formats = Vec::new();
        if self.svg {
            formats.push(ExportFormat::Svg);
        }
        if self.png {
            formats.push(ExportFormat::Png);
        }
        if self.pdf {
            formats.push(ExportFormat::Pdf);
        }
        formats
    }
}

/// The dialog on top of the window.
#[derive(Clone, Debug)]
pub enum Modal {
    /// About Benchtop.
    About,
    /// The paper a panel reproduces.
    Paper(&'static PanelKind),
    /// Unsaved changes would be lost by the action.
    UnsavedChanges(PendingAction),
    /// Export options.
    Export(ExportDialog),
    /// Benchtop's own file dialog (the system's could not be shown, or is switched off).
    File(Box<FileModal>),
}

/// What a chosen path is for.
#[derive(Clone, Debug, PartialEq)]
pub enum FilePurpose {
    /// Open the project file.
    Open,
    /// Save the project to the file, then do the action that waited for the save, if any.
    SaveAs(Option<PendingAction>),
    /// Export into the folder with these choices.
    Export(ExportDialog),
}

impl FilePurpose {
    /// The question to ask, starting in the open project's folder.
    fn request(&self, session: &Session) -> Request {
        let folder = session
            .path
            .as_ref()
            .and_then(|p| p.parent())
            .map(std::path::Path::to_path_buf);
        let project = Filter::new("Benchtop project", &[EXTENSION]);
        match self {
            Self::Open => Request::new(Kind::Open, "Open a Benchtop project").filter(project),
            Self::SaveAs(_) => {
                let name = session
                    .path
                    .as_ref()
                    .and_then(|p| p.file_name())
                    .map_or_else(
                        || format!("project.{EXTENSION}"),
                        |n| n.to_string_lossy().into_owned(),
                    );
                Request::new(Kind::Save, "Save the Benchtop project")
                    .filter(project)
                    .file_name(&name)
            }
            Self::Export(_) => Request::new(Kind::Folder, "Export into folder"),
        }
        .folder(folder)
    }
}

/// Benchtop's own file dialog and what its path is for.
#[derive(Clone, Debug)]
pub struct FileModal {
    /// The dialog.
    pub dialog: InWindowDialog,
    /// What the chosen path is for.
    pub purpose: FilePurpose,
}

impl BenchtopApp {
    /// Asks for the path `purpose` needs and acts on it: at once when the system's dialog gave
    /// it, else once the user chose it in Benchtop's own dialog.
    pub fn choose_file(&mut self, ctx: &egui::Context, purpose: FilePurpose) {
        if let Some(path) = self.ask_for_path(&purpose) {
            self.file_chosen(ctx, purpose, path);
        }
    }

    /// The path the system's dialog gave for `purpose`; `None` when the user cancelled it or
    /// Benchtop's own dialog now asks (it acts on the path itself, see [`Self::choose_file`]).
    pub(super) fn ask_for_path(&mut self, purpose: &FilePurpose) -> Option<PathBuf> {
        match file_dialog::ask(purpose.request(&self.session)) {
            Asked::Chosen(path) => Some(path),
            Asked::Cancelled => None,
            Asked::InWindow(dialog) => {
                self.modal = Some(Modal::File(Box::new(FileModal {
                    dialog: *dialog,
                    purpose: purpose.clone(),
                })));
                None
            }
        }
    }

    /// Does what `purpose` wanted the chosen `path` for.
    fn file_chosen(&mut self, ctx: &egui::Context, purpose: FilePurpose, path: PathBuf) {
        match purpose {
            FilePurpose::Open => self.open_path(&path),
            FilePurpose::SaveAs(then) => {
                if self.save_to(&super::actions::with_extension(path))
                    && let Some(action) = then
                {
                    self.perform(ctx, action);
                }
            }
            FilePurpose::Export(choices) => self.export_to(ctx, path, &choices),
        }
    }

    /// Saves, then does `action` (asking for a file name first when the project has none).
    fn save_then(&mut self, ctx: &egui::Context, action: PendingAction) {
        match self.session.path.clone() {
            Some(path) => {
                if self.save_to(&path) {
                    self.perform(ctx, action);
                }
            }
            None => self.choose_file(ctx, FilePurpose::SaveAs(Some(action))),
        }
    }

    /// Draws Benchtop's own file dialog and acts on its answer.
    fn file_modal_ui(&mut self, ctx: &egui::Context, mut modal: FileModal) {
        match modal.dialog.show(ctx) {
            Outcome::Open => self.modal = Some(Modal::File(Box::new(modal))),
            Outcome::Cancelled => self.modal = None,
            Outcome::Chosen(path) => {
                self.modal = None;
                self.file_chosen(ctx, modal.purpose, path);
            }
        }
    }

    pub(super) fn modal_ui(&mut self, ctx: &egui::Context) {
        let Some(modal) = self.modal.clone() else {
            return;
        };
        if let Modal::File(file) = modal {
            self.file_modal_ui(ctx, *file);
            return;
        }
        let mut close = false;
        let mut then: Option<AfterModal> = None;
        let response = egui::Modal::new(egui::Id::unique("benchtop_modal")).show(ctx, |ui| {
            ui.set_max_width(460.0);
            match modal {
                Modal::About => {
                    ui.heading("Benchtop");
                    ui.label(crate::build_info::version_line());
                    ui.label("A desktop workbench of small, real reproductions of ICML 2025 methods.");
                    if let Some(report) = &self.backend {
                        ui.label(format!("Compute: {}", report.headline()));
                    }
                    if ui.button("Close").clicked() {
                        close = true;
                    }
                }
                Modal::Paper(kind) => {
                    ui.heading(kind.name);
                    ui.label(kind.description);
                    ui.separator();
                    ui.label(kind.paper.citation());
                    ui.hyperlink(kind.paper.link);
                    if ui.button("Close").clicked() {
                        close = true;
                    }
                }
                Modal::UnsavedChanges(action) => {
                    ui.heading("Unsaved changes");
                    ui.label("The project has changes that are not saved.");
                    let computed = self.unsaved_compute_time();
                    if computed > self.long_compute {
                        ui.label(format!(
                            "Among them are results that took {} to compute.",
                            duration_text(computed)
                        ));
                    }
                    ui.horizontal(|ui| {
                        if ui.button("Save").clicked() {
                            let action = action.clone();
                            then = Some(Box::new(move |app: &mut Self, ctx: &egui::Context| {
                                app.save_then(ctx, action);
                            }));
                            close = true;
                        }
                        if ui.button("Discard changes").clicked() {
                            let action = action.clone();
                            then = Some(Box::new(move |app: &mut Self, ctx: &egui::Context| {
                                app.discard_changes_and(ctx, action);
                            }));
                            close = true;
                        }
                        if ui.button("Cancel").clicked() {
                            close = true;
                        }
                    });
                }
                Modal::Export(mut dialog) => {
                    ui.heading("Export figures");
                    ui.label(if dialog.pane.is_some() {
                        "Every figure of this panel and its sweeps, with CSV data, provenance and summary.json."
                    } else {
                        "Every figure of every panel and sweep, with CSV data, provenance and summary.json."
                    });
                    ui.checkbox(&mut dialog.svg, "SVG");
                    ui.checkbox(&mut dialog.png, "PNG");
                    ui.checkbox(&mut dialog.pdf, "PDF");
                    ui.add(egui::Slider::new(&mut dialog.dpi, 72..=1200).text("PNG resolution (DPI)"));
                    ui.horizontal(|ui| {
                        if ui.button("Choose a folder and export…").clicked() {
                            let chosen = dialog.clone();
                            then = Some(Box::new(move |app: &mut Self, ctx: &egui::Context| {
                                app.choose_file(ctx, FilePurpose::Export(chosen));
                            }));
                            close = true;
                        }
                        if ui.button("Cancel").clicked() {
                            close = true;
                        }
                    });
                    if !close {
                        self.modal = Some(Modal::Export(dialog));
                    }
                }
                // Drawn by `file_modal_ui` above.
                Modal::File(_) => {}
            }
        });
        if response.should_close() {
            close = true;
        }
        if close {
            self.modal = None;
        }
        if let Some(action) = then {
            action(self, ctx);
        }
    }

    pub(super) fn palette_ui(&mut self, ctx: &egui::Context) {
        let Some(mut query) = self.palette.take() else {
            return;
        };
        let mut chosen = None;
        let mut keep_open = true;
        // Above any open dialog (dialogs are modal, in the foreground): the palette was opened
        // last, so it is drawn and answers on top.
        let shown = egui::Window::new("Command palette")
            .collapsible(false)
            .resizable(false)
            .order(egui::Order::Foreground)
            .anchor(egui::Align2::CENTER_TOP, egui::vec2(0.0, 60.0))
            .show(ctx, |ui| {
                let name = ui.label("Find a command");
                let edit = ui
                    .add(egui::TextEdit::singleline(&mut query).hint_text("Type a command"))
                    .labelled_by(name.id);
                edit.request_focus();
                let matches: Vec<Command> = Command::ALL
                    .into_iter()
                    .filter(|c| c.matches(&query))
                    .collect();
                for command in &matches {
                    let (button, enabled) = self.command_button(ctx, *command);
                    if ui.add_enabled(enabled, button).clicked() {
                        chosen = Some(*command);
                    }
                }
                if ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                    chosen = matches.first().copied();
                }
                if ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                    keep_open = false;
                }
            });
        if let Some(shown) = shown {
            ctx.move_to_top(shown.response.layer_id);
        }
        if let Some(command) = chosen {
            self.run_command(ctx, command);
        } else if keep_open {
            self.palette = Some(query);
        }
    }
}

/// A compute time as a person says it: `45 s`, `16 min`, `2 h 5 min`.
fn duration_text(time: std::time::Duration) -> String {
    let seconds = time.as_secs();
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min", seconds / 60),
        _ => format!("{} h {} min", seconds / 3600, seconds % 3600 / 60),
    }
}
