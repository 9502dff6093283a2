//! Writing a job folder and submitting it: a sweep's outstanding points as an array job, or a
//! whole project's headless run as one job.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use benchtop_kit::compute::rng::derive_seed;
use benchtop_kit::sweep::missing_points;

use super::folder::{self, JobFolder, Manifest, RunWork, SweepWork, Work};
use super::points::{TablePoint, write_table};
use super::slurm::{self, Commands, ScriptSpec, SlurmOptions};
use super::survey::survey_with;
use crate::session::Session;

/// How a job is submitted.
#[derive(Clone, Debug, Default)]
pub struct SubmitOptions {
    /// The resources each task asks for.
    pub slurm: SlurmOptions,
    /// Points per array task (sweeps).
    pub points_per_task: usize,
    /// Write the folder and print the `sbatch` command without running it.
    pub dry_run: bool,
    /// The binary the tasks run (default: this one).
    pub benchtop: Option<PathBuf>,
}

/// What was submitted.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Submitted {
    /// The job folder (`None` when there was nothing to submit).
    pub folder: Option<PathBuf>,
    /// The Slurm job id (`None` for `--dry-run`).
    pub job_id: Option<String>,
    /// Array tasks.
    pub tasks: usize,
    /// Points submitted.
    pub points: usize,
    /// The `sbatch` command (printed for `--dry-run`).
    pub sbatch: Vec<String>,
    /// Grid points already done, computed in earlier jobs, or queued or running there.
    pub not_resubmitted: usize,
}

/// The index of sweep `name` in the session, or an error listing the sweeps it has.
pub fn find_sweep(session: &Session, project: &Path, name: &str) -> anyhow::Result<usize> {
    session
        .sweeps
        .iter()
        .position(|run| run.doc.name == name)
        .ok_or_else(|| {
            let known: Vec<&str> = session.sweeps.iter().map(|r| r.doc.name.as_str()).collect();
            anyhow::anyhow!(
                "{}: there is no sweep `{name}` (the project has: {})",
                project.display(),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )
        })
}

/// The absolute path of the binary tasks run, checked to exist.
fn benchtop_binary(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    let path = match given {
        Some(path) => path.to_path_buf(),
        None => std::env::current_exe().context("cannot tell where this benchtop binary is")?,
    };
    path.canonicalize()
        .with_context(|| format!("--benchtop {}: no such file", path.display()))
}

fn absolute(path: &Path) -> anyhow::Result<PathBuf> {
    path.canonicalize()
        .with_context(|| format!("{}: no such project file", path.display()))
}

/// Freezes the session into a new job folder, writes the script and the manifest, and submits
/// (unless `dry_run`). `points` is written as the points table for sweep work.
fn write_and_submit(
    session: &mut Session,
    project: &Path,
    slug: &str,
    work: Work,
    points: &[TablePoint],
    options: &SubmitOptions,
    slurm: &Commands,
) -> anyhow::Result<(JobFolder, Vec<String>)> {
    for (flag, value) in [
        ("time", &options.slurm.time),
        ("partition", &options.slurm.partition),
        ("mem", &options.slurm.mem),
    ] {
        if let Some(value) = value {
            slurm::check_option(flag, value)?;
        }
    }
    let benchtop = benchtop_binary(options.benchtop.as_deref())?;
    let path = folder::create(project, slug)?;
    // A folder that was not submitted in full is removed: it would look like a `--dry-run` one.
    let written = fill_and_submit(
        session, project, &path, slug, benchtop, work, points, options, slurm,
    );
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&path);
    }
    written
}

#[allow(clippy::too_many_arguments)]
fn fill_and_submit(
    session: &mut Session,
    project: &Path,
    path: &Path,
    slug: &str,
    benchtop: PathBuf,
    work: Work,
    points: &[TablePoint],
    options: &SubmitOptions,
    slurm: &Commands,
) -> anyhow::Result<(JobFolder, Vec<String>)> {
    let path = path.to_path_buf();
    session
        .save_as(&path.join(folder::PROJECT))
        .with_context(|| format!("{}: freezing the project", path.display()))?;
    let array_tasks = match &work {
        Work::Sweep(sweep) => {
            write_table(&path.join(folder::POINTS), &sweep.axes, points)?;
            Some(sweep.tasks)
        }
        Work::Run(_) => None,
    };
    let task_word = if array_tasks.is_some() {
        "$SLURM_ARRAY_TASK_ID"
    } else {
        "0"
    };
    let script = slurm::batch_script(
        &ScriptSpec {
            job_name: &format!("benchtop-{slug}"),
            folder: &path,
            array_tasks,
            command: vec![
                benchtop.display().to_string(),
                "sweep".into(),
                "run-task".into(),
                path.display().to_string(),
                "--task".into(),
                task_word.into(),
            ],
        },
        &options.slurm,
    );
    let script_path = path.join(folder::SCRIPT);
    benchtop_kit::project::write_atomic(&script_path, script.as_bytes())
        .with_context(|| format!("{}: cannot write", script_path.display()))?;
    let sbatch = slurm::sbatch_line(&script_path);
    let mut job = JobFolder {
        path: path.clone(),
        manifest: Manifest {
            format: folder::FORMAT,
            work,
            project: absolute(project)?,
            project_dir: absolute(project)?
                .parent()
                .map_or_else(|| PathBuf::from("/"), Path::to_path_buf),
            benchtop,
            submitted_by: crate::build_info::version_line(),
            submitted_unix: folder::unix_now(),
            slurm_job_id: None,
            sbatch: sbatch.clone(),
        },
    };
    job.save_manifest()?;
    if !options.dry_run {
        let id = slurm.submit(&sbatch)?;
        job.manifest.slurm_job_id = Some(id);
        job.save_manifest()?;
    }
    Ok((job, sbatch))
}

/// `benchtop sweep submit`: submits the grid points of sweep `name` that are neither in the
/// project, nor computed by an earlier job, nor queued or running in one.
pub fn submit_sweep(
    project: &Path,
    name: &str,
    options: &SubmitOptions,
) -> anyhow::Result<Submitted> {
    submit_sweep_with(project, name, options, &Commands::default())
}

/// [`submit_sweep`] with Slurm's commands from `slurm` (the window's settings).
pub fn submit_sweep_with(
    project: &Path,
    name: &str,
    options: &SubmitOptions,
    slurm: &Commands,
) -> anyhow::Result<Submitted> {
    let mut session = Session::open(project)?;
    let index = find_sweep(&session, project, name)?;
    let doc = session.sweeps[index].doc.clone();
    let panel = session.panels.get(&doc.pane).ok_or_else(|| {
        anyhow::anyhow!(
            "{}: sweep `{name}`: its panel is not open",
            project.display()
        )
    })?;
    let support = panel.sweep_support();
    doc.validate(&support)
        .map_err(|message| anyhow::anyhow!("{}: {message}", project.display()))?;
    let mut fresh = doc.clone();
    if !fresh.is_current(&support) {
        fresh.results.clear();
    }
    let jobs = survey_with(project, name, (!options.dry_run).then_some(slurm))?;
    let all = missing_points(&fresh).map_err(anyhow::Error::msg)?;
    let before = all.len();
    let wanted: Vec<(Vec<f64>, u32)> = all
        .into_iter()
        .filter(|(coords, repeat)| {
            !jobs.jobs.iter().any(|job| {
                job.work.fingerprint == support.fingerprint
                    && job.points.iter().any(|p| {
                        p.repeat == *repeat
                            && &p.coords == coords
                            && (job.is_active(p.task)
                                || job
                                    .records
                                    .get(&p.point)
                                    .is_some_and(|r| r.result.error.is_none()))
                    })
            })
        })
        .collect();
    let total_grid =
        doc.axes.iter().map(|a| a.grid.len()).product::<usize>() * doc.repeats as usize;
    if wanted.is_empty() {
        return Ok(Submitted {
            folder: None,
            job_id: None,
            tasks: 0,
            points: 0,
            sbatch: Vec::new(),
            not_resubmitted: total_grid,
        });
    }
    let per_task = options.points_per_task.max(1);
    let points: Vec<TablePoint> = wanted
        .into_iter()
        .enumerate()
        .map(|(point, (coords, repeat))| TablePoint {
            point,
            task: point / per_task,
            repeat,
            seed: derive_seed(doc.base_seed, u64::from(repeat)),
            coords,
        })
        .collect();
    let tasks = points.len().div_ceil(per_task);
    let work = Work::Sweep(SweepWork {
        sweep: name.to_owned(),
        fingerprint: support.fingerprint.clone(),
        axes: doc.axes.iter().map(|a| a.param.clone()).collect(),
        points: points.len(),
        points_per_task: per_task,
        tasks,
    });
    let (job, sbatch) = write_and_submit(
        &mut session,
        project,
        &folder::slug(name),
        work,
        &points,
        options,
        slurm,
    )?;
    Ok(Submitted {
        folder: Some(job.path),
        job_id: job.manifest.slurm_job_id,
        tasks,
        points: points.len(),
        sbatch,
        not_resubmitted: total_grid - before + (before - points.len()),
    })
}

/// `benchtop run PROJECT --slurm`: one job that runs the whole project headless (with the
/// given preset and settings applied) and exports into the job folder's `out/`.
pub fn submit_run(
    project: &Path,
    run: &RunWork,
    options: &SubmitOptions,
) -> anyhow::Result<Submitted> {
    let mut session = Session::open(project)?;
    let (job, sbatch) = write_and_submit(
        &mut session,
        project,
        "run",
        Work::Run(run.clone()),
        &[],
        options,
        &Commands::default(),
    )?;
    Ok(Submitted {
        folder: Some(job.path),
        job_id: job.manifest.slurm_job_id,
        tasks: 1,
        points: 0,
        sbatch,
        not_resubmitted: 0,
    })
}
