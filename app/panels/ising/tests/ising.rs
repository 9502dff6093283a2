//! The Ising duality explorer as a user meets it: opened from the catalog, run, undone, saved
//! and reopened; its sweeps; its window snapshot; `benchtop bench ising`; and the known answers
//! of its example projects.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use benchtop::catalog::ProjectDoc;
use benchtop::session::Session;
use benchtop_kit::compute::{CancelToken, Progress};
use benchtop_kit::panel::Panel as _;
use benchtop_panel_ising::{IsingPanel, IsingParams, IsingState};
use egui_kittest::kittest::Queryable as _;

use crate::common::{self, benchtop, csv_rows, small_ising_session};
use crate::examples::Example;

/// The Ising example projects and their known answers.
pub const EXAMPLES: &[Example] = &[
    Example {
        project: "ising-kramers-wannier",
        check: check_kramers_wannier,
    },
    Example {
        project: "ising-phase-transition",
        check: check_phase_transition,
    },
];

#[test]
fn catalog_open_panel_change_run_save_reopen() {
    let mut harness = common::harness(Session::new());
    harness.get_by_label("Welcome to Benchtop");
    common::open_panel(&mut harness, "Ising duality explorer");
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
    let reopened = common::save_and_reopen(&mut harness, &path);
    harness.step();
    assert!(
        !harness.state().is_dirty(),
        "saving clears the unsaved mark"
    );
    assert!(
        common::sidecar_folder(&path)
            .join("1-ising-series.npy")
            .exists(),
        "arrays go to the sidecar"
    );

    let after = common::first_summary(&reopened);
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
        benchtop_kit::sweep::missing_points(doc)
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
    let csv = benchtop_kit::sweep::to_csv(&saved.sweeps[0]).expect("csv");
    assert_eq!(csv.lines().count(), 9);
}

/// A sweep point sets each parameter through its declaration: every key the panel's sweeps
/// have always offered (saved projects name them) reaches its field, every declared sweepable
/// key is accepted, an unknown key is refused, and the fingerprint is the one saved sweeps
/// were stamped with.
#[test]
fn sweep_points_set_declared_parameters_and_refuse_unknown_keys() {
    let panel = IsingPanel::new(IsingState::default());
    let declared = panel.declared();
    type Read = fn(&IsingParams) -> f64;
    let fields: [(&str, f64, Read); 9] = [
        ("mc.beta", 0.5, |p| p.mc.beta),
        ("mc.plaquette", 0.25, |p| p.mc.plaquette),
        ("mc.size", 48.0, |p| p.mc.size as f64),
        ("mc.measurement_sweeps", 1234.0, |p| {
            p.mc.measurement_sweeps as f64
        }),
        ("duality.beta", 0.35, |p| p.duality.beta),
        ("duality.plaquette", -0.2, |p| p.duality.plaquette),
        ("duality.size", 16.0, |p| p.duality.size as f64),
        ("duality.samples_per_step", 64.0, |p| {
            p.duality.samples_per_step as f64
        }),
        ("duality.learning_rate", 0.02, |p| p.duality.learning_rate),
    ];
    let support = panel.sweep_support();
    assert_eq!(
        support.params.first().map(|p| p.key.as_str()),
        Some("mc.beta"),
        "a new sweep varies the coupling"
    );
    for (key, value, read) in fields {
        assert!(
            support.params.iter().any(|p| p.key == key),
            "{key} is offered to sweeps"
        );
        let mut params = IsingParams::default();
        declared
            .get(key)
            .unwrap_or_else(|| panic!("{key} is declared"))
            .set(&mut params, value)
            .expect("set");
        assert_eq!(read(&params), value, "{key}");
    }
    let (progress, cancel) = (Progress::new(), CancelToken::new());
    for param in &support.params {
        // No outputs: the point's values are set and nothing is computed.
        let point = BTreeMap::from([(param.key.clone(), param.current)]);
        let values = support
            .evaluator
            .evaluate(&point, &[], 1, &progress, &cancel)
            .unwrap_or_else(|e| panic!("{}: {e}", param.key));
        assert!(values.is_empty());
    }
    let unknown = BTreeMap::from([("mc.temperature".to_owned(), 1.0)]);
    let refused = support
        .evaluator
        .evaluate(&unknown, &[], 1, &progress, &cancel)
        .expect_err("an unknown key is refused");
    assert!(refused.to_string().contains("mc.temperature"), "{refused}");
    let params = panel.params();
    assert_eq!(
        support.fingerprint,
        format!("{:?}", (&params.mc, &params.duality)),
        "sweeps saved before stay current"
    );
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
    // So does the thread count (one per core of the machine running the test).
    let backend = harness.get_by_label_contains("Backend: CPU").rect();
    harness.mask(backend);
    harness.snapshot_options("ising_monte_carlo", &common::snapshot_options());
}

#[test]
fn bench_prints_exactly_one_json_object() {
    for backend in ["cpu", "wgpu"] {
        if backend == "wgpu" && benchtop_kit::compute::gpu::context_or_skip("bench wgpu").is_none() {
            continue;
        }
        let value = common::json_output(
            &[
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
            ],
            true,
        );
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
        let exact = benchtop_panel_ising::engine::exact::spontaneous_magnetization(0.6);
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

/// `--plaquette -0.1` is a coupling, not an unknown flag; and K ≠ 0 has no exact values.
#[test]
fn bench_accepts_a_negative_plaquette_coupling() {
    let value = common::json_output(
        &[
            "bench",
            "ising",
            "--plaquette",
            "-0.1",
            "--size",
            "16",
            "--beta",
            "0.3",
            "--sweeps",
            "200",
        ],
        true,
    );
    assert_eq!(value["plaquette"], -0.1);
    assert_eq!(value["size"], 16);
    assert!(value["exact_this_lattice"].is_null(), "{value}");
    assert!(value["bond_energy_per_site"].is_f64());
}

/// At β = 0 every spin is independent: the bench reports b ≈ 0 and |m| ≈ √(2/(πN)), not the
/// frozen cold start (|m| = 1, b = 2) plain checkerboard Metropolis produced.
#[test]
fn bench_at_infinite_temperature_matches_independent_spins() {
    let value = common::json_output(
        &[
            "bench",
            "ising",
            "--beta",
            "0",
            "--size",
            "64",
            "--sweeps",
            "1000",
            "--measure-every",
            "1",
        ],
        true,
    );
    let number = |key: &str| value[key].as_f64().unwrap_or_else(|| panic!("{key}: {value}"));
    let exact_m = value["exact_this_lattice"]["abs_magnetization"]
        .as_f64()
        .expect("exact |m| at β = 0");
    assert!((exact_m - (2.0 / (std::f64::consts::PI * 4096.0)).sqrt()).abs() < 1e-4);
    assert!(
        (number("abs_magnetization") - exact_m).abs() < 4.0 * number("abs_magnetization_err"),
        "{value}"
    );
    assert!(
        number("bond_energy_per_site").abs() < 4.0 * number("bond_energy_per_site_err"),
        "{value}"
    );
    assert_eq!(value["notes"], serde_json::json!([]), "{value}");
}

/// `summary.json` warns about a Monte Carlo run too short for its autocorrelation time and
/// about a correlation length beyond the lattice, and stays quiet about a sound run; its keys
/// are the ones other tools read.
#[test]
fn summary_notes_warn_when_they_should() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let project = dir.path().join("notes.ron");
    let panel = |id: u32, mc: &str| {
        format!(
            "(id: ({id}), state: Ising((params: (mc: ({mc})), \
             headless: (monte_carlo: true, duality: false, approximate_duals: false))))"
        )
    };
    let text = format!(
        "(format_version: 1, panels: [{}, {}, {}])",
        // β_c at L = 64: τ_int of |m| is about 200 sweeps, far more than 300 / 50.
        panel(1, "size: 64, thermalization_sweeps: 100, measurement_sweeps: 300"),
        // High temperature: τ_int under a sweep.
        panel(
            2,
            "size: 16, beta: 0.25, thermalization_sweeps: 200, measurement_sweeps: 2000"
        ),
        // Ordered: ξ would exceed L.
        panel(
            3,
            "size: 16, beta: 0.7, thermalization_sweeps: 200, measurement_sweeps: 2000, \
             correlation_every: 1"
        ),
    );
    std::fs::write(&project, text).expect("project written");
    let out = dir.path().join("out");
    let summary = crate::examples::run_project(&project, &out, &[]);
    let monte_carlo: Vec<&serde_json::Value> = summary["panels"]
        .as_array()
        .expect("panels")
        .iter()
        .map(|p| &p["summary"]["monte_carlo"])
        .collect();
    assert_eq!(monte_carlo.len(), 3, "{summary}");
    let notes = |mc: &serde_json::Value| -> String {
        mc["notes"]
            .as_array()
            .expect("notes array")
            .iter()
            .map(|n| n.as_str().expect("text"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(
        notes(monte_carlo[0]).contains("autocorrelation times"),
        "{}",
        monte_carlo[0]
    );
    assert_eq!(notes(monte_carlo[1]), "", "{}", monte_carlo[1]);
    assert!(monte_carlo[1]["correlation_length"].is_f64());
    assert!(monte_carlo[2]["correlation_length"].is_null());
    assert!(notes(monte_carlo[2]).contains("beyond what the lattice resolves"));
    for mc in &monte_carlo {
        for key in [
            "beta",
            "size",
            "sweeps",
            "thermalization_sweeps",
            "observables",
            "exact_infinite_lattice",
            "exact_finite_lattice",
        ] {
            assert!(mc.get(key).is_some(), "{key} missing: {mc}");
        }
    }
    let exact = monte_carlo[1]["exact_finite_lattice"]["bond_energy_per_site"]
        .as_f64()
        .expect("Kaufman's value for K = 0");
    let measured = &monte_carlo[1]["observables"]["bond_energy_per_site"];
    let (value, error) = (
        measured["value"].as_f64().expect("value"),
        measured["error"].as_f64().expect("error"),
    );
    assert!((value - exact).abs() < 4.0 * error, "{value} ± {error} vs {exact}");
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
/// The learned dual coupling lies within 2 % of sinh 2β·sinh 2β* = 1 across β ∈ [0.1, 0.8].
fn check_kramers_wannier(out: &Path, _summary: &serde_json::Value) {
    let rows = csv_rows(&out.join("sweeps/kramers-wannier-curve.csv"));
    assert!(rows.len() >= 3, "{} points", rows.len());
    for row in rows {
        let beta: f64 = row["duality.beta"].parse().expect("β");
        let learned: f64 = row["duality.dual_beta"].parse().expect("β̃");
        let exact = benchtop_panel_ising::engine::kramers_wannier_dual(beta);
        assert!(
            ((learned - exact) / exact).abs() < 0.02,
            "β = {beta}: learned β̃ = {learned}, exact {exact}"
        );
    }
}

/// Binder cumulants fan out below β_c and meet near it; χ peaks near β_c for the largest L.
fn check_phase_transition(out: &Path, _summary: &serde_json::Value) {
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
        (peak - benchtop_panel_ising::engine::BETA_CRITICAL).abs() <= 0.03,
        "χ peaks at β = {peak}"
    );
}
