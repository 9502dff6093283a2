//! ML vs DL for quantum systems, clicked through by its labels (train every learner, sweep n at
//! fixed n·M, draw shadows, save and reopen), bad input named by its key, and the known answers
//! of its example project.

use std::path::Path;
use std::time::Duration;

use benchtop_kit::host::PanelModel as _;
use benchtop_panel_quantum::{QuantumModel, QuantumParams};

use crate::common;
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[Example {
    project: "quantum-ml-vs-dl",
    check: check_example,
}];

/// The six learners' keys in summary.json.
const LEARNERS: [&str; 6] = [
    "ridge",
    "lasso",
    "kernel_rbf",
    "kernel_dirichlet",
    "mlp",
    "cnn",
];

/// A session with one small panel: 5-site chains, n·M = 600, n = 20 (M = 30), one repeat.
fn small_session() -> benchtop::session::Session {
    let text = r"(
        format_version: 1,
        panels: [(id: (1), state: Quantum((params: (
            system: (sites: 5),
            budget: (total: 600, train_samples: 20, test_samples: 12),
            repeats: 1,
            learners: (max_epochs: 60, patience: 15, hidden: 16, channels: 4),
            curve: (n_min: 8, n_max: 20, points: 2),
            shadows: (max_snapshots: 100, repeats: 20),
        ))))],
    )";
    common::session_from(text, "small-quantum.ron")
}

fn number(value: &serde_json::Value, what: &str) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("{what} is a number: {value}"))
}

#[test]
fn quantum_panel_trains_sweeps_draws_saves_and_reopens() {
    let mut harness = common::harness(small_session());
    common::click(&mut harness, "Train every learner");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    let summary = common::first_summary(&harness.state().session);
    assert_eq!(summary["budget"]["n"], 20, "{summary}");
    assert_eq!(summary["budget"]["M"], 30, "{summary}");
    let trivial = number(&summary["trivial"]["rmse_correlation"], "trivial");
    for learner in LEARNERS {
        let method = &summary["methods"][learner];
        for key in ["rmse_correlation", "rmse_entropy", "phase_accuracy", "seconds"] {
            assert!(method[key].is_number(), "{learner}.{key}: {summary}");
        }
        // Even 20 chains of 30 snapshots teach every learner more than the training mean.
        assert!(
            number(&method["rmse_correlation"], learner) < trivial,
            "{learner}: {summary}"
        );
        assert!(
            summary["randomisation_test"][learner]["after"]["rmse_correlation"].is_number(),
            "{learner}: {summary}"
        );
    }

    common::click(&mut harness, "Error vs n");
    common::click(&mut harness, "Sweep n at fixed n·M");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    common::click(&mut harness, "Shadows");
    common::click(&mut harness, "Draw shadows");
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    common::click(&mut harness, "Phases");
    common::click(&mut harness, "Correlations");
    common::click(&mut harness, "Randomisation");
    let summary = common::first_summary(&harness.state().session);
    assert_eq!(summary["curve"]["n"], serde_json::json!([8, 20]), "{summary}");
    assert_eq!(summary["curve"]["M"], serde_json::json!([75, 30]), "{summary}");
    assert!(
        (number(&summary["known_answers"]["singlet_correlation"], "C01") + 1.0).abs() < 1e-12,
        "{summary}"
    );

    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("quantum.ron");
    let reopened = common::save_and_reopen(&mut harness, &path);
    let figures = reopened.panels.values().next().expect("panel").figures();
    for name in [
        "quantum-budget",
        "quantum-error-vs-n",
        "quantum-correlations",
        "quantum-phases",
        "quantum-randomisation",
        "quantum-shadows",
    ] {
        assert!(
            figures.iter().any(|f| f.name == name),
            "{name} after reopening"
        );
    }
}

#[test]
fn quantum_bad_input_names_its_key() {
    let issues = |change: fn(&mut QuantumParams)| {
        let mut params = QuantumParams::default();
        change(&mut params);
        QuantumModel::validate(&params)
            .into_iter()
            .map(|issue| format!("{}: {}", issue.key, issue.message))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(issues(|_| {}).is_empty());
    let too_big = issues(|p| p.system.sites = 16);
    assert!(
        too_big.contains("params.system.sites") && too_big.contains("65536"),
        "{too_big}"
    );
    let no_snapshots = issues(|p| p.budget.total = 50);
    assert!(
        no_snapshots.contains("params.budget.total") && no_snapshots.contains("M = 0"),
        "{no_snapshots}"
    );
    let negative = issues(|p| p.system.j_max = -1.0);
    assert!(negative.contains("params.system.j_max"), "{negative}");
}

/// The example at its test preset: the known answers to 1e-10, the shadow variances within
/// their bounds, every learner and the trivial reference in summary.json, every learner better
/// than the training mean on the correlations, and the curve at fixed n·M.
fn check_example(out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    let known = &s["known_answers"];
    assert!((number(&known["singlet_correlation"], "C01") + 1.0).abs() < 1e-10, "{s}");
    assert!((number(&known["ring_energy"], "ring") + 2.0).abs() < 1e-10, "{s}");
    assert!(
        (number(&known["tfim_pair_energy"], "pair") + 2.44_f64.sqrt()).abs() < 1e-10,
        "{s}"
    );
    assert!(number(&known["lanczos_vs_dense"], "dense") < 1e-10, "{s}");
    let shadows = &s["shadows"];
    for point in shadows["points"].as_array().expect("shadow points") {
        // 100 sets: the sample variance's relative spread is about 14 %.
        assert!(
            number(&point["zz_scaled_variance"], "zz") < 1.5 * 9.0,
            "{point}"
        );
        assert!(
            number(&point["correlation_scaled_variance"], "c") < 1.5 * 3.0,
            "{point}"
        );
    }
    let last = shadows["points"]
        .as_array()
        .and_then(|p| p.last())
        .expect("a point");
    let error = number(&last["correlation_mean"], "mean") - number(&shadows["exact_correlation"], "exact");
    // 100 sets of 200 snapshots: standard error ≤ √(3/20000) ≈ 0.012.
    assert!(error.abs() < 0.05, "{shadows}");

    assert_eq!(s["budget"]["n"], 32, "{s}");
    assert_eq!(s["budget"]["M"], 50, "{s}");
    let trivial = number(&s["trivial"]["rmse_correlation"], "trivial");
    for learner in LEARNERS {
        let method = &s["methods"][learner];
        assert!(number(&method["rmse_correlation"], learner) < trivial, "{learner}: {s}");
        assert!(number(&method["phase_accuracy"], learner) > 0.5, "{learner}: {s}");
        assert!(method["seconds"].is_number() && method["rmse_entropy"].is_number());
        let r = &s["randomisation_test"][learner];
        assert!(r["before"]["rmse_correlation"].is_number(), "{learner}: {s}");
        assert!(r["after"]["phase_accuracy"].is_number(), "{learner}: {s}");
    }
    assert_eq!(s["curve"]["total"], 1600, "{s}");
    assert_eq!(s["curve"]["n"], serde_json::json!([8, 23, 64]), "{s}");
    for name in ["quantum-budget", "quantum-error-vs-n", "quantum-shadows"] {
        assert!(
            out.join("1-quantum").join(format!("{name}.svg")).exists(),
            "{name}.svg in {}",
            out.display()
        );
    }
    let sweep = &summary["sweeps"][0];
    assert!(sweep.is_object(), "{summary}");
}
