//! Small UI helpers shared by panels.

/// A label followed by `widget` on one row, with the label naming the widget (for screen
/// readers and for UI tests that find widgets by their labels).
pub fn labelled(ui: &mut egui::Ui, label: &str, widget: impl egui::Widget) -> egui::Response {
    ui.horizontal(|ui| {
        let name = ui.label(label);
        ui.add(widget).labelled_by(name.id)
    })
    .inner
}

/// A label followed by `widget` in the current layout, the label naming the widget.
pub fn labelled_inline(
    ui: &mut egui::Ui,
    label: &str,
    widget: impl egui::Widget,
) -> egui::Response {
    let name = ui.label(label);
    ui.add(widget).labelled_by(name.id)
}
