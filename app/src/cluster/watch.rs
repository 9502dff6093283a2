//! The window's side of a project's cluster jobs: the submit settings of each sweep, submitting
//! and cancelling, and a poll every few seconds that brings the tasks' states and the finished
//! points in.
//!
//! Submitting is the CLI's [`submit_sweep_with`]; a poll is the CLI's status and collect
//! ([`survey_with`], [`merge`], [`report_of`]) on a copy of the sweep, whose new points the
//! window then adds to the sweep (held in memory like a local run's: saving the project keeps
//! them). Slurm's commands run and job folders are read in background jobs, never on the UI
//! thread. Jobs are found by scanning the project's job folders, so reopening a project picks
//! them up again.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use benchtop_kit::jobs::{Job, JobBoard, JobOutcome};
use benchtop_kit::sweep::{SweepDoc, SweepPoint, SweepRun};

use super::collect::{SweepReport, report_of};
use super::merge::merge;
use super::slurm::{Commands, SlurmOptions};
use super::submit::{SubmitOptions, submit_sweep_with};
use super::survey::survey_with;
use crate::session::Session;

/// How often a sweep with queued or running tasks is polled, unless a poll takes longer.
pub const POLL_EVERY: Duration = Duration::from_secs(3);

/// The settings of a submission, as the form edits them (the CLI's `sweep submit` options).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterSettings {
    /// `--partition` (empty: the cluster's default).
    pub partition: String,
    /// `--time`, e.g. `01:00:00` (empty: the partition's limit).
    pub time: String,
    /// `--cpus-per-task`.
    pub cpus_per_task: u32,
    /// `--mem`, e.g. `4G` (empty: the cluster's default).
    pub mem: String,
    /// `--points-per-task`.
    pub points_per_task: usize,
    /// `--max-parallel`.
    pub max_parallel: usize,
    /// `--dry-run`: write the job folder, do not run `sbatch`.
    pub dry_run: bool,
    /// `--benchtop`: the program the tasks run (empty: this one).
    pub benchtop: String,
}

impl Default for ClusterSettings {
    /// The CLI's defaults; the tasks run this program.
    fn default() -> Self {
        Self {
            partition: String::new(),
            time: String::new(),
            cpus_per_task: 1,
            mem: String::new(),
            points_per_task: 1,
            max_parallel: 32,
            dry_run: false,
            benchtop: std::env::current_exe()
                .map(|path| path.display().to_string())
                .unwrap_or_default(),
        }
    }
}

impl ClusterSettings {
    /// The submit options, or what is wrong with the settings.
    pub fn options(&self) -> Result<SubmitOptions, String> {
        if self.points_per_task == 0 || self.max_parallel == 0 || self.cpus_per_task == 0 {
            return Err(
                "points per task, parallel tasks and CPUs per task must be at least 1".to_owned(),
            );
        }
        let word = |text: &str| Some(text.trim().to_owned()).filter(|t| !t.is_empty());
        Ok(SubmitOptions {
            slurm: SlurmOptions {
                partition: word(&self.partition),
                time: word(&self.time),
                cpus_per_task: self.cpus_per_task,
                mem: word(&self.mem),
                max_parallel: Some(self.max_parallel),
            },
            points_per_task: self.points_per_task,
            dry_run: self.dry_run,
            benchtop: word(&self.benchtop).map(PathBuf::from),
        })
    }
}

/// What one poll of a sweep found.
#[derive(Debug)]
struct Polled {
    /// Status and collect's report, for the sweep with the new points added.
    report: SweepReport,
    /// The sweep as polled, without its results (new points belong to this definition).
    definition: SweepDoc,
    /// The panel's fingerprint the poll merged for.
    fingerprint: String,
    /// Points to add, in the order collect adds them.
    new_points: Vec<SweepPoint>,
    /// Whether the sweep's results of other panel parameters are dropped first.
    cleared: bool,
    /// How long the poll took.
    seconds: f64,
}

/// A submit or cancel in the background: what it did, or why it failed.
type ActionJob = Job<(), Result<String, String>>;

/// A poll in the background.
type PollJob = Job<(), Result<Polled, String>>;

/// What the user asked for last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Submitting the sweep's missing points.
    Submit,
    /// Cancelling its queued and running jobs.
    Cancel,
}

/// The cluster side of one sweep.
#[derive(Default)]
pub struct SweepCluster {
    /// The form's settings for the next submission.
    pub settings: ClusterSettings,
    /// The last poll's report (`None` before the first poll ends).
    pub report: Option<SweepReport>,
    /// What the last submit or cancel did.
    pub message: Option<String>,
    /// Why the last submit, cancel or poll failed, naming what failed.
    pub error: Option<String>,
    poll: Option<PollJob>,
    action: Option<(Action, ActionJob)>,
    last_poll: Option<Instant>,
    poll_seconds: f64,
    /// The sweep's results count and fingerprint when the last poll was applied: a sweep
    /// changed since (reopened, recomputed) is polled again.
    applied: Option<(usize, String)>,
    wanted: bool,
}

impl SweepCluster {
    /// Whether the sweep has job folders.
    pub fn has_jobs(&self) -> bool {
        self.report.as_ref().is_some_and(|r| !r.jobs.is_empty())
    }

    /// Tasks by state over every job of the sweep (`queued`, `running`, `done`, `failed`,
    /// `not_submitted`, `unknown`).
    pub fn task_counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for job in self.report.iter().flat_map(|r| &r.jobs) {
            for (state, count) in &job.tasks {
                *counts.entry(state.clone()).or_insert(0) += count;
            }
        }
        counts
    }

    /// Whether a task is queued or running, or its state could not be told.
    pub fn is_active(&self) -> bool {
        let counts = self.task_counts();
        ["queued", "running", "unknown"]
            .iter()
            .any(|state| counts.get(*state).copied().unwrap_or(0) > 0)
    }

    /// The submit or cancel under way, if any.
    pub fn action(&self) -> Option<Action> {
        self.action.as_ref().map(|(action, _)| *action)
    }

    /// Whether a poll is under way.
    pub fn is_polling(&self) -> bool {
        self.poll.is_some()
    }

    /// The time until the next poll is due on its own, while tasks are under way.
    fn next_poll_in(&self, every: Duration) -> Option<Duration> {
        if !self.is_active() {
            return None;
        }
        let mut interval = every.max(Duration::from_secs_f64(4.0 * self.poll_seconds));
        if self
            .report
            .as_ref()
            .is_some_and(|r| r.queue_error.is_some())
        {
            // Slurm could not be asked: try again, but less often.
            interval *= 10;
        }
        Some(interval.saturating_sub(self.last_poll.map_or(interval, |t| t.elapsed())))
    }
}

/// The window's cluster jobs of the open project, one entry per sweep.
pub struct ClusterWatch {
    /// The settings a sweep's form starts from.
    pub defaults: ClusterSettings,
    /// Where Slurm's commands come from.
    pub commands: Commands,
    /// How often sweeps with queued or running tasks are polled.
    pub poll_every: Duration,
    project: Option<PathBuf>,
    sweeps: BTreeMap<String, SweepCluster>,
    /// Polls are listed here rather than on the status bar's board (they come and go every few
    /// seconds).
    polls: JobBoard,
}

impl Default for ClusterWatch {
    fn default() -> Self {
        Self {
            defaults: ClusterSettings::default(),
            commands: Commands::default(),
            poll_every: POLL_EVERY,
            project: None,
            sweeps: BTreeMap::new(),
            polls: JobBoard::new(),
        }
    }
}

impl ClusterWatch {
    /// The cluster side of sweep `name`, once the window has seen it.
    pub fn sweep(&self, name: &str) -> Option<&SweepCluster> {
        self.sweeps.get(name)
    }

    /// The settings of sweep `name`'s next submission.
    pub fn settings_mut(&mut self, name: &str) -> &mut ClusterSettings {
        let defaults = &self.defaults;
        &mut self
            .sweeps
            .entry(name.to_owned())
            .or_insert_with(|| SweepCluster {
                settings: defaults.clone(),
                wanted: true,
                ..SweepCluster::default()
            })
            .settings
    }

    /// Asks for a poll of sweep `name` now.
    pub fn refresh(&mut self, name: &str) {
        if let Some(sweep) = self.sweeps.get_mut(name) {
            sweep.wanted = true;
        }
    }

    /// Whether a poll, submit or cancel of the open project is under way.
    pub fn is_busy(&self) -> bool {
        self.sweeps
            .values()
            .any(|s| s.poll.is_some() || s.action.is_some())
    }

    /// Once a frame: follows the open project, applies finished polls to `session`'s sweeps,
    /// ends submits and cancels, starts the polls that are due, and asks `ctx` for a frame when
    /// the next one is.
    pub fn update(&mut self, session: &mut Session, ctx: &egui::Context) {
        if self.project != session.path {
            self.sweeps.clear();
            self.project.clone_from(&session.path);
        }
        let Some(project) = self.project.clone() else {
            return;
        };
        self.sweeps
            .retain(|name, _| session.sweeps.iter().any(|run| &run.doc.name == name));
        let every = self.poll_every;
        let mut next: Option<Duration> = None;
        for run in &mut session.sweeps {
            let name = run.doc.name.clone();
            self.settings_mut(&name);
            let Some(sweep) = self.sweeps.get_mut(&name) else {
                continue;
            };
            // The panel's fingerprint, asked for only when a poll ends or starts.
            let panels = &session.panels;
            let pane = run.doc.pane;
            let fingerprint = || panels.get(&pane).map(|p| p.sweep_support().fingerprint);
            finish_action(sweep);
            if sweep.poll.as_ref().is_some_and(Job::is_finished)
                && let Some(fingerprint) = fingerprint()
            {
                finish_poll(sweep, run, &fingerprint);
            }
            if sweep.poll.is_none()
                && sweep.action.is_none()
                && poll_due(sweep, run, every)
                && let Some(fingerprint) = fingerprint()
            {
                start_poll(
                    sweep,
                    &project,
                    run,
                    &fingerprint,
                    &self.commands,
                    &self.polls,
                    ctx,
                );
            }
            if let Some(wait) = sweep.next_poll_in(every) {
                next = Some(next.map_or(wait, |n| n.min(wait)));
            }
        }
        if let Some(wait) = next {
            ctx.request_repaint_after(wait);
        }
    }

    /// Submits sweep `name`'s missing points as the CLI's `sweep submit` does, in a job on
    /// `board`; refused (with the reason shown) while the project is unsaved.
    pub fn submit(
        &mut self,
        name: &str,
        project: Option<&Path>,
        unsaved: bool,
        board: &JobBoard,
        ctx: &egui::Context,
    ) {
        let commands = self.commands.clone();
        self.settings_mut(name);
        let Some(sweep) = self.sweeps.get_mut(name) else {
            return;
        };
        sweep.message = None;
        let Some(project) = project.map(Path::to_path_buf) else {
            sweep.error = Some(
                "Submitting needs a saved project: save it first (File › Save as…); the \
                 cluster's tasks compute the project file."
                    .to_owned(),
            );
            return;
        };
        if unsaved {
            sweep.error = Some(format!(
                "{} has unsaved changes: save it first (File › Save); the cluster's tasks \
                 compute the project as saved.",
                project.display()
            ));
            return;
        }
        let options = match sweep.settings.options() {
            Ok(options) => options,
            Err(message) => {
                sweep.error = Some(message);
                return;
            }
        };
        let sweep_name = name.to_owned();
        let spawned = Job::spawn(
            format!("submitting {name} to Slurm"),
            board,
            Some(ctx.clone()),
            move |_| {
                Ok(
                    submit_sweep_with(&project, &sweep_name, &options, &commands)
                        .map(|submitted| submitted_message(&submitted))
                        .map_err(|error| format!("Submitting `{sweep_name}` failed: {error:#}")),
                )
            },
        );
        start_action(sweep, Action::Submit, spawned);
    }

    /// Cancels sweep `name`'s queued and running jobs (`scancel`), in a job on `board`.
    pub fn cancel(&mut self, name: &str, board: &JobBoard, ctx: &egui::Context) {
        let commands = self.commands.clone();
        let Some(project) = self.project.clone() else {
            return;
        };
        let Some(sweep) = self.sweeps.get_mut(name) else {
            return;
        };
        sweep.message = None;
        let sweep_name = name.to_owned();
        let spawned = Job::spawn(
            format!("cancelling {name} on Slurm"),
            board,
            Some(ctx.clone()),
            move |_| {
                Ok(cancel_sweep(&project, &sweep_name, &commands)
                    .map_err(|error| format!("Cancelling `{sweep_name}` failed: {error:#}")))
            },
        );
        start_action(sweep, Action::Cancel, spawned);
    }
}

fn start_action(
    sweep: &mut SweepCluster,
    action: Action,
    spawned: Result<ActionJob, benchtop_kit::compute::ComputeError>,
) {
    match spawned {
        Ok(job) => {
            sweep.action = Some((action, job));
            sweep.error = None;
        }
        Err(error) => sweep.error = Some(error.to_string()),
    }
}

/// What a submission says in the window.
fn submitted_message(submitted: &super::submit::Submitted) -> String {
    let Some(folder) = &submitted.folder else {
        return "Nothing to submit: every point is done, computed, queued or running.".to_owned();
    };
    match &submitted.job_id {
        Some(id) => format!(
            "Submitted Slurm job {id}: {} tasks, {} points ({}).",
            submitted.tasks,
            submitted.points,
            folder.display()
        ),
        None => format!(
            "Wrote {} ({} tasks, {} points); submit it with: {}",
            folder.display(),
            submitted.tasks,
            submitted.points,
            submitted.sbatch.join(" ")
        ),
    }
}

/// Cancels every job of sweep `name` with tasks queued or running; says which.
fn cancel_sweep(project: &Path, name: &str, commands: &Commands) -> anyhow::Result<String> {
    let jobs = survey_with(project, name, Some(commands))?;
    let mut cancelled = Vec::new();
    for job in &jobs.jobs {
        let active = (0..job.tasks.len()).any(|t| job.is_active(t));
        if let (true, Some(id)) = (active, &job.slurm_job_id) {
            commands.cancel(id, None)?;
            cancelled.push(id.clone());
        }
    }
    Ok(if cancelled.is_empty() {
        "No job had tasks queued or running.".to_owned()
    } else {
        format!("Cancelled Slurm job {}.", cancelled.join(", "))
    })
}

fn finish_action(sweep: &mut SweepCluster) {
    let Some((_, job)) = &mut sweep.action else {
        return;
    };
    let Some(outcome) = job.try_finish() else {
        return;
    };
    sweep.action = None;
    sweep.wanted = true;
    match outcome {
        JobOutcome::Finished(Ok(message)) => sweep.message = Some(message),
        JobOutcome::Finished(Err(message)) | JobOutcome::Failed(message) => {
            sweep.error = Some(message);
        }
        JobOutcome::Cancelled => {}
    }
}

/// Whether sweep `run` should be polled now: asked for, tasks under way and the interval
/// passed, or a sweep with jobs that changed since the last poll was applied.
fn poll_due(sweep: &SweepCluster, run: &SweepRun, every: Duration) -> bool {
    if sweep.wanted {
        return true;
    }
    if sweep.next_poll_in(every).is_some_and(|wait| wait.is_zero()) {
        return true;
    }
    let changed =
        sweep.applied.as_ref() != Some(&(run.doc.results.len(), run.doc.fingerprint.clone()));
    changed && sweep.has_jobs() && sweep.last_poll.is_none_or(|t| t.elapsed() >= every)
}

fn start_poll(
    sweep: &mut SweepCluster,
    project: &Path,
    run: &SweepRun,
    fingerprint: &str,
    commands: &Commands,
    polls: &JobBoard,
    ctx: &egui::Context,
) {
    let project = project.to_path_buf();
    let doc = run.doc.clone();
    let fingerprint = fingerprint.to_owned();
    let commands = commands.clone();
    sweep.wanted = false;
    sweep.last_poll = Some(Instant::now());
    let spawned = Job::spawn(
        format!("cluster status: {}", doc.name),
        polls,
        Some(ctx.clone()),
        move |_| {
            Ok(poll(&project, doc, &fingerprint, &commands).map_err(|error| format!("{error:#}")))
        },
    );
    match spawned {
        Ok(job) => sweep.poll = Some(job),
        Err(error) => sweep.error = Some(error.to_string()),
    }
}

/// Status and collect on a copy of `doc`: the sweep's jobs, and the points a collect would add.
fn poll(
    project: &Path,
    mut doc: SweepDoc,
    fingerprint: &str,
    commands: &Commands,
) -> anyhow::Result<Polled> {
    let started = Instant::now();
    let jobs = survey_with(project, &doc.name, Some(commands))?;
    let before = doc.results.len();
    let was_current = doc.fingerprint == fingerprint;
    let merged = merge(&mut doc, fingerprint, &jobs)?;
    let cleared = !was_current && doc.fingerprint == fingerprint;
    let new_points = if cleared {
        doc.results.clone()
    } else {
        doc.results[before..].to_vec()
    };
    let report = report_of(project, &doc, fingerprint, &jobs, Some(merged), false);
    doc.results.clear();
    Ok(Polled {
        report,
        definition: doc,
        fingerprint: fingerprint.to_owned(),
        new_points,
        cleared,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The sweep's definition, results aside (what new points must belong to).
fn same_definition(a: &SweepDoc, b: &SweepDoc) -> bool {
    a.name == b.name
        && a.axes == b.axes
        && a.repeats == b.repeats
        && a.base_seed == b.base_seed
        && a.outputs == b.outputs
}

fn finish_poll(sweep: &mut SweepCluster, run: &mut SweepRun, fingerprint: &str) {
    let Some(job) = &mut sweep.poll else {
        return;
    };
    let Some(outcome) = job.try_finish() else {
        return;
    };
    sweep.poll = None;
    let polled = match outcome {
        JobOutcome::Finished(Ok(polled)) => polled,
        JobOutcome::Finished(Err(message)) | JobOutcome::Failed(message) => {
            sweep.error = Some(format!("Reading the cluster jobs failed: {message}"));
            return;
        }
        JobOutcome::Cancelled => {
            sweep.wanted = true;
            return;
        }
    };
    sweep.poll_seconds = polled.seconds;
    if polled.fingerprint != fingerprint || !same_definition(&polled.definition, &run.doc) {
        // The sweep or its panel changed while the poll ran: its points may not belong.
        sweep.wanted = true;
        return;
    }
    add_points(&mut run.doc, polled.new_points, polled.cleared, fingerprint);
    sweep.applied = Some((run.doc.results.len(), run.doc.fingerprint.clone()));
    sweep.report = Some(polled.report);
}

/// Adds the polled points to `doc`, skipping those it has meanwhile (e.g. from a local run).
fn add_points(doc: &mut SweepDoc, points: Vec<SweepPoint>, cleared: bool, fingerprint: &str) {
    if cleared && doc.fingerprint != fingerprint {
        doc.results.clear();
        doc.fingerprint = fingerprint.to_owned();
    }
    let key = |point: &SweepPoint| {
        (
            point.coords.iter().map(|c| c.to_bits()).collect::<Vec<_>>(),
            point.repeat,
        )
    };
    let done: HashSet<_> = doc
        .results
        .iter()
        .filter(|p| p.error.is_none())
        .map(key)
        .collect();
    for point in points {
        if done.contains(&key(&point)) || (point.error.is_some() && doc.results.contains(&point)) {
            continue;
        }
        doc.results.push(point);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(x: f64, value: f64, error: Option<&str>) -> SweepPoint {
        SweepPoint {
            coords: vec![x],
            outputs: [("y".to_owned(), value)].into_iter().collect(),
            error: error.map(str::to_owned),
            ..SweepPoint::default()
        }
    }

    #[test]
    fn polled_points_are_added_once() {
        let mut doc = SweepDoc {
            fingerprint: "a".into(),
            results: vec![point(1.0, 1.0, None)],
            ..SweepDoc::default()
        };
        let failed = point(3.0, 0.0, Some("diverged"));
        add_points(
            &mut doc,
            vec![point(1.0, 9.0, None), point(2.0, 2.0, None), failed.clone()],
            false,
            "a",
        );
        assert_eq!(doc.results.len(), 3, "{:?}", doc.results);
        assert_eq!(doc.results[0].outputs["y"], 1.0, "the local point stays");
        add_points(&mut doc, vec![failed], false, "a");
        assert_eq!(doc.results.len(), 3, "a failed point is recorded once");
        add_points(&mut doc, vec![point(5.0, 5.0, None)], true, "b");
        assert_eq!(doc.results, vec![point(5.0, 5.0, None)]);
        assert_eq!(doc.fingerprint, "b");
    }

    #[test]
    fn settings_give_the_cli_options() {
        let settings = ClusterSettings {
            partition: " short ".into(),
            time: "00:10:00".into(),
            benchtop: String::new(),
            ..ClusterSettings::default()
        };
        let options = settings.options().expect("valid");
        assert_eq!(options.slurm.partition.as_deref(), Some("short"));
        assert_eq!(options.slurm.mem, None);
        assert_eq!(options.slurm.max_parallel, Some(32));
        assert_eq!(options.points_per_task, 1);
        assert!(options.benchtop.is_none());
        let zero = ClusterSettings {
            points_per_task: 0,
            ..ClusterSettings::default()
        };
        assert!(zero.options().is_err());
    }
}
