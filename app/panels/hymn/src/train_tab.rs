//! The comparison: every method trained side by side on the same split (test MAE and seconds
//! per epoch against the number of subgraphs) and the perturbation scatter.

use benchtop_compute::ComputeError;
use benchtop_hymn::sampling::Method;
use benchtop_hymn::train::{ExperimentParams, ExperimentResult, run};
use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::host::Cx;
use benchtop_kit::jobs::JobContext;
use benchtop_kit::task::Task;
use benchtop_kit::widgets::controls_and_view;

use crate::HymnModel;
use crate::data::graph_set;
use crate::figures::{comparison_figure, perturbation_figure};
use crate::graph_tab::data_controls;
use crate::params::{DataParams, HymnParams};

/// What a comparison depends on.
pub(crate) type TrainKey = (DataParams, ExperimentParams, u64);

pub(crate) fn key(p: &HymnParams) -> TrainKey {
    (p.data.clone(), p.experiment.clone(), p.seed)
}

/// Makes or reads the set and runs the comparison.
pub fn compare(
    (data, experiment, seed): &TrainKey,
    project_dir: Option<&std::path::Path>,
    job: &JobContext<()>,
) -> Result<ExperimentResult, ComputeError> {
    job.progress.set(0.0, "graphs");
    let set = graph_set(data, *seed, project_dir)?;
    run(&set, experiment, *seed, &job.progress, &job.cancel)
}

/// The tab.
pub(crate) struct TrainTab {
    pub(crate) task: Task<TrainKey, (), ExperimentResult>,
    plots: FigureViewState,
    scatter: FigureViewState,
}

impl Default for TrainTab {
    fn default() -> Self {
        Self {
            task: Task::new("hymn: compare strategies"),
            plots: FigureViewState::default(),
            scatter: FigureViewState::default(),
        }
    }
}

impl TrainTab {
    pub(crate) fn start(&mut self, cx: &mut Cx<'_, HymnModel>) {
        self.task
            .start_from(&cx.runner, key(cx.params), cx.project_dir, compare);
    }

    pub(crate) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, HymnModel>) {
        controls_and_view(
            ui,
            "hymn train controls",
            320.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls(ui, cx),
            |(tab, _), ui| match tab.task.result() {
                Some(r) => {
                    let half = (ui.available_height() / 2.0).max(200.0);
                    ui.allocate_ui(egui::vec2(ui.available_width(), half), |ui| {
                        show_figure(ui, &comparison_figure(r), &mut tab.plots);
                    });
                    if let Some(figure) = perturbation_figure(r) {
                        show_figure(ui, &figure, &mut tab.scatter);
                    }
                }
                None => {
                    ui.label(
                        "Train the strategies to compare test MAE and time per epoch against \
                         the number of marked subgraphs.",
                    );
                }
            },
        );
    }

    fn controls(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, HymnModel>) {
        data_controls(ui, cx);
        ui.separator();
        ui.strong("Methods");
        let methods = &mut cx.params.experiment.methods;
        for m in Method::ALL {
            let mut on = methods.contains(&m);
            if ui.checkbox(&mut on, m.label()).changed() {
                if on {
                    methods.push(m);
                    methods.sort_by_key(|x| Method::ALL.iter().position(|y| y == x));
                } else {
                    methods.retain(|x| *x != m);
                }
            }
        }
        cx.params(
            ui,
            &[
                "experiment.max_subgraphs",
                "experiment.walk_terms",
                "experiment.model.hidden",
                "experiment.model.layers",
                "experiment.epochs",
                "experiment.batch_size",
                "experiment.learning_rate",
            ],
        );
        if self
            .task
            .controls(ui, &key(cx.params), "Train strategies", "Stop training")
        {
            self.start(cx);
        }
        let Some(r) = self.task.result() else {
            return;
        };
        ui.separator();
        ui.label(format!(
            "{} train / {} test graphs; MAE of {} in units of its std {:.3}",
            r.split.0, r.split.1, r.target_name, r.target_std
        ));
        egui::Grid::new("hymn results")
            .striped(true)
            .show(ui, |ui| {
                ui.strong("method");
                ui.strong("subgraphs");
                ui.strong("test MAE");
                ui.strong("s/epoch");
                ui.end_row();
                for x in &r.runs {
                    ui.label(x.method.label());
                    ui.label(format!("{:.1}", x.subgraphs));
                    ui.label(format!("{:.3}", x.test_mae));
                    ui.label(format!("{:.3}", x.seconds_per_epoch));
                    ui.end_row();
                }
            });
        if r.constant_test_mae.is_finite() {
            ui.label(format!(
                "Constant prediction (training median): test MAE {:.3}",
                r.constant_test_mae
            ));
        }
        let uninformative = r.uninformative();
        if !uninformative.is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "No better than the constant, so they learned nothing about the graphs: {}",
                    uninformative.join(", ")
                ),
            );
        }
        if let Some(line) = crate::verdict::line(r) {
            ui.label(line);
        }
        if let Some(p) = &r.perturbation {
            ui.label(format!(
                "Perturbation vs walks: Spearman ρ = {:.2} ({} graphs)",
                p.spearman, p.graphs_used
            ));
        }
    }
}
