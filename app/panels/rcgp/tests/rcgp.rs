//! The robust spatio-temporal GP panel, clicked through by its labels, and the known answers
//! of its example projects.

use std::path::{Path, PathBuf};
use std::time::Duration;

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
/// RMSE against the clean field is far below STGP's. Measured: RMSE 1.619 (STGP) against 0.0723
/// (ST-RCGP), a ratio of 22; NLPD 240 against −1.39. Asserted: ratio ≥ 3 and a lower NLPD.
fn check_figure1(_out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    let (stgp, stgp_nlpd) = scores(s, "STGP");
    let (rcgp, rcgp_nlpd) = scores(s, "ST-RCGP");
    assert!(stgp > 3.0 * rcgp, "{s}");
    assert!(rcgp_nlpd < stgp_nlpd, "{s}");
    assert_eq!(s["n_space"], 16);
    assert_eq!(s["n_times"], 30);
    for method in ["STGP", "ST-RCGP"] {
        assert!(s["methods"][method]["seconds"].as_f64().expect("seconds") >= 0.0);
        assert!(s["hyperparameters"][method]["noise"].as_f64().expect("noise") > 0.0);
    }
}

/// Seattle daily maximum temperature with 5 % outliers of 6–8 robust SDs: ST-RCGP is closer to
/// the clean series with a lower NLPD (measured RMSE 3.59 against 1.49 °C, ratio 2.4; NLPD 3.39
/// against 1.88; asserted ratio ≥ 1.5); the sweep's table has both methods at rate 0 and 0.2,
/// and the robust method wins at 0.2 (measured 7.38 against 1.85 °C).
fn check_real(out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    let (stgp, stgp_nlpd) = scores(s, "STGP");
    let (rcgp, rcgp_nlpd) = scores(s, "ST-RCGP");
    assert!(stgp > 1.5 * rcgp, "{s}");
    assert!(rcgp_nlpd < stgp_nlpd, "{s}");
    assert_eq!(s["n_times"], 1461);
    assert_eq!(s["n_space"], 1);
    let tables = find(out, "rcgp-sweep");
    let csv = tables.iter().find(|p| p.extension().is_some_and(|e| e == "csv")).expect("sweep table");
    let rows = csv_rows(csv);
    assert_eq!(rows.len(), 2);
    let last = &rows[1];
    let stgp: f64 = last["stgp_rmse"].parse().expect("number");
    let rcgp: f64 = last["rcgp_rmse"].parse().expect("number");
    assert!(rcgp < stgp, "{last:?}");
}
