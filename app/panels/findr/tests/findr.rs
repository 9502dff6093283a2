//! The FINDR panel, clicked through by its labels, and its example project's known answers.

use std::path::Path;
use std::time::Duration;

use benchtop::session::Session;
use egui_kittest::kittest::Queryable as _;

use crate::common;
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[
    Example {
        project: "findr-planted-line-attractor",
        check: check_findr,
    },
];

/// A session with one FINDR panel sized to train in seconds in debug builds.
fn small_findr_session() -> Session {
    let text = r"(
        format_version: 1,
        panels: [(id: (1), state: Findr((params: (
            data: (synthetic: (n_trials: 40, n_neurons: 12, min_bins: 20, max_bins: 30)),
            fit: (
                baseline: (within_trial_bases: [4], ridges: [1e-2]),
                model: (flow_width: 8, encoder_hidden: 8),
                train: (max_epochs: 3, batch_trials: 10, warmup_epochs: 1, first_cycle_epochs: 5),
                analysis: (grid_size: 7, fixed_points: (starts_per_axis: 4)),
            ),
        ))))],
    )";
    let doc = benchtop::catalog::ProjectDoc::parse(text, Path::new("small-findr.ron"))
        .expect("test project parses");
    Session::from_doc(doc, None).expect("test project opens")
}

fn summary(session: &Session) -> serde_json::Value {
    session.panels.values().next().expect("panel").summary()
}

#[test]
fn findr_panel_opens_from_the_catalog() {
    let mut harness = common::harness(Session::new());
    harness.get_by_label("Open FINDR flow fields").click();
    harness.step();
    assert_eq!(harness.state().session.panels.len(), 1);
    harness.get_by_label("Generate synthetic data");
    harness.get_by_label("Fit").click();
    harness.step();
    harness.get_by_label("Generate or load trials in the Data tab first.");
    harness.get_by_label("Flow").click();
    harness.step();
    harness.get_by_label("Train the model in the Fit tab to see the flow field it inferred.");
}

#[test]
fn findr_panel_generates_trains_draws_saves_and_reopens() {
    let mut harness = common::harness(small_findr_session());
    // A parameter change (the data source) is recorded and undone.
    harness.get_by_label("From a file").click();
    harness.step();
    harness.get_by_label("Load trials");
    let text = harness.state().session.to_text().expect("serialises");
    assert!(text.contains("source: File"), "the source changed");
    harness.get_by_label("Undo").click();
    harness.step();
    let text = harness.state().session.to_text().expect("serialises");
    assert!(text.contains("source: Synthetic"), "undo restored it");

    harness.get_by_label("Generate synthetic data").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    harness.get_by_label_contains("synthetic, seed 1: 40 trials, 12 neurons");
    let data = &summary(&harness.state().session)["data"];
    assert_eq!(data["trials"], 40);
    assert!(data["spikes"].as_f64().is_some_and(|s| s > 0.0), "{data}");

    harness.get_by_label("Fit").click();
    harness.step();
    harness.get_by_label("Train").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(300));
    harness.get_by_label_contains("Best epoch");
    harness.get_by_label_contains("Test NLL");
    let fitted = summary(&harness.state().session);
    assert_eq!(fitted["epochs_run"], 3, "{fitted}");
    let best = fitted["best_epoch"].as_u64().expect("best epoch");
    assert!((1..=3).contains(&best), "best epoch {best}");
    assert!(fitted["test_nll"].as_f64().is_some_and(f64::is_finite));
    assert!(
        fitted["planted_attractors"].is_array(),
        "synthetic: {fitted}"
    );

    harness.get_by_label("Flow").click();
    harness.step();
    harness.get_by_label("Recovery of the planted attractors");
    harness.get_by_label_contains("Fixed points (");
    harness.get_by_label("Show the planted flow");

    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("findr.ron");
    assert!(
        harness.state_mut().save_to(&path),
        "{:?}",
        harness.state().notices
    );
    for array in [
        "findr-spikes.npy",
        "findr-truth-latents.npy",
        "findr-history.npy",
        "findr-psths.npy",
    ] {
        assert!(
            dir.path().join("findr.data").join(array).exists(),
            "{array}"
        );
    }
    let original = harness.state().session.to_doc(None).expect("document");
    let reopened = Session::open(&path).expect("the saved project reopens");
    assert_eq!(reopened.to_doc(None).expect("document"), original);
    assert_eq!(
        summary(&harness.state().session),
        summary(&reopened),
        "results survive save and reopen"
    );
    let panel = reopened.panels.values().next().expect("panel");
    let figures = panel.figures();
    for name in [
        "findr-data",
        "findr-training",
        "findr-flow",
        "findr-input-fields",
        "findr-psth-fits",
    ] {
        assert!(
            figures.iter().any(|f| f.name == name),
            "{name} after reopening"
        );
    }
    let tables = panel.data_tables();
    let field = tables
        .iter()
        .find(|t| t.name == "findr-flow-field")
        .expect("field table");
    assert_eq!(field.rows.len(), 49, "a 7 × 7 grid");
}

/// The example project: the recovered fixed points include stable points within 0.2 latent
/// units of the planted attractors ±(1, 0), in the planted frame.
fn check_findr(_out: &Path, summary: &serde_json::Value) {
    // The planted system: attractors at ±(1, 0) with a saddle between them. The project's fit
    // (seed 1) puts them 0.083 and 0.051 from the planted ones on this machine; fit seeds 1–4
    // give 0.05–0.17 (docs/benchmarks.md), and a CPU with other matrix kernels rounds
    // differently, which acts like another seed, so the bound here is the seeds' spread.
    let s = &summary["panels"][0]["summary"];
    let planted = s["planted_attractors"]
        .as_array()
        .expect("planted attractors");
    assert_eq!(planted.len(), 2, "{s}");
    let errors = s["attractor_errors"].as_array().expect("attractor errors");
    for error in errors {
        let error = error.as_f64().unwrap_or(f64::INFINITY);
        assert!(error < 0.2, "attractor error {error}: {s}");
    }
    let points = s["fixed_points"].as_array().expect("fixed points");
    let position = |p: &serde_json::Value| {
        (
            p["stability"].as_str().unwrap_or("").to_owned(),
            p["z"][0].as_f64().unwrap_or(f64::NAN),
            p["z"][1].as_f64().unwrap_or(f64::NAN),
        )
    };
    for attractor in planted {
        let at = [
            attractor[0].as_f64().expect("x"),
            attractor[1].as_f64().expect("y"),
        ];
        assert!((at[0].abs() - 1.0).abs() < 1e-9 && at[1] == 0.0, "{at:?}");
        let near = points
            .iter()
            .map(position)
            .any(|(kind, x, y)| kind == "stable" && (x - at[0]).hypot(y - at[1]) < 0.2);
        assert!(near, "no recovered attractor near {at:?}: {points:?}");
    }
    let saddle = points
        .iter()
        .map(position)
        .any(|(kind, x, _)| kind == "saddle" && x.abs() < 0.5);
    assert!(saddle, "no saddle between the attractors: {points:?}");
    let test = s["test_nll"].as_f64().expect("test NLL");
    let baseline = s["test_nll_baseline_only"].as_f64().expect("baseline NLL");
    assert!(
        test < baseline,
        "the latent must explain more than the baseline: {s}"
    );
}
