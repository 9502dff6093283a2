//! The fit tab: model and training settings, Train / Stop, and the training curves streamed
//! epoch by epoch (train and validation NLL and KL, the learning rate and KL weight), with the
//! best epoch marked and the test NLL against the baseline alone.

use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_findr::analysis::Stability;
use benchtop_findr::result::{EpochRecord, FindrResult};

use super::figures::{REFERENCE, TRAIN, VALIDATION};
use super::saved::{HISTORY_COLUMNS, history_row};
use super::{
    DataParams, ENGINE, FindrPanelParams, FindrParams, LoadedData, SavedResults, engine, saved,
};
use benchtop_kit::figure::{Dash, Figure, FigureViewState, Line, Scale, Subplot, show_figure};
use benchtop_kit::jobs::{Job, JobOutcome};
use benchtop_kit::panel::{DataTable, PanelContext, PanelFigure, ParamIssue};
use benchtop_kit::project::Sidecar;
use benchtop_kit::widgets::{job_progress, labelled};

/// What a fit was made from: its settings, its seed and the data's parameters.
type FitInputs = (FindrParams, u64, DataParams);

#[derive(Default)]
pub(super) struct FitTab {
    job: Option<Job<EpochRecord, FindrResult>>,
    current: Option<FitInputs>,
    history: Vec<EpochRecord>,
    result: Option<FindrResult>,
    error: Option<String>,
    curves: FigureViewState,
}

/// The problems of the fit settings for data with bin width `bin_s`, keyed by section.
pub(super) fn fit_issues(fit: &FindrParams, bin_s: f64) -> Vec<ParamIssue> {
    let parts = [
        ParamIssue::from_result("params.fit.baseline", fit.baseline.validate()),
        ParamIssue::from_result("params.fit.model", fit.model.validate(bin_s)),
        ParamIssue::from_result("params.fit.train", fit.train.validate()),
    ];
    let mut issues: Vec<ParamIssue> = parts.into_iter().flatten().collect();
    if issues.is_empty()
        && let Some(issue) = ParamIssue::from_result("params.fit.analysis", fit.validate(bin_s))
    {
        issues.push(issue);
    }
    issues
}

/// The bin width the fit will see: the synthetic data's or the file's.
pub(super) fn data_bin_s(data: &DataParams) -> f64 {
    match data.source {
        super::DataSource::Synthetic => data.synthetic.bin_s,
        super::DataSource::File => data.file_bin_s,
    }
}

impl FitTab {
    pub(super) fn is_busy(&self) -> bool {
        self.job.is_some()
    }

    pub(super) fn result(&self) -> Option<&FindrResult> {
        self.result.as_ref()
    }

    pub(super) fn mark_current(&mut self, params: &FindrPanelParams) {
        if self.result.is_some() {
            self.current = Some(inputs(params));
        }
    }

    fn start(
        &mut self,
        params: &FindrPanelParams,
        data: Arc<LoadedData>,
        context: &PanelContext<'_>,
        ctx: &egui::Context,
    ) {
        self.job = None;
        self.current = Some(inputs(params));
        if let Err(error) = params.fit.validate(data.trials.bin_s) {
            self.error = Some(error.to_string());
            return;
        }
        self.error = None;
        self.history.clear();
        self.result = None;
        let (fit, seed) = (params.fit.clone(), params.fit_seed);
        let spawned = Job::spawn(
            "findr: training",
            context.jobs,
            Some(ctx.clone()),
            move |job| {
                engine::fit(
                    &data.trials,
                    data.truth.as_ref(),
                    &fit,
                    seed,
                    &job.progress,
                    &job.cancel,
                    &mut |record| job.send(*record),
                )
            },
        );
        match spawned {
            Ok(job) => self.job = Some(job),
            Err(error) => self.error = Some(error.to_string()),
        }
    }

    pub(super) fn poll(&mut self) {
        if let Some(job) = &mut self.job {
            let records = job.drain_updates();
            let outcome = job.try_finish();
            let late = if outcome.is_some() {
                job.drain_updates()
            } else {
                Vec::new()
            };
            self.history.extend(records);
            self.history.extend(late);
            if let Some(outcome) = outcome {
                self.job = None;
                match outcome {
                    JobOutcome::Finished(result) => {
                        self.history.clone_from(&result.history);
                        self.result = Some(result);
                    }
                    JobOutcome::Cancelled => {}
                    JobOutcome::Failed(message) => self.error = Some(message),
                }
            }
        }
    }

    /// Trains on the calling thread (headless runs).
    pub(super) fn train_blocking(
        &mut self,
        params: &FindrPanelParams,
        data: &LoadedData,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<(), ComputeError> {
        let result = engine::fit(
            &data.trials,
            data.truth.as_ref(),
            &params.fit,
            params.fit_seed,
            progress,
            cancel,
            &mut |_| {},
        )?;
        self.history.clone_from(&result.history);
        self.result = Some(result);
        self.current = Some(inputs(params));
        Ok(())
    }

    pub(super) fn save(
        &self,
        results: &mut SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        saved::save_fit(self.result.as_ref(), &self.history, results, sidecar)
    }

    pub(super) fn restore(
        &mut self,
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        let (history, result) = saved::restore_fit(results, sidecar)?;
        self.history = history;
        self.result = result;
        Ok(())
    }

    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut FindrPanelParams,
        data: Option<&Arc<LoadedData>>,
        context: &PanelContext<'_>,
    ) {
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.set_width(300.0);
                egui::ScrollArea::vertical()
                    .id_salt("findr fit controls")
                    .show(ui, |ui| self.controls_ui(ui, params, data, context));
            });
            ui.separator();
            ui.vertical(|ui| {
                if self.history.is_empty() {
                    ui.label(
                        "Train the model to see its training curves here, epoch by epoch; the \
                         flow field it learns is in the Flow tab.",
                    );
                    return;
                }
                let figure = curves_figure(&self.history, self.result.as_ref());
                show_figure(ui, &figure, &mut self.curves);
            });
        });
    }

    fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut FindrPanelParams,
        data: Option<&Arc<LoadedData>>,
        context: &PanelContext<'_>,
    ) {
        let bin_s = data.map_or_else(|| data_bin_s(&params.data), |d| d.trials.bin_s);
        let fit = &mut params.fit;
        ui.strong("Model");
        let m = &mut fit.model;
        labelled(
            ui,
            "Flow width H",
            egui::DragValue::new(&mut m.flow_width).range(1..=1024),
        );
        labelled(
            ui,
            "Encoder size (per direction)",
            egui::DragValue::new(&mut m.encoder_hidden).range(1..=1024),
        );
        labelled(
            ui,
            "Time constant τ (s)",
            egui::DragValue::new(&mut m.tau_s)
                .speed(0.001)
                .range(0.001..=10.0),
        );
        labelled(
            ui,
            "Noise level",
            egui::DragValue::new(&mut m.noise_level)
                .speed(0.01)
                .range(0.001..=10.0),
        );
        ui.strong("Training");
        let t = &mut fit.train;
        labelled(
            ui,
            "Largest number of epochs",
            egui::DragValue::new(&mut t.max_epochs).range(1..=100_000),
        );
        labelled(
            ui,
            "Trials per batch",
            egui::DragValue::new(&mut t.batch_trials).range(1..=10_000),
        );
        labelled(
            ui,
            "Learning rate",
            egui::DragValue::new(&mut t.learning_rate)
                .speed(1e-3)
                .range(1e-6..=10.0),
        );
        labelled(
            ui,
            "Momentum",
            egui::DragValue::new(&mut t.momentum)
                .speed(0.01)
                .range(0.0..=0.999),
        );
        labelled(
            ui,
            "Gradient clip (norm)",
            egui::DragValue::new(&mut t.clip_norm)
                .speed(0.1)
                .range(0.001..=1e6),
        );
        labelled(
            ui,
            "KL weight β",
            egui::DragValue::new(&mut t.beta_kl)
                .speed(0.1)
                .range(0.0..=100.0),
        );
        labelled(
            ui,
            "Warm-up (epochs)",
            egui::DragValue::new(&mut t.warmup_epochs).range(0..=100_000),
        );
        labelled(
            ui,
            "First cosine cycle (epochs)",
            egui::DragValue::new(&mut t.first_cycle_epochs).range(1..=100_000),
        );
        labelled(
            ui,
            "Early-stopping patience (epochs)",
            egui::DragValue::new(&mut t.patience_epochs).range(1..=100_000),
        );
        labelled(
            ui,
            "Folds",
            egui::DragValue::new(&mut t.folds).range(2..=100),
        );
        labelled(
            ui,
            "Test fold",
            egui::DragValue::new(&mut t.fold).range(0..=99),
        );
        labelled(ui, "Fit seed", egui::DragValue::new(&mut params.fit_seed));
        let issues = fit_issues(&params.fit, bin_s);
        for issue in &issues {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("{}: {}", issue.key, issue.message),
            );
        }
        if let Some(job) = &self.job {
            if job_progress(ui, job.info(), "Stop training") {
                job.cancel();
            }
        } else {
            let ready = data.is_some() && issues.is_empty();
            if ui.add_enabled(ready, egui::Button::new("Train")).clicked()
                && let Some(data) = data
            {
                self.start(params, Arc::clone(data), context, ui.ctx());
            }
            if data.is_none() {
                ui.label("Generate or load trials in the Data tab first.");
            }
        }
        if self.result.is_some() && self.current.as_ref() != Some(&inputs(params)) {
            ui.label("The data or settings changed since this training.");
        }
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        if let Some(result) = &self.result {
            ui.separator();
            ui.label(format!(
                "Best epoch {} of {}{}.",
                result.best_epoch,
                result.history.len(),
                if result.stopped_early {
                    " (stopped early)"
                } else {
                    ""
                }
            ));
            ui.label(format!(
                "Test NLL {:.5} nats/bin; baseline alone {:.5} (the latent explains {:.5}).",
                result.test_nll,
                result.test_nll_baseline_only,
                result.test_nll_baseline_only - result.test_nll
            ));
        }
    }

    pub(super) fn figures(&self, params: &FindrPanelParams) -> Vec<PanelFigure> {
        if self.history.is_empty() {
            return Vec::new();
        }
        vec![PanelFigure {
            name: "findr-training".into(),
            figure: curves_figure(&self.history, self.result.as_ref()),
            params: serde_json::to_value(&params.fit).unwrap_or_default(),
            seed: Some(params.fit_seed),
            engine: ENGINE,
        }]
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        if self.history.is_empty() {
            return Vec::new();
        }
        vec![DataTable {
            name: "findr-training".into(),
            columns: HISTORY_COLUMNS.iter().map(|c| (*c).to_owned()).collect(),
            rows: self.history.iter().map(history_row).collect(),
        }]
    }
}

fn inputs(params: &FindrPanelParams) -> FitInputs {
    (params.fit.clone(), params.fit_seed, params.data.clone())
}

/// NLL, KL and schedule against epoch, the best epoch marked.
pub(super) fn curves_figure(history: &[EpochRecord], result: Option<&FindrResult>) -> Figure {
    #[allow(clippy::cast_precision_loss)]
    let epochs: Vec<f64> = history.iter().map(|r| r.epoch as f64).collect();
    let series = |pick: fn(&EpochRecord) -> f64| history.iter().map(pick).collect::<Vec<f64>>();
    let mut nll = Subplot::new("Poisson NLL per bin")
        .x_label("Epoch")
        .y_label("NLL (nats per bin)")
        .legend(true)
        .with(Line::new("train", epochs.clone(), series(|r| r.train_nll)).color(TRAIN))
        .with(
            Line::new("validation", epochs.clone(), series(|r| r.validation_nll)).color(VALIDATION),
        );
    let mut kl = Subplot::new("Transition KL per bin")
        .x_label("Epoch")
        .y_label("KL (nats per bin)")
        .y_scale(Scale::Log10)
        .legend(true)
        .with(Line::new("train", epochs.clone(), series(|r| r.train_kl)).color(TRAIN))
        .with(
            Line::new("validation", epochs.clone(), series(|r| r.validation_kl)).color(VALIDATION),
        );
    let peak = |values: Vec<f64>| {
        let top = values.iter().copied().fold(0.0_f64, f64::max);
        if top > 0.0 {
            values.iter().map(|v| v / top).collect()
        } else {
            values
        }
    };
    let schedule = Subplot::new("Schedule")
        .x_label("Epoch")
        .y_label("Fraction of the largest value")
        .legend(true)
        .with(
            Line::new(
                "learning rate",
                epochs.clone(),
                peak(series(|r| r.learning_rate)),
            )
            .color(TRAIN),
        )
        .with(
            Line::new("KL weight", epochs, peak(series(|r| r.kl_weight)))
                .color(REFERENCE)
                .dash(Dash::Dashed),
        );
    #[allow(clippy::cast_precision_loss)]
    if let Some(result) = result {
        let best = result.best_epoch as f64;
        nll = nll
            .vline(best, format!("best epoch {}", result.best_epoch))
            .hline(result.test_nll, "test")
            .hline(result.test_nll_baseline_only, "test, baseline only");
        kl = kl.vline(best, "");
    }
    let title = match result {
        Some(r) => format!(
            "Training: best epoch {} of {}",
            r.best_epoch,
            r.history.len()
        ),
        None => format!("Training: epoch {}", history.len()),
    };
    Figure::new(title)
        .grid(1, 3)
        .size_in(14.0, 4.0)
        .subplot(nll)
        .subplot(kl)
        .subplot(schedule)
}

fn stability_name(stability: Stability) -> &'static str {
    match stability {
        Stability::Stable => "stable",
        Stability::Unstable => "unstable",
        Stability::Saddle => "saddle",
        Stability::Marginal => "marginal",
    }
}

/// The fit's key numbers for `summary.json`.
pub(super) fn summary(result: &FindrResult) -> serde_json::Value {
    let points = |points: &[benchtop_findr::analysis::FixedPoint]| -> Vec<serde_json::Value> {
        points
            .iter()
            .map(|p| {
                serde_json::json!({
                    "z": p.z,
                    "eigenvalues": [[p.eigenvalues[0].0, p.eigenvalues[0].1],
                                    [p.eigenvalues[1].0, p.eigenvalues[1].1]],
                    "stability": stability_name(p.stability),
                })
            })
            .collect()
    };
    let planted = result.planted.as_ref();
    serde_json::json!({
        "frame": format!("{:?}", result.frame),
        "fixed_points": points(&result.fixed_points),
        "fixed_points_outside_sample_zone": result.fixed_points_outside_sample_zone,
        "planted_fixed_points": planted.map(|p| points(&p.planted_fixed_points)),
        "planted_attractors": planted.map(|p| p.planted_attractors),
        "attractor_errors": planted.map(|p| p.attractor_errors),
        "alignment_r2": planted.map(|p| p.alignment_r2),
        "test_nll": result.test_nll,
        "test_nll_baseline_only": result.test_nll_baseline_only,
        "best_epoch": result.best_epoch,
        "epochs_run": result.history.len(),
        "stopped_early": result.stopped_early,
        "noise_sigma": result.noise_sigma,
    })
}
