//! The panel catalog (side panel) and the welcome page.

use super::{BenchtopApp, Modal, PendingAction};
use crate::catalog::catalog;
use benchtop_kit::panel::Field;

/// Width of the welcome page's list of panels, in points.
const WELCOME_LIST_WIDTH: f32 = 760.0;

/// The fields of the catalog's panels, in order, each once.
fn fields() -> Vec<Field> {
    let mut fields: Vec<Field> = catalog().iter().map(|k| k.field).collect();
    fields.sort();
    fields.dedup();
    fields
}

impl BenchtopApp {
    pub(super) fn catalog_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Panels");
        egui::ScrollArea::vertical().show(ui, |ui| {
            for field in fields() {
                ui.add_space(6.0);
                ui.label(egui::RichText::new(field.label()).strong());
                for kind in catalog().iter().filter(|k| k.field == field) {
                    ui.group(|ui| {
                        // Every card as wide as the catalog, whatever its text.
                        ui.set_width(ui.available_width());
                        ui.label(egui::RichText::new(kind.name).heading().size(15.0));
                        ui.label(kind.description);
                        ui.label(
                            egui::RichText::new(format!(
                                "{} — {}",
                                kind.paper.authors, kind.paper.venue
                            ))
                            .small()
                            .weak(),
                        );
                        ui.horizontal(|ui| {
                            if ui.button(format!("Open {}", kind.name)).clicked() {
                                self.open_panel(kind.id);
                            }
                            if ui.small_button("Paper").clicked() {
                                self.modal = Some(Modal::Paper(kind));
                            }
                        });
                    });
                }
            }
        });
    }

    pub(super) fn welcome_ui(&mut self, ui: &mut egui::Ui) {
        ui.vertical_centered(|ui| {
            ui.add_space(40.0);
            ui.heading("Welcome to Benchtop");
            ui.label("Each panel is a small, real reproduction of one ICML 2025 paper: steer it live, sweep its parameters, export figures and save the project.");
            ui.add_space(12.0);
            if ui.button("Open the tour").clicked() {
                self.request(&ui.ctx().clone(), PendingAction::OpenTour);
            }
            if ui.button("Open a project…").clicked() {
                self.request(&ui.ctx().clone(), PendingAction::Open(None));
            }
            ui.label("or open a panel:");
            ui.add_space(8.0);
            // Every panel at a glance, a row per field, in a centred column (the catalog on the
            // left has their details).
            let width = ui.available_width().min(WELCOME_LIST_WIDTH);
            ui.allocate_ui_with_layout(
                egui::vec2(width, 0.0),
                egui::Layout::top_down(egui::Align::Min),
                |ui| {
                    for field in fields() {
                        ui.horizontal_wrapped(|ui| {
                            ui.label(egui::RichText::new(format!("{}:", field.label())).strong());
                            for kind in catalog().iter().filter(|k| k.field == field) {
                                if ui
                                    .button(kind.name)
                                    .on_hover_text(kind.description)
                                    .clicked()
                                {
                                    self.open_panel(kind.id);
                                }
                            }
                        });
                        ui.add_space(4.0);
                    }
                },
            );
            if !self.prefs.recent.is_empty() {
                ui.add_space(12.0);
                ui.label(egui::RichText::new("Recent projects").strong());
                for path in self.prefs.recent.clone() {
                    if ui.link(path.display().to_string()).clicked() {
                        self.request(&ui.ctx().clone(), PendingAction::Open(Some(path)));
                    }
                }
            }
        });
    }
}
