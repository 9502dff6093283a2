//! The workbench as a user meets it: the window clicked through by labels (egui_kittest), a
//! few image snapshots, and the headless binary on every project in `projects/`.
//! One test binary, so egui and wgpu are linked once.

mod common;
#[path = "panels/findr.rs"]
mod findr;
#[path = "panels/molstitch.rs"]
mod molstitch;
#[path = "panels/neurotree.rs"]
mod neurotree;
#[path = "panels/spectra.rs"]
mod spectra;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use benchtop::project::ProjectDoc;
use benchtop::session::Session;
use egui_kittest::kittest::Queryable as _;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn benchtop() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_benchtop"));
    command.current_dir(repo_root());
    command
}

/// A session with one Ising panel whose Monte Carlo is small (fast in debug builds).
fn small_ising_session() -> Session {
    let text = r"(
        format_version: 1,
        panels: [(id: (1), state: Ising((params: (
            mc: (size: 32, thermalization_sweeps: 100, measurement_sweeps: 400),
            duality: (beta: 0.3, max_steps: 5, samples_per_step: 40),
        ))))],
    )";
    let doc = ProjectDoc::parse(text, Path::new("small.ron")).expect("test project parses");
    Session::from_doc(doc, None).expect("test project opens")
}

#[test]
fn catalog_open_panel_change_run_save_reopen() {
    let mut harness = common::harness(Session::new());
    harness.get_by_label("Welcome to Benchtop");
    harness.get_by_label("Open Ising duality explorer").click();
    harness.step();
    assert_eq!(harness.state().session.panels.len(), 1);
    // The live run starts by itself; change a parameter, which restarts it.
    harness.get_by_label("Hot (random)").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(300));
    harness.get_by_label("bond energy per site");
    harness.get_by_label_contains("spin flips per ns");
    assert!(harness.state().is_dirty(), "an unsaved change shows");

    // Undo brings the cold start back (one step for the click).
    harness.get_by_label("Undo").click();
    harness.step();
    let state = harness.state().session.to_text().expect("serialises");
    assert!(
        state.contains("start: Cold"),
        "undo restored the cold start"
    );
    harness.get_by_label("Redo").click();
    common::run_until_idle(&mut harness, Duration::from_secs(300));

    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("run.ron");
    assert!(
        harness.state_mut().save_to(&path),
        "{:?}",
        harness.state().notices
    );
    harness.step();
    assert!(
        !harness.state().is_dirty(),
        "saving clears the unsaved mark"
    );
    assert!(
        dir.path().join("run.data/ising-series.npy").exists(),
        "arrays go to the sidecar"
    );

    let original = harness.state().session.to_doc(None).expect("document");
    let reopened = Session::open(&path).expect("the saved project reopens");
    assert_eq!(
        reopened.to_doc(None).expect("document"),
        original,
        "reopening restores every panel"
    );
    let before = harness
        .state()
        .session
        .panels
        .values()
        .next()
        .expect("panel")
        .summary();
    let after = reopened.panels.values().next().expect("panel").summary();
    assert_eq!(before, after, "results survive save and reopen");
    assert!(after["monte_carlo"]["observables"]["binder_cumulant"]["value"].is_f64());
}

#[test]
fn sweeps_are_defined_run_and_saved_from_the_panel() {
    let mut harness = common::harness(small_ising_session());
    common::run_until_idle(&mut harness, Duration::from_secs(300));
    harness.get_by_label("Sweeps (0)").click();
    harness.step();
    harness.get_by_label("Add sweep").click();
    harness.step();
    assert_eq!(harness.state().session.sweeps.len(), 1);
    harness.get_by_label("Run sweep 1").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(600));
    let doc = &harness.state().session.sweeps[0].doc;
    assert_eq!(doc.results.len(), 8, "eight points of the default grid");
    assert!(
        doc.results.iter().all(|p| p.error.is_none()),
        "{:?}",
        doc.results
    );
    assert!(
        benchtop::sweep::missing_points(doc)
            .expect("grid")
            .is_empty(),
        "nothing left to compute"
    );
    harness.get_by_label_contains("Table of 8 results");
    let text = harness.state().session.to_text().expect("serialises");
    let saved = ProjectDoc::parse(&text, Path::new("saved.ron")).expect("parses");
    assert_eq!(
        saved.sweeps[0].results.len(),
        8,
        "sweep results are saved with the project"
    );
    let csv = benchtop::sweep::to_csv(&saved.sweeps[0]).expect("csv");
    assert_eq!(csv.lines().count(), 9);
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
fn snapshot_ising_panel_after_a_run() {
    let Some(mut harness) = common::rendering_harness(small_ising_session()) else {
        return;
    };
    common::run_until_idle(&mut harness, Duration::from_secs(300));
    harness.step();
    // The measured speed differs from run to run.
    let speed = harness.get_by_label_contains("spin flips per ns").rect();
    harness.mask(speed);
    harness.snapshot_options("ising_monte_carlo", &common::snapshot_options());
}

/// Runs `benchtop run` on a project into a fresh folder and returns the folder.
fn run_project(project: &Path, out: &Path) -> serde_json::Value {
    let output = benchtop()
        .args([
            "run",
            &project.display().to_string(),
            "--out",
            &out.display().to_string(),
            "--dpi",
            "100",
        ])
        .output()
        .expect("benchtop runs");
    assert!(
        output.status.success(),
        "benchtop run {} failed:\n{}",
        project.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = std::fs::read_to_string(out.join("summary.json")).expect("summary.json written");
    serde_json::from_str(&summary).expect("summary.json is JSON")
}

fn csv_rows(path: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).expect("csv opens");
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_owned)
        .collect();
    reader
        .records()
        .map(|row| {
            header
                .iter()
                .cloned()
                .zip(row.expect("row").iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

#[test]
fn every_project_runs_headless() {
    let mut projects: Vec<PathBuf> = std::fs::read_dir(repo_root().join("projects"))
        .expect("projects folder")
        .map(|entry| entry.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    projects.sort();
    assert!(projects.len() >= 3);
    for project in projects {
        let out = tempfile::tempdir().expect("temporary folder");
        let summary = run_project(&project, out.path());
        assert!(
            summary["panels"].as_array().is_some_and(|p| !p.is_empty()),
            "{summary}"
        );
        let figures: Vec<PathBuf> = walk(out.path())
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "svg"))
            .collect();
        assert!(
            !figures.is_empty(),
            "{} exported no figure",
            project.display()
        );
        for svg in &figures {
            let text = std::fs::read_to_string(svg).expect("svg");
            assert!(
                text.contains("<metadata"),
                "{} has no provenance",
                svg.display()
            );
            assert!(svg.with_extension("png").exists() && svg.with_extension("pdf").exists());
            let stem = svg
                .file_stem()
                .expect("stem")
                .to_string_lossy()
                .into_owned();
            assert!(
                svg.with_file_name(format!("{stem}.provenance.json"))
                    .exists()
            );
        }
        let name = project
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        match name.as_str() {
            "ising-kramers-wannier" => check_kramers_wannier(out.path()),
            "ising-phase-transition" => check_phase_transition(out.path()),
            "weather-spectra-analytic" => spectra::check_analytic_sweep(out.path()),
            "weather-spectra-learned" => spectra::check_learned(&summary),
            "findr-planted-line-attractor" => findr::check_findr(&summary),
            "neurotree-real-sample" => neurotree::check_neurotree_real(&summary),
            "neurotree-planted-dmn" => neurotree::check_neurotree_planted(&summary),
            "molstitch-stitching" => molstitch::check_molstitch_stitching(&summary),
            "molstitch-optimise" => molstitch::check_molstitch_optimise(&summary),
            _ => {}
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// The learned dual coupling lies within 2 % of sinh 2β·sinh 2β* = 1 across β ∈ [0.1, 0.8].
fn check_kramers_wannier(out: &Path) {
    let rows = csv_rows(&out.join("sweeps/kramers-wannier-curve.csv"));
    assert_eq!(rows.len(), 9);
    for row in rows {
        let beta: f64 = row["duality.beta"].parse().expect("β");
        let learned: f64 = row["duality.dual_beta"].parse().expect("β̃");
        let exact = benchtop_ising::kramers_wannier_dual(beta);
        assert!(
            ((learned - exact) / exact).abs() < 0.02,
            "β = {beta}: learned β̃ = {learned}, exact {exact}"
        );
    }
}

/// Binder cumulants fan out below β_c and meet near it; χ peaks near β_c for the largest L.
fn check_phase_transition(out: &Path) {
    let rows = csv_rows(&out.join("sweeps/binder-crossing.csv"));
    let value = |beta: f64, size: f64, key: &str| -> f64 {
        rows.iter()
            .find(|r| {
                (r["mc.beta"].parse::<f64>().expect("β") - beta).abs() < 1e-9
                    && r["mc.size"].parse::<f64>().expect("L") == size
            })
            .map(|r| r[key].parse().expect("number"))
            .expect("grid point")
    };
    // Disordered side: U falls with L. Ordered side: U approaches 2/3 for every L.
    assert!(value(0.40, 16.0, "mc.binder_cumulant") > value(0.40, 32.0, "mc.binder_cumulant"));
    assert!(value(0.40, 32.0, "mc.binder_cumulant") > value(0.40, 64.0, "mc.binder_cumulant"));
    for size in [16.0, 32.0, 64.0] {
        assert!((value(0.48, size, "mc.binder_cumulant") - 2.0 / 3.0).abs() < 0.03);
    }
    // The L = 32 and L = 64 curves cross between β = 0.43 and 0.45 (β_c = 0.4407).
    let gap = |beta: f64| {
        value(beta, 64.0, "mc.binder_cumulant") - value(beta, 32.0, "mc.binder_cumulant")
    };
    assert!(
        gap(0.43) < 0.0 && gap(0.45) > 0.0,
        "crossing: {} {}",
        gap(0.43),
        gap(0.45)
    );
    // The susceptibility of the largest lattice peaks within 0.03 of β_c.
    let betas: Vec<f64> = (0..9).map(|i| 0.40 + 0.01 * f64::from(i)).collect();
    let peak = betas
        .iter()
        .copied()
        .max_by(|a, b| {
            value(*a, 64.0, "mc.susceptibility").total_cmp(&value(*b, 64.0, "mc.susceptibility"))
        })
        .expect("points");
    assert!(
        (peak - benchtop_ising::BETA_CRITICAL).abs() <= 0.03,
        "χ peaks at β = {peak}"
    );
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
fn bench_prints_exactly_one_json_object() {
    for backend in ["cpu", "wgpu"] {
        if backend == "wgpu" && benchtop_compute::gpu::context_or_skip("bench wgpu").is_none() {
            continue;
        }
        let output = benchtop()
            .args([
                "bench",
                "ising",
                "--size",
                "64",
                "--beta",
                "0.6",
                "--sweeps",
                "400",
                "--seed",
                "3",
                "--backend",
                backend,
            ])
            .output()
            .expect("runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8(output.stdout).expect("utf-8");
        assert_eq!(stdout.trim().lines().count(), 1, "one line: {stdout}");
        let value: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
        for key in [
            "flips_per_ns",
            "bond_energy_per_site",
            "bond_energy_per_site_err",
            "plaquette_per_site",
            "plaquette_per_site_err",
            "abs_magnetization",
            "abs_magnetization_err",
            "backend",
            "adapter",
        ] {
            assert!(value.get(key).is_some(), "missing {key}: {value}");
        }
        assert_eq!(value["backend"], backend);
        // β = 0.6 is deep in the ordered phase: |m| is Onsager's 0.975 within a few errors.
        let m = value["abs_magnetization"].as_f64().expect("number");
        let exact = benchtop_ising::exact::spontaneous_magnetization(0.6);
        assert!(
            (m - exact).abs() < 0.01,
            "{backend}: |m| = {m}, exact {exact}"
        );
    }
    let output = benchtop()
        .args(["bench", "ising", "--size", "63"])
        .output()
        .expect("runs");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("odd"));
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

#[test]
fn a_project_whose_sidecar_is_missing_opens_with_its_parameters() {
    let mut harness = common::harness(small_ising_session());
    common::run_until_idle(&mut harness, Duration::from_secs(300));
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("shared.ron");
    assert!(harness.state_mut().save_to(&path));
    std::fs::remove_dir_all(dir.path().join("shared.data")).expect("sidecar removed");
    let reopened = Session::open(&path).expect("opens without its arrays");
    let panel = reopened.panels.values().next().expect("panel");
    assert!(
        panel.summary()["monte_carlo"].is_null(),
        "results are dropped, not invented"
    );
    let text = reopened.to_text().expect("serialises");
    assert!(text.contains("size: 32"), "parameters survive");
}
