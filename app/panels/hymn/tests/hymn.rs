//! HyMN subgraph GNN, clicked through by its labels, its CSV loader's messages, and the known
//! answer of the counting project.

use std::path::Path;
use std::time::Duration;

use benchtop::session::Session;
use egui_kittest::kittest::{NodeT as _, Queryable as _};

use crate::common;
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[Example {
    project: "hymn-counting",
    check: check_counting,
}];

/// A session with one HyMN panel whose graphs and training are tiny (fast in debug builds).
fn small_hymn_session(data: &str) -> Session {
    let text = format!(
        r"(
        format_version: 1,
        panels: [(id: (1), state: Hymn((params: (
            data: {data},
            experiment: (
                max_subgraphs: 2,
                walk_terms: 8,
                model: (hidden: 8, layers: 2),
                epochs: 3,
                batch_size: 16,
            ),
        ))))],
    )"
    );
    common::session_from(&text, "small-hymn.ron")
}

const SMALL_SET: &str =
    "(set: (graphs: 40, min_nodes: 6, max_nodes: 9, family: Mixed, degree: 3, target: FourCycle))";

#[test]
fn hymn_panel_draws_trains_saves_and_reopens() {
    let mut harness = common::harness(small_hymn_session(SMALL_SET));
    // The graph view follows the settings by itself.
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    harness.get_by_label("Marked (node: SC, CSE sum)");
    harness.get_by_label("4-cycles");

    common::click(&mut harness, "Compare");
    common::click(&mut harness, "Train strategies");
    common::run_until_idle(&mut harness, Duration::from_secs(300));
    let summary = common::first_summary(&harness.state().session);
    let methods = summary["methods"].as_object().expect("methods");
    let names: Vec<&String> = methods.keys().collect();
    // Seven since issue 34 added the CSE baselines MPNN+CSE and random+CSE (five before).
    assert_eq!(
        names.len(),
        7,
        "MPNN, random, centrality, centrality+CSE, full bag, MPNN+CSE, random+CSE: {summary}"
    );
    for name in [
        "MPNN",
        "random",
        "centrality",
        "centrality+CSE",
        "full bag",
        "MPNN+CSE",
        "random+CSE",
    ] {
        let runs = methods[name].as_array().expect(name);
        let expected = if matches!(name, "MPNN" | "full bag" | "MPNN+CSE") {
            1
        } else {
            2
        };
        assert_eq!(runs.len(), expected, "{name}");
        for run in runs {
            let keys: Vec<&String> = run.as_object().expect("run").keys().collect();
            assert_eq!(keys, ["seconds_per_epoch", "subgraphs", "test_mae"]);
            assert!(
                run["test_mae"]
                    .as_f64()
                    .is_some_and(|m| m.is_finite() && m > 0.0)
            );
        }
    }
    assert_eq!(methods["random"][1]["subgraphs"], 2.0);
    assert_eq!(methods["MPNN"][0]["subgraphs"], 0.0);
    assert_eq!(methods["MPNN+CSE"][0]["subgraphs"], 0.0);
    // HyMN against the baselines with the same CSE feature, at each T, and the verdict shown.
    let comparisons = summary["comparisons"].as_array().expect("comparisons");
    assert_eq!(comparisons.len(), 2, "{summary}");
    for (t, c) in comparisons.iter().enumerate() {
        assert_eq!(c["subgraphs"], t + 1);
        assert_eq!(c["centrality+CSE"], methods["centrality+CSE"][t]["test_mae"]);
        assert_eq!(c["MPNN+CSE"], methods["MPNN+CSE"][0]["test_mae"]);
        assert_eq!(c["random+CSE"], methods["random+CSE"][t]["test_mae"]);
        let ratio = c["ratio_to_mpnn_cse"].as_f64().expect("ratio");
        let (hymn, base) = (c["centrality+CSE"].as_f64(), c["MPNN+CSE"].as_f64());
        assert!((ratio - hymn.expect("mae") / base.expect("mae")).abs() < 1e-12);
    }
    let verdict = summary["verdict"].as_str().expect("verdict");
    assert!(verdict.starts_with("Central marks help beyond the CSE feature: "));
    harness.get_by_label(verdict);
    assert!(
        summary["perturbation_vs_walks_spearman"].is_number(),
        "{summary}"
    );
    // The constant prediction's MAE and the runs that do not beat it are reported.
    assert!(summary["constant_test_mae"].as_f64().is_some_and(|c| c > 0.0));
    assert!(summary["uninformative"].is_array(), "{summary}");
    harness.get_by_label_contains("Perturbation vs walks: Spearman");

    let dir = tempfile::tempdir().expect("temporary folder");
    let reopened = common::save_and_reopen(&mut harness, &dir.path().join("hymn.ron"));
    let figures = reopened.panels.values().next().expect("panel").figures();
    for name in ["hymn-graph", "hymn-comparison", "hymn-perturbation"] {
        assert!(figures.iter().any(|f| f.name == name), "{name}");
    }
}

#[test]
fn hymn_reads_an_edge_list_and_names_the_bad_line() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let good = dir.path().join("graphs.csv");
    let mut text = String::from("graph,source,target,label\n");
    // Twelve graphs: cycles C_3..C_14 with their length as the graph label.
    for n in 3..15 {
        for v in 0..n {
            text.push_str(&format!("c{n},{v},{},\n", (v + 1) % n));
        }
        text.push_str(&format!("c{n},,,{n}\n"));
    }
    std::fs::write(&good, text).expect("writes");
    let data = format!(
        "(source: File, file: (path: {:?}), set: (target: Triangle))",
        good.display().to_string()
    );
    let mut harness = common::harness(small_hymn_session(&data));
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    harness.get_by_label_contains("12 graphs");
    harness.get_by_label_contains("this graph: graph label = 3");

    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "graph,source,target,label\na,0,1,\na,1,x,\n").expect("writes");
    let data = format!(
        "(source: File, file: (path: {:?}))",
        bad.display().to_string()
    );
    let mut harness = common::harness(small_hymn_session(&data));
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    harness.get_by_label_contains("bad.csv: line 3, column `target`");
}

#[test]
fn hymn_reads_molecules_from_the_offline_set() {
    // Start on random graphs, switch the source to molecules by its label.
    let data = "(molecules: (graphs: 40, target: Tpsa), \
                set: (graphs: 40, min_nodes: 6, max_nodes: 9, family: Mixed, degree: 3))";
    let mut harness = common::harness(small_hymn_session(data));
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    common::click(&mut harness, "Molecules");
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    // 40 molecules, the shown one labelled with its TPSA; a drug-like molecule has more than 9
    // heavy atoms on average, more than any graph of the random set.
    let node = harness.get_by_label_contains("40 graphs");
    // A label's text is its value.
    let shown = node.accesskit_node().value().unwrap_or_default();
    assert!(shown.contains("this graph: TPSA (Å²) = "), "{shown}");
    let mean: f64 = shown
        .split(" nodes on average")
        .next()
        .and_then(|s| s.rsplit(", ").next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(mean > 12.0, "{shown}");
}

#[test]
fn hymn_verdict_words_follow_the_claims_rule() {
    use benchtop_panel_hymn::verdict::words;
    assert_eq!(words(&[0.7, 0.8]), "holds");
    assert_eq!(words(&[0.95, 0.97]), "holds partly");
    assert_eq!(words(&[0.9, 1.1]), "does not hold");
    assert_eq!(words(&[]), "does not hold");
}

/// The counting project (test preset: 200 graphs of 10–14 nodes, 15 epochs, width 16).
/// Centrality marking with the CSE (HyMN) beats random marking at T = 1 and 2: in the engine's
/// measurement (`hymn_measure`, 300 graphs, seeds 1–4, triangles and 4-cycles) its MAE was
/// 0.07–0.22 against 0.20–0.46 for random marks (0.40× here); it must be at least 25 % lower. Centrality
/// marking without the CSE did not beat random marking reliably at these sizes, so it is not
/// asserted. The output change when a node is marked follows its walk count: ρ 0.08–0.69 in
/// the measurement (0.94–0.99 before the layers were batch-normalised), 0.49 here; asserted
/// > 0.3.
fn check_counting(_out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    let mae = |method: &str, t: usize| s["methods"][method][t]["test_mae"].as_f64().expect("mae");
    for t in 0..2 {
        let (hymn, random) = (mae("centrality+CSE", t), mae("random", t));
        assert!(
            hymn < 0.75 * random,
            "T = {}: {hymn} vs {random}: {s}",
            t + 1
        );
    }
    let rho = s["perturbation_vs_walks_spearman"].as_f64().expect("rho");
    assert!(rho > 0.3, "{s}");
}
