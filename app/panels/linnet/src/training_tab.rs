//! The Training tab: N seeds trained under no noise, input noise and parameter noise (and a
//! tanh network), their RSMs, the functional vs representational distance of every pair, and
//! the parameter-noise RSM against its closed form.

use benchtop_kit::figure::{Figure, FigureViewState, Scale, Scatter, Subplot, show_figure};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{DataTable, PanelFigure, Recipe, from_saved, to_saved};
use benchtop_kit::task::{Latest, Task};
use benchtop_kit::widgets::controls_and_view;
use benchtop_linnet::experiment::{Regime, RegimeResult, Training, train_regimes};
use benchtop_linnet::train::{Activation, Noise, NoiseMode, TrainParams};
use nalgebra::DMatrix;

use super::figures::{common_range, regime_color, rsm_subplot};
use super::{DataParams, ENGINE, LinnetModel, LinnetParams, SavedResults};

/// What a training run depends on.
type TrainKey = (DataParams, TrainParams, usize, bool, u64);

fn key(params: &LinnetParams) -> TrainKey {
    (
        params.data.clone(),
        params.train.clone(),
        params.seeds,
        params.nonlinear,
        params.seed,
    )
}

/// Seeds' RSMs shown per regime.
const SHOWN_SEEDS: usize = 3;

/// Smallest distance drawn on the log axes (identical networks sit there).
const FLOOR: f64 = 1e-12;

/// The training task, streaming the regimes as seeds finish.
pub(super) struct TrainingTab {
    pub(super) task: Task<TrainKey, Latest<Training>, Training>,
    rsm_plot: FigureViewState,
    scatter_plot: FigureViewState,
}

impl Default for TrainingTab {
    fn default() -> Self {
        Self {
            task: Task::new("linnet: train seeds under each noise"),
            rsm_plot: FigureViewState::default(),
            scatter_plot: FigureViewState::default(),
        }
    }
}

impl TrainingTab {
    /// The latest partial result while training runs, else the last result.
    fn shown(&self) -> Option<&Training> {
        if self.task.is_running() {
            self.task.live().0.as_ref().or(self.task.result())
        } else {
            self.task.result()
        }
    }

    pub(super) fn start(&mut self, cx: &mut Cx<'_, LinnetModel>) {
        let experiment = cx.params.experiment(cx.project_dir);
        let seed = cx.params.seed;
        self.task.start(&cx.runner, key(cx.params), move |job| {
            train_regimes(&experiment, seed, &job.progress, &job.cancel, |t| {
                job.send(t.clone());
            })
        });
    }

    /// Trains again when the parameters differ from the last run's (the default size takes
    /// about a second).
    pub(super) fn react(&mut self, cx: &mut Cx<'_, LinnetModel>) {
        if !self.task.is_current(&key(cx.params)) {
            self.start(cx);
        }
    }

    pub(super) fn save(&self, results: &mut SavedResults) -> anyhow::Result<()> {
        results.training = match self.task.result() {
            Some(training) => {
                let mut stored = training.clone();
                for seed in stored.regimes.iter_mut().flat_map(|r| r.seeds.iter_mut()) {
                    seed.history.clear();
                }
                Some(to_saved(&stored)?)
            }
            None => None,
        };
        Ok(())
    }

    pub(super) fn restore(results: &SavedResults, params: &LinnetParams) -> anyhow::Result<Self> {
        let mut tab = Self::default();
        if let Some(value) = &results.training {
            tab.task.set_result(key(params), from_saved(value)?);
        }
        Ok(tab)
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, LinnetModel>) {
        controls_and_view(
            ui,
            "linnet training controls",
            320.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls_ui(ui, cx),
            |(tab, _), ui| tab.view_ui(ui),
        );
    }

    fn controls_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, LinnetModel>) {
        ui.strong("Noise");
        cx.params(ui, &["train.input_noise", "train.parameter_noise"]);
        ui.horizontal(|ui| {
            let mode = &mut cx.params.train.noise_mode;
            ui.selectable_value(mode, NoiseMode::Sampled, "Sampled each step")
                .on_hover_text("Fresh noise on the inputs or weights every step (stochastic).");
            ui.selectable_value(mode, NoiseMode::Expected, "Expected loss")
                .on_hover_text("Descend the noise's expected loss (its regulariser) instead.");
        });
        ui.checkbox(
            &mut cx.params.nonlinear,
            "Also train a tanh network (parameter noise)",
        );
        ui.separator();
        ui.strong("Gradient descent");
        cx.params(
            ui,
            &[
                "seeds",
                "train.steps",
                "train.learning_rate",
                "train.init_scale",
                "train.anneal_fraction",
                "train.hidden",
                "seed",
            ],
        );
        if self
            .task
            .controls(ui, &key(cx.params), "Train again", "Stop training")
        {
            self.start(cx);
        }
        let Some(training) = self.shown() else {
            return;
        };
        ui.separator();
        ui.strong("Mean over seed pairs");
        for regime in &training.regimes {
            ui.label(format!(
                "{}: CKA {:.4}, function distance {:.1e}",
                regime.regime.label(),
                regime.mean_pairwise_cka,
                regime.mean_pairwise_function_distance
            ));
        }
        if let Some(noisy) = parameter_regime(training) {
            ui.label(format!(
                "Parameter-noise RSMs vs closed form: mean error {:.1} % (worst seed {:.1} %)",
                100.0 * noisy.mean_rsm_error_to_closed_form,
                100.0 * noisy.max_rsm_error_to_closed_form
            ));
            ui.label(format!(
                "(finite σ_w moves the exact optimum {:.1} % from the first-order closed form)",
                100.0 * training.exact_vs_closed_form
            ));
        }
    }

    fn view_ui(&mut self, ui: &mut egui::Ui) {
        let Some(training) = self.shown() else {
            ui.label("Training…");
            return;
        };
        let scatter = scatter_figure(training);
        let rsms = rsm_figure(training);
        ui.allocate_ui(
            egui::vec2(
                ui.available_width(),
                (ui.available_height() * 0.45).max(280.0),
            ),
            |ui| show_figure(ui, &scatter, &mut self.scatter_plot),
        );
        show_figure(ui, &rsms, &mut self.rsm_plot);
    }

    pub(super) fn figures(&self, params: &LinnetParams) -> Vec<PanelFigure> {
        let Some(training) = self.task.result() else {
            return Vec::new();
        };
        let recipe = Recipe::new(ENGINE, params, Some(params.seed));
        vec![
            recipe.figure("linnet-similarity", scatter_figure(training)),
            recipe.figure("linnet-seed-rsms", rsm_figure(training)),
        ]
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let Some(training) = self.task.result() else {
            return Vec::new();
        };
        let rows = training
            .regimes
            .iter()
            .enumerate()
            .flat_map(|(r, regime)| {
                regime.pairs.iter().map(move |pair| {
                    vec![
                        r as f64,
                        pair.a as f64,
                        pair.b as f64,
                        pair.cka,
                        pair.rsa,
                        pair.function_distance,
                    ]
                })
            })
            .collect();
        vec![DataTable::new(
            "linnet-seed-pairs",
            &[
                "regime",
                "seed_a",
                "seed_b",
                "cka",
                "rsa",
                "function_distance",
            ],
            rows,
        )]
    }

    /// The regimes' part of summary.json, keyed `no_noise`, `input_noise`, `parameter_noise`
    /// (and `tanh_parameter_noise`).
    pub(super) fn summary(&self) -> Option<serde_json::Value> {
        let training = self.task.result()?;
        let mut out = serde_json::Map::new();
        for regime in &training.regimes {
            let mut entry = serde_json::json!({
                "seeds": regime.seeds.len(),
                "mean_pairwise_cka": regime.mean_pairwise_cka,
                "mean_pairwise_function_distance": regime.mean_pairwise_function_distance,
            });
            if regime.regime.key() == "parameter_noise" {
                entry["rsm_relative_error_to_closed_form"] =
                    serde_json::json!(regime.mean_rsm_error_to_closed_form);
            }
            out.insert(regime.regime.key(), entry);
        }
        Some(serde_json::Value::Object(out))
    }
}

fn parameter_regime(training: &Training) -> Option<&RegimeResult> {
    training
        .regimes
        .iter()
        .find(|r| r.regime.key() == "parameter_noise")
}

/// Functional vs representational distance for every seed pair, and the parameter-noise RSM
/// (mean over seeds) beside its closed form.
fn scatter_figure(training: &Training) -> Figure {
    let mut scatter = Subplot::new("Every pair of seeds")
        .x_label("Functional distance ‖Ŷ₁ − Ŷ₂‖/‖Y‖")
        .y_label("Representational distance 1 − CKA")
        .x_scale(Scale::Log10)
        .y_scale(Scale::Log10)
        .legend(true);
    for regime in &training.regimes {
        let xs: Vec<f64> = regime
            .pairs
            .iter()
            .map(|p| p.function_distance.max(FLOOR))
            .collect();
        let ys: Vec<f64> = regime
            .pairs
            .iter()
            .map(|p| (1.0 - p.cka).max(FLOOR))
            .collect();
        scatter = scatter
            .with(Scatter::new(regime.regime.label(), xs, ys).color(regime_color(regime.regime)));
    }
    let mut figure = Figure::new("Function vs representation across seeds")
        .grid(1, 3)
        .size_in(14.0, 4.8)
        .subplot(scatter);
    if let Some(noisy) = parameter_regime(training)
        && !noisy.seeds.is_empty()
    {
        let p = training.closed_form_rsm.nrows();
        let mut mean = DMatrix::zeros(p, p);
        for seed in &noisy.seeds {
            mean += &seed.rsm;
        }
        let mean = mean / noisy.seeds.len() as f64;
        let range = common_range([&mean, &training.closed_form_rsm]);
        figure = figure
            .subplot(rsm_subplot(
                &format!("Parameter noise: mean of {} seeds", noisy.seeds.len()),
                &mean,
                range,
                &training.item_names,
            ))
            .subplot(rsm_subplot(
                &format!(
                    "Closed form (seeds' error {:.1} %)",
                    100.0 * noisy.mean_rsm_error_to_closed_form
                ),
                &training.closed_form_rsm,
                range,
                &training.item_names,
            ));
    }
    figure
}

/// A regime's name short enough for a small subplot's title.
fn short_label(regime: Regime) -> &'static str {
    match (regime.noise, regime.activation) {
        (Noise::None, Activation::Linear) => "No noise",
        (Noise::Input, Activation::Linear) => "Input noise",
        (Noise::Parameter, Activation::Linear) => "Param. noise",
        (Noise::None, Activation::Tanh) => "tanh",
        (Noise::Input, Activation::Tanh) => "tanh, input",
        (Noise::Parameter, Activation::Tanh) => "tanh, param.",
    }
}

/// The first seeds' RSMs, one column per regime.
fn rsm_figure(training: &Training) -> Figure {
    let rows = training
        .regimes
        .iter()
        .map(|r| r.seeds.len().min(SHOWN_SEEDS))
        .max()
        .unwrap_or(1)
        .max(1);
    let columns = training.regimes.len().max(1);
    let mut figure = Figure::new("Seeds' RSMs: one column per regime")
        .grid(rows, columns)
        .size_in(3.6 * columns as f64, 3.0 * rows as f64);
    for index in 0..rows {
        for regime in &training.regimes {
            let name = short_label(regime.regime);
            let subplot = match regime.seeds.get(index) {
                Some(seed) => rsm_subplot(
                    &format!("{name}, seed {}", index + 1),
                    &seed.rsm,
                    common_range([&seed.rsm]),
                    &training.item_names,
                ),
                None => Subplot::new(format!("{name} (training…)")),
            };
            figure = figure.subplot(subplot);
        }
    }
    figure
}
