//! The model tab: AGE-GCN with its baselines under stratified cross-validation. Settings with
//! validation naming the key, Run / Stop, live training curves, the CV table, ROC curves,
//! brain age against chronological age with the fitted slopes, and ‖Φ_k‖₂ against k per λ.

use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_neurotree::cohort::Group;
use benchtop_neurotree::model::Architecture;
use benchtop_neurotree::pipeline::{NeuroTreeParams, RunEvent, run};
use benchtop_neurotree::result::NeuroTreeResult;
use benchtop_neurotree::train::EpochStats;

use super::explore::Pick;
use super::figures::{chance_line, level_color};
use super::tree_tab::{GroupBases, TreeBase};
use super::{DataParams, ENGINE, LoadedData, NeuroTreePanelParams};
use benchtop_kit::figure::{
    Figure, FigureViewState, Line, Marker, Rgba, Scale, Scatter, Subplot, show_figure,
};
use benchtop_kit::jobs::{Job, JobOutcome};
use benchtop_kit::panel::{DataTable, PanelContext, PanelFigure, ParamIssue};
use benchtop_kit::widgets::{job_progress, labelled};

/// The method the panel reports first.
pub(super) const AGE_GCN: &str = "AGE-GCN";

/// What a run was made from.
type RunInputs = (NeuroTreeParams, DataParams);

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

#[derive(Default)]
pub(super) struct ModelTab {
    job: Option<Job<Update, NeuroTreeResult>>,
    current: Option<RunInputs>,
    /// Epochs streamed by the running (or last) run.
    live: Vec<EpochUpdate>,
    stage: String,
    result: Option<NeuroTreeResult>,
    error: Option<String>,
    curves: FigureViewState,
    plots: FigureViewState,
}

/// The problems of the run settings, keyed by section.
pub(super) fn run_issues(run: &NeuroTreeParams) -> Vec<ParamIssue> {
    ParamIssue::from_result("params.run", run.validate())
        .into_iter()
        .collect()
}

fn inputs(params: &NeuroTreePanelParams) -> RunInputs {
    (params.run.clone(), params.data.clone())
}

impl ModelTab {
    pub(super) fn is_busy(&self) -> bool {
        self.job.is_some()
    }

    pub(super) fn result(&self) -> Option<&NeuroTreeResult> {
        self.result.as_ref()
    }

    pub(super) fn set_result(&mut self, result: Option<NeuroTreeResult>) {
        self.result = result;
    }

    pub(super) fn mark_current(&mut self, params: &NeuroTreePanelParams) {
        if self.result.is_some() {
            self.current = Some(inputs(params));
        }
    }

    fn start(
        &mut self,
        params: &NeuroTreePanelParams,
        data: Arc<LoadedData>,
        context: &PanelContext<'_>,
        ctx: &egui::Context,
    ) {
        self.job = None;
        self.current = Some(inputs(params));
        if let Err(error) = params.run.validate() {
            self.error = Some(error.to_string());
            return;
        }
        self.error = None;
        self.live.clear();
        self.result = None;
        let run_params = params.run.clone();
        let spawned = Job::spawn(
            "neurotree: cross-validation",
            context.jobs,
            Some(ctx.clone()),
            move |job| {
                run(
                    &data.dataset,
                    &run_params,
                    &job.progress,
                    &job.cancel,
                    &mut |event| job.send(to_update(event)),
                )
            },
        );
        match spawned {
            Ok(job) => self.job = Some(job),
            Err(error) => self.error = Some(error.to_string()),
        }
    }

    /// Collects streamed epochs and the result; true when a new result arrived.
    pub(super) fn poll(&mut self) -> bool {
        let Some(job) = &mut self.job else {
            return false;
        };
        let mut updates = job.drain_updates();
        let outcome = job.try_finish();
        if outcome.is_some() {
            updates.extend(job.drain_updates());
        }
        for update in updates {
            match update {
                Update::Stage(stage) => self.stage = stage,
                Update::Epoch(epoch) => self.live.push(epoch),
            }
        }
        let Some(outcome) = outcome else {
            return false;
        };
        self.job = None;
        match outcome {
            JobOutcome::Finished(result) => {
                self.result = Some(result);
                true
            }
            JobOutcome::Cancelled => false,
            JobOutcome::Failed(message) => {
                self.error = Some(message);
                false
            }
        }
    }

    /// Runs on the calling thread (headless runs and sweeps).
    pub(super) fn run_blocking(
        &mut self,
        params: &NeuroTreePanelParams,
        data: &LoadedData,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<(), ComputeError> {
        let result = run(&data.dataset, &params.run, progress, cancel, &mut |_| {})?;
        self.result = Some(result);
        self.current = Some(inputs(params));
        Ok(())
    }

    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut NeuroTreePanelParams,
        data: Option<&Arc<LoadedData>>,
        context: &PanelContext<'_>,
    ) {
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.set_width(320.0);
                egui::ScrollArea::vertical()
                    .id_salt("neurotree model controls")
                    .show(ui, |ui| self.controls_ui(ui, params, data, context));
            });
            ui.separator();
            ui.vertical(|ui| {
                if let Some(result) = &self.result {
                    cv_table(ui, result);
                    let figure = results_figure(result);
                    show_figure(ui, &figure, &mut self.plots);
                } else if self.live.is_empty() {
                    ui.label(
                        "Run the cross-validation to see the training curves, the CV table, ROC \
                         curves, brain age and the k-hop norms here.",
                    );
                } else {
                    let figure = curves_figure(&self.live);
                    show_figure(ui, &figure, &mut self.curves);
                }
            });
        });
    }

    fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut NeuroTreePanelParams,
        data: Option<&Arc<LoadedData>>,
        context: &PanelContext<'_>,
    ) {
        let r = &mut params.run;
        ui.strong("Model");
        ui.horizontal(|ui| {
            ui.label("Architecture");
            ui.selectable_value(
                &mut r.model.architecture,
                Architecture::AgeGcn,
                "Age-aware (AGE-GCN)",
            );
            ui.selectable_value(
                &mut r.model.architecture,
                Architecture::PlainGcn,
                "Plain GCN",
            );
        });
        labelled(
            ui,
            "Hidden size",
            egui::DragValue::new(&mut r.model.hidden).range(1..=1024),
        );
        labelled(
            ui,
            "Head hidden size",
            egui::DragValue::new(&mut r.model.head_hidden).range(1..=1024),
        );
        labelled(
            ui,
            "Dropout",
            egui::DragValue::new(&mut r.model.dropout)
                .speed(0.01)
                .range(0.0..=0.95),
        );
        labelled(
            ui,
            "CMFC weight",
            egui::DragValue::new(&mut r.model.cmfc_weight)
                .speed(0.01)
                .range(0.0..=100.0),
        );
        labelled(
            ui,
            "CMFC temperature",
            egui::DragValue::new(&mut r.model.cmfc_temperature)
                .speed(0.001)
                .range(0.001..=10.0),
        );
        ui.checkbox(&mut r.model.use_age, "Scale features by age");
        ui.strong("Training");
        labelled(
            ui,
            "Epochs",
            egui::DragValue::new(&mut r.train.epochs).range(1..=10_000),
        );
        labelled(
            ui,
            "Batch size",
            egui::DragValue::new(&mut r.train.batch_size).range(1..=1024),
        );
        labelled(
            ui,
            "Learning rate",
            egui::DragValue::new(&mut r.train.learning_rate)
                .speed(1e-4)
                .range(1e-6..=1.0),
        );
        labelled(
            ui,
            "Weight decay",
            egui::DragValue::new(&mut r.train.weight_decay)
                .speed(1e-6)
                .range(0.0..=1.0),
        );
        labelled(
            ui,
            "Folds",
            egui::DragValue::new(&mut r.folds).range(2..=20),
        );
        labelled(
            ui,
            "Time windows",
            egui::DragValue::new(&mut r.features.windows).range(1..=16),
        );
        ui.checkbox(
            &mut r.baselines,
            "Baselines (plain GCN, logistic regression)",
        );
        ui.checkbox(&mut r.brain_age, "Brain age (a regression model per fold)");
        labelled(ui, "Run seed", egui::DragValue::new(&mut r.seed));
        ui.strong("k-hop norms");
        let mut lambdas = r
            .khop
            .lambdas
            .iter()
            .map(f64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        if labelled(ui, "λ values", egui::TextEdit::singleline(&mut lambdas)).changed() {
            let parsed: Result<Vec<f64>, _> = lambdas
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::parse::<f64>)
                .collect();
            if let Ok(values) = parsed {
                r.khop.lambdas = values;
            }
        }
        labelled(
            ui,
            "Largest k",
            egui::DragValue::new(&mut r.khop.k_max).range(1..=500),
        );
        let issues = run_issues(&params.run);
        for issue in &issues {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("{}: {}", issue.key, issue.message),
            );
        }
        if let Some(job) = &self.job {
            ui.label(self.stage.as_str());
            if job_progress(ui, job.info(), "Stop") {
                job.cancel();
            }
        } else {
            let ready = data.is_some() && issues.is_empty();
            if ui.add_enabled(ready, egui::Button::new("Run")).clicked()
                && let Some(data) = data
            {
                self.start(params, Arc::clone(data), context, ui.ctx());
            }
            if data.is_none() {
                ui.label("Generate or load subjects in the Data tab first.");
            }
        }
        if self.result.is_some() && self.current.as_ref() != Some(&inputs(params)) {
            ui.label("The data or settings changed since this run.");
        }
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        if let Some(result) = &self.result {
            for note in &result.notes {
                ui.label(note.as_str());
            }
        }
    }

    pub(super) fn figures(&self, params: &NeuroTreePanelParams) -> Vec<PanelFigure> {
        let value = serde_json::to_value(&params.run).unwrap_or_default();
        let mut figures = Vec::new();
        if let Some(result) = &self.result {
            figures.push(PanelFigure {
                name: "neurotree-model".into(),
                figure: results_figure(result),
                params: value,
                seed: Some(params.run.seed),
                engine: ENGINE,
            });
        }
        figures
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let Some(result) = &self.result else {
            return Vec::new();
        };
        let mut tables = vec![metrics_table(result)];
        if let Some(age) = &result.brain_age {
            tables.push(DataTable {
                name: "neurotree-brain-age".into(),
                columns: ["chronological_years", "predicted_years", "patient"]
                    .map(String::from)
                    .to_vec(),
                rows: age
                    .chronological_years
                    .iter()
                    .zip(&age.predicted_years)
                    .zip(&age.group)
                    .map(|((c, p), g)| vec![*c, *p, f64::from(u8::from(*g == Group::Patient))])
                    .collect(),
            });
        }
        tables
    }

    /// Per method metrics, brain-age slopes and notes for summary.json.
    pub(super) fn summary(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut out = serde_json::Map::new();
        let Some(result) = &self.result else {
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
                #[allow(clippy::cast_precision_loss)]
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
                level_color(3),
                "controls",
            ),
            (
                Group::Patient,
                b.slope_patient,
                b.intercept_patient,
                level_color(1),
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
        #[allow(clippy::cast_precision_loss)]
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
    #[allow(clippy::cast_precision_loss)]
    DataTable {
        name: "neurotree-metrics".into(),
        columns: [
            "method_index",
            "auc_mean",
            "auc_std",
            "accuracy_mean",
            "accuracy_std",
            "precision_mean",
            "precision_std",
            "recall_mean",
            "recall_std",
        ]
        .map(String::from)
        .to_vec(),
        rows: result
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
            .collect(),
    }
}
