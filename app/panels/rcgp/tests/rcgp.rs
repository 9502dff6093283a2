//! The robust spatio-temporal GP panel, clicked through by its labels, and the known answers
//! of its example projects.

use std::path::{Path, PathBuf};
use std::time::Duration;

use benchtop_kit::figure::Item;
use egui_kittest::kittest::Queryable as _;

use crate::common::{self, csv_rows};
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[
    Example {
        project: "robust-gp-figure1",
        check: check_figure1,
    },
    Example {
        project: "robust-gp-real",
        check: check_real,
    },
];

/// A small Figure-1 problem (3×3 grid × 25 times, 8 % outliers, fitted) and a 3-point sweep.
const SMALL: &str = r"(
    format_version: 1,
    panels: [(id: (1), state: Rcgp((params: (
        run: (data: (grid: 3, n_times: 25, outlier_rate: 0.08), fit: true, seed: 2),
        sweep: (max_rate: 0.1, points: 3),
    ))))],
)";

fn scores(summary: &serde_json::Value, method: &str) -> (f64, f64) {
    let m = &summary["methods"][method];
    (
        m["rmse"].as_f64().expect("rmse"),
        m["nlpd"].as_f64().expect("nlpd"),
    )
}

#[test]
fn rcgp_panel_fits_both_maps_sweeps_saves_and_reopens() {
    let mut harness = common::harness(common::session_from(SMALL, "small-rcgp.ron"));
    harness.step();
    common::click(&mut harness, "Fit both");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    let summary = common::first_summary(&harness.state().session);
    let (stgp, _) = scores(&summary, "STGP");
    let (rcgp, _) = scores(&summary, "ST-RCGP");
    assert!(rcgp < stgp, "{summary}");
    assert_eq!(summary["n_space"], 9);
    assert_eq!(summary["n_times"], 25);
    assert!((summary["outlier_rate"].as_f64().expect("rate") - 0.08).abs() < 0.01);
    assert!(summary["hyperparameters"]["ST-RCGP"]["fitted"].as_bool().expect("fitted"));
    // Issue 34: both fits are multi-start with the same budget, each reporting the likelihood
    // of its best start and of the project's start; the scores say what they are against and
    // come with the trivial references.
    for method in ["STGP", "ST-RCGP"] {
        let fit = &summary["methods"][method]["fit"];
        assert_eq!(fit["starts"], 8, "{summary}");
        let best = fit["log_likelihood"].as_f64().expect("log likelihood");
        let single = fit["log_likelihood_single_start"].as_f64().expect("single start");
        assert!(best >= single, "{method}: {fit}");
    }
    assert_eq!(summary["scored_against"], "truth");
    let location_mean = summary["references"]["location_mean"]["rmse"].as_f64().expect("reference");
    assert!(rcgp < location_mean, "{summary}");
    assert!(summary["references"]["observations"]["rmse"].as_f64().expect("reference") > 0.0);
    assert!(summary["verdict"].as_str().expect("verdict").contains("lower than STGP fitted at its maximum likelihood"), "{summary}");
    harness.get_by_label_contains("ST-RCGP RMSE");
    assert_eq!(harness.query_all_by_label_contains("from your start alone").count(), 2, "both fits");
    let panel = harness.state().session.panels.values().next().expect("panel");
    let series = panel.figures().into_iter().find(|f| f.name == "rcgp-series").expect("series");
    assert!(
        series.figure.subplots[0].items.iter().any(|i| matches!(i, Item::HLine(l) if l.label.starts_with("per-location mean"))),
        "the fit carries the per-location mean as a reference line"
    );
    // The metrics table and the location slider are shown.
    assert!(harness.query_all_by_label_contains("Location shown").next().is_some());
    // The maps draw at a time chosen on the slider.
    common::click(&mut harness, "Maps");
    assert!(harness.query_all_by_label_contains("Time index").next().is_some());
    // The sweep runs from its tab.
    common::click(&mut harness, "Outlier sweep");
    common::click(&mut harness, "Sweep outlier rate");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    assert!(harness.query_all_by_label("0.100").next().is_some(), "the sweep table shows");
    let panel = harness.state().session.panels.values().next().expect("panel");
    let sweep = panel.figures().into_iter().find(|f| f.name == "rcgp-sweep").expect("sweep");
    let names: Vec<&str> = sweep.figure.subplots[0].items.iter().map(Item::name).collect();
    for reference in ["raw observations (no model)", "per-location mean"] {
        assert!(names.contains(&reference), "{names:?}");
    }
    common::click(&mut harness, "Fits over time");

    let dir = tempfile::tempdir().expect("temporary folder");
    let reopened = common::save_and_reopen(&mut harness, &dir.path().join("rcgp.ron"));
    assert_eq!(common::first_summary(&reopened), summary);
}

#[test]
fn rcgp_panel_names_the_bad_cell_of_a_csv() {
    let dir = tempfile::tempdir().expect("temporary folder");
    std::fs::write(dir.path().join("bad.csv"), "t,v\n0,1\n1,NaN\n").expect("write");
    let project = dir.path().join("bad.ron");
    std::fs::write(
        &project,
        r#"(format_version: 1, panels: [(id: (1), state: Rcgp((params: (run: (data: (source: Csv, csv_path: "bad.csv"))))))])"#,
    )
    .expect("write");
    let session = benchtop::session::Session::open(&project).expect("opens");
    let mut harness = common::harness(session);
    harness.step();
    common::click(&mut harness, "Fit both");
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    harness.get_by_label_contains("bad.csv: line 3, column 2: value `NaN` is not finite");
}

/// A long CSV on a 3×3 grid × 12 times with one outlier of +9; with `truth`, a `truth` column
/// holding the field without noise and outliers.
fn grid_csv(truth: bool) -> String {
    let mut text = String::from(if truth { "time,x,y,value,truth\n" } else { "time,x,y,value\n" });
    for k in 0..12 {
        let t = f64::from(k) / 11.0;
        for row in 0..3 {
            for col in 0..3 {
                let f = (3.0 * t).sin() * f64::from(col) + f64::from(row);
                let noise = 0.02 * f64::from((k + row * 3 + col) % 5) - 0.04;
                let outlier = if (k, row, col) == (5, 1, 1) { 9.0 } else { 0.0 };
                text.push_str(&format!("{t},{col},{row},{}", f + noise + outlier));
                if truth {
                    text.push_str(&format!(",{f}"));
                }
                text.push('\n');
            }
        }
    }
    text
}

/// Issue 34: without a truth column a CSV is scored against its own observations, and the maps
/// call them that, never "Truth"; with one, the scores and the maps are against the truth.
#[test]
fn rcgp_panel_csv_maps_name_what_they_score_against() {
    for truth in [false, true] {
        let dir = tempfile::tempdir().expect("temporary folder");
        std::fs::write(dir.path().join("grid.csv"), grid_csv(truth)).expect("write");
        let project = dir.path().join("grid.ron");
        std::fs::write(
            &project,
            r#"(format_version: 1, panels: [(id: (1), state: Rcgp((params: (run: (data: (source: Csv, csv_path: "grid.csv", outlier_rate: 0.0), fit_starts: 3)), view: (time: 5))))])"#,
        )
        .expect("write");
        let session = benchtop::session::Session::open(&project).expect("opens");
        let mut harness = common::harness(session);
        harness.step();
        common::click(&mut harness, "Fit both");
        common::run_until_idle(&mut harness, Duration::from_secs(60));
        let summary = common::first_summary(&harness.state().session);
        assert_eq!(summary["scored_against"], if truth { "truth" } else { "observations" }, "{summary}");
        assert_eq!(summary["n_space"], 9);
        let panel = harness.state().session.panels.values().next().expect("panel");
        let maps = panel.figures().into_iter().find(|f| f.name == "rcgp-maps").expect("maps");
        let titles: Vec<&str> = maps.figure.subplots.iter().map(|s| s.title.as_str()).collect();
        if truth {
            assert!(titles.contains(&"Truth") && titles.contains(&"|ST-RCGP − truth|"), "{titles:?}");
        } else {
            assert!(titles.iter().all(|t| !t.to_lowercase().contains("truth")), "{titles:?}");
            assert!(titles.contains(&"Observations before injected outliers (scored against)"), "{titles:?}");
            assert!(titles.contains(&"|ST-RCGP − observations|"), "{titles:?}");
        }
    }
}

/// Every file under `dir` whose name contains `part`.
fn find(dir: &Path, part: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(find(&path, part));
        } else if path.file_name().is_some_and(|n| n.to_string_lossy().contains(part)) {
            out.push(path);
        }
    }
    out
}

/// Figure-1 field at the test size (4×4 × 30 times, 5 % outliers of 6–8, fitted): ST-RCGP's
/// RMSE against the clean field is far below STGP's. Measured with both fits multi-start (8
/// starts, issue 34): RMSE 0.4716 (STGP, log likelihood −953.4 from the fifth start; from the
/// project's start alone −965.6) against 0.0723 (ST-RCGP), a ratio of 6.5; NLPD 1.73 against
/// −1.39; the per-location mean scores 0.741 and the raw observations 1.622. Before issue 34
/// STGP was fitted from one start (RMSE 1.59–1.62, NLPD 23–240: a ratio of 22). Asserted: ratio
/// ≥ 3, a lower NLPD, the multi-start likelihood at least the single start's, and ST-RCGP below
/// the per-location mean.
fn check_figure1(_out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    let (stgp, stgp_nlpd) = scores(s, "STGP");
    let (rcgp, rcgp_nlpd) = scores(s, "ST-RCGP");
    assert!(stgp > 3.0 * rcgp, "{s}");
    assert!(rcgp_nlpd < stgp_nlpd, "{s}");
    let fit = &s["methods"]["STGP"]["fit"];
    assert!(fit["log_likelihood"].as_f64().expect("ll") > fit["log_likelihood_single_start"].as_f64().expect("ll") + 5.0, "{s}");
    assert_eq!(s["scored_against"], "truth");
    assert!(rcgp < s["references"]["location_mean"]["rmse"].as_f64().expect("reference"), "{s}");
    assert_eq!(s["n_space"], 16);
    assert_eq!(s["n_times"], 30);
    for method in ["STGP", "ST-RCGP"] {
        assert!(s["methods"][method]["seconds"].as_f64().expect("seconds") >= 0.0);
        assert!(s["hyperparameters"][method]["noise"].as_f64().expect("noise") > 0.0);
    }
}

/// Seattle daily maximum temperature with 5 % outliers of 6–8 robust SDs: ST-RCGP is closer to
/// the series before the outliers with a lower NLPD (measured RMSE 3.63 against 1.49 °C, ratio
/// 2.4; NLPD 3.56 against 1.88; asserted ratio ≥ 1.5; one start already reaches STGP's maximum
/// here, so the multi-start fit changes nothing); the scores are against the observations; the
/// sweep's table has both methods at rate 0 and 0.2 and the references, and the robust method
/// wins at 0.2 (measured 7.38 against 1.85 °C).
fn check_real(out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    let (stgp, stgp_nlpd) = scores(s, "STGP");
    let (rcgp, rcgp_nlpd) = scores(s, "ST-RCGP");
    assert!(stgp > 1.5 * rcgp, "{s}");
    assert!(rcgp_nlpd < stgp_nlpd, "{s}");
    assert_eq!(s["n_times"], 1461);
    assert_eq!(s["n_space"], 1);
    assert_eq!(s["scored_against"], "observations");
    let tables = find(out, "rcgp-sweep");
    let csv = tables.iter().find(|p| p.extension().is_some_and(|e| e == "csv")).expect("sweep table");
    let rows = csv_rows(csv);
    assert_eq!(rows.len(), 2);
    let last = &rows[1];
    let stgp: f64 = last["stgp_rmse"].parse().expect("number");
    let rcgp: f64 = last["rcgp_rmse"].parse().expect("number");
    assert!(rcgp < stgp, "{last:?}");
    let mean: f64 = last["location_mean_rmse"].parse().expect("number");
    assert!(rcgp < mean, "{last:?}");
}
