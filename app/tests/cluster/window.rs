//! The Sweeps view's "Run on: Slurm cluster": submitting from the window, its status as the
//! background polls find it, results filling the sweep, a project reopened picking its job up
//! again, and the errors shown in the window (no `sbatch`, `sbatch` refusing, an unsaved
//! project).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};

use benchtop::cluster::watch::SweepCluster;
use benchtop::session::Session;
use benchtop::shell::BenchtopApp;
use benchtop_kit::sweep::SweepPoint;

use super::{LocalCluster, SWEEP, local_reference, write_project};
use crate::common;
use crate::common::{click, type_into};

type Window = Harness<'static, BenchtopApp>;

/// The window over the saved project `path`, its cluster's tasks running the `benchtop` binary
/// (the test binary is not one) `points_per_task` points each, polling every 200 ms.
fn window(path: &Path, conf: Option<&str>, points_per_task: usize) -> Window {
    let mut harness = common::harness(Session::open(path).expect("project opens"));
    let cluster = &mut harness.state_mut().cluster;
    cluster.defaults.benchtop = env!("CARGO_BIN_EXE_benchtop").to_owned();
    cluster.defaults.points_per_task = points_per_task;
    // The harness drew a first frame already: the sweep's form took the defaults then.
    let defaults = cluster.defaults.clone();
    *cluster.settings_mut(SWEEP) = defaults;
    cluster.commands.conf = conf.map(PathBuf::from);
    cluster.poll_every = Duration::from_millis(200);
    harness.step();
    harness
}

/// Opens the Sweeps view and chooses "Run on: Slurm cluster".
fn choose_slurm(harness: &mut Window) {
    harness.get_by_label_contains("Sweeps (").click();
    harness.step();
    harness.step();
    click(harness, "Slurm cluster");
    harness.get_by_label("Submit to Slurm");
}

/// Steps the window (the UI thread never waits on Slurm) until a label contains `text`;
/// returns that label.
fn step_until(harness: &mut Window, text: &str, limit: Duration) -> String {
    let started = Instant::now();
    loop {
        harness.step();
        if let Some(node) = harness.query_by_label_contains(text) {
            // A label's text is its value; a widget's is its label.
            let node = node.accesskit_node();
            return node.value().or_else(|| node.label()).unwrap_or_default();
        }
        let sweep = harness.state().cluster.sweep(SWEEP);
        assert!(
            started.elapsed() < limit,
            "no label with `{text}` after {limit:?}; message {:?}, error {:?}, tasks {:?}",
            sweep.and_then(|s| s.message.clone()),
            sweep.and_then(|s| s.error.clone()),
            sweep.map(SweepCluster::task_counts),
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A sweep's points as RON text in grid order: equal text is equal results, bit for bit.
fn points_text(points: &[SweepPoint]) -> Vec<String> {
    let mut sorted: Vec<&SweepPoint> = points.iter().collect();
    sorted.sort_by(|a, b| {
        a.coords
            .iter()
            .zip(&b.coords)
            .map(|(x, y)| x.total_cmp(y))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.repeat.cmp(&b.repeat))
    });
    sorted
        .into_iter()
        .map(|p| ron::to_string(p).expect("RON"))
        .collect()
}

fn window_points(harness: &Window) -> Vec<String> {
    let run = &harness.state().session.sweeps[0];
    assert_eq!(run.doc.name, SWEEP);
    points_text(&run.doc.results)
}

/// The results of the local run `benchtop run --save` wrote into `local.ron`.
fn reference_points(dir: &Path) -> Vec<String> {
    let doc = benchtop::catalog::ProjectDoc::load(&dir.join("local.ron")).expect("loads");
    points_text(&doc.sweeps[0].results)
}

/// Through the local Slurm: sbatch refusing a partition is shown naming sbatch; a submission
/// from the window runs, its status says done, and the sweep then holds the local run's points
/// bit for bit; the project opened again finds the job and its results; a slow job cancelled
/// from the window is reported failed with Slurm's CANCELLED.
#[test]
fn cluster_window_submits_watches_and_picks_the_job_up_again() {
    let Some(cluster) = LocalCluster::start_or_skip("the Slurm window test") else {
        return;
    };
    let dir = tempfile::tempdir().expect("temporary folder");
    let project = write_project(dir.path(), "window.ron", 400);
    local_reference(dir.path(), &project);
    let reference = reference_points(dir.path());
    assert_eq!(reference.len(), 8);

    let mut harness = window(&project, Some(&cluster.conf), 4);
    choose_slurm(&mut harness);
    step_until(
        &mut harness,
        "No cluster jobs for this sweep yet.",
        Duration::from_secs(10),
    );

    type_into(&mut harness, "Partition", "nosuch");
    click(&mut harness, "Submit to Slurm");
    let refused = step_until(
        &mut harness,
        "Submitting `Binder crossing` failed",
        Duration::from_secs(20),
    );
    assert!(
        refused.contains("Submitting `Binder crossing` failed")
            && refused.contains("sbatch")
            && refused.contains("nosuch"),
        "{refused}"
    );

    type_into(&mut harness, "Partition", "");
    type_into(&mut harness, "Time per task", "00:05:00");
    click(&mut harness, "Submit to Slurm");
    let submitted = step_until(&mut harness, "Submitted Slurm job", Duration::from_secs(20));
    assert!(submitted.contains("2 tasks, 8 points"), "{submitted}");
    let done = step_until(&mut harness, "Done: ", Duration::from_secs(50));
    assert!(
        done.contains("2 done, 0 failed tasks; 8 of 8 points in"),
        "{done}"
    );
    assert_eq!(window_points(&harness), reference, "the local run's points");
    let jobs = benchtop::cluster::folder::list(&project).expect("job folders");
    assert_eq!(jobs.len(), 1, "the refused submission left no folder");
    let script = std::fs::read_to_string(jobs[0].path.join("job.sbatch")).expect("script");
    assert!(script.contains("#SBATCH --time=00:05:00"), "{script}");
    assert!(script.contains("#SBATCH --array=0-1%32"), "{script}");
    assert!(
        harness.state().is_dirty(),
        "the points are in the window, not yet saved"
    );

    // Reopened without saving: the window finds the job folder, shows it done, and merges.
    let mut again = window(&project, Some(&cluster.conf), 4);
    again.get_by_label_contains("Sweeps (").click();
    again.step();
    let done = step_until(&mut again, "Done: ", Duration::from_secs(20));
    assert!(done.contains("8 of 8 points in"), "{done}");
    again.get_by_label("Submit to Slurm");
    assert_eq!(window_points(&again), reference);
    let finished = again.state().cluster.sweep(SWEEP).expect("watched");
    assert!(!finished.is_active() && !finished.is_polling());

    // A slow job cancelled from the window: its tasks are reported failed, with Slurm's word.
    let slow = write_project(dir.path(), "slow.ron", 2_000_000);
    let mut harness = window(&slow, Some(&cluster.conf), 4);
    choose_slurm(&mut harness);
    click(&mut harness, "Submit to Slurm");
    step_until(&mut harness, "Running: ", Duration::from_secs(30));
    click(&mut harness, "Cancel cluster jobs");
    let cancelled = step_until(&mut harness, "Cancelled Slurm job", Duration::from_secs(20));
    let id = harness
        .state()
        .cluster
        .sweep(SWEEP)
        .and_then(|s| s.report.as_ref()?.jobs[0].job_id.clone());
    assert!(cancelled.contains(&id.expect("a job id")), "{cancelled}");
    let failed = step_until(&mut harness, "Failed: ", Duration::from_secs(30));
    assert!(failed.contains("2 failed tasks"), "{failed}");
    let tail = step_until(&mut harness, "task 0 failed", Duration::from_secs(5));
    assert!(tail.contains("CANCELLED"), "{tail}");
}

/// Without Slurm: an untitled or edited project is refused with the reason; a missing `sbatch`
/// is named and leaves no job folder; a dry run writes the folder, shows the command and counts
/// its tasks as not submitted.
#[test]
fn cluster_window_shows_why_it_cannot_submit_and_dry_runs() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let project = write_project(dir.path(), "dry.ron", 400);

    let text = std::fs::read_to_string(&project).expect("project");
    let mut untitled = common::harness(common::session_from(&text, "untitled.ron"));
    choose_slurm(&mut untitled);
    click(&mut untitled, "Submit to Slurm");
    untitled.get_by_label_contains("Submitting needs a saved project: save it first");

    let no_slurm = tempfile::tempdir().expect("an empty folder");
    let mut harness = window(&project, None, 1);
    harness.state_mut().cluster.commands.folder = Some(no_slurm.path().to_path_buf());
    choose_slurm(&mut harness);
    click(&mut harness, "Heatmap");
    assert!(harness.state().is_dirty(), "the sweep's view is saved");
    click(&mut harness, "Submit to Slurm");
    harness.get_by_label_contains("dry.ron has unsaved changes: save it first");
    assert!(harness.state_mut().save_to(&project), "saves");
    harness.step();
    click(&mut harness, "Submit to Slurm");
    let missing = step_until(&mut harness, "was not found", Duration::from_secs(20));
    let sbatch = no_slurm.path().join("sbatch");
    assert!(
        missing.contains(&format!("`{}` was not found", sbatch.display())),
        "{missing}"
    );
    assert!(
        benchtop::cluster::folder::list(&project)
            .expect("list")
            .is_empty(),
        "a failed submission leaves no folder"
    );

    click(&mut harness, "Dry run");
    click(&mut harness, "Submit to Slurm");
    let wrote = step_until(
        &mut harness,
        "submit it with: sbatch",
        Duration::from_secs(20),
    );
    assert!(wrote.contains("8 tasks, 8 points"), "{wrote}");
    let status = step_until(&mut harness, "Not submitted: ", Duration::from_secs(20));
    assert!(
        status.contains("0 of 8 points in; 8 tasks not submitted (dry run)"),
        "{status}"
    );
    let jobs = benchtop::cluster::folder::list(&project).expect("list");
    assert_eq!(jobs.len(), 1);
    assert!(jobs[0].manifest.slurm_job_id.is_none());
    assert!(
        harness.state().session.sweeps[0].doc.results.is_empty(),
        "nothing computed"
    );
}
