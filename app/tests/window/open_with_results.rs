//! Examples open with results: a project with `compute_on_open` computes what its headless
//! run computes when a panel without results is first shown, one task after another, with
//! progress, and that is no change of the user's.

use std::time::Duration;

use benchtop::session::Session;
use egui_kittest::kittest::Queryable as _;

use super::window;
use crate::common;

#[test]
fn an_example_opens_with_its_results_computed_and_unchanged() {
    let path = common::repo_root().join("projects/neurotree-planted-dmn.ron");
    let session = Session::open(&path).expect("the example opens");
    assert!(
        session.compute_on_open,
        "the example asks to compute on open"
    );
    let figures_before = session
        .panels
        .values()
        .map(|p| p.figures().len())
        .sum::<usize>();
    let mut harness = window(session);
    harness.state_mut().compute_on_open = true;
    harness.step();
    harness.step();
    assert!(
        harness.state().session.is_busy(),
        "opening the example started its computation"
    );
    common::run_until_idle(&mut harness, Duration::from_secs(600));
    // Both queued tasks ran: the data, then the cross-validated model.
    for _ in 0..5 {
        harness.step();
    }
    common::run_until_idle(&mut harness, Duration::from_secs(600));
    let state = harness.state();
    let panel = state.session.panels.values().next().expect("a panel");
    assert!(
        panel.figures().len() > figures_before,
        "no results after opening: {} figures before, {} after",
        figures_before,
        panel.figures().len()
    );
    let summary = panel.summary().to_string();
    assert!(
        summary.contains("auc"),
        "the model's results are in the summary: {summary}"
    );
    assert!(
        !state.is_dirty(),
        "results the example computes by itself are no change"
    );
    assert!(
        harness
            .query_by_label_contains("Run the cross-validation")
            .is_none(),
        "the Model tab still asks the user to press Run"
    );
}

#[test]
fn a_project_without_compute_on_open_waits_for_the_user() {
    let text = r"(
        format_version: 1,
        panels: [(id: (1), state: NeuroTree(()))],
    )";
    let session = common::session_from(text, "plain.ron");
    assert!(!session.compute_on_open);
    let mut harness = window(session);
    harness.state_mut().compute_on_open = true;
    for _ in 0..5 {
        harness.step();
    }
    assert!(
        !harness.state().session.is_busy(),
        "a project that does not ask computes nothing on open"
    );
}

#[test]
fn the_tour_trains_its_duality_map_after_the_live_monte_carlo() {
    let path = common::repo_root().join("projects/tour.ron");
    let mut session = Session::open(&path).expect("the tour opens");
    // A debug-build budget: a small lattice and a short duality run.
    let pane = *session.panels.keys().next().expect("the Ising pane");
    session.set_param(pane, "mc.size", 16.0).expect("size");
    session
        .set_param(pane, "mc.measurement_sweeps", 200.0)
        .expect("sweeps");
    session
        .set_param(pane, "duality.max_steps", 3.0)
        .expect("steps");
    let mut harness = window(session);
    harness.state_mut().compute_on_open = true;
    let mut saw_duality = false;
    for _ in 0..3_000 {
        harness.step();
        saw_duality |= harness
            .state()
            .jobs
            .running()
            .iter()
            .any(|job| job.name.contains("duality"));
        if saw_duality && !harness.state().session.is_busy() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        saw_duality,
        "after the live Monte Carlo (started by the panel itself), the tour trains its duality map"
    );
}
