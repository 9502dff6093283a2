//! The panel's figures: per-task score bars per agent, the seven-dimension radar, and one
//! session's trial trace.

use std::collections::BTreeMap;

use benchtop_kit::figure::{Bars, ErrorBars, Figure, Line, Rgba, Scatter, Subplot};
use benchtop_reflection::run::Stats;
use benchtop_reflection::score::normalized;
use benchtop_reflection::session::Detail;
use benchtop_reflection::{SessionResult, Settings, Task};

/// Score table: `scores[agent][task]`, agents in display order.
pub struct Table<'a> {
    /// Agents in order.
    pub agents: &'a [String],
    /// Scores.
    pub scores: &'a BTreeMap<String, BTreeMap<Task, Stats>>,
}

/// An agent's name as a reader writes it (the legend has room for it).
fn display_name(agent: &str) -> String {
    match agent {
        "wsls" => "WSLS".into(),
        "q_learning" => "Q-learning".into(),
        other => other.replace('_', " "),
    }
}

/// A short tick label for an agent (the bars' x axis has room for about eight characters).
fn short_name(agent: &str) -> String {
    match agent {
        "random" => "rand".into(),
        "wsls" => "WSLS".into(),
        "q_learning" => "QL".into(),
        "bayesian" => "Bayes".into(),
        other => other.chars().take(8).collect(),
    }
}

/// One subplot per task: a bar per agent (mean over sessions) with ±1 sd.
pub fn bars(table: &Table<'_>, tasks: &[Task], settings: &Settings) -> Figure {
    let cols = 3;
    let rows = tasks.len().div_ceil(cols).max(1);
    let mut fig = Figure::new("Reflection-Bench scores per task")
        .grid(rows, cols)
        .size_in(12.0, 3.4 * rows as f64);
    for &task in tasks {
        let mut names = Vec::new();
        let mut means = Vec::new();
        let mut sds = Vec::new();
        let mut colors = Vec::new();
        for (i, a) in table.agents.iter().enumerate() {
            if let Some(s) = table.scores.get(a).and_then(|t| t.get(&task)) {
                names.push(short_name(a));
                means.push(s.mean);
                sds.push(s.sd);
                colors.push(Rgba::cycle(i));
            }
        }
        let xs: Vec<f64> = (0..names.len()).map(|i| i as f64).collect();
        let top = task.max_score(settings);
        let low = means
            .iter()
            .zip(&sds)
            .map(|(m, s)| m - s)
            .fold(0.0, f64::min);
        fig = fig.subplot(
            Subplot::new(task.label())
                .y_label(if task == Task::MetaBandit {
                    "anticipated reversals"
                } else {
                    "score"
                })
                .y_range(low.min(0.0) - 0.02 * top, 1.08 * top)
                .legend(false)
                .with(Bars::categories("", names, means.clone()).colors(colors))
                .with(ErrorBars::new("±1 sd", xs, means, sds).color(Rgba::BLACK)),
        );
    }
    fig
}

/// The radar over the tasks that were run, on the 0–100 scale (meta-bandit as 100 × count /
/// maximum; negative scores drawn at 0). A task no agent ran has no axis, and a task one agent
/// did not run is left out of that agent's outline (the outline breaks there and the scores it
/// has are marked): absent, never drawn at 0.
pub fn radar(table: &Table<'_>, settings: &Settings) -> Figure {
    let tasks: Vec<Task> = Task::ALL
        .into_iter()
        .filter(|task| table.scores.values().any(|m| m.contains_key(task)))
        .collect();
    let n = tasks.len();
    let angle = |k: usize| {
        std::f64::consts::FRAC_PI_2 - 2.0 * std::f64::consts::PI * k as f64 / n.max(1) as f64
    };
    let title = if n == Task::ALL.len() {
        "Seven dimensions (0–100)".to_owned()
    } else {
        format!(
            "{n} of {} dimensions (0–100; tasks not run are left out)",
            Task::ALL.len()
        )
    };
    let mut sp = Subplot::new(title)
        .equal_aspect(true)
        .axes(false)
        .x_range(-1.45, 1.45)
        .y_range(-1.3, 1.3);
    if n >= 3 {
        for ring in [0.25, 0.5, 0.75, 1.0] {
            let (xs, ys): (Vec<f64>, Vec<f64>) = (0..=n)
                .map(|k| (ring * angle(k % n).cos(), ring * angle(k % n).sin()))
                .unzip();
            sp.push(Line::new("", xs, ys).color(GRID).width_pt(0.5));
        }
    }
    for (k, task) in tasks.iter().enumerate() {
        let (c, s) = (angle(k).cos(), angle(k).sin());
        sp.push(
            Line::new("", vec![0.0, c], vec![0.0, s])
                .color(GRID)
                .width_pt(0.5),
        );
        sp = sp.text(1.18 * c, 1.12 * s, task.axis());
    }
    for (i, a) in table.agents.iter().enumerate() {
        let Some(t) = table.scores.get(a) else {
            continue;
        };
        let point = |k: usize| -> Option<(f64, f64)> {
            let s = t.get(&tasks[k])?;
            let r = (normalized(tasks[k], settings, s.mean) / 100.0).clamp(0.0, 1.0);
            Some((r * angle(k).cos(), r * angle(k).sin()))
        };
        // The agent's name goes on its first item only (one legend entry per agent).
        let label = |named: bool| {
            if named {
                String::new()
            } else {
                display_name(a)
            }
        };
        let mut named = false;
        for run in outline_runs(n, |k| t.contains_key(&tasks[k])) {
            let (xs, ys): (Vec<f64>, Vec<f64>) = run.iter().filter_map(|&k| point(k)).unzip();
            sp.push(
                Line::new(label(named), xs, ys)
                    .color(Rgba::cycle(i))
                    .width_pt(1.5),
            );
            named = true;
        }
        let (xs, ys): (Vec<f64>, Vec<f64>) = (0..n).filter_map(point).unzip();
        sp.push(
            Scatter::new(label(named), xs, ys)
                .color(Rgba::cycle(i))
                .size_pt(3.0),
        );
    }
    Figure::new("Reflection-Bench radar")
        .subplot(sp.legend(true))
        .size_in(6.5, 6.0)
}

/// Colour of the radar's rings and spokes.
const GRID: Rgba = Rgba::rgb(200, 200, 200);

/// The pieces of an outline around `n` axes joining neighbouring axes that are both present:
/// one closed run (first axis repeated at the end) when every axis is present, else the
/// maximal runs of two or more neighbouring present axes, in axis order around the circle.
fn outline_runs(n: usize, present: impl Fn(usize) -> bool) -> Vec<Vec<usize>> {
    if n < 2 {
        return Vec::new();
    }
    if (0..n).all(&present) {
        return vec![(0..=n).map(|k| k % n).collect()];
    }
    let Some(gap) = (0..n).find(|&k| !present(k)) else {
        return Vec::new();
    };
    let mut runs = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    for step in 1..=n {
        let k = (gap + step) % n;
        if present(k) {
            current.push(k);
        } else {
            if current.len() > 1 {
                runs.push(std::mem::take(&mut current));
            }
            current.clear();
        }
    }
    if current.len() > 1 {
        runs.push(current);
    }
    runs
}

/// One session's trial trace up to `upto` trials: choices (green rewarded / red not), the
/// hidden truth and the agent's belief.
pub fn trace(result: &SessionResult, upto: usize) -> Figure {
    let recs = &result.records[..upto.min(result.records.len())];
    let t: Vec<f64> = recs.iter().map(|r| r.trial as f64 + 1.0).collect();
    let pick = |good: bool| -> (Vec<f64>, Vec<f64>) {
        recs.iter()
            .filter(|r| r.choice.is_some() && (r.reward > 0.0) == good)
            .map(|r| (r.trial as f64 + 1.0, r.choice.unwrap_or(0) as f64))
            .unzip()
    };
    // Room above the highest choice for the legend.
    let top_max = recs
        .iter()
        .filter_map(|r| r.choice)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let (gx, gy) = pick(true);
    let (bx, by) = pick(false);
    let mut top = Subplot::new(format!(
        "{}: {} session {}",
        result.agent,
        result.task.label(),
        result.session + 1
    ))
    .x_label("trial")
    .y_label(match result.task {
        Task::Oddball => "TF-IDF similarity",
        Task::Reversal | Task::MetaBandit => "choice (0 right, 1 left)",
        Task::NBack => "choice (0 yes, 1 no, 2 n/a)",
        Task::Wcst => "desk card",
        Task::Weather => "prediction (0 sunny, 1 rainy)",
        Task::Iowa => "final deck (0 AAA … 3 DDD)",
    });
    if result.task == Task::Oddball {
        top.push(Line::new(
            "similarity",
            t.clone(),
            recs.iter().map(|r| r.reward).collect::<Vec<_>>(),
        ));
    } else {
        top.push(Scatter::new("rewarded / correct", gx, gy).color(Rgba::rgb(44, 160, 44)));
        top.push(Scatter::new("not", bx, by).color(Rgba::rgb(214, 39, 40)));
    }
    let hidden_name = match result.task {
        Task::Reversal | Task::MetaBandit => "p(reward | right arm)",
        Task::Wcst => "rule (0 shape, 1 colour, 2 number)",
        Task::Weather => "p(sunny tomorrow)",
        Task::NBack => "correct answer",
        Task::Oddball => "off-topic sentence",
        Task::Iowa => "money / 1000 ($)",
    };
    let hidden: Vec<f64> = if result.task == Task::Iowa {
        recs.iter()
            .map(|r| match r.detail {
                Detail::Iowa { money, .. } => money as f64 / 1000.0,
                _ => 0.0,
            })
            .collect()
    } else {
        recs.iter().map(|r| r.hidden).collect()
    };
    let mut bottom = Subplot::new("Hidden truth and the agent's belief")
        .x_label("trial")
        .with(Line::new(hidden_name, t.clone(), hidden));
    let (bt, bv): (Vec<f64>, Vec<f64>) = recs
        .iter()
        .filter_map(|r| r.belief.map(|b| (r.trial as f64 + 1.0, b)))
        .unzip();
    if !bt.is_empty() {
        bottom.push(Scatter::new("agent's belief", bt, bv).color(Rgba::rgb(255, 127, 14)));
    }
    Figure::new("Trial trace")
        .grid(2, 1)
        .subplot(top.legend(true).y_range(-0.3, top_max + 0.9))
        .subplot(bottom.legend(true))
        .size_in(9.0, 6.5)
}
