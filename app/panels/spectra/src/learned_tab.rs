//! The learned tab: two identical small CNN forecasters of a barotropic vorticity model on the
//! sphere, one trained with MSE and one with AMSE, evaluated at several lead times. The MSE
//! forecaster's spectrum decays with lead time (its effective resolution falls); the AMSE
//! forecaster keeps its amplitude — the paper's Fig. 3 in miniature.

use benchtop_kit::figure::{
    Colormap, Figure, FigureViewState, Line, Marker, Scale, Scatter, Subplot, show_figure,
};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{DataTable, PanelFigure, Recipe, from_saved, to_saved};
use benchtop_kit::project::Sidecar;
use benchtop_kit::task::{Live, Task};
use benchtop_kit::widgets::controls_and_view;
use benchtop_spectra::forecast::{
    ForecastParams, ForecastResult, LeadEvaluation, TrainingStep, run_with,
};

use super::figures::{
    AMSE, MSE, OTHER, TRUTH, describe_k, map_subplot, per_k_dashed, per_k_line, ratio_subplot,
    spectrum_subplot, symmetric_range, top_value,
};
use super::{ENGINE, SavedResults, SpectraModel, SpectraParams, SpectraView};

/// Scalar columns of the training-history table.
const HISTORY_COLUMNS: [&str; 6] = [
    "step",
    "learning_rate",
    "mse_net_mse",
    "mse_net_amse",
    "amse_net_mse",
    "amse_net_amse",
];

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

/// What a training depends on: the experiment and its seed.
type TrainKey = (ForecastParams, u64);

fn key(params: &SpectraParams) -> TrainKey {
    (params.learned.clone(), params.learned_seed)
}

/// The training curves and the latest live spectra, streamed step by step.
#[derive(Default)]
pub(super) struct Training {
    history: Vec<TrainingStep>,
    snapshot: Option<LeadEvaluation>,
}

impl Live for Training {
    type Update = TrainingStep;

    fn apply(&mut self, mut step: TrainingStep) {
        if let Some(snapshot) = step.snapshot.take() {
            self.snapshot = Some(snapshot);
        }
        self.history.push(step);
    }
}

/// Training and evaluating the two forecasters.
pub(super) struct LearnedTab {
    pub(super) task: Task<TrainKey, Training, ForecastResult>,
    training_plot: FigureViewState,
    skill_plot: FigureViewState,
    maps_plot: FigureViewState,
}

impl Default for LearnedTab {
    fn default() -> Self {
        Self {
            task: Task::new("spectra: MSE vs AMSE forecasters"),
            training_plot: FigureViewState::default(),
            skill_plot: FigureViewState::default(),
            maps_plot: FigureViewState::default(),
        }
    }
}

impl LearnedTab {
    fn history(&self) -> &[TrainingStep] {
        &self.task.live().history
    }

    pub(super) fn start(&mut self, cx: &mut Cx<'_, SpectraModel>) {
        let (learned, seed) = key(cx.params);
        self.task.clear();
        self.task.start(&cx.runner, key(cx.params), move |job| {
            learned.validate()?;
            run_with(&learned, seed, &job.progress, &job.cancel, |s| job.send(s))
        });
    }

    pub(super) fn save(
        &self,
        results: &mut SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        if let Some(result) = self.task.result() {
            let mut stored = result.clone();
            // The history and the maps go to the sidecar.
            stored.history.clear();
            let maps = &mut stored.maps;
            let shape = [maps.grid.nlat, maps.grid.nlon];
            let mut layers = [
                &mut maps.truth_per_s,
                &mut maps.mse_per_s,
                &mut maps.amse_per_s,
            ];
            match sidecar {
                Some(sidecar) => {
                    results.learned_maps_file =
                        Some(sidecar.write_layers("spectra-learned-maps", &shape, &mut layers)?);
                }
                None => layers.iter_mut().for_each(|layer| layer.clear()),
            }
            results.learned = Some(to_saved(&stored)?);
        }
        let history = self.history();
        if let Some(sidecar) = sidecar
            && !history.is_empty()
        {
            let flat: Vec<f64> = history.iter().flat_map(history_row).collect();
            results.learned_history_file = Some(sidecar.write_f64(
                "spectra-learned-history",
                &[history.len(), HISTORY_COLUMNS.len()],
                &flat,
            )?);
        }
        Ok(())
    }

    pub(super) fn restore(
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &SpectraParams,
    ) -> anyhow::Result<Self> {
        let mut tab = Self::default();
        if let (Some(sidecar), Some(file)) = (sidecar, &results.learned_history_file) {
            let (shape, values) = sidecar.read_f64(file)?;
            let columns = HISTORY_COLUMNS.len();
            anyhow::ensure!(
                shape.len() == 2 && shape[1] == columns,
                "{file}: expected {columns} columns, found shape {shape:?}"
            );
            tab.task.live_mut().history = values.chunks_exact(columns).map(history_step).collect();
        }
        let Some(value) = &results.learned else {
            return Ok(tab);
        };
        let mut result: ForecastResult = from_saved(value)?;
        if let (Some(sidecar), Some(file)) = (sidecar, &results.learned_maps_file) {
            let maps = &mut result.maps;
            let shape = [maps.grid.nlat, maps.grid.nlon];
            sidecar.read_layers(
                file,
                &shape,
                &mut [
                    &mut maps.truth_per_s,
                    &mut maps.mse_per_s,
                    &mut maps.amse_per_s,
                ],
            )?;
        }
        result.history.clone_from(&tab.task.live().history);
        tab.task.set_result(key(params), result);
        Ok(tab)
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, SpectraModel>) {
        controls_and_view(
            ui,
            "spectra learned controls",
            300.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls_ui(ui, cx),
            |(tab, cx), ui| tab.view_ui(ui, cx.view),
        );
    }

    fn view_ui(&mut self, ui: &mut egui::Ui, view: &SpectraView) {
        if self.history().is_empty() && self.task.result().is_none() {
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
        let lower = match self.task.result() {
            Some(result) => maps_figure(result),
            None => training_figure(self.history()),
        };
        let plot = if self.task.result().is_some() {
            &mut self.maps_plot
        } else {
            &mut self.training_plot
        };
        show_figure(ui, &lower, plot);
    }

    fn controls_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, SpectraModel>) {
        ui.strong("Data: barotropic vorticity model");
        cx.params(
            ui,
            &[
                "learned.lmax",
                "learned.lead_h",
                "learned.train_trajectories",
                "learned.states_per_trajectory",
            ],
        );
        ui.strong("Forecasters");
        cx.params(
            ui,
            &[
                "learned.hidden_channels",
                "learned.layers",
                "learned.train_steps",
                "learned.batch_size",
                "learned.learning_rate",
                "learned.resolution_min_k",
                "learned_seed",
            ],
        );
        if self.task.controls(
            ui,
            &key(cx.params),
            "Train both forecasters",
            "Stop training",
        ) {
            self.start(cx);
        }
        if let Some(result) = self.task.result() {
            ui.separator();
            let count = result.leads.len();
            if count > 1 {
                ui.add(
                    egui::Slider::new(&mut cx.view.lead_index, 0..=count - 1)
                        .text("Lead shown")
                        .custom_formatter(|i, _| {
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
                cx.params.learned.resolution_min_k
            ));
        }
    }

    /// Spectra and R_k/Coh_k at the chosen lead (or the latest live snapshot), with the
    /// effective resolution against lead time once evaluated.
    fn skill_figure(&self, lead_index: usize) -> Figure {
        let result = self.task.result();
        let evaluation = result
            .and_then(|r| r.leads.get(lead_index.min(r.leads.len().saturating_sub(1))))
            .or(self.task.live().snapshot.as_ref());
        let mut figure = Figure::new(match evaluation {
            Some(e) if result.is_some() => format!("Held-out forecasts at {} h", e.lead_h),
            Some(e) if self.task.was_cancelled() => format!(
                "Stopped: one-step forecasts ({} h) when training was stopped",
                e.lead_h
            ),
            Some(e) => format!("Live: one-step forecasts ({} h) during training", e.lead_h),
            None if self.task.was_cancelled() => "Training stopped before a forecast".to_owned(),
            None if self.task.is_running() => "Training…".to_owned(),
            None => "Not trained yet: press Train both forecasters".to_owned(),
        });
        let mut count: usize = 0;
        if let Some(e) = evaluation {
            figure = figure
                .subplot(lead_psd_subplot(e))
                .subplot(lead_ratio_subplot(e));
            count += 2;
        }
        if let Some(result) = result {
            figure = figure
                .subplot(resolution_subplot(result))
                .subplot(training_subplot(self.history()));
            count += 2;
        }
        let rows = count.div_ceil(2).max(1);
        figure.grid(rows, 2).size_in(11.0, 4.0 * rows as f64)
    }

    pub(super) fn figures(&self, params: &SpectraParams) -> Vec<PanelFigure> {
        let Some(result) = self.task.result() else {
            return Vec::new();
        };
        let recipe = Recipe::new(ENGINE, &params.learned, Some(params.learned_seed));
        let longest = result.leads.len().saturating_sub(1);
        vec![
            recipe.figure("spectra-learned", self.skill_figure(longest)),
            recipe.figure("spectra-learned-maps", maps_figure(result)),
        ]
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let mut tables = Vec::new();
        let history = self.history();
        if !history.is_empty() {
            tables.push(DataTable::new(
                "spectra-learned-history",
                &HISTORY_COLUMNS,
                history.iter().map(history_row).collect(),
            ));
        }
        if let Some(result) = self.task.result() {
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
            tables.push(DataTable::new("spectra-learned-skill", &columns, rows));
        }
        tables
    }

    pub(super) fn summary(&self, params: &SpectraParams) -> serde_json::Value {
        let Some(result) = self.task.result() else {
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
                .dash(benchtop_kit::figure::Dash::Dashed),
        )
        .with(
            Line::new("AMSE net: MSE", steps, series(|s| s.amse_net_mse))
                .color(AMSE)
                .dash(benchtop_kit::figure::Dash::Dashed),
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
