//! The menu bar, built from the command enum.

use super::{BenchtopApp, Modal, PendingAction};
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
            if ui.add(command_button(ctx, command)).clicked() {
                self.run_command(ctx, command);
            }
        }
    }
}

/// The button of `command`, with its shortcut when it has one.
pub(super) fn command_button(ctx: &egui::Context, command: Command) -> egui::Button<'static> {
    let button = egui::Button::new(command.label());
    match command.shortcut() {
        Some(shortcut) => button.shortcut_text(ctx.format_shortcut(&shortcut)),
        None => button,
    }
}
