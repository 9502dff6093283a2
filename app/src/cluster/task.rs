//! `benchtop sweep run-task FOLDER --task I`: what one array task runs on a node.
//!
//! A sweep task opens the frozen project, checks that its panel still gives the fingerprint the
//! job was submitted with, and computes its points with the sweep's own evaluation
//! ([`evaluate_point`], the one a local run uses), writing one result file per point atomically
//! with its provenance. Points that already have a successful result are skipped, so a requeued
//! task does not compute them twice. A long-run job's only task runs `benchtop run` on the
//! frozen project, exporting into `out/` and saving the results into the frozen project.

use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use benchtop_kit::compute::{CancelToken, Progress};
use benchtop_kit::project::write_atomic;
use benchtop_kit::sweep::evaluate_point;

use super::folder::{self, JobFolder, RunWork, SweepWork, Work};
use super::points::{PointRecord, Provenance, read_record, read_table, write_record};
use super::submit::find_sweep;
use super::survey::StartMarker;
use crate::session::Session;

/// What a task did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TaskDone {
    /// The task.
    pub task: usize,
    /// Points it holds.
    pub points: usize,
    /// Points it computed now.
    pub computed: usize,
    /// Points that already had a result.
    pub skipped: usize,
    /// Points whose evaluation failed (recorded with the error).
    pub failed: usize,
    /// Wall seconds of the whole task (opening the project included).
    pub seconds: f64,
}

fn slurm_job_id() -> Option<String> {
    std::env::var("SLURM_ARRAY_JOB_ID")
        .or_else(|_| std::env::var("SLURM_JOB_ID"))
        .ok()
}

fn write_marker(job: &JobFolder, task: usize, done: bool, text: &str) -> anyhow::Result<()> {
    let path = job.marker(task, done);
    write_atomic(&path, text.as_bytes())
        .with_context(|| format!("{}: cannot write", path.display()))
}

/// Runs task `task` of the job in `folder`.
pub fn run_task(folder_path: &Path, task: usize) -> anyhow::Result<TaskDone> {
    let started = Instant::now();
    let job = JobFolder::open(folder_path)?;
    let marker = StartMarker {
        host: folder::host_name(),
        started_unix: folder::unix_now(),
        slurm_job_id: slurm_job_id(),
    };
    write_marker(&job, task, false, &serde_json::to_string(&marker)?)?;
    let done = match &job.manifest.work {
        Work::Sweep(work) => run_sweep_task(&job, work, task, started)?,
        Work::Run(work) => run_project(&job, work, task, started)?,
    };
    write_marker(&job, task, true, &serde_json::to_string(&done)?)?;
    Ok(done)
}

/// Opens the frozen project with its panels reading data from the original project's folder.
fn open_frozen(job: &JobFolder) -> anyhow::Result<Session> {
    let mut session = Session::open(&job.path.join(folder::PROJECT))?;
    for panel in session.panels.values_mut() {
        panel.set_project_dir(Some(&job.manifest.project_dir));
    }
    Ok(session)
}

fn run_sweep_task(
    job: &JobFolder,
    work: &SweepWork,
    task: usize,
    started: Instant,
) -> anyhow::Result<TaskDone> {
    if task >= work.tasks {
        anyhow::bail!(
            "{}: there is no task {task} (the job has tasks 0 to {})",
            job.path.display(),
            work.tasks.saturating_sub(1)
        );
    }
    let points: Vec<_> = read_table(&job.path.join(folder::POINTS), work.axes.len())?
        .into_iter()
        .filter(|p| p.task == task)
        .collect();
    let session = open_frozen(job)?;
    let frozen = job.path.join(folder::PROJECT);
    let doc = session.sweeps[find_sweep(&session, &frozen, &work.sweep)?]
        .doc
        .clone();
    let panel = session
        .panels
        .get(&doc.pane)
        .ok_or_else(|| anyhow::anyhow!("{}: the sweep's panel is missing", frozen.display()))?;
    let support = panel.sweep_support();
    if support.fingerprint != work.fingerprint {
        anyhow::bail!(
            "{}: the panel's parameters give another fingerprint than at submission; this \
             binary ({}) computes differently from the one that submitted ({})",
            frozen.display(),
            crate::build_info::version_line(),
            job.manifest.submitted_by
        );
    }
    let host = folder::host_name();
    let slurm_task = slurm_job_id().map(|id| format!("{id}_{task}"));
    let cancel = CancelToken::new();
    let mut report = TaskDone {
        task,
        points: points.len(),
        computed: 0,
        skipped: 0,
        failed: 0,
        seconds: 0.0,
    };
    for point in points {
        let file = job.result_file(point.point);
        if read_record(&file)
            .ok()
            .flatten()
            .is_some_and(|r| r.result.error.is_none())
        {
            report.skipped += 1;
            continue;
        }
        let clock = Instant::now();
        let result = evaluate_point(
            &doc,
            support.evaluator.as_ref(),
            point.coords.clone(),
            point.repeat,
            &Progress::new(),
            &cancel,
        )?;
        if result.seed != point.seed {
            anyhow::bail!(
                "{}: point {} has seed {} in the table but the sweep derives {}",
                job.path.display(),
                point.point,
                point.seed,
                result.seed
            );
        }
        let seconds = clock.elapsed().as_secs_f64();
        if result.error.is_some() {
            report.failed += 1;
        }
        benchtop_kit::note!(
            "point {} {:?} repeat {}: {:.3} s{}",
            point.point,
            point.coords,
            point.repeat,
            seconds,
            result
                .error
                .as_ref()
                .map_or_else(String::new, |e| format!(", failed: {e}"))
        );
        write_record(
            &file,
            &PointRecord {
                point: point.point,
                task,
                result,
                provenance: Provenance {
                    binary: crate::build_info::version_line(),
                    version: crate::build_info::APP_VERSION.to_owned(),
                    git_commit: crate::build_info::GIT_COMMIT.to_owned(),
                    host: host.clone(),
                    seconds,
                    slurm_task: slurm_task.clone(),
                    finished_unix: folder::unix_now(),
                },
            },
        )?;
        report.computed += 1;
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

fn run_project(
    job: &JobFolder,
    work: &RunWork,
    task: usize,
    started: Instant,
) -> anyhow::Result<TaskDone> {
    if task != 0 {
        anyhow::bail!("{}: a run job has only task 0", job.path.display());
    }
    let options = crate::cli::run::RunOptions {
        formats: work.formats.clone(),
        dpi: work.dpi,
        save: true,
        preset: work.preset.clone(),
        set: work.set.clone(),
        project_dir: Some(job.manifest.project_dir.clone()),
        check_figures: false,
    };
    crate::cli::run::run(
        &job.path.join(folder::PROJECT),
        &job.path.join(folder::OUT),
        &options,
    )?;
    Ok(TaskDone {
        task,
        points: 0,
        computed: 0,
        skipped: 0,
        failed: 0,
        seconds: started.elapsed().as_secs_f64(),
    })
}
