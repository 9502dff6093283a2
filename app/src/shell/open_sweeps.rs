//! The sweeps a project with `compute_on_open` computes when it opens, like its panels' own
//! results: each sweep still missing points, one after another, each started once nothing else
//! computes (so after the panels' queued tasks). Their results are the project's own, no change
//! of the user's, but how long they took counts towards the results the window asks about
//! before throwing them away (see [`LONG_COMPUTE`](benchtop_kit::task::LONG_COMPUTE)).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use benchtop_kit::jobs::JobBoard;
use benchtop_kit::project::PaneId;
use benchtop_kit::sweep::missing_points;

use super::changes::SavedShape;
use crate::session::Session;

/// A sweep of the open project, by its panel and name.
type SweepName = (PaneId, String);

/// The open project's sweeps computed on open.
#[derive(Debug, Default)]
pub(super) struct OpenSweeps {
    /// Whether the project's sweeps are still to be queued (on the first frame that computes
    /// on open, as the panels' tasks are).
    pending: bool,
    /// The sweeps still to look at, in project order.
    queue: VecDeque<SweepName>,
    /// The sweep computing now and when it started.
    running: Option<(SweepName, Instant)>,
    /// How long the sweeps finished since the last save took.
    spent: Duration,
}

impl OpenSweeps {
    /// Nothing computed yet for `session`; its sweeps are queued if it asks to compute on open.
    pub(super) fn new(session: &Session) -> Self {
        Self {
            pending: session.compute_on_open,
            ..Self::default()
        }
    }

    /// Queues the project's sweeps (once, when the window computes on open) and takes in what
    /// the running one computed since the last frame: its points are the project's own, so
    /// `saved` takes them as saved.
    pub(super) fn follow(
        &mut self,
        session: &Session,
        compute_on_open: bool,
        saved: &mut SavedShape,
    ) {
        if compute_on_open && std::mem::take(&mut self.pending) {
            self.queue = session
                .sweeps
                .iter()
                .map(|run| (run.doc.pane, run.doc.name.clone()))
                .collect();
        }
        let Some((name, started)) = &self.running else {
            return;
        };
        let run = find(session, name).map(|index| &session.sweeps[index]);
        if run.is_some() {
            saved.absorb_sweep_results(session, name.0, &name.1);
        }
        if !run.is_some_and(|run| run.is_busy()) {
            self.spent += started.elapsed();
            self.running = None;
        }
    }

    /// Starts the next queued sweep that misses points, once nothing computes.
    pub(super) fn start_next(
        &mut self,
        session: &mut Session,
        jobs: &JobBoard,
        repaint: &egui::Context,
    ) {
        if self.running.is_some() || session.is_busy() {
            return;
        }
        while let Some(name) = self.queue.pop_front() {
            let Some(index) = find(session, &name).filter(|i| needs_computing(session, *i)) else {
                continue;
            };
            session.start_sweep(index, jobs, Some(repaint.clone()));
            if session.sweeps[index].is_busy() {
                self.running = Some((name, Instant::now()));
                return;
            }
        }
    }

    /// How long the sweeps computed on open since the last save took (the running one so far).
    pub(super) fn unsaved_compute_time(&self) -> Duration {
        self.spent
            + self
                .running
                .as_ref()
                .map_or(Duration::ZERO, |(_, started)| started.elapsed())
    }

    /// Their results are saved now: only what they compute from here on is unsaved.
    pub(super) fn mark_saved(&mut self) {
        self.spent = Duration::ZERO;
        if let Some((_, started)) = &mut self.running {
            *started = Instant::now();
        }
    }

    /// Whether sweeps are waiting to be started.
    pub(super) fn is_waiting(&self) -> bool {
        !self.queue.is_empty()
    }
}

/// The index of sweep `name` in `session`.
fn find(session: &Session, (pane, name): &SweepName) -> Option<usize> {
    session
        .sweeps
        .iter()
        .position(|run| run.doc.pane == *pane && run.doc.name == *name)
}

/// Whether sweep `index` misses points: it has none, or some of its grid (results made with
/// other panel parameters are the user's to recompute, not the opening's to throw away).
fn needs_computing(session: &Session, index: usize) -> bool {
    let run = &session.sweeps[index];
    if run.is_busy() {
        return false;
    }
    let Some(panel) = session.panels.get(&run.doc.pane) else {
        return false;
    };
    run.doc.results.is_empty()
        || (run.doc.is_current(&panel.sweep_support())
            && missing_points(&run.doc).is_ok_and(|missing| !missing.is_empty()))
}
