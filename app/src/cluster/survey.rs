//! Where a sweep's cluster jobs stand: every job folder of the sweep, its result files, and
//! each task's state from the queue (`squeue`), the accounting (`sacct`, where there is one),
//! the task markers and the result files.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::folder::{self, JobFolder, SweepWork};
use super::points::{PointRecord, TablePoint, read_record, read_table};
use super::slurm::{Commands, QueueState};
use super::untrusted;

/// Lines of a failed task's standard error kept in reports.
pub const STDERR_TAIL_LINES: usize = 12;

/// A task's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Waiting in the queue.
    Queued,
    /// Running.
    Running,
    /// Every point has a result file.
    Done,
    /// Ended (or was cancelled) with points left without results.
    Failed,
    /// A `--dry-run` folder no task of which has started (not submitted, or not yet known).
    NotSubmitted,
    /// The queue could not be asked.
    Unknown,
}

/// One task of a job.
#[derive(Clone, Debug, Serialize)]
pub struct TaskReport {
    /// The task number.
    pub task: usize,
    /// Its state.
    pub state: TaskState,
    /// Slurm's own word for it (`RUNNING`, `CANCELLED by 0`, …) when known.
    pub slurm_state: Option<String>,
    /// Points it computes.
    pub points: usize,
    /// Points with a result file.
    pub finished: usize,
    /// The end of its standard error, for a failed task.
    pub stderr_tail: Option<String>,
}

/// One sweep job folder with its points, results and tasks.
#[derive(Clone, Debug)]
pub struct SweepJob {
    /// The folder.
    pub folder: JobFolder,
    /// What it computes.
    pub work: SweepWork,
    /// The points table.
    pub points: Vec<TablePoint>,
    /// Result files by point.
    pub records: BTreeMap<usize, PointRecord>,
    /// Tasks in order.
    pub tasks: Vec<TaskReport>,
    /// The Slurm job id (from the manifest, or from a task's marker).
    pub slurm_job_id: Option<String>,
}

impl SweepJob {
    /// Whether task `task` is queued or running.
    pub fn is_active(&self, task: usize) -> bool {
        self.tasks
            .get(task)
            .is_some_and(|t| matches!(t.state, TaskState::Queued | TaskState::Running))
    }
}

/// Every job of a sweep.
#[derive(Clone, Debug, Default)]
pub struct Survey {
    /// Jobs, oldest first.
    pub jobs: Vec<SweepJob>,
    /// Why the queue could not be asked, if it could not.
    pub queue_error: Option<String>,
}

/// The marker a task writes when it starts.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct StartMarker {
    /// The host it runs on.
    pub host: String,
    /// Seconds since the Unix epoch.
    pub started_unix: u64,
    /// `SLURM_ARRAY_JOB_ID` (or `SLURM_JOB_ID`), when run by Slurm.
    pub slurm_job_id: Option<String>,
}

/// Reads the jobs of sweep `sweep` of `project`; asks the environment's Slurm about unfinished
/// tasks when `ask_slurm`.
pub fn survey(project: &Path, sweep: &str, ask_slurm: bool) -> anyhow::Result<Survey> {
    survey_with(project, sweep, ask_slurm.then(Commands::default).as_ref())
}

/// Reads the jobs of sweep `sweep` of `project`; asks Slurm through `slurm`, when given, about
/// unfinished tasks.
pub fn survey_with(
    project: &Path,
    sweep: &str,
    slurm: Option<&Commands>,
) -> anyhow::Result<Survey> {
    let ask_slurm = slurm.is_some();
    let mut survey = Survey::default();
    for job in folder::list(project)? {
        let Some(work) = job.sweep().cloned() else {
            continue;
        };
        if work.sweep != sweep {
            continue;
        }
        let slurm_job_id = job.manifest.slurm_job_id.clone().or_else(|| {
            (0..work.tasks).find_map(|task| {
                let text =
                    untrusted::read_text(&job.marker(task, false), untrusted::MAX_RECORD_BYTES)
                        .ok()??;
                serde_json::from_str::<StartMarker>(&text)
                    .ok()?
                    .slurm_job_id
                    .filter(|id| untrusted::check_slurm_job_id(id).is_ok())
            })
        });
        // The queue first, then the files: a task that ends in between is then seen done.
        let mut queue = BTreeMap::new();
        let mut accounting = None;
        if let (Some(slurm), Some(id)) = (slurm, &slurm_job_id) {
            match slurm.queue(id) {
                Ok(states) => queue = states,
                Err(error) => survey.queue_error = Some(format!("{error:#}")),
            }
            accounting = slurm.accounting(id);
        }
        let points = read_table(&job.path.join(folder::POINTS), work.axes.len())?;
        let mut records = BTreeMap::new();
        for point in &points {
            if let Some(record) = read_record(&job.result_file(point.point))? {
                records.insert(point.point, record);
            }
        }
        let queue_known = ask_slurm && survey.queue_error.is_none();
        let tasks = (0..work.tasks)
            .map(|task| {
                let of_task: Vec<&TablePoint> = points.iter().filter(|p| p.task == task).collect();
                let finished = of_task
                    .iter()
                    .filter(|p| records.contains_key(&p.point))
                    .count();
                let slurm_state = accounting.as_ref().and_then(|a| a.get(&task).cloned());
                let (state, queue_word) = match queue.get(&task) {
                    _ if finished == of_task.len() => (TaskState::Done, None),
                    Some(QueueState::Queued(word)) => (TaskState::Queued, Some(word.clone())),
                    Some(QueueState::Running(word)) => (TaskState::Running, Some(word.clone())),
                    None if slurm_job_id.is_none() => (TaskState::NotSubmitted, None),
                    None if !queue_known => (TaskState::Unknown, None),
                    None => (TaskState::Failed, None),
                };
                let stderr_tail = (state == TaskState::Failed)
                    .then(|| folder::tail(&job.stderr_log(task), STDERR_TAIL_LINES))
                    .map(|tail| {
                        if tail.is_empty() {
                            let started = job.marker(task, false).exists();
                            if started {
                                "(no output on stderr; the task ended before finishing its points)"
                                    .to_owned()
                            } else {
                                "(no output on stderr; the task never started)".to_owned()
                            }
                        } else {
                            tail
                        }
                    });
                TaskReport {
                    task,
                    state,
                    slurm_state: slurm_state.or(queue_word),
                    points: of_task.len(),
                    finished,
                    stderr_tail,
                }
            })
            .collect();
        survey.jobs.push(SweepJob {
            folder: job,
            work,
            points,
            records,
            tasks,
            slurm_job_id,
        });
    }
    Ok(survey)
}
