//! The MolStitch panel, clicked through by its labels.

use std::path::Path;
use std::time::Duration;

use benchtop::session::Session;
use egui_kittest::kittest::Queryable as _;

use crate::common;
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[
    Example {
        project: "molstitch-stitching",
        check: check_molstitch_stitching,
    },
    Example {
        project: "molstitch-optimise",
        check: check_molstitch_optimise,
    },
];

fn summary(session: &Session) -> serde_json::Value {
    session.panels.values().next().expect("panel").summary()
}

/// A session with one MolStitch panel on a small user file (fast in debug builds).
fn small_molstitch_session(dir: &Path) -> Session {
    let file = dir.join("mols.smi");
    std::fs::write(
        &file,
        "O=C(Nc1nccs1)c1cc(F)c(F)cc1Cl\nClc1ccc(Cn2nnc(N3CCCCC3)n2)cc1\nCCN(CC)C(=O)c1ccccc1\n\
         C1CC(\nCOc1ccc(S(=O)(=O)N2CCOCC2)cc1\n",
    )
    .expect("write molecules");
    let text = format!(
        r#"(
        format_version: 1,
        panels: [(id: (1), state: MolStitch((params: (data: (file: (path: "{}")))))) ],
    )"#,
        file.display()
    );
    let doc = benchtop::catalog::ProjectDoc::parse(&text, &dir.join("small-molstitch.ron"))
        .expect("test project parses");
    Session::from_doc(doc, None).expect("test project opens")
}

#[test]
fn molstitch_panel_opens_from_the_catalog_and_stitches() {
    let mut harness = common::harness(Session::new());
    harness
        .get_by_label("Open MolStitch molecule stitching")
        .click();
    harness.step();
    assert_eq!(harness.state().session.panels.len(), 1);
    common::run_until_idle(&mut harness, Duration::from_secs(180));
    harness.get_by_label_contains("offline set");
    harness.get_by_label_contains("Gallery: every BRICS-compatible fragment pair");
    // A new panel shows the gallery's best child at once.
    harness.get_by_label("Δ vs A");
    let first = summary(&harness.state().session)["child"]["smiles"].clone();
    // Choosing another fragment of A re-stitches (or explains why it cannot).
    harness.get_by_label_contains("A1 ").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    let s = summary(&harness.state().session);
    let text = harness.state().session.to_text().expect("serialises");
    assert!(text.contains("fragment_a: Some(0)"), "{text}");
    assert_eq!(s["molecules"], 5000, "{s}");
    assert!(first.as_str().is_some_and(|c| !c.is_empty()), "{first}");
    let child = &s["child"];
    assert!(
        child["smiles"]
            .as_str()
            .is_some_and(|c| !c.is_empty() && child["smiles"] != first),
        "{s}"
    );
    // QED, SA' and similarity to celecoxib.
    assert_eq!(child["objectives"].as_array().map(Vec::len), Some(3), "{s}");
    let panel = harness
        .state()
        .session
        .panels
        .values()
        .next()
        .expect("panel");
    let names: Vec<String> = panel.figures().into_iter().map(|f| f.name).collect();
    assert_eq!(names, ["molstitch-molecules", "molstitch-stitch"]);
}

#[test]
fn molstitch_panel_names_bad_input_and_survives_save_and_reopen() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let mut harness = common::harness(small_molstitch_session(dir.path()));
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    // Four valid molecules; the broken row is named with its file and line.
    harness.get_by_label_contains("4 molecules");
    let s = summary(&harness.state().session);
    assert_eq!(
        (s["molecules"].as_u64(), s["rows_skipped"].as_u64()),
        (Some(4), Some(1)),
        "{s}"
    );
    // An invalid SMILES for parent A is an error naming the parent and the input.
    harness.get_by_label("SMILES A").click();
    harness.step();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.get_by_label("SMILES A").type_text("C1CC(");
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    harness.get_by_label_contains("parent A: invalid SMILES \"C1CC(\"");
    // A valid one stitches again.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness
        .get_by_label("SMILES A")
        .type_text("CCN(CC)C(=O)c1ccccc1");
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    assert!(harness.query_by_label_contains("invalid SMILES").is_none());
    let path = dir.path().join("molstitch.ron");
    assert!(
        harness.state_mut().save_to(&path),
        "{:?}",
        harness.state().notices
    );
    let original = harness.state().session.to_doc(None).expect("document");
    let reopened = Session::open(&path).expect("the saved project reopens");
    assert_eq!(reopened.to_doc(None).expect("document"), original);
    let text = harness.state().session.to_text().expect("serialises");
    assert!(
        text.contains("parent_a: \"CCN(CC)C(=O)c1ccccc1\""),
        "{text}"
    );
}

/// A session whose optimisation is tiny (40 offline molecules, a 16-unit prior, 2 rounds).
fn tiny_optimise_session() -> Session {
    let text = r"(
        format_version: 1,
        panels: [(id: (1), state: MolStitch((
            params: (optimise: (
                offline_size: 40,
                prior: (embedding_dim: 8, hidden_units: 16, layers: 1, learning_rate: 0.01,
                        batch_size: 16, max_length_tokens: 60),
                prior_epochs: 1, tb_epochs: 1, n_proxies: 3, proxy_rounds: 2,
                proxy_pairs_per_round: 20, proxy_hidden_units: 8, stitch_rounds: 2,
                stitched_per_round: 24, ipo_steps_per_round: 1, pool_size: 20, eval_budget: 16,
                stitch_pairs: 32, stitch_epochs: 1,
                stitchnet: (embedding_dim: 8, hidden_units: 16, learning_rate: 0.01,
                            batch_size: 16, max_length_tokens: 60),
                seed: 3,
            )),
            view: (tab: Optimise),
        )))],
    )";
    let doc = benchtop::catalog::ProjectDoc::parse(text, Path::new("tiny-molstitch.ron"))
        .expect("test project parses");
    Session::from_doc(doc, None).expect("test project opens")
}

#[test]
fn molstitch_panel_runs_a_tiny_optimisation_saves_and_reopens() {
    let mut harness = common::harness(tiny_optimise_session());
    common::run_until_idle(&mut harness, Duration::from_secs(180));
    harness.get_by_label("Run optimisation").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(600));
    // The metrics table, with a row per method.
    harness.get_by_label("HV ↑");
    for method in [
        "Offline set",
        "MolStitch",
        "Prior fine-tuned",
        "BRICS crossover",
    ] {
        assert!(
            harness.query_all_by_label(method).next().is_some(),
            "{method}"
        );
    }
    let s = summary(&harness.state().session);
    let methods = &s["optimisation"]["methods"];
    let offline = methods["Offline set"]["hypervolume"]
        .as_f64()
        .expect("offline HV");
    for method in ["MolStitch", "Prior fine-tuned", "BRICS crossover"] {
        let hv = methods[method]["hypervolume"].as_f64().expect("HV");
        assert!(hv >= offline - 1e-12, "{method}: {s}");
    }
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("molstitch.ron");
    assert!(
        harness.state_mut().save_to(&path),
        "{:?}",
        harness.state().notices
    );
    let sidecar = dir.path().join("molstitch.data");
    assert!(sidecar.join("molstitch-optimisation.ron").exists());
    // Exactly the run's prior and StitchNet weights, not the whole shared cache.
    let weights = std::fs::read_dir(sidecar.join("molstitch-weights"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(weights, 2, "the trained weights are cached in the sidecar");
    let reopened = Session::open(&path).expect("the saved project reopens");
    let again = reopened.panels.values().next().expect("panel").summary();
    assert_eq!(
        again["optimisation"], s["optimisation"],
        "results survive save and reopen"
    );
    let panel = reopened.panels.values().next().expect("panel");
    let names: Vec<String> = panel.figures().into_iter().map(|f| f.name).collect();
    assert!(
        names.iter().any(|n| n == "molstitch-optimisation"),
        "{names:?}"
    );
    let tables: Vec<String> = panel.data_tables().into_iter().map(|t| t.name).collect();
    assert!(
        tables.iter().any(|n| n == "molstitch-metrics"),
        "{tables:?}"
    );
}

/// The stitching example: the offline set scored on three objectives and the best fragment
/// pair of the two parents stitched into a valid child.
fn check_molstitch_stitching(_out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    assert_eq!(s["molecules"], 5000, "{s}");
    assert_eq!(s["objectives"].as_array().map(Vec::len), Some(3), "{s}");
    let child = s["child"]["smiles"].as_str().expect("a stitched child");
    assert!(
        benchtop_molstitch::Molecule::from_smiles(child).is_ok(),
        "{child}"
    );
    assert!(
        s["gallery_children"].as_u64().is_some_and(|n| n >= 1),
        "{s}"
    );
}

/// The optimisation example: MolStitch's molecules enlarge the offline set's hypervolume.
fn check_molstitch_optimise(_out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"]["optimisation"];
    let hv = |name: &str| {
        s["methods"][name]["hypervolume"]
            .as_f64()
            .expect("hypervolume")
    };
    assert!(hv("MolStitch") > hv("Offline set"), "{s}");
    assert_eq!(s["molstitch_hypervolume_beats"]["Offline set"], true, "{s}");
}

#[test]
fn chem_props_writes_one_row_per_input_and_names_invalid_smiles() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let input = dir.path().join("in.csv");
    std::fs::write(
        &input,
        "name,SMILES\naspirin,CC(=O)Oc1ccccc1C(=O)O\nbroken,C1CC(\n",
    )
    .expect("input");
    let out = dir.path().join("props.csv");
    let status = common::benchtop()
        .args([
            "chem",
            "props",
            &input.display().to_string(),
            "--out",
            &out.display().to_string(),
        ])
        .status()
        .expect("benchtop runs");
    assert!(status.success());
    let text = std::fs::read_to_string(&out).expect("output");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "smiles,mw,logp,tpsa,qed,sa,error");
    // Aspirin: MW 180.159, logP 1.3101, TPSA 63.6 (RDKit).
    assert!(
        lines[1].starts_with("CC(=O)Oc1ccccc1C(=O)O,180.1590,1.3101,63.6000,"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("C1CC(,,,,,,") && lines[2].contains("invalid SMILES"),
        "{text}"
    );
    let missing = common::benchtop()
        .args([
            "chem",
            "props",
            &out.with_file_name("none.smi").display().to_string(),
            "--out",
            &out.display().to_string(),
        ])
        .output()
        .expect("benchtop runs");
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("none.smi"));
}
