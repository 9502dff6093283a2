//! The workbench as a user meets it: the window clicked through by labels (egui_kittest), a
//! few image snapshots, the command line, and every project in `projects/` run headless.
//! One test binary, so egui and wgpu are linked once: each panel's tests
//! (`app/panels/<panel>/tests/*.rs`) and one test per example project are modules of it, found
//! by `app/build.rs`.

mod common;
mod examples;

include!(concat!(env!("OUT_DIR"), "/discovered_tests.rs"));

use std::path::Path;

use benchtop::session::Session;
use egui_kittest::kittest::Queryable as _;

use common::{benchtop, small_ising_session};
use examples::Example;

/// The shell's example projects (those that span panels) and their checks.
pub const EXAMPLES: &[Example] = &[Example {
    project: "tour",
    check: check_tour,
}];

/// The tour computes one panel of each kind it holds.
fn check_tour(_out: &Path, summary: &serde_json::Value) {
    let kinds: Vec<&str> = summary["panels"]
        .as_array()
        .expect("panels")
        .iter()
        .filter_map(|p| p["kind"].as_str())
        .collect();
    assert!(
        kinds.contains(&"ising") && kinds.contains(&"spectra"),
        "{kinds:?}"
    );
}

#[test]
fn menus_palette_theme_and_paper_reference() {
    let mut harness = common::harness(Session::new());
    assert!(harness.state().prefs.dark);
    harness.get_by_label("View").click();
    harness.run();
    harness.get_by_label("Dark or light theme").click();
    harness.run();
    assert!(!harness.state().prefs.dark, "the theme switched");

    harness.get_by_label("Help").click();
    harness.run();
    harness
        .get_by_label("Paper: Ising duality explorer")
        .click();
    harness.run();
    harness.get_by_label_contains("A Machine Learning Approach to Duality in Statistical Physics");
    harness.get_by_label("Close").click();
    harness.run();

    harness.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::P,
    );
    harness.run();
    harness.get_by_label("Command palette");
    harness.get_by_label("About Benchtop").click();
    harness.run();
    harness.get_by_label_contains(benchtop::build_info::APP_VERSION);
}

#[test]
fn a_bad_project_is_refused_and_the_open_project_kept() {
    let mut harness = common::harness(small_ising_session());
    let dir = tempfile::tempdir().expect("temporary folder");
    let bad = dir.path().join("broken.ron");
    std::fs::write(&bad, "(\n  format_version: 1,\n  panels: [ (id: (1), state: Ising((params: (mc: (beta: \"hot\"))))) ],\n)")
        .expect("write");
    harness.state_mut().open_path(&bad);
    harness.step();
    let notice = &harness
        .state()
        .notices
        .last()
        .expect("an error is shown")
        .text;
    assert!(
        notice.contains("broken.ron:3"),
        "names the file and line: {notice}"
    );
    assert!(notice.contains("beta"), "names the key: {notice}");
    assert_eq!(
        harness.state().session.panels.len(),
        1,
        "the open project is untouched"
    );

    let negative = dir.path().join("negative.ron");
    std::fs::write(
        &negative,
        "(format_version: 1, panels: [(id: (1), state: Ising((params: (mc: (beta: -1.0)))))])",
    )
    .expect("write");
    harness.state_mut().open_path(&negative);
    let notice = &harness
        .state()
        .notices
        .last()
        .expect("an error is shown")
        .text;
    assert!(
        notice.contains("negative.ron") && notice.contains("params.mc.beta"),
        "{notice}"
    );

    let future = dir.path().join("future.ron");
    std::fs::write(&future, "(format_version: 99)").expect("write");
    harness.state_mut().open_path(&future);
    let notice = &harness
        .state()
        .notices
        .last()
        .expect("an error is shown")
        .text;
    assert!(
        notice.contains("future.ron") && notice.contains("format 99"),
        "{notice}"
    );
}

#[test]
fn snapshot_welcome_and_catalog() {
    let Some(mut harness) = common::rendering_harness(Session::new()) else {
        return;
    };
    harness.step();
    harness.snapshot_options("welcome", &common::snapshot_options());
}

#[test]
fn run_refuses_bad_input_with_the_file_and_line() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let bad = dir.path().join("bad.ron");
    std::fs::write(
        &bad,
        "(\n  format_version: 1,\n  panels: [\n    oops\n  ],\n)",
    )
    .expect("write");
    let output = benchtop()
        .args([
            "run",
            &bad.display().to_string(),
            "--out",
            &dir.path().join("out").display().to_string(),
        ])
        .output()
        .expect("runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.ron:4"), "{stderr}");

    let missing = dir.path().join("missing.ron");
    let output = benchtop()
        .args(["run", &missing.display().to_string(), "--out", "x"])
        .output()
        .expect("runs");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing.ron"));

    let tiny = dir.path().join("tiny.ron");
    std::fs::write(
        &tiny,
        "(format_version: 1, panels: [(id: (1), state: Ising((params: (mc: (size: 3)))))])",
    )
    .expect("write");
    let output = benchtop()
        .args(["run", &tiny.display().to_string(), "--out", "x"])
        .output()
        .expect("runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("tiny.ron") && stderr.contains("size"),
        "{stderr}"
    );
}

#[test]
fn doctor_lists_backends() {
    let output = benchtop()
        .args(["doctor", "--json"])
        .output()
        .expect("runs");
    assert!(output.status.success());
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert!(
        value["backends"]["cpu_threads"]
            .as_u64()
            .is_some_and(|n| n >= 1)
    );
    assert!(value["adapters"].is_array());
}
