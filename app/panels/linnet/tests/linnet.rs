//! Function vs representation, clicked through by its labels, and the known answers of its
//! example project.

use std::path::Path;
use std::time::Duration;

use egui_kittest::kittest::Queryable as _;

use crate::common::{self, csv_rows};
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[Example {
    project: "function-vs-representation",
    check: check_example,
}];

/// A session with one small panel: a Gaussian task and 4 seeds of 3000 steps.
fn small_session() -> benchtop::session::Session {
    let text = r"(
        format_version: 1,
        panels: [(id: (1), state: Linnet((params: (
            data: (source: Gaussian, n_in: 6, n_out: 5, items: 12, rank: 3, target_noise: 0.1),
            train: (steps: 3000),
            seeds: 4,
        ))))],
    )";
    common::session_from(text, "small-linnet.ron")
}

fn summary_of(
    harness: &egui_kittest::Harness<'static, benchtop::shell::BenchtopApp>,
) -> serde_json::Value {
    common::first_summary(&harness.state().session)
}

#[test]
fn linnet_panel_transforms_trains_saves_and_reopens() {
    let mut harness = common::harness(small_session());
    // Both tasks start by themselves.
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    harness.get_by_label_contains("Output change max |ΔŶ|");
    let before = summary_of(&harness);
    let g = &before["g_transform"];
    assert!(
        g["output_max_abs_change"].as_f64().expect("solved") < 1e-10,
        "{g}"
    );
    assert!(
        g["rsm_change_orthogonal"].as_f64().expect("solved") < 1e-10,
        "{g}"
    );
    let general = g["rsm_change_general"].as_f64().expect("solved");
    assert!(general > 0.1, "{g}");

    // A new random G: the function stays, the representation moves by a different amount.
    common::click(&mut harness, "Random G");
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    let after = summary_of(&harness);
    let g = &after["g_transform"];
    assert!(
        g["output_max_abs_change"].as_f64().expect("solved") < 1e-10,
        "{g}"
    );
    let moved = g["rsm_change_general"].as_f64().expect("solved");
    assert!((moved - general).abs() > 1e-6, "{general} → {moved}");
    // An orthogonal G leaves the RSM alone.
    common::click(&mut harness, "Orthogonal G");
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    let orthogonal = summary_of(&harness);
    assert!(
        orthogonal["g_transform"]["rsm_change_general"]
            .as_f64()
            .expect("solved")
            < 1e-10
    );

    common::click(&mut harness, "Training");
    harness.get_by_label("Mean over seed pairs");
    harness.get_by_label_contains("Parameter-noise RSMs vs closed form");
    let summary = summary_of(&harness);
    for regime in [
        "no_noise",
        "input_noise",
        "parameter_noise",
        "tanh_parameter_noise",
    ] {
        assert_eq!(
            summary[regime]["seeds"].as_u64(),
            Some(4),
            "{regime}: {summary}"
        );
    }
    let spread = |r: &str| 1.0 - summary[r]["mean_pairwise_cka"].as_f64().expect("trained");
    assert!(
        spread("input_noise") > 5.0 * spread("parameter_noise"),
        "{summary}"
    );

    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("linnet.ron");
    let reopened = common::save_and_reopen(&mut harness, &path);
    let figures = reopened.panels.values().next().expect("panel").figures();
    for name in [
        "linnet-g-transform",
        "linnet-families",
        "linnet-similarity",
        "linnet-seed-rsms",
    ] {
        assert!(
            figures.iter().any(|f| f.name == name),
            "{name} after reopening"
        );
    }
}

#[test]
fn linnet_panel_names_the_bad_cell_of_a_csv() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let csv = dir.path().join("items.csv");
    std::fs::write(
        &csv,
        "item,x1,x2,y1,y2\na,1,0,1,0\nb,0,1,0,one\nc,1,1,1,1\n",
    )
    .expect("write");
    let text = format!(
        r#"(
        format_version: 1,
        panels: [(id: (1), state: Linnet((params: (
            data: (source: Csv, file: (path: "{}")),
            train: (steps: 200, hidden: 4),
            seeds: 2,
            nonlinear: false,
        ))))],
    )"#,
        csv.display()
    );
    let mut harness = common::harness(common::session_from(&text, "csv-linnet.ron"));
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    harness.get_by_label_contains("line 3, column 5");
}

/// The example: the G-transform keeps the output and moves the RSM; input noise leaves the
/// seeds' representations spread while parameter noise gathers them at the closed form; the
/// sweep's parameter-noise spread shrinks as σ_w grows from 0.
fn check_example(out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    let g = &s["g_transform"];
    assert!(
        g["output_max_abs_change"].as_f64().expect("number") < 1e-10,
        "{g}"
    );
    assert!(
        g["rsm_change_orthogonal"].as_f64().expect("number") < 1e-10,
        "{g}"
    );
    assert!(
        g["rsm_change_general"].as_f64().expect("number") > 0.1,
        "{g}"
    );
    let cka = |r: &str| s[r]["mean_pairwise_cka"].as_f64().expect("number");
    let distance = |r: &str| {
        s[r]["mean_pairwise_function_distance"]
            .as_f64()
            .expect("number")
    };
    assert!(
        1.0 - cka("input_noise") > 10.0 * (1.0 - cka("parameter_noise")),
        "{s}"
    );
    assert!(
        distance("input_noise") < 0.05 && distance("no_noise") < 1e-6,
        "{s}"
    );
    let error = s["parameter_noise"]["rsm_relative_error_to_closed_form"]
        .as_f64()
        .expect("number");
    assert!(error < 0.1, "parameter-noise RSM vs closed form: {error}");

    let rows = csv_rows(&out.join("sweeps/cka-spread-against-parameter-noise.csv"));
    assert_eq!(rows.len(), 4);
    let spread = |row: &std::collections::BTreeMap<String, String>| -> f64 {
        row["parameter_noise.cka_spread"].parse().expect("number")
    };
    assert!(
        spread(&rows[0]) > 10.0 * spread(&rows[3]),
        "σ_w = 0 spread {} vs σ_w = 0.1 spread {}",
        spread(&rows[0]),
        spread(&rows[3])
    );
}
