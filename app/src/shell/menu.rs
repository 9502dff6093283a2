//! The menu bar, built from the command enum.

use super::{BenchtopApp, Modal, PendingAction, Step};
use crate::commands::{Command, Menu};

impl BenchtopApp {
    pub(super) fn menu_bar(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                self.menu_commands(ui, &ctx, Menu::File, Some(Command::ExportFigures));
                ui.menu_button("Recent", |ui| {
                    if self.prefs.recent.is_empty() {
                        ui.label("No recent projects");
                    }
                    for path in self.prefs.recent.clone() {
                        if ui.button(path.display().to_string()).clicked() {
                            self.request(&ctx, PendingAction::Open(Some(path)));
                        }
                    }
                });
            });
            ui.menu_button("Edit", |ui| self.menu_commands(ui, &ctx, Menu::Edit, None));
            ui.menu_button("View", |ui| self.menu_commands(ui, &ctx, Menu::View, None));
            ui.menu_button("Panels", |ui| {
                for kind in crate::catalog::catalog() {
                    if ui.button(format!("Open {}", kind.name)).clicked() {
                        self.open_panel(kind.id);
                    }
                }
            });
            ui.menu_button("Help", |ui| {
                self.menu_commands(ui, &ctx, Menu::Help, None);
                ui.separator();
                for kind in crate::catalog::catalog() {
                    if ui.button(format!("Paper: {}", kind.name)).clicked() {
                        self.modal = Some(Modal::Paper(kind));
                    }
                }
            });
        });
    }

    fn menu_commands(
        &mut self,
        ui: &mut egui::Ui,
        ctx: &egui::Context,
        menu: Menu,
        separator_before: Option<Command>,
    ) {
        for command in Command::ALL.into_iter().filter(|c| c.menu() == menu) {
            if Some(command) == separator_before {
                ui.separator();
            }
            let (button, enabled) = self.command_button(ctx, command);
            if ui.add_enabled(enabled, button).clicked() {
                self.run_command(ctx, command);
            }
        }
    }

    /// The button of `command`, with its shortcut when it has one, and whether it can run
    /// now. Undo and Redo say what they would change and in which panel.
    pub(super) fn command_button(
        &self,
        ctx: &egui::Context,
        command: Command,
    ) -> (egui::Button<'static>, bool) {
        let (text, enabled) = match command {
            Command::Undo => self.history_label(Step::Undo),
            Command::Redo => self.history_label(Step::Redo),
            _ => (command.label().to_owned(), true),
        };
        let button = egui::Button::new(text);
        let button = match command.shortcut() {
            Some(shortcut) => button.shortcut_text(ctx.format_shortcut(&shortcut)),
            None => button,
        };
        (button, enabled)
    }
}
