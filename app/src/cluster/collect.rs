//! `benchtop sweep collect` and `status`, and the collect of a long run.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::Serialize;

use super::folder::{self, JobFolder, Work};
use super::merge::{Merged, Outstanding, merge, outstanding};
use super::submit::find_sweep;
use super::survey::{Survey, TaskReport, TaskState, survey};
use crate::session::Session;
use benchtop_kit::sweep::SweepDoc;

/// One job in a report.
#[derive(Clone, Debug, Serialize)]
pub struct JobSummary {
    /// The job folder.
    pub folder: PathBuf,
    /// The Slurm job id.
    pub job_id: Option<String>,
    /// Computed with other panel parameters than the project's now.
    pub stale: bool,
    /// Points in the job.
    pub points: usize,
    /// Points with a result file.
    pub finished: usize,
    /// Tasks by state: queued, running, done, failed, not submitted, unknown.
    pub tasks: std::collections::BTreeMap<String, usize>,
    /// The tasks that failed, with Slurm's state and their stderr tail.
    pub failed_tasks: Vec<TaskReport>,
}

/// What `collect` and `status` print.
#[derive(Clone, Debug, Serialize)]
pub struct SweepReport {
    /// The project.
    pub project: PathBuf,
    /// The sweep.
    pub sweep: String,
    /// Grid points × repeats.
    pub total: usize,
    /// Points with a result in the project (after merging, for `collect`).
    pub done: usize,
    /// What the merge did (`collect` only).
    pub merge: Option<Merged>,
    /// Whether the project file was written.
    pub saved: bool,
    /// The jobs of the sweep.
    pub jobs: Vec<JobSummary>,
    /// Points still without a result, by state (`queued`, `running`, `failed`, …).
    pub outstanding_by_state: std::collections::BTreeMap<String, usize>,
    /// Those points, each with its job, task, state and stderr tail.
    pub outstanding: Vec<Outstanding>,
    /// Why Slurm could not be asked, if it could not.
    pub queue_error: Option<String>,
}

fn state_word(state: TaskState) -> String {
    serde_json::to_value(state)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn summaries(survey: &Survey, fingerprint: &str) -> Vec<JobSummary> {
    survey
        .jobs
        .iter()
        .map(|job| {
            let mut tasks = std::collections::BTreeMap::new();
            for task in &job.tasks {
                *tasks.entry(state_word(task.state)).or_insert(0) += 1;
            }
            JobSummary {
                folder: job.folder.path.clone(),
                job_id: job.slurm_job_id.clone(),
                stale: job.work.fingerprint != fingerprint,
                points: job.points.len(),
                finished: job.records.len(),
                tasks,
                failed_tasks: job
                    .tasks
                    .iter()
                    .filter(|t| t.state == TaskState::Failed)
                    .cloned()
                    .collect(),
            }
        })
        .collect()
}

/// `collect` (`merge_results`: merges finished points and saves the project when any were
/// added) or `status` (reads only).
pub fn sweep_report(
    project: &Path,
    name: &str,
    merge_results: bool,
) -> anyhow::Result<SweepReport> {
    let mut session = Session::open(project)?;
    let index = find_sweep(&session, project, name)?;
    let pane = session.sweeps[index].doc.pane;
    let panel = session.panels.get(&pane).ok_or_else(|| {
        anyhow::anyhow!(
            "{}: sweep `{name}`: its panel is not open",
            project.display()
        )
    })?;
    let support = panel.sweep_support();
    let fingerprint = support.fingerprint.clone();
    let jobs = survey(project, name, true)?;
    let mut doc = session.sweeps[index].doc.clone();
    let mut merged = None;
    let mut saved = false;
    if merge_results {
        doc.validate(&support)
            .map_err(|message| anyhow::anyhow!("{}: {message}", project.display()))?;
        let report = merge(&mut doc, &fingerprint, &jobs)?;
        if report.merged > 0 {
            session.sweeps[index].doc = doc.clone();
            session.save_as(project).with_context(|| {
                format!("saving the collected results into {}", project.display())
            })?;
            saved = true;
        }
        merged = Some(report);
    }
    Ok(report_of(project, &doc, &fingerprint, &jobs, merged, saved))
}

/// The report on sweep `doc` (as it stands, after any merge) and its `jobs`, for a panel whose
/// fingerprint is now `fingerprint`; `merged` and `saved` say what a collect did.
pub fn report_of(
    project: &Path,
    doc: &SweepDoc,
    fingerprint: &str,
    jobs: &Survey,
    merged: Option<Merged>,
    saved: bool,
) -> SweepReport {
    let view = if doc.fingerprint == fingerprint || doc.results.is_empty() {
        doc.clone()
    } else {
        // Results of other parameters count as missing, as a local run would recompute them.
        let mut fresh = doc.clone();
        fresh.results.clear();
        fresh
    };
    let outstanding = outstanding(&view, fingerprint, jobs);
    let mut by_state = std::collections::BTreeMap::new();
    for point in &outstanding {
        *by_state.entry(point.state.clone()).or_insert(0) += 1;
    }
    let total = doc.axes.iter().map(|a| a.grid.len()).product::<usize>() * doc.repeats as usize;
    SweepReport {
        project: project.to_path_buf(),
        sweep: doc.name.clone(),
        total,
        done: total - outstanding.len(),
        merge: merged,
        saved,
        jobs: summaries(jobs, fingerprint),
        outstanding_by_state: by_state,
        outstanding,
        queue_error: jobs.queue_error.clone(),
    }
}

/// What the collect of a long run did.
#[derive(Clone, Debug, Serialize)]
pub struct RunCollected {
    /// The job folder collected from.
    pub folder: PathBuf,
    /// Files copied into `--out`.
    pub files: usize,
    /// Whether the computed results were saved into the project.
    pub saved: bool,
}

/// `benchtop run PROJECT --collect --out DIR [--save]`: copies what the newest finished run job
/// exported into `out`, and with `save` writes its computed project over `project` (refused if
/// the project changed since it was submitted).
pub fn collect_run(project: &Path, out: &Path, save: bool) -> anyhow::Result<RunCollected> {
    let jobs: Vec<JobFolder> = folder::list(project)?
        .into_iter()
        .filter(|job| matches!(job.manifest.work, Work::Run(_)))
        .collect();
    if jobs.is_empty() {
        anyhow::bail!(
            "{}: no run job was submitted (use `benchtop run {} --slurm --out DIR`)",
            project.display(),
            project.display()
        );
    }
    let Some(job) = jobs.iter().rev().find(|job| job.marker(0, true).exists()) else {
        let newest = &jobs[jobs.len() - 1];
        let tail = folder::tail(&newest.stderr_log(0), super::survey::STDERR_TAIL_LINES);
        anyhow::bail!(
            "{}: no run job has finished yet (newest: {}{})",
            project.display(),
            newest.path.display(),
            if tail.is_empty() {
                String::new()
            } else {
                format!("; its stderr ends:\n{tail}")
            }
        );
    };
    let files = copy_tree(&job.path.join(folder::OUT), out)?;
    if save {
        let Work::Run(work) = &job.manifest.work else {
            unreachable!("filtered to run jobs")
        };
        if folder::digest(project)? != work.submitted_digest {
            anyhow::bail!(
                "{}: the project changed since the run was submitted; not overwriting it (the \
                 computed project is {})",
                project.display(),
                job.path.join(folder::PROJECT).display()
            );
        }
        let mut computed = Session::open(&job.path.join(folder::PROJECT))?;
        computed
            .save_as(project)
            .with_context(|| format!("saving into {}", project.display()))?;
    }
    Ok(RunCollected {
        folder: job.path.clone(),
        files,
        saved: save,
    })
}

/// Copies the regular files under `from` into `to`; a symbolic link or any other special file
/// in the job's output is refused (it could point at a file outside the job folder).
fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<usize> {
    super::untrusted::check_folder(from)?;
    std::fs::create_dir_all(to).with_context(|| format!("{}: cannot create", to.display()))?;
    let mut count = 0;
    for entry in std::fs::read_dir(from).with_context(|| format!("{}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            count += copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying into {}", target.display()))?;
            count += 1;
        } else {
            anyhow::bail!(
                "{}: not a regular file (a link?); the job's output is not copied",
                entry.path().display()
            );
        }
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_in_a_jobs_output_is_not_copied() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir_all(out.join("panel")).unwrap();
        std::fs::write(out.join("panel/figure.svg"), "<svg/>").unwrap();
        assert_eq!(copy_tree(&out, &dir.path().join("copy")).unwrap(), 1);
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "not yours").unwrap();
        std::os::unix::fs::symlink(&secret, out.join("panel/stolen.txt")).unwrap();
        let error = copy_tree(&out, &dir.path().join("copy2")).unwrap_err();
        assert!(error.to_string().contains("stolen.txt"), "{error}");
        assert!(!dir.path().join("copy2/panel/stolen.txt").exists());
    }
}
