//! Model selection in the fit tab: one click scores a small grid of fit settings (β_KL,
//! learning rate, flow width, τ) by the k-fold held-out predictive likelihood with restarts, in
//! the background, and applies the best. Finished points are kept with the project, so a
//! stopped or reopened selection resumes where it stopped.

use std::sync::Arc;

use benchtop_findr::selection::{Candidate, CandidateScore, SelectionGrid, best, select};
use benchtop_kit::host::Cx;
use benchtop_kit::task::{Series, Task};
use benchtop_kit::widgets::job_progress;

use super::{DataParams, FindrModel, FindrPanelParams, FindrParams, LoadedData, SavedResults};

/// What a selection's scores depend on: the fit settings it does not vary, the grid, the fit
/// seed and the data.
type SelectKey = (FindrParams, SelectionGrid, u64, DataParams);

/// The fit settings with the grid's axes (and what each point sets itself) blanked, so that
/// applying the best point does not make the scores stale.
fn key(params: &FindrPanelParams) -> SelectKey {
    let mut fit = Candidate {
        beta_kl: 0.0,
        learning_rate: 0.0,
        flow_width: 0,
        tau_s: 0.0,
    }
    .apply(&params.fit);
    fit.restarts = 0;
    fit.train.fold = 0;
    (
        fit,
        params.selection.clone(),
        params.fit_seed,
        params.data.clone(),
    )
}

/// The digest saved with the scores, to tell whether they belong to the current settings.
fn digest(key: &SelectKey) -> String {
    format!("{key:?}")
}

/// The model-selection task and the points scored so far.
pub(super) struct Selection {
    /// The selection run.
    pub(super) task: Task<SelectKey, Series<CandidateScore>, Vec<CandidateScore>>,
    /// Points scored by earlier runs (restored or stopped), with the digest of their key.
    earlier: Vec<CandidateScore>,
    earlier_key: String,
    /// The settings applied from the last finished selection, in words.
    applied: Option<String>,
}

impl Default for Selection {
    fn default() -> Self {
        Self {
            task: Task::new("findr: model selection"),
            earlier: Vec::new(),
            earlier_key: String::new(),
            applied: None,
        }
    }
}

impl Selection {
    /// Starts (or resumes) the selection on `data`; without trials it says so.
    pub(super) fn start_on(&mut self, cx: &mut Cx<'_, FindrModel>, data: Option<Arc<LoadedData>>) {
        match data {
            Some(data) => self.start(cx, data),
            None => self.task.refuse(
                &cx.runner,
                key(cx.params),
                "model selection needs trials: generate or load them first",
            ),
        }
    }

    /// The latest run's key digest and its scored points: the finished run's, or the earlier
    /// ones and those streamed since.
    fn collected(&self) -> (String, Vec<CandidateScore>) {
        let Some(current) = self.task.key().map(digest) else {
            return (self.earlier_key.clone(), self.earlier.clone());
        };
        if let Some(result) = self.task.result() {
            return (current, result.clone());
        }
        let mut scores = if self.earlier_key == current {
            self.earlier.clone()
        } else {
            Vec::new()
        };
        for score in &self.task.live().0 {
            if !scores.iter().any(|s| s.candidate == score.candidate) {
                scores.push(score.clone());
            }
        }
        (current, scores)
    }

    /// The points scored for the current settings.
    fn scores(&self, params: &FindrPanelParams) -> Vec<CandidateScore> {
        let (scored_for, scores) = self.collected();
        if scored_for == digest(&key(params)) {
            scores
        } else {
            Vec::new()
        }
    }

    /// Starts (or resumes) the selection on `data`.
    fn start(&mut self, cx: &mut Cx<'_, FindrModel>, data: Arc<LoadedData>) {
        let done = self.scores(cx.params);
        let current = key(cx.params);
        self.earlier_key = digest(&current);
        self.earlier.clone_from(&done);
        self.applied = None;
        self.task.clear();
        let (base, grid, seed) = (
            cx.params.fit.clone(),
            cx.params.selection.clone(),
            cx.params.fit_seed,
        );
        self.task.start(&cx.runner, current, move |job| {
            select(
                &data.trials,
                &base,
                &grid,
                seed,
                &done,
                &job.progress,
                &job.cancel,
                &mut |score| job.send(score.clone()),
            )
        });
    }

    /// Takes in scored points; when a selection finishes, applies its best point to `params`.
    pub(super) fn poll(&mut self, params: &mut FindrPanelParams) {
        if self.task.poll_result()
            && let Some(scores) = self.task.result()
            && self.task.key().is_some_and(|k| *k == key(params))
            && let Some(winner) = best(scores)
        {
            let candidate = winner.candidate;
            params.fit = candidate.apply(&params.fit);
            self.applied = Some(format!(
                "{} (mean predictive gain {:.4} nats per bin)",
                candidate.describe(),
                winner.mean_gain()
            ));
        }
    }

    /// The "Select model" controls and the table of scored points.
    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut Cx<'_, FindrModel>,
        data: Option<&Arc<LoadedData>>,
        ready: bool,
    ) {
        ui.strong("Model selection");
        let grid = &cx.params.selection;
        let points = grid.candidates().len();
        ui.label(format!(
            "{points} settings (β_KL {:?}, learning rate {:?}, H {:?}, τ {:?} s) × {} folds × {} \
             restarts = {} fits, scored by the held-out predictive likelihood; the best is \
             applied.",
            grid.beta_kl,
            grid.learning_rate,
            grid.flow_width,
            grid.tau_s,
            grid.folds,
            grid.restarts,
            points * grid.folds * grid.restarts
        ));
        if let Some(info) = self.task.info() {
            if job_progress(ui, info, "Stop selection") {
                self.task.stop();
            }
        } else {
            let scores = self.scores(cx.params);
            let label = if scores.is_empty() || scores.len() >= points {
                "Select model"
            } else {
                "Resume model selection"
            };
            if ui.add_enabled(ready, egui::Button::new(label)).clicked()
                && let Some(data) = data
            {
                self.start(cx, Arc::clone(data));
            }
        }
        if let Some(error) = self.task.error() {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        if let Some(applied) = &self.applied {
            ui.label(format!(
                "Applied the best settings: {applied}. Train to fit with them."
            ));
        }
        let scores = self.scores(cx.params);
        if scores.is_empty() {
            return;
        }
        let winner = best(&scores).map(|s| s.candidate);
        egui::Grid::new("findr selection")
            .striped(true)
            .show(ui, |ui| {
                for header in ["β_KL", "lr", "H", "τ (s)", "gain (nats/bin)", "supported"] {
                    ui.strong(header);
                }
                ui.end_row();
                for score in &scores {
                    let c = score.candidate;
                    let mark = if Some(c) == winner { " ★" } else { "" };
                    ui.label(format!("{}{mark}", c.beta_kl));
                    ui.label(c.learning_rate.to_string());
                    ui.label(c.flow_width.to_string());
                    ui.label(c.tau_s.to_string());
                    match &score.error {
                        Some(error) => ui.label(format!("failed: {error}")),
                        None => ui.label(format!("{:.4}", score.mean_gain())),
                    };
                    let supported = score.folds.iter().filter(|f| f.latent_supported).count();
                    ui.label(format!("{supported} of {} folds", score.folds.len()));
                    ui.end_row();
                }
            });
    }

    /// Keeps the scored points with the project.
    pub(super) fn save(&self, results: &mut SavedResults) {
        let (scored_for, scores) = self.collected();
        results.selection_key = if scores.is_empty() {
            String::new()
        } else {
            scored_for
        };
        results.selection = scores;
    }

    /// The points a saved project had scored.
    pub(super) fn restore(results: &SavedResults) -> Self {
        Self {
            earlier: results.selection.clone(),
            earlier_key: results.selection_key.clone(),
            ..Self::default()
        }
    }
}
