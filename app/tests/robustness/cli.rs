//! The command line on hostile input: `benchtop chem props` bounds every SMILES (length,
//! control characters) so one row cannot stall or corrupt a file, and `chem props` and
//! `benchtop spectra` write their output atomically, never over their own input, and never as a
//! column of `inf`.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use crate::common::{benchtop, csv_rows};

/// Runs `benchtop ARGS` and returns its output, failing the test if it runs past `limit`
/// (the hang this file guards against must fail, not stall the suite).
fn run_within(args: &[&Path], limit: Duration) -> Output {
    let mut child = benchtop()
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("benchtop starts");
    let started = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if started.elapsed() > limit {
            child.kill().expect("kills");
            panic!("benchtop {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

/// `benchtop chem props INPUT --out OUT`.
fn chem_props(input: &Path, out: &Path) -> Output {
    run_within(
        &[
            Path::new("chem"),
            Path::new("props"),
            input,
            Path::new("--out"),
            out,
        ],
        Duration::from_secs(120),
    )
}

/// `benchtop spectra FILE --csv CSV`.
fn spectra(file: &Path, csv: &Path) -> Output {
    run_within(
        &[Path::new("spectra"), file, Path::new("--csv"), csv],
        Duration::from_secs(120),
    )
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Files in `dir` left behind by an interrupted atomic write.
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .expect("lists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(benchtop_kit::project::TEMPORARY_PREFIX))
        })
        .collect()
}

#[cfg(unix)]
fn inode(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::metadata(path).expect("metadata").ino()
}

#[test]
fn robust_chem_props_refuses_overlong_and_nul_smiles_by_row_without_stalling() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let input = dir.path().join("hostile.smi");
    let long = "C".repeat(10_002);
    std::fs::write(
        &input,
        format!("CCO ethanol\n{long} chain\nCC\0O nul\nc1ccccc1\n"),
    )
    .expect("input");
    let out = dir.path().join("props.csv");
    let started = Instant::now();
    let output = chem_props(&input, &out);
    assert!(output.status.success(), "{}", stderr(&output));
    // The 10,002-carbon chain once ran for minutes inside RDKit's parser.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let rows = csv_rows(&out);
    assert_eq!(rows.len(), 4);
    assert!(rows[0]["error"].is_empty() && !rows[0]["mw"].is_empty());
    assert_eq!(rows[1]["smiles"], long);
    assert_eq!(rows[1]["mw"], "");
    assert_eq!(
        rows[1]["error"],
        "the SMILES is 10,002 characters long; Benchtop reads SMILES up to 1,000 characters"
    );
    // `CC<NUL>O` was scored as ethane under its own label.
    assert_eq!(rows[2]["mw"], "", "{:?}", rows[2]);
    assert_eq!(
        rows[2]["error"],
        "the SMILES has a control character (NUL, U+0000) at character 3; Benchtop reads \
         SMILES as printable text"
    );
    assert!(rows[3]["error"].is_empty() && !rows[3]["mw"].is_empty());
    let report = stderr(&output);
    assert!(report.contains("4 molecules, 2 invalid"), "{report}");
    assert!(
        report.contains(
            "row 2: the SMILES is 10,002 characters long; Benchtop reads SMILES up to 1,000 \
             characters"
        ),
        "{report}"
    );
    assert!(
        report.contains("row 3: the SMILES has a control character (NUL, U+0000)"),
        "{report}"
    );

    // The same through a CSV `smiles` column.
    let csv_input = dir.path().join("hostile.csv");
    std::fs::write(&csv_input, format!("id,smiles\na,{long}\nb,CC\0O\n")).expect("input");
    let output = chem_props(&csv_input, &out);
    assert!(output.status.success(), "{}", stderr(&output));
    let rows = csv_rows(&out);
    assert!(rows[0]["error"].starts_with("the SMILES is 10,002 characters long"));
    assert!(rows[1]["error"].contains("(NUL, U+0000)"));
}

#[test]
fn robust_chem_props_never_writes_over_its_input() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let input = dir.path().join("in.smi");
    let text = "CCO ethanol\nc1ccccc1 benzene\n";
    std::fs::write(&input, text).expect("input");
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).expect("folder");
    let mut same: Vec<PathBuf> = vec![input.clone(), sub.join("..").join("in.smi")];
    #[cfg(unix)]
    {
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&input, &link).expect("symlink");
        same.push(link);
        let hard = dir.path().join("hard.csv");
        std::fs::hard_link(&input, &hard).expect("hard link");
        same.push(hard);
    }
    for out in &same {
        let output = chem_props(&input, out);
        assert!(!output.status.success(), "--out {}", out.display());
        let message = stderr(&output);
        assert!(
            message.contains(&format!("--out {} is the input file", out.display()))
                && message.contains("writing it would replace the input"),
            "{message}"
        );
        assert_eq!(std::fs::read_to_string(&input).expect("input"), text);
    }
}

#[cfg(unix)]
#[test]
fn robust_chem_props_replaces_its_output_atomically() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let input = dir.path().join("in.smi");
    std::fs::write(&input, "CCO\n").expect("input");
    let out = dir.path().join("props.csv");
    std::fs::write(&out, "an older output\n").expect("old output");
    let before = inode(&out);
    let output = chem_props(&input, &out);
    assert!(output.status.success(), "{}", stderr(&output));
    // A new file renamed over the old one (not the old one truncated and rewritten).
    assert_ne!(inode(&out), before);
    assert!(
        std::fs::read_to_string(&out)
            .expect("output")
            .starts_with("smiles,mw,logp,tpsa,qed,sa,error\nCCO,46.0690,")
    );
    assert!(temporaries(dir.path()).is_empty());
}

/// Writes a 5 × 8 equiangular field (f64 NPY) with every value `value` except a small ripple.
fn write_field(path: &Path, value: f64) {
    let values: Vec<f64> = (0..40)
        .map(|i| value * (1.0 + 0.01 * f64::from(i % 7)))
        .collect();
    let array = ndarray::Array2::from_shape_vec((5, 8), values).expect("shape");
    ndarray_npy::write_npy(path, &array).expect("writes");
}

#[test]
fn robust_spectra_never_writes_over_its_input_and_replaces_its_csv_atomically() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let field = dir.path().join("field.npy");
    write_field(&field, 3.0);
    let original = std::fs::read(&field).expect("field");
    let mut same = vec![field.clone()];
    #[cfg(unix)]
    {
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&field, &link).expect("symlink");
        same.push(link);
    }
    for csv in &same {
        let output = spectra(&field, csv);
        assert!(!output.status.success(), "--csv {}", csv.display());
        let message = stderr(&output);
        assert!(
            message.contains(&format!("--csv {} is the input file", csv.display())),
            "{message}"
        );
        assert_eq!(std::fs::read(&field).expect("field"), original);
    }
    let csv = dir.path().join("psd.csv");
    std::fs::write(&csv, "an older output\n").expect("old output");
    #[cfg(unix)]
    let before = inode(&csv);
    let output = spectra(&field, &csv);
    assert!(output.status.success(), "{}", stderr(&output));
    #[cfg(unix)]
    assert_ne!(inode(&csv), before);
    let rows = csv_rows(&csv);
    assert!(!rows.is_empty());
    assert!(
        rows.iter()
            .all(|r| r["psd"].parse::<f64>().is_ok_and(f64::is_finite))
    );
    assert!(temporaries(dir.path()).is_empty());
}

#[test]
fn robust_spectra_refuses_a_field_whose_power_overflows() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let field = dir.path().join("huge.npy");
    write_field(&field, 1e300);
    let csv = dir.path().join("huge.csv");
    let output = spectra(&field, &csv);
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("huge.npy: the power spectrum overflows f64")
            && message.contains("rescale the field"),
        "{message}"
    );
    assert!(!csv.exists(), "no CSV of inf written");
}

#[test]
fn robust_commands_print_no_library_noise_without_a_desktop_session() {
    let output = benchtop()
        .args(["doctor", "--json"])
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .expect("runs");
    let message = stderr(&output);
    assert!(output.status.success(), "{message}");
    assert!(!message.contains("XDG_RUNTIME_DIR"), "{message}");
}

#[cfg(unix)]
#[test]
fn robust_a_fifo_named_as_input_is_refused_at_once() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let fifo = dir.path().join("pipe.ron");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    // A project, `chem props` and `spectra` inputs: each returns with an error naming it
    // instead of waiting for a writer.
    for args in [
        vec![
            "run".to_owned(),
            fifo.display().to_string(),
            "--out".to_owned(),
            dir.path().join("o").display().to_string(),
        ],
        vec![
            "chem".to_owned(),
            "props".to_owned(),
            fifo.display().to_string(),
            "--out".to_owned(),
            dir.path().join("p.csv").display().to_string(),
        ],
        vec![
            "spectra".to_owned(),
            fifo.display().to_string(),
            "--csv".to_owned(),
            dir.path().join("s.csv").display().to_string(),
        ],
    ] {
        let started = std::time::Instant::now();
        let output = benchtop().args(&args).output().expect("runs");
        let message = stderr(&output);
        assert!(!output.status.success(), "{args:?}: {message}");
        assert!(
            message.contains("pipe.ron") && message.contains("regular"),
            "{args:?}: {message}"
        );
        assert!(started.elapsed().as_secs() < 30, "{args:?} waited");
    }
}

#[test]
fn robust_a_closed_stderr_never_costs_a_save() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let project = dir.path().join("p.ron");
    std::fs::write(
        &project,
        r"(format_version: 1, panels: [(id: (1), state: Ising((params: (
            mc: (size: 16, thermalization_sweeps: 50, measurement_sweeps: 200)),
            headless: (monte_carlo: true, duality: false))))])",
    )
    .expect("written");
    // stderr is a pipe whose reader has gone.
    let mut child = benchtop()
        .args(["run", &project.display().to_string(), "--out"])
        .arg(dir.path().join("out"))
        .args(["--format", "svg", "--save"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    drop(child.stderr.take());
    let status = child.wait().expect("ends");
    assert!(status.success(), "{status}");
    assert!(
        std::fs::read_to_string(&project)
            .expect("project")
            .contains("sidecar_folder"),
        "the results were saved"
    );
}
