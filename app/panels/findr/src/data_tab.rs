//! The data tab: synthetic Poisson-clicks trials from the planted flow, or trials from a file;
//! a spike raster of one trial with its clicks and the PSTHs of one neuron by evidence.

use benchtop_kit::file_dialog::{Filter, Kind, Request};
use std::path::Path;
use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_findr::synthetic::generate;

use super::figures::{
    bin_times, cool_warm, group_label, largest_magnitude, legend_group, psth_hz, raster_subplot,
    trial_groups,
};
use super::params::DELAY_HINT;
use super::{
    DataParams, DataSource, ENGINE, FindrModel, FindrPanelParams, FindrView, LoadedData,
    SavedResults,
};
use benchtop_kit::data::DataStep;
use benchtop_kit::figure::{Figure, FigureViewState, Line, Subplot, show_figure};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{PanelFigure, Recipe};
use benchtop_kit::project::Sidecar;
use benchtop_kit::widgets::{controls_and_view, file_field, labelled};

/// Bins of the PSTH smoothing box.
pub(super) const PSTH_SMOOTH_BINS: usize = 7;

/// Generates or reads the trials `params` describe.
pub(super) fn load(
    params: &DataParams,
    project_dir: Option<&Path>,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<LoadedData, ComputeError> {
    params.validate()?;
    match params.source {
        DataSource::Synthetic => {
            let data = generate(&params.synthetic, params.synthetic_seed, progress, cancel)?;
            Ok(LoadedData {
                trials: data.trials,
                truth: Some(data.truth),
                source: format!("synthetic, seed {}", params.synthetic_seed),
            })
        }
        DataSource::File => {
            let path = params.file.resolve(project_dir);
            progress.set(0.1, format!("reading {}", path.display()));
            let trials = benchtop_findr::load::load_trials(&path, params.file_bin_s)?;
            cancel.check()?;
            let name = path.file_name().map_or_else(
                || path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            Ok(LoadedData {
                trials,
                truth: None,
                source: name,
            })
        }
    }
}

/// Generating or reading the trials: keyed by the data parameters.
pub(super) struct DataTab {
    pub(super) task: DataStep<DataParams, LoadedData>,
    /// The outcome of the last export.
    exported: Option<String>,
    plots: FigureViewState,
}

impl Default for DataTab {
    fn default() -> Self {
        Self {
            task: DataStep::new("findr: trials", load),
            exported: None,
            plots: FigureViewState::default(),
        }
    }
}

impl DataTab {
    /// The trials in use, if any.
    pub(super) fn loaded(&self) -> Option<Arc<LoadedData>> {
        self.task.loaded()
    }

    /// Generates or reads the trials the parameters describe.
    pub(super) fn start(&mut self, cx: &mut Cx<'_, FindrModel>) {
        self.task
            .start(&cx.runner, cx.params.data.clone(), cx.project_dir);
    }

    pub(super) fn restore(
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &FindrPanelParams,
    ) -> anyhow::Result<Self> {
        let mut tab = Self::default();
        tab.task.restore(results, sidecar, params.data.clone())?;
        Ok(tab)
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, FindrModel>) {
        controls_and_view(
            ui,
            "findr data controls",
            300.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls_ui(ui, cx),
            |(tab, cx), ui| match tab.figure(cx.view) {
                Some(figure) => show_figure(ui, &figure, &mut tab.plots),
                None => {
                    ui.label(
                        "Generate synthetic trials (a planted line attractor with two point \
                         attractors) or load trials from a file to see a spike raster and PSTHs.",
                    );
                }
            },
        );
    }

    fn controls_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, FindrModel>) {
        let data = &mut cx.params.data;
        ui.strong("Trials");
        ui.horizontal(|ui| {
            ui.selectable_value(&mut data.source, DataSource::Synthetic, "Synthetic");
            ui.selectable_value(&mut data.source, DataSource::File, "From a file");
        });
        match cx.params.data.source {
            DataSource::Synthetic => synthetic_controls(ui, cx),
            DataSource::File => {
                file_field(
                    ui,
                    "Trial file",
                    &mut cx.params.data.file.path,
                    "NPZ or CSV",
                    ("FINDR trials", &["npz", "csv"]),
                );
                cx.param(ui, "data.file_bin_s");
                ui.label(
                    "NPZ: spikes[trials, T, N], externalinputs[trials, T, 2], lengths, times, \
                     optional choices.",
                );
            }
        }
        let action = match cx.params.data.source {
            DataSource::Synthetic => "Generate synthetic data",
            DataSource::File => "Load trials",
        };
        if self.task.controls(ui, &cx.params.data, action, "Stop") {
            self.start(cx);
        }
        let Some(loaded) = self.loaded() else {
            return;
        };
        let view = &mut *cx.view;
        let t = &loaded.trials;
        ui.separator();
        let shortest = t.lengths.iter().copied().min().unwrap_or(0);
        let spikes: f64 = t.spikes.iter().map(|&s| f64::from(s)).sum();
        let rate = spikes / (t.valid_bins().max(1) as f64 * t.bin_s) / t.n_neurons.max(1) as f64;
        ui.label(format!(
            "{}: {} trials, {} neurons, {shortest}–{} bins of {} ms; mean rate {rate:.1} Hz",
            loaded.source,
            t.n_trials,
            t.n_neurons,
            t.max_bins,
            t.bin_s * 1000.0
        ));
        labelled(
            ui,
            "Trial shown",
            egui::DragValue::new(&mut view.trial)
                .range(0..=t.n_trials.saturating_sub(1))
                .custom_formatter(|v, _| format!("{}", v + 1.0))
                .custom_parser(|s| s.trim().parse::<f64>().ok().map(|v| v - 1.0)),
        );
        labelled(
            ui,
            "Neuron shown",
            egui::DragValue::new(&mut view.neuron).range(0..=t.n_neurons.saturating_sub(1)),
        );
        let clicked = loaded.truth.is_some() && ui.button("Export trials to NPZ…").clicked();
        let request = clicked.then(|| {
            Request::new(Kind::Save, "Export trials to NPZ")
                .filter(Filter::new("NumPy archive", &["npz"]))
                .file_name("findr-trials.npz")
        });
        let id = ui.scope_id().with("findr trials npz");
        if let Some(path) = benchtop_kit::file_dialog::pick(ui.ctx(), id, request) {
            self.exported = Some(match benchtop_findr::load::save_npz(t, &path) {
                Ok(()) => format!("Wrote {}", path.display()),
                Err(error) => error.to_string(),
            });
        }
        if let Some(text) = &self.exported {
            ui.label(text.as_str());
        }
    }

    fn figure(&self, view: &FindrView) -> Option<Figure> {
        let data = self.task.result()?;
        Some(data_figure(data, view))
    }

    pub(super) fn figures(&self, params: &FindrPanelParams, view: &FindrView) -> Vec<PanelFigure> {
        let seed =
            (params.data.source == DataSource::Synthetic).then_some(params.data.synthetic_seed);
        let recipe = Recipe::new(ENGINE, &params.data, seed);
        self.figure(view)
            .map(|figure| recipe.figure("findr-data", figure))
            .into_iter()
            .collect()
    }

    pub(super) fn summary(&self) -> serde_json::Value {
        let Some(data) = self.task.result() else {
            return serde_json::Value::Null;
        };
        let t = &data.trials;
        serde_json::json!({
            "source": data.source,
            "trials": t.n_trials,
            "neurons": t.n_neurons,
            "max_bins": t.max_bins,
            "bin_s": t.bin_s,
            "spikes": t.spikes.iter().map(|&s| f64::from(s)).sum::<f64>(),
        })
    }
}

fn synthetic_controls(ui: &mut egui::Ui, cx: &mut Cx<'_, FindrModel>) {
    cx.params(
        ui,
        &[
            "data.synthetic.n_trials",
            "data.synthetic.n_neurons",
            "data.synthetic.min_bins",
            "data.synthetic.max_bins",
        ],
    );
    delay_controls(ui, cx);
    ui.strong("Planted flow");
    cx.params(
        ui,
        &[
            "data.synthetic.flow.non_normal_angle_rad",
            "data.synthetic.flow.across_decay",
            "data.synthetic.flow.bump_strength",
            "data.synthetic.flow.bump_width",
            "data.synthetic.flow.attractor_position",
            "data.synthetic.flow.input_gain",
            "data.synthetic.latent_noise",
            "data.synthetic_seed",
        ],
    );
}

/// The delay: a checkbox "clicks only in the first" and the clicks' window in seconds (the
/// declared `data.synthetic.stimulus_s`, whose 0 is the unchecked box).
fn delay_controls(ui: &mut egui::Ui, cx: &mut Cx<'_, FindrModel>) {
    let declared = cx.declared.get("data.synthetic.stimulus_s");
    let label = declared.map_or("Clicks only in the first", |p| p.label);
    let (unit, speed, max) = declared.map_or((" s", 0.01, 100.0), |p| (p.unit, p.speed, p.max));
    let s = &mut cx.params.data.synthetic;
    let mut delay = s.stimulus_s.is_some();
    ui.horizontal(|ui| {
        ui.checkbox(&mut delay, label).on_hover_text(DELAY_HINT);
        let mut stimulus = s.stimulus_s.unwrap_or(0.4);
        ui.add_enabled(
            delay,
            egui::DragValue::new(&mut stimulus)
                .speed(speed)
                .range(0.01..=max)
                .suffix(unit),
        );
        s.stimulus_s = delay.then_some(stimulus);
    });
}

/// The raster of the chosen trial and the PSTHs of the chosen neuron by trial group.
pub(super) fn data_figure(data: &LoadedData, view: &FindrView) -> Figure {
    let t = &data.trials;
    let neuron = view.neuron.min(t.n_neurons.saturating_sub(1));
    let gammas = data.truth.as_ref().map(|truth| truth.gammas.as_slice());
    let groups = trial_groups(t, gammas);
    let largest = largest_magnitude(groups.iter().map(|g| g.0));
    let times = bin_times(t.max_bins, t.bin_s);
    let mut psths = Subplot::new(format!(
        "Neuron {neuron}: PSTH by {} ({PSTH_SMOOTH_BINS}-bin smoothing)",
        if gammas.is_some() {
            "evidence strength γ"
        } else {
            "net click rate"
        }
    ))
    .x_label("Time in trial (s)")
    .y_label("Rate (Hz)")
    .legend(true);
    for (index, (value, members)) in groups.iter().enumerate() {
        let rate = psth_hz(t, members, neuron, PSTH_SMOOTH_BINS);
        let name = if legend_group(index, groups.len()) {
            group_label(*value, gammas.is_some())
        } else {
            String::new()
        };
        psths.push(Line::new(name, times.clone(), rate).color(cool_warm(*value, largest)));
    }
    Figure::new(format!("Trials: {}", data.source))
        .grid(1, 2)
        .size_in(12.0, 4.5)
        .subplot(raster_subplot(t, view.trial))
        .subplot(psths)
}
