//! Interaction: file dialogs that always work (Benchtop's own when the system's cannot be
//! shown), sliders with fine drag and typed values, a tooltip on every declared parameter, and
//! the Ising panel usable in a 1024×700 window.

use std::path::Path;
use std::time::Duration;

use benchtop::commands::Command;
use benchtop::session::Session;
use benchtop::shell::BenchtopApp;
use benchtop_kit::project::PaneId;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;

use crate::common;
use crate::common::{click, type_into};

type Window = Harness<'static, BenchtopApp>;

/// A window without the catalog, with the system's file dialog switched off (as
/// `BENCHTOP_FILE_DIALOG=builtin` does).
fn window(session: Session) -> Window {
    benchtop_kit::file_dialog::set_native(false);
    let mut harness = common::harness(session);
    harness.state_mut().prefs.show_catalog = false;
    harness.step();
    harness
}

fn run(harness: &mut Window, command: Command) {
    let ctx = harness.ctx.clone();
    harness.state_mut().run_command(&ctx, command);
    harness.step();
    harness.step();
}

/// Steps until the window shows a notice (an export reports once it is written).
fn wait_for_notice(harness: &mut Window) -> String {
    for _ in 0..3000 {
        if let Some(notice) = harness.state().notices.last() {
            return notice.text.clone();
        }
        std::thread::sleep(Duration::from_millis(20));
        harness.step();
    }
    panic!("no notice after 60 s");
}

#[test]
fn without_a_system_dialog_save_as_open_and_export_use_benchtops_own() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut harness = window(common::small_ising_session());
    common::run_until_idle(&mut harness, Duration::from_secs(120));

    // Save as: the in-window dialog asks; an absolute name is taken as typed, the extension
    // added.
    run(&mut harness, Command::SaveAs);
    harness.get_by_label("Save the Benchtop project");
    let saved = dir.path().join("second.ron");
    type_into(
        &mut harness,
        "File name",
        &dir.path().join("second").display().to_string(),
    );
    click(&mut harness, "Save");
    assert!(saved.is_file(), "Save as wrote {}", saved.display());
    assert_eq!(
        harness.state().session.path.as_deref(),
        Some(saved.as_path())
    );
    assert!(!harness.state().is_dirty());
    assert!(
        harness
            .query_by_label("Save the Benchtop project")
            .is_none(),
        "closed"
    );

    // Open, from an untitled window: type the folder, pick the file from the listing.
    let mut harness = window(Session::new());
    run(&mut harness, Command::OpenProject);
    harness.get_by_label("Open a Benchtop project");
    type_into(&mut harness, "Folder", &dir.path().display().to_string());
    // A missing file is refused in the dialog, not only in the log.
    type_into(&mut harness, "File name", "missing.ron");
    click(&mut harness, "Open");
    harness.get_by_label_contains("missing.ron does not exist");
    click(&mut harness, "second.ron");
    click(&mut harness, "Open");
    assert_eq!(
        harness.state().session.path.as_deref(),
        Some(saved.as_path())
    );
    assert_eq!(
        harness.state().session.panels.len(),
        1,
        "the saved Ising panel"
    );
    assert!(
        harness.query_by_label("Open a Benchtop project").is_none(),
        "closed"
    );

    // Export: choose the formats, then a new folder made in the dialog.
    run(&mut harness, Command::ExportFigures);
    harness.get_by_label("PDF").click();
    harness.step();
    click(&mut harness, "Choose a folder and export…");
    // The dialog opens after the export choices close; its first frame only measures it.
    harness.step();
    harness.get_by_label("Export into folder");
    type_into(&mut harness, "New folder", "figures");
    click(&mut harness, "Create and open");
    let out = dir.path().join("figures");
    assert!(out.is_dir(), "the dialog made the folder");
    click(&mut harness, "Choose this folder");
    let message = wait_for_notice(&mut harness);
    assert!(
        message.starts_with("Exported") && message.contains(&out.display().to_string()),
        "{message}"
    );
    assert!(out.join("summary.json").is_file(), "{message}");
    assert!(
        !files_with_extension(&out, "pdf"),
        "PDF was unticked: {message}"
    );
}

/// Whether any file under `dir` ends in `.extension`.
fn files_with_extension(dir: &Path, extension: &str) -> bool {
    std::fs::read_dir(dir)
        .expect("listed")
        .flatten()
        .any(|entry| {
            let path = entry.path();
            if path.is_dir() {
                files_with_extension(&path, extension)
            } else {
                path.extension().is_some_and(|e| e == extension)
            }
        })
}

/// The value of declared parameter `key` of the first pane.
fn value(harness: &Window, key: &str) -> f64 {
    harness.state().session.panels[&PaneId(1)]
        .declared_params()
        .into_iter()
        .find(|p| p.key == key)
        .unwrap_or_else(|| panic!("{key} is declared"))
        .value
}

/// Drags the rail of the slider labelled `label` by `dx` points from its middle, in small moves
/// as a hand does, with `modifiers` held throughout.
fn drag_rail(harness: &mut Window, label: &str, dx: f32, modifiers: egui::Modifiers) {
    let rail = harness.get_by_role_and_label(Role::Slider, label).rect();
    let from = rail.center();
    harness.event(egui::Event::ModifiersChanged(modifiers));
    harness.hover_at(from);
    harness.step();
    harness.drag_at(from);
    harness.step();
    for step in 1..=10 {
        harness.hover_at(from + egui::vec2(dx * step as f32 / 10.0, 0.0));
        harness.step();
    }
    harness.drop_at(from + egui::vec2(dx, 0.0));
    harness.step();
    harness.event(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
    harness.step();
}

/// The number field beside the slider labelled `label` (the one on its row, right of it).
fn slider_field<'a>(harness: &'a Window, label: &str) -> egui_kittest::Node<'a> {
    let rail = harness.get_by_role_and_label(Role::Slider, label).rect();
    harness
        .query_all_by_role(Role::SpinButton)
        .filter(|n| (n.rect().center().y - rail.center().y).abs() < 4.0)
        .filter(|n| n.rect().left() >= rail.right() - 1.0)
        .min_by(|a, b| a.rect().left().total_cmp(&b.rect().left()))
        .unwrap_or_else(|| panic!("a number field beside {label}"))
}

/// Types `text` into the number field beside the slider labelled `label`.
fn type_beside_slider(harness: &mut Window, label: &str, text: &str) {
    slider_field(harness, label).click();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    slider_field(harness, label).type_text(text);
    harness.key_press(egui::Key::Enter);
    harness.step();
    harness.step();
}

/// An Ising panel that does not run by itself (so the sliders only move what the test moves).
fn quiet_ising() -> Session {
    common::session_from(
        r"(
        format_version: 1,
        panels: [(id: (1), state: Ising((
            params: (mc: (size: 16, thermalization_sweeps: 10, measurement_sweeps: 20)),
        )))],
    )",
        "quiet.ron",
    )
}

#[test]
fn sliders_drag_finely_with_shift_and_take_typed_values_in_range() {
    let mut harness = window(quiet_ising());
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    let start = value(&harness, "mc.beta");

    drag_rail(&mut harness, "Coupling β", 30.0, egui::Modifiers::NONE);
    let coarse = value(&harness, "mc.beta") - start;
    type_beside_slider(&mut harness, "Coupling β", &start.to_string());
    assert_eq!(value(&harness, "mc.beta"), start, "typed back");
    drag_rail(&mut harness, "Coupling β", 30.0, egui::Modifiers::SHIFT);
    let fine = value(&harness, "mc.beta") - start;
    assert!(
        coarse > 0.0 && fine > 0.0,
        "both drags move β up: {coarse}, {fine}"
    );
    // Without Shift the value jumps to the pointer; with it, it moves a tenth as fast from
    // where it was.
    assert!(
        fine < coarse / 5.0,
        "Shift-drag is finer: {fine} against {coarse}"
    );
    common::run_until_idle(&mut harness, Duration::from_secs(60));

    // Typed values: exact, and kept in the slider's range.
    type_beside_slider(&mut harness, "Coupling β", "0.4407");
    assert_eq!(value(&harness, "mc.beta"), 0.4407);
    type_beside_slider(&mut harness, "Plaquette K", "-0.125");
    assert_eq!(value(&harness, "mc.plaquette"), -0.125);
    type_beside_slider(&mut harness, "Plaquette K", "1e9");
    let k = value(&harness, "mc.plaquette");
    assert!(k <= 10.0, "a typed value stays in range: {k}");
    // A count typed into its number field.
    harness.get_by_label("Thermalisation sweeps").click();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness
        .get_by_label("Thermalisation sweeps")
        .type_text("1234");
    harness.key_press(egui::Key::Enter);
    harness.step();
    assert_eq!(value(&harness, "mc.thermalization_sweeps"), 1234.0);
    // The tooltip tells how.
    let tooltip = benchtop_kit::params::SLIDER_HINT;
    assert!(tooltip.contains("Shift") && tooltip.contains("type"));
    harness.state().jobs.cancel_all();
    common::run_until_idle(&mut harness, Duration::from_secs(60));
}

#[test]
fn every_declared_parameter_of_every_panel_kind_has_a_tooltip() {
    let mut missing = Vec::new();
    for kind in benchtop::catalog::catalog() {
        let panel = benchtop::catalog::create(kind).expect("the catalog creates each kind");
        let declared = panel.declared_params();
        assert!(!declared.is_empty(), "{} declares parameters", kind.id);
        for param in declared {
            if param.tooltip.trim().is_empty() {
                missing.push(format!("{}: {} ({})", kind.id, param.label, param.key));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "parameters without a tooltip:\n{}",
        missing.join("\n")
    );
}

/// Whether `rect` lies inside a 1024×700 window, above its status bar.
fn on_screen(rect: egui::Rect) -> bool {
    rect.left() >= 0.0 && rect.top() >= 0.0 && rect.right() <= 1024.0 && rect.bottom() <= 670.0
}

/// Scrolls the widget labelled `label` into view and says where it is.
fn reach(harness: &mut Window, label: &str) -> egui::Rect {
    harness.get_by_label(label).scroll_to_me();
    // Scrolling is animated over a few frames.
    for _ in 0..20 {
        harness.step();
    }
    harness.get_by_label(label).rect()
}

#[test]
fn the_ising_tabs_fit_a_1024_by_700_window() {
    benchtop_kit::file_dialog::set_native(false);
    let mut harness = common::harness(common::small_ising_session());
    harness.set_size(egui::vec2(1024.0, 700.0));
    assert!(
        harness.state().prefs.show_catalog,
        "with the catalog beside it"
    );
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    harness.run_steps(3);
    // The last control of the Monte Carlo tab, and the last column and row of its table.
    for label in ["Run Monte Carlo", "exact (∞)", "correlation length ξ"] {
        let rect = reach(&mut harness, label);
        assert!(on_screen(rect), "{label} is reachable: {rect:?}");
    }
    harness.get_by_label("Duality").click();
    harness.run_steps(3);
    for label in ["Map approximate duals", "Train duality map"] {
        let rect = reach(&mut harness, label);
        assert!(on_screen(rect), "{label} is reachable: {rect:?}");
    }
    harness.state().jobs.cancel_all();
    common::run_until_idle(&mut harness, Duration::from_secs(60));
}

/// Presses `key` with `modifiers` (a shortcut) and lets the window act on it.
fn shortcut(harness: &mut Window, modifiers: egui::Modifiers, key: egui::Key) {
    harness.key_press_modifiers(modifiers, key);
    harness.step();
    harness.step();
}

#[test]
fn shortcuts_follow_the_platform_and_a_typed_number_is_one_undo_step() {
    let ctrl = egui::Modifiers::COMMAND;
    let ctrl_shift = egui::Modifiers::COMMAND.plus(egui::Modifiers::SHIFT);
    let mut harness = window(quiet_ising());
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    let before = value(&harness, "mc.thermalization_sweeps");
    // "16" typed into a number field and committed: one undo step back to where it was.
    harness.get_by_label("Thermalisation sweeps").click();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness
        .get_by_label("Thermalisation sweeps")
        .type_text("16");
    harness.step();
    harness.key_press(egui::Key::Enter);
    harness.step();
    harness.step();
    assert_eq!(value(&harness, "mc.thermalization_sweeps"), 16.0);
    shortcut(&mut harness, ctrl, egui::Key::Z);
    assert_eq!(
        value(&harness, "mc.thermalization_sweeps"),
        before,
        "Ctrl+Z undoes the whole typed number, not its last keystroke"
    );
    // Redo: Ctrl+Shift+Z and Ctrl+Y (Ctrl+Shift+Z used to undo again).
    shortcut(&mut harness, ctrl_shift, egui::Key::Z);
    assert_eq!(value(&harness, "mc.thermalization_sweeps"), 16.0);
    shortcut(&mut harness, ctrl, egui::Key::Z);
    assert_eq!(value(&harness, "mc.thermalization_sweeps"), before);
    shortcut(&mut harness, ctrl, egui::Key::Y);
    assert_eq!(value(&harness, "mc.thermalization_sweeps"), 16.0);
    // Ctrl+Shift+S opens Save as (it used to overwrite the open project).
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("kept.ron");
    assert!(harness.state_mut().save_to(&path));
    let saved = std::fs::read_to_string(&path).expect("saved");
    harness.get_by_label("Thermalisation sweeps").click();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness
        .get_by_label("Thermalisation sweeps")
        .type_text("17");
    harness.key_press(egui::Key::Enter);
    harness.step();
    shortcut(&mut harness, ctrl_shift, egui::Key::S);
    harness.get_by_label("Save the Benchtop project");
    assert_eq!(
        std::fs::read_to_string(&path).expect("still there"),
        saved,
        "Ctrl+Shift+S did not overwrite the open project"
    );
    harness.key_press(egui::Key::Escape);
    harness.step();
    harness.state().jobs.cancel_all();
    common::run_until_idle(&mut harness, Duration::from_secs(60));
}

#[test]
fn the_command_palette_opens_above_an_open_dialog_and_takes_typing() {
    let mut harness = window(quiet_ising());
    let kind = &benchtop::catalog::catalog()[0];
    harness.state_mut().modal = Some(benchtop::shell::Modal::Paper(kind));
    harness.step();
    let dark = harness.state().prefs.dark;
    run(&mut harness, Command::CommandPalette);
    // Behind the paper's modal dialog, the palette would get neither keys nor clicks.
    harness.get_by_label("Find a command").type_text("theme");
    harness.step();
    harness.step();
    assert!(
        harness.query_by_label("Open the tour").is_none(),
        "the typed word filters the commands"
    );
    harness.get_by_label("Dark or light theme").click();
    harness.step();
    harness.step();
    assert_ne!(
        harness.state().prefs.dark,
        dark,
        "the palette ran 'Dark or light theme' while the Paper dialog was open"
    );
    harness.state().jobs.cancel_all();
    common::run_until_idle(&mut harness, Duration::from_secs(60));
}
