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

/// A warning line with a "Dismiss" button; dismissing clears `warning`.
pub fn dismissible_warning(ui: &mut egui::Ui, warning: &mut Option<String>) {
    let Some(text) = warning.as_deref() else {
        return;
    };
    let mut dismiss = false;
    ui.horizontal(|ui| {
        ui.colored_label(ui.visuals().warn_fg_color, text);
        dismiss = ui.small_button("Dismiss").clicked();
    });
    if dismiss {
        *warning = None;
    }
}

/// What a task shows once its run was stopped before it finished.
pub const CANCELLED_NOTE: &str = "Cancelled: the run was stopped before it finished.";

/// A running job's progress bar (its message and the time left) and a stop button labelled
/// `stop`; true when it was clicked.
pub fn job_progress(ui: &mut egui::Ui, info: &crate::jobs::JobInfo, stop: &str) -> bool {
    let fraction = info.progress.fraction() as f32;
    let left = info
        .time_left()
        .map(|text| format!(" — {text}"))
        .unwrap_or_default();
    let message = info.progress.message();
    let text = if message.is_empty() {
        format!("{:.0}%{left}", 100.0 * fraction)
    } else {
        format!("{message}{left}")
    };
    ui.add(egui::ProgressBar::new(fraction).text(text));
    ui.button(stop).clicked()
}

/// The layout of most tabs: a column of controls `width` points wide (scrolling on its own)
/// on the left, a separator, and the figures on the right. Both sides draw from `state`, one
/// after the other.
pub fn controls_and_view<T: ?Sized>(
    ui: &mut egui::Ui,
    id_salt: &str,
    width: f32,
    state: &mut T,
    controls: impl FnOnce(&mut T, &mut egui::Ui),
    view: impl FnOnce(&mut T, &mut egui::Ui),
) {
    ui.horizontal_top(|ui| {
        ui.vertical(|ui| {
            ui.set_width(width);
            egui::ScrollArea::vertical()
                .id_salt(id_salt)
                .show(ui, |ui| controls(state, ui));
        });
        ui.separator();
        ui.vertical(|ui| view(state, ui));
    });
}

/// A data file field: the path (relative to the project file, or absolute) with `hint` when
/// empty, and a "Choose file…" button opening a dialog filtered to `extensions` (the system's,
/// else Benchtop's own: see [`crate::file_dialog`]). True when the path changed.
pub fn file_field(
    ui: &mut egui::Ui,
    label: &str,
    path: &mut String,
    hint: &str,
    filter: (&str, &[&str]),
) -> bool {
    let mut changed =
        labelled(ui, label, egui::TextEdit::singleline(path).hint_text(hint)).changed();
    let open = ui.button("Choose file…").clicked().then(|| {
        let current = std::path::Path::new(path.as_str());
        crate::file_dialog::Request::new(crate::file_dialog::Kind::Open, label)
            .filter(crate::file_dialog::Filter::new(filter.0, filter.1))
            .folder(current.parent().map(std::path::Path::to_path_buf))
    });
    let id = ui.make_persistent_id(("file_field", label));
    if let Some(chosen) = crate::file_dialog::pick(ui.ctx(), id, open) {
        *path = chosen.display().to_string();
        changed = true;
    }
    changed
}
