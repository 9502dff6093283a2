//! The Error vs n tab: every learner at each n of the curve at fixed n·M (M = n·M/n), over
//! repeats, with the trivial reference.

use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{DataTable, PanelFigure, Recipe, from_saved, to_saved};
use benchtop_kit::task::Task;
use benchtop_kit::widgets::controls_and_view;
use benchtop_quantum::experiment::{Curve, ExperimentParams, ScoreStats, curve};
use benchtop_quantum::learners::Learner;
use serde_json::json;

use super::figures::curve_figure;
use super::{ENGINE, QuantumModel, QuantumParams, SavedResults};

/// What the curve depends on: the experiment (its n set to the curve's first, no
/// randomisation test) and the seed.
type CurveKey = (ExperimentParams, u64);

fn key(params: &QuantumParams) -> CurveKey {
    let mut experiment = params.experiment();
    experiment.budget.train_samples = params.curve.n_min.max(4);
    experiment.randomisation = false;
    (experiment, params.seed)
}

/// The curve task.
pub(super) struct CurveTab {
    pub(super) task: Task<CurveKey, (), Curve>,
    plot: FigureViewState,
}

impl Default for CurveTab {
    fn default() -> Self {
        Self {
            task: Task::new("quantum: error against n at fixed n·M"),
            plot: FigureViewState::default(),
        }
    }
}

impl CurveTab {
    pub(super) fn start(&mut self, cx: &mut Cx<'_, QuantumModel>) {
        let (experiment, seed) = key(cx.params);
        self.task
            .start(&cx.runner, (experiment.clone(), seed), move |job| {
                curve(&experiment, seed, &job.progress, &job.cancel)
            });
    }

    pub(super) fn save(&self, results: &mut SavedResults) -> anyhow::Result<()> {
        results.curve = self.task.result().map(to_saved).transpose()?;
        Ok(())
    }

    pub(super) fn restore(results: &SavedResults, params: &QuantumParams) -> anyhow::Result<Self> {
        let mut tab = Self::default();
        if let Some(value) = &results.curve {
            tab.task.set_result(key(params), from_saved(value)?);
        }
        Ok(tab)
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, QuantumModel>) {
        controls_and_view(
            ui,
            "quantum curve controls",
            320.0,
            &mut (self, cx),
            |(tab, cx), ui| {
                ui.strong("n at fixed n·M");
                cx.params(
                    ui,
                    &[
                        "budget.total",
                        "curve.n_min",
                        "curve.n_max",
                        "curve.points",
                        "repeats",
                    ],
                );
                let ns = cx.params.curve.values(cx.params.budget.total);
                let pairs: Vec<String> = ns
                    .iter()
                    .map(|n| format!("{n}×{}", cx.params.budget.total / n))
                    .collect();
                ui.label(format!("n × M: {}", pairs.join(", ")));
                if tab
                    .task
                    .controls(ui, &key(cx.params), "Sweep n at fixed n·M", "Stop sweeping")
                {
                    tab.start(cx);
                }
                ui.label(
                    "Each repeat draws one pool of chains; every n trains on its first n with \
                     M = n·M/n fresh snapshots each, so the points differ only in how the \
                     budget is split.",
                );
            },
            |(tab, _), ui| match tab.task.result().map(curve_figure) {
                Some(figure) => show_figure(ui, &figure, &mut tab.plot),
                None => {
                    ui.label("Sweep n to see every learner's error against it.");
                }
            },
        );
    }

    pub(super) fn figures(&self, params: &QuantumParams) -> Vec<PanelFigure> {
        let recipe = Recipe::new(ENGINE, params, Some(params.seed));
        self.task
            .result()
            .map(|c| recipe.figure("quantum-error-vs-n", curve_figure(c)))
            .into_iter()
            .collect()
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let Some(result) = self.task.result() else {
            return Vec::new();
        };
        // One row per n and learner (index in Learner::ALL; 6 = trivial): means and sds.
        let mut rows = Vec::new();
        for point in &result.points {
            let mut push = |index: usize, s: ScoreStats| {
                rows.push(vec![
                    point.train_samples as f64,
                    point.snapshots as f64,
                    index as f64,
                    s.rmse_correlation.mean,
                    s.rmse_correlation.sd,
                    s.rmse_entropy.mean,
                    s.rmse_entropy.sd,
                    s.phase_accuracy.mean,
                    s.phase_accuracy.sd,
                ]);
            };
            for (index, method) in point.methods.iter().enumerate() {
                push(index, ScoreStats::of(&method.scores));
            }
            push(Learner::ALL.len(), ScoreStats::of(&point.trivial));
        }
        vec![DataTable::new(
            "quantum-error-vs-n",
            &[
                "n",
                "M",
                "learner",
                "rmse_correlation",
                "rmse_correlation_sd",
                "rmse_entropy",
                "rmse_entropy_sd",
                "phase_accuracy",
                "phase_accuracy_sd",
            ],
            rows,
        )]
    }

    /// `curve`: `total`, `n`, `M`, and per learner (and `trivial`) the mean of each metric at
    /// each n.
    pub(super) fn summary(&self) -> Option<serde_json::Value> {
        let result = self.task.result()?;
        let series = |get: &dyn Fn(&benchtop_quantum::experiment::CurvePoint) -> ScoreStats| {
            let stats: Vec<ScoreStats> = result.points.iter().map(get).collect();
            json!({
                "rmse_correlation": stats.iter().map(|s| s.rmse_correlation.mean).collect::<Vec<_>>(),
                "rmse_entropy": stats.iter().map(|s| s.rmse_entropy.mean).collect::<Vec<_>>(),
                "phase_accuracy": stats.iter().map(|s| s.phase_accuracy.mean).collect::<Vec<_>>(),
            })
        };
        let mut methods = serde_json::Map::new();
        for (index, learner) in Learner::ALL.iter().enumerate() {
            methods.insert(
                learner.key().to_owned(),
                series(&|p| {
                    p.methods
                        .get(index)
                        .map(|m| ScoreStats::of(&m.scores))
                        .unwrap_or_default()
                }),
            );
        }
        Some(json!({
            "total": result.total,
            "n": result.points.iter().map(|p| p.train_samples).collect::<Vec<_>>(),
            "M": result.points.iter().map(|p| p.snapshots).collect::<Vec<_>>(),
            "methods": methods,
            "trivial": series(&|p| ScoreStats::of(&p.trivial)),
        }))
    }
}
