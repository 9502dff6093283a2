//! The sweeps view of a panel: define a sweep, run it, watch the table and plot fill in.

use std::collections::{BTreeMap, BTreeSet};

use super::{
    GridSpec, RemoteRunner, Spacing, SweepAxis, SweepDoc, SweepSupport, TwoDimView, aggregate,
};
use super::{SweepRun, start_sweep_run};
use crate::figure::{
    Dash, ErrorBars, Figure, FigureViewState, Heatmap, Item, Line, Rgba, Subplot, show_figure,
};
use crate::jobs::JobBoard;
use crate::panel::Panel;
use crate::project::PaneId;
use crate::widgets::{labelled, labelled_inline};

/// Height of one row of a sweep figure's subplots on screen, in points.
const SWEEP_ROW_HEIGHT: f32 = 240.0;
/// Height of a sweep figure's title on screen, in points.
const SWEEP_TITLE_HEIGHT: f32 = 30.0;

/// One axis of the new-sweep form.
#[derive(Clone, Debug, PartialEq)]
struct AxisForm {
    param: String,
    use_list: bool,
    start: f64,
    end: f64,
    count: u32,
    log: bool,
    list: String,
}

impl AxisForm {
    fn for_param(support: &SweepSupport, index: usize) -> Self {
        let param = support.params.get(index).or_else(|| support.params.first());
        let (key, current, min, max) = param.map_or((String::new(), 0.0, 0.0, 1.0), |p| {
            (p.key.clone(), p.current, p.min, p.max)
        });
        let span = (max - min).min(current.abs().max(1.0));
        Self {
            param: key,
            use_list: false,
            start: (current - span / 2.0).max(min),
            end: (current + span / 2.0).min(max),
            count: 8,
            log: false,
            list: format!("{current}"),
        }
    }

    fn grid(&self) -> Result<GridSpec, String> {
        if self.use_list {
            let values: Result<Vec<f64>, _> = self
                .list
                .split([',', ' '])
                .filter(|s| !s.trim().is_empty())
                .map(|s| {
                    s.trim()
                        .parse::<f64>()
                        .map_err(|_| format!("`{s}` is not a number"))
                })
                .collect();
            Ok(GridSpec::List(values?))
        } else {
            Ok(GridSpec::Range {
                start: self.start,
                end: self.end,
                count: self.count,
                spacing: if self.log {
                    Spacing::Log
                } else {
                    Spacing::Linear
                },
            })
        }
    }
}

/// The form for a new sweep on one panel.
#[derive(Clone, Debug, PartialEq)]
struct SweepForm {
    name: String,
    first: AxisForm,
    second: Option<AxisForm>,
    repeats: u32,
    base_seed: u64,
    outputs: BTreeSet<String>,
    error: Option<String>,
}

/// Ephemeral state of the sweeps views: the new-sweep forms, the plot views and where each
/// sweep runs.
#[derive(Default)]
pub struct SweepForms {
    forms: BTreeMap<PaneId, SweepForm>,
    views: BTreeMap<(PaneId, String), FigureViewState>,
    /// Per sweep: true where it runs on the remote runner, false on this machine.
    run_on: BTreeMap<(PaneId, String), bool>,
}

/// Draws the sweeps of panel `pane`; with a `remote` runner, each sweep can run there instead
/// of on this machine.
pub fn sweeps_ui(
    ui: &mut egui::Ui,
    pane: PaneId,
    panel: &dyn Panel,
    sweeps: &mut Vec<SweepRun>,
    forms: &mut SweepForms,
    jobs: &JobBoard,
    mut remote: Option<&mut (dyn RemoteRunner + '_)>,
) {
    let support = panel.sweep_support();
    egui::ScrollArea::vertical()
        .id_salt(("sweeps", pane.0))
        .show(ui, |ui| {
            new_sweep_form(ui, pane, &support, sweeps, forms);
            let mut delete = None;
            for (index, run) in sweeps
                .iter_mut()
                .enumerate()
                .filter(|(_, r)| r.doc.pane == pane)
            {
                ui.separator();
                if sweep_ui(ui, pane, run, &support, forms, jobs, remote.as_deref_mut()) {
                    delete = Some(index);
                }
            }
            if let Some(index) = delete {
                sweeps.remove(index);
            }
        });
}

fn new_sweep_form(
    ui: &mut egui::Ui,
    pane: PaneId,
    support: &SweepSupport,
    sweeps: &mut Vec<SweepRun>,
    forms: &mut SweepForms,
) {
    let count = sweeps.iter().filter(|s| s.doc.pane == pane).count();
    let form = forms.forms.entry(pane).or_insert_with(|| SweepForm {
        name: format!("sweep {}", count + 1),
        first: AxisForm::for_param(support, 0),
        second: None,
        repeats: 1,
        base_seed: 1,
        outputs: support
            .outputs
            .first()
            .map(|o| o.key.clone())
            .into_iter()
            .collect(),
        error: None,
    });
    egui::CollapsingHeader::new("New sweep")
        .default_open(count == 0)
        .show(ui, |ui| {
            labelled(ui, "Name", egui::TextEdit::singleline(&mut form.name));
            axis_form_ui(ui, "First parameter", &mut form.first, support);
            let mut two = form.second.is_some();
            ui.checkbox(&mut two, "Sweep a second parameter");
            if two && form.second.is_none() {
                form.second = Some(AxisForm::for_param(support, 1));
            } else if !two {
                form.second = None;
            }
            if let Some(second) = &mut form.second {
                axis_form_ui(ui, "Second parameter", second, support);
            }
            ui.horizontal(|ui| {
                labelled_inline(
                    ui,
                    "Repeats (distinct seeds)",
                    egui::DragValue::new(&mut form.repeats).range(1..=100),
                );
                labelled_inline(ui, "Base seed", egui::DragValue::new(&mut form.base_seed));
            });
            ui.label("Outputs to record");
            ui.horizontal_wrapped(|ui| {
                for output in &support.outputs {
                    let mut on = form.outputs.contains(&output.key);
                    if ui.checkbox(&mut on, &output.label).changed() {
                        if on {
                            form.outputs.insert(output.key.clone());
                        } else {
                            form.outputs.remove(&output.key);
                        }
                    }
                }
            });
            if ui.button("Add sweep").clicked() {
                match build_doc(form, pane, support) {
                    Ok(doc)
                        if sweeps
                            .iter()
                            .any(|s| s.doc.pane == pane && s.doc.name == doc.name) =>
                    {
                        form.error = Some(format!("a sweep named `{}` exists already", doc.name));
                    }
                    Ok(doc) => {
                        sweeps.push(SweepRun::new(doc));
                        form.error = None;
                        form.name = format!("sweep {}", count + 2);
                    }
                    Err(message) => form.error = Some(message),
                }
            }
            if let Some(error) = &form.error {
                ui.colored_label(ui.visuals().error_fg_color, error);
            }
        });
}

fn build_doc(form: &SweepForm, pane: PaneId, support: &SweepSupport) -> Result<SweepDoc, String> {
    let mut axes = vec![SweepAxis {
        param: form.first.param.clone(),
        grid: form.first.grid()?,
    }];
    if let Some(second) = &form.second {
        if second.param == form.first.param {
            return Err("choose two different parameters".to_owned());
        }
        axes.push(SweepAxis {
            param: second.param.clone(),
            grid: second.grid()?,
        });
    }
    let doc = SweepDoc {
        name: form.name.trim().to_owned(),
        pane,
        axes,
        repeats: form.repeats,
        base_seed: form.base_seed,
        outputs: support
            .outputs
            .iter()
            .filter(|o| form.outputs.contains(&o.key))
            .map(|o| o.key.clone())
            .collect(),
        fingerprint: support.fingerprint.clone(),
        ..SweepDoc::default()
    };
    if doc.name.is_empty() {
        return Err("give the sweep a name".to_owned());
    }
    doc.validate(support)?;
    Ok(doc)
}

fn axis_form_ui(ui: &mut egui::Ui, title: &str, axis: &mut AxisForm, support: &SweepSupport) {
    ui.horizontal(|ui| {
        let name = ui.label(title);
        let selected = support
            .params
            .iter()
            .find(|p| p.key == axis.param)
            .map_or("choose", |p| p.label.as_str());
        egui::ComboBox::from_id_salt((title, "param"))
            .selected_text(selected)
            .show_ui(ui, |ui| {
                for param in &support.params {
                    ui.selectable_value(&mut axis.param, param.key.clone(), &param.label);
                }
            })
            .response
            .labelled_by(name.id);
        ui.checkbox(&mut axis.use_list, "List of values");
    });
    ui.horizontal(|ui| {
        if axis.use_list {
            labelled_inline(ui, "Values", egui::TextEdit::singleline(&mut axis.list));
        } else {
            labelled_inline(
                ui,
                "From",
                egui::DragValue::new(&mut axis.start).speed(0.01),
            );
            labelled_inline(ui, "to", egui::DragValue::new(&mut axis.end).speed(0.01));
            labelled_inline(
                ui,
                "points",
                egui::DragValue::new(&mut axis.count).range(1..=200),
            );
            ui.checkbox(&mut axis.log, "Logarithmic");
        }
    });
}

/// Draws one sweep; returns true when the user deletes it.
fn sweep_ui(
    ui: &mut egui::Ui,
    pane: PaneId,
    run: &mut SweepRun,
    support: &SweepSupport,
    forms: &mut SweepForms,
    jobs: &JobBoard,
    remote: Option<&mut (dyn RemoteRunner + '_)>,
) -> bool {
    let mut delete = false;
    let total = super::missing_points(&SweepDoc {
        results: Vec::new(),
        ..run.doc.clone()
    })
    .map_or(0, |m| m.len());
    let done = run.doc.results.iter().filter(|p| p.error.is_none()).count();
    ui.horizontal(|ui| {
        ui.strong(&run.doc.name);
        let axes: Vec<&str> = run.doc.axes.iter().map(|a| a.param.as_str()).collect();
        ui.label(format!(
            "over {} — {done} of {total} points",
            axes.join(" × ")
        ));
        if !run.doc.is_current(support) && !run.doc.results.is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "stale: the panel's parameters changed",
            )
            .on_hover_text("Running again recomputes every point with the current parameters.");
        }
    });
    let mut on_remote = false;
    if let Some(remote) = &remote {
        let key = (pane, run.doc.name.clone());
        // Until the user chooses, a sweep with work on the remote runner shows it there.
        let chosen = forms.run_on.get(&key).copied();
        let mut choice = chosen.unwrap_or_else(|| remote.has_work(pane, &run.doc.name));
        let before = choice;
        ui.horizontal(|ui| {
            ui.label("Run on:");
            // A local run in progress keeps the sweep here until it ends.
            ui.add_enabled_ui(run.job.is_none(), |ui| {
                ui.selectable_value(&mut choice, false, "this machine");
                ui.selectable_value(&mut choice, true, remote.name());
            });
        });
        if choice != before {
            forms.run_on.insert(key, choice);
        }
        on_remote = choice && run.job.is_none();
    }
    ui.horizontal(|ui| {
        if on_remote {
            // The runner draws its own submit and cancel controls below.
        } else if let Some(job) = &run.job {
            let fraction = job.info().progress.fraction() as f32;
            ui.add(
                egui::ProgressBar::new(fraction)
                    .desired_width(200.0)
                    .show_percentage(),
            );
            if ui.button(format!("Cancel {}", run.doc.name)).clicked() {
                job.cancel();
            }
        } else if ui.button(format!("Run {}", run.doc.name)).clicked() {
            start_sweep_run(run, support, jobs, Some(ui.ctx().clone()));
        }
        if ui.button("Export CSV…").clicked() {
            export_csv(run);
        }
        if run.doc.axes.len() == 2 {
            ui.selectable_value(&mut run.doc.view, TwoDimView::Lines, "Lines");
            ui.selectable_value(&mut run.doc.view, TwoDimView::Heatmap, "Heatmap");
        }
        if run.job.is_none() && ui.button("Delete").clicked() {
            delete = true;
        }
    });
    if let (true, Some(remote)) = (on_remote, remote) {
        remote.controls_ui(ui, pane, run, support);
    }
    if let Some(error) = &run.error {
        ui.colored_label(ui.visuals().error_fg_color, error);
    }
    let failed: Vec<&str> = run
        .doc
        .results
        .iter()
        .filter_map(|p| p.error.as_deref())
        .collect();
    if let Some(first) = failed.first() {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("{} points failed, e.g.: {first}", failed.len()),
        );
    }
    if !run.doc.results.is_empty() {
        let figure = sweep_figure(&run.doc, support);
        let state = forms.views.entry((pane, run.doc.name.clone())).or_default();
        // Each row of subplots gets a legible height; the sweeps view scrolls.
        let rows = figure.layout().0 as f32;
        let height = SWEEP_ROW_HEIGHT * rows + SWEEP_TITLE_HEIGHT;
        ui.allocate_ui(egui::vec2(ui.available_width(), height), |ui| {
            show_figure(ui, &figure, state);
        });
        results_table(ui, &run.doc);
    }
    delete
}

fn export_csv(run: &mut SweepRun) {
    let Some(path) = rfd::FileDialog::new()
        .add_filter("CSV", &["csv"])
        .set_file_name(format!("{}.csv", crate::export::slug(&run.doc.name)))
        .save_file()
    else {
        return;
    };
    let written = super::to_csv(&run.doc)
        .and_then(|text| Ok(crate::project::write_atomic(&path, text.as_bytes())?));
    if let Err(error) = written {
        run.error = Some(format!("{}: {error:#}", path.display()));
    }
}

fn results_table(ui: &mut egui::Ui, doc: &SweepDoc) {
    use egui_extras::{Column, TableBuilder};
    let columns = doc.axes.len() + 1 + doc.outputs.len();
    egui::CollapsingHeader::new(format!("Table of {} results", doc.results.len()))
        .id_salt(("table", &doc.name))
        .show(ui, |ui| {
            TableBuilder::new(ui)
                .id_salt(("sweep table", &doc.name))
                .striped(true)
                .max_scroll_height(240.0)
                .columns(Column::auto().at_least(70.0), columns)
                .header(20.0, |mut header| {
                    for axis in &doc.axes {
                        header.col(|ui| {
                            ui.strong(&axis.param);
                        });
                    }
                    header.col(|ui| {
                        ui.strong("repeat");
                    });
                    for output in &doc.outputs {
                        header.col(|ui| {
                            ui.strong(output);
                        });
                    }
                })
                .body(|body| {
                    body.rows(18.0, doc.results.len(), |mut row| {
                        let point = &doc.results[row.index()];
                        for value in &point.coords {
                            row.col(|ui| {
                                ui.label(format!("{value:.4}"));
                            });
                        }
                        row.col(|ui| {
                            ui.label(point.repeat.to_string());
                        });
                        for output in &doc.outputs {
                            row.col(|ui| {
                                let error = point
                                    .outputs
                                    .get(&format!("{output}{}", super::ERROR_SUFFIX));
                                match (point.outputs.get(output), &point.error) {
                                    (Some(value), _) => match error {
                                        Some(e) => ui.label(format!("{value:.5} ± {e:.5}")),
                                        None => ui.label(format!("{value:.6}")),
                                    },
                                    (None, Some(error)) => ui.label("failed").on_hover_text(error),
                                    (None, None) => ui.label("—"),
                                };
                            });
                        }
                    });
                });
        });
}

fn label_of(support: &SweepSupport, key: &str) -> String {
    support
        .params
        .iter()
        .find(|p| p.key == key)
        .map(|p| p.label.clone())
        .or_else(|| {
            support
                .outputs
                .iter()
                .find(|o| o.key == key)
                .map(|o| o.label.clone())
        })
        .unwrap_or_else(|| key.to_owned())
}

/// The figure of a sweep: per output, mean ± standard deviation over repeats against the
/// first parameter (one series per value of the second), or a heatmap over both; reference
/// curves from the panel are drawn dashed.
pub fn sweep_figure(doc: &SweepDoc, support: &SweepSupport) -> Figure {
    let points = aggregate(doc);
    let n = doc.outputs.len().max(1);
    let cols = if n > 1 { 2 } else { 1 };
    let mut figure = Figure::new(&doc.name)
        .grid(n.div_ceil(cols), cols)
        .size_in(6.4, 2.6 * n.div_ceil(cols) as f64 + 0.6);
    let Some(first) = doc.axes.first() else {
        return figure;
    };
    for output in &doc.outputs {
        // The subplot's title names the output, so its y axis needs no second, rotated copy
        // (which overran the title in small subplots).
        let mut subplot =
            Subplot::new(label_of(support, output)).x_label(label_of(support, &first.param));
        let second = doc.axes.get(1);
        match (second, doc.view) {
            (Some(second), TwoDimView::Heatmap) => {
                let xs = first.grid.values().unwrap_or_default();
                let ys = second.grid.values().unwrap_or_default();
                let mut values = vec![f64::NAN; xs.len() * ys.len()];
                for point in &points {
                    let ix = xs.iter().position(|&x| (x - point.coords[0]).abs() < 1e-12);
                    let iy = ys.iter().position(|&y| (y - point.coords[1]).abs() < 1e-12);
                    if let (Some(ix), Some(iy), Some(&(mean, _, _))) =
                        (ix, iy, point.outputs.get(output))
                    {
                        values[iy * xs.len() + ix] = mean;
                    }
                }
                let extent = |v: &[f64]| {
                    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
                    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    (lo, if hi > lo { hi } else { lo + 1.0 })
                };
                subplot = subplot.y_label(label_of(support, &second.param)).heatmap(
                    Heatmap::new(
                        output.clone(),
                        extent(&xs),
                        extent(&ys),
                        xs.len(),
                        ys.len(),
                        values,
                    )
                    .colorbar_label(label_of(support, output)),
                );
            }
            (Some(second), TwoDimView::Lines) => {
                for (index, value) in second
                    .grid
                    .values()
                    .unwrap_or_default()
                    .into_iter()
                    .enumerate()
                {
                    let series: Vec<_> = points
                        .iter()
                        .filter(|p| (p.coords[1] - value).abs() < 1e-12)
                        .collect();
                    for item in series_items(
                        &format!("{} = {value}", label_of(support, &second.param)),
                        &series,
                        output,
                        Rgba::cycle(index),
                    ) {
                        subplot = subplot.with(item);
                    }
                }
                subplot = subplot.legend(true);
            }
            (None, _) => {
                let series: Vec<_> = points.iter().collect();
                for item in
                    series_items(&label_of(support, output), &series, output, Rgba::cycle(0))
                {
                    subplot = subplot.with(item);
                }
            }
        }
        if doc.view == TwoDimView::Lines || doc.axes.len() == 1 {
            let xs: Vec<f64> = points.iter().map(|p| p.coords[0]).collect();
            let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if lo.is_finite()
                && let Some(reference) = (support.references)(&first.param, output, lo, hi)
            {
                let (rx, ry): (Vec<f64>, Vec<f64>) = reference.points.iter().copied().unzip();
                subplot = subplot
                    .with(
                        Line::new(reference.label, rx, ry)
                            .dash(Dash::Dashed)
                            .color(Rgba::GREY),
                    )
                    .legend(true);
            }
        }
        figure = figure.subplot(subplot);
    }
    figure
}

/// One series of a sweep: a line through the means (named, for the legend) and the ± one
/// standard deviation bars over repeats (unnamed), in one colour.
fn series_items(
    name: &str,
    points: &[&super::AggregatedPoint],
    output: &str,
    color: Rgba,
) -> [Item; 2] {
    let mut rows: Vec<(f64, f64, f64)> = points
        .iter()
        .filter_map(|p| {
            p.outputs
                .get(output)
                .map(|&(mean, std, _)| (p.coords[0], mean, std))
        })
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let xs: Vec<f64> = rows.iter().map(|r| r.0).collect();
    let ys: Vec<f64> = rows.iter().map(|r| r.1).collect();
    let errs: Vec<f64> = rows.iter().map(|r| r.2).collect();
    [
        Line::new(name, xs.clone(), ys.clone()).color(color).into(),
        ErrorBars::new("", xs, ys, errs).color(color).into(),
    ]
}
