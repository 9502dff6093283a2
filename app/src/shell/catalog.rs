//! The panel catalog (side panel) and the welcome page.

use super::{BenchtopApp, Modal, PendingAction};
use crate::catalog::catalog;
use benchtop_kit::panel::Field;

impl BenchtopApp {
    pub(super) fn catalog_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Panels");
        egui::ScrollArea::vertical().show(ui, |ui| {
            let mut fields: Vec<Field> = catalog().iter().map(|k| k.field).collect();
            fields.sort();
            fields.dedup();
            for field in fields {
                ui.add_space(6.0);
                ui.label(egui::RichText::new(field.label()).strong());
                for kind in catalog().iter().filter(|k| k.field == field) {
                    ui.group(|ui| {
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
            ui.label("or open a panel from the catalog on the left.");
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
