//! Saved work survives anything short of a disk failure, and a broken or hostile project file
//! gets a clear error naming the file and key (issue 15): results that cannot be read are kept,
//! arrays never collide, non-finite numbers round-trip, a save killed at any moment leaves the
//! old or the new project whole, and nothing read from a file reaches outside its sidecar.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use benchtop::session::Session;
use benchtop_kit::compute::{CancelToken, Progress};
use benchtop_kit::project::TEMPORARY_PREFIX;

use crate::common::{self, benchtop};

/// A project with one small Ising panel that computes its Monte Carlo run headless; `extra`
/// goes into its `mc` parameters (16 × 16, 20 + 100 sweeps unless it says otherwise).
fn ising_project(extra: &str) -> String {
    let mut mc = String::from("thermalization_sweeps: 20");
    for (key, default) in [("size", "16"), ("measurement_sweeps", "100")] {
        if !extra.contains(&format!("{key}:")) {
            mc.push_str(&format!(", {key}: {default}"));
        }
    }
    format!(
        r"(
        format_version: 1,
        panels: [(id: (1), state: Ising((
            params: (mc: ({mc}{extra})),
            headless: (monte_carlo: true, duality: false, approximate_duals: false),
        )))],
    )"
    )
}

/// Writes `text` to `dir/name`, runs `benchtop run … --save` on it and returns its path.
fn run_and_save(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("project written");
    let output = benchtop()
        .args(["run"])
        .arg(&path)
        .arg("--out")
        .arg(dir.join(format!("{name}-out")))
        .args(["--format", "svg", "--save"])
        .output()
        .expect("benchtop runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    path
}

fn compute(session: &mut Session) {
    for panel in session.panels.values_mut() {
        panel
            .run_headless(&Progress::new(), &CancelToken::new())
            .expect("computes");
    }
}

fn open_error(text: &str) -> String {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("bad.ron");
    std::fs::write(&path, text).expect("written");
    match Session::open(&path) {
        Ok(_) => panic!("the project opened: {text}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn robust_every_example_project_opens_with_strict_keys() {
    let dir = common::repo_root().join("projects");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("projects/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "ron") {
            let text = std::fs::read_to_string(&path).expect("readable");
            let doc = benchtop::catalog::ProjectDoc::parse(&text, &path)
                .unwrap_or_else(|error| panic!("{error}"));
            Session::from_doc(doc, None).unwrap_or_else(|error| panic!("{error}"));
            count += 1;
        }
    }
    assert!(count >= 5, "{count} projects");
}

#[test]
fn robust_misspelt_keys_and_odd_files_get_named_errors() {
    let message = open_error(&ising_project(", szie: 16"));
    assert!(
        message.contains("bad.ron:4")
            && message.contains("`panels[0].state.params.mc.szie`")
            && message.contains("did you mean `size`?"),
        "{message}"
    );
    // A byte-order mark (some Windows editors write one) is not an error.
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("bom.ron");
    std::fs::write(&path, format!("\u{feff}{}", ising_project(""))).expect("written");
    Session::open(&path).expect("a BOM is skipped");
    // Two panels with one id: refused, not one of them silently dropped.
    let message =
        open_error("(panels: [(id: (1), state: Ising(())), (id: (1), state: Spectra(()))])");
    assert!(message.contains("two panels have the id 1"), "{message}");
    // A saved sweep point without coordinates: refused by key, not a panic while drawing.
    let message = open_error(
        r#"(panels: [(id: (1), state: Ising(()))],
            sweeps: [(name: "s", pane: (1), axes: [(param: "mc.beta", grid: List([0.1]))],
                      outputs: ["mc.bond_energy_per_site"], results: [(coords: [], outputs: {})])])"#,
    );
    assert!(
        message.contains("sweeps[s].results[0].coords") && message.contains("0 coordinates"),
        "{message}"
    );
    // Too few measurements: the error names the key the user wrote, not an internal one.
    let message = open_error(&ising_project(", measurement_sweeps: 5, measure_every: 10"));
    assert!(message.contains("mc.measurement_sweeps"), "{message}");
    // A sidecar folder name that leaves the project's data folder.
    let message = open_error(r#"(sidecar_folder: Some("../../elsewhere"))"#);
    assert!(message.contains("sidecar_folder"), "{message}");
}

#[test]
fn robust_a_sweep_of_absurd_size_is_refused_before_it_is_made() {
    let mut session = common::session_from(
        r#"(panels: [(id: (1), state: Ising(()))],
            sweeps: [(name: "huge", pane: (1),
                      axes: [(param: "mc.beta",
                              grid: Range(start: 0.1, end: 0.5, count: 4000000000, spacing: Linear))],
                      outputs: ["mc.bond_energy_per_site"])])"#,
        "huge.ron",
    );
    let started = Instant::now();
    let error = session
        .run_sweep_blocking(0, &Progress::new(), &CancelToken::new())
        .expect_err("refused")
        .to_string();
    assert!(
        error.contains("4000000000 points") && error.contains("huge"),
        "{error}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "refused at once"
    );
}

#[test]
fn robust_results_that_cannot_be_read_are_kept_not_dropped() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = run_and_save(dir.path(), "kept.ron", &ising_project(""));
    let series = common::sidecar_folder(&path).join("1-ising-series.npy");
    std::fs::remove_file(&series).expect("one array removed");

    let mut session = Session::open(&path).expect("opens");
    let warnings = session.restore_warnings();
    assert!(
        warnings.len() == 1 && warnings[0].contains("1-ising-series.npy"),
        "{warnings:?}"
    );
    // Saving without recomputing keeps the saved results and the arrays that are left.
    session.save_as(&path).expect("saves");
    let text = std::fs::read_to_string(&path).expect("readable");
    assert!(
        text.contains("series_file") && text.contains("mc: Some("),
        "{text}"
    );
    assert!(
        common::sidecar_folder(&path)
            .join("1-ising-lattice.npy")
            .exists()
    );
    // `benchtop run` says so on stderr, and recomputing replaces them.
    let output = benchtop()
        .arg("run")
        .arg(&path)
        .arg("--out")
        .arg(dir.path().join("again"))
        .args(["--format", "svg", "--save"])
        .output()
        .expect("runs");
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("warning") && stderr.contains("1-ising-series.npy"),
        "{stderr}"
    );
    let reopened = Session::open(&path).expect("opens");
    assert!(reopened.restore_warnings().is_empty());
    assert!(common::first_summary(&reopened)["monte_carlo"].is_object());
}

#[test]
fn robust_non_finite_results_round_trip() {
    // 100 measurement sweeps with correlations every 20 give too few correlation samples for a
    // correlation length: the result holds NaN, which must read back as NaN.
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = run_and_save(
        dir.path(),
        "nan.ron",
        &ising_project(", measurement_sweeps: 10"),
    );
    let text = std::fs::read_to_string(&path).expect("readable");
    assert!(text.contains("NaN"), "the saved result holds a NaN");
    let reopened = Session::open(&path).expect("opens");
    assert!(
        reopened.restore_warnings().is_empty(),
        "{:?}",
        reopened.restore_warnings()
    );
    assert!(common::first_summary(&reopened)["monte_carlo"].is_object());
}

#[test]
fn robust_two_panels_of_one_kind_keep_their_own_arrays_and_sweep_files() {
    let text = r#"(
        panels: [
            (id: (1), state: Ising((params: (mc: (size: 8, thermalization_sweeps: 10, measurement_sweeps: 50))))),
            (id: (2), state: Ising((params: (mc: (size: 12, thermalization_sweeps: 10, measurement_sweeps: 50))))),
        ],
        sweeps: [
            (name: "β", pane: (1), axes: [(param: "mc.beta", grid: List([0.2]))], outputs: ["mc.bond_energy_per_site"]),
            (name: "γ", pane: (2), axes: [(param: "mc.beta", grid: List([0.3]))], outputs: ["mc.bond_energy_per_site"]),
        ],
    )"#;
    let mut session = common::session_from(text, "two.ron");
    compute(&mut session);
    for index in 0..2 {
        session
            .run_sweep_blocking(index, &Progress::new(), &CancelToken::new())
            .expect("sweeps");
    }
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("two.ron");
    session.save_as(&path).expect("saves");
    let reopened = Session::open(&path).expect("opens");
    let sizes: Vec<u64> = reopened
        .panels
        .values()
        .map(|panel| {
            panel.summary()["monte_carlo"]["size"]
                .as_u64()
                .expect("restored size")
        })
        .collect();
    assert_eq!(sizes, [8, 12], "each panel reads its own arrays");
    let out = dir.path().join("out");
    reopened
        .export_bundle(None)
        .write(
            &out,
            &[benchtop_kit::figure::ExportFormat::Svg],
            96,
            &Progress::new(),
            &CancelToken::new(),
        )
        .expect("exports");
    assert!(out.join("sweeps/unnamed.csv").exists());
    assert!(out.join("sweeps/unnamed-2.csv").exists());
}

#[test]
fn robust_names_read_from_a_project_stay_inside_its_sidecar() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = run_and_save(dir.path(), "crafted.ron", &ising_project(""));
    let secret = dir.path().join("secret.npy");
    std::fs::copy(
        common::sidecar_folder(&path).join("1-ising-series.npy"),
        &secret,
    )
    .expect("a file outside the sidecar");
    let text = std::fs::read_to_string(&path).expect("readable");
    let crafted = text.replace("\"1-ising-series.npy\"", "\"../../secret.npy\"");
    assert_ne!(crafted, text);
    std::fs::write(&path, crafted).expect("written");
    let session = Session::open(&path).expect("opens");
    let warnings = session.restore_warnings();
    assert!(
        warnings.len() == 1 && warnings[0].contains("not a file name inside the sidecar"),
        "{warnings:?}"
    );
}

#[cfg(unix)]
#[test]
fn robust_saving_keeps_the_mode_and_writes_through_a_link() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().expect("temporary folder");
    let real = dir.path().join("real.ron");
    std::fs::write(&real, ising_project("")).expect("written");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o664)).expect("mode");
    let link = dir.path().join("link.ron");
    std::os::unix::fs::symlink("real.ron", &link).expect("link");
    let mut session = Session::open(&link).expect("opens");
    session.save_as(&link).expect("saves");
    assert!(
        std::fs::symlink_metadata(&link)
            .expect("link")
            .file_type()
            .is_symlink()
    );
    let mode = std::fs::metadata(&real).expect("real").permissions().mode() & 0o777;
    assert_eq!(mode, 0o664);
    assert!(
        std::fs::read_to_string(&real)
            .expect("readable")
            .contains("sidecar_folder")
    );
    // The arrays went beside the target, so the target reopens whole, and so does the link
    // from another folder.
    assert!(dir.path().join("real.data").is_dir());
    assert!(!dir.path().join("link.data").exists());
    Session::open(&real).expect("the target reopens with its arrays");
    let elsewhere = tempfile::tempdir().expect("another folder");
    let far_link = elsewhere.path().join("far.ron");
    std::os::unix::fs::symlink(&real, &far_link).expect("link");
    Session::open(&far_link).expect("a link from another folder reopens it too");
}

#[cfg(unix)]
#[test]
fn robust_a_linked_sidecar_entry_is_refused() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = run_and_save(dir.path(), "own.ron", &ising_project(""));
    let sidecar = common::sidecar_folder(&path);
    // Replace one array with a link to another file: reading the project refuses it.
    let entry = std::fs::read_dir(&sidecar)
        .expect("sidecar")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "npy"))
        .expect("an array");
    let other = dir.path().join("other.npy");
    std::fs::rename(&entry, &other).expect("moved");
    std::os::unix::fs::symlink(&other, &entry).expect("link");
    let session = Session::open(&path).expect("the parameters open");
    let warning = session
        .panels
        .values()
        .find_map(|p| p.restore_warning())
        .expect("the results are not restored");
    assert!(warning.contains("symbolic link"), "{warning}");
}

#[test]
fn robust_every_declared_parameter_refuses_values_outside_its_range_by_key() {
    // `benchtop params --json` is the declaration; every kind, every key, the values just
    // outside the range and the non-finite ones.
    let mut checked = 0;
    for kind in benchtop::catalog::catalog() {
        let mut panel = benchtop::catalog::create(kind).expect("created");
        for param in panel.declared_params() {
            let step = if param.integer {
                1.0
            } else {
                (param.max - param.min).abs().max(1.0) * 1e-3
            };
            // Far enough from the bound to be another f64 (2^53 + 1 would round to 2^53).
            let beyond = |bound: f64| step.max(bound.abs() * 1e-9);
            let mut outside = vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY];
            if param.min.is_finite() {
                outside.push(param.min - beyond(param.min));
            }
            if param.max.is_finite() {
                outside.push(param.max + beyond(param.max));
            }
            for value in outside {
                let error = panel
                    .set_param(param.key, value)
                    .expect_err(&format!("{}: {} = {value} accepted", kind.id, param.key));
                assert!(
                    error.contains(param.key),
                    "{}: {} = {value}: the error does not name the key: {error}",
                    kind.id,
                    param.key
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "{checked} values checked");
}

#[test]
fn robust_open_without_a_display_uses_the_file_it_is_given() {
    let output = benchtop()
        .args(["open", "no-such-project.ron"])
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("no-such-project.ron"), "{stderr}");
}

/// Kills `benchtop run --save` at many moments; every time the project reopens whole (the old
/// or the new state, its arrays all readable), and the next open leaves no temporaries and one
/// sidecar folder.
#[test]
fn robust_a_save_killed_at_any_moment_leaves_a_whole_project() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let text = ising_project(", size: 96");
    let path = run_and_save(dir.path(), "killed.ron", &text);
    let run = |beta: f64| {
        benchtop()
            .arg("run")
            .arg(&path)
            .arg("--out")
            .arg(dir.path().join("out"))
            .args(["--format", "svg", "--save", "--set"])
            .arg(format!("1:mc.beta={beta}"))
            .spawn()
            .expect("starts")
    };
    let started = Instant::now();
    run(0.3).wait().expect("finishes");
    let full = started.elapsed();
    // Deterministic delays spread over the whole run, densest near its end (the save); each
    // trial asks for its own β, so the reopened project says which state it is in.
    let trials = 24_u32;
    let (mut old, mut new) = (0, 0);
    let mut previous = 0.3;
    for trial in 0..trials {
        let fraction = f64::from(trial) / f64::from(trials - 1);
        let delay = full.mul_f64(0.3 + 0.8 * fraction.sqrt());
        let beta = 0.31 + f64::from(trial) * 0.001;
        let mut child = run(beta);
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
        let session = Session::open(&path)
            .unwrap_or_else(|error| panic!("trial {trial} ({delay:?}): {error}"));
        assert!(
            session.restore_warnings().is_empty(),
            "trial {trial} ({delay:?}): {:?}",
            session.restore_warnings()
        );
        // The results read back are the ones computed with the parameters the file holds.
        let summary = common::first_summary(&session);
        let saved_beta = summary["monte_carlo"]["beta"].as_f64().expect("results");
        let panel = session.panels.values().next().expect("panel");
        let param_beta = panel
            .declared_params()
            .into_iter()
            .find(|p| p.key == "mc.beta")
            .map(|p| p.value)
            .expect("β");
        assert!(
            (saved_beta - param_beta).abs() < 1e-12,
            "trial {trial}: results for β = {saved_beta}, parameters β = {param_beta}"
        );
        if (param_beta - beta).abs() < 1e-12 {
            new += 1;
        } else {
            assert!(
                (param_beta - previous).abs() < 1e-12,
                "trial {trial}: {param_beta}"
            );
            old += 1;
        }
        previous = param_beta;
        let data = dir.path().join("killed.data");
        let generations = std::fs::read_dir(&data).expect("data").count();
        assert_eq!(
            generations, 1,
            "trial {trial}: one sidecar folder after open"
        );
        for folder in [
            dir.path().to_path_buf(),
            data,
            common::sidecar_folder(&path),
        ] {
            let left: Vec<_> = std::fs::read_dir(&folder)
                .expect("folder")
                .filter_map(Result::ok)
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with(TEMPORARY_PREFIX)
                })
                .collect();
            assert!(left.is_empty(), "trial {trial}: {left:?} in {folder:?}");
        }
    }
    // Where the kills land depends on the machine's load (the suite runs tests side by side),
    // so the split is reported, not asserted; every trial above was checked either way.
    eprintln!("killed saves: the old state {old} times, the new state {new} times");
}
