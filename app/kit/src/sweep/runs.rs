//! A sweep of the open project with its running job: start in the background, collect the
//! points as they arrive.

use std::sync::Arc;

use super::{SweepDoc, SweepPoint, SweepSupport, run_sweep};
use crate::jobs::{Job, JobBoard, JobOutcome};

/// A sweep of the session with its running job, if any.
pub struct SweepRun {
    /// The sweep and its results so far.
    pub doc: SweepDoc,
    /// The job computing missing points.
    pub job: Option<Job<SweepPoint, ()>>,
    /// The last error (invalid sweep, failed start).
    pub error: Option<String>,
}

impl SweepRun {
    /// A sweep with no job.
    pub fn new(doc: SweepDoc) -> Self {
        Self {
            doc,
            job: None,
            error: None,
        }
    }

    /// Whether its job is running.
    pub fn is_busy(&self) -> bool {
        self.job.is_some()
    }

    /// Collects the points computed since the last call and the job's end.
    pub fn poll(&mut self) {
        let Some(job) = &mut self.job else { return };
        self.doc.results.extend(job.drain_updates());
        if let Some(outcome) = job.try_finish() {
            self.doc.results.extend(job.drain_updates());
            match outcome {
                JobOutcome::Finished(()) | JobOutcome::Cancelled => {}
                JobOutcome::Failed(message) => self.error = Some(message),
            }
            self.job = None;
        }
    }
}

/// Starts computing the missing points of `run` in the background with `support`'s evaluator.
/// Results computed with other panel parameters (a different fingerprint) are dropped first.
pub fn start_sweep_run(
    run: &mut SweepRun,
    support: &SweepSupport,
    board: &JobBoard,
    repaint: Option<egui::Context>,
) {
    if let Err(message) = run.doc.validate(support) {
        run.error = Some(message);
        return;
    }
    if !run.doc.is_current(support) {
        run.doc.results.clear();
        run.doc.fingerprint = support.fingerprint.clone();
    }
    let doc = run.doc.clone();
    let evaluator = Arc::clone(&support.evaluator);
    let name = format!("sweep: {}", doc.name);
    match Job::spawn(name, board, repaint, move |context| {
        run_sweep(
            &doc,
            evaluator.as_ref(),
            &context.progress,
            &context.cancel,
            |point| {
                context.send(point);
            },
        )
    }) {
        Ok(job) => {
            run.job = Some(job);
            run.error = None;
        }
        Err(error) => run.error = Some(error.to_string()),
    }
}
