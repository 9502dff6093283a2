//! The duality tab: train the dual couplings and observable map live, and map the family of
//! approximate duals when the plaquette term breaks exact duality.

use benchtop_compute::ComputeError;
use benchtop_ising::duality::{
    CANDIDATE_NAMES, DualityParams, DualityResult, DualityStep, DualityTrainer, ResidualMap,
    residual_loss_map,
};
use benchtop_ising::kramers_wannier_dual;
use benchtop_ising::links::CORRELATOR_NAMES;
use benchtop_kit::figure::{
    Bars, Colormap, Figure, FigureViewState, Heatmap, Line, Rgba, Scale, Scatter, Subplot,
    show_figure,
};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{DataTable, PanelFigure, Recipe, from_saved, to_saved};
use benchtop_kit::project::Sidecar;
use benchtop_kit::task::{Series, Task};
use benchtop_kit::widgets::{controls_and_view, labelled_inline};
use serde::{Deserialize, Serialize};

use super::{ENGINE, IsingModel, IsingParams, SavedResults};

/// The smallest height of a figure of the tab, in points (the view scrolls below it).
const MIN_FIGURE_HEIGHT: f32 = 260.0;

/// The (β̃, K̃) grid over which the residual loss of the best map is drawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ResidualGrid {
    /// Smallest β̃.
    pub dual_beta_min: f64,
    /// Largest β̃.
    pub dual_beta_max: f64,
    /// Points along β̃.
    pub dual_beta_count: usize,
    /// Smallest K̃.
    pub dual_plaquette_min: f64,
    /// Largest K̃.
    pub dual_plaquette_max: f64,
    /// Points along K̃.
    pub dual_plaquette_count: usize,
}

impl Default for ResidualGrid {
    fn default() -> Self {
        Self {
            dual_beta_min: 0.2,
            dual_beta_max: 1.2,
            dual_beta_count: 11,
            dual_plaquette_min: -0.4,
            dual_plaquette_max: 0.4,
            dual_plaquette_count: 9,
        }
    }
}

fn linspace(min: f64, max: f64, count: usize) -> Vec<f64> {
    match count {
        0 => Vec::new(),
        1 => vec![min],
        n => (0..n)
            .map(|i| min + (max - min) * i as f64 / (n - 1) as f64)
            .collect(),
    }
}

impl ResidualGrid {
    /// The β̃ values.
    pub fn dual_betas(&self) -> Vec<f64> {
        linspace(self.dual_beta_min, self.dual_beta_max, self.dual_beta_count)
    }

    /// The K̃ values.
    pub fn dual_plaquettes(&self) -> Vec<f64> {
        linspace(
            self.dual_plaquette_min,
            self.dual_plaquette_max,
            self.dual_plaquette_count,
        )
    }

    /// Checks ranges and counts; errors name the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(self.dual_beta_min.is_finite() && self.dual_beta_max.is_finite())
            || self.dual_beta_min <= 0.0
            || self.dual_beta_max < self.dual_beta_min
        {
            return Err(ComputeError::invalid(
                "dual_beta_min",
                "β̃ range must satisfy 0 < min ≤ max",
            ));
        }
        if !(self.dual_plaquette_min.is_finite() && self.dual_plaquette_max.is_finite())
            || self.dual_plaquette_max < self.dual_plaquette_min
        {
            return Err(ComputeError::invalid(
                "dual_plaquette_min",
                "K̃ range must satisfy min ≤ max",
            ));
        }
        for (key, count) in [
            ("dual_beta_count", self.dual_beta_count),
            ("dual_plaquette_count", self.dual_plaquette_count),
        ] {
            if !(1..=64).contains(&count) {
                return Err(ComputeError::invalid(
                    key,
                    format!("{count} points: use 1 to 64 points along each axis"),
                ));
            }
        }
        Ok(())
    }
}

/// What a training depends on: the duality parameters and the seed.
type TrainKey = (DualityParams, u64);

fn train_key(params: &IsingParams) -> TrainKey {
    (params.duality.clone(), params.duality_seed)
}

/// What the approximate-dual map depends on: the duality parameters, the grid and the seed.
type MapKey = (DualityParams, ResidualGrid, u64);

fn map_key(params: &IsingParams) -> MapKey {
    (
        params.duality.clone(),
        params.residual_grid.clone(),
        params.duality_seed,
    )
}

/// The duality training (its steps streamed as the training history) and the map of
/// approximate duals.
pub(super) struct DualityTab {
    pub(super) train: Task<TrainKey, Series<DualityStep>, DualityResult>,
    pub(super) map: Task<MapKey, (), ResidualMap>,
    plots: FigureViewState,
    map_plot: FigureViewState,
}

impl Default for DualityTab {
    fn default() -> Self {
        Self {
            train: Task::new("ising: duality training"),
            map: Task::new("ising: approximate duals"),
            plots: FigureViewState::default(),
            map_plot: FigureViewState::default(),
        }
    }
}

/// Scalar columns of the training-history table; the attention weights and the original and
/// mapped correlators follow.
const HISTORY_COLUMNS: [&str; 12] = [
    "step",
    "dual_beta",
    "dual_plaquette",
    "loss",
    "fit_loss",
    "plain_fit_loss",
    "penalty_term",
    "w",
    "b",
    "learning_rate",
    "map_learning_rate",
    "tau",
];

fn history_row(step: &DualityStep) -> Vec<f64> {
    let mut row = vec![
        step.step as f64,
        step.dual_beta,
        step.dual_plaquette,
        step.loss,
        step.fit_loss,
        step.plain_fit_loss,
        step.penalty_term,
        step.w,
        step.b,
        step.learning_rate,
        step.map_learning_rate,
        step.tau,
    ];
    row.extend(&step.attention);
    row.extend(step.target_correlators);
    row.extend(step.mapped_correlators);
    row
}

fn history_columns() -> Vec<String> {
    HISTORY_COLUMNS
        .iter()
        .map(|c| (*c).to_owned())
        .chain(
            CANDIDATE_NAMES
                .iter()
                .map(|name| format!("attention_{name}")),
        )
        .chain(
            CORRELATOR_NAMES
                .iter()
                .map(|name| format!("original_{name}")),
        )
        .chain(CORRELATOR_NAMES.iter().map(|name| format!("mapped_{name}")))
        .collect()
}

fn history_step(row: &[f64]) -> DualityStep {
    let scalars = HISTORY_COLUMNS.len();
    let attention_end = scalars + CANDIDATE_NAMES.len();
    let mut target = [0.0; CORRELATOR_NAMES.len()];
    let mut mapped = [0.0; CORRELATOR_NAMES.len()];
    let count = target.len();
    target.copy_from_slice(&row[attention_end..attention_end + count]);
    mapped.copy_from_slice(&row[attention_end + count..]);
    DualityStep {
        step: row[0] as usize,
        dual_beta: row[1],
        dual_plaquette: row[2],
        loss: row[3],
        fit_loss: row[4],
        plain_fit_loss: row[5],
        penalty_term: row[6],
        w: row[7],
        b: row[8],
        learning_rate: row[9],
        map_learning_rate: row[10],
        tau: row[11],
        attention: row[scalars..attention_end].to_vec(),
        target_correlators: target,
        mapped_correlators: mapped,
    }
}

impl DualityTab {
    /// The training history: the running (or last) training's steps.
    fn history(&self) -> &[DualityStep] {
        &self.train.live().0
    }

    /// Trains the duality map with the current parameters; invalid parameters are refused with
    /// the engine's message, keeping what is shown.
    pub(super) fn start_training(&mut self, cx: &mut Cx<'_, IsingModel>) {
        let key = train_key(cx.params);
        if let Err(error) = cx.params.duality.validate() {
            self.train.refuse(&cx.runner, key, error.to_string());
            return;
        }
        let (duality, seed) = key.clone();
        // A new training shows only its own result.
        self.train.clear();
        self.train.start(&cx.runner, key, move |job| {
            let mut trainer = DualityTrainer::new(&duality, seed)?;
            while !trainer.is_finished() {
                let step = trainer.step(&job.cancel)?;
                let fraction = (step.step + 1) as f64 / duality.max_steps as f64;
                job.progress.set(
                    fraction,
                    format!("step {}: β̃ = {:.4}", step.step + 1, step.dual_beta),
                );
                job.send(step);
            }
            Ok(trainer.result())
        });
    }

    /// Maps the residual loss of the best map over the (β̃, K̃) grid.
    pub(super) fn start_map(&mut self, cx: &mut Cx<'_, IsingModel>) {
        let key = map_key(cx.params);
        if let Err(error) = cx
            .params
            .residual_grid
            .validate()
            .and_then(|()| cx.params.duality.validate())
        {
            self.map.refuse(&cx.runner, key, error.to_string());
            return;
        }
        let (duality, grid, seed) = key.clone();
        self.map.start(&cx.runner, key, move |job| {
            residual_loss_map(
                &duality,
                &grid.dual_betas(),
                &grid.dual_plaquettes(),
                seed,
                &job.progress,
                &job.cancel,
            )
        });
    }

    /// Restarts a running training whose parameters changed.
    pub(super) fn react(&mut self, cx: &mut Cx<'_, IsingModel>) {
        if self.train.is_running() && !self.train.is_current(&train_key(cx.params)) {
            self.start_training(cx);
        }
    }

    pub(super) fn save(
        &self,
        results: &mut SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        if let Some(result) = self.train.result() {
            results.duality = Some(to_saved(result)?);
        }
        if let Some(map) = self.map.result() {
            results.residual_map = Some(to_saved(map)?);
        }
        let history = self.history();
        if let Some(sidecar) = sidecar
            && !history.is_empty()
        {
            let columns = history_columns().len();
            let flat: Vec<f64> = history.iter().flat_map(history_row).collect();
            results.history_file =
                Some(sidecar.write_f64("duality-history", &[history.len(), columns], &flat)?);
        }
        Ok(())
    }

    pub(super) fn restore(
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &IsingParams,
    ) -> anyhow::Result<Self> {
        let mut tab = Self::default();
        let result: Option<DualityResult> = results.duality.as_ref().map(from_saved).transpose()?;
        let residual: Option<ResidualMap> =
            results.residual_map.as_ref().map(from_saved).transpose()?;
        if let (Some(sidecar), Some(file)) = (sidecar, &results.history_file) {
            let (shape, values) = sidecar.read_f64(file)?;
            let columns = history_columns().len();
            anyhow::ensure!(
                shape.len() == 2 && shape[1] == columns,
                "{file}: expected {columns} columns"
            );
            tab.train.live_mut().0 = values.chunks_exact(columns).map(history_step).collect();
        }
        // Restored results were computed with the saved parameters.
        if let Some(result) = result {
            tab.train.set_result(train_key(params), result);
        }
        if let Some(residual) = residual {
            tab.map.set_result(map_key(params), residual);
        }
        Ok(tab)
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, IsingModel>) {
        controls_and_view(
            ui,
            "ising duality controls",
            280.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls_ui(ui, cx),
            |(tab, cx), ui| tab.view_ui(ui, &cx.params.duality),
        );
    }

    /// The training figure, then the approximate-dual map once computed; the view scrolls
    /// when a small window leaves them less than their smallest height.
    fn view_ui(&mut self, ui: &mut egui::Ui, params: &DualityParams) {
        let width = ui.available_width();
        let height = ui.available_height();
        egui::ScrollArea::vertical()
            .id_salt("ising duality view")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let figure = training_figure(self.history(), self.train.result(), params);
                let training_height = (height * 0.62).max(MIN_FIGURE_HEIGHT);
                ui.allocate_ui(egui::vec2(width, training_height), |ui| {
                    show_figure(ui, &figure, &mut self.plots);
                });
                if let Some(map) = self.map.result() {
                    let figure = residual_figure(map, params);
                    let map_height = (height - training_height).max(MIN_FIGURE_HEIGHT);
                    ui.allocate_ui(egui::vec2(width, map_height), |ui| {
                        show_figure(ui, &figure, &mut self.map_plot);
                    });
                }
            });
    }

    fn controls_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, IsingModel>) {
        ui.strong("Original model");
        if let Some(beta) = cx.declared.get("duality.beta") {
            beta.ui_within(ui, cx.params, 0.05, 1.5);
        }
        if let Some(plaquette) = cx.declared.get("duality.plaquette") {
            plaquette.ui_within(ui, cx.params, -1.0, 1.0);
        }
        let d = &cx.params.duality;
        if d.plaquette == 0.0 {
            ui.label(format!(
                "Kramers–Wannier: β* = {:.5}",
                kramers_wannier_dual(d.beta)
            ));
        } else {
            ui.label("K ≠ 0: no exact dual in this family; map the approximate duals below.");
        }
        ui.separator();
        ui.strong("Training");
        ui.checkbox(
            &mut cx.params.duality.learn_plaquette,
            "Learn the dual plaquette K̃ too",
        );
        cx.params(
            ui,
            &[
                "duality.size",
                "duality.samples_per_step",
                "duality.max_steps",
                "duality.learning_rate",
                "duality.penalty",
                "duality.initial_dual_beta",
                "duality_seed",
            ],
        );
        if self.train.controls(
            ui,
            &train_key(cx.params),
            "Train duality map",
            "Stop training",
        ) {
            self.start_training(cx);
        }
        self.result_ui(ui, cx.params);
        ui.separator();
        ui.strong("Approximate duals (K ≠ 0)");
        ui.horizontal(|ui| {
            inline_param(ui, cx, "residual_grid.dual_beta_min", "β̃ from");
            inline_param(ui, cx, "residual_grid.dual_beta_max", "to");
            inline_param(ui, cx, "residual_grid.dual_beta_count", "points");
        });
        ui.horizontal(|ui| {
            inline_param(ui, cx, "residual_grid.dual_plaquette_min", "K̃ from");
            inline_param(ui, cx, "residual_grid.dual_plaquette_max", "to");
            inline_param(ui, cx, "residual_grid.dual_plaquette_count", "points");
        });
        if let Some(info) = self.map.info() {
            let fraction = info.progress.fraction() as f32;
            ui.add(egui::ProgressBar::new(fraction).show_percentage());
            if ui.button("Stop mapping").clicked() {
                self.map.stop();
            }
        } else if ui.button("Map approximate duals").clicked() {
            self.start_map(cx);
        }
        self.map.status(ui, &map_key(cx.params));
    }

    fn result_ui(&self, ui: &mut egui::Ui, params: &IsingParams) {
        let latest = self.history().last();
        let Some((dual_beta, w, b, attention)) = self
            .train
            .result()
            .map(|r| (r.dual_beta, r.w, r.b, r.attention.clone()))
            .or_else(|| latest.map(|s| (s.dual_beta, s.w, s.b, s.attention.clone())))
        else {
            return;
        };
        let beta = params.duality.beta;
        egui::Grid::new("duality result")
            .striped(true)
            .show(ui, |ui| {
                ui.strong("");
                ui.strong("learned");
                ui.strong("Kramers–Wannier");
                ui.end_row();
                let exact = (params.duality.plaquette == 0.0).then(|| {
                    let s = (2.0 * beta).sinh();
                    (
                        kramers_wannier_dual(beta),
                        -1.0 / s,
                        1.0 / (2.0 * beta).tanh(),
                    )
                });
                for (name, value, reference) in [
                    ("β̃", dual_beta, exact.map(|e| e.0)),
                    ("w", w, exact.map(|e| e.1)),
                    ("b", b, exact.map(|e| e.2)),
                ] {
                    ui.label(name);
                    ui.label(format!("{value:.5}"));
                    ui.label(reference.map_or_else(|| "—".to_owned(), |v| format!("{v:.5}")));
                    ui.end_row();
                }
            });
        if let Some((index, weight)) = attention
            .iter()
            .copied()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
        {
            let name = CANDIDATE_NAMES.get(index).copied().unwrap_or("?");
            ui.label(format!("Attention on {name} ({weight:.2})"));
        }
        if let Some(result) = self.train.result() {
            ui.label(format!(
                "{} steps{}, final loss {:.2e}, β̃ = {:.4} ± {:.4}",
                result.steps,
                if result.stopped_early {
                    " (stopped early)"
                } else {
                    ""
                },
                result.final_loss,
                result.dual_beta,
                result.dual_beta_error
            ));
            ui.label(format!(
                "Direction: {:?}; training average β̃ = {:.4} ± {:.4}{}",
                result.direction,
                result.trajectory_dual_beta,
                result.trajectory_dual_beta_error,
                if result.refinement.is_some() {
                    "; reported β̃ from the final profile scan of the loss"
                } else {
                    ""
                }
            ));
        }
    }

    pub(super) fn figures(&self, params: &IsingParams) -> Vec<PanelFigure> {
        let recipe = Recipe::new(ENGINE, &params.duality, Some(params.duality_seed));
        let mut out = Vec::new();
        if !self.history().is_empty() {
            out.push(recipe.figure(
                "duality-training",
                training_figure(self.history(), self.train.result(), &params.duality),
            ));
        }
        if let Some(map) = self.map.result() {
            out.push(recipe.figure(
                "duality-approximate-duals",
                residual_figure(map, &params.duality),
            ));
        }
        out
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let mut tables = Vec::new();
        let history = self.history();
        if !history.is_empty() {
            let columns = history_columns();
            let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
            tables.push(DataTable::new(
                "duality-history",
                &columns,
                history.iter().map(history_row).collect(),
            ));
        }
        if let Some(result) = self.train.result() {
            let rows = (0..CORRELATOR_NAMES.len())
                .map(|i| {
                    vec![
                        i as f64,
                        result.target_correlators[i],
                        result.mapped_correlators[i],
                    ]
                })
                .collect();
            tables.push(DataTable::new(
                "duality-correlators",
                &["index", "original", "mapped_dual"],
                rows,
            ));
        }
        if let Some(map) = self.map.result() {
            let mut rows = Vec::new();
            for (j, k) in map.dual_plaquettes.iter().enumerate() {
                for (i, beta) in map.dual_betas.iter().enumerate() {
                    let index = j * map.dual_betas.len() + i;
                    rows.push(vec![
                        *beta,
                        *k,
                        map.loss[index],
                        map.fit_loss[index],
                        map.w[index],
                        map.b[index],
                    ]);
                }
            }
            tables.push(DataTable::new(
                "duality-residual-map",
                &["dual_beta", "dual_plaquette", "loss", "fit_loss", "w", "b"],
                rows,
            ));
        }
        tables
    }

    pub(super) fn summary(&self, params: &IsingParams) -> serde_json::Value {
        let d = &params.duality;
        let exact = (d.plaquette == 0.0).then(|| kramers_wannier_dual(d.beta));
        let result = self.train.result().map(|r| {
            let argmax = r
                .attention
                .iter()
                .copied()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(i, _)| i);
            serde_json::json!({
                "dual_beta": r.dual_beta,
                "dual_beta_error": r.dual_beta_error,
                "dual_beta_exact": exact,
                "relative_error": exact.map(|e| (r.dual_beta - e) / e),
                "dual_plaquette": r.dual_plaquette,
                "w": r.w,
                "b": r.b,
                "w_exact": exact.map(|_| -1.0 / (2.0 * d.beta).sinh()),
                "b_exact": exact.map(|_| 1.0 / (2.0 * d.beta).tanh()),
                "attention": r.attention,
                "attention_on": argmax.and_then(|i| CANDIDATE_NAMES.get(i)),
                "final_loss": r.final_loss,
                "steps": r.steps,
                "stopped_early": r.stopped_early,
                "direction": r.direction,
                "trajectory_dual_beta": r.trajectory_dual_beta,
                "trajectory_dual_beta_error": r.trajectory_dual_beta_error,
                "profile_scan": r.refinement.as_ref().map(|f| serde_json::json!({
                    "dual_betas": f.dual_betas,
                    "losses": f.losses,
                    "converged": f.converged,
                    "rounds": f.rounds,
                    "samples": f.samples,
                })),
            })
        });
        let map = self.map.result().map(|m| {
            serde_json::json!({"best_dual_beta": m.best_dual_beta, "best_dual_plaquette": m.best_dual_plaquette, "best_loss": m.best_loss})
        });
        serde_json::json!({ "beta": d.beta, "plaquette": d.plaquette, "size": d.size, "result": result, "approximate_duals": map })
    }
}

/// The widget of declared parameter `key` inside a row of several, captioned `text` (e.g.
/// "to" after "β̃ from"), with the declared range and drag speed.
fn inline_param(ui: &mut egui::Ui, cx: &mut Cx<'_, IsingModel>, key: &str, text: &str) {
    let Some(param) = cx.declared.get(key) else {
        return;
    };
    let mut value = param.get(cx.params);
    let mut drag = egui::DragValue::new(&mut value)
        .range(param.min..=param.max)
        .speed(param.speed);
    if param.integer {
        drag = drag.fixed_decimals(0);
    }
    if labelled_inline(ui, text, drag).changed() {
        // The widget keeps the value in range.
        let _ = param.set(cx.params, value);
    }
}

/// β̃(t) against β*, the loss, the attention weights, the map (w, b) and the correlators.
fn training_figure(
    history: &[DualityStep],
    result: Option<&DualityResult>,
    params: &DualityParams,
) -> Figure {
    let steps: Vec<f64> = history.iter().map(|s| s.step as f64).collect();
    let series = |f: fn(&DualityStep) -> f64| history.iter().map(f).collect::<Vec<f64>>();
    let exact = (params.plaquette == 0.0).then(|| {
        let s = (2.0 * params.beta).sinh();
        (
            kramers_wannier_dual(params.beta),
            -1.0 / s,
            1.0 / (2.0 * params.beta).tanh(),
        )
    });
    let mut couplings = Subplot::new("Dual coupling β̃")
        .x_label("step")
        .y_label("β̃")
        .with(Line::new(
            "learned β̃",
            steps.clone(),
            series(|s| s.dual_beta),
        ));
    if params.learn_plaquette || params.plaquette != 0.0 {
        couplings = couplings.with(Line::new(
            "learned K̃",
            steps.clone(),
            series(|s| s.dual_plaquette),
        ));
    }
    if let Some((dual, _, _)) = exact {
        couplings = couplings.hline(dual, "Kramers–Wannier β*");
    }
    let loss = Subplot::new("Loss")
        .x_label("step")
        .y_label("loss")
        .y_scale(Scale::Log10)
        .with(Line::new("loss", steps.clone(), series(|s| s.loss)));
    let attention_values = result
        .map(|r| r.attention.clone())
        .or_else(|| history.last().map(|s| s.attention.clone()))
        .unwrap_or_default();
    let attention = Subplot::new("Attention over candidate links")
        .y_label("weight")
        .y_range(0.0, 1.0)
        .with(Bars::categories(
            "attention",
            CANDIDATE_NAMES.iter().map(|n| (*n).to_owned()).collect(),
            attention_values,
        ));
    let mut map = Subplot::new("Observable map ô = w·x + b")
        .x_label("step")
        .y_label("value")
        .with(Line::new("w", steps.clone(), series(|s| s.w)).color(Rgba::cycle(0)))
        .with(Line::new("b", steps, series(|s| s.b)).color(Rgba::cycle(1)))
        .legend(true);
    if let Some((_, w, b)) = exact {
        map = map.hline(w, "w = −1/sinh 2β").hline(b, "b = coth 2β");
    }
    let mut correlators = Subplot::new("Link correlators")
        .x_label("correlator")
        .y_label("value")
        .legend(true);
    let latest = result
        .map(|r| (r.target_correlators, r.mapped_correlators))
        .or_else(|| {
            history
                .last()
                .map(|s| (s.target_correlators, s.mapped_correlators))
        });
    if let Some((target, mapped)) = latest {
        let index: Vec<f64> = (0..target.len()).map(|i| i as f64).collect();
        correlators = correlators
            .with(
                Bars::at(
                    "original model",
                    index.iter().map(|i| i - 0.2).collect::<Vec<_>>(),
                    target.to_vec(),
                    0.4,
                )
                .color(Rgba::cycle(0)),
            )
            .with(
                Bars::at(
                    "mapped dual samples",
                    index.iter().map(|i| i + 0.2).collect::<Vec<_>>(),
                    mapped.to_vec(),
                    0.4,
                )
                .color(Rgba::cycle(1)),
            );
    }
    Figure::new(format!(
        "Duality discovery, β = {:.4}, K = {:.3}, L = {}",
        params.beta, params.plaquette, params.size
    ))
    .grid(2, 3)
    .size_in(11.0, 6.0)
    .subplot(couplings)
    .subplot(loss)
    .subplot(attention)
    .subplot(map)
    .subplot(correlators)
}

/// The residual loss of the best map over (β̃, K̃), log scale, with the best point marked.
fn residual_figure(map: &ResidualMap, params: &DualityParams) -> Figure {
    let nx = map.dual_betas.len();
    let ny = map.dual_plaquettes.len();
    let values: Vec<f64> = map
        .loss
        .iter()
        .map(|v| if *v > 0.0 { v.log10() } else { f64::NAN })
        .collect();
    let extent = |v: &[f64]| {
        let lo = v.first().copied().unwrap_or(0.0);
        let hi = v.last().copied().unwrap_or(1.0);
        let half = if v.len() > 1 {
            (hi - lo) / (v.len() - 1) as f64 / 2.0
        } else {
            0.5
        };
        (lo - half, hi + half)
    };
    let heatmap = Heatmap::new(
        "log₁₀ residual loss",
        extent(&map.dual_betas),
        extent(&map.dual_plaquettes),
        nx,
        ny,
        values,
    )
    .colormap(Colormap::Magma)
    .colorbar_label("log₁₀ loss");
    let mut subplot = Subplot::new("Residual loss of the best map")
        .x_label("dual β̃")
        .y_label("dual K̃")
        .heatmap(heatmap)
        .with(
            Scatter::new(
                "best",
                vec![map.best_dual_beta],
                vec![map.best_dual_plaquette],
            )
            .color(Rgba::rgb(0, 200, 255)),
        )
        .legend(true);
    if params.plaquette == 0.0 {
        subplot = subplot.vline(kramers_wannier_dual(params.beta), "Kramers–Wannier β*");
    }
    Figure::new(format!(
        "Approximate duals of β = {:.4}, K = {:.3}",
        params.beta, params.plaquette
    ))
    .size_in(6.0, 4.8)
    .subplot(subplot)
}
