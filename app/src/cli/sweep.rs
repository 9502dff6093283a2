//! `benchtop sweep submit|run-task|collect|status|cancel` and `benchtop run --slurm|--collect`:
//! sweeps and long runs on a Slurm cluster (the work is in [`crate::cluster`]). Each prints one
//! JSON object on stdout.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use crate::cluster::folder::{self, RunWork};
use crate::cluster::slurm::SlurmOptions;
use crate::cluster::submit::{SubmitOptions, submit_run, submit_sweep};
use crate::cluster::{collect, slurm, survey, task};

/// Slurm settings shared by `sweep submit` and `run --slurm`.
#[derive(Clone, Debug, Default, Args)]
pub struct SlurmArgs {
    /// Slurm partition (`--partition`; default: the cluster's default).
    #[arg(long)]
    pub partition: Option<String>,
    /// Wall-time limit per task, e.g. `01:00:00` (`--time`).
    #[arg(long)]
    pub time: Option<String>,
    /// CPUs per task (`--cpus-per-task`; also the task's thread count).
    #[arg(long, default_value_t = 1)]
    pub cpus_per_task: u32,
    /// Memory per node, e.g. `4G` (`--mem`).
    #[arg(long)]
    pub mem: Option<String>,
    /// Write the job folder and print the `sbatch` command without submitting (for clusters
    /// where jobs are submitted from a login node).
    #[arg(long)]
    pub dry_run: bool,
    /// The benchtop binary the tasks run (default: this one); it must be readable on the nodes.
    #[arg(long)]
    pub benchtop: Option<PathBuf>,
}

/// The `benchtop sweep` subcommands.
#[derive(Debug, Subcommand)]
pub enum SweepCommand {
    /// Submit a sweep's missing points as a Slurm array job (a job folder beside the project:
    /// `<stem>.data/cluster/<sweep>-<n>/`). Points already computed, or queued or running in an
    /// earlier job, are not submitted again.
    Submit {
        /// The project file (`.ron`).
        project: PathBuf,
        /// The sweep's name.
        #[arg(long)]
        sweep: String,
        /// Points each array task computes one after another.
        #[arg(long, default_value_t = 1)]
        points_per_task: usize,
        /// At most this many tasks at once (`--array=…%J`).
        #[arg(long, default_value_t = 32)]
        max_parallel: usize,
        /// Slurm settings.
        #[command(flatten)]
        slurm: SlurmArgs,
    },
    /// Compute one task's points (what each array task runs).
    RunTask {
        /// The job folder.
        folder: PathBuf,
        /// The task number (`$SLURM_ARRAY_TASK_ID`).
        #[arg(long)]
        task: usize,
    },
    /// Merge every finished point into the project's sweep and report the missing and failed
    /// ones (with their task's stderr tail). Running it again changes nothing.
    Collect {
        /// The project file (`.ron`).
        project: PathBuf,
        /// The sweep's name.
        #[arg(long)]
        sweep: String,
    },
    /// Queued, running, done and failed tasks and points of a sweep's jobs.
    Status {
        /// The project file (`.ron`).
        project: PathBuf,
        /// The sweep's name.
        #[arg(long)]
        sweep: String,
    },
    /// Cancel a sweep's queued and running jobs (`scancel`).
    Cancel {
        /// The project file (`.ron`).
        project: PathBuf,
        /// The sweep's name.
        #[arg(long)]
        sweep: String,
    },
}

fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", serde_json::to_string(value)?)?;
    Ok(())
}

fn submit_options(
    slurm: &SlurmArgs,
    max_parallel: Option<usize>,
    points_per_task: usize,
) -> SubmitOptions {
    SubmitOptions {
        slurm: SlurmOptions {
            partition: slurm.partition.clone(),
            time: slurm.time.clone(),
            cpus_per_task: slurm.cpus_per_task,
            mem: slurm.mem.clone(),
            max_parallel,
        },
        points_per_task,
        dry_run: slurm.dry_run,
        benchtop: slurm.benchtop.clone(),
    }
}

/// Runs a `benchtop sweep` subcommand.
pub fn sweep(command: &SweepCommand) -> anyhow::Result<()> {
    match command {
        SweepCommand::Submit {
            project,
            sweep,
            points_per_task,
            max_parallel,
            slurm,
        } => {
            if *points_per_task == 0 || *max_parallel == 0 {
                anyhow::bail!("--points-per-task and --max-parallel must be at least 1");
            }
            let submitted = submit_sweep(
                project,
                sweep,
                &submit_options(slurm, Some(*max_parallel), *points_per_task),
            )?;
            if slurm.dry_run && !submitted.sbatch.is_empty() {
                benchtop_kit::note!("submit with: {}", submitted.sbatch.join(" "));
            }
            if submitted.folder.is_none() {
                benchtop_kit::note!(
                    "nothing to submit: every point of `{sweep}` is done, computed, queued or running"
                );
            }
            print_json(&submitted)
        }
        SweepCommand::RunTask { folder, task } => print_json(&task::run_task(folder, *task)?),
        SweepCommand::Collect { project, sweep } => {
            print_json(&collect::sweep_report(project, sweep, true)?)
        }
        SweepCommand::Status { project, sweep } => {
            print_json(&collect::sweep_report(project, sweep, false)?)
        }
        SweepCommand::Cancel { project, sweep } => print_json(&cancel(project, sweep)?),
    }
}

/// Cancels every job of the sweep that has tasks queued or running; returns their ids.
pub fn cancel(project: &Path, sweep: &str) -> anyhow::Result<serde_json::Value> {
    let jobs = survey::survey(project, sweep, true)?;
    let mut cancelled = Vec::new();
    for job in &jobs.jobs {
        let active = (0..job.tasks.len()).any(|t| job.is_active(t));
        if let (true, Some(id)) = (active, &job.slurm_job_id) {
            slurm::cancel(id, None)?;
            cancelled.push(id.clone());
        }
    }
    Ok(serde_json::json!({ "cancelled": cancelled }))
}

/// What `benchtop run` does with Slurm.
#[derive(Clone, Debug, Default)]
pub struct RunCluster {
    /// Submit the run as a job instead of computing here.
    pub submit: bool,
    /// Bring the newest finished run job's outputs into `--out` (and with `--save`, its results
    /// into the project).
    pub collect: bool,
    /// Slurm settings.
    pub slurm: SlurmArgs,
}

/// `benchtop run`: here, submitted to Slurm (`--slurm`), or collected (`--collect`).
pub fn run_command(
    file: &Path,
    out: &Path,
    options: &super::run::RunOptions,
    cluster: &RunCluster,
) -> anyhow::Result<()> {
    if cluster.submit && cluster.collect {
        anyhow::bail!("--slurm submits and --collect collects: use one at a time");
    }
    if cluster.collect {
        return print_json(&collect::collect_run(file, out, options.save)?);
    }
    if !cluster.submit {
        return super::run::run(file, out, options).map(|_| ());
    }
    super::run::parse_formats(&options.formats)?;
    let work = RunWork {
        formats: options.formats.clone(),
        dpi: options.dpi,
        preset: options.preset.clone(),
        set: options.set.clone(),
        submitted_digest: folder::digest(file)?,
    };
    let submitted = submit_run(file, &work, &submit_options(&cluster.slurm, None, 1))?;
    if cluster.slurm.dry_run {
        benchtop_kit::note!("submit with: {}", submitted.sbatch.join(" "));
    }
    benchtop_kit::note!(
        "when it has finished: benchtop run {} --collect --out {}{}",
        file.display(),
        out.display(),
        if options.save { " --save" } else { "" }
    );
    print_json(&submitted)
}
