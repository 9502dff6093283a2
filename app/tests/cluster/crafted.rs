//! Crafted job folders: a job folder is data, not instructions (issue 35). Each tampering
//! below is refused with a message naming the place, and none reads or writes outside the job
//! and project folders or reaches a Slurm command.

use std::path::{Path, PathBuf};

use benchtop::cluster::folder::JobFolder;

use super::{SWEEP, json, write_project};
use crate::common::benchtop;

/// A project with a dry-run sweep job folder: (project, job folder).
fn job(dir: &Path) -> (PathBuf, PathBuf) {
    let project = write_project(dir, "crafted.ron", 50);
    let submitted = json(
        &[
            "sweep",
            "submit",
            &project.display().to_string(),
            "--sweep",
            SWEEP,
            "--dry-run",
        ],
        None,
    );
    let folder = PathBuf::from(submitted["folder"].as_str().expect("folder"));
    (project, folder)
}

/// Rewrites `job.json` of `folder` with `edit` applied to its JSON.
fn tamper(folder: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let file = folder.join("job.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("manifest")).expect("JSON");
    edit(&mut manifest);
    std::fs::write(&file, manifest.to_string()).expect("written");
}

/// `benchtop ARGS` must fail; its stderr.
fn fails(args: &[&str]) -> String {
    let output = benchtop().args(args).output().expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !output.status.success(),
        "benchtop {args:?} succeeded: {stderr}"
    );
    stderr
}

#[test]
fn cluster_crafted_job_ids_and_counts_are_refused_before_slurm_or_allocation() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let (project, folder) = job(dir.path());
    let project_arg = project.display().to_string();
    tamper(&folder, |m| m["slurm_job_id"] = "--user=root".into());
    let stderr = fails(&["sweep", "cancel", &project_arg, "--sweep", SWEEP]);
    assert!(
        stderr.contains("slurm_job_id") && stderr.contains("not a Slurm job id"),
        "{stderr}"
    );
    tamper(&folder, |m| {
        m["slurm_job_id"] = serde_json::Value::Null;
        m["work"]["Sweep"]["tasks"] = 1_000_000_000_000_000_000_u64.into();
    });
    let stderr = fails(&["sweep", "status", &project_arg, "--sweep", SWEEP]);
    assert!(stderr.contains("tasks"), "{stderr}");
}

#[test]
fn cluster_crafted_paths_and_links_do_not_lead_outside_the_folders() {
    let dir = tempfile::tempdir().expect("temporary folder");
    let (project, folder) = job(dir.path());
    // The project and its folder are where the job folder lies, whatever job.json says.
    tamper(&folder, |m| {
        m["project_dir"] = "/etc".into();
        m["project"] = "/etc/passwd".into();
    });
    let opened = JobFolder::open(&folder).expect("opens");
    let here = dir.path().canonicalize().expect("path");
    assert_eq!(opened.manifest.project_dir, here);
    assert_eq!(opened.manifest.project, here.join("crafted.ron"));
    // A results folder that is a link to another folder: no task writes through it.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("folder");
    std::fs::remove_dir(folder.join("results")).expect("removed");
    std::os::unix::fs::symlink(&elsewhere, folder.join("results")).expect("link");
    let folder_arg = folder.display().to_string();
    let stderr = fails(&["sweep", "run-task", &folder_arg, "--task", "0"]);
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert_eq!(std::fs::read_dir(&elsewhere).expect("listed").count(), 0);
    // A points table far larger than any job holds is refused by its size, unread.
    std::fs::remove_file(folder.join("results")).expect("link removed");
    std::fs::create_dir(folder.join("results")).expect("folder");
    let points = std::fs::OpenOptions::new()
        .write(true)
        .open(folder.join("points.csv"))
        .expect("points");
    points.set_len(100 * 1024 * 1024).expect("sparse file");
    let stderr = fails(&[
        "sweep",
        "status",
        &project.display().to_string(),
        "--sweep",
        SWEEP,
    ]);
    assert!(
        stderr.contains("points.csv") && stderr.contains("bytes"),
        "{stderr}"
    );
}
