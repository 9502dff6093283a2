//! The Budget tab: the slider that trades n chains against M snapshots at fixed n·M, the
//! comparison of every learner at that budget over repeats (with the trivial reference and the
//! randomisation test), and its part of summary.json.

use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{DataTable, PanelFigure, Recipe, from_saved, to_saved};
use benchtop_kit::task::Task;
use benchtop_kit::widgets::controls_and_view;
use benchtop_quantum::experiment::{
    Comparison, CurveParams, ExperimentParams, ScoreStats, compare,
};
use benchtop_quantum::hamiltonian::{Boundary, Model};
use benchtop_quantum::learners::{Inputs, Learner};
use serde_json::json;

use super::figures::{budget_figure, correlation_figure, phase_figure, randomisation_figure};
use super::{ENGINE, QuantumModel, QuantumParams, QuantumView, SavedResults};

/// What a comparison depends on: the experiment without the curve's n values, and the seed.
pub(super) type CompareKey = (ExperimentParams, u64);

pub(super) fn key(params: &QuantumParams) -> CompareKey {
    let experiment = ExperimentParams {
        curve: CurveParams::default(),
        ..params.experiment()
    };
    (experiment, params.seed)
}

/// The comparison task.
pub(super) struct BudgetTab {
    pub(super) task: Task<CompareKey, (), Comparison>,
    plot: FigureViewState,
}

impl Default for BudgetTab {
    fn default() -> Self {
        Self {
            task: Task::new("quantum: every learner at one budget"),
            plot: FigureViewState::default(),
        }
    }
}

/// The chains' and inputs' choices that are not numbers, drawn as buttons.
pub(super) fn choices_ui(ui: &mut egui::Ui, params: &mut QuantumParams) {
    ui.horizontal(|ui| {
        ui.label("Properties of");
        let model = &mut params.system.property_model;
        ui.selectable_value(model, Model::Heisenberg, "Heisenberg")
            .on_hover_text("Correlations and entropies of random-bond Heisenberg chains H = Σ J_b S_i·S_j.");
        ui.selectable_value(model, Model::Tfim, "TFIM")
            .on_hover_text("Correlations and entropies of transverse-field Ising chains H = −Σ J_b Z_iZ_j − Σ h_i X_i.");
    });
    ui.horizontal(|ui| {
        let boundary = &mut params.system.boundary;
        ui.selectable_value(boundary, Boundary::Open, "Open chain");
        ui.selectable_value(boundary, Boundary::Periodic, "Periodic ring");
    });
    ui.checkbox(
        &mut params.system.uniform_field,
        "One TFIM field for every site",
    )
    .on_hover_text("Uniform h (one draw per chain); off: an independent h_i per site.");
    for (label, inputs, who) in [
        (
            "Classical learners see",
            &mut params.ml_inputs,
            "ridge, Lasso, kernels",
        ),
        ("Networks see", &mut params.dl_inputs, "MLP, CNN"),
    ] {
        ui.horizontal(|ui| {
            ui.label(label);
            ui.selectable_value(inputs, Inputs::Parameters, "J, h")
                .on_hover_text(format!(
                    "The {who} get the Hamiltonian's couplings and fields only."
                ));
            ui.selectable_value(inputs, Inputs::ParametersAndShadows, "J, h and shadows")
                .on_hover_text(format!(
                    "The {who} also get each chain's shadow estimates of ⟨X_i⟩, ⟨Y_i⟩, ⟨Z_i⟩ \
                     and of ⟨XX⟩, ⟨YY⟩, ⟨ZZ⟩ on every bond, from its M snapshots."
                ));
        });
    }
}

impl BudgetTab {
    pub(super) fn start(&mut self, cx: &mut Cx<'_, QuantumModel>) {
        let (experiment, seed) = key(cx.params);
        self.task
            .start(&cx.runner, (experiment.clone(), seed), move |job| {
                compare(&experiment, seed, &job.progress, &job.cancel)
            });
    }

    pub(super) fn save(&self, results: &mut SavedResults) -> anyhow::Result<()> {
        results.comparison = self.task.result().map(to_saved).transpose()?;
        Ok(())
    }

    pub(super) fn restore(results: &SavedResults, params: &QuantumParams) -> anyhow::Result<Self> {
        let mut tab = Self::default();
        if let Some(value) = &results.comparison {
            tab.task.set_result(key(params), from_saved(value)?);
        }
        Ok(tab)
    }

    /// The comparison, once computed.
    pub(super) fn result(&self) -> Option<&Comparison> {
        self.task.result()
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, QuantumModel>) {
        controls_and_view(
            ui,
            "quantum budget controls",
            340.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls_ui(ui, cx),
            |(tab, _), ui| match tab.task.result().map(budget_figure) {
                Some(figure) => show_figure(ui, &figure, &mut tab.plot),
                None => {
                    ui.label("Train every learner to compare them at this budget.");
                }
            },
        );
    }

    fn controls_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, QuantumModel>) {
        ui.strong("Budget n·M");
        cx.params(ui, &["budget.total", "budget.train_samples"]);
        let budget = &cx.params.budget;
        ui.label(format!(
            "M = ⌊{} / {}⌋ = {} snapshots per chain",
            budget.total,
            budget.train_samples,
            budget.snapshots()
        ));
        cx.params(ui, &["budget.test_samples", "repeats"]);
        ui.checkbox(
            &mut cx.params.randomisation,
            "Randomisation test (shuffle the measurement inputs and retrain)",
        );
        if self
            .task
            .controls(ui, &key(cx.params), "Train every learner", "Stop training")
        {
            self.start(cx);
        }
        if let Some(result) = self.task.result() {
            ui.separator();
            scores_ui(ui, result);
        }
        ui.separator();
        ui.strong("Chains");
        cx.params(
            ui,
            &[
                "system.sites",
                "system.j_max",
                "system.h_max",
                "system.block",
            ],
        );
        choices_ui(ui, cx.params);
        ui.separator();
        ui.collapsing("Learners", |ui| {
            cx.params(
                ui,
                &[
                    "learners.folds",
                    "learners.hidden",
                    "learners.channels",
                    "learners.max_epochs",
                    "learners.patience",
                    "learners.learning_rate",
                    "learners.weight_decay",
                    "learners.validation_fraction",
                    "seed",
                ],
            );
        });
    }

    pub(super) fn figures(&self, params: &QuantumParams, view: &QuantumView) -> Vec<PanelFigure> {
        let Some(result) = self.task.result() else {
            return Vec::new();
        };
        let recipe = Recipe::new(ENGINE, params, Some(params.seed));
        let mut figures = vec![
            recipe.figure("quantum-budget", budget_figure(result)),
            recipe.figure(
                "quantum-correlations",
                correlation_figure(result, view.learner),
            ),
            recipe.figure("quantum-phases", phase_figure(result, view.learner)),
        ];
        if !result.randomisation.is_empty() {
            figures.push(recipe.figure("quantum-randomisation", randomisation_figure(result)));
        }
        figures
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let Some(result) = self.task.result() else {
            return Vec::new();
        };
        // One row per learner (index in Learner::ALL; 6 = trivial) and repeat.
        let mut rows = Vec::new();
        for (index, method) in result.methods.iter().enumerate() {
            for (repeat, s) in method.scores.iter().enumerate() {
                rows.push(vec![
                    index as f64,
                    repeat as f64,
                    s.rmse_correlation,
                    s.rmse_entropy,
                    s.phase_accuracy,
                    s.seconds,
                ]);
            }
        }
        for (repeat, s) in result.trivial.iter().enumerate() {
            rows.push(vec![
                Learner::ALL.len() as f64,
                repeat as f64,
                s.rmse_correlation,
                s.rmse_entropy,
                s.phase_accuracy,
                s.seconds,
            ]);
        }
        vec![DataTable::new(
            "quantum-budget-scores",
            &[
                "learner",
                "repeat",
                "rmse_correlation",
                "rmse_entropy",
                "phase_accuracy",
                "seconds",
            ],
            rows,
        )]
    }

    /// The comparison's part of summary.json: `budget`, `methods`, `trivial`,
    /// `randomisation_test`, `classical_vs_deep`, `sites`, `repeats`.
    pub(super) fn summary(&self, params: &QuantumParams) -> Option<serde_json::Value> {
        let result = self.task.result()?;
        let mut methods = serde_json::Map::new();
        for method in &result.methods {
            methods.insert(
                method.learner.key().to_owned(),
                stats_json(&ScoreStats::of(&method.scores), true),
            );
        }
        let mut randomisation = serde_json::Map::new();
        for r in &result.randomisation {
            randomisation.insert(
                r.learner.key().to_owned(),
                json!({
                    "before": stats_json(&ScoreStats::of(&r.before), false),
                    "after": stats_json(&ScoreStats::of(&r.after), false),
                }),
            );
        }
        Some(json!({
            "budget": {"n": result.train_samples, "M": result.snapshots, "total": params.budget.total},
            "sites": params.system.sites,
            "repeats": result.trivial.len(),
            "critical_order": result.critical_order,
            "methods": methods,
            "trivial": stats_json(&ScoreStats::of(&result.trivial), false),
            "randomisation_test": randomisation,
            "classical_vs_deep": classical_vs_deep(result),
        }))
    }
}

/// A learner's four numbers (mean over repeats) and their spread (`_sd`).
fn stats_json(stats: &ScoreStats, seconds: bool) -> serde_json::Value {
    let mut out = json!({
        "rmse_correlation": stats.rmse_correlation.mean,
        "rmse_entropy": stats.rmse_entropy.mean,
        "phase_accuracy": stats.phase_accuracy.mean,
        "rmse_correlation_sd": stats.rmse_correlation.sd,
        "rmse_entropy_sd": stats.rmse_entropy.sd,
        "phase_accuracy_sd": stats.phase_accuracy.sd,
    });
    if seconds {
        out["seconds"] = json!(stats.seconds.mean);
    }
    out
}

/// The best classical and the best deep learner on each metric (lowest RMSE, highest
/// accuracy), by mean over repeats.
fn classical_vs_deep(result: &Comparison) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for (metric, get, lower) in [
        (
            "rmse_correlation",
            (|s: &ScoreStats| s.rmse_correlation.mean) as fn(&ScoreStats) -> f64,
            true,
        ),
        ("rmse_entropy", |s| s.rmse_entropy.mean, true),
        ("phase_accuracy", |s| s.phase_accuracy.mean, false),
    ] {
        let best = |deep: bool| {
            result
                .methods
                .iter()
                .filter(|m| m.learner.is_deep() == deep)
                .map(|m| (m.learner, get(&ScoreStats::of(&m.scores))))
                .fold(None, |best: Option<(Learner, f64)>, (l, v)| match best {
                    Some((_, b)) if (lower && b <= v) || (!lower && b >= v) => best,
                    _ => Some((l, v)),
                })
        };
        if let (Some((cl, cv)), Some((dl, dv))) = (best(false), best(true)) {
            let classical_wins = if lower { cv <= dv } else { cv >= dv };
            out.insert(
                metric.to_owned(),
                json!({
                    "best_classical": cl.key(), "best_classical_value": cv,
                    "best_deep": dl.key(), "best_deep_value": dv,
                    "classical_matches_or_beats_deep": classical_wins,
                }),
            );
        }
    }
    serde_json::Value::Object(out)
}

/// The table of every learner's mean ± sd.
fn scores_ui(ui: &mut egui::Ui, result: &Comparison) {
    ui.strong(format!(
        "Held-out errors at n = {}, M = {}",
        result.train_samples, result.snapshots
    ));
    egui::Grid::new("quantum scores")
        .striped(true)
        .show(ui, |ui| {
            ui.label("Learner");
            ui.label("RMSE C");
            ui.label("RMSE S₂");
            ui.label("Phase acc.");
            ui.end_row();
            let row = |ui: &mut egui::Ui, name: &str, s: &ScoreStats| {
                ui.label(name);
                ui.label(format!(
                    "{:.4} ± {:.4}",
                    s.rmse_correlation.mean, s.rmse_correlation.sd
                ));
                ui.label(format!(
                    "{:.3} ± {:.3}",
                    s.rmse_entropy.mean, s.rmse_entropy.sd
                ));
                ui.label(format!(
                    "{:.3} ± {:.3}",
                    s.phase_accuracy.mean, s.phase_accuracy.sd
                ));
                ui.end_row();
            };
            for method in &result.methods {
                row(ui, method.learner.label(), &ScoreStats::of(&method.scores));
            }
            row(
                ui,
                "Trivial (training mean)",
                &ScoreStats::of(&result.trivial),
            );
        });
}
