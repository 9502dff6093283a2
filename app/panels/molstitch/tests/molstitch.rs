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

use common::first_summary as summary;

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
    common::session_from(&text, dir.join("small-molstitch.ron"))
}

#[test]
fn molstitch_panel_opens_from_the_catalog_and_stitches() {
    let mut harness = common::harness(Session::new());
    common::open_panel(&mut harness, "MolStitch molecule stitching");
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

/// A session whose optimisation is tiny (40 offline molecules, a 16-unit prior, 2 rounds),
/// compared over two seeds.
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
                seed: 3, seeds: 2,
            )),
            view: (tab: Optimise),
        )))],
    )";
    common::session_from(text, "tiny-molstitch.ron")
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
    // Over the two seeds: the spread per method, seed 3's run as the single-seed rows, the
    // paired comparison and the claims with their verdicts, in the window and in summary.json.
    let o = &s["optimisation"];
    assert_eq!(o["seeds"]["seeds"], serde_json::json!([3, 4]), "{s}");
    for method in [
        "Offline set",
        "MolStitch",
        "Prior fine-tuned",
        "BRICS crossover",
    ] {
        let hv = &o["seeds"]["methods"][method]["hypervolume"];
        let values = hv["values"].as_array().expect("per-seed values");
        assert_eq!(values.len(), 2, "{s}");
        assert!(hv["sd"].as_f64().is_some_and(|sd| sd >= 0.0), "{s}");
    }
    assert_eq!(
        o["seeds"]["methods"]["MolStitch"]["hypervolume"]["values"][0],
        methods["MolStitch"]["hypervolume"],
        "the single-seed rows are the first seed's"
    );
    for reference in ["Offline set", "Prior fine-tuned", "BRICS crossover"] {
        let p = &o["paired"][reference]["hypervolume"];
        assert_eq!(p["seeds"], 2, "{s}");
        let p_value = p["sign_test_p"].as_f64().expect("p");
        assert!(
            (0.5..=1.0).contains(&p_value),
            "two seeds cannot be significant: {s}"
        );
    }
    assert_eq!(o["claims"].as_array().map(Vec::len), Some(2), "{s}");
    assert!(
        harness
            .query_all_by_label_contains("Over 2 seeds (3–4)")
            .next()
            .is_some()
    );
    assert!(
        harness
            .query_all_by_label_contains("The paper's claims over these seeds")
            .next()
            .is_some()
    );
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("molstitch.ron");
    assert!(
        harness.state_mut().save_to(&path),
        "{:?}",
        harness.state().notices
    );
    // The sidecar's entries of pane 1 carry its prefix.
    let sidecar = common::sidecar_folder(&path);
    assert!(sidecar.join("1-molstitch-optimisation.ron").exists());
    // Exactly the run's prior and StitchNet weights, not the whole shared cache.
    let weights = std::fs::read_dir(sidecar.join("1-molstitch-weights"))
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

#[test]
fn an_unreadable_optimisation_result_is_dropped_with_a_warning() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let molecules = dir.path().join("mols.smi");
    std::fs::write(&molecules, "CCO\nc1ccccc1O\nCCN(CC)C(=O)c1ccccc1\n").expect("molecules");
    let sidecar = dir.path().join("broken.data");
    std::fs::create_dir_all(&sidecar).expect("sidecar");
    std::fs::write(sidecar.join("1-molstitch-optimisation.ron"), "not a result").expect("result");
    let path = dir.path().join("broken.ron");
    std::fs::write(
        &path,
        format!(
            r#"(
            format_version: 1,
            panels: [(id: (1), state: MolStitch((
                params: (data: (file: (path: "{}"))),
                results: (optimise_file: Some("1-molstitch-optimisation.ron")),
            )))],
        )"#,
            molecules.display()
        ),
    )
    .expect("project");
    let session = Session::open(&path).expect("the project opens without the result");
    assert!(summary(&session).get("optimisation").is_none());
    let mut harness = common::harness(session);
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    harness.get_by_label_contains("saved results were not restored");
    harness.get_by_label_contains("3 molecules");
}

/// The stitching example: the offline set scored on three objectives and the best fragment
/// pair of the two parents stitched into a valid child.
fn check_molstitch_stitching(_out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"];
    assert_eq!(s["molecules"], 5000, "{s}");
    assert_eq!(s["objectives"].as_array().map(Vec::len), Some(3), "{s}");
    let child = s["child"]["smiles"].as_str().expect("a stitched child");
    assert!(
        benchtop_panel_molstitch::chem::Molecule::from_smiles(child).is_ok(),
        "{child}"
    );
    assert!(
        s["gallery_children"].as_u64().is_some_and(|n| n >= 1),
        "{s}"
    );
}

/// The optimisation example: MolStitch's molecules enlarge the offline set's hypervolume, and
/// the comparison is made over seeds (the project's 6, the test preset's 2) with the spread, a
/// paired sign test whose p-value is the binomial law's, and the claims' verdicts.
fn check_molstitch_optimise(_out: &Path, summary: &serde_json::Value) {
    let s = &summary["panels"][0]["summary"]["optimisation"];
    let hv = |name: &str| {
        s["methods"][name]["hypervolume"]
            .as_f64()
            .expect("hypervolume")
    };
    assert!(hv("MolStitch") > hv("Offline set"), "{s}");
    assert_eq!(s["molstitch_hypervolume_beats"]["Offline set"], true, "{s}");
    let seeds = s["seeds"]["seeds"].as_array().expect("the seeds").len();
    assert!(seeds >= 2, "{s}");
    let ours = &s["seeds"]["methods"]["MolStitch"]["hypervolume"]["values"];
    for reference in ["Offline set", "Prior fine-tuned", "BRICS crossover"] {
        let p = &s["paired"][reference]["hypervolume"];
        let theirs = &s["seeds"]["methods"][reference]["hypervolume"]["values"];
        let (mut wins, mut losses) = (0_u64, 0_u64);
        for j in 0..seeds {
            let d = ours[j].as_f64().expect("value") - theirs[j].as_f64().expect("value");
            wins += u64::from(d > 0.0);
            losses += u64::from(d < 0.0);
        }
        assert_eq!(p["wins"], wins, "{reference}: {s}");
        assert_eq!(p["losses"], losses, "{reference}: {s}");
        // The exact two-sided sign test: 2 · Σ_{i ≤ min} C(n, i) / 2ⁿ.
        let n = wins + losses;
        let k = wins.min(losses);
        let choose = |n: u64, i: u64| (1..=i).fold(1.0, |c, j| c * (n - j + 1) as f64 / j as f64);
        let tail: f64 = (0..=k).map(|i| choose(n, i)).sum::<f64>() / 2_f64.powi(n as i32);
        let expected = if n == 0 { 1.0 } else { (2.0 * tail).min(1.0) };
        let p_value = p["sign_test_p"].as_f64().expect("p");
        assert!(
            (p_value - expected).abs() < 1e-12,
            "{reference}: {p_value} vs {expected}"
        );
    }
    // Every seed's MolStitch run improves on the offline set (a union's hypervolume never
    // shrinks; equal only when nothing new reaches the front).
    assert!(
        s["paired"]["Offline set"]["hypervolume"]["losses"] == 0,
        "{s}"
    );
    let verdicts: Vec<&str> = s["claims"]
        .as_array()
        .expect("claims")
        .iter()
        .filter_map(|c| c["verdict"].as_str())
        .collect();
    assert_eq!(verdicts.len(), 2, "{s}");
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

/// The stitching viewer's computation: parents, fragments, the child and the gallery.
mod stitching {
    use benchtop_panel_molstitch::chem::Molecule;
    use benchtop_panel_molstitch::chem::brics::Fragment;
    use benchtop_panel_molstitch::engine::ObjectiveSpec;
    use benchtop_panel_molstitch::stitch::{
        StitchRequest, analyse, analyse_choosing, fragments_compatible,
    };

    fn request(a: &str, b: &str, fa: Option<usize>, fb: Option<usize>) -> StitchRequest {
        StitchRequest {
            parent_a: a.to_owned(),
            parent_b: b.to_owned(),
            fragment_a: fa,
            fragment_b: fb,
            objectives: vec![ObjectiveSpec::Qed, ObjectiveSpec::Sa],
        }
    }

    const A: &str = "COc1ccc(CNC(=O)c2ccccc2)cc1";
    const B: &str = "CCN(CC)C(=O)c1ccc(OC)cc1";

    #[test]
    fn child_joins_the_chosen_fragments_and_is_scored() {
        let view = analyse(&request(A, B, None, None)).unwrap();
        assert!(view.child.is_none());
        assert!(view.a.fragments.len() >= 2 && view.b.fragments.len() >= 2);
        // Every parent atom belongs to exactly one fragment.
        let covered: usize = view.a.fragment_atoms.iter().map(Vec::len).sum();
        assert_eq!(covered, view.a.drawing.atoms.len());
        let (i, j) = view.gallery[0].fragments;
        let chosen = analyse(&request(A, B, Some(i), Some(j))).unwrap();
        let child = chosen.child.unwrap().unwrap();
        assert_eq!(child.smiles, view.gallery[0].smiles);
        // The child's atoms are the two fragments' real atoms, all placed.
        let real = |f: &Fragment| {
            Molecule::from_smiles(&f.smiles)
                .unwrap()
                .graph()
                .unwrap()
                .atoms
                .iter()
                .filter(|x| x.atomic_num != 0)
                .count()
        };
        let expected = real(&chosen.a.fragments[i]) + real(&chosen.b.fragments[j]);
        assert_eq!(child.drawing.atoms.len(), expected);
        assert_eq!(
            child.atoms_from.0.len() + child.atoms_from.1.len(),
            expected
        );
        assert_eq!(child.objectives.len(), 2);
        assert!(child.objectives.iter().all(|v| (0.0..=1.0).contains(v)));
    }

    #[test]
    fn gallery_is_distinct_sorted_and_every_child_parses() {
        let view = analyse(&request(A, B, None, None)).unwrap();
        assert!(!view.gallery.is_empty() && view.compatible_pairs >= view.gallery.len());
        for pair in view.gallery.windows(2) {
            assert!(pair[0].mean_objective() >= pair[1].mean_objective());
            assert_ne!(pair[0].smiles, pair[1].smiles);
        }
        for c in &view.gallery {
            assert!(Molecule::from_smiles(&c.smiles).is_ok(), "{}", c.smiles);
        }
    }

    #[test]
    fn bad_input_names_the_parent_and_incompatible_fragments_are_explained() {
        let err = analyse(&request("C1CC(", B, None, None)).unwrap_err();
        assert!(err.contains("parent A") && err.contains("C1CC("), "{err}");
        let err = analyse(&request(A, "", None, None)).unwrap_err();
        assert!(err.contains("parent B"), "{err}");
        let view = analyse(&request(A, B, None, None)).unwrap();
        let incompatible = (0..view.a.fragments.len())
            .flat_map(|i| (0..view.b.fragments.len()).map(move |j| (i, j)))
            .find(|&(i, j)| !fragments_compatible(&view.a.fragments[i], &view.b.fragments[j]));
        if let Some((i, j)) = incompatible {
            let v = analyse(&request(A, B, Some(i), Some(j))).unwrap();
            let message = v.child.unwrap().unwrap_err();
            assert!(message.contains("no BRICS-compatible"), "{message}");
        }
    }

    #[test]
    fn without_chosen_fragments_the_gallerys_best_pair_is_chosen() {
        let view = analyse(&request(A, B, None, None)).unwrap();
        let (answered, chosen) = analyse_choosing(&request(A, B, None, None)).unwrap();
        let best = view.gallery[0].fragments;
        assert_eq!(
            (answered.fragment_a, answered.fragment_b),
            (Some(best.0), Some(best.1))
        );
        assert_eq!(
            chosen.child.unwrap().unwrap().smiles,
            view.gallery[0].smiles
        );
        // Chosen fragments are kept, even when they make no child.
        let (answered, kept) = analyse_choosing(&request(A, B, Some(0), None)).unwrap();
        assert_eq!((answered.fragment_a, answered.fragment_b), (Some(0), None));
        assert!(kept.child.is_none());
    }
}

/// The molecule set: reading a file, scoring it, its Pareto front.
mod molecule_set {
    use benchtop_kit::compute::{CancelToken, ComputeError, Progress};
    use benchtop_panel_molstitch::engine::ObjectiveSpec;
    use benchtop_panel_molstitch::library::{read, score};

    #[test]
    fn a_user_csv_is_scored_and_bad_rows_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mols.csv");
        std::fs::write(
            &path,
            "smiles,name\nCCO,ethanol\nC1CC(,broken\nc1ccccc1O,phenol\n",
        )
        .unwrap();
        let data = read(Some(&path)).unwrap();
        let set = score(
            &data,
            &[ObjectiveSpec::Qed, ObjectiveSpec::Sa],
            &Progress::new(),
            &CancelToken::new(),
        )
        .unwrap();
        assert_eq!(set.smiles, ["CCO", "Oc1ccccc1"]);
        assert_eq!(set.objectives.len(), 2);
        assert_eq!(set.skipped.len(), 1);
        assert!(
            set.skipped[0].contains("mols.csv") && set.skipped[0].contains("C1CC("),
            "{}",
            set.skipped[0]
        );
        assert!(!set.front.is_empty());
        assert_eq!(
            set.nearest(
                0,
                1,
                (set.objectives[1][0], set.objectives[1][1]),
                (1.0, 1.0)
            ),
            Some(1)
        );
    }

    #[test]
    fn files_without_molecules_and_empty_objectives_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.smi");
        std::fs::write(&path, "C1CC(\n").unwrap();
        let err = read(Some(&path)).unwrap_err().to_string();
        assert!(
            err.contains("bad.smi") && err.contains("no valid molecule"),
            "{err}"
        );
        let err = read(Some(&dir.path().join("missing.csv")))
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing.csv"), "{err}");
        let data = read(None).unwrap();
        assert!(score(&data, &[], &Progress::new(), &CancelToken::new()).is_err());
        let cancel = CancelToken::new();
        cancel.cancel();
        assert!(matches!(
            score(&data, &[ObjectiveSpec::Qed], &Progress::new(), &cancel),
            Err(ComputeError::Cancelled)
        ));
    }
}

/// Molecule depictions: RDKit's pictures in figures, their export, and on screen.
mod drawings {
    use benchtop_kit::figure::{
        ExportFormat, ExportOptions, Figure, Item, Provenance, Subplot, render_bytes,
    };
    use benchtop_panel_molstitch::chem::{Drawing, Molecule};
    use benchtop_panel_molstitch::mol_draw::{
        fragment_color, highlight_tint, highlights, paint, subplot,
    };

    fn aspirin() -> Drawing {
        Molecule::from_smiles("CC(=O)Oc1ccccc1C(=O)O")
            .and_then(|m| m.drawing())
            .expect("aspirin is drawn")
    }

    fn export(figure: &Figure, format: ExportFormat) -> Vec<u8> {
        render_bytes(
            figure,
            &ExportOptions::new(format).dpi(100),
            &Provenance::new("molstitch", "depiction"),
        )
        .expect("the figure renders")
    }

    #[test]
    fn molecule_subplot_is_an_rdkit_picture_without_axes_that_exports() {
        let d = aspirin();
        let h = highlights(d.atoms.len(), &[(&[0, 1][..], fragment_color(0))]);
        assert_eq!(h.iter().filter(|c| c.is_some()).count(), 2);
        let s = subplot("aspirin", &d, &h, (400, 300));
        assert!(s.hide_axes, "a depiction has no axes");
        assert_eq!(s.title, "aspirin");
        let [Item::Picture(picture)] = s.items.as_slice() else {
            panic!("not one picture: {:?}", s.items);
        };
        // RDKit's MolDraw2D SVG: its namespace, an element per atom, the fragment's tint.
        assert!(
            picture
                .svg
                .contains("xmlns:rdkit='http://www.rdkit.org/xml'")
        );
        assert!((0..13).all(|i| picture.svg.contains(&format!("atom-{i}'"))
            || picture.svg.contains(&format!("atom-{i} "))));
        let [r, g, b] = highlight_tint(fragment_color(0));
        let tint = format!("#{r:02X}{g:02X}{b:02X}");
        assert!(picture.svg.contains(&tint), "no {tint} highlight");
        // A 400 × 300 px document over the whole 400 × 300 data range.
        assert!(picture.svg.contains("viewBox='0 0 400 300'"));
        assert_eq!(picture.extent, (0.0, 400.0, 0.0, 300.0));

        let figure = Figure::new("aspirin").size_in(4.0, 3.0).subplot(s.clone());
        let svg = String::from_utf8(export(&figure, ExportFormat::Svg)).unwrap();
        assert!(
            svg.contains("class='bond-0 atom-0 atom-1'"),
            "the depiction is in the export"
        );
        assert!(svg.contains(&tint));
        // The PNG draws the picture: it differs from the same figure without it.
        let png = export(&figure, ExportFormat::Png);
        assert!(png.starts_with(b"\x89PNG"));
        let mut bare = s;
        bare.items.clear();
        let empty = export(
            &Figure::new("aspirin").size_in(4.0, 3.0).subplot(bare),
            ExportFormat::Png,
        );
        assert_ne!(png, empty, "the molecule is not in the PNG");
    }

    #[test]
    fn a_molecule_rdkit_cannot_draw_is_said_in_words() {
        // The empty default drawing has no layout.
        let s: Subplot = subplot("nothing", &Drawing::default(), &[], (200, 100));
        let [Item::Text(note)] = s.items.as_slice() else {
            panic!("{:?}", s.items);
        };
        assert!(
            note.text.contains("RDKit could not draw this molecule"),
            "{}",
            note.text
        );
    }

    #[test]
    fn on_screen_depictions_are_rasterised_once_and_reused() {
        let textures = |h: &egui_kittest::Harness<'_>| h.ctx.tex_manager().read().num_allocated();
        let mut bare = egui_kittest::Harness::new_ui(|ui| {
            ui.label("no molecule");
        });
        bare.run_steps(3);
        let d = aspirin();
        let h = highlights(d.atoms.len(), &[(&[4, 5, 6][..], fragment_color(1))]);
        let mut harness = egui_kittest::Harness::new_ui(move |ui| {
            ui.label("no molecule");
            paint(ui, &d, &h, egui::vec2(220.0, 170.0));
            paint(ui, &d, &[], egui::vec2(150.0, 110.0));
        });
        harness.run_steps(3);
        // Two depictions (with and without highlights) are two textures, frame after frame.
        assert_eq!(textures(&harness), textures(&bare) + 2);
        harness.run_steps(5);
        assert_eq!(textures(&harness), textures(&bare) + 2);
    }
}

/// Exporting molecules as CSV, SDF and a grid of drawings.
mod export {
    use benchtop_panel_molstitch::molecule_export::{ExportRow, grid_figure, to_csv, to_sdf};

    fn rows() -> Vec<ExportRow> {
        vec![
            ExportRow {
                smiles: "CCO".into(),
                group: "offline".into(),
                objectives: vec![0.4, 0.9],
            },
            ExportRow {
                smiles: "c1ccccc1O".into(),
                group: "MolStitch".into(),
                objectives: vec![0.5, 0.8],
            },
        ]
    }

    #[test]
    fn csv_and_sdf_carry_every_molecule_and_value() {
        let labels = vec!["qed".to_owned(), "sa".to_owned()];
        let csv = to_csv(&labels, &rows()).unwrap();
        assert_eq!(csv.lines().next(), Some("smiles,group,qed,sa"));
        assert_eq!(
            csv.lines().nth(2),
            Some("c1ccccc1O,MolStitch,0.500000,0.800000")
        );
        let sdf = to_sdf(&labels, &rows()).unwrap();
        assert_eq!(sdf.matches("$$$$").count(), 2);
        // The SDF reads back with the engine's loader, properties included.
        let data = benchtop_panel_molstitch::chem::offline::read_sdf(&sdf, "export.sdf");
        assert!(data.errors.is_empty(), "{:?}", data.errors);
        assert_eq!(data.smiles(), ["CCO", "Oc1ccccc1"]);
        assert_eq!(data.property("qed").unwrap(), [Some(0.4), Some(0.5)]);
        let bad = [ExportRow {
            smiles: "C1CC(".into(),
            group: "x".into(),
            objectives: vec![],
        }];
        assert!(to_sdf(&labels, &bad).is_err());
    }

    #[test]
    fn grid_has_one_drawing_per_molecule() {
        let figure = grid_figure("molecules", &rows(), 4, 10).unwrap();
        assert_eq!(figure.layout(), (1, 2));
        assert_eq!(figure.subplots.len(), 2);
    }
}

/// Optimisation results labelled by the objectives they were computed for.
mod results {
    use benchtop_panel_molstitch::engine::ObjectiveSpec;
    use benchtop_panel_molstitch::engine::optimise::{MethodMetrics, OptimiseResult};
    use benchtop_panel_molstitch::{MolStitchParams, result_axis_names, result_matches_objectives};

    fn result_for(labels: &[&str]) -> OptimiseResult {
        let metrics = MethodMetrics {
            hypervolume: 0.0,
            r2: 0.0,
            top1: 0.0,
            top10: 0.0,
            top100: 0.0,
            diversity: 0.0,
            validity: 0.0,
            uniqueness: 0.0,
            novelty: 0.0,
        };
        OptimiseResult {
            objective_labels: labels.iter().map(|l| (*l).to_owned()).collect(),
            offline: Vec::new(),
            offline_metrics: metrics,
            methods: Vec::new(),
            proxy_accuracy: Vec::new(),
            ipo_loss: Vec::new(),
            notes: Vec::new(),
            weight_files: Vec::new(),
            seed_study: None,
        }
    }

    /// A saved result names its weight files; a crafted one naming a file elsewhere must not
    /// make saving copy that file into the project (only names in the weight cache count).
    #[test]
    fn a_saved_result_cannot_make_a_save_copy_files_from_elsewhere() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let secret = dir.path().join("private.key");
        std::fs::write(&secret, "secret").expect("a private file");
        let molecules = dir.path().join("mols.smi");
        std::fs::write(&molecules, "CCO\nc1ccccc1O\n").expect("molecules");
        let mut result = result_for(&["qed", "sa", "sim"]);
        result.weight_files = vec![secret.clone(), dir.path().join("../../etc/hostname")];
        let sidecar = dir.path().join("crafted.data");
        std::fs::create_dir_all(&sidecar).expect("sidecar");
        std::fs::write(
            sidecar.join("1-molstitch-optimisation.ron"),
            ron::to_string(&result).expect("serialises"),
        )
        .expect("result");
        let path = dir.path().join("crafted.ron");
        std::fs::write(
            &path,
            format!(
                r#"(panels: [(id: (1), state: MolStitch((
                    params: (data: (file: (path: "{}"))),
                    results: (optimise_file: Some("1-molstitch-optimisation.ron")),
                )))])"#,
                molecules.display()
            ),
        )
        .expect("project");
        let mut session = benchtop::session::Session::open(&path).expect("opens");
        session.save_as(&path).expect("saves");
        let saved = crate::common::sidecar_folder(&path);
        let copied: Vec<_> = walk(&saved)
            .into_iter()
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n == "private.key" || n == "hostname")
            })
            .collect();
        assert!(copied.is_empty(), "{copied:?}");
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                found.extend(walk(&path));
            }
            found.push(path);
        }
        found
    }

    #[test]
    fn a_result_for_other_objectives_is_labelled_by_its_own_objectives() {
        let mut params = MolStitchParams::default();
        let result = result_for(&["qed", "sa", "sim"]);
        assert!(result_matches_objectives(&result, &params));
        assert_eq!(result_axis_names(&result, &params)[0], "QED");
        params.objectives = vec![ObjectiveSpec::Sa, ObjectiveSpec::Qed];
        assert!(!result_matches_objectives(&result, &params));
        assert_eq!(result_axis_names(&result, &params), ["qed", "sa", "sim"]);
    }
}

/// What sweeps may vary, through the declared parameters, and what one point runs.
mod sweeps {
    use std::collections::BTreeMap;

    use benchtop_kit::compute::{CancelToken, Progress};
    use benchtop_kit::panel::Panel as _;
    use benchtop_panel_molstitch::sweeps::point_config;
    use benchtop_panel_molstitch::{MolStitchPanel, MolStitchParams, MolStitchState};

    #[test]
    fn every_sweep_parameter_is_assignable_and_unknown_keys_are_refused() {
        let mut panel = MolStitchPanel::new(MolStitchState::default());
        let support = panel.sweep_support();
        // The keys saved sweeps name.
        for key in [
            "optimise.beta",
            "optimise.dirichlet_alpha",
            "optimise.n_proxies",
            "optimise.stitch_rounds",
            "optimise.sigma",
            "optimise.seed",
        ] {
            assert!(support.params.iter().any(|p| p.key == key), "{key}");
        }
        for p in &support.params {
            assert!(panel.set_param(&p.key, 2.0).is_ok(), "{}", p.key);
        }
        panel.set_param("optimise.beta", 0.5).unwrap();
        let c = point_config(panel.params(), 3);
        // The point's seed reaches the run (a sweep of `optimise.seed` gives each point its
        // value as the seed: it is the declared seed).
        assert_eq!((c.beta, c.seed), (0.5, 3));
        assert!(
            panel
                .declared()
                .get("optimise.seed")
                .is_some_and(|p| p.seed && p.sweep)
        );
        assert!(panel.set_param("optimise.depth", 1.0).is_err());
        let unknown = support
            .evaluator
            .evaluate(
                &BTreeMap::from([("optimise.depth".to_owned(), 1.0)]),
                &[],
                1,
                &Progress::new(),
                &CancelToken::new(),
            )
            .unwrap_err();
        assert!(unknown.to_string().contains("optimise.depth"), "{unknown}");
        // A sweep reads the molecule set itself; one that cannot be read is named.
        let dir = tempfile::tempdir().unwrap();
        let mut state = MolStitchState::default();
        state.params.data.file.path = dir.path().join("missing.csv").display().to_string();
        let err = MolStitchPanel::new(state)
            .sweep_support()
            .evaluator
            .evaluate(
                &BTreeMap::new(),
                &[],
                1,
                &Progress::new(),
                &CancelToken::new(),
            )
            .unwrap_err();
        assert!(
            err.to_string().contains("molecule set") && err.to_string().contains("missing.csv"),
            "{err}"
        );
    }

    #[test]
    fn the_sweep_fingerprint_is_the_data_and_the_run_configuration() {
        let panel = MolStitchPanel::new(MolStitchState::default());
        let params = MolStitchParams::default();
        let mut config = params.optimise.clone();
        config.objectives = params.objectives.clone();
        config.weights.resize(config.objectives.len(), 1.0);
        assert_eq!(
            panel.sweep_support().fingerprint,
            format!("{:?}", (&params.data, &config))
        );
    }
}
