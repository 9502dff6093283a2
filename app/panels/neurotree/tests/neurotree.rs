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
    common::session_from(&text, "small-neurotree.ron")
}

use common::first_summary as summary;

#[test]
fn neurotree_panel_opens_from_the_catalog() {
    let mut harness = common::harness(Session::new());
    common::open_panel(&mut harness, "NeuroTree brain trees");
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
    let reopened = common::save_and_reopen(&mut harness, &path);
    // The pane's arrays carry its id, so two NeuroTree panels never share a file.
    assert!(
        common::sidecar_folder(&path)
            .join("1-neurotree-series.npy")
            .exists()
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
    common::session_from(text, "tiny-neurotree.ron")
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
    let reopened = common::save_and_reopen(&mut harness, &path);
    // The pane's arrays carry its id, so two NeuroTree panels never share a file.
    assert!(
        common::sidecar_folder(&path)
            .join("1-neurotree-group-fc.npy")
            .exists()
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
mod layout {
    //! The tree layouts (radial and force-directed).

    use benchtop_panel_neurotree::layout::{fit_unit_disc, force_directed, radial};

    /// A path 0-1-2-3 with a branch 1-4 and a leaf 4-5.
    fn small_tree() -> Vec<(usize, usize)> {
        vec![(0, 1), (1, 2), (2, 3), (1, 4), (4, 5)]
    }

    #[test]
    fn radial_puts_the_root_at_the_centre_and_depths_on_rings() {
        let edges = small_tree();
        let p = radial(6, &edges, 1);
        assert_eq!(p[1], [0.0, 0.0]);
        let radius = |i: usize| p[i][0].hypot(p[i][1]);
        for (node, depth) in [(0, 1.0), (2, 1.0), (4, 1.0), (3, 2.0), (5, 2.0)] {
            assert!((radius(node) - depth).abs() < 1e-12, "node {node}");
        }
        // Distinct positions.
        for i in 0..6 {
            for j in (i + 1)..6 {
                assert!((p[i][0] - p[j][0]).hypot(p[i][1] - p[j][1]) > 1e-3);
            }
        }
    }

    #[test]
    fn fitting_the_unit_disc_keeps_the_root_at_the_centre() {
        let p = fit_unit_disc(radial(6, &small_tree(), 1));
        assert_eq!(p[1], [0.0, 0.0]);
        let largest = p.iter().map(|q| q[0].hypot(q[1])).fold(0.0, f64::max);
        assert!((largest - 1.0).abs() < 1e-12);
    }

    #[test]
    fn radial_places_another_component_beyond_the_first() {
        let p = radial(4, &[(0, 1), (2, 3)], 0);
        assert_eq!(p[0], [0.0, 0.0]);
        assert!((p[2][0].hypot(p[2][1]) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn force_directed_is_deterministic_finite_and_in_the_unit_disc() {
        let edges = small_tree();
        let a = force_directed(6, &edges, 1);
        let b = force_directed(6, &edges, 1);
        assert_eq!(a, b);
        for p in &a {
            assert!(p[0].is_finite() && p[1].is_finite());
            assert!(p[0].hypot(p[1]) <= 1.0 + 1e-12);
        }
        // Neighbours end closer than the farthest pair.
        let d = |i: usize, j: usize| (a[i][0] - a[j][0]).hypot(a[i][1] - a[j][1]);
        assert!(d(4, 5) < d(3, 5));
    }

    #[test]
    fn layouts_handle_tiny_and_edgeless_graphs() {
        assert!(radial(0, &[], 0).is_empty());
        assert_eq!(force_directed(1, &[], 0), vec![[0.0, 0.0]]);
        let p = force_directed(3, &[], 0);
        assert!(p.iter().all(|q| q[0].is_finite() && q[1].is_finite()));
    }
}

mod figures {
    //! Figure pieces.

    use benchtop_panel_neurotree::figures::{network_abbreviation, network_boundaries};

    #[test]
    fn boundaries_fall_where_the_network_changes() {
        assert_eq!(network_boundaries(&[0, 0, 1, 1, 1, 2]), vec![2, 5]);
        assert!(network_boundaries(&[3, 3]).is_empty());
        assert_eq!(network_abbreviation("Default mode"), "DM");
        assert_eq!(network_abbreviation("Visual"), "Vis");
        assert_eq!(network_abbreviation("Limbic (medial temporal)"), "LMT");
    }
}

mod explore {
    //! What the tree explorer computes from the data.

    use benchtop_panel_neurotree::engine::Matrix;
    use benchtop_panel_neurotree::engine::cohort::{CohortParams, generate_cohort};
    use benchtop_panel_neurotree::engine::connectivity::static_fc;
    use benchtop_panel_neurotree::engine::dataset::Dataset;
    use benchtop_panel_neurotree::engine::trunk::TrunkParams;
    use benchtop_panel_neurotree::Pick;
    use benchtop_panel_neurotree::explore::{
        explore_fc, fc_strength, mean_dynamic_fc, mean_static_fc,
    };

    fn small() -> Dataset {
        let cohort = generate_cohort(&CohortParams {
            subjects: 6,
            rois: 14,
            time_points: 60,
            ..CohortParams::default()
        })
        .expect("the cohort generates");
        Dataset::from_cohort(&cohort)
    }

    #[test]
    fn a_one_subject_mean_is_that_subject_and_strength_is_the_mean_off_diagonal() {
        let data = small();
        let one = mean_static_fc(&data, &[2]).unwrap();
        assert_eq!(one, static_fc(&data.subjects[2].series).unwrap());
        let fc = Matrix::from_rows(&[
            vec![1.0, 0.5, 0.1],
            vec![0.5, 1.0, 0.3],
            vec![0.1, 0.3, 1.0],
        ])
        .unwrap();
        let s = fc_strength(&fc);
        assert!((s[0] - 0.3).abs() < 1e-12 && (s[1] - 0.4).abs() < 1e-12);
        let windows = mean_dynamic_fc(&data, &[0, 1], 2).unwrap();
        assert_eq!(windows.len(), 2);
        assert!(
            windows[0]
                .as_slice()
                .iter()
                .all(|v| (0.0..=1.0 + 1e-12).contains(v))
        );
    }

    #[test]
    fn trunk_levels_mark_nodes_and_edges() {
        let data = small();
        let fc = mean_static_fc(&data, &Pick::AllSubjects.members(&data)).unwrap();
        let explored = explore_fc(&fc, TrunkParams::default()).unwrap();
        assert_eq!(explored.tree.edges.len(), 13);
        let first = explored
            .trunks
            .trunks
            .iter()
            .find(|t| t.level == 1)
            .unwrap();
        assert_eq!(explored.root, first.nodes[0]);
        for &node in &first.nodes {
            assert_eq!(explored.node_level[node], Some(1));
        }
        let on_level_1 = explored
            .edge_level
            .iter()
            .filter(|l| **l == Some(1))
            .count();
        let level_1_edges: usize = explored
            .trunks
            .trunks
            .iter()
            .filter(|t| t.level == 1)
            .map(|t| t.nodes.len() - 1)
            .sum();
        assert_eq!(on_level_1, level_1_edges);
    }
}

mod trees {
    //! Trees computed in the panel against the engine's.

    use benchtop_kit::compute::{CancelToken, Progress};
    use benchtop_panel_neurotree::engine::cohort::{CohortParams, generate_cohort};
    use benchtop_panel_neurotree::engine::dataset::Dataset;
    use benchtop_panel_neurotree::engine::graph_tree::SpanningTree;
    use benchtop_panel_neurotree::engine::pipeline::{NeuroTreeParams, run};
    use benchtop_panel_neurotree::{Pick, group_picks, tree_base};

    #[test]
    fn trees_computed_here_match_the_engine_run() {
        // One group only: the run trains nothing and scores nodes by FC strength.
        let cohort = generate_cohort(&CohortParams {
            subjects: 6,
            rois: 14,
            time_points: 60,
            patient_fraction: 0.0,
            ..CohortParams::default()
        })
        .unwrap();
        let dataset = Dataset::from_cohort(&cohort);
        let params = NeuroTreeParams::default();
        let result = run(
            &dataset,
            &params,
            &Progress::new(),
            &CancelToken::new(),
            &mut |_| {},
        )
        .unwrap();
        assert!(!result.scores_from_model);
        let engine = &result.group_trees[0];
        assert_eq!(engine.group, None);
        let here = tree_base(&dataset, Pick::AllSubjects)
            .unwrap()
            .explore(params.trunk)
            .unwrap();
        // The same edges (the weights agree to rounding: the means are summed in another order).
        let ends = |t: &SpanningTree| t.edges.iter().map(|e| (e.a, e.b)).collect::<Vec<_>>();
        assert_eq!(ends(&here.tree), ends(&engine.tree));
        let paths = |t: &benchtop_panel_neurotree::engine::trunk::Trunks| {
            t.trunks
                .iter()
                .map(|t| (t.level, t.nodes.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(paths(&here.trunks), paths(&engine.trunks));
        assert_eq!(group_picks(&dataset), vec![Pick::AllSubjects]);
    }
}

mod sweeps {
    //! What sweeps may vary, and how a sweep point sets the parameters and the seed.

    use std::collections::BTreeMap;

    use benchtop_kit::compute::{CancelToken, Progress};
    use benchtop_kit::panel::Panel as _;
    use benchtop_panel_neurotree::{NeuroTreePanel, NeuroTreePanelParams, NeuroTreeState};

    /// A panel on a cohort small enough for debug builds.
    fn small_panel() -> NeuroTreePanel {
        let mut params = NeuroTreePanelParams::default();
        let cohort = &mut params.data.cohort;
        (cohort.subjects, cohort.rois, cohort.time_points) = (12, 14, 60);
        NeuroTreePanel::new(NeuroTreeState {
            params,
            ..NeuroTreeState::default()
        })
    }

    #[test]
    fn sweeps_accept_every_declared_parameter_and_refuse_unknown_ones() {
        let mut panel = small_panel();
        panel.set_param("khop.lambda", 0.3).unwrap();
        panel.set_param("model.hidden", 16.0).unwrap();
        panel.set_param("run.seed", 7.0).unwrap();
        let r = &panel.params().run;
        assert_eq!(r.khop.lambdas, vec![0.3]);
        assert_eq!(r.model.hidden, 16);
        assert_eq!(r.seed, 7);
        assert!(panel.set_param("model.depth", 2.0).is_err());

        let support = panel.sweep_support();
        // Saved sweep results stay current: the digest is the one sweeps were saved with.
        let params = panel.params();
        assert_eq!(
            support.fingerprint,
            format!("{:?}", (&params.data, &params.run))
        );
        // The keys saved projects' sweeps name.
        for key in [
            "khop.lambda",
            "trunk.alpha",
            "trunk.max_path_order",
            "train.learning_rate",
            "model.hidden",
            "train.epochs",
            "run.seed",
        ] {
            assert!(support.params.iter().any(|p| p.key == key), "{key}");
        }
        // The cohort's settings and seed are not swept.
        assert!(!support.params.iter().any(|p| p.key.starts_with("data.")));
        let outputs = ["trunk.level1_nodes".to_owned()];
        let (progress, cancel) = (Progress::new(), CancelToken::new());
        for p in &support.params {
            let one = BTreeMap::from([(p.key.clone(), 1.0)]);
            let values = support
                .evaluator
                .evaluate(&one, &outputs, 1, &progress, &cancel)
                .unwrap_or_else(|error| panic!("{}: {error}", p.key));
            assert!(values["trunk.level1_nodes"] >= 1.0, "{}: {values:?}", p.key);
            let mut other = small_panel();
            assert!(
                other.set_param(&p.key, 1.0_f64.clamp(p.min, p.max)).is_ok(),
                "{}",
                p.key
            );
        }
        let unknown = BTreeMap::from([("model.depth".to_owned(), 2.0)]);
        assert!(
            support
                .evaluator
                .evaluate(&unknown, &outputs, 1, &progress, &cancel)
                .is_err()
        );
    }

    #[test]
    fn the_run_seed_is_the_declared_seed() {
        let mut params = NeuroTreePanelParams::default();
        let declared = <NeuroTreePanelParams as benchtop_kit::params::Declare>::declare();
        let seed = declared
            .iter()
            .find(|p| p.key == "run.seed")
            .expect("run.seed is declared");
        assert!(seed.seed && seed.sweep, "a sweep of it gives each point its seed");
        seed.set(&mut params, 7.0).unwrap();
        assert_eq!(params.run.seed, 7);
    }
}
