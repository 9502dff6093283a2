//! The fit tab: model and training settings, Train / Stop, and the training curves streamed
//! epoch by epoch (train and validation NLL and KL, the learning rate and KL weight), with the
//! best epoch marked and the test NLL against the baseline alone.

use std::sync::Arc;

use benchtop_findr::result::{EpochRecord, FindrResult, stability_name};

use super::figures::{REFERENCE, TRAIN, VALIDATION};
use super::saved::{HISTORY_COLUMNS, history_row};
use super::selection::Selection;
use super::{
    DataParams, ENGINE, FindrModel, FindrPanelParams, FindrParams, LoadedData, SavedResults, saved,
};
use benchtop_kit::figure::{Dash, Figure, FigureViewState, Line, Scale, Subplot, show_figure};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{DataTable, PanelFigure, ParamIssue, Recipe};
use benchtop_kit::project::Sidecar;
use benchtop_kit::task::{Series, Task};
use benchtop_kit::widgets::{controls_and_view, job_progress};

/// What a fit is made from: its settings, its seed and the data's parameters.
type FitKey = (FindrParams, u64, DataParams);

fn key(params: &FindrPanelParams) -> FitKey {
    (params.fit.clone(), params.fit_seed, params.data.clone())
}

/// Training and analysing the model; the epochs stream in as they end.
pub(super) struct FitTab {
    pub(super) task: Task<FitKey, Series<EpochRecord>, FindrResult>,
    curves: FigureViewState,
}

impl Default for FitTab {
    fn default() -> Self {
        Self {
            task: Task::new("findr: training"),
            curves: FigureViewState::default(),
        }
    }
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
    /// The fit shown, if any.
    pub(super) fn result(&self) -> Option<&FindrResult> {
        self.task.result()
    }

    /// The training history: the epochs streamed so far, or those of the fit shown.
    fn history(&self) -> &[EpochRecord] {
        &self.task.live().0
    }

    /// Trains on `data` (the trials in use) with the current settings.
    pub(super) fn start(&mut self, cx: &mut Cx<'_, FindrModel>, data: Option<Arc<LoadedData>>) {
        let Some(data) = data else {
            self.task
                .refuse(&cx.runner, key(cx.params), "no trials to fit");
            return;
        };
        let (fit, seed) = (cx.params.fit.clone(), cx.params.fit_seed);
        self.task.clear();
        self.task.start(&cx.runner, key(cx.params), move |job| {
            benchtop_findr::pipeline::fit(
                &data.trials,
                data.truth.as_ref(),
                &fit,
                seed,
                &job.progress,
                &job.cancel,
                &mut |record| job.send(*record),
            )
        });
    }

    /// Takes in streamed epochs and the finished fit, whose history replaces the streamed one.
    pub(super) fn poll(&mut self) {
        if self.task.poll_result()
            && let Some(history) = self.task.result().map(|r| r.history.clone())
        {
            self.task.live_mut().0 = history;
        }
    }

    pub(super) fn save(
        &self,
        results: &mut SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        saved::save_fit(self.task.result(), self.history(), results, sidecar)
    }

    pub(super) fn restore(
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &FindrPanelParams,
    ) -> anyhow::Result<Self> {
        let mut tab = Self::default();
        let (history, result) = saved::restore_fit(results, sidecar)?;
        tab.task.live_mut().0 = history;
        if let Some(result) = result {
            tab.task.set_result(key(params), result);
        }
        Ok(tab)
    }

    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut Cx<'_, FindrModel>,
        data: Option<Arc<LoadedData>>,
        selection: &mut Selection,
    ) {
        controls_and_view(
            ui,
            "findr fit controls",
            300.0,
            &mut (self, cx, data, selection),
            |(tab, cx, data, selection), ui| tab.controls_ui(ui, cx, data.as_ref(), selection),
            |(tab, _, _, _), ui| {
                if tab.history().is_empty() {
                    ui.label(
                        "Train the model to see its training curves here, epoch by epoch; the \
                         flow field it learns is in the Flow tab.",
                    );
                    return;
                }
                let figure = curves_figure(tab.history(), tab.task.result());
                show_figure(ui, &figure, &mut tab.curves);
            },
        );
    }

    fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut Cx<'_, FindrModel>,
        data: Option<&Arc<LoadedData>>,
        selection: &mut Selection,
    ) {
        let bin_s = data.map_or_else(|| data_bin_s(&cx.params.data), |d| d.trials.bin_s);
        ui.strong("Model");
        cx.params(
            ui,
            &[
                "model.flow_width",
                "model.encoder_hidden",
                "fit.model.tau_s",
                "fit.model.noise_level",
            ],
        );
        ui.strong("Training");
        cx.params(
            ui,
            &[
                "train.max_epochs",
                "fit.train.batch_trials",
                "train.learning_rate",
                "fit.train.momentum",
                "fit.train.clip_norm",
                "fit.train.beta_kl",
                "fit.train.warmup_epochs",
                "fit.train.first_cycle_epochs",
                "fit.train.patience_epochs",
                "fit.train.predictive.observed_fraction",
                "fit.train.folds",
                "train.fold",
                "fit.seed",
                "fit.restarts",
            ],
        );
        let issues = fit_issues(&cx.params.fit, bin_s);
        for issue in &issues {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!("{}: {}", issue.key, issue.message),
            );
        }
        let ready = data.is_some() && issues.is_empty();
        if let Some(info) = self.task.info() {
            if job_progress(ui, info, "Stop training") {
                self.task.stop();
            }
        } else {
            if ui.add_enabled(ready, egui::Button::new("Train")).clicked() && data.is_some() {
                self.start(cx, data.cloned());
            }
            if data.is_none() {
                ui.label("Generate or load trials in the Data tab first.");
            }
        }
        self.task.status(ui, &key(cx.params));
        if let Some(result) = self.task.result() {
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
            ui.label(format!(
                "Held-out predictive NLL {:.5} nats/bin; baseline alone {:.5} (the flow \
                 predicts {:.5} ± {:.5} of the unseen spikes).",
                result.heldout_predictive_nll,
                result.heldout_predictive_nll_baseline_only,
                result.heldout_predictive_nll_baseline_only - result.heldout_predictive_nll,
                result.heldout_predictive_gain_se
            ));
            for reason in result.unsupported_reasons() {
                ui.colored_label(ui.visuals().warn_fg_color, format!("Note: {reason}."));
            }
        }
        ui.separator();
        selection.ui(ui, cx, data, ready);
    }

    pub(super) fn figures(&self, params: &FindrPanelParams) -> Vec<PanelFigure> {
        if self.history().is_empty() {
            return Vec::new();
        }
        let recipe = Recipe::new(ENGINE, &params.fit, Some(params.fit_seed));
        vec![recipe.figure(
            "findr-training",
            curves_figure(self.history(), self.task.result()),
        )]
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        if self.history().is_empty() {
            return Vec::new();
        }
        vec![DataTable::new(
            "findr-training",
            &HISTORY_COLUMNS,
            self.history().iter().map(history_row).collect(),
        )]
    }
}

/// NLL, KL and schedule against epoch, the best epoch marked.
pub(super) fn curves_figure(history: &[EpochRecord], result: Option<&FindrResult>) -> Figure {
    let epochs: Vec<f64> = history.iter().map(|r| r.epoch as f64).collect();
    let series = |pick: fn(&EpochRecord) -> f64| history.iter().map(pick).collect::<Vec<f64>>();
    let mut nll = Subplot::new("Poisson NLL per bin")
        .x_label("Epoch")
        .y_label("NLL (nats per bin)")
        .legend(true)
        .with(Line::new("train", epochs.clone(), series(|r| r.train_nll)).color(TRAIN))
        .with(
            Line::new("validation", epochs.clone(), series(|r| r.validation_nll)).color(VALIDATION),
        )
        .with(
            Line::new(
                "validation, predictive",
                epochs.clone(),
                series(|r| r.validation_predictive_nll),
            )
            .color(VALIDATION)
            .dash(Dash::Dashed),
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
    if let Some(result) = result {
        let best = result.best_epoch as f64;
        nll = nll
            .vline(best, format!("best epoch {}", result.best_epoch))
            .hline(result.test_nll, "test")
            .hline(result.test_nll_baseline_only, "test, baseline only")
            .hline(result.heldout_predictive_nll, "test, predictive");
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

/// The fit's key numbers for `summary.json`.
pub(super) fn summary(result: &FindrResult) -> serde_json::Value {
    let point = |p: &benchtop_findr::analysis::FixedPoint| {
        serde_json::json!({
            "z": p.z,
            "eigenvalues": [[p.eigenvalues[0].0, p.eigenvalues[0].1],
                            [p.eigenvalues[1].0, p.eigenvalues[1].1]],
            "stability": stability_name(p.stability),
        })
    };
    let points = |points: &[benchtop_findr::analysis::FixedPoint]| -> Vec<serde_json::Value> {
        points.iter().map(point).collect()
    };
    // The fit's own points carry how many of the restarts found them.
    let found: Vec<serde_json::Value> = result
        .fixed_points
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let mut value = point(p);
            if let (Some(object), Some(count)) =
                (value.as_object_mut(), result.fixed_point_support.get(k))
            {
                object.insert("found_by_fits".to_owned(), (*count).into());
            }
            value
        })
        .collect();
    let point_confirmed = result.points_confirmed();
    let planted = result.planted.as_ref();
    // The fixed points are findings only when the latent is supported and the restarts agree
    // on them; otherwise they go under their own keys, and the notes say why.
    let unsupported = result.unsupported_reasons();
    let supported = unsupported.is_empty();
    let unconfirmed = result.unconfirmed_reasons();
    let confirmed = supported && unconfirmed.is_empty();
    let notes: Vec<String> = unsupported.into_iter().chain(unconfirmed).collect();
    let pick = |wanted: bool| -> Vec<serde_json::Value> {
        found
            .iter()
            .zip(&point_confirmed)
            .filter(|(_, c)| **c == wanted)
            .map(|(p, _)| p.clone())
            .collect()
    };
    let missing: Vec<serde_json::Value> = result
        .missing_attractors
        .iter()
        .map(|m| serde_json::json!({"z": m.z, "found_by_other_fits": m.found_by}))
        .collect();
    serde_json::json!({
        "frame": format!("{:?}", result.frame),
        "latent_supported": supported,
        "structure_confirmed": confirmed,
        "kept_validation_kl": result.kept_validation_kl(),
        "notes": notes,
        // With a confirmed structure, a point few fits find (a loosely placed saddle) is
        // listed as unconfirmed on its own.
        "fixed_points": if confirmed { pick(true) } else { Vec::new() },
        "fixed_points_unconfirmed": match (supported, confirmed) {
            (true, true) => pick(false),
            (true, false) => found.clone(),
            (false, _) => Vec::new(),
        },
        "fixed_points_unsupported": if supported { Vec::new() } else { found },
        "attractors_missing_from_kept_fit": missing,
        "restart_agreement": result.restart_agreement,
        "sample_zone_eigenvalues": result.sample_zone_eigenvalues(),
        "zone_eigenvalues_by_fit": result.zone_eigenvalues_by_fit,
        "fixed_points_outside_sample_zone": result.fixed_points_outside_sample_zone,
        "fits": result.fits,
        "kept_fit": result.kept_fit,
        "planted_fixed_points": planted.map(|p| points(&p.planted_fixed_points)),
        "planted_attractors": planted.map(|p| p.planted_attractors),
        "attractor_errors": planted.map(|p| p.attractor_errors),
        "alignment_r2": planted.map(|p| p.alignment_r2),
        "test_nll": result.test_nll,
        "test_nll_baseline_only": result.test_nll_baseline_only,
        "heldout_predictive_nll": result.heldout_predictive_nll,
        "heldout_predictive_nll_baseline_only": result.heldout_predictive_nll_baseline_only,
        "heldout_predictive_gain_se": result.heldout_predictive_gain_se,
        "best_epoch": result.best_epoch,
        "epochs_run": result.history.len(),
        "stopped_early": result.stopped_early,
        "noise_sigma": result.noise_sigma,
    })
}
