//! The Tensor-Var data assimilation panel, clicked through by its labels, and the known answer
//! of its example project.

use std::path::Path;
use std::time::Duration;

use egui_kittest::kittest::Queryable as _;

use crate::common::{self, csv_rows};
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[
    Example {
        project: "tensor-var-lorenz96",
        check: check_lorenz96,
    },
    Example {
        project: "tensor-var-ks",
        check: check_ks,
    },
];

/// A small problem: D = 20, half the components observed, 6 windows of 4 times, the baselines
/// tuned on 3 training windows, 16 EnKF members.
const SMALL: &str = r"(
    format_version: 1,
    panels: [(id: (1), state: Assimilation((params: (
        run: (dim: 20, obs_fraction: 0.5, window: 4, windows: 6, train_steps: 500,
              tune_windows: 3, enkf: (members: 16),
              tensor_var: (features: 120, components: 30, preimage_centres: 200)),
        seed: 3,
    ))))],
)";

/// The keys summary.json must carry, and each method's numbers.
fn check_summary(summary: &serde_json::Value, system: &str, dim: u64, window: u64) {
    assert_eq!(summary["system"], system, "{summary}");
    assert_eq!(summary["dim"], dim);
    assert_eq!(summary["window"], window);
    assert!(summary["obs_fraction"].as_f64().is_some());
    for name in ["Tensor-Var", "4D-Var", "3D-Var"] {
        let m = &summary["methods"][name];
        for key in ["rmse_mean", "rmse_final", "ms_per_window"] {
            let v = m[key].as_f64().unwrap_or(f64::NAN);
            assert!(v.is_finite() && v > 0.0, "{name}.{key} in {summary}");
        }
    }
    check_baselines_and_times(summary);
}

/// The EnKF and the trivial references are reported beside the methods; every method's
/// offline and total time, Tensor-Var's training among them; the tuned settings; the paper's
/// two claims with a verdict.
fn check_baselines_and_times(summary: &serde_json::Value) {
    let number = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
    let windows = number(&summary["windows"]);
    assert!(windows >= 1.0, "{summary}");
    for name in [
        "Tensor-Var",
        "4D-Var",
        "3D-Var",
        "EnKF",
        "Climatology",
        "No dynamics",
    ] {
        let m = &summary["methods"][name];
        let (rmse, ms) = (number(&m["rmse_mean"]), number(&m["ms_per_window"]));
        let (training, total) = (number(&m["training_seconds"]), number(&m["total_seconds"]));
        assert!(rmse.is_finite() && rmse > 0.0, "{name} in {summary}");
        assert!(training >= 0.0 && total >= training, "{name} in {summary}");
        assert!(
            (total - training - ms * windows * 1e-3).abs() < 1e-9 * (1.0 + total),
            "{name}: total ≠ training + windows × per window in {summary}"
        );
    }
    assert!(number(&summary["methods"]["Tensor-Var"]["training_seconds"]) > 0.0);
    assert!(number(&summary["speedup"]) > 0.0 && number(&summary["speedup_total"]) > 0.0);
    let tuning = &summary["tuning"];
    assert!(
        number(&tuning["fourdvar_background_scale"]) > 0.0,
        "{summary}"
    );
    assert!(number(&tuning["enkf_inflation"]) >= 1.0, "{summary}");
    let claims = summary["claims"].as_array().expect("claims");
    assert_eq!(claims.len(), 2, "{summary}");
    for c in claims {
        assert!(
            ["holds", "holds partly", "does not hold"]
                .contains(&c["verdict"].as_str().unwrap_or("")),
            "{c}"
        );
    }
}

#[test]
fn assimilation_panel_assimilates_shows_every_tab_saves_and_reopens() {
    let mut harness = common::harness(common::session_from(SMALL, "small-assimilation.ron"));
    harness.step();
    common::click(&mut harness, "Assimilate");
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    let summary = common::first_summary(&harness.state().session);
    check_summary(&summary, "lorenz96", 20, 4);
    // With half the components observed, 4D-Var on the true model tracks the truth closely.
    let fourd = summary["methods"]["4D-Var"]["rmse_mean"]
        .as_f64()
        .expect("4D-Var");
    assert!(fourd < 0.1, "{summary}");
    assert!(
        harness
            .query_all_by_label_contains("faster per window")
            .next()
            .is_some()
    );
    // The trivial references sit in the table and the claims are judged beside it.
    for label in [
        "No dynamics",
        "Climatology",
        "EnKF",
        "The paper's claims",
        "is more accurate than 4D-Var: ",
    ] {
        assert!(
            harness.query_all_by_label_contains(label).next().is_some(),
            "{label}"
        );
    }
    common::click(&mut harness, "RMSE and time");
    common::click(&mut harness, "Training fit");
    assert!(
        harness
            .query_all_by_label_contains("pre-image nRMSE")
            .next()
            .is_some()
    );
    common::click(&mut harness, "Hovmöller");

    let dir = tempfile::tempdir().expect("temporary folder");
    let reopened = common::save_and_reopen(&mut harness, &dir.path().join("assimilation.ron"));
    assert_eq!(common::first_summary(&reopened), summary);
}

#[test]
fn assimilation_panel_switches_to_kuramoto_sivashinsky() {
    let mut harness = common::harness(common::session_from(SMALL, "small-assimilation.ron"));
    harness.step();
    assert!(
        harness
            .query_all_by_label_contains("Forcing F")
            .next()
            .is_some()
    );
    common::click(&mut harness, "Kuramoto–Sivashinsky");
    harness.step();
    assert!(
        harness
            .query_all_by_label_contains("Domain length L")
            .next()
            .is_some()
    );
    assert!(
        harness
            .query_all_by_label_contains("Forcing F")
            .next()
            .is_none()
    );
    assert!(
        harness
            .query_all_by_label_contains("simulate Kuramoto–Sivashinsky")
            .next()
            .is_some()
    );
}

#[test]
fn assimilation_panel_names_a_bad_setting() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("bad-assimilation.ron");
    let text = SMALL.replace(
        "obs_fraction: 0.5",
        "obs_fraction: 0.5, background_scale: -1.0",
    );
    std::fs::write(&path, text).expect("write");
    let error = match benchtop::session::Session::open(&path) {
        Ok(_) => panic!("a negative background scale opens"),
        Err(e) => e.to_string(),
    };
    assert!(
        error.contains("run.background_scale") && error.contains("> 0"),
        "{error}"
    );
    assert!(error.contains("bad-assimilation.ron"), "{error}");
}

/// D = 40, 20 % observed (test preset: 10 windows, 800 training states, k = 40). 4D-Var on the
/// true model tracks the truth (measured 0.101); Tensor-Var stays below the error of an
/// unrelated state on the attractor (√2·σ_clim/(max − min) ≈ 0.21 for F = 8; measured 0.168)
/// and within a factor 2.5 of 4D-Var. It does not beat 4D-Var here, unlike the paper.
///
/// The observed-fraction sweep: every method's error grows from 50 % to 10 % observed.
fn check_lorenz96(out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    check_summary(s, "lorenz96", 40, 5);
    let tv = s["methods"]["Tensor-Var"]["rmse_mean"]
        .as_f64()
        .expect("tv");
    let fourd = s["methods"]["4D-Var"]["rmse_mean"].as_f64().expect("4dvar");
    assert!(fourd < 0.15, "{s}");
    assert!(tv < 0.19, "{s}");
    assert!(tv < 2.5 * fourd, "{s}");

    check_sweep_degrades(out);
}

/// The first CSV table in `dir`.
fn first_csv(dir: &Path) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .expect("the folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "csv"))
        .expect("a table")
}

/// The observed-fraction sweep: every method's error grows from 50 % to 10 % observed.
fn check_sweep_degrades(out: &Path) {
    let rows = csv_rows(&first_csv(&out.join("sweeps")));
    let value = |fraction: f64, key: &str| -> f64 {
        let row = rows
            .iter()
            .find(|r| {
                (r["run.obs_fraction"].parse::<f64>().expect("fraction") - fraction).abs() < 1e-9
            })
            .expect("the sweep point");
        row[key].parse().expect("a number")
    };
    for key in ["tensor_var_rmse", "fourdvar_rmse", "threedvar_rmse"] {
        assert!(value(0.1, key) > value(0.5, key), "{key}: {rows:?}");
    }
}

/// Kuramoto–Sivashinsky at the test preset (64 points on L = 22, 20 % observed, 6 windows of 5,
/// 600 training states, k = 30): both methods track the truth far better than a free run from
/// the same background (measured over seeds 1–3: Tensor-Var 0.031, 0.032, 0.030; 4D-Var
/// 0.036, 0.017, 0.019; free run 0.117, 0.135, 0.110), and Tensor-Var within a factor 2.5 of
/// 4D-Var (the closest of the three: 0.032 against 2.5 × 0.017).
fn check_ks(out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    check_summary(s, "ks", 64, 5);
    let rmse = |name: &str| s["methods"][name]["rmse_mean"].as_f64().expect(name);
    let rows = csv_rows(&first_csv(&out.join("1-assimilation")));
    let free = rows
        .iter()
        .map(|r| r["nrmse_Free_run"].parse::<f64>().expect("a number"))
        .sum::<f64>()
        / rows.len() as f64;
    for name in ["Tensor-Var", "4D-Var"] {
        assert!(rmse(name) < 0.5 * free, "{name} vs free run {free}: {s}");
    }
    assert!(rmse("Tensor-Var") < 2.5 * rmse("4D-Var"), "{s}");
    check_sweep_degrades(out);
}
