//! The FINDR panel, clicked through by its labels, its declared parameters and sweeps, its
//! figure pieces, and its example project's known answers.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use benchtop::session::Session;
use benchtop_kit::compute::{CancelToken, Progress};
use benchtop_panel_findr::engine::field::FlowGrid;
use benchtop_kit::panel::Panel as _;
use benchtop_panel_findr::figures::{cool_warm, smooth, zone_outline};
use benchtop_panel_findr::{FindrPanel, FindrState};
use egui_kittest::kittest::Queryable as _;

use crate::common;
use crate::examples::Example;

/// The example projects and their known answers.
pub const EXAMPLES: &[Example] = &[Example {
    project: "findr-planted-line-attractor",
    check: check_findr,
}];

/// A session with one FINDR panel sized to train in seconds in debug builds.
fn small_findr_session() -> Session {
    let text = r"(
        format_version: 1,
        panels: [(id: (1), state: Findr((params: (
            data: (synthetic: (n_trials: 40, n_neurons: 12, min_bins: 20, max_bins: 30)),
            fit: (
                baseline: (within_trial_bases: [4], ridges: [1e-2]),
                model: (flow_width: 8, encoder_hidden: 8),
                train: (max_epochs: 3, batch_trials: 10, warmup_epochs: 1, first_cycle_epochs: 5),
                analysis: (grid_size: 7, fixed_points: (starts_per_axis: 4)),
            ),
        ))))],
    )";
    common::session_from(text, "small-findr.ron")
}

use common::first_summary as summary;

#[test]
fn findr_panel_opens_from_the_catalog() {
    let mut harness = common::harness(Session::new());
    common::open_panel(&mut harness, "FINDR flow fields");
    assert_eq!(harness.state().session.panels.len(), 1);
    harness.get_by_label("Generate synthetic data");
    harness.get_by_label("Fit").click();
    harness.step();
    harness.get_by_label("Generate or load trials in the Data tab first.");
    harness.get_by_label("Flow").click();
    harness.step();
    harness.get_by_label("Train the model in the Fit tab to see the flow field it inferred.");
}

#[test]
fn findr_panel_generates_trains_draws_saves_and_reopens() {
    let mut harness = common::harness(small_findr_session());
    // A parameter change (the data source) is recorded and undone.
    harness.get_by_label("From a file").click();
    harness.step();
    harness.get_by_label("Load trials");
    let text = harness.state().session.to_text().expect("serialises");
    assert!(text.contains("source: File"), "the source changed");
    harness.get_by_label("Undo").click();
    harness.step();
    let text = harness.state().session.to_text().expect("serialises");
    assert!(text.contains("source: Synthetic"), "undo restored it");

    harness.get_by_label("Generate synthetic data").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    harness.get_by_label_contains("synthetic, seed 1: 40 trials, 12 neurons");
    let data = &summary(&harness.state().session)["data"];
    assert_eq!(data["trials"], 40);
    assert!(data["spikes"].as_f64().is_some_and(|s| s > 0.0), "{data}");

    harness.get_by_label("Fit").click();
    harness.step();
    harness.get_by_label("Train").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(300));
    harness.get_by_label_contains("Best epoch");
    harness.get_by_label_contains("Test NLL");
    let fitted = summary(&harness.state().session);
    assert_eq!(fitted["epochs_run"], 3, "{fitted}");
    let best = fitted["best_epoch"].as_u64().expect("best epoch");
    assert!((1..=3).contains(&best), "best epoch {best}");
    assert!(fitted["test_nll"].as_f64().is_some_and(f64::is_finite));
    for key in [
        "heldout_predictive_nll",
        "heldout_predictive_nll_baseline_only",
        "heldout_predictive_gain_se",
    ] {
        assert!(fitted[key].as_f64().is_some_and(f64::is_finite), "{key}: {fitted}");
    }
    // The one-click default fits three seeds; points go under the key their support earns.
    assert_eq!(fitted["fits"], 3, "{fitted}");
    let listed = match (
        fitted["latent_supported"] == true,
        fitted["structure_confirmed"] == true,
    ) {
        (true, true) => &fitted["fixed_points"],
        (true, false) => &fitted["fixed_points_unconfirmed"],
        (false, _) => &fitted["fixed_points_unsupported"],
    };
    for point in listed.as_array().expect("fixed points") {
        let found_by = point["found_by_fits"].as_u64().expect("count");
        assert!((1..=3).contains(&found_by), "{point}");
    }
    let notes = fitted["notes"].as_array().expect("notes");
    assert_eq!(
        notes.is_empty(),
        fitted["structure_confirmed"] == true,
        "{fitted}"
    );
    assert!(
        fitted["planted_attractors"].is_array(),
        "synthetic: {fitted}"
    );

    harness.get_by_label("Flow").click();
    harness.step();
    harness.get_by_label("Recovery of the planted attractors");
    harness.get_by_label_contains("Fixed points (");
    harness.get_by_label("Show the planted flow");

    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("findr.ron");
    let reopened = common::save_and_reopen(&mut harness, &path);
    // The sidecar names are scoped by the pane (the panel is pane 1).
    for array in [
        "1-findr-spikes.npy",
        "1-findr-truth-latents.npy",
        "1-findr-history.npy",
        "1-findr-psths.npy",
    ] {
        assert!(
            common::sidecar_folder(&path).join(array).exists(),
            "{array}"
        );
    }
    let panel = reopened.panels.values().next().expect("panel");
    let figures = panel.figures();
    for name in [
        "findr-data",
        "findr-training",
        "findr-flow",
        "findr-input-fields",
        "findr-psth-fits",
    ] {
        assert!(
            figures.iter().any(|f| f.name == name),
            "{name} after reopening"
        );
    }
    let tables = panel.data_tables();
    let field = tables
        .iter()
        .find(|t| t.name == "findr-flow-field")
        .expect("field table");
    assert_eq!(field.rows.len(), 49, "a 7 × 7 grid");
}

#[test]
fn findr_sweeps_set_the_fit_and_the_seed_through_the_declarations() {
    let mut panel = FindrPanel::new(FindrState::default());
    // A sweep point's values are set through the declarations, as `set_param` sets them.
    panel
        .set_param("model.flow_width", 50.0)
        .expect("flow width");
    panel
        .set_param("train.learning_rate", 0.01)
        .expect("learning rate");
    assert_eq!(panel.params().fit.model.flow_width, 50);
    assert_eq!(panel.params().fit.train.learning_rate, 0.01);

    // A point fits with the sweep's seed unless it sets the fit seed itself (the kit's
    // evaluator uses the value of the parameter declared as the seed).
    let fit_seed = panel.declared().get("fit.seed").expect("the fit seed is declared");
    assert!(fit_seed.seed && fit_seed.sweep);
    let mut point = panel.params().clone();
    fit_seed.set(&mut point, 7.0).expect("sets the fit seed");
    assert_eq!(point.fit_seed, 7);

    // An unknown key is refused, by `set_param` and by the sweep evaluator.
    assert!(panel.set_param("model.depth", 2.0).is_err());
    let support = panel.sweep_support();
    let bad = BTreeMap::from([("model.depth".to_owned(), 2.0)]);
    assert!(
        support
            .evaluator
            .evaluate(&bad, &[], 3, &Progress::new(), &CancelToken::new())
            .is_err()
    );

    // Every sweepable key is accepted; the keys saved sweeps name are still offered, and the
    // data settings are not (a sweep makes its trials once).
    let keys: Vec<&str> = support.params.iter().map(|p| p.key.as_str()).collect();
    for key in [
        "train.learning_rate",
        "model.flow_width",
        "model.encoder_hidden",
        "train.fold",
        "train.max_epochs",
        "fit.seed",
    ] {
        assert!(keys.contains(&key), "{key} in {keys:?}");
    }
    assert!(keys.iter().all(|key| !key.starts_with("data.")), "{keys:?}");
    for param in &support.params {
        let value = 1.0_f64.clamp(param.min, param.max);
        panel
            .set_param(&param.key, value)
            .unwrap_or_else(|error| panic!("{}: {error}", param.key));
    }

    // One fold of the model selection as a kit sweep (README): β_KL × learning rate, two
    // repeats (seeds) per point, recording the held-out predictive gain.
    let selection: benchtop_kit::sweep::SweepDoc = ron::from_str(SELECTION_SWEEP).expect("parses");
    selection
        .validate(&support)
        .expect("the selection sweep is valid");

    // The delay: 0 s means clicks throughout the trial.
    panel
        .set_param("data.synthetic.stimulus_s", 0.0)
        .expect("no delay");
    assert_eq!(panel.params().data.synthetic.stimulus_s, None);
    panel
        .set_param("data.synthetic.stimulus_s", 0.3)
        .expect("a delay");
    assert_eq!(panel.params().data.synthetic.stimulus_s, Some(0.3));
}

#[test]
fn findr_select_model_scores_the_grid_applies_the_best_and_keeps_the_scores() {
    let session = common::small_findr_session(
        "(max_epochs: 2, batch_trials: 10, warmup_epochs: 1, first_cycle_epochs: 5)",
        "selection: (beta_kl: [0.5, 1.5], learning_rate: [0.1], flow_width: [6], tau_s: [0.1], \
         restarts: 1, folds: 2),",
        "select-findr.ron",
    );
    let mut harness = common::harness(session);
    harness.get_by_label("Generate synthetic data").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(120));
    harness.get_by_label("Fit").click();
    harness.step();
    harness.get_by_label("Select model").click();
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(300));
    harness.get_by_label_contains("Applied the best settings");
    let saved = harness.state().session.to_text().expect("serialises");
    // The best point's width is applied (both points have H = 6) and both scores are kept.
    assert!(saved.contains("flow_width: 6"), "{saved}");
    assert!(saved.contains("selection_key"), "{saved}");
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("select.ron");
    let reopened = common::save_and_reopen(&mut harness, &path);
    let reopened_text = reopened.to_text().expect("serialises");
    for beta in ["beta_kl: 0.5", "beta_kl: 1.5"] {
        assert!(reopened_text.contains(beta), "{beta}: {reopened_text}");
    }
}

#[test]
fn findr_partial_fit_and_data_keep_the_panel_defaults() {
    // One source of defaults: a project that sets one field of the fit or of the synthetic data
    // keeps the panel's defaults (the example project's) for every other field.
    let partial: FindrState = ron::from_str(
        "(params: (data: (synthetic: (n_trials: 40)), fit: (train: (max_epochs: 5))))",
    )
    .expect("parses");
    let defaults = FindrState::default();
    let (p, d) = (&partial.params, &defaults.params);
    assert_eq!(p.fit.train.max_epochs, 5);
    assert_eq!(p.data.synthetic.n_trials, 40);
    let train = benchtop_panel_findr::TrainParams {
        max_epochs: 5,
        ..d.fit.train.clone()
    };
    assert_eq!(p.fit.train, train);
    assert_eq!(
        (train.batch_trials, train.learning_rate, train.kl_warmup_decay),
        (8, 0.1, 0.95),
        "the one-click fit"
    );
    assert_eq!(p.fit.model, d.fit.model);
    assert_eq!(p.fit.analysis, d.fit.analysis);
    let synthetic = benchtop_panel_findr::engine::synthetic::SyntheticParams {
        n_trials: 40,
        ..d.data.synthetic.clone()
    };
    assert_eq!(p.data.synthetic, synthetic);
    assert_eq!(
        (synthetic.n_neurons, synthetic.readout_gain_hz, synthetic.stimulus_s),
        (100, 20.0, Some(0.4)),
        "the example's synthetic set"
    );
    assert_eq!(synthetic.flow.bump_strength, 2.0);
}

/// The README's model-selection sweep for a FINDR panel in pane 1.
const SELECTION_SWEEP: &str = r#"(
    name: "FINDR model selection, fold 0",
    pane: (1),
    axes: [
        (param: "fit.train.beta_kl", grid: List([0.5, 1.0, 2.0])),
        (param: "train.learning_rate", grid: List([0.05, 0.1])),
    ],
    repeats: 2,
    base_seed: 1,
    outputs: ["fit.predictive_gain", "fit.test_nll_gain", "fit.stable_fixed_points"],
)"#;

fn grid3() -> FlowGrid {
    FlowGrid {
        xs: vec![0.0, 1.0, 2.0],
        ys: vec![0.0, 1.0, 2.0],
        vectors: vec![[1.0, 0.0]; 9],
        speed: vec![1.0; 9],
    }
}

#[test]
fn findr_zone_outline_of_one_cell_is_its_four_edges() {
    let line = zone_outline(&grid3(), |cell| cell == 4);
    // Four edges of 3 values each (two ends and a break).
    assert_eq!(line.xs.len(), 12);
    let finite: Vec<(f64, f64)> = line
        .xs
        .iter()
        .zip(&line.ys)
        .filter(|(x, _)| x.is_finite())
        .map(|(x, y)| (*x, *y))
        .collect();
    assert!(
        finite
            .iter()
            .all(|(x, y)| (0.5..=1.5).contains(x) && (0.5..=1.5).contains(y))
    );
    // Two neighbouring cells share no edge: 6 outer edges.
    assert_eq!(zone_outline(&grid3(), |c| c == 4 || c == 5).xs.len(), 18);
}

#[test]
fn findr_smoothing_keeps_constants_and_gaps() {
    assert_eq!(smooth(&[2.0, 2.0, 2.0, 2.0], 3), vec![2.0; 4]);
    let s = smooth(&[0.0, 3.0, f64::NAN], 3);
    assert_eq!(s[0], 1.5);
    assert!(s[2].is_nan());
}

#[test]
fn findr_cool_to_warm_runs_blue_to_red() {
    let (cool, warm) = (cool_warm(-2.0, 2.0), cool_warm(2.0, 2.0));
    assert!(cool.b > cool.r && warm.r > warm.b);
}

/// The example project: the recovered fixed points include stable points within 0.2 latent
/// units of the planted attractors ±(1, 0), in the planted frame.
fn check_findr(_out: &Path, summary: &serde_json::Value) {
    // The planted system: attractors at ±(1, 0) with a saddle between them. The project's
    // three fits (seed 1 and two derived seeds; the kept one is the fit the others agree with)
    // put them 0.009 and 0.022 from the planted ones in release on this machine; single fits
    // with seeds 1–4 gave 0.05–0.17 (docs/benchmarks.md), and a CPU with other matrix kernels
    // rounds differently, which acts like another seed, so the bound here is the seeds' spread.
    let s = &summary["panels"][0]["summary"];
    let planted = s["planted_attractors"]
        .as_array()
        .expect("planted attractors");
    assert_eq!(planted.len(), 2, "{s}");
    let errors = s["attractor_errors"].as_array().expect("attractor errors");
    for error in errors {
        let error = error.as_f64().unwrap_or(f64::INFINITY);
        assert!(error < 0.2, "attractor error {error}: {s}");
    }
    // The planted flow is there to find: the fit says its latent is supported, and its three
    // fits agree on the attractors.
    assert_eq!(s["latent_supported"], true, "{s}");
    assert_eq!(s["fits"], 3, "{s}");
    assert_eq!(s["structure_confirmed"], true, "{s}");
    let points = s["fixed_points"].as_array().expect("fixed points");
    let position = |p: &serde_json::Value| {
        (
            p["stability"].as_str().unwrap_or("").to_owned(),
            p["z"][0].as_f64().unwrap_or(f64::NAN),
            p["z"][1].as_f64().unwrap_or(f64::NAN),
        )
    };
    for attractor in planted {
        let at = [
            attractor[0].as_f64().expect("x"),
            attractor[1].as_f64().expect("y"),
        ];
        assert!((at[0].abs() - 1.0).abs() < 1e-9 && at[1] == 0.0, "{at:?}");
        let near = points
            .iter()
            .map(position)
            .any(|(kind, x, y)| kind == "stable" && (x - at[0]).hypot(y - at[1]) < 0.2);
        assert!(near, "no recovered attractor near {at:?}: {points:?}");
    }
    let saddle = points
        .iter()
        .map(position)
        .any(|(kind, x, _)| kind == "saddle" && x.abs() < 0.5);
    assert!(saddle, "no saddle between the attractors: {points:?}");
    let test = s["test_nll"].as_f64().expect("test NLL");
    let baseline = s["test_nll_baseline_only"].as_f64().expect("baseline NLL");
    assert!(
        test < baseline,
        "the latent must explain more than the baseline: {s}"
    );
}
