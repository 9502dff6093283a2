//! The NeuroTree panel, clicked through by its labels, and its example projects' known answers.

use std::path::Path;
use std::time::Duration;

use benchtop::session::Session;
use egui_kittest::kittest::Queryable as _;

use crate::common;
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[
    Example {
        project: "neurotree-real-sample",
        check: check_neurotree_real,
    },
    Example {
        project: "neurotree-planted-dmn",
        check: check_neurotree_planted,
    },
];

/// A session with one NeuroTree panel on a cohort small enough for debug builds.
fn small_neurotree_session() -> Session {
    neurotree_session(16, 16)
}

fn neurotree_session(subjects: usize, rois: usize) -> Session {
    let text = r"(
        format_version: 1,
        panels: [(id: (1), state: NeuroTree((params: (
            data: (cohort: (
                subjects: SUBJECTS, rois: ROIS, time_points: 60, burn_in_steps: 50,
                patient_fraction: 0.5, age_min_years: 18.0, age_max_years: 65.0,
                self_coupling: 0.3, within_coupling: 0.5, between_coupling: 0.1, jitter: 0.1,
                dmn_group_effect: 0.5, age_effect_per_year: 0.005, noise_std: 1.0, shared_drive: 0.5,
                seed: 1,
            )),
        ))))],
    )"
    .replace("SUBJECTS", &subjects.to_string())
    .replace("ROIS", &rois.to_string());
    let doc = benchtop::catalog::ProjectDoc::parse(&text, Path::new("small-neurotree.ron"))
        .expect("test project parses");
    Session::from_doc(doc, None).expect("test project opens")
}

fn summary(session: &Session) -> serde_json::Value {
    session.panels.values().next().expect("panel").summary()
}

#[test]
fn neurotree_panel_opens_from_the_catalog() {
    let mut harness = common::harness(Session::new());
    harness.get_by_label("Open NeuroTree brain trees").click();
    harness.step();
    assert_eq!(harness.state().session.panels.len(), 1);
    harness.get_by_label("Generate cohort");
    harness.get_by_label("Tree").click();
    harness.step();
    harness.get_by_label("Generate or load subjects in the Data tab first.");
}

#[test]
fn neurotree_panel_generates_draws_changes_alpha_saves_and_reopens() {
    let mut harness = common::harness(small_neurotree_session());
    harness.get_by_label("Generate cohort").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    harness
        .get_by_label_contains("synthetic, seed 1: 16 subjects (8 controls, 8 patients), 16 ROIs");
    harness.get_by_label("Static |r|: all subjects (mean)");
    harness.get_by_label("Window 1 of 2 |r|: all subjects (mean)");
    let s = summary(&harness.state().session);
    assert_eq!(s["subjects"], 16, "{s}");
    assert_eq!(s["rois"], 16, "{s}");
    // Three trunk levels for all subjects, controls and patients, every level naming ROIs.
    for group in ["all", "control", "patient"] {
        let levels = s["trunks"][group].as_object().expect("levels");
        assert_eq!(levels.len(), 3, "{s}");
        assert!(
            levels["1"].as_array().is_some_and(|names| names.len() >= 2),
            "{s}"
        );
        let counts: u64 = s["trunk_membership"][group]["1"]
            .as_object()
            .expect("networks")
            .values()
            .map(|v| v.as_u64().unwrap_or(0))
            .sum();
        assert_eq!(counts as usize, levels["1"].as_array().map_or(0, Vec::len));
    }

    harness.get_by_label("Tree").click();
    harness.step();
    harness.get_by_label_contains("Brain tree: all subjects (mean)");
    harness.get_by_label("Force-directed").click();
    harness.step();
    harness.get_by_label("Level 2").click();
    harness.step();
    let text = harness.state().session.to_text().expect("serialises");
    assert!(text.contains("layout: ForceDirected"), "{text}");
    assert!(text.contains("hidden_levels: [2]"), "{text}");
    // α re-runs the trunks live.
    harness.get_by_label("α (node score against GPC)").click();
    harness.step();
    harness
        .get_by_label("α (node score against GPC)")
        .type_text("1");
    harness.key_press(egui::Key::Enter);
    harness.step();
    let text = harness.state().session.to_text().expect("serialises");
    assert!(text.contains("alpha: 1.0"), "{text}");
    harness.get_by_label_contains("Brain tree: all subjects (mean)");
    let after = summary(&harness.state().session)["trunks"].clone();
    assert_eq!(after["all"].as_object().map(serde_json::Map::len), Some(3));

    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("neurotree.ron");
    assert!(
        harness.state_mut().save_to(&path),
        "{:?}",
        harness.state().notices
    );
    assert!(
        dir.path()
            .join("neurotree.data")
            .join("neurotree-series.npy")
            .exists()
    );
    let original = harness.state().session.to_doc(None).expect("document");
    let reopened = Session::open(&path).expect("the saved project reopens");
    assert_eq!(reopened.to_doc(None).expect("document"), original);
    assert_eq!(
        summary(&harness.state().session),
        summary(&reopened),
        "results survive save and reopen"
    );
    let panel = reopened.panels.values().next().expect("panel");
    let names: Vec<String> = panel.figures().into_iter().map(|f| f.name).collect();
    for name in [
        "neurotree-connectivity",
        "neurotree-tree",
        "neurotree-trunk-membership",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    let tables = panel.data_tables();
    let edges = tables
        .iter()
        .find(|t| t.name == "neurotree-tree-edges")
        .expect("edge table");
    assert_eq!(edges.rows.len(), 15, "a tree on 16 ROIs has 15 edges");
}

/// Writes a trained 40-subject, 90-ROI project to `$NEUROTREE_SHOT_DIR` (default: the temporary
/// folder) for `scripts/screenshot.sh`, which needs a project with results to show.
#[test]
#[ignore = "writes a project for a screenshot"]
fn write_screenshot_project() {
    let mut harness = common::harness(neurotree_session(40, 90));
    harness.get_by_label("Generate cohort").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    harness.get_by_label("Model").click();
    harness.step();
    harness.get_by_label("Run").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(600));
    let dir = std::env::var_os("NEUROTREE_SHOT_DIR").map_or_else(
        || std::env::temp_dir().join("nt-shot"),
        std::path::PathBuf::from,
    );
    std::fs::create_dir_all(&dir).expect("folder");
    assert!(harness.state_mut().save_to(&dir.join("neurotree.ron")));
}

/// The real sample: 5 subjects on 94 AAL2 regions, three trunk levels of the group-mean tree,
/// each naming regions of the atlas.
fn check_neurotree_real(_out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    assert_eq!(s["rois"], 94, "{s}");
    assert_eq!(s["subjects"], 5, "{s}");
    let levels = s["trunks"]["all"].as_object().expect("trunk levels");
    assert_eq!(levels.len(), 3, "{s}");
    for (level, names) in levels {
        let names = names.as_array().expect("names");
        assert!(names.len() >= 2, "level {level}: {s}");
    }
    // Only one group: no per-group trees.
    assert!(s["trunks"].get("patient").is_none(), "{s}");
}

/// A session with a tiny model run: 16 subjects, 16 ROIs, 2 folds of 2 epochs.
fn tiny_model_session() -> Session {
    let text = r"(
        format_version: 1,
        panels: [(id: (1), state: NeuroTree((params: (
            data: (cohort: (
                subjects: 16, rois: 16, time_points: 60, burn_in_steps: 50,
                patient_fraction: 0.5, age_min_years: 18.0, age_max_years: 65.0,
                self_coupling: 0.3, within_coupling: 0.5, between_coupling: 0.1, jitter: 0.1,
                dmn_group_effect: 0.5, age_effect_per_year: 0.005, noise_std: 1.0, shared_drive: 0.5,
                seed: 1,
            )),
            run: (
                model: (hidden: 8, head_hidden: 4),
                train: (epochs: 2, batch_size: 4),
                folds: 2,
                khop: (lambdas: [0.2, 0.9], k_max: 5),
                seed: 1,
            ),
        ))))],
    )";
    let doc = benchtop::catalog::ProjectDoc::parse(text, Path::new("tiny-neurotree.ron"))
        .expect("test project parses");
    Session::from_doc(doc, None).expect("test project opens")
}

#[test]
fn neurotree_panel_runs_a_tiny_model_saves_and_reopens() {
    let mut harness = common::harness(tiny_model_session());
    harness.get_by_label("Generate cohort").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    harness.get_by_label("Model").click();
    harness.step();
    harness.get_by_label("Run").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(300));
    // The CV table's header (AGE-GCN also names a curve in the legend).
    harness.get_by_label("Precision");
    let s = summary(&harness.state().session);
    let age_gcn = &s["methods"]["AGE-GCN"];
    let auc = age_gcn["auc_mean"].as_f64().expect("AUC");
    assert!((0.0..=1.0).contains(&auc), "{s}");
    for key in ["auc_std", "accuracy", "precision", "recall"] {
        assert!(
            age_gcn[key].as_f64().is_some_and(f64::is_finite),
            "{key}: {s}"
        );
    }
    assert!(
        s["brain_age_slope_control"]
            .as_f64()
            .is_some_and(f64::is_finite),
        "{s}"
    );
    assert!(
        s["brain_age_slope_patient"]
            .as_f64()
            .is_some_and(f64::is_finite),
        "{s}"
    );
    // The tree tab now shows the trained group trees.
    harness.get_by_label("Tree").click();
    harness.step();
    harness.get_by_label("Node scores: the trained AGE-GCN's, averaged over the group.");
    // The membership bars draw from the trained group trees too (no error line).
    assert!(
        harness
            .query_by_label_contains("no group trees yet")
            .is_none()
    );

    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("neurotree.ron");
    assert!(
        harness.state_mut().save_to(&path),
        "{:?}",
        harness.state().notices
    );
    assert!(
        dir.path()
            .join("neurotree.data")
            .join("neurotree-group-fc.npy")
            .exists()
    );
    let original = harness.state().session.to_doc(None).expect("document");
    let reopened = Session::open(&path).expect("the saved project reopens");
    assert_eq!(reopened.to_doc(None).expect("document"), original);
    assert_eq!(
        summary(&harness.state().session),
        summary(&reopened),
        "results survive save and reopen"
    );
    let panel = reopened.panels.values().next().expect("panel");
    assert!(panel.figures().iter().any(|f| f.name == "neurotree-model"));
    let tables = panel.data_tables();
    for name in ["neurotree-metrics", "neurotree-brain-age"] {
        assert!(tables.iter().any(|t| t.name == name), "{name}");
    }
}

/// The planted default-mode effect: AGE-GCN separates patients from controls (AUC > 0.8).
fn check_neurotree_planted(_out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    let auc = s["methods"]["AGE-GCN"]["auc_mean"]
        .as_f64()
        .expect("AGE-GCN AUC");
    assert!(auc > 0.8, "AGE-GCN AUC {auc}: {s}");
    assert_eq!(s["subjects"], 80, "{s}");
    assert_eq!(s["rois"], 90, "{s}");
    for group in ["control", "patient"] {
        assert_eq!(
            s["trunks"][group].as_object().map(serde_json::Map::len),
            Some(3),
            "{s}"
        );
    }
}
