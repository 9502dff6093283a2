//! The Solutions tab: the G-transform `(W₂G⁻¹, GW₁)` of a trained network (the output stays,
//! the RSM morphs unless G is orthogonal) and the named solution families' RSMs.

use benchtop_kit::figure::{Figure, FigureViewState, show_figure};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{DataTable, PanelFigure, Recipe, from_saved, to_saved};
use benchtop_kit::task::Task;
use benchtop_kit::widgets::{controls_and_view, file_field};
use benchtop_linnet::experiment::{Solutions, solve};
use benchtop_linnet::solutions::GParams;
use benchtop_linnet::train::TrainParams;

use super::figures::{common_range, matrix_subplot, name_items, rsm_subplot};
use super::{DataParams, ENGINE, LinnetModel, LinnetParams, SavedResults, Source};

/// What the solutions depend on.
type SolveKey = (DataParams, TrainParams, GParams, u64);

fn key(params: &LinnetParams) -> SolveKey {
    (
        params.data.clone(),
        params.train.clone(),
        params.g.clone(),
        params.seed,
    )
}

/// The solutions task and its figures' view state.
pub(super) struct SolutionsTab {
    pub(super) task: Task<SolveKey, (), Solutions>,
    transform_plot: FigureViewState,
    families_plot: FigureViewState,
}

impl Default for SolutionsTab {
    fn default() -> Self {
        Self {
            task: Task::new("linnet: solutions and G-transform"),
            transform_plot: FigureViewState::default(),
            families_plot: FigureViewState::default(),
        }
    }
}

impl SolutionsTab {
    pub(super) fn start(&mut self, cx: &mut Cx<'_, LinnetModel>) {
        let experiment = cx.params.experiment(cx.project_dir);
        let seed = cx.params.seed;
        self.task.start(&cx.runner, key(cx.params), move |job| {
            solve(&experiment, seed, &job.cancel)
        });
    }

    /// Solves again when the parameters differ from the last solve's (milliseconds).
    pub(super) fn react(&mut self, cx: &mut Cx<'_, LinnetModel>) {
        if !self.task.is_current(&key(cx.params)) {
            self.start(cx);
        }
    }

    pub(super) fn save(&self, results: &mut SavedResults) -> anyhow::Result<()> {
        results.solutions = self.task.result().map(to_saved).transpose()?;
        Ok(())
    }

    pub(super) fn restore(results: &SavedResults, params: &LinnetParams) -> anyhow::Result<Self> {
        let mut tab = Self::default();
        if let Some(value) = &results.solutions {
            tab.task.set_result(key(params), from_saved(value)?);
        }
        Ok(tab)
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, LinnetModel>) {
        controls_and_view(
            ui,
            "linnet solutions controls",
            320.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls_ui(ui, cx),
            |(tab, _), ui| tab.view_ui(ui),
        );
    }

    fn controls_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, LinnetModel>) {
        ui.strong("Invertible G (hidden × hidden)");
        cx.params(ui, &["g.stretch", "g.rotation"]);
        ui.horizontal(|ui| {
            if ui
                .button("Random G")
                .on_hover_text("Draw new random directions S and Ω (steps the G seed).")
                .clicked()
            {
                cx.params.g.seed = cx.params.g.seed.wrapping_add(1);
            }
            if ui
                .button("Orthogonal G")
                .on_hover_text("Stretch 0: G = Q is orthogonal and the RSM must not change.")
                .clicked()
            {
                cx.params.g.stretch = 0.0;
            }
        });
        cx.param(ui, "g.seed");
        if let Some(s) = self.task.result() {
            let g = &s.g_transform;
            ui.label(format!(
                "Output change max |ΔŶ| = {:.1e}",
                g.output_max_abs_change
            ));
            ui.label(format!(
                "RSM change: full G {:.1} %, its orthogonal part {:.1e}",
                100.0 * g.rsm_change_general,
                g.rsm_change_orthogonal
            ));
            ui.label(format!("max |GᵀG − I| = {:.2}", g.gtg_deviation));
            ui.label(format!(
                "Gradient flow from a small init vs minimum weight norm: RSM differs by {:.2} %",
                100.0 * s.gradient_flow_error_to_minimum_weight_norm
            ));
        }
        ui.separator();
        ui.strong("Data");
        data_controls(ui, cx);
        ui.separator();
        ui.strong("Network");
        cx.params(ui, &["train.hidden", "seed"]);
        ui.label("The G-transform acts on the network trained from a small initialisation.");
        if self
            .task
            .controls(ui, &key(cx.params), "Solve again", "Stop")
        {
            self.start(cx);
        }
    }

    fn view_ui(&mut self, ui: &mut egui::Ui) {
        let Some(result) = self.task.result() else {
            ui.label("Solving…");
            return;
        };
        let transform = transform_figure(result);
        let families = families_figure(result);
        ui.allocate_ui(
            egui::vec2(
                ui.available_width(),
                (ui.available_height() * 0.55).max(300.0),
            ),
            |ui| show_figure(ui, &transform, &mut self.transform_plot),
        );
        show_figure(ui, &families, &mut self.families_plot);
    }

    pub(super) fn figures(&self, params: &LinnetParams) -> Vec<PanelFigure> {
        let Some(result) = self.task.result() else {
            return Vec::new();
        };
        let recipe = Recipe::new(ENGINE, params, Some(params.seed));
        vec![
            recipe.figure("linnet-g-transform", transform_figure(result)),
            recipe.figure("linnet-families", families_figure(result)),
        ]
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let Some(result) = self.task.result() else {
            return Vec::new();
        };
        let p = result.item_names.len();
        let mut columns = vec!["family".to_owned(), "item".to_owned()];
        columns.extend((1..=p).map(|j| format!("item_{j}")));
        let columns: Vec<&str> = columns.iter().map(String::as_str).collect();
        let rows = result
            .families
            .iter()
            .enumerate()
            .flat_map(|(f, family)| {
                (0..p).map(move |i| {
                    let mut row = vec![f as f64, (i + 1) as f64];
                    row.extend(family.rsm.row(i).iter());
                    row
                })
            })
            .collect();
        vec![DataTable::new("linnet-family-rsms", &columns, rows)]
    }

    /// `g_transform` of summary.json.
    pub(super) fn summary(&self) -> Option<serde_json::Value> {
        let g = &self.task.result()?.g_transform;
        Some(serde_json::json!({
            "output_max_abs_change": g.output_max_abs_change,
            "rsm_change_orthogonal": g.rsm_change_orthogonal,
            "rsm_change_general": g.rsm_change_general,
        }))
    }
}

/// The data source's controls.
fn data_controls(ui: &mut egui::Ui, cx: &mut Cx<'_, LinnetModel>) {
    ui.horizontal(|ui| {
        let source = &mut cx.params.data.source;
        ui.selectable_value(source, Source::Hierarchy, "Item tree");
        ui.selectable_value(source, Source::Gaussian, "Gaussian task");
        ui.selectable_value(source, Source::Csv, "CSV file");
    });
    match cx.params.data.source {
        Source::Hierarchy => {
            cx.params(ui, &["data.depth", "data.branching", "data.input_mixing"]);
        }
        Source::Gaussian => cx.params(
            ui,
            &[
                "data.n_in",
                "data.n_out",
                "data.items",
                "data.rank",
                "data.target_noise",
            ],
        ),
        Source::Csv => {
            file_field(
                ui,
                "Items file",
                &mut cx.params.data.file.path,
                "items.csv",
                ("CSV", &["csv"]),
            );
            ui.label("One row per item; columns x… are inputs, y… targets, an optional first column `item` names the rows.");
        }
    }
}

/// Outputs and RSMs before and after G.
fn transform_figure(s: &Solutions) -> Figure {
    let g = &s.g_transform;
    let outputs = common_range([&g.base_output, &g.transformed_output]);
    let rsms = common_range([&g.base_rsm, &g.transformed_rsm]);
    let items = &s.item_names;
    let output = |title: &str, m| {
        let subplot = matrix_subplot(title, m, outputs, "Item", "Output feature", "Ŷ");
        name_items(subplot, items, true, false)
    };
    Figure::new(format!(
        "Same function, different representation: max |ΔŶ| = {:.1e}, RSM change {:.0} %",
        g.output_max_abs_change,
        100.0 * g.rsm_change_general
    ))
    .grid(2, 2)
    .size_in(10.0, 9.0)
    .subplot(output("Output W₂W₁X", &g.base_output))
    .subplot(output("Output (W₂G⁻¹)(GW₁)X", &g.transformed_output))
    .subplot(rsm_subplot("RSM of W₁X", &g.base_rsm, rsms, items))
    .subplot(rsm_subplot("RSM of GW₁X", &g.transformed_rsm, rsms, items))
}

/// The named families' RSMs side by side (each on its own colour scale: their overall sizes
/// differ by the objectives' weights).
fn families_figure(s: &Solutions) -> Figure {
    let mut figure = Figure::new("RSMs of the solution families (all compute M*)")
        .grid(1, s.families.len().max(1))
        .size_in(4.0 * s.families.len().max(1) as f64, 4.2);
    for family in &s.families {
        figure = figure.subplot(rsm_subplot(
            &family.name,
            &family.rsm,
            common_range([&family.rsm]),
            &s.item_names,
        ));
    }
    figure
}
