//! Examples open with results: a project with `compute_on_open` computes what its headless
//! run computes when a panel without results is first shown, one task after another, with
//! progress, then its sweeps, and that is no change of the user's unless the results took
//! long to compute: then quitting asks first.

use std::time::Duration;

use benchtop::session::Session;
use benchtop::shell::{Modal, PendingAction};
use benchtop_kit::project::PaneId;
use egui_kittest::kittest::Queryable as _;

use super::window;
use crate::common;
use crate::common::click;

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
    // However long the debug build takes: results that took long are unsaved, and are
    // checked in `results_computed_on_open_that_took_long_are_not_lost_on_quit`.
    harness.state_mut().long_compute = Duration::MAX;
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

/// A small Ising project that computes on open: its Monte Carlo when `monte_carlo`, and the
/// sweeps `sweeps` (RON list entries).
fn small_ising_computing_on_open(monte_carlo: bool, sweeps: &str) -> Session {
    let text = format!(
        r"(
        format_version: 1,
        compute_on_open: true,
        panels: [(id: (1), state: Ising((
            params: (mc: (size: 16, thermalization_sweeps: 100, measurement_sweeps: 400)),
            headless: (monte_carlo: {monte_carlo}, duality: false, approximate_duals: false),
        )))],
        sweeps: [{sweeps}],
    )"
    );
    common::session_from(&text, "on-open.ron")
}

/// A sweep of β over three values of the small lattice.
const BETA_SWEEP: &str = r#"(
    name: "Binder against beta",
    pane: (1),
    axes: [(param: "mc.beta", grid: List([0.35, 0.44, 0.5]))],
    outputs: ["mc.binder_cumulant"],
)"#;

/// The window over `session`, computing on open and counting results that took longer than
/// `long_compute` as unsaved, stepped until nothing computes or waits.
fn computed_on_open(session: Session, long_compute: Duration) -> super::Window {
    let mut harness = window(session);
    harness.state_mut().compute_on_open = true;
    harness.state_mut().long_compute = long_compute;
    for _ in 0..3 {
        harness.step();
        common::run_until_idle(&mut harness, Duration::from_secs(60));
    }
    harness
}

/// Whether the window asks about unsaved changes before doing `action`.
fn asks_before(harness: &super::Window, action: &PendingAction) -> bool {
    matches!(&harness.state().modal, Some(Modal::UnsavedChanges(a)) if a == action)
}

#[test]
fn results_computed_on_open_that_took_long_are_not_lost_on_quit() {
    assert_eq!(
        window(Session::new()).state().long_compute,
        Duration::from_secs(60),
        "the window asks about results that took more than a minute"
    );
    // Results the project computed by itself in less than the threshold (here: whatever time
    // they took, so that no timing decides the test): no change, Ctrl+Q quits at once.
    let mut harness = computed_on_open(small_ising_computing_on_open(true, ""), Duration::MAX);
    assert!(
        !harness.state().session.panels[&PaneId(1)].has_unsaved_changes()
            && !harness.state().is_dirty(),
        "fast results computed on open are no change"
    );
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Q);
    harness.step();
    assert!(harness.state().modal.is_none(), "quits without asking");

    // The same results, had they taken longer than the threshold (here: any time at all): they
    // are unsaved, so quitting, opening another project or a new one asks first.
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("computed.ron");
    let mut harness = computed_on_open(small_ising_computing_on_open(true, ""), Duration::ZERO);
    let computed = harness.state().unsaved_compute_time();
    assert!(computed > Duration::ZERO, "the Monte Carlo's time is kept");
    assert!(harness.state().is_dirty(), "long results are unsaved");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Q);
    harness.step();
    assert!(asks_before(&harness, &PendingAction::Quit));
    harness.get_by_label_contains("Among them are results that took");
    click(&mut harness, "Cancel");
    let ctx = harness.ctx.clone();
    for action in [PendingAction::New, PendingAction::Open(Some(path.clone()))] {
        harness.state_mut().request(&ctx, action.clone());
        harness.step();
        assert!(asks_before(&harness, &action), "{action:?}");
        click(&mut harness, "Cancel");
    }

    // Saved, they are safe: Ctrl+Q quits without asking.
    assert!(harness.state_mut().save_to(&path));
    harness.step();
    assert_eq!(harness.state().unsaved_compute_time(), Duration::ZERO);
    assert!(!harness.state().is_dirty());
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Q);
    harness.step();
    assert!(
        harness.state().modal.is_none(),
        "saved: quits without asking"
    );
}

#[test]
fn a_project_computing_on_open_computes_its_sweeps_too() {
    let mut harness = computed_on_open(
        small_ising_computing_on_open(false, BETA_SWEEP),
        Duration::MAX,
    );
    let run = &harness.state().session.sweeps[0];
    assert_eq!(run.error, None);
    assert_eq!(
        run.doc.results.len(),
        3,
        "every point of the sweep: {:?}",
        run.doc
    );
    assert!(
        run.doc
            .results
            .iter()
            .all(|point| point.error.is_none() && point.outputs.contains_key("mc.binder_cumulant")),
        "{:?}",
        run.doc.results
    );
    assert!(
        !harness.state().is_dirty(),
        "a sweep the project computes by itself is no change"
    );
    harness.get_by_label("Sweeps (1)");

    // Saved and reopened, the sweep is not computed again.
    let dir = tempfile::tempdir().expect("temporary folder");
    let path = dir.path().join("swept.ron");
    assert!(harness.state_mut().save_to(&path));
    let reopened = Session::open(&path).expect("reopens");
    assert_eq!(reopened.sweeps[0].doc.results.len(), 3);
    let mut harness = window(reopened);
    harness.state_mut().compute_on_open = true;
    for _ in 0..5 {
        harness.step();
        assert!(
            !harness.state().session.sweeps[0].is_busy(),
            "a computed sweep is not run again"
        );
    }
    common::run_until_idle(&mut harness, Duration::from_secs(60));

    // Its compute time counts with the panels' towards the results worth asking about.
    let harness = computed_on_open(
        small_ising_computing_on_open(false, BETA_SWEEP),
        Duration::ZERO,
    );
    let state = harness.state();
    let panels: Duration = state
        .session
        .panels
        .values()
        .map(|panel| panel.unsaved_compute_time())
        .sum();
    assert!(
        state.unsaved_compute_time() > panels,
        "the sweep's time counts"
    );
    assert!(state.is_dirty());
}
