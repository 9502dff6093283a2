//! The self-describing job folder beside a project: `<stem>.data/cluster/<name>-<n>/`.
//!
//! ```text
//! job.json        the manifest: what the job is, the project, the binary, the Slurm job id
//! project.ron     the project frozen at submission (its arrays in project.data/)
//! points.csv      sweeps: point, task, repeat, seed and one column per axis
//! job.sbatch      the batch script (`sbatch job.sbatch` submits it)
//! results/        sweeps: one RON file per point, written atomically by the task
//! tasks/          a `.started` and a `.done` marker per task
//! logs/           each task's stdout and stderr (`task-<i>.out`, `task-<i>.err`)
//! out/            long runs: what `benchtop run` exported
//! ```

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use benchtop_kit::project::write_atomic;

use super::untrusted;
use serde::{Deserialize, Serialize};

/// The folder under the project's data folder that holds the job folders.
pub const CLUSTER_DIR: &str = "cluster";
/// The manifest's file name.
pub const MANIFEST: &str = "job.json";
/// The frozen project's file name.
pub const PROJECT: &str = "project.ron";
/// The points table's file name.
pub const POINTS: &str = "points.csv";
/// The batch script's file name.
pub const SCRIPT: &str = "job.sbatch";
/// The folder of per-point result files.
pub const RESULTS: &str = "results";
/// The folder of task markers.
pub const TASKS: &str = "tasks";
/// The folder of task logs.
pub const LOGS: &str = "logs";
/// The folder a long run exports into.
pub const OUT: &str = "out";

/// The manifest's format; a folder of another format is refused by name.
pub const FORMAT: u32 = 1;

/// What a job computes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Work {
    /// Points of one sweep, as an array job.
    Sweep(SweepWork),
    /// One headless `benchtop run` of the whole project.
    Run(RunWork),
}

/// A sweep job: which sweep and how its points are split into tasks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepWork {
    /// The sweep's name in the project.
    pub sweep: String,
    /// The panel's fingerprint when submitted (results of another one are stale).
    pub fingerprint: String,
    /// The swept parameter keys, one per axis (the points table's coordinate columns).
    pub axes: Vec<String>,
    /// How many points the job computes.
    pub points: usize,
    /// Points per array task.
    pub points_per_task: usize,
    /// Array tasks (`--array=0-<tasks − 1>`).
    pub tasks: usize,
}

/// A long run: what the `benchtop run` of the job applies and exports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunWork {
    /// Figure formats (`svg`, `png`, `pdf`).
    pub formats: Vec<String>,
    /// Resolution of PNG figures.
    pub dpi: u32,
    /// The project's preset applied first.
    pub preset: Option<String>,
    /// `PANE:KEY=VALUE` settings applied after it.
    pub set: Vec<String>,
    /// [`digest`] of the project file when submitted: collect refuses to overwrite a project
    /// edited since.
    pub submitted_digest: String,
}

/// A digest of a file's bytes (FNV-1a, 64 bits, in hex), to tell whether it changed.
pub fn digest(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    Ok(format!("{hash:016x}"))
}

/// `job.json`: everything a task, `status` and `collect` need to know about the job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT`].
    pub format: u32,
    /// What the job computes.
    pub work: Work,
    /// The project submitted from (absolute).
    pub project: PathBuf,
    /// The folder relative data paths of the project are read from (the project's folder).
    pub project_dir: PathBuf,
    /// The `benchtop` binary the tasks run.
    pub benchtop: PathBuf,
    /// `benchtop <version> (<commit>)` of the submitting binary.
    pub submitted_by: String,
    /// Seconds since the Unix epoch at submission.
    pub submitted_unix: u64,
    /// The Slurm job id (`None` for a `--dry-run` folder until a task reports it).
    pub slurm_job_id: Option<String>,
    /// The `sbatch` command line that submits the job.
    pub sbatch: Vec<String>,
}

/// A job folder and its manifest.
#[derive(Clone, Debug)]
pub struct JobFolder {
    /// The folder (absolute).
    pub path: PathBuf,
    /// Its `job.json`.
    pub manifest: Manifest,
}

impl JobFolder {
    /// Reads the folder's manifest and checks it as untrusted data ([`untrusted`]): its size,
    /// its Slurm job id, its counts, and that the folder's subfolders are real folders. The
    /// project and its folder are where the job folder itself lies (`<dir>/<stem>.data/
    /// cluster/<job>` belongs to `<dir>/<stem>.ron`), whatever `job.json` says, so a job folder
    /// cannot send reads elsewhere.
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let file = path.join(MANIFEST);
        let text = untrusted::read_text(&file, untrusted::MAX_MANIFEST_BYTES)
            .with_context(|| format!("{}: cannot read the job manifest", file.display()))?
            .ok_or_else(|| anyhow::anyhow!("{}: no job manifest", file.display()))?;
        let mut manifest: Manifest = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a benchtop job manifest", file.display()))?;
        if manifest.format != FORMAT {
            anyhow::bail!(
                "{}: job format {} (this benchtop reads format {FORMAT})",
                file.display(),
                manifest.format
            );
        }
        if let Some(id) = &manifest.slurm_job_id {
            untrusted::check_slurm_job_id(id)
                .with_context(|| format!("{}: `slurm_job_id`", file.display()))?;
        }
        if let Work::Sweep(work) = &manifest.work {
            check_counts(work).with_context(|| format!("{}", file.display()))?;
        }
        for sub in [RESULTS, TASKS, LOGS, OUT] {
            untrusted::check_folder(&path.join(sub))?;
        }
        let (project, project_dir) = owning_project(path)?;
        manifest.project = project;
        manifest.project_dir = project_dir;
        Ok(Self {
            path: path.to_path_buf(),
            manifest,
        })
    }

    /// Writes the manifest atomically.
    pub fn save_manifest(&self) -> anyhow::Result<()> {
        let file = self.path.join(MANIFEST);
        let text = serde_json::to_string_pretty(&self.manifest)?;
        write_atomic(&file, text.as_bytes())
            .with_context(|| format!("{}: cannot write the job manifest", file.display()))
    }

    /// The sweep this job computes, if it is a sweep job.
    pub fn sweep(&self) -> Option<&SweepWork> {
        match &self.manifest.work {
            Work::Sweep(work) => Some(work),
            Work::Run(_) => None,
        }
    }

    /// The folder's name (`binder-crossing-2`).
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }

    /// The result file of point `point`.
    pub fn result_file(&self, point: usize) -> PathBuf {
        self.path.join(RESULTS).join(format!("p{point:06}.ron"))
    }

    /// The marker written when task `task` starts (`done` false) or ends (`done` true).
    pub fn marker(&self, task: usize, done: bool) -> PathBuf {
        let suffix = if done { "done" } else { "started" };
        self.path.join(TASKS).join(format!("t{task:05}.{suffix}"))
    }

    /// Task `task`'s standard error log.
    pub fn stderr_log(&self, task: usize) -> PathBuf {
        self.path.join(LOGS).join(format!("task-{task}.err"))
    }
}

/// A sweep job's counts, bounded before anything is listed or allocated.
fn check_counts(work: &SweepWork) -> anyhow::Result<()> {
    if work.points > untrusted::MAX_POINTS {
        anyhow::bail!(
            "`points` = {}: a job holds at most {} points",
            work.points,
            untrusted::MAX_POINTS
        );
    }
    if work.tasks == 0 || work.tasks > untrusted::MAX_TASKS {
        anyhow::bail!(
            "`tasks` = {}: a job has 1 to {} tasks",
            work.tasks,
            untrusted::MAX_TASKS
        );
    }
    if work.points_per_task == 0 || work.tasks != work.points.div_ceil(work.points_per_task).max(1)
    {
        anyhow::bail!(
            "`tasks` = {} does not split `points` = {} by `points_per_task` = {}",
            work.tasks,
            work.points,
            work.points_per_task
        );
    }
    if work.axes.len() > 2 || work.axes.iter().any(|a| a.len() > 200) {
        anyhow::bail!("`axes`: a sweep has at most 2 axes with keys of at most 200 characters");
    }
    Ok(())
}

/// The project a job folder belongs to and that project's folder, from where the job folder
/// lies: `<dir>/<stem>.data/cluster/<job>` → (`<dir>/<stem>.ron`, `<dir>`).
fn owning_project(job: &Path) -> anyhow::Result<(PathBuf, PathBuf)> {
    let job = job
        .canonicalize()
        .with_context(|| format!("{}", job.display()))?;
    let data = job
        .parent()
        .filter(|cluster| cluster.file_name().is_some_and(|n| n == CLUSTER_DIR))
        .and_then(Path::parent);
    let stem = data
        .and_then(|d| d.file_name())
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".data"));
    match (data.and_then(Path::parent), stem) {
        (Some(dir), Some(stem)) if !stem.is_empty() => {
            Ok((dir.join(format!("{stem}.ron")), dir.to_path_buf()))
        }
        _ => anyhow::bail!(
            "{}: not a job folder of a project (expected <folder>/<project>.data/{CLUSTER_DIR}/<job>)",
            job.display()
        ),
    }
}

/// The folder holding a project's job folders: `<stem>.data/cluster/`.
pub fn cluster_dir(project: &Path) -> PathBuf {
    let stem = project
        .file_stem()
        .map_or_else(|| "project".into(), |s| s.to_string_lossy().into_owned());
    let parent = project.parent().unwrap_or(Path::new("."));
    parent.join(format!("{stem}.data")).join(CLUSTER_DIR)
}

/// A name for files made from `name`: lower-case letters, digits and dashes, at most 40.
pub fn slug(name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
        if slug.len() >= 40 {
            break;
        }
    }
    let slug = slug.trim_end_matches('-').to_owned();
    if slug.is_empty() {
        "job".to_owned()
    } else {
        slug
    }
}

/// Makes a new, empty job folder `<cluster dir>/<slug>-<n>` (the first free n) with its
/// `results/`, `tasks/` and `logs/` folders. Refuses paths with white space: `#SBATCH` lines
/// cannot quote them.
pub fn create(project: &Path, slug: &str) -> anyhow::Result<PathBuf> {
    let dir = cluster_dir(project);
    std::fs::create_dir_all(&dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let dir = dir
        .canonicalize()
        .with_context(|| format!("{}", dir.display()))?;
    if dir.to_string_lossy().chars().any(char::is_whitespace) {
        anyhow::bail!(
            "{}: the job folder's path has white space, which Slurm's #SBATCH lines cannot \
             hold; move the project to a path without spaces",
            dir.display()
        );
    }
    for n in 1..100_000 {
        let folder = dir.join(format!("{slug}-{n}"));
        match std::fs::create_dir(&folder) {
            Ok(()) => {
                for sub in [RESULTS, TASKS, LOGS] {
                    std::fs::create_dir(folder.join(sub))
                        .with_context(|| format!("{}: cannot create {sub}/", folder.display()))?;
                }
                return Ok(folder);
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => {
                return Err(error).with_context(|| format!("{}: cannot create", folder.display()));
            }
        }
    }
    anyhow::bail!("{}: no free job folder name", dir.display())
}

/// Every job folder of the project (oldest first by name number), skipping folders without a
/// manifest. A manifest that cannot be read is an error naming it.
pub fn list(project: &Path) -> anyhow::Result<Vec<JobFolder>> {
    let dir = cluster_dir(project);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.join(MANIFEST).is_file())
        .collect();
    folders.sort_by_key(|path| {
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let number = name
            .rsplit_once('-')
            .and_then(|(_, n)| n.parse::<u64>().ok())
            .unwrap_or(0);
        (number, name)
    });
    let mut jobs = folders
        .iter()
        .map(|path| JobFolder::open(path))
        .collect::<anyhow::Result<Vec<_>>>()?;
    jobs.sort_by_key(|job| job.manifest.submitted_unix);
    Ok(jobs)
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// This machine's host name.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|name| name.trim().to_owned())
        .ok()
        .filter(|name| !name.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The last `lines` lines of a text file (empty when it is missing, empty or not a regular
/// file); only its last 64 KiB are read.
pub fn tail(path: &Path, lines: usize) -> String {
    let text = untrusted::read_end(path, untrusted::MAX_TAIL_BYTES);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_file_names() {
        assert_eq!(slug("Binder crossing"), "binder-crossing");
        assert_eq!(slug("  β / K sweep!! "), "k-sweep");
        assert_eq!(slug("***"), "job");
        assert!(slug(&"x".repeat(100)).len() <= 40);
    }

    #[test]
    fn cluster_dir_is_beside_the_sidecar() {
        assert_eq!(
            cluster_dir(Path::new("/a/b/ising.ron")),
            Path::new("/a/b/ising.data/cluster")
        );
    }
}
