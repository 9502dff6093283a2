//! Sweeps on a Slurm cluster (`benchtop sweep submit|run-task|status|collect`): a job folder's
//! tasks run by hand, and a real single-node Slurm cluster on this machine
//! (`scripts/slurm-local.sh`), each compared bit for bit with a local run of the same sweep.
//!
//! The Slurm test starts the cluster itself (or finds it running, and then leaves it running).
//! Where Slurm cannot start (no packages, not root) it is skipped with the reason, unless
//! `BENCHTOP_REQUIRE_SLURM=1` (set by `.ci/run`) makes that a failure.

mod crafted;
mod window;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::common::{benchtop, repo_root};

const SWEEP: &str = "Binder crossing";

/// Held by each test that uses the local cluster: one test at a time starts, uses and stops it.
static SLURM: Mutex<()> = Mutex::new(());

/// A small Ising project with a 4 × 2 sweep of β and L (Checkerboard on the CPU, so a node
/// without a GPU computes it exactly as this machine does); `measurement_sweeps` sets how long
/// a point takes.
fn write_project(dir: &Path, name: &str, measurement_sweeps: u32) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            r#"(
    format_version: 1,
    panels: [(id: (1), state: Ising((
        params: (mc: (size: 8, beta: 0.44, algorithm: Checkerboard, backend: Cpu,
                      thermalization_sweeps: 50, measurement_sweeps: {measurement_sweeps})),
        headless: (monte_carlo: false, duality: false, approximate_duals: false),
    )))],
    sweeps: [(
        name: "{SWEEP}",
        pane: (1),
        axes: [
            (param: "mc.beta", grid: Range(start: 0.40, end: 0.48, count: 4, spacing: Linear)),
            (param: "mc.size", grid: List([8.0, 16.0])),
        ],
        repeats: 1,
        base_seed: 7,
        outputs: ["mc.binder_cumulant", "mc.susceptibility", "mc.abs_magnetization"],
        view: Lines,
    )],
)"#
        ),
    )
    .expect("write project");
    path
}

/// Runs `benchtop ARGS` (with `SLURM_CONF` when given); it must succeed and print one JSON
/// object.
fn json(args: &[&str], slurm_conf: Option<&str>) -> serde_json::Value {
    let mut command = benchtop();
    command.args(args);
    if let Some(conf) = slurm_conf {
        command.env("SLURM_CONF", conf);
    }
    let output = command.output().expect("benchtop runs");
    assert!(
        output.status.success(),
        "benchtop {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "benchtop {args:?} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// The project's sweeps as RON text: equal text is equal results, bit for bit (RON writes each
/// number in its shortest exact form, NaN included).
fn sweeps_text(project: &Path) -> String {
    let doc = benchtop::catalog::ProjectDoc::load(project).expect("project loads");
    ron::to_string(&doc.sweeps).expect("RON")
}

/// A copy of `project` run locally with `benchtop run --save`: the reference sweep.
fn local_reference(dir: &Path, project: &Path) -> String {
    let local = dir.join("local.ron");
    std::fs::copy(project, &local).expect("copy");
    let output = benchtop()
        .arg("run")
        .arg(&local)
        .args(["--out", &dir.join("local-out").display().to_string()])
        .args(["--format", "svg", "--save"])
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = sweeps_text(&local);
    assert!(text.contains("mc.binder_cumulant"), "{text}");
    text
}

/// Without Slurm: `--dry-run` writes the job folder and prints the `sbatch` command; running
/// each task by hand and collecting gives the local run's sweep; collecting again changes
/// nothing.
#[test]
fn cluster_dry_run_folder_run_by_hand_equals_a_local_run() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let project = write_project(dir.path(), "sweep.ron", 400);
    let reference = local_reference(dir.path(), &project);
    let project_arg = project.display().to_string();
    let submitted = json(
        &[
            "sweep",
            "submit",
            &project_arg,
            "--sweep",
            SWEEP,
            "--points-per-task",
            "3",
            "--max-parallel",
            "2",
            "--time",
            "00:05:00",
            "--dry-run",
        ],
        None,
    );
    assert_eq!(submitted["tasks"], 3, "{submitted}");
    assert_eq!(submitted["points"], 8, "{submitted}");
    assert!(submitted["job_id"].is_null(), "not submitted: {submitted}");
    let folder = PathBuf::from(submitted["folder"].as_str().expect("folder"));
    assert!(
        folder.starts_with(
            dir.path()
                .canonicalize()
                .expect("path")
                .join("sweep.data/cluster")
        )
    );
    assert_eq!(submitted["sbatch"][0], "sbatch");
    let script = std::fs::read_to_string(folder.join("job.sbatch")).expect("script");
    assert!(script.contains("#SBATCH --array=0-2%2"), "{script}");
    assert!(script.contains("#SBATCH --time=00:05:00"), "{script}");
    assert!(folder.join("project.ron").is_file() && folder.join("points.csv").is_file());

    // A dry-run folder is unknown to Slurm until its tasks start: its points are not submitted.
    let status = json(&["sweep", "status", &project_arg, "--sweep", SWEEP], None);
    assert_eq!(
        status["outstanding_by_state"]["not_submitted"], 8,
        "{status}"
    );

    let folder_arg = folder.display().to_string();
    for task in 0..3 {
        let done = json(
            &[
                "sweep",
                "run-task",
                &folder_arg,
                "--task",
                &task.to_string(),
            ],
            None,
        );
        assert_eq!(done["failed"], 0, "{done}");
    }
    let again = json(&["sweep", "run-task", &folder_arg, "--task", "2"], None);
    assert_eq!(
        again["computed"], 0,
        "a rerun task skips finished points: {again}"
    );
    let record = std::fs::read_to_string(folder.join("results/p000000.ron")).expect("result");
    for field in ["host:", "seconds:", "git_commit:", "version:"] {
        assert!(record.contains(field), "provenance {field}: {record}");
    }

    let collected = json(&["sweep", "collect", &project_arg, "--sweep", SWEEP], None);
    assert_eq!(collected["merge"]["merged"], 8, "{collected}");
    assert_eq!(collected["done"], 8);
    assert_eq!(
        sweeps_text(&project),
        reference,
        "the same sweep as a local run"
    );
    let twice = json(&["sweep", "collect", &project_arg, "--sweep", SWEEP], None);
    assert_eq!(twice["merge"]["merged"], 0, "{twice}");
    assert_eq!(twice["saved"], false);
    assert_eq!(sweeps_text(&project), reference);
    let nothing = json(
        &[
            "sweep",
            "submit",
            &project_arg,
            "--sweep",
            SWEEP,
            "--dry-run",
        ],
        None,
    );
    assert!(
        nothing["folder"].is_null(),
        "nothing left to submit: {nothing}"
    );

    let wrong = benchtop()
        .args(["sweep", "collect", &project_arg, "--sweep", "nope"])
        .output()
        .expect("runs");
    assert!(!wrong.status.success());
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        stderr.contains("no sweep `nope`") && stderr.contains(SWEEP),
        "{stderr}"
    );
}

/// The local cluster, started by `scripts/slurm-local.sh` (stopped on drop if this test
/// started it).
struct LocalCluster {
    conf: String,
    started: bool,
    _one_test: MutexGuard<'static, ()>,
}

impl LocalCluster {
    /// Starts it, or says why it cannot start.
    fn start() -> Result<Self, String> {
        // A test that failed while holding the lock leaves the cluster as usable as before.
        let one_test = SLURM
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let output = Command::new(repo_root().join("scripts/slurm-local.sh"))
            .arg("start")
            .output()
            .map_err(|e| format!("scripts/slurm-local.sh could not run: {e}"))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        if !output.status.success() {
            return Err(format!(
                "scripts/slurm-local.sh start failed: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        let conf = stdout
            .lines()
            .find_map(|l| l.strip_prefix("export SLURM_CONF="))
            .ok_or_else(|| format!("scripts/slurm-local.sh printed no SLURM_CONF: {stdout}"))?
            .to_owned();
        Ok(Self {
            conf,
            started: stdout.contains("# started"),
            _one_test: one_test,
        })
    }

    /// Starts it, or returns `None` after printing why it cannot start, which fails the test
    /// instead when `BENCHTOP_REQUIRE_SLURM=1`.
    fn start_or_skip(test: &str) -> Option<Self> {
        match Self::start() {
            Ok(cluster) => Some(cluster),
            Err(reason) => {
                assert!(
                    std::env::var_os("BENCHTOP_REQUIRE_SLURM").is_none_or(|v| v != "1"),
                    "BENCHTOP_REQUIRE_SLURM=1 but the local Slurm cluster cannot start: {reason}"
                );
                eprintln!("skipping {test}: {reason}");
                None
            }
        }
    }

    /// Runs a Slurm client command against the cluster.
    fn client(&self, program: &str, args: &[&str]) -> std::process::Output {
        Command::new(program)
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .output()
            .expect("the Slurm command runs")
    }

    /// Waits until job `id` has left the queue.
    fn wait_for(&self, id: &str, limit: Duration) {
        let started = Instant::now();
        loop {
            let out = self.client("squeue", &["-h", "-r", "-j", id, "-o", "%i"]);
            if String::from_utf8_lossy(&out.stdout).trim().is_empty() {
                return;
            }
            assert!(
                started.elapsed() < limit,
                "job {id} still queued after {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        if self.started {
            let _ = Command::new(repo_root().join("scripts/slurm-local.sh"))
                .arg("stop")
                .status();
        }
    }
}

/// Through a real Slurm: a 2-D sweep submitted with `sbatch` as an array job; one task is
/// cancelled (`scancel`) after its first point, so `collect` merges what finished and reports
/// that task's points failed with its stderr; submitting again sends those points alone, in one
/// task; the collected sweep then equals the local run's, bit for bit.
#[test]
fn cluster_slurm_sweep_equals_local_and_a_killed_task_is_resubmitted_alone() {
    let Some(cluster) = LocalCluster::start_or_skip("the Slurm test") else {
        return;
    };
    let conf = Some(cluster.conf.as_str());
    let dir = tempfile::tempdir().expect("temporary folder");
    let project = write_project(dir.path(), "slurm.ron", 12_000);
    let reference = local_reference(dir.path(), &project);
    let project_arg = project.display().to_string();

    let submitted = json(
        &[
            "sweep",
            "submit",
            &project_arg,
            "--sweep",
            SWEEP,
            "--points-per-task",
            "4",
            "--max-parallel",
            "1",
        ],
        conf,
    );
    assert_eq!(submitted["tasks"], 2, "{submitted}");
    let id = submitted["job_id"].as_str().expect("a job id").to_owned();
    let folder = PathBuf::from(submitted["folder"].as_str().expect("folder"));

    // Cancel task 1 once it has written its first result (of 4).
    let started = Instant::now();
    let first_of_task_1 = folder.join("results/p000004.ron");
    while !first_of_task_1.exists() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "task 1 wrote no result in 60 s; {}",
            crate::cluster::log_tails(&folder)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let cancel = cluster.client("scancel", &[&format!("{id}_1")]);
    assert!(cancel.status.success(), "{cancel:?}");
    cluster.wait_for(&id, Duration::from_secs(60));

    let collected = json(&["sweep", "collect", &project_arg, "--sweep", SWEEP], conf);
    let merged = collected["merge"]["merged"].as_u64().expect("merged");
    assert!(
        (5..8).contains(&merged),
        "task 0's 4 points and some of task 1's: {collected}"
    );
    let failed = &collected["jobs"][0]["failed_tasks"];
    assert_eq!(failed.as_array().map(Vec::len), Some(1), "{collected}");
    assert_eq!(failed[0]["task"], 1, "{collected}");
    let tail = failed[0]["stderr_tail"].as_str().unwrap_or_default();
    assert!(
        tail.contains("CANCELLED"),
        "the stderr tail says why: {tail}"
    );
    let outstanding = collected["outstanding"].as_array().expect("outstanding");
    assert_eq!(outstanding.len() as u64, 8 - merged, "{collected}");
    assert!(
        outstanding.iter().all(|p| p["state"] == "failed"),
        "{collected}"
    );

    let again = json(
        &[
            "sweep",
            "submit",
            &project_arg,
            "--sweep",
            SWEEP,
            "--points-per-task",
            "4",
        ],
        conf,
    );
    assert_eq!(again["tasks"], 1, "{again}");
    assert_eq!(
        again["points"].as_u64(),
        Some(8 - merged),
        "only the missing points: {again}"
    );
    let second = again["job_id"].as_str().expect("a job id").to_owned();
    cluster.wait_for(&second, Duration::from_secs(60));

    let status = json(&["sweep", "status", &project_arg, "--sweep", SWEEP], conf);
    assert_eq!(
        status["outstanding_by_state"]["computed"].as_u64(),
        Some(8 - merged),
        "{status}"
    );
    let done = json(&["sweep", "collect", &project_arg, "--sweep", SWEEP], conf);
    assert_eq!(done["done"], 8, "{done}");
    assert_eq!(
        sweeps_text(&project),
        reference,
        "the same sweep as a local run"
    );
    let record = std::fs::read_to_string(folder.join("results/p000000.ron")).expect("result");
    assert!(
        record.contains(&format!("slurm_task: Some(\"{id}_0\")")),
        "{record}"
    );
}

/// The end of every task log of a job folder (for failure messages).
pub fn log_tails(folder: &Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(folder.join("logs"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let tail = benchtop::cluster::folder::tail(&entry.path(), 10);
        text.push_str(&format!("{}:\n{tail}\n", entry.path().display()));
    }
    text
}
