//! The weather spectra panel, clicked through by its labels, and its command-line outputs.

use std::path::Path;
use std::time::Duration;

use benchtop::session::Session;
use egui_kittest::kittest::Queryable as _;

use crate::common::{self, benchtop, csv_rows};
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[
    Example {
        project: "weather-spectra-analytic",
        check: check_analytic_sweep,
    },
    Example {
        project: "weather-spectra-learned",
        check: check_learned,
    },
];

/// A session with one spectra panel whose learned experiment is tiny (fast in debug builds).
fn small_spectra_session() -> Session {
    let text = r"(
        format_version: 1,
        panels: [(id: (1), state: Spectra((params: (
            analytic: (lmax: 47, steps: 40),
            learned: (
                model: (lmax: 15),
                train_trajectories: 2,
                test_trajectories: 1,
                states_per_trajectory: 4,
                spinup_days: 0.5,
                hidden_channels: 4,
                layers: 2,
                train_steps: 6,
                batch_size: 2,
                snapshot_every: 3,
                eval_leads: [1, 2],
            ),
        ))))],
    )";
    common::session_from(text, "small-spectra.ron")
}

#[test]
fn spectra_panel_fits_loads_trains_saves_and_reopens() {
    let mut harness = common::harness(small_spectra_session());
    // The analytic fit runs by itself.
    common::run_until_idle(&mut harness, Duration::from_secs(300));
    harness.get_by_label("Effective resolution (R_k² ≤ 0.75)");
    let summary = harness
        .state()
        .session
        .panels
        .values()
        .next()
        .expect("panel")
        .summary();
    let gain_error = summary["analytic"]["mean_abs_gain_minus_one_amse"]
        .as_f64()
        .expect("the fit ran");
    assert!(gain_error < 0.05, "AMSE gains reach 1: {gain_error}");

    harness.get_by_label("Data").click();
    harness.step();
    harness.get_by_label("Load field").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(300));
    harness.get_by_label_contains("(Parseval)");

    harness.get_by_label("Learned").click();
    harness.step();
    harness.get_by_label("Train both forecasters").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(600));
    harness.get_by_label("Effective resolution: first k where R_k² ≤ 0.75.");

    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("spectra.ron");
    let reopened = common::save_and_reopen(&mut harness, &path);
    // The pane's arrays carry its id, so two spectra panels never share a file.
    for array in [
        "1-spectra-field.npy",
        "1-spectra-analytic-maps.npy",
        "1-spectra-learned-history.npy",
        "1-spectra-learned-maps.npy",
    ] {
        assert!(
            common::sidecar_folder(&path).join(array).exists(),
            "{array}"
        );
    }
    let after = common::first_summary(&reopened);
    assert!(
        after["learned"]["leads"]
            .as_array()
            .is_some_and(|l| l.len() == 2)
    );
    let figures = reopened.panels.values().next().expect("panel").figures();
    for name in [
        "spectra-field",
        "spectra-analytic",
        "spectra-analytic-maps",
        "spectra-learned",
        "spectra-learned-maps",
    ] {
        assert!(
            figures.iter().any(|f| f.name == name),
            "{name} after reopening"
        );
    }
}

#[test]
fn spectra_cli_writes_the_psd_of_the_sample_and_names_bad_input() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let csv = dir.path().join("uwnd.csv");
    let output = benchtop()
        .args([
            "spectra",
            "assets/spectra/uwnd_mean.nc",
            "--var",
            "uwnd",
            "--time",
            "0",
        ])
        .arg("--csv")
        .arg(&csv)
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let rows = csv_rows(&csv);
    let header: Vec<&String> = rows[0].keys().collect();
    assert_eq!(header.len(), 3);
    for column in ["k", "wavelength_km", "psd"] {
        assert!(rows[0].contains_key(column), "{column}");
    }
    // The 73×144 equiangular grid resolves k ≤ 71 … 72; k = 32 is about 1251 km.
    assert!(rows.len() >= 64, "{} rows", rows.len());
    let row32 = &rows[32];
    let km: f64 = row32["wavelength_km"].parse().expect("number");
    assert!((km - 1251.0).abs() < 1.0, "k = 32 ↔ {km} km");
    // Zonal wind at 200 hPa: tens of m/s, most power at the largest scales.
    let psd: Vec<f64> = rows
        .iter()
        .map(|r| r["psd"].parse().expect("number"))
        .collect();
    assert!(psd.iter().all(|p| p.is_finite() && *p >= 0.0));
    let total: f64 = psd.iter().sum();
    assert!(
        (100.0..2500.0).contains(&total),
        "mean square {total} (m/s)²"
    );
    assert!(psd[2] > 100.0 * psd[40]);

    // A NaN in an NPY field is refused, naming the file.
    let bad = dir.path().join("bad.npy");
    let mut values = vec![1.0_f64; 5 * 8];
    values[7] = f64::NAN;
    let array = ndarray::Array2::from_shape_vec((5, 8), values).expect("shape");
    ndarray_npy::write_npy(&bad, &array).expect("writes");
    let output = benchtop()
        .args(["spectra"])
        .arg(&bad)
        .arg("--csv")
        .arg(dir.path().join("bad.csv"))
        .output()
        .expect("runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.npy"), "{stderr}");
    assert!(
        !dir.path().join("bad.csv").exists(),
        "nothing written for bad input"
    );
}

#[test]
fn bench_sht_prints_timings_and_a_small_round_trip_error() {
    let value = common::json_output(
        &[
            "bench", "sht", "--nlat", "73", "--nlon", "144", "--lmax", "71", "--repeats", "2",
        ],
        true,
    );
    for key in ["forward_ms", "inverse_ms"] {
        assert!(
            value[key].as_f64().is_some_and(|t| t > 0.0),
            "{key}: {value}"
        );
    }
    let error = value["roundtrip_max_abs_err"].as_f64().expect("number");
    assert!(error < 1e-10, "round trip error {error}");
}

/// The analytic sweep: the MSE fit's effective resolution is where ρ_k² first reaches 0.75,
/// the AMSE fit keeps every scale, and the mean gains are the exact optima.
fn check_analytic_sweep(out: &Path, _summary: &serde_json::Value) {
    let rows = csv_rows(&out.join("sweeps/effective-resolution-against-decorrelation.csv"));
    assert_eq!(rows.len(), 9);
    for row in rows {
        let k_c: f64 = row["analytic.k_c"].parse().expect("k_c");
        let k_mse: f64 = row["analytic.resolution_k_mse"].parse().expect("k");
        let k_amse: f64 = row["analytic.resolution_k_amse"].parse().expect("k");
        let exact = (k_c * (4.0_f64 / 3.0).ln() / 2.0).ceil().clamp(1.0, 127.0);
        assert!(
            (k_mse - exact).abs() <= 1.0,
            "k_c = {k_c}: MSE-optimal k = {k_mse}, exact {exact}"
        );
        assert!(
            (k_amse - 127.0).abs() < 0.5,
            "k_c = {k_c}: AMSE-optimal keeps every k ({k_amse})"
        );
        let gain: f64 = row["analytic.mean_gain_amse"].parse().expect("gain");
        assert!(
            (gain - 1.0).abs() < 0.02,
            "k_c = {k_c}: mean AMSE gain {gain}"
        );
    }
}

/// The learned experiment: at the longest lead the AMSE-trained forecaster resolves finer
/// scales than the MSE-trained one, and the MSE forecaster's resolution falls with lead time.
fn check_learned(_out: &Path, summary: &serde_json::Value) {
    let leads = summary["panels"][0]["summary"]["learned"]["leads"]
        .as_array()
        .expect("evaluated leads");
    assert!(leads.len() >= 2, "{leads:?}");
    // The first k where R_k² ≤ 0.75; none means every resolved scale keeps its amplitude.
    let k = |lead: &serde_json::Value, net: &str| {
        lead[net]["resolution"]["dissipation_k"]
            .as_u64()
            .unwrap_or(u64::MAX)
    };
    let (first, last) = (&leads[0], &leads[leads.len() - 1]);
    assert!(
        k(last, "amse") > k(last, "mse"),
        "at {} h: AMSE k {} vs MSE k {}",
        last["lead_h"],
        k(last, "amse"),
        k(last, "mse")
    );
    assert!(
        k(last, "mse") <= k(first, "mse"),
        "MSE resolution from {} h to {} h: k {} → {}",
        first["lead_h"],
        last["lead_h"],
        k(first, "mse"),
        k(last, "mse")
    );
}

#[test]
fn exact_resolution_is_where_rho_squared_reaches_three_quarters() {
    // k_c = 24: ρ_k² ≤ 0.75 from k ≥ 24·ln(4/3)/2 = 3.45, so k = 4.
    let curve = benchtop_panel_spectra::sweeps::reference(
        "analytic.k_c",
        "analytic.resolution_k_mse",
        24.0,
        24.0,
        127,
    )
    .expect("an exact curve");
    assert!(curve.points.iter().all(|&(_, k)| (k - 4.0).abs() < 1e-12), "{curve:?}");
    let rho = |k: f64| (-k / 24.0_f64).exp();
    assert!(rho(4.0).powi(2) <= 0.75 && rho(3.0).powi(2) > 0.75);
    let flat = benchtop_panel_spectra::sweeps::reference(
        "analytic.k_c",
        "analytic.resolution_k_mse",
        1e6,
        1e6,
        127,
    )
    .expect("an exact curve");
    assert!(flat.points.iter().all(|&(_, k)| (k - 127.0).abs() < 1e-12));
}
