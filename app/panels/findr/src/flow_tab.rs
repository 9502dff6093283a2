//! The flow tab: the inferred autonomous flow as arrows over its speed map, fixed points by
//! stability with their eigenvalues, trial-averaged trajectories coloured by evidence, the
//! sample zone, the click-driven input fields, the planted flow beside the recovered one for
//! synthetic data, and PSTH fits (data against model).

use benchtop_findr::analysis::{FixedPoint, Stability};
use benchtop_findr::result::{FindrResult, Frame};
use benchtop_findr::zone_shape::ZoneShape;
use benchtop_kit::file_dialog::{Kind, Request};

use super::data_tab::PSTH_SMOOTH_BINS;
use super::figures::{
    bin_times, cool_warm, fixed_point_scatters, flow_items, flow_subplot, group_label,
    largest_magnitude, legend_group, planted_markers, smooth, stability_style, zone_outline,
};
use super::{ENGINE, FindrPanelParams, FindrView, LoadedData};
use benchtop_kit::figure::{Dash, Figure, FigureViewState, Line, Subplot, show_figure};
use benchtop_kit::panel::{DataTable, PanelFigure, Recipe};
use benchtop_kit::widgets::{controls_and_view, labelled};

#[derive(Default)]
pub(super) struct FlowTab {
    flow_plot: FigureViewState,
    inputs_plot: FigureViewState,
    psth_plot: FigureViewState,
    /// The outcome of the last CSV export.
    exported: Option<String>,
}

impl FlowTab {
    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        result: Option<&FindrResult>,
        view: &mut FindrView,
        data: Option<&LoadedData>,
    ) {
        let Some(result) = result else {
            ui.label("Train the model in the Fit tab to see the flow field it inferred.");
            return;
        };
        controls_and_view(
            ui,
            "findr flow controls",
            320.0,
            &mut (self, view),
            |(tab, view), ui| tab.controls_ui(ui, result, view),
            |(tab, view), ui| {
                egui::ScrollArea::vertical()
                    .id_salt("findr flow figures")
                    .show(ui, |ui| tab.figures_ui(ui, result, view, data));
            },
        );
    }

    fn figures_ui(
        &mut self,
        ui: &mut egui::Ui,
        result: &FindrResult,
        view: &FindrView,
        data: Option<&LoadedData>,
    ) {
        let width = ui.available_width();
        let synthetic = data.is_some_and(|d| d.truth.is_some()) || result.planted.is_some();
        ui.allocate_ui(egui::vec2(width, 460.0), |ui| {
            show_figure(ui, &flow_figure(result, view), &mut self.flow_plot);
        });
        ui.allocate_ui(egui::vec2(width, 380.0), |ui| {
            show_figure(ui, &input_figure(result, view), &mut self.inputs_plot);
        });
        ui.allocate_ui(egui::vec2(width, 360.0), |ui| {
            show_figure(
                ui,
                &psth_figure(result, view.neuron, synthetic),
                &mut self.psth_plot,
            );
        });
    }

    fn controls_ui(&mut self, ui: &mut egui::Ui, result: &FindrResult, view: &mut FindrView) {
        ui.label(frame_description(result.frame));
        if result.planted.is_some() {
            ui.checkbox(&mut view.show_planted, "Show the planted flow");
        }
        ui.checkbox(&mut view.streamlines, "Streamlines");
        labelled(
            ui,
            "Neuron shown",
            egui::DragValue::new(&mut view.neuron)
                .range(0..=result.psths.neurons.saturating_sub(1)),
        );
        if let Some(planted) = &result.planted {
            ui.separator();
            ui.strong("Recovery of the planted attractors");
            for (k, (at, error)) in planted
                .planted_attractors
                .iter()
                .zip(planted.attractor_errors)
                .enumerate()
            {
                ui.label(format!(
                    "Attractor {} at ({:.2}, {:.2}): nearest recovered stable or marginal \
                     point {}",
                    k + 1,
                    at[0],
                    at[1],
                    if error.is_finite() {
                        format!("{error:.3} away")
                    } else {
                        "not found".to_owned()
                    }
                ));
            }
            ui.label(format!(
                "Alignment to the planted latents: R² = {:.3}",
                planted.alignment_r2
            ));
            ui.label(format!(
                "Planted eigenvalues (1/s): at the attractors {:.2}, {:.2}; on the line {:.2}, \
                 {:.2}",
                planted.planted_attractor_eigenvalues[0],
                planted.planted_attractor_eigenvalues[1],
                planted.planted_line_eigenvalues[0],
                planted.planted_line_eigenvalues[1],
            ));
        }
        ui.separator();
        let reasons = result.unsupported_reasons();
        let unconfirmed = result.unconfirmed_reasons();
        if !reasons.is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "This fit does not support a latent flow, so its fixed points are not \
                     findings: {}.",
                    reasons.join("; ")
                ),
            );
        } else if !unconfirmed.is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "The fixed points below are not confirmed: {}.",
                    unconfirmed.join("; ")
                ),
            );
        }
        ui.strong(format!("Fixed points ({})", result.fixed_points.len()));
        fixed_point_table(
            ui,
            "findr fixed points",
            &result.fixed_points,
            Some((&result.fixed_point_support, result.fits)),
        );
        if result.fits > 1 {
            ui.weak(format!(
                "{} fits with different seeds; fit {} (the one the others agree with most) is shown, and \
                 each point counts the fits that found a point of the same kind nearby.",
                result.fits,
                result.kept_fit + 1
            ));
        }
        if let Some(zone) = result.sample_zone_eigenvalues() {
            let shape = match zone.shape() {
                ZoneShape::SlowDirection => "a slow direction: a line attractor or slow manifold",
                ZoneShape::NoSlowDirection => "no slow direction",
                ZoneShape::Undecided => "neither clearly a line nor isolated points",
            };
            ui.label(format!(
                "In the sample zone (median Jacobian): λ ≈ {:.1}, {:.1}/s, {shape}.",
                zone.slow, zone.fast
            ));
        }
        if result.fixed_points_outside_sample_zone > 0 {
            ui.weak(format!(
                "{} more outside the sample zone (where no trajectory goes) are not listed",
                result.fixed_points_outside_sample_zone
            ));
        }
        if let Some(planted) = &result.planted {
            ui.strong(format!(
                "Planted fixed points ({})",
                planted.planted_fixed_points.len()
            ));
            fixed_point_table(
                ui,
                "findr planted points",
                &planted.planted_fixed_points,
                None,
            );
        }
        ui.separator();
        let clicked = ui.button("Export flow CSV…").clicked();
        let request = clicked.then(|| Request::new(Kind::Folder, "Export flow CSV into folder"));
        let id = ui.scope_id().with("findr flow csv");
        if let Some(dir) = benchtop_kit::file_dialog::pick(ui.ctx(), id, request) {
            self.exported = Some(match write_tables(&dir, &tables(result)) {
                Ok(count) => format!("Wrote {count} CSV files to {}", dir.display()),
                Err(error) => format!("{error:#}"),
            });
        }
        if let Some(text) = &self.exported {
            ui.label(text.as_str());
        }
    }
}

fn write_tables(dir: &std::path::Path, tables: &[DataTable]) -> anyhow::Result<usize> {
    for table in tables {
        let path = dir.join(format!("{}.csv", table.name));
        std::fs::write(&path, table.to_csv()?)
            .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    }
    Ok(tables.len())
}

/// Rows of the fixed-point tables; the rest are in the CSV export.
const TABLE_ROWS: usize = 20;

fn stability_rank(stability: Stability) -> u8 {
    match stability {
        Stability::Stable => 0,
        Stability::Saddle => 1,
        Stability::Unstable => 2,
        Stability::Marginal => 3,
    }
}

/// How many of a fit's restarts found each of its fixed points: the counts (parallel to the
/// points) and the number of fits.
type Support<'a> = (&'a [usize], usize);

fn fixed_point_table(
    ui: &mut egui::Ui,
    id: &str,
    points: &[FixedPoint],
    support: Option<Support<'_>>,
) {
    let mut sorted: Vec<usize> = (0..points.len()).collect();
    sorted.sort_by_key(|&k| stability_rank(points[k].stability));
    let support = support.filter(|(counts, _)| counts.len() == points.len());
    egui::Grid::new(id).striped(true).show(ui, |ui| {
        ui.strong("z");
        ui.strong("Eigenvalues (1/s)");
        ui.strong("Kind");
        if support.is_some() {
            ui.strong("Found by");
        }
        ui.end_row();
        for &k in sorted.iter().take(TABLE_ROWS) {
            let p = &points[k];
            ui.label(format!("({:.2}, {:.2})", p.z[0], p.z[1]));
            ui.label(
                p.eigenvalues
                    .iter()
                    .map(|&(re, im)| {
                        if im.abs() > 1e-9 {
                            format!("{re:.2}{im:+.2}i")
                        } else {
                            format!("{re:.2}")
                        }
                    })
                    .collect::<Vec<String>>()
                    .join(", "),
            );
            let (color, _, label) = stability_style(p.stability);
            if p.stability == Stability::Stable {
                // Black would vanish on a dark theme; stable points read as strong text.
                ui.strong(label);
            } else {
                ui.colored_label(egui::Color32::from_rgb(color.r, color.g, color.b), label);
            }
            if let Some((counts, fits)) = support {
                ui.label(format!("{} of {fits} fits", counts[k]));
            }
            ui.end_row();
        }
    });
    if points.len() > TABLE_ROWS {
        ui.label(format!(
            "… and {} more (all in the CSV export).",
            points.len() - TABLE_ROWS
        ));
    }
}

fn frame_description(frame: Frame) -> &'static str {
    match frame {
        Frame::AlignedToPlanted => {
            "Axes: the planted latent frame (the inferred latents mapped onto the planted ones)."
        }
        Frame::OrthogonalisedReadout => {
            "Axes: the orthogonalised readout, rotated onto the trajectories' principal axes."
        }
    }
}

fn axis_labels(frame: Frame) -> (&'static str, &'static str) {
    match frame {
        Frame::AlignedToPlanted => ("z₁ (planted frame)", "z₂ (planted frame)"),
        Frame::OrthogonalisedReadout => ("z̃₁ (PC 1)", "z̃₂ (PC 2)"),
    }
}

/// Trial-averaged trajectories, one line per group, cool to warm.
fn trajectory_lines(result: &FindrResult, synthetic: bool) -> Vec<Line> {
    let largest = largest_magnitude(result.trajectories.iter().map(|g| g.gamma));
    let count = result.trajectories.len();
    result
        .trajectories
        .iter()
        .enumerate()
        .map(|(index, group)| {
            let name = if legend_group(index, count) {
                group_label(group.gamma, synthetic)
            } else {
                String::new()
            };
            Line::new(
                name,
                group.path.iter().map(|p| p[0]).collect::<Vec<f64>>(),
                group.path.iter().map(|p| p[1]).collect::<Vec<f64>>(),
            )
            .color(cool_warm(group.gamma, largest))
            .width_pt(2.0)
        })
        .collect()
}

/// The recovered autonomous flow with everything drawn on it, and the planted one beside it.
pub(super) fn flow_figure(result: &FindrResult, view: &FindrView) -> Figure {
    let (x_label, y_label) = axis_labels(result.frame);
    let synthetic = result.planted.is_some();
    let (heatmap, arrows) = flow_items(&result.flow, view.streamlines);
    let mut recovered = flow_subplot("Recovered flow F(z, 0)/τ", &result.flow, x_label, y_label)
        .heatmap(heatmap)
        .with(arrows)
        .with(zone_outline(&result.flow, |cell| {
            result.in_sample_zone(cell)
        }));
    for line in trajectory_lines(result, synthetic) {
        recovered.push(line);
    }
    for scatter in fixed_point_scatters(&result.fixed_points, "") {
        recovered.push(scatter);
    }
    let mut figure = Figure::new("Inferred flow field");
    if let Some(planted) = &result.planted {
        recovered.push(planted_markers(&planted.planted_attractors));
        figure = figure.subplot(recovered);
        if view.show_planted {
            let (heatmap, arrows) = flow_items(&planted.planted_flow, view.streamlines);
            let mut subplot = flow_subplot(
                "Planted flow F(z, 0)/τ",
                &planted.planted_flow,
                x_label,
                y_label,
            )
            .heatmap(heatmap)
            .with(arrows);
            for scatter in fixed_point_scatters(&planted.planted_fixed_points, "planted ") {
                subplot.push(scatter);
            }
            figure = figure.subplot(subplot);
        }
    } else {
        figure = figure.subplot(recovered);
    }
    let columns = figure.subplots.len();
    figure.grid(1, columns).size_in(6.5 * columns as f64, 5.5)
}

/// The left- and right-click input fields, weighted by the click probability.
pub(super) fn input_figure(result: &FindrResult, view: &FindrView) -> Figure {
    let (x_label, y_label) = axis_labels(result.frame);
    let mut figure = Figure::new("Input fields [F(z, e) − F(z, 0)]/τ · p(click | z)")
        .grid(1, 2)
        .size_in(13.0, 5.0);
    for (field, title) in result
        .input_fields
        .iter()
        .zip(["Left click", "Right click"])
    {
        let (heatmap, arrows) = flow_items(field, view.streamlines);
        figure = figure.subplot(
            flow_subplot(title, field, x_label, y_label)
                .heatmap(heatmap)
                .with(arrows)
                .with(zone_outline(field, |cell| result.in_sample_zone(cell))),
        );
    }
    figure
}

/// Data (solid) and model (dashed) PSTHs of one neuron by group.
pub(super) fn psth_figure(result: &FindrResult, neuron: usize, synthetic: bool) -> Figure {
    let p = &result.psths;
    let neuron = neuron.min(p.neurons.saturating_sub(1));
    let times = bin_times(p.bins, p.bin_s);
    let largest = largest_magnitude(p.gammas.iter().copied());
    let mut subplot = Subplot::new(format!(
        "Neuron {neuron}: data (solid, {PSTH_SMOOTH_BINS}-bin smoothing) and model (dashed)"
    ))
    .x_label("Time in trial (s)")
    .y_label("Rate (Hz)")
    .legend(true);
    let complete = p.data_hz.len() == p.gammas.len() * p.bins * p.neurons
        && p.model_hz.len() == p.data_hz.len();
    if complete && p.neurons > 0 {
        for (g, &gamma) in p.gammas.iter().enumerate() {
            let color = cool_warm(gamma, largest);
            let pick = |values: &[f64]| -> Vec<f64> {
                (0..p.bins).map(|b| values[p.index(g, b, neuron)]).collect()
            };
            let name = if legend_group(g, p.gammas.len()) {
                group_label(gamma, synthetic)
            } else {
                String::new()
            };
            subplot.push(
                Line::new(
                    name,
                    times.clone(),
                    smooth(&pick(&p.data_hz), PSTH_SMOOTH_BINS),
                )
                .color(color)
                .width_pt(1.0),
            );
            subplot.push(
                Line::new("", times.clone(), pick(&p.model_hz))
                    .color(color)
                    .width_pt(2.0)
                    .dash(Dash::Dashed),
            );
        }
    }
    Figure::new("PSTH fits").size_in(8.0, 4.5).subplot(subplot)
}

/// The flow tab's figures for export.
pub(super) fn figures(
    result: &FindrResult,
    params: &FindrPanelParams,
    view: &FindrView,
    data: Option<&LoadedData>,
) -> Vec<PanelFigure> {
    let synthetic = data.is_some_and(|d| d.truth.is_some()) || result.planted.is_some();
    let recipe = Recipe::new(ENGINE, &params.fit, Some(params.fit_seed));
    vec![
        recipe.figure("findr-flow", flow_figure(result, view)),
        recipe.figure("findr-input-fields", input_figure(result, view)),
        recipe.figure(
            "findr-psth-fits",
            psth_figure(result, view.neuron, synthetic),
        ),
    ]
}

fn stability_code(stability: Stability) -> f64 {
    match stability {
        Stability::Stable => 1.0,
        Stability::Unstable => 2.0,
        Stability::Saddle => 3.0,
        Stability::Marginal => 4.0,
    }
}

/// The field grid, the fixed points and the trajectories as CSV tables.
pub(super) fn tables(result: &FindrResult) -> Vec<DataTable> {
    let grid = &result.flow;
    let nx = grid.xs.len();
    let [left, right] = &result.input_fields;
    let planted = result
        .planted
        .as_ref()
        .filter(|p| p.planted_flow.vectors.len() == grid.vectors.len());
    let mut columns = vec![
        "x",
        "y",
        "fx_per_s",
        "fy_per_s",
        "speed_per_s",
        "visits",
        "in_sample_zone",
        "left_fx_per_s",
        "left_fy_per_s",
        "right_fx_per_s",
        "right_fy_per_s",
    ];
    if planted.is_some() {
        columns.extend(["planted_fx_per_s", "planted_fy_per_s"]);
    }
    let pick = |field: &benchtop_findr::field::FlowGrid, cell: usize| {
        field.vectors.get(cell).copied().unwrap_or([f64::NAN; 2])
    };
    let field_rows = (0..grid.vectors.len())
        .map(|cell| {
            let (i, j) = (cell % nx.max(1), cell / nx.max(1));
            let (l, r) = (pick(left, cell), pick(right, cell));
            let mut row = vec![
                grid.xs[i],
                grid.ys[j],
                grid.vectors[cell][0],
                grid.vectors[cell][1],
                grid.speed[cell],
                result.visits.get(cell).copied().unwrap_or(0) as f64,
                if result.in_sample_zone(cell) {
                    1.0
                } else {
                    0.0
                },
                l[0],
                l[1],
                r[0],
                r[1],
            ];
            if let Some(planted) = planted {
                let v = pick(&planted.planted_flow, cell);
                row.extend(v);
            }
            row
        })
        .collect();
    let point_row = |p: &FixedPoint, is_planted: f64| {
        vec![
            is_planted,
            p.z[0],
            p.z[1],
            p.eigenvalues[0].0,
            p.eigenvalues[0].1,
            p.eigenvalues[1].0,
            p.eigenvalues[1].1,
            stability_code(p.stability),
            p.residual,
        ]
    };
    let mut point_rows: Vec<Vec<f64>> = result
        .fixed_points
        .iter()
        .map(|p| point_row(p, 0.0))
        .collect();
    if let Some(planted) = &result.planted {
        point_rows.extend(
            planted
                .planted_fixed_points
                .iter()
                .map(|p| point_row(p, 1.0)),
        );
    }
    let trajectory_rows =
        result
            .trajectories
            .iter()
            .flat_map(|group| {
                group.path.iter().enumerate().map(move |(bin, p)| {
                    vec![group.gamma, group.trials as f64, bin as f64, p[0], p[1]]
                })
            })
            .collect();
    vec![
        DataTable::new("findr-flow-field", &columns, field_rows),
        DataTable::new(
            "findr-fixed-points",
            &[
                "planted",
                "x",
                "y",
                "eigenvalue1_re_per_s",
                "eigenvalue1_im_per_s",
                "eigenvalue2_re_per_s",
                "eigenvalue2_im_per_s",
                "stability_1stable_2unstable_3saddle_4marginal",
                "residual_per_s",
            ],
            point_rows,
        ),
        DataTable::new(
            "findr-trajectories",
            &["group", "trials", "bin", "x", "y"],
            trajectory_rows,
        ),
    ]
}
