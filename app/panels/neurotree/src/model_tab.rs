//! The model tab: AGE-GCN with its baselines under stratified cross-validation. Settings with
//! validation naming the key, Run / Stop, live training curves, the CV table, ROC curves,
//! brain age against chronological age with the fitted slopes, and ‖Φ_k‖₂ against k per λ.

use std::sync::Arc;

use benchtop_neurotree::cohort::Group;
use benchtop_neurotree::model::Architecture;
use benchtop_neurotree::pipeline::{NeuroTreeParams, RunEvent, run};
use benchtop_neurotree::result::NeuroTreeResult;
use benchtop_neurotree::train::EpochStats;

use super::explore::Pick;
use super::figures::{CONTROL_COLOR, PATIENT_COLOR, chance_line};
use super::tree_tab::{GroupBases, TreeBase};
use super::{DataParams, ENGINE, LoadedData, NeuroTreeModel, NeuroTreePanelParams};
use benchtop_kit::figure::{
    Figure, FigureViewState, Line, Marker, Rgba, Scale, Scatter, Subplot, show_figure,
};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{DataTable, PanelFigure, ParamIssue, Recipe, issues_of};
use benchtop_kit::task::{Live, Task};
use benchtop_kit::widgets::{controls_and_view, job_progress, labelled};

/// The method the panel reports first.
pub(super) const AGE_GCN: &str = "AGE-GCN";

/// What a run was made from: the run settings and the subjects' parameters.
pub(super) type RunKey = (NeuroTreeParams, DataParams);

/// One epoch streamed from a run: method, fold, statistics.
type EpochUpdate = (String, usize, EpochStats);

/// Updates streamed from a running job.
#[derive(Clone, Debug)]
pub(super) enum Update {
    /// A stage began.
    Stage(String),
    /// An epoch ended.
    Epoch(EpochUpdate),
}

/// What a run has streamed so far: its current stage and every epoch.
#[derive(Default)]
pub(super) struct Training {
    stage: String,
    epochs: Vec<EpochUpdate>,
}

impl Live for Training {
    type Update = Update;

    fn apply(&mut self, update: Update) {
        match update {
            Update::Stage(stage) => self.stage = stage,
            Update::Epoch(epoch) => self.epochs.push(epoch),
        }
    }
}

/// The cross-validated run of AGE-GCN and its baselines.
pub(super) struct ModelTab {
    pub(super) task: Task<RunKey, Training, NeuroTreeResult>,
    curves: FigureViewState,
    plots: FigureViewState,
}

impl Default for ModelTab {
    fn default() -> Self {
        Self {
            task: Task::new("neurotree: cross-validation"),
            curves: FigureViewState::default(),
            plots: FigureViewState::default(),
        }
    }
}

/// The problems of the run settings, keyed by section.
fn run_issues(run: &NeuroTreeParams) -> Vec<ParamIssue> {
    issues_of([("params.run", run.validate())])
}

pub(super) fn key(params: &NeuroTreePanelParams) -> RunKey {
    (params.run.clone(), params.data.clone())
}

impl ModelTab {
    pub(super) fn result(&self) -> Option<&NeuroTreeResult> {
        self.task.result()
    }

    /// Shows a saved result, made from `params`.
    pub(super) fn restore(&mut self, result: NeuroTreeResult, params: &NeuroTreePanelParams) {
        self.task.set_result(key(params), result);
    }

    /// Trains and evaluates the models on `data` (refused without subjects).
    pub(super) fn start(&mut self, cx: &mut Cx<'_, NeuroTreeModel>, data: Option<Arc<LoadedData>>) {
        let Some(data) = data else {
            self.task
                .refuse(&cx.runner, key(cx.params), "no subjects to train on");
            return;
        };
        let run_params = cx.params.run.clone();
        self.task.clear();
        self.task.start(&cx.runner, key(cx.params), move |job| {
            run(
                &data.dataset,
                &run_params,
                &job.progress,
                &job.cancel,
                &mut |event| job.send(to_update(event)),
            )
        });
    }

    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut Cx<'_, NeuroTreeModel>,
        data: Option<&Arc<LoadedData>>,
    ) {
        controls_and_view(
            ui,
            "neurotree model controls",
            320.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls_ui(ui, cx, data),
            |(tab, _), ui| tab.view_ui(ui),
        );
    }

    fn view_ui(&mut self, ui: &mut egui::Ui) {
        if let Some(result) = self.task.result() {
            cv_table(ui, result);
            let figure = results_figure(result);
            show_figure(ui, &figure, &mut self.plots);
        } else if self.task.live().epochs.is_empty() {
            ui.label(
                "Run the cross-validation to see the training curves, the CV table, ROC \
                 curves, brain age and the k-hop norms here.",
            );
        } else {
            let figure = curves_figure(&self.task.live().epochs);
            show_figure(ui, &figure, &mut self.curves);
        }
    }

    fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut Cx<'_, NeuroTreeModel>,
        data: Option<&Arc<LoadedData>>,
    ) {
        ui.strong("Model");
        let model = &mut cx.params.run.model;
        ui.horizontal(|ui| {
            ui.label("Architecture");
            ui.selectable_value(
                &mut model.architecture,
                Architecture::AgeGcn,
                "Age-aware (AGE-GCN)",
            );
            ui.selectable_value(&mut model.architecture, Architecture::PlainGcn, "Plain GCN");
        });
        cx.params(
            ui,
            &[
                "model.hidden",
                "run.model.head_hidden",
                "run.model.dropout",
                "run.model.cmfc_weight",
                "run.model.cmfc_temperature",
            ],
        );
        ui.checkbox(&mut cx.params.run.model.use_age, "Scale features by age");
        ui.strong("Training");
        cx.params(
            ui,
            &[
                "train.epochs",
                "run.train.batch_size",
                "train.learning_rate",
                "run.train.weight_decay",
                "run.folds",
                "run.features.windows",
            ],
        );
        let r = &mut cx.params.run;
        ui.checkbox(
            &mut r.baselines,
            "Baselines (plain GCN, logistic regression)",
        );
        ui.checkbox(&mut r.brain_age, "Brain age (a regression model per fold)");
        cx.param(ui, "run.seed");
        ui.strong("k-hop norms");
        lambdas_field(ui, &mut cx.params.run.khop.lambdas);
        cx.param(ui, "run.khop.k_max");
        let issues = run_issues(&cx.params.run);
        for issue in &issues {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("{}: {}", issue.key, issue.message),
            );
        }
        if let Some(info) = self.task.info() {
            ui.label(self.task.live().stage.as_str());
            if job_progress(ui, info, "Stop") {
                self.task.stop();
            }
        } else {
            let ready = data.is_some() && issues.is_empty();
            if ui.add_enabled(ready, egui::Button::new("Run")).clicked() {
                self.start(cx, data.cloned());
            }
            if data.is_none() {
                ui.label("Generate or load subjects in the Data tab first.");
            }
        }
        self.task.status(ui, &key(cx.params));
        if let Some(result) = self.task.result() {
            for note in &result.notes {
                ui.label(note.as_str());
            }
        }
    }

    pub(super) fn figures(&self, params: &NeuroTreePanelParams) -> Vec<PanelFigure> {
        let recipe = Recipe::new(ENGINE, &params.run, Some(params.run.seed));
        self.task
            .result()
            .map(|result| recipe.figure("neurotree-model", results_figure(result)))
            .into_iter()
            .collect()
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let Some(result) = self.task.result() else {
            return Vec::new();
        };
        let mut tables = vec![metrics_table(result)];
        if let Some(age) = &result.brain_age {
            tables.push(DataTable::new(
                "neurotree-brain-age",
                &["chronological_years", "predicted_years", "patient"],
                age.chronological_years
                    .iter()
                    .zip(&age.predicted_years)
                    .zip(&age.group)
                    .map(|((c, p), g)| vec![*c, *p, f64::from(u8::from(*g == Group::Patient))])
                    .collect(),
            ));
        }
        tables
    }

    /// Per method metrics, brain-age slopes and notes for summary.json.
    pub(super) fn summary(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut out = serde_json::Map::new();
        let Some(result) = self.task.result() else {
            return out;
        };
        let mut methods = serde_json::Map::new();
        for e in &result.evaluations {
            methods.insert(
                e.method.clone(),
                serde_json::json!({
                    "auc_mean": e.mean.auc,
                    "auc_std": e.std.auc,
                    "accuracy": e.mean.accuracy,
                    "precision": e.mean.precision,
                    "recall": e.mean.recall,
                }),
            );
        }
        out.insert("methods".into(), methods.into());
        if let Some(age) = &result.brain_age {
            out.insert("brain_age_slope_control".into(), age.slope_control.into());
            out.insert("brain_age_slope_patient".into(), age.slope_patient.into());
        }
        out
    }
}

/// The group trees of a result, for the tree explorer (model node scores).
pub(super) fn group_bases(result: &NeuroTreeResult) -> GroupBases {
    result
        .group_trees
        .iter()
        .map(|g| {
            let pick = g.group.map_or(Pick::AllSubjects, Pick::Group);
            let base = TreeBase {
                fc: g.mean_fc.clone(),
                tree: g.tree.clone(),
                scores: result.scores_from_model.then(|| g.node_scores.clone()),
            };
            (pick, base)
        })
        .collect()
}

fn to_update(event: &RunEvent) -> Update {
    match event {
        RunEvent::Stage(stage) => Update::Stage(stage.clone()),
        RunEvent::Epoch {
            method,
            fold,
            stats,
        } => Update::Epoch((method.clone(), *fold, stats.clone())),
    }
}

/// Colour of a method's curves.
fn method_color(index: usize) -> Rgba {
    Rgba::cycle(index)
}

/// Training loss per epoch, one line per method and fold.
fn curves_subplot(epochs: &[EpochUpdate]) -> Subplot {
    let mut subplot = Subplot::new("Training loss")
        .x_label("Epoch")
        .y_label("Loss")
        .legend(true);
    let mut keys: Vec<(String, usize)> = Vec::new();
    for (method, fold, _) in epochs {
        if !keys.iter().any(|(m, f)| m == method && f == fold) {
            keys.push((method.clone(), *fold));
        }
    }
    let mut methods: Vec<String> = Vec::new();
    for (method, fold) in &keys {
        if !methods.contains(method) {
            methods.push(method.clone());
        }
        let index = methods.iter().position(|m| m == method).unwrap_or(0);
        let (xs, ys): (Vec<f64>, Vec<f64>) = epochs
            .iter()
            .filter(|(m, f, _)| m == method && f == fold)
            .map(|(_, _, s)| {
                let x = s.epoch as f64;
                (x, s.loss)
            })
            .unzip();
        let name = if *fold == 0 {
            method.clone()
        } else {
            String::new()
        };
        subplot.push(Line::new(name, xs, ys).color(method_color(index)));
    }
    subplot
}

fn curves_figure(epochs: &[EpochUpdate]) -> Figure {
    Figure::new("Training (live)").subplot(curves_subplot(epochs))
}

/// ROC curves, brain age, k-hop norms and the AGE-GCN training curves.
fn results_figure(result: &NeuroTreeResult) -> Figure {
    let mut roc = Subplot::new("ROC (pooled out-of-fold)")
        .x_label("False positive rate")
        .y_label("True positive rate")
        .x_range(0.0, 1.0)
        .y_range(0.0, 1.0)
        .legend(true)
        .with(chance_line());
    for (i, e) in result.evaluations.iter().enumerate() {
        roc.push(
            Line::new(
                format!("{} (AUC {:.3})", e.method, e.mean.auc),
                e.roc.false_positive_rate.clone(),
                e.roc.true_positive_rate.clone(),
            )
            .color(method_color(i)),
        );
    }
    let mut age = Subplot::new("Brain age")
        .x_label("Chronological age (years)")
        .y_label("Predicted age (years)")
        .legend(true);
    if let Some(b) = &result.brain_age {
        let lo = b
            .chronological_years
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min);
        let hi = b
            .chronological_years
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        for (group, slope, intercept, color, name) in [
            (
                Group::Control,
                b.slope_control,
                b.intercept_control,
                CONTROL_COLOR,
                "controls",
            ),
            (
                Group::Patient,
                b.slope_patient,
                b.intercept_patient,
                PATIENT_COLOR,
                "patients",
            ),
        ] {
            let (xs, ys): (Vec<f64>, Vec<f64>) = b
                .chronological_years
                .iter()
                .zip(&b.predicted_years)
                .zip(&b.group)
                .filter(|(_, g)| **g == group)
                .map(|((c, p), _)| (*c, *p))
                .unzip();
            if xs.is_empty() {
                continue;
            }
            age.push(
                Scatter::new(name, xs, ys)
                    .color(color)
                    .marker(Marker::Circle)
                    .size_pt(3.0),
            );
            if lo.is_finite() && hi.is_finite() {
                age.push(
                    Line::new(
                        format!("{name}: slope {slope:.2}"),
                        vec![lo, hi],
                        vec![intercept + slope * lo, intercept + slope * hi],
                    )
                    .color(color),
                );
            }
        }
    }
    let mut khop = Subplot::new("‖Φ_k‖₂ against k")
        .x_label("k")
        .y_label("‖Φ_k‖₂")
        .y_scale(Scale::Log10)
        .legend(true);
    for (i, curve) in result.khop.iter().enumerate() {
        let ks: Vec<f64> = (1..=curve.norms.len()).map(|k| k as f64).collect();
        khop.push(
            Line::new(format!("λ = {}", curve.lambda), ks, curve.norms.clone())
                .color(method_color(i)),
        );
    }
    let live: Vec<EpochUpdate> = result
        .training_curves
        .iter()
        .enumerate()
        .flat_map(|(fold, stats)| {
            stats
                .iter()
                .map(move |s| (AGE_GCN.to_owned(), fold, s.clone()))
        })
        .collect();
    Figure::new("Classification, brain age and k-hop norms")
        .grid(2, 2)
        .size_in(12.0, 9.0)
        .subplot(roc)
        .subplot(age)
        .subplot(khop)
        .subplot(curves_subplot(&live).y_label("Loss (AGE-GCN, per fold)"))
}

/// method × (AUC, accuracy, precision, recall) as mean ± sd.
fn cv_table(ui: &mut egui::Ui, result: &NeuroTreeResult) {
    if result.evaluations.is_empty() {
        return;
    }
    egui::Grid::new("neurotree cv table")
        .striped(true)
        .show(ui, |ui| {
            for title in ["Method", "AUC", "Accuracy", "Precision", "Recall"] {
                ui.strong(title);
            }
            ui.end_row();
            for e in &result.evaluations {
                ui.label(e.method.as_str());
                for (mean, sd) in [
                    (e.mean.auc, e.std.auc),
                    (e.mean.accuracy, e.std.accuracy),
                    (e.mean.precision, e.std.precision),
                    (e.mean.recall, e.std.recall),
                ] {
                    ui.label(format!("{mean:.3} ± {sd:.3}"));
                }
                ui.end_row();
            }
        });
}

/// The CV metrics as a table: one row per method (index in the result) with means and sds.
fn metrics_table(result: &NeuroTreeResult) -> DataTable {
    let rows = result
        .evaluations
        .iter()
        .enumerate()
        .map(|(i, e)| {
            vec![
                i as f64,
                e.mean.auc,
                e.std.auc,
                e.mean.accuracy,
                e.std.accuracy,
                e.mean.precision,
                e.std.precision,
                e.mean.recall,
                e.std.recall,
            ]
        })
        .collect();
    DataTable::new(
        "neurotree-metrics",
        &[
            "method_index",
            "auc_mean",
            "auc_std",
            "accuracy_mean",
            "accuracy_std",
            "precision_mean",
            "precision_std",
            "recall_mean",
            "recall_std",
        ],
        rows,
    )
}

/// The comma-separated k-hop λ values; the list changes only when the text parses.
fn lambdas_field(ui: &mut egui::Ui, lambdas: &mut Vec<f64>) {
    let mut text = lambdas
        .iter()
        .map(f64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if labelled(ui, "λ values", egui::TextEdit::singleline(&mut text)).changed() {
        let parsed: Result<Vec<f64>, _> = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::parse::<f64>)
            .collect();
        if let Ok(values) = parsed {
            *lambdas = values;
        }
    }
}
