//! The data tab: synthetic Poisson-clicks trials from the planted flow, or trials from a file;
//! a spike raster of one trial with its clicks and the PSTHs of one neuron by evidence.

use std::path::Path;
use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_findr::synthetic::generate;

use super::figures::{
    bin_times, cool_warm, group_label, largest_magnitude, legend_group, psth_hz, raster_subplot,
    trial_groups,
};
use super::{
    DataParams, DataSource, ENGINE, FindrPanelParams, FindrView, LoadedData, SavedResults, engine,
    saved,
};
use benchtop_kit::figure::{Figure, FigureViewState, Line, Subplot, show_figure};
use benchtop_kit::jobs::{Job, JobOutcome};
use benchtop_kit::panel::{PanelContext, PanelFigure};
use benchtop_kit::project::Sidecar;
use benchtop_kit::widgets::{job_progress, labelled};

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
            let trials = engine::load_trials(&path, params.file_bin_s)?;
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

#[derive(Default)]
pub(super) struct DataTab {
    job: Option<Job<(), LoadedData>>,
    data: Option<Arc<LoadedData>>,
    /// The parameters the trials were made with.
    current: Option<DataParams>,
    error: Option<String>,
    /// The outcome of the last export.
    exported: Option<String>,
    plots: FigureViewState,
}

impl DataTab {
    pub(super) fn is_busy(&self) -> bool {
        self.job.is_some()
    }

    pub(super) fn loaded(&self) -> Option<Arc<LoadedData>> {
        self.data.clone()
    }

    pub(super) fn mark_current(&mut self, params: &FindrPanelParams) {
        if self.data.is_some() {
            self.current = Some(params.data.clone());
        }
    }

    fn start(
        &mut self,
        params: &FindrPanelParams,
        project_dir: Option<&Path>,
        context: &PanelContext<'_>,
        ctx: &egui::Context,
    ) {
        self.job = None;
        if let Err(error) = params.data.validate() {
            self.error = Some(error.to_string());
            return;
        }
        self.error = None;
        self.current = Some(params.data.clone());
        let data = params.data.clone();
        let dir = project_dir.map(Path::to_path_buf);
        let spawned = Job::spawn(
            "findr: trials",
            context.jobs,
            Some(ctx.clone()),
            move |job| load(&data, dir.as_deref(), &job.progress, &job.cancel),
        );
        match spawned {
            Ok(job) => self.job = Some(job),
            Err(error) => self.error = Some(error.to_string()),
        }
    }

    pub(super) fn poll(&mut self) {
        if let Some(job) = &mut self.job
            && let Some(outcome) = job.try_finish()
        {
            self.job = None;
            match outcome {
                JobOutcome::Finished(data) => self.data = Some(Arc::new(data)),
                JobOutcome::Cancelled => {}
                JobOutcome::Failed(message) => self.error = Some(message),
            }
        }
    }

    /// Generates or reads the trials on the calling thread (headless runs).
    pub(super) fn load_blocking(
        &mut self,
        params: &FindrPanelParams,
        project_dir: Option<&Path>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<(), ComputeError> {
        let data = load(&params.data, project_dir, progress, cancel)?;
        self.data = Some(Arc::new(data));
        self.current = Some(params.data.clone());
        Ok(())
    }

    pub(super) fn save(
        &self,
        results: &mut SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        match &self.data {
            Some(data) => saved::save_data(data, results, sidecar),
            None => Ok(()),
        }
    }

    pub(super) fn restore(
        &mut self,
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        self.data = saved::restore_data(results, sidecar)?.map(Arc::new);
        Ok(())
    }

    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut FindrPanelParams,
        view: &mut FindrView,
        project_dir: Option<&Path>,
        context: &PanelContext<'_>,
    ) {
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.set_width(300.0);
                egui::ScrollArea::vertical()
                    .id_salt("findr data controls")
                    .show(ui, |ui| {
                        self.controls_ui(ui, params, view, project_dir, context);
                    });
            });
            ui.separator();
            ui.vertical(|ui| match self.figure(view) {
                Some(figure) => show_figure(ui, &figure, &mut self.plots),
                None => {
                    ui.label(
                        "Generate synthetic trials (a planted line attractor with two point \
                         attractors) or load trials from a file to see a spike raster and PSTHs.",
                    );
                }
            });
        });
    }

    fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut FindrPanelParams,
        view: &mut FindrView,
        project_dir: Option<&Path>,
        context: &PanelContext<'_>,
    ) {
        let data = &mut params.data;
        ui.strong("Trials");
        ui.horizontal(|ui| {
            ui.selectable_value(&mut data.source, DataSource::Synthetic, "Synthetic");
            ui.selectable_value(&mut data.source, DataSource::File, "From a file");
        });
        match data.source {
            DataSource::Synthetic => synthetic_controls(ui, data),
            DataSource::File => {
                labelled(
                    ui,
                    "Trial file",
                    egui::TextEdit::singleline(&mut data.file.path).hint_text("NPZ or CSV"),
                );
                if ui.button("Choose file…").clicked()
                    && let Some(path) = rfd::FileDialog::new()
                        .add_filter("FINDR trials", &["npz", "csv"])
                        .pick_file()
                {
                    data.file.path = path.display().to_string();
                }
                labelled(
                    ui,
                    "Bin width (s)",
                    egui::DragValue::new(&mut data.file_bin_s)
                        .speed(0.001)
                        .range(0.0001..=1.0),
                );
                ui.label(
                    "NPZ: spikes[trials, T, N], externalinputs[trials, T, 2], lengths, times, \
                     optional choices.",
                );
            }
        }
        let action = match params.data.source {
            DataSource::Synthetic => "Generate synthetic data",
            DataSource::File => "Load trials",
        };
        if let Some(job) = &self.job {
            if job_progress(ui, job.info(), "Stop") {
                job.cancel();
            }
        } else if ui.button(action).clicked() {
            self.start(params, project_dir, context, ui.ctx());
        }
        if self.data.is_some() && self.current.as_ref() != Some(&params.data) {
            ui.label("The settings changed since these trials were made.");
        }
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        let Some(loaded) = self.data.clone() else {
            return;
        };
        let t = &loaded.trials;
        ui.separator();
        let shortest = t.lengths.iter().copied().min().unwrap_or(0);
        let spikes: f64 = t.spikes.iter().map(|&s| f64::from(s)).sum();
        #[allow(clippy::cast_precision_loss)]
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
        if loaded.truth.is_some()
            && ui.button("Export trials to NPZ…").clicked()
            && let Some(path) = rfd::FileDialog::new()
                .add_filter("NumPy archive", &["npz"])
                .set_file_name("findr-trials.npz")
                .save_file()
        {
            self.exported = Some(match engine::save_npz(t, &path) {
                Ok(()) => format!("Wrote {}", path.display()),
                Err(error) => error.to_string(),
            });
        }
        if let Some(text) = &self.exported {
            ui.label(text.as_str());
        }
    }

    fn figure(&self, view: &FindrView) -> Option<Figure> {
        let data = self.data.as_ref()?;
        Some(data_figure(data, view))
    }

    pub(super) fn figures(&self, params: &FindrPanelParams, view: &FindrView) -> Vec<PanelFigure> {
        self.figure(view)
            .map(|figure| PanelFigure {
                name: "findr-data".into(),
                figure,
                params: serde_json::to_value(&params.data).unwrap_or_default(),
                seed: (params.data.source == DataSource::Synthetic)
                    .then_some(params.data.synthetic_seed),
                engine: ENGINE,
            })
            .into_iter()
            .collect()
    }

    pub(super) fn summary(&self) -> serde_json::Value {
        let Some(data) = &self.data else {
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

fn synthetic_controls(ui: &mut egui::Ui, data: &mut DataParams) {
    let s = &mut data.synthetic;
    labelled(
        ui,
        "Trials",
        egui::DragValue::new(&mut s.n_trials).range(1..=100_000),
    );
    labelled(
        ui,
        "Neurons",
        egui::DragValue::new(&mut s.n_neurons).range(1..=10_000),
    );
    labelled(
        ui,
        "Shortest trial (bins)",
        egui::DragValue::new(&mut s.min_bins).range(1..=10_000),
    );
    labelled(
        ui,
        "Longest trial (bins)",
        egui::DragValue::new(&mut s.max_bins).range(1..=10_000),
    );
    let mut delay = s.stimulus_s.is_some();
    ui.horizontal(|ui| {
        ui.checkbox(&mut delay, "Clicks only in the first")
            .on_hover_text("The rest of each trial is a delay without clicks, where the autonomous flow alone moves the latent.");
        let mut stimulus = s.stimulus_s.unwrap_or(0.4);
        ui.add_enabled(
            delay,
            egui::DragValue::new(&mut stimulus)
                .speed(0.01)
                .range(0.01..=100.0)
                .suffix(" s"),
        );
        s.stimulus_s = delay.then_some(stimulus);
    });
    ui.strong("Planted flow");
    let f = &mut s.flow;
    labelled(
        ui,
        "Non-normal angle θ (rad)",
        egui::DragValue::new(&mut f.non_normal_angle_rad)
            .speed(0.01)
            .range(-1.49..=1.49),
    );
    labelled(
        ui,
        "Decay across the line (1/τ)",
        egui::DragValue::new(&mut f.across_decay)
            .speed(0.01)
            .range(0.01..=100.0),
    );
    labelled(
        ui,
        "Bump strength (1/τ)",
        egui::DragValue::new(&mut f.bump_strength)
            .speed(0.01)
            .range(0.0..=100.0),
    );
    labelled(
        ui,
        "Bump width (latent units²)",
        egui::DragValue::new(&mut f.bump_width)
            .speed(0.001)
            .range(0.001..=0.2),
    );
    labelled(
        ui,
        "Attractor position f",
        egui::DragValue::new(&mut f.attractor_position)
            .speed(0.01)
            .range(0.0..=10.0),
    );
    labelled(
        ui,
        "Input gain (per click)",
        egui::DragValue::new(&mut f.input_gain)
            .speed(0.01)
            .range(-10.0..=10.0),
    );
    labelled(
        ui,
        "Latent noise σ",
        egui::DragValue::new(&mut s.latent_noise)
            .speed(0.001)
            .range(0.0..=10.0),
    );
    labelled(
        ui,
        "Data seed",
        egui::DragValue::new(&mut data.synthetic_seed),
    );
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
