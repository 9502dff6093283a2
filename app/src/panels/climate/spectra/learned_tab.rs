//! The learned tab: two identical small CNN forecasters of a barotropic vorticity model on the
//! sphere, one trained with MSE and one with AMSE, evaluated at several lead times. The MSE
//! forecaster's spectrum decays with lead time (its effective resolution falls); the AMSE
//! forecaster keeps its amplitude — the paper's Fig. 3 in miniature.

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_spectra::forecast::{
    ForecastParams, ForecastResult, ForecastTrainer, LeadEvaluation, TrainingStep,
};

use super::figures::{
    AMSE, MSE, OTHER, TRUTH, describe_k, map_subplot, per_k_dashed, per_k_line, ratio_subplot,
    spectrum_subplot, symmetric_range, top_value,
};
use super::{ENGINE, SavedResults, SpectraParams, SpectraView};
use crate::figure::{
    Colormap, Figure, FigureViewState, Line, Marker, Scale, Scatter, Subplot, show_figure,
};
use crate::jobs::Job;
use crate::panels::{DataTable, PanelContext, PanelFigure, from_json, to_json};
use crate::project::Sidecar;
use crate::widgets::{job_progress, labelled};

/// Scalar columns of the training-history table.
const HISTORY_COLUMNS: [&str; 6] = [
    "step",
    "learning_rate",
    "mse_net_mse",
    "mse_net_amse",
    "amse_net_mse",
    "amse_net_amse",
];

#[allow(clippy::cast_precision_loss)]
fn history_row(step: &TrainingStep) -> Vec<f64> {
    vec![
        step.step as f64,
        step.learning_rate,
        step.mse_net_mse,
        step.mse_net_amse,
        step.amse_net_mse,
        step.amse_net_amse,
    ]
}

fn history_step(row: &[f64]) -> TrainingStep {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    TrainingStep {
        step: row[0] as usize,
        learning_rate: row[1],
        mse_net_mse: row[2],
        mse_net_amse: row[3],
        amse_net_mse: row[4],
        amse_net_amse: row[5],
        snapshot: None,
    }
}

#[derive(Default)]
pub(super) struct LearnedTab {
    job: Option<Job<TrainingStep, ForecastResult>>,
    current: Option<(ForecastParams, u64)>,
    history: Vec<TrainingStep>,
    /// The latest live spectra during training.
    snapshot: Option<LeadEvaluation>,
    result: Option<ForecastResult>,
    error: Option<String>,
    training_plot: FigureViewState,
    skill_plot: FigureViewState,
    maps_plot: FigureViewState,
}

/// Generates the data, trains both forecasters step by step (calling `step` after each) and
/// evaluates them. Data generation takes the first 15 % of the progress, evaluation the last 5 %.
fn train(
    params: &ForecastParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
    mut on_step: impl FnMut(TrainingStep),
) -> Result<ForecastResult, ComputeError> {
    let mut trainer = ForecastTrainer::new(params, seed, &progress.slice(0.0, 0.15), cancel)?;
    let training = progress.slice(0.15, 0.95);
    while !trainer.is_finished() {
        cancel.check()?;
        let step = trainer.step()?;
        #[allow(clippy::cast_precision_loss)]
        training.set(
            step.step as f64 / params.train_steps.max(1) as f64,
            format!(
                "step {}: MSE net {:.3e} (MSE), AMSE net {:.3e} (AMSE)",
                step.step, step.mse_net_mse, step.amse_net_amse
            ),
        );
        on_step(step);
    }
    progress.set(0.95, "evaluating on held-out trajectories");
    let result = trainer.evaluate(cancel)?;
    progress.set(1.0, "done");
    Ok(result)
}

impl LearnedTab {
    pub(super) fn is_busy(&self) -> bool {
        self.job.is_some()
    }

    pub(super) fn mark_current(&mut self, params: &SpectraParams) {
        if self.result.is_some() {
            self.current = Some((params.learned.clone(), params.learned_seed));
        }
    }

    fn start(&mut self, params: &SpectraParams, context: &PanelContext<'_>, ctx: &egui::Context) {
        self.job = None;
        self.current = Some((params.learned.clone(), params.learned_seed));
        if let Err(error) = params.learned.validate() {
            self.error = Some(error.to_string());
            return;
        }
        self.error = None;
        self.history.clear();
        self.snapshot = None;
        self.result = None;
        let (learned, seed) = (params.learned.clone(), params.learned_seed);
        let spawned = Job::spawn(
            "spectra: MSE vs AMSE forecasters",
            context.jobs,
            Some(ctx.clone()),
            move |job| train(&learned, seed, &job.progress, &job.cancel, |s| job.send(s)),
        );
        match spawned {
            Ok(job) => self.job = Some(job),
            Err(error) => self.error = Some(error.to_string()),
        }
    }

    fn absorb(&mut self, steps: Vec<TrainingStep>) {
        for mut step in steps {
            if let Some(snapshot) = step.snapshot.take() {
                self.snapshot = Some(snapshot);
            }
            self.history.push(step);
        }
    }

    pub(super) fn poll(&mut self) {
        if let Some(job) = &mut self.job {
            let steps = job.drain_updates();
            let outcome = job.try_finish();
            let late = if outcome.is_some() {
                job.drain_updates()
            } else {
                Vec::new()
            };
            self.absorb(steps);
            self.absorb(late);
            if let Some(outcome) = outcome {
                self.job = None;
                if let Some(result) = outcome.result_or_record(&mut self.error) {
                    self.result = Some(result);
                }
            }
        }
    }

    pub(super) fn train_blocking(
        &mut self,
        params: &SpectraParams,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<(), ComputeError> {
        self.history.clear();
        let mut steps = Vec::new();
        let result = train(
            &params.learned,
            params.learned_seed,
            progress,
            cancel,
            |s| {
                steps.push(s);
            },
        )?;
        self.absorb(steps);
        self.result = Some(result);
        self.current = Some((params.learned.clone(), params.learned_seed));
        Ok(())
    }

    pub(super) fn save(
        &self,
        results: &mut SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        if let Some(result) = &self.result {
            let mut stored = result.clone();
            // The history and the maps go to the sidecar.
            stored.history.clear();
            let maps = &mut stored.maps;
            if let Some(sidecar) = sidecar {
                let (nlat, nlon) = (maps.grid.nlat, maps.grid.nlon);
                let flat: Vec<f64> = [&maps.truth_per_s, &maps.mse_per_s, &maps.amse_per_s]
                    .into_iter()
                    .flatten()
                    .copied()
                    .collect();
                results.learned_maps_file =
                    Some(sidecar.write_f64("spectra-learned-maps", &[3, nlat, nlon], &flat)?);
            }
            for values in [
                &mut maps.truth_per_s,
                &mut maps.mse_per_s,
                &mut maps.amse_per_s,
            ] {
                values.clear();
            }
            results.learned = Some(to_json(&stored)?);
        }
        if let Some(sidecar) = sidecar
            && !self.history.is_empty()
        {
            let flat: Vec<f64> = self.history.iter().flat_map(history_row).collect();
            results.learned_history_file = Some(sidecar.write_f64(
                "spectra-learned-history",
                &[self.history.len(), HISTORY_COLUMNS.len()],
                &flat,
            )?);
        }
        Ok(())
    }

    pub(super) fn restore(
        &mut self,
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        if let (Some(sidecar), Some(file)) = (sidecar, &results.learned_history_file) {
            let (shape, values) = sidecar.read_f64(file)?;
            let columns = HISTORY_COLUMNS.len();
            anyhow::ensure!(
                shape.len() == 2 && shape[1] == columns,
                "{file}: expected {columns} columns, found shape {shape:?}"
            );
            self.history = values.chunks_exact(columns).map(history_step).collect();
        }
        let Some(value) = &results.learned else {
            return Ok(());
        };
        let mut result: ForecastResult = from_json(value)?;
        if let (Some(sidecar), Some(file)) = (sidecar, &results.learned_maps_file) {
            let maps = &mut result.maps;
            let (shape, values) = sidecar.read_f64(file)?;
            let (nlat, nlon) = (maps.grid.nlat, maps.grid.nlon);
            anyhow::ensure!(
                shape == [3, nlat, nlon],
                "{file}: expected a 3×{nlat}×{nlon} array, found {shape:?}"
            );
            let mut chunks = values.chunks_exact(nlat * nlon).map(<[f64]>::to_vec);
            let mut next = || chunks.next().unwrap_or_default();
            maps.truth_per_s = next();
            maps.mse_per_s = next();
            maps.amse_per_s = next();
        }
        result.history.clone_from(&self.history);
        self.result = Some(result);
        Ok(())
    }

    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut SpectraParams,
        view: &mut SpectraView,
        context: &PanelContext<'_>,
    ) {
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.set_width(300.0);
                egui::ScrollArea::vertical()
                    .id_salt("spectra learned controls")
                    .show(ui, |ui| self.controls_ui(ui, params, view, context));
            });
            ui.separator();
            ui.vertical(|ui| {
                if self.history.is_empty() && self.result.is_none() {
                    ui.label(
                        "Train the two forecasters to compare their spectra (a few minutes on a \
                         2-core CPU with the defaults).",
                    );
                    return;
                }
                let height = (ui.available_height() * 0.5).max(260.0);
                let figure = self.skill_figure(view.lead_index);
                ui.allocate_ui(egui::vec2(ui.available_width(), height), |ui| {
                    show_figure(ui, &figure, &mut self.skill_plot);
                });
                if let Some(result) = &self.result {
                    show_figure(ui, &maps_figure(result), &mut self.maps_plot);
                } else {
                    show_figure(ui, &training_figure(&self.history), &mut self.training_plot);
                }
            });
        });
    }

    fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut SpectraParams,
        view: &mut SpectraView,
        context: &PanelContext<'_>,
    ) {
        let f = &mut params.learned;
        ui.strong("Data: barotropic vorticity model");
        labelled(
            ui,
            "Truncation (largest k)",
            egui::DragValue::new(&mut f.model.lmax).range(7..=85),
        );
        labelled(
            ui,
            "Lead time per step (h)",
            egui::DragValue::new(&mut f.lead_h)
                .speed(1.0)
                .range(0.5..=48.0),
        );
        labelled(
            ui,
            "Training trajectories",
            egui::DragValue::new(&mut f.train_trajectories).range(1..=1000),
        );
        labelled(
            ui,
            "States per trajectory",
            egui::DragValue::new(&mut f.states_per_trajectory).range(2..=1000),
        );
        ui.strong("Forecasters");
        labelled(
            ui,
            "Hidden channels",
            egui::DragValue::new(&mut f.hidden_channels).range(1..=256),
        );
        labelled(
            ui,
            "Convolution layers",
            egui::DragValue::new(&mut f.layers).range(2..=32),
        );
        labelled(
            ui,
            "Training steps",
            egui::DragValue::new(&mut f.train_steps).range(1..=1_000_000),
        );
        labelled(
            ui,
            "Batch size",
            egui::DragValue::new(&mut f.batch_size).range(1..=1024),
        );
        labelled(
            ui,
            "Learning rate",
            egui::DragValue::new(&mut f.learning_rate)
                .speed(1e-4)
                .range(1e-6..=1.0),
        );
        labelled(
            ui,
            "Resolution searched from k ≥",
            egui::DragValue::new(&mut f.resolution_min_k).range(1..=85),
        );
        labelled(ui, "Seed", egui::DragValue::new(&mut params.learned_seed));
        if let Some(job) = &self.job {
            if job_progress(ui, job.info(), "Stop training") {
                job.cancel();
            }
        } else if ui.button("Train both forecasters").clicked() {
            self.start(params, context, ui.ctx());
        }
        if self.result.is_some()
            && self.current.as_ref() != Some(&(params.learned.clone(), params.learned_seed))
        {
            ui.label("The settings changed since this training.");
        }
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        if let Some(result) = &self.result {
            ui.separator();
            let count = result.leads.len();
            if count > 1 {
                ui.add(
                    egui::Slider::new(&mut view.lead_index, 0..=count - 1)
                        .text("Lead shown")
                        .custom_formatter(|i, _| {
                            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                            let index = i as usize;
                            result
                                .leads
                                .get(index)
                                .map_or_else(String::new, |lead| format!("{} h", lead.lead_h))
                        }),
                );
            }
            egui::Grid::new("spectra learned resolution")
                .striped(true)
                .show(ui, |ui| {
                    ui.strong("Lead");
                    ui.strong("MSE net");
                    ui.strong("AMSE net");
                    ui.end_row();
                    for lead in &result.leads {
                        ui.label(format!("{} h", lead.lead_h));
                        ui.label(describe_k(lead.mse.resolution.dissipation_k));
                        ui.label(describe_k(lead.amse.resolution.dissipation_k));
                        ui.end_row();
                    }
                });
            ui.label("Effective resolution: first k where R_k² ≤ 0.75.");
            ui.label(format!(
                "Searched from k = {}: below it the small networks' large-scale amplitudes \
                 wander for both losses alike.",
                params.learned.resolution_min_k
            ));
        }
    }

    /// Spectra and R_k/Coh_k at the chosen lead (or the latest live snapshot), with the
    /// effective resolution against lead time once evaluated.
    fn skill_figure(&self, lead_index: usize) -> Figure {
        let evaluation = self
            .result
            .as_ref()
            .and_then(|r| r.leads.get(lead_index.min(r.leads.len().saturating_sub(1))))
            .or(self.snapshot.as_ref());
        let mut figure = Figure::new(match evaluation {
            Some(e) if self.result.is_some() => format!("Held-out forecasts at {} h", e.lead_h),
            Some(e) => format!("Live: one-step forecasts ({} h) during training", e.lead_h),
            None => "Training…".to_owned(),
        });
        let mut count: usize = 0;
        if let Some(e) = evaluation {
            figure = figure
                .subplot(lead_psd_subplot(e))
                .subplot(lead_ratio_subplot(e));
            count += 2;
        }
        if let Some(result) = &self.result {
            figure = figure
                .subplot(resolution_subplot(result))
                .subplot(training_subplot(&self.history));
            count += 2;
        }
        let rows = count.div_ceil(2).max(1);
        #[allow(clippy::cast_precision_loss)]
        figure.grid(rows, 2).size_in(11.0, 4.0 * rows as f64)
    }

    pub(super) fn figures(&self, params: &SpectraParams) -> Vec<PanelFigure> {
        let Some(result) = &self.result else {
            return Vec::new();
        };
        let provenance = serde_json::to_value(&params.learned).unwrap_or_default();
        let figure = |name: &str, figure: Figure| PanelFigure {
            name: name.into(),
            figure,
            params: provenance.clone(),
            seed: Some(params.learned_seed),
            engine: ENGINE,
        };
        let longest = result.leads.len().saturating_sub(1);
        vec![
            figure("spectra-learned", self.skill_figure(longest)),
            figure("spectra-learned-maps", maps_figure(result)),
        ]
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let mut tables = Vec::new();
        if !self.history.is_empty() {
            tables.push(DataTable {
                name: "spectra-learned-history".into(),
                columns: HISTORY_COLUMNS.iter().map(|c| (*c).to_owned()).collect(),
                rows: self.history.iter().map(history_row).collect(),
            });
        }
        if let Some(result) = &self.result {
            let columns = [
                "lead_h",
                "k",
                "wavelength_km",
                "psd_truth",
                "psd_mse",
                "psd_amse",
                "ratio_mse",
                "ratio_amse",
                "coherence_mse",
                "coherence_amse",
            ];
            let mut rows = Vec::new();
            for lead in &result.leads {
                for (i, &k) in result.k.iter().enumerate() {
                    #[allow(clippy::cast_precision_loss)]
                    rows.push(vec![
                        lead.lead_h,
                        k as f64,
                        result.wavelength_km[i],
                        lead.psd_truth[i],
                        lead.mse.psd[i],
                        lead.amse.psd[i],
                        lead.mse.ratio[i],
                        lead.amse.ratio[i],
                        lead.mse.coherence[i],
                        lead.amse.coherence[i],
                    ]);
                }
            }
            tables.push(DataTable {
                name: "spectra-learned-skill".into(),
                columns: columns.iter().map(|c| (*c).to_owned()).collect(),
                rows,
            });
        }
        tables
    }

    pub(super) fn summary(&self, params: &SpectraParams) -> serde_json::Value {
        let Some(result) = &self.result else {
            return serde_json::Value::Null;
        };
        let leads: Vec<serde_json::Value> = result
            .leads
            .iter()
            .map(|lead| {
                serde_json::json!({
                    "lead_h": lead.lead_h,
                    "mse": {"resolution": lead.mse.resolution, "rmse": lead.mse.rmse},
                    "amse": {"resolution": lead.amse.resolution, "rmse": lead.amse.rmse},
                    "persistence": {"resolution": lead.persistence.resolution, "rmse": lead.persistence.rmse},
                })
            })
            .collect();
        serde_json::json!({
            "truncation": params.learned.model.lmax,
            "train_steps": params.learned.train_steps,
            "parameters": result.parameters,
            "training_pairs": result.training_pairs,
            "test_cases": result.test_cases,
            "leads": leads,
        })
    }
}

fn lead_psd_subplot(e: &LeadEvaluation) -> Subplot {
    let lmax = e.psd_truth.len().saturating_sub(1);
    let top = top_value([
        e.psd_truth.as_slice(),
        e.mse.psd.as_slice(),
        e.amse.psd.as_slice(),
    ]);
    spectrum_subplot(
        &format!("Power spectra at {} h", e.lead_h),
        "PSD_k (normalised vorticity)",
        lmax,
        top,
    )
    .with(per_k_line("Truth", &e.psd_truth, TRUTH))
    .with(per_k_line("MSE-trained", &e.mse.psd, MSE))
    .with(per_k_line("AMSE-trained", &e.amse.psd, AMSE))
}

fn lead_ratio_subplot(e: &LeadEvaluation) -> Subplot {
    ratio_subplot(
        &format!("Amplitude ratio and coherence at {} h", e.lead_h),
        "R_k, Coh_k",
    )
    .with(per_k_line("R_k, MSE-trained", &e.mse.ratio, MSE))
    .with(per_k_line("R_k, AMSE-trained", &e.amse.ratio, AMSE))
    .with(per_k_dashed("Coh_k, MSE-trained", &e.mse.coherence, MSE))
    .with(per_k_dashed("Coh_k, AMSE-trained", &e.amse.coherence, AMSE))
}

/// Effective resolution (km, R_k² ≤ 0.75) against lead time; a forecaster that never falls
/// below is drawn at the truncation's wavelength.
fn resolution_subplot(result: &ForecastResult) -> Subplot {
    let leads: Vec<f64> = result.leads.iter().map(|l| l.lead_h).collect();
    let truncation_km = result.wavelength_km.last().copied().unwrap_or(f64::NAN);
    let km = |pick: &dyn Fn(&LeadEvaluation) -> Option<f64>| -> Vec<f64> {
        result
            .leads
            .iter()
            .map(|l| pick(l).unwrap_or(truncation_km))
            .collect()
    };
    let mse = km(&|l| l.mse.resolution.dissipation_km);
    let amse = km(&|l| l.amse.resolution.dissipation_km);
    let persistence = km(&|l| l.persistence.resolution.dissipation_km);
    Subplot::new("Effective resolution against lead time")
        .x_label("Lead time (h)")
        .y_label("Effective resolution (km; lower is sharper)")
        .legend(true)
        .hline(truncation_km, "truncation")
        .with(Line::new("MSE-trained", leads.clone(), mse.clone()).color(MSE))
        .with(
            Scatter::new("", leads.clone(), mse)
                .color(MSE)
                .marker(Marker::Circle),
        )
        .with(Line::new("AMSE-trained", leads.clone(), amse.clone()).color(AMSE))
        .with(
            Scatter::new("", leads.clone(), amse)
                .color(AMSE)
                .marker(Marker::Circle),
        )
        .with(Line::new("Persistence", leads, persistence).color(OTHER))
}

fn training_subplot(history: &[TrainingStep]) -> Subplot {
    #[allow(clippy::cast_precision_loss)]
    let steps: Vec<f64> = history.iter().map(|s| s.step as f64).collect();
    let series = |pick: fn(&TrainingStep) -> f64| history.iter().map(pick).collect::<Vec<f64>>();
    Subplot::new("Training losses")
        .x_label("Step")
        .y_label("Loss (normalised vorticity)")
        .y_scale(Scale::Log10)
        .legend(true)
        .with(Line::new("MSE net: MSE", steps.clone(), series(|s| s.mse_net_mse)).color(MSE))
        .with(Line::new("AMSE net: AMSE", steps.clone(), series(|s| s.amse_net_amse)).color(AMSE))
        .with(
            Line::new("MSE net: AMSE", steps.clone(), series(|s| s.mse_net_amse))
                .color(MSE)
                .dash(crate::figure::Dash::Dashed),
        )
        .with(
            Line::new("AMSE net: MSE", steps, series(|s| s.amse_net_mse))
                .color(AMSE)
                .dash(crate::figure::Dash::Dashed),
        )
}

fn training_figure(history: &[TrainingStep]) -> Figure {
    Figure::new("Training")
        .size_in(8.0, 4.0)
        .subplot(training_subplot(history))
}

fn maps_figure(result: &ForecastResult) -> Figure {
    let maps = &result.maps;
    let range = symmetric_range([
        maps.truth_per_s.as_slice(),
        maps.mse_per_s.as_slice(),
        maps.amse_per_s.as_slice(),
    ]);
    let map = |title: &str, values: &[f64]| {
        map_subplot(
            title,
            &maps.grid,
            values,
            range,
            Colormap::RdBu,
            "vorticity (1/s)",
        )
    };
    Figure::new(format!(
        "Relative vorticity at {} h (held-out case)",
        maps.lead_h
    ))
    .grid(1, 3)
    .size_in(14.0, 3.6)
    .subplot(map("Barotropic model (truth)", &maps.truth_per_s))
    .subplot(map("MSE-trained forecaster", &maps.mse_per_s))
    .subplot(map("AMSE-trained forecaster", &maps.amse_per_s))
}
