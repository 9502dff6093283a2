//! The workbench as a user meets it: the window clicked through by labels (egui_kittest), a
//! few image snapshots, the command line, and every project in `projects/` run headless.
//! One test binary, so egui and wgpu are linked once: each panel's tests
//! (`app/panels/<panel>/tests/*.rs`) and one test per example project are modules of it, found
//! by `app/build.rs`.

mod cluster;
mod common;
mod examples;
mod robustness;
mod window;

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
    let value = common::json_output(&["doctor", "--json"], false);
    assert!(
        value["backends"]["cpu_threads"]
            .as_u64()
            .is_some_and(|n| n >= 1)
    );
    assert!(value["adapters"].is_array());
}

/// Stops every job and waits until the window is idle.
fn stop_all(harness: &mut egui_kittest::Harness<'static, benchtop::shell::BenchtopApp>) {
    harness.state().jobs.cancel_all();
    common::run_until_idle(harness, std::time::Duration::from_secs(120));
}

/// Values of `param` inside its declared range other than `now` (for telling two panels
/// apart).
fn other_values(param: &benchtop_kit::panel::DeclaredParam, now: f64) -> Vec<f64> {
    let mid = 0.5 * (param.min + param.max);
    let mid = if param.integer { mid.round() } else { mid };
    [mid, param.min, param.max]
        .into_iter()
        .filter(|v| *v != now)
        .collect()
}

/// Every registered panel kind meets what the kit promises: it opens from the catalog with
/// valid defaults inside their declared ranges, draws every tab, accepts every declared
/// parameter by key and refuses an unknown one, offers only declared parameters to sweeps,
/// saves and reopens to the same document, and two panels of one kind in one project keep
/// their own parameters.
#[test]
fn every_panel_kind_conforms_to_the_kit() {
    for kind in benchtop::catalog::catalog() {
        let mut harness = common::harness(Session::new());
        common::open_panel(&mut harness, kind.name);
        common::open_panel(&mut harness, kind.name);
        let ids: Vec<_> = harness.state().session.panels.keys().copied().collect();
        assert_eq!(ids.len(), 2, "{}: two panels open", kind.name);
        let panel = &harness.state().session.panels[&ids[0]];
        assert!(
            panel.validate().is_empty(),
            "{}: {:?}",
            kind.name,
            panel.validate()
        );
        let declared = panel.declared_params();
        assert!(
            !declared.is_empty(),
            "{} declares its parameters",
            kind.name
        );
        for p in &declared {
            assert!(
                p.default >= p.min && p.default <= p.max,
                "{}: {} default {} outside {}..={}",
                kind.name,
                p.key,
                p.default,
                p.min,
                p.max
            );
        }
        let support = panel.sweep_support();
        assert!(
            !support.outputs.is_empty(),
            "{} records sweep outputs",
            kind.name
        );
        for sweepable in &support.params {
            assert!(
                declared.iter().any(|p| p.key == sweepable.key && p.sweep),
                "{}: sweep parameter {} is declared",
                kind.name,
                sweepable.key
            );
        }
        let tabs = panel.tab_labels();
        assert!(!tabs.is_empty(), "{} has tabs", kind.name);
        for tab in tabs {
            harness
                .get_all_by_label(tab)
                .next()
                .unwrap_or_else(|| panic!("{}: tab {tab}", kind.name))
                .click();
            harness.step();
            harness.step();
        }
        stop_all(&mut harness);

        // Every declared parameter is accepted at its value; an unknown key is refused.
        let session = &mut harness.state_mut().session;
        for p in &declared {
            session
                .set_param(ids[0], p.key, p.value)
                .unwrap_or_else(|e| panic!("{}: {e}", kind.name));
        }
        let unknown = session.set_param(ids[0], "no.such.key", 1.0).unwrap_err();
        assert!(unknown.to_string().contains("no.such.key"), "{unknown}");

        // The second panel gets another valid value of some parameter with a finite range.
        let finite = declared
            .iter()
            .filter(|p| p.min > f64::MIN && p.max < f64::MAX);
        let mut changed = None;
        'search: for p in finite {
            for value in other_values(p, p.value) {
                session.set_param(ids[1], p.key, value).expect("in range");
                if session.panels[&ids[1]].validate().is_empty() {
                    changed = Some((p, value));
                    break 'search;
                }
                session.set_param(ids[1], p.key, p.value).expect("back");
            }
        }
        let (distinct, value) = changed.expect("some parameter takes another valid value");

        let dir = tempfile::tempdir().expect("temporary folder");
        let path = dir.path().join("conformance.ron");
        session.save_as(&path).expect("saves");
        let before = session.to_doc(None).expect("document");
        let reopened = Session::open(&path).expect("reopens");
        assert_eq!(
            reopened.to_doc(None).expect("document"),
            before,
            "{}",
            kind.name
        );
        let values: Vec<f64> = ids
            .iter()
            .map(|id| {
                reopened.panels[id]
                    .declared_params()
                    .into_iter()
                    .find(|p| p.key == distinct.key)
                    .expect("declared")
                    .value
            })
            .collect();
        assert_eq!(
            values,
            [distinct.value, value],
            "{}: each panel keeps its own",
            kind.name
        );
    }
}

/// `benchtop run --preset NAME --set PANE:KEY=VALUE` sets declared parameters before computing,
/// negative values as typed; a missing preset, an unknown key and a value out of range are
/// refused with what is wrong.
#[test]
fn run_applies_presets_and_settings_and_refuses_bad_ones() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let project = dir.path().join("preset.ron");
    std::fs::write(
        &project,
        r#"(
            format_version: 1,
            panels: [(id: (1), state: Ising((
                params: (mc: (size: 64, thermalization_sweeps: 200, measurement_sweeps: 4000)),
                headless: (monte_carlo: true, duality: false),
            )))],
            presets: {"small": (set: [(pane: (1), key: "mc.size", value: 16.0)])},
        )"#,
    )
    .expect("write");
    let out = dir.path().join("out");
    let summary = examples::run_project(
        &project,
        &out,
        &[
            "--format",
            "svg",
            "--preset",
            "small",
            "--set",
            "1:mc.plaquette=-0.1",
        ],
    );
    let mc = &summary["panels"][0]["summary"]["monte_carlo"];
    assert_eq!(mc["size"], 16, "{mc}");
    assert!(
        (mc["plaquette"].as_f64().expect("K") + 0.1).abs() < 1e-12,
        "{mc}"
    );

    for (args, expected) in [
        (vec!["--preset", "huge"], "no preset `huge`"),
        (vec!["--set", "1:mc.nonsense=1"], "mc.nonsense"),
        (vec!["--set", "1:mc.size=1000000"], "outside"),
        (vec!["--set", "7:mc.size=16"], "no panel #7"),
        (vec!["--set", "mc.size=16"], "PANE:KEY=VALUE"),
    ] {
        let output = benchtop()
            .arg("run")
            .arg(&project)
            .arg("--out")
            .arg(&out)
            .args(&args)
            .output()
            .expect("runs");
        assert!(!output.status.success(), "{args:?} was accepted");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

/// `benchtop params` lists every kind's declared parameters from the one declaration.
#[test]
fn params_lists_the_declared_parameters() {
    let value = common::json_output(&["params", "--json"], false);
    for kind in benchtop::catalog::catalog() {
        let params = value[kind.id].as_array().expect("a list per kind");
        assert!(!params.is_empty(), "{}", kind.id);
    }
    let beta = value["ising"]
        .as_array()
        .and_then(|list| list.iter().find(|p| p["key"] == "mc.beta"))
        .expect("mc.beta is declared");
    assert_eq!(beta["integer"], false);
    assert!(beta["max"].as_f64().is_some_and(|m| m > 1.0), "{beta}");
    let unknown = benchtop().args(["params", "nope"]).output().expect("runs");
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("ising"));
}
