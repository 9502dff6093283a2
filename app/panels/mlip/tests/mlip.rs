//! PIWSL interatomic potentials, clicked through by its labels, and the known answer of its
//! example project.

use std::path::Path;
use std::time::Duration;

use benchtop::session::Session;
use egui_kittest::kittest::Queryable as _;

use crate::common;
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[
    Example {
        project: "piwsl-lennard-jones",
        check: check_example,
    },
    Example {
        project: "piwsl-morse",
        check: check_morse,
    },
];

/// A session with one tiny PIWSL panel (fast in debug builds).
fn small_mlip_session() -> Session {
    let text = r"(
        format_version: 1,
        panels: [(id: (1), state: Mlip((params: (
            piwsl: (atoms: 4, labels: 4, test_configs: 8, stride: 20, epochs: 40, md_steps: 100, hidden: 8, rbf: 6),
            sweep_max_labels: 4,
            sweep_seeds: 2,
        ))))],
    )";
    common::session_from(text, "small-mlip.ron")
}

const VARIANTS: [&str; 4] = ["supervised", "+PITC", "+PISC", "+PITC+PISC"];

fn methods_of(summary: &serde_json::Value) -> &serde_json::Map<String, serde_json::Value> {
    summary["methods"].as_object().expect("methods")
}

#[test]
fn mlip_panel_trains_sweeps_switches_system_saves_and_reopens() {
    let mut harness = common::harness(small_mlip_session());
    harness.step();
    common::click(&mut harness, "Train the four variants");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    let summary = common::first_summary(&harness.state().session);
    let methods = methods_of(&summary);
    for name in VARIANTS {
        let m = &methods[name];
        for key in ["energy_mae", "force_mae", "md_energy_drift", "md_steps_stable"] {
            assert!(m[key].as_f64().is_some_and(f64::is_finite), "{name}.{key}: {summary}");
        }
    }
    assert_eq!(summary["labels"], 4);
    // Issue 34: the baselines that learn, the trivial references and the verdict beside them.
    let baselines = summary["baselines"].as_object().expect("baselines");
    let names: Vec<&String> = baselines.keys().collect();
    assert_eq!(names, ["conservative", "force-labelled head"], "{summary}");
    for m in baselines.values() {
        for key in ["energy_mae", "force_mae", "md_energy_drift", "md_steps_stable"] {
            assert!(m[key].as_f64().is_some_and(f64::is_finite), "{key}: {summary}");
        }
    }
    for key in ["zero_force_mae", "constant_energy_mae"] {
        assert!(summary[key].as_f64().is_some_and(|v| v > 0.0), "{key}: {summary}");
    }
    let fair = summary["fair_baseline"].as_str().expect("fair baseline");
    assert!(["supervised", "conservative"].contains(&fair), "{summary}");
    let verdict = summary["verdict"].as_str().expect("verdict");
    harness.get_by_label(verdict);
    assert!(verdict.starts_with("Lower force error with PITC+PISC: "), "{verdict}");

    // The error-against-labels sweep: 2 and 4 labels, both variants.
    common::click(&mut harness, "Error vs labels");
    common::click(&mut harness, "Sweep the labels");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    harness.get_by_label("F MAE +PITC+PISC");
    // Over two seeds (0 and 1), with the conservative baseline and the zero-force reference.
    harness.get_by_label("F MAE conservative");
    let summary = common::first_summary(&harness.state().session);
    let sweep = summary["error_vs_labels"].as_array().expect("sweep");
    assert_eq!(sweep.len(), 2, "{summary}");
    for point in sweep {
        assert_eq!(point["seeds"], serde_json::json!([0, 1]), "{summary}");
        for name in ["supervised", "+PITC+PISC", "conservative", "zero_force"] {
            let s = &point["force_mae"][name];
            assert_eq!(s["per_seed"].as_array().map(Vec::len), Some(2), "{name}");
            assert!(s["sd"].as_f64().is_some_and(|v| v >= 0.0), "{name}: {summary}");
        }
    }
    let line = summary["error_vs_labels_verdict"].as_str().expect("sweep verdict");
    harness.get_by_label(line);

    // Müller–Brown with gradient forces: the triangle and the learned fields.
    common::click(&mut harness, "Compare");
    common::click(&mut harness, "Müller–Brown");
    common::click(&mut harness, "Gradient −∂E/∂R");
    common::click(&mut harness, "Train the four variants");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    common::click(&mut harness, "Triangle and field");
    harness.get_by_label_contains("B = A + δ₂");
    let panel = harness.state().session.panels.values().next().expect("panel");
    let figures = panel.figures();
    for name in ["mlip-compare", "mlip-field", "mlip-error-vs-labels"] {
        assert!(figures.iter().any(|f| f.name == name), "{name}");
    }

    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("mlip.ron");
    let reopened = common::save_and_reopen(&mut harness, &path);
    let after = common::first_summary(&reopened);
    assert_eq!(methods_of(&after).len(), 4);
    let figures = reopened.panels.values().next().expect("panel").figures();
    assert!(figures.iter().any(|f| f.name == "mlip-error-vs-labels"), "the sweep survives reopening");
}

#[test]
fn mlip_verdict_words_follow_the_claims_rule() {
    use benchtop_panel_mlip::verdict::words;
    assert_eq!(words(&[0.7, 0.8, 0.85]), "holds");
    assert_eq!(words(&[0.95, 0.97, 0.99]), "holds partly");
    assert_eq!(words(&[0.7, 0.8, 1.2]), "holds partly");
    assert_eq!(words(&[0.7, 1.1, 1.2]), "does not hold");
    assert_eq!(words(&[1.02]), "does not hold");
    assert_eq!(words(&[]), "does not hold");
}

/// The baselines and references every PIWSL project reports (issue 34), and what they say on
/// every setting measured: the supervised direct head learns no forces from energy labels (its
/// force MAE is not below 0.9 × predicting zero force), the conservative model trained on the
/// same energies does (below 0.85 × zero force), and force labels would buy far more than
/// PITC+PISC (the force-labelled head below half the conservative model's error). Returns the
/// force MAE of (supervised, +PITC+PISC, conservative, zero force).
fn check_baselines(s: &serde_json::Value) -> (f64, f64, f64, f64) {
    let f = |m: &serde_json::Value| m["force_mae"].as_f64().expect("a number");
    let methods = methods_of(s);
    let baselines = s["baselines"].as_object().expect("baselines");
    let (sup, pi) = (f(&methods["supervised"]), f(&methods["+PITC+PISC"]));
    let (cons, labelled) = (
        f(&baselines["conservative"]),
        f(&baselines["force-labelled head"]),
    );
    let zero = s["zero_force_mae"].as_f64().expect("zero-force reference");
    assert!(sup > 0.9 * zero, "supervised {sup} against zero force {zero}: {s}");
    assert!(cons < 0.85 * zero, "conservative {cons} against zero force {zero}: {s}");
    assert!(labelled < 0.5 * cons, "force-labelled {labelled} against {cons}: {s}");
    assert!(s["verdict"].is_string(), "{s}");
    (sup, pi, cons, zero)
}

/// Eight energy-only labels, direct force head: PITC+PISC are the force head's only teacher.
/// Measured at the test preset (seed 0): force MAE 2.34 supervised against 1.52 with
/// +PITC+PISC (ratio 0.65); MD stable 83 steps against all 500, drift 0.30 against 0.024 per
/// atom. The check asserts a force-MAE ratio below 0.85, a longer stable MD run and a smaller
/// energy drift.
///
/// Against the baselines of issue 34 (same run): zero force 2.23 (supervised 1.05× it), the
/// conservative model 1.53 (+PITC+PISC 0.995× it), the force-labelled head 0.25. Asserted:
/// [`check_baselines`], and +PITC+PISC not 10 % below the conservative model.
fn check_example(_out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    let methods = methods_of(s);
    assert_eq!(methods.len(), 4, "{s}");
    let (sup, pi) = (&methods["supervised"], &methods["+PITC+PISC"]);
    let f = |m: &serde_json::Value, k: &str| m[k].as_f64().expect("a number");
    assert!(f(pi, "force_mae") < 0.85 * f(sup, "force_mae"), "{s}");
    assert!(f(pi, "md_steps_stable") > f(sup, "md_steps_stable"), "{s}");
    assert!(f(pi, "md_energy_drift") < f(sup, "md_energy_drift"), "{s}");
    let (_, pi_force, cons, _) = check_baselines(s);
    assert!(
        pi_force > 0.9 * cons,
        "+PITC+PISC {pi_force} against conservative {cons}: {s}"
    );
}

/// The Morse cluster, 8 energy-only labels (test preset, seed 0): supervised 0.82 against zero
/// force 0.67, +PITC+PISC 0.46 against the conservative model's 0.53 (0.87×; over seeds 0–4
/// at full size the ratio goes from 0.88 to 1.31), force-labelled head 0.14. Asserted:
/// [`check_baselines`], and +PITC+PISC within 25 % of the conservative model.
fn check_morse(_out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    assert_eq!(methods_of(s).len(), 4, "{s}");
    let (_, pi, cons, _) = check_baselines(s);
    assert!((pi / cons - 1.0).abs() < 0.25, "+PITC+PISC {pi} against conservative {cons}: {s}");
}
