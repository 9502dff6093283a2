//! Every project in `projects/` runs headless through `benchtop run` (at its `test` preset's
//! size where it has one), exports figures with provenance, passes the figure check
//! (`--check-figures`: no overlapping or clipped text, no legend over the data, no internal
//! keys shown, …) and meets the known answers its panel's tests check.

use std::path::{Path, PathBuf};

use crate::common;

/// An example project's known-answer check: the output folder and `summary.json`.
pub type Check = fn(out: &Path, summary: &serde_json::Value);

/// A project file (its stem) and its check.
#[derive(Clone, Copy)]
pub struct Example {
    /// The file stem under `projects/`.
    pub project: &'static str,
    /// What must hold in its output.
    pub check: Check,
}

/// Runs `benchtop run` on `project` into `out` with `extra` arguments; returns `summary.json`.
pub fn run_project(project: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
    let output = common::benchtop()
        .arg("run")
        .arg(project)
        .arg("--out")
        .arg(out)
        .args(["--dpi", "100"])
        .args(extra)
        .output()
        .expect("benchtop runs");
    assert!(
        output.status.success(),
        "benchtop run {} failed:\n{}",
        project.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let summary = std::fs::read_to_string(out.join("summary.json")).expect("summary.json written");
    serde_json::from_str(&summary).expect("summary.json is JSON")
}

/// Every file below `dir`.
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("readable folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Runs `projects/<name>.ron` and checks what every export must have, then its known answers.
pub fn run_example(name: &str) {
    let examples = crate::all_examples();
    let example = examples
        .iter()
        .find(|example| example.project == name)
        .unwrap_or_else(|| {
            panic!("projects/{name}.ron has no known-answer check: add it to its panel's EXAMPLES")
        });
    let project = common::repo_root()
        .join("projects")
        .join(format!("{name}.ron"));
    let doc = benchtop::catalog::ProjectDoc::load(&project).expect("the example parses");
    let args: &[&str] = if doc.presets.contains_key("test") {
        &["--preset", "test", "--check-figures"]
    } else {
        &["--check-figures"]
    };
    let out = tempfile::tempdir().expect("temporary folder");
    let summary = run_project(&project, out.path(), args);
    assert!(
        summary["panels"].as_array().is_some_and(|p| !p.is_empty()),
        "{summary}"
    );
    let figures: Vec<PathBuf> = walk(out.path())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .collect();
    assert!(!figures.is_empty(), "{name} exported no figure");
    for svg in &figures {
        let text = std::fs::read_to_string(svg).expect("svg");
        assert!(
            text.contains("<metadata"),
            "{} has no provenance",
            svg.display()
        );
        assert!(svg.with_extension("png").exists() && svg.with_extension("pdf").exists());
        let stem = svg
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        assert!(
            svg.with_file_name(format!("{stem}.provenance.json"))
                .exists()
        );
    }
    (example.check)(out.path(), &summary);
}
