//! Records the git commit the binary was built from (for figure provenance), and writes the
//! list of panel tests and example projects that the one test binary (`tests/workbench.rs`)
//! includes, so a new panel's tests and a new project's test are found without editing it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    git_commit();
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    let mut text = String::new();
    let main_modules = panel_tests(&manifest.join("panels"), &mut text);
    all_examples(&main_modules, &mut text);
    example_tests(&manifest.join("../projects"), &mut text);
    if let Err(error) = std::fs::write(out.join("discovered_tests.rs"), text) {
        println!("cargo:warning=could not write the list of discovered tests: {error}");
    }
}

fn git_commit() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .map_or_else(|| "unknown".to_owned(), |text| text.trim().to_owned());
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .is_some_and(|output| !output.stdout.is_empty());
    let suffix = if dirty { "-dirty" } else { "" };
    println!("cargo:rustc-env=BENCHTOP_GIT_COMMIT={commit}{suffix}");
    println!("cargo:rerun-if-changed=../.git/HEAD");
    println!("cargo:rerun-if-changed=../.git/index");
}

/// The sorted entries of `dir` that satisfy `keep`.
fn entries(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|read| read.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    found.retain(|path| keep(path));
    found.sort();
    found
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// One module per `panels/<panel>/tests/<name>.rs`, named `<panel>_<name>` (or `<panel>`
/// when the file is named after the panel: that one lists the panel's `EXAMPLES`). Returns
/// the names of those main modules.
fn panel_tests(panels: &Path, text: &mut String) -> Vec<String> {
    let mut main_modules = Vec::new();
    println!("cargo:rerun-if-changed={}", panels.display());
    for panel in entries(panels, Path::is_dir) {
        let tests = panel.join("tests");
        println!("cargo:rerun-if-changed={}", tests.display());
        let name = stem(&panel);
        for file in entries(&tests, |p| p.extension().is_some_and(|e| e == "rs")) {
            let file_stem = stem(&file);
            let module = if file_stem == name {
                main_modules.push(name.replace('-', "_"));
                name.clone()
            } else {
                format!("{name}_{file_stem}")
            };
            let _ = writeln!(
                text,
                "#[path = {:?}]\nmod {};",
                file.display().to_string(),
                module.replace('-', "_")
            );
        }
    }
    main_modules
}

/// `all_examples()`: the shell's examples and every panel's, for `examples::run_example`.
fn all_examples(main_modules: &[String], text: &mut String) {
    text.push_str("/// Every example project's known-answer check.\n");
    text.push_str("fn all_examples() -> Vec<crate::examples::Example> {\n");
    text.push_str("    let mut all = crate::EXAMPLES.to_vec();\n");
    for module in main_modules {
        let _ = writeln!(text, "    all.extend_from_slice({module}::EXAMPLES);");
    }
    text.push_str("    all\n}\n");
}

/// One test per `projects/<name>.ron`, running it headless (at its test size, where it has
/// one) and checking its known answers.
fn example_tests(projects: &Path, text: &mut String) {
    println!("cargo:rerun-if-changed={}", projects.display());
    for project in entries(projects, |p| p.extension().is_some_and(|e| e == "ron")) {
        let name = stem(&project);
        let _ = writeln!(
            text,
            "#[test]\nfn example_{}() {{\n    crate::examples::run_example({name:?});\n}}",
            name.replace('-', "_")
        );
    }
}
