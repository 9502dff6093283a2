//! Interaction: file dialogs that always work (Benchtop's own when the system's cannot be
//! shown), sliders with fine drag and typed values, a tooltip on every declared parameter, and
//! the Ising panel usable in a 1024×700 window.

use std::path::Path;
use std::time::Duration;

use benchtop::commands::Command;
use benchtop::session::Session;
use benchtop::shell::BenchtopApp;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;

use crate::common;

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

fn click(harness: &mut Window, label: &str) {
    harness.get_by_label(label).click();
    harness.step();
    harness.step();
}

/// Replaces the text of the field labelled `label` with `text` and presses Enter.
fn type_into(harness: &mut Window, label: &str, text: &str) {
    harness.get_by_label(label).click();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.get_by_label(label).type_text(text);
    harness.step();
    harness.key_press(egui::Key::Enter);
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
