//! The tabs that draw the Budget tab's comparison: one held-out chain's correlation matrix,
//! the TFIM phase diagram, and the randomisation test's before/after bars.

use benchtop_kit::figure::{Figure, FigureViewState, show_figure};
use benchtop_kit::host::Cx;
use benchtop_quantum::experiment::{Comparison, ScoreStats};
use benchtop_quantum::learners::Learner;

use super::QuantumModel;
use super::budget_tab::{BudgetTab, key};
use super::figures::{correlation_figure, phase_figure, randomisation_figure};

/// Figure view states of the three tabs.
#[derive(Default)]
pub(super) struct ResultsViews {
    correlations: FigureViewState,
    phases: FigureViewState,
    randomisation: FigureViewState,
}

/// The comparison's controls shared by the three tabs: the learner shown, the button.
fn header(
    ui: &mut egui::Ui,
    cx: &mut Cx<'_, QuantumModel>,
    budget: &mut BudgetTab,
    choose_learner: bool,
) {
    ui.horizontal(|ui| {
        if choose_learner {
            ui.label("Predictions of");
            for learner in Learner::ALL {
                ui.selectable_value(&mut cx.view.learner, learner, learner.label());
            }
        }
    });
    if budget
        .task
        .controls(ui, &key(cx.params), "Train every learner", "Stop training")
    {
        budget.start(cx);
    }
}

fn show(
    ui: &mut egui::Ui,
    result: Option<&Comparison>,
    state: &mut FigureViewState,
    make: impl Fn(&Comparison) -> Option<Figure>,
) {
    match result.and_then(make) {
        Some(figure) => show_figure(ui, &figure, state),
        None => {
            ui.label("Train every learner (here or on the Budget tab) to see this.");
        }
    }
}

/// A view of one learner's predictions: the header with the learner choice, then `figure`
/// of the budget comparison for that learner.
fn learner_view(
    ui: &mut egui::Ui,
    cx: &mut Cx<'_, QuantumModel>,
    budget: &mut BudgetTab,
    state: &mut FigureViewState,
    figure: fn(&Comparison, Learner) -> Figure,
) {
    header(ui, cx, budget, true);
    let learner = cx.view.learner;
    show(ui, budget.result(), state, |c| Some(figure(c, learner)));
}

impl ResultsViews {
    /// The Correlations tab: one held-out chain, truth against the chosen learner.
    pub(super) fn correlations_ui(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut Cx<'_, QuantumModel>,
        budget: &mut BudgetTab,
    ) {
        learner_view(ui, cx, budget, &mut self.correlations, correlation_figure);
    }

    /// The Phases tab: predicted against exact TFIM phases for the chosen learner.
    pub(super) fn phases_ui(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut Cx<'_, QuantumModel>,
        budget: &mut BudgetTab,
    ) {
        learner_view(ui, cx, budget, &mut self.phases, phase_figure);
    }

    pub(super) fn randomisation_ui(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut Cx<'_, QuantumModel>,
        budget: &mut BudgetTab,
    ) {
        ui.checkbox(
            &mut cx.params.randomisation,
            "Randomisation test (shuffle the measurement inputs and retrain)",
        );
        header(ui, cx, budget, false);
        if let Some(result) = budget.result() {
            if result.randomisation.is_empty() {
                ui.label(
                    "No learner saw measurement inputs, or the test was off: let a family see \
                     shadows (Budget tab) and train again.",
                );
            } else {
                for r in &result.randomisation {
                    let (before, after) = (ScoreStats::of(&r.before), ScoreStats::of(&r.after));
                    ui.label(format!(
                        "{}: RMSE C {:.4} → {:.4}, RMSE S₂ {:.3} → {:.3}, phase accuracy {:.3} → {:.3}",
                        r.learner.label(),
                        before.rmse_correlation.mean,
                        after.rmse_correlation.mean,
                        before.rmse_entropy.mean,
                        after.rmse_entropy.mean,
                        before.phase_accuracy.mean,
                        after.phase_accuracy.mean,
                    ));
                }
            }
        }
        show(ui, budget.result(), &mut self.randomisation, |c| {
            (!c.randomisation.is_empty()).then(|| randomisation_figure(c))
        });
    }
}
