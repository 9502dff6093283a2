//! The Sweeps view's "Slurm cluster": the submit form (the CLI's `sweep submit` settings), the
//! jobs' status as the background polls of [`ClusterWatch`] find it, and cancel.

use std::path::{Path, PathBuf};

use benchtop_kit::jobs::JobBoard;
use benchtop_kit::project::PaneId;
use benchtop_kit::sweep::{RemoteRunner, SweepRun, SweepSupport};
use benchtop_kit::widgets::labelled_inline;

use crate::cluster::collect::SweepReport;
use crate::cluster::slurm::Commands;
use crate::cluster::watch::{Action, ClusterSettings, ClusterWatch, SweepCluster};

/// The Slurm cluster as the Sweeps view's remote runner, for one frame.
pub(super) struct SlurmRunner<'a> {
    /// The project's cluster jobs.
    pub watch: &'a mut ClusterWatch,
    /// The project file (`None` while untitled).
    pub project: Option<&'a Path>,
    /// Whether the project has unsaved changes (submitting then asks to save first).
    pub unsaved: bool,
    /// The status bar's jobs (submit and cancel are listed there).
    pub jobs: &'a JobBoard,
}

impl RemoteRunner for SlurmRunner<'_> {
    fn name(&self) -> String {
        "Slurm cluster".to_owned()
    }

    fn has_work(&self, _pane: PaneId, sweep: &str) -> bool {
        self.watch.sweep(sweep).is_some_and(SweepCluster::has_jobs)
    }

    fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        pane: PaneId,
        run: &mut SweepRun,
        _support: &SweepSupport,
    ) {
        let name = run.doc.name.clone();
        ui.push_id(("slurm", pane.0, &name), |ui| {
            settings_ui(ui, self.watch.settings_mut(&name));
            egui::CollapsingHeader::new("Slurm commands")
                .id_salt("commands")
                .show(ui, |ui| commands_ui(ui, &mut self.watch.commands));
            let ctx = ui.ctx().clone();
            let (busy, active) = self
                .watch
                .sweep(&name)
                .map_or((None, false), |s| (s.action(), s.is_active()));
            ui.horizontal(|ui| {
                let submit = ui
                    .add_enabled(busy.is_none(), egui::Button::new("Submit to Slurm"))
                    .on_hover_text(
                        "Submits the points that are neither done, nor computed, nor queued or \
                         running (benchtop sweep submit)",
                    );
                if submit.clicked() {
                    self.watch
                        .submit(&name, self.project, self.unsaved, self.jobs, &ctx);
                }
                if ui
                    .add_enabled(
                        busy.is_none() && active,
                        egui::Button::new("Cancel cluster jobs"),
                    )
                    .on_hover_text("scancel the sweep's queued and running jobs")
                    .clicked()
                {
                    self.watch.cancel(&name, self.jobs, &ctx);
                }
                if ui.button("Refresh status").clicked() {
                    self.watch.refresh(&name);
                }
                match busy {
                    Some(Action::Submit) => {
                        ui.spinner();
                        ui.label("submitting…");
                    }
                    Some(Action::Cancel) => {
                        ui.spinner();
                        ui.label("cancelling…");
                    }
                    None => {}
                }
            });
            if let Some(sweep) = self.watch.sweep(&name) {
                status_ui(ui, sweep);
            }
        });
    }
}

/// The submit settings.
fn settings_ui(ui: &mut egui::Ui, settings: &mut ClusterSettings) {
    ui.horizontal_wrapped(|ui| {
        labelled_inline(
            ui,
            "Partition",
            egui::TextEdit::singleline(&mut settings.partition)
                .hint_text("default")
                .desired_width(90.0),
        );
        labelled_inline(
            ui,
            "Time per task",
            egui::TextEdit::singleline(&mut settings.time)
                .hint_text("HH:MM:SS")
                .desired_width(80.0),
        );
        labelled_inline(
            ui,
            "CPUs per task",
            egui::DragValue::new(&mut settings.cpus_per_task).range(1..=256),
        );
        labelled_inline(
            ui,
            "Memory",
            egui::TextEdit::singleline(&mut settings.mem)
                .hint_text("e.g. 4G")
                .desired_width(70.0),
        );
    });
    ui.horizontal_wrapped(|ui| {
        labelled_inline(
            ui,
            "Points per task",
            egui::DragValue::new(&mut settings.points_per_task).range(1..=10_000),
        );
        labelled_inline(
            ui,
            "Tasks at once",
            egui::DragValue::new(&mut settings.max_parallel).range(1..=10_000),
        );
        ui.checkbox(&mut settings.dry_run, "Dry run")
            .on_hover_text("Write the job folder and show the sbatch command without running it");
    });
    ui.horizontal(|ui| {
        labelled_inline(
            ui,
            "Program the tasks run",
            egui::TextEdit::singleline(&mut settings.benchtop)
                .hint_text("this benchtop")
                .desired_width(ui.available_width().min(480.0)),
        )
        .on_hover_text("It must be readable at this path on the compute nodes");
    });
}

/// Where Slurm's commands come from (shared by every sweep).
fn commands_ui(ui: &mut egui::Ui, commands: &mut Commands) {
    path_field(
        ui,
        "Folder of sbatch and squeue",
        "PATH",
        &mut commands.folder,
    );
    path_field(ui, "SLURM_CONF", "the environment's", &mut commands.conf);
}

fn path_field(ui: &mut egui::Ui, label: &str, hint: &str, path: &mut Option<PathBuf>) {
    let mut text = path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    ui.horizontal(|ui| {
        let field = egui::TextEdit::singleline(&mut text)
            .hint_text(hint)
            .desired_width(ui.available_width().min(420.0));
        if labelled_inline(ui, label, field).changed() {
            *path = (!text.trim().is_empty()).then(|| PathBuf::from(&text));
        }
    });
}

/// One line saying where the sweep's cluster jobs stand, their failures and the last message.
fn status_ui(ui: &mut egui::Ui, sweep: &SweepCluster) {
    if let Some(message) = &sweep.message {
        ui.label(message);
    }
    if let Some(error) = &sweep.error {
        ui.colored_label(ui.visuals().error_fg_color, error);
    }
    let Some(report) = &sweep.report else {
        if sweep.is_polling() {
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label("looking for this sweep's cluster jobs…");
            });
        }
        return;
    };
    if report.jobs.is_empty() {
        ui.weak("No cluster jobs for this sweep yet.");
        return;
    }
    ui.horizontal(|ui| {
        ui.label(status_line(sweep, report));
        if sweep.is_polling() {
            ui.spinner();
        }
    });
    if let Some(error) = &report.queue_error {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("Could not ask Slurm: {error}"),
        );
    }
    if let Some(merge) = &report.merge
        && !merge.stale_jobs.is_empty()
    {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!(
                "Not merged, computed with other panel parameters: {}",
                merge.stale_jobs.join(", ")
            ),
        );
    }
    for job in &report.jobs {
        for task in &job.failed_tasks {
            ui.colored_label(
                ui.visuals().error_fg_color,
                format!(
                    "{} task {} failed ({}): {}",
                    job.job_id.as_deref().unwrap_or("job"),
                    task.task,
                    task.slurm_state.as_deref().unwrap_or("ended"),
                    task.stderr_tail.as_deref().unwrap_or("").trim()
                ),
            );
        }
    }
    egui::CollapsingHeader::new(format!("Cluster jobs ({})", report.jobs.len()))
        .id_salt("jobs")
        .show(ui, |ui| {
            for job in &report.jobs {
                let tasks: Vec<String> = job
                    .tasks
                    .iter()
                    .map(|(state, count)| format!("{count} {}", state.replace('_', " ")))
                    .collect();
                ui.label(format!(
                    "{} — Slurm job {}: {} of {} points, tasks {}{}",
                    job.folder.display(),
                    job.job_id.as_deref().unwrap_or("not submitted"),
                    job.finished,
                    job.points,
                    tasks.join(", "),
                    if job.stale { " (stale)" } else { "" }
                ));
            }
        });
}

/// `Running: 1 queued, 1 running, 0 done, 0 failed tasks; 3 of 8 points in`.
fn status_line(sweep: &SweepCluster, report: &SweepReport) -> String {
    let counts = sweep.task_counts();
    let count = |state: &str| counts.get(state).copied().unwrap_or(0);
    let word = if count("running") > 0 {
        "Running"
    } else if count("queued") > 0 {
        "Queued"
    } else if count("unknown") > 0 {
        "Unknown"
    } else if count("not_submitted") > 0 {
        "Not submitted"
    } else if count("failed") > 0 {
        "Failed"
    } else {
        "Done"
    };
    let mut line = format!(
        "{word}: {} queued, {} running, {} done, {} failed tasks; {} of {} points in",
        count("queued"),
        count("running"),
        count("done"),
        count("failed"),
        report.done,
        report.total
    );
    if count("not_submitted") > 0 {
        line.push_str(&format!(
            "; {} tasks not submitted (dry run)",
            count("not_submitted")
        ));
    }
    line
}
