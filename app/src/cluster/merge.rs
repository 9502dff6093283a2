//! Bringing cluster results into a sweep, and what is still outstanding.
//!
//! Points are merged in grid order, exactly as computed by the task (the same evaluation a
//! local run makes, [`benchtop_kit::sweep::evaluate_point`]), so a sweep filled from the
//! cluster equals one run locally. Merging again adds nothing: a point already done is not
//! missing, and a failed point already recorded with the same error is not added twice.

use benchtop_kit::sweep::{SweepDoc, SweepPoint, missing_points};
use serde::Serialize;

use super::survey::{Survey, SweepJob, TaskState};

/// What a merge did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Merged {
    /// Points added to the sweep.
    pub merged: usize,
    /// Of those, points whose evaluation failed (recorded with their error, as a local run does).
    pub merged_failed: usize,
    /// Job folders computed with other panel parameters (another fingerprint), not merged.
    pub stale_jobs: Vec<String>,
}

/// A point of the grid without a result in the sweep, and where it stands.
#[derive(Clone, Debug, Serialize)]
pub struct Outstanding {
    /// The grid values.
    pub coords: Vec<f64>,
    /// The repeat.
    pub repeat: u32,
    /// The job folder it was last submitted in, if any.
    pub job: Option<String>,
    /// The task computing it there.
    pub task: Option<usize>,
    /// `queued`, `running`, `computed` (a result awaits `collect`), `failed`, `not_submitted`, …
    pub state: String,
    /// The evaluation's error, for a point that failed.
    pub error: Option<String>,
    /// The end of the task's stderr, for a failed task.
    pub stderr_tail: Option<String>,
}

fn current<'a>(
    survey: &'a Survey,
    fingerprint: &'a str,
) -> impl DoubleEndedIterator<Item = &'a SweepJob> {
    survey
        .jobs
        .iter()
        .filter(move |job| job.work.fingerprint == fingerprint)
}

/// The results of the current jobs for (`coords`, `repeat`): a successful one first.
pub fn result_for<'a>(
    survey: &'a Survey,
    fingerprint: &'a str,
    coords: &[f64],
    repeat: u32,
) -> Option<&'a SweepPoint> {
    let mut found = None;
    for job in current(survey, fingerprint) {
        for record in job.records.values() {
            let point = &record.result;
            if point.repeat == repeat && point.coords == coords {
                if point.error.is_none() {
                    return Some(point);
                }
                found.get_or_insert(point);
            }
        }
    }
    found
}

/// Merges the finished points of `survey`'s jobs made with `fingerprint` (the panel's current
/// one) into `doc`. Results in `doc` made with another fingerprint are dropped first, as a local
/// run drops them, but only when there is something to merge.
pub fn merge(doc: &mut SweepDoc, fingerprint: &str, survey: &Survey) -> anyhow::Result<Merged> {
    let mut report = Merged {
        stale_jobs: survey
            .jobs
            .iter()
            .filter(|job| job.work.fingerprint != fingerprint)
            .map(|job| job.folder.name())
            .collect(),
        ..Merged::default()
    };
    let any = current(survey, fingerprint).any(|job| !job.records.is_empty());
    if !any {
        return Ok(report);
    }
    if doc.fingerprint != fingerprint {
        doc.results.clear();
        doc.fingerprint = fingerprint.to_owned();
    }
    let missing = missing_points(doc).map_err(anyhow::Error::msg)?;
    for (coords, repeat) in missing {
        let Some(point) = result_for(survey, fingerprint, &coords, repeat) else {
            continue;
        };
        if point.error.is_some() && doc.results.contains(point) {
            continue;
        }
        report.merged += 1;
        if point.error.is_some() {
            report.merged_failed += 1;
        }
        doc.results.push(point.clone());
    }
    Ok(report)
}

/// The grid points of `doc` without a result, each with the state of the task that has it
/// (the newest job holding it).
pub fn outstanding(doc: &SweepDoc, fingerprint: &str, survey: &Survey) -> Vec<Outstanding> {
    let missing = missing_points(doc).unwrap_or_default();
    missing
        .into_iter()
        .map(|(coords, repeat)| {
            let holder = current(survey, fingerprint).rev().find_map(|job| {
                job.points
                    .iter()
                    .find(|p| p.repeat == repeat && p.coords == coords)
                    .map(|p| (job, p))
            });
            let Some((job, point)) = holder else {
                return Outstanding {
                    coords,
                    repeat,
                    job: None,
                    task: None,
                    state: "not_submitted".to_owned(),
                    error: None,
                    stderr_tail: None,
                };
            };
            let task = &job.tasks[point.task];
            let record = job.records.get(&point.point);
            let error = record.and_then(|r| r.result.error.clone());
            let state = if error.is_some() {
                "failed"
            } else {
                match task.state {
                    TaskState::Queued => "queued",
                    TaskState::Running => "running",
                    TaskState::Done => "computed",
                    TaskState::Failed => "failed",
                    TaskState::NotSubmitted => "not_submitted",
                    TaskState::Unknown => "unknown",
                }
            };
            Outstanding {
                coords,
                repeat,
                job: Some(job.folder.name()),
                task: Some(point.task),
                state: state.to_owned(),
                error,
                stderr_tail: task.stderr_tail.clone(),
            }
        })
        .collect()
}
