//! Docked panels (egui_tiles): tabs and splits that can be dragged, rearranged and closed.

use std::collections::BTreeMap;
use std::path::Path;

use super::BenchtopApp;
use super::cluster::SlurmRunner;
use benchtop_kit::jobs::JobBoard;
use benchtop_kit::panel::{PaneView, Panel, PanelContext};
use benchtop_kit::project::PaneId;
use benchtop_kit::sweep::SweepRun;
use benchtop_kit::sweep::ui::{SweepForms, sweeps_ui};

struct DockBehavior<'a> {
    panels: &'a mut BTreeMap<PaneId, Box<dyn Panel>>,
    sweeps: &'a mut Vec<SweepRun>,
    forms: &'a mut SweepForms,
    jobs: &'a JobBoard,
    project_dir: Option<&'a Path>,
    shared_gpu: bool,
    render_state: Option<&'a eframe::egui_wgpu::RenderState>,
    focused: &'a mut Option<PaneId>,
    closed: Vec<PaneId>,
    export: Option<PaneId>,
    cluster: SlurmRunner<'a>,
}

impl egui_tiles::Behavior<PaneId> for DockBehavior<'_> {
    fn pane_ui(
        &mut self,
        ui: &mut egui::Ui,
        _tile: egui_tiles::TileId,
        id: &mut PaneId,
    ) -> egui_tiles::UiResponse {
        let id = *id;
        // A press anywhere in the pane (its whole area, not what is drawn so far) focuses it.
        let area = ui.max_rect();
        if ui.input(|i| {
            i.pointer.any_pressed() && i.pointer.interact_pos().is_some_and(|p| area.contains(p))
        }) {
            *self.focused = Some(id);
        }
        let Some(panel) = self.panels.get_mut(&id) else {
            ui.label("This panel is no longer open.");
            return egui_tiles::UiResponse::None;
        };
        let mut view = panel.pane_view();
        let sweep_count = self.sweeps.iter().filter(|s| s.doc.pane == id).count();
        ui.horizontal(|ui| {
            ui.selectable_value(&mut view, PaneView::Panel, "Panel");
            ui.selectable_value(
                &mut view,
                PaneView::Sweeps,
                format!("Sweeps ({sweep_count})"),
            );
            ui.separator();
            let undo = panel.undo_label();
            if ui
                .add_enabled(undo.is_some(), egui::Button::new("Undo").small())
                .on_hover_text(history_hint("Undo", undo, "Ctrl+Z"))
                .on_disabled_hover_text("Nothing to undo")
                .clicked()
            {
                panel.undo();
            }
            let redo = panel.redo_label();
            if ui
                .add_enabled(redo.is_some(), egui::Button::new("Redo").small())
                .on_hover_text(history_hint("Redo", redo, "Ctrl+Shift+Z"))
                .on_disabled_hover_text("Nothing to redo")
                .clicked()
            {
                panel.redo();
            }
            ui.separator();
            if ui
                .small_button("Export figures…")
                .on_hover_text(
                    "This panel's figures and sweeps as SVG, PNG and PDF, with data and provenance",
                )
                .clicked()
            {
                self.export = Some(id);
            }
        });
        if view != panel.pane_view() {
            panel.set_pane_view(view);
        }
        ui.separator();
        match view {
            PaneView::Panel => {
                let mut context = PanelContext {
                    jobs: self.jobs,
                    project_dir: self.project_dir,
                    shared_gpu: self.shared_gpu,
                    render_state: self.render_state,
                };
                panel.ui(ui, &mut context);
            }
            PaneView::Sweeps => {
                sweeps_ui(
                    ui,
                    id,
                    panel.as_ref(),
                    self.sweeps,
                    self.forms,
                    self.jobs,
                    Some(&mut self.cluster),
                );
            }
        }
        egui_tiles::UiResponse::None
    }

    fn tab_title_for_pane(&mut self, id: &PaneId) -> egui::WidgetText {
        self.panels
            .get(id)
            .map_or_else(|| "closed".into(), |panel| panel.title().into())
    }

    fn on_tab_button(
        &mut self,
        tiles: &mut egui_tiles::Tiles<PaneId>,
        tile: egui_tiles::TileId,
        response: egui::Response,
    ) -> egui::Response {
        if response.clicked()
            && let Some(egui_tiles::Tile::Pane(id)) = tiles.get(tile)
        {
            *self.focused = Some(*id);
        }
        response
    }

    fn is_tab_closable(
        &self,
        _tiles: &egui_tiles::Tiles<PaneId>,
        _tile: egui_tiles::TileId,
    ) -> bool {
        true
    }

    fn on_tab_close(
        &mut self,
        tiles: &mut egui_tiles::Tiles<PaneId>,
        tile: egui_tiles::TileId,
    ) -> bool {
        if let Some(egui_tiles::Tile::Pane(id)) = tiles.get(tile) {
            self.closed.push(*id);
        }
        true
    }

    fn simplification_options(&self) -> egui_tiles::SimplificationOptions {
        egui_tiles::SimplificationOptions {
            all_panes_must_have_tabs: true,
            ..Default::default()
        }
    }
}

impl BenchtopApp {
    pub(super) fn dock_ui(&mut self, ui: &mut egui::Ui) {
        // Cluster polls end and start here, on every frame with panels (sweeps need one).
        self.cluster.update(&mut self.session, ui.ctx());
        let project_dir = self
            .session
            .path
            .as_ref()
            .and_then(|p| p.parent())
            .map(Path::to_path_buf);
        let crate::session::Session {
            panels,
            sweeps,
            layout,
            path,
            ..
        } = &mut self.session;
        let mut behavior = DockBehavior {
            panels,
            sweeps,
            forms: &mut self.sweep_forms,
            jobs: &self.jobs,
            project_dir: project_dir.as_deref(),
            shared_gpu: self.shared_gpu,
            render_state: self.render_state.as_ref(),
            focused: &mut self.focused,
            closed: Vec::new(),
            export: None,
            cluster: SlurmRunner {
                watch: &mut self.cluster,
                project: path.as_deref(),
                unsaved: self.dirty,
                jobs: &self.jobs,
            },
        };
        layout.ui(&mut behavior, ui);
        let closed = behavior.closed;
        if let Some(pane) = behavior.export {
            self.modal = Some(super::Modal::Export(super::ExportDialog {
                pane: Some(pane),
                ..Default::default()
            }));
        }
        for id in closed {
            self.session.panels.remove(&id);
            self.session.sweeps.retain(|run| run.doc.pane != id);
            if self.focused == Some(id) {
                self.focused = None;
            }
        }
    }
}

/// The hover text of a pane's Undo or Redo button: what it would change, and its shortcut.
fn history_hint(verb: &str, label: Option<String>, shortcut: &str) -> String {
    match label {
        Some(label) => format!("{verb} {label} ({shortcut})"),
        None => format!("{verb} ({shortcut})"),
    }
}
