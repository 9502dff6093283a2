//! Modal dialogs (about, paper reference, unsaved changes, export) and the command palette.

use super::BenchtopApp;
use crate::commands::Command;
use benchtop_kit::figure::ExportFormat;
use benchtop_kit::panel::PanelKind;

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
}

impl BenchtopApp {
    pub(super) fn modal_ui(&mut self, ctx: &egui::Context) {
        let Some(modal) = self.modal.clone() else {
            return;
        };
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
                    ui.horizontal(|ui| {
                        if ui.button("Save").clicked() {
                            let action = action.clone();
                            then = Some(Box::new(move |app: &mut Self, ctx: &egui::Context| {
                                if app.save() {
                                    app.perform(ctx, action);
                                }
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
                                if let Some(folder) = rfd::FileDialog::new().set_title("Export into folder").pick_folder() {
                                    app.export_to(ctx, folder, &chosen);
                                }
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
        egui::Window::new("Command palette")
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_TOP, egui::vec2(0.0, 60.0))
            .show(ctx, |ui| {
                let edit =
                    ui.add(egui::TextEdit::singleline(&mut query).hint_text("Type a command"));
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
        if let Some(command) = chosen {
            self.run_command(ctx, command);
        } else if keep_open {
            self.palette = Some(query);
        }
    }
}
