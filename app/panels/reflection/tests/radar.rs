//! The Reflection-Bench radar draws only what was run: a task no agent ran has no axis, and a
//! task one agent did not run is absent from its outline, never drawn at 0.

use std::time::Duration;

use benchtop_kit::figure::{Figure, Item};
use egui_kittest::kittest::Queryable as _;

use crate::common;

/// The oracle on three of the seven tasks (it scores above 0 on each of them).
const THREE_TASKS: &str = r#"(
    format_version: 1,
    panels: [(id: (1), state: Reflection((
        params: (agents: ["oracle"], tasks: [NBack, Reversal, MetaBandit]),
        view: (tab: Scores, radar: true),
    )))],
)"#;

/// The radar of the first panel.
fn radar(session: &benchtop::session::Session) -> Figure {
    let panel = session.panels.values().next().expect("panel");
    panel
        .figures()
        .into_iter()
        .find(|f| f.name == "reflection-radar")
        .expect("the radar is exported")
        .figure
}

/// Points of the items named `agent` and of unnamed items in its colour, i.e. everything an
/// agent's outline and markers draw, as (x, y).
fn points(figure: &Figure) -> Vec<(String, f64, f64)> {
    let mut out = Vec::new();
    for item in &figure.subplots[0].items {
        match item {
            Item::Line(l) if l.color != Some(benchtop_kit::figure::Rgba::rgb(200, 200, 200)) => {
                out.extend(l.xs.iter().zip(&l.ys).map(|(x, y)| (l.name.clone(), *x, *y)));
            }
            Item::Scatter(s) => {
                out.extend(s.xs.iter().zip(&s.ys).map(|(x, y)| (s.name.clone(), *x, *y)));
            }
            _ => {}
        }
    }
    out
}

/// The axis labels drawn on the radar.
fn axes(figure: &Figure) -> Vec<String> {
    figure.subplots[0]
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn reflection_radar_leaves_out_tasks_that_were_not_run() {
    let mut harness = common::harness(common::session_from(THREE_TASKS, "radar.ron"));
    harness.step();
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    common::click(&mut harness, "Run all agents");
    common::run_until_idle(&mut harness, Duration::from_secs(60));
    let summary = common::first_summary(&harness.state().session);
    assert!(summary["scores"]["oracle"]["n_back"]["mean"].is_f64(), "{summary}");
    assert!(summary["scores"]["oracle"]["oddball"].is_null(), "oddball was not run: {summary}");

    // Three axes, in the radar's order; the four tasks not run have none.
    let figure = radar(&harness.state().session);
    assert_eq!(axes(&figure), ["Memory", "Belief updating", "Meta-reflection"]);
    assert!(figure.subplots[0].title.starts_with("3 of 7 dimensions"), "{}", figure.subplots[0].title);
    // The oracle scores above 0 on all three: no point of its outline lies at the centre
    // (before, the four tasks not run were drawn there at 0).
    let oracle = points(&figure);
    assert!(!oracle.is_empty());
    for (name, x, y) in &oracle {
        assert!(x.hypot(*y) > 0.05, "{name} has a point at the centre: {oracle:?}");
    }

    // A person plays the reversal task only: their one score is a marker on the
    // belief-updating axis, with no outline through the centre for the two tasks they did not
    // play.
    common::click(&mut harness, "Play");
    common::click(&mut harness, "Start a new game");
    for _ in 0..40 {
        common::click(&mut harness, "right arm");
    }
    harness.get_by_label_contains("Your last game");
    let figure = radar(&harness.state().session);
    assert_eq!(axes(&figure), ["Memory", "Belief updating", "Meta-reflection"]);
    let all = points(&figure);
    for (name, x, y) in &all {
        assert!(x.hypot(*y) > 0.05, "{name} has a point at the centre: {all:?}");
    }
    let human: Vec<&(String, f64, f64)> = all.iter().filter(|(n, _, _)| n == "human").collect();
    assert_eq!(human.len(), 1, "one marker for the one task played: {all:?}");
    // The belief-updating axis is the second of three, at 90° − 120° = −30°.
    let (_, x, y) = human[0];
    let angle = y.atan2(*x).to_degrees();
    assert!((angle + 30.0).abs() < 1e-6, "{angle}");
}
