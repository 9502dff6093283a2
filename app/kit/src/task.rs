//! One computation of a panel, usually one per tab: a background job with progress, ETA and
//! cancel, the live state its updates build up, its result, and the inputs that result was
//! computed with (so the panel can say that the settings changed since).
//!
//! The same closure serves the window and the headless twin: [`Task::start`] takes a
//! [`Runner`], which either spawns a job (the window) or runs the closure on the calling thread
//! to the end (`benchtop run`, tests). Either way [`Task::poll`] then hands over the outcome, so
//! a panel has one code path for both.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

use benchtop_compute::{CancelToken, ComputeError, Progress};

use crate::jobs::{Job, JobBoard, JobContext, JobInfo, JobOutcome};

/// What a task's streamed updates build up while it runs (a training curve, the latest partial
/// result, a live lattice). It starts empty at every [`Task::start`].
pub trait Live: Default + Send + 'static {
    /// One streamed update.
    type Update: Send + 'static;

    /// Takes in one update.
    fn apply(&mut self, update: Self::Update);
}

/// A task that streams nothing.
impl Live for () {
    type Update = ();

    fn apply(&mut self, (): ()) {}
}

/// Keeps the latest update only (a partial result shown until the final one arrives).
#[derive(Clone, Debug)]
pub struct Latest<T>(pub Option<T>);

impl<T> Default for Latest<T> {
    fn default() -> Self {
        Self(None)
    }
}

impl<T: Send + 'static> Live for Latest<T> {
    type Update = T;

    fn apply(&mut self, update: T) {
        self.0 = Some(update);
    }
}

/// Keeps every update in order (epochs of a training curve).
#[derive(Clone, Debug)]
pub struct Series<T>(pub Vec<T>);

impl<T> Default for Series<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T: Send + 'static> Live for Series<T> {
    type Update = T;

    fn apply(&mut self, update: T) {
        self.0.push(update);
    }
}

/// Where a task's work runs.
#[derive(Clone, Copy)]
pub enum Runner<'a> {
    /// On a background job listed on `jobs`; `repaint` is woken by its updates.
    Background {
        /// The window's job list (status bar).
        jobs: &'a JobBoard,
        /// The window to wake.
        repaint: Option<&'a egui::Context>,
    },
    /// On the calling thread, to the end (headless runs and tests). A failure is also kept in
    /// `failure`, so the caller can stop.
    Inline {
        /// Progress of this piece of work.
        progress: &'a Progress,
        /// Checked by the work.
        cancel: &'a CancelToken,
        /// The first failure of a task run here.
        failure: &'a RefCell<Option<ComputeError>>,
    },
}

impl Runner<'_> {
    /// Whether work runs on the calling thread.
    pub fn is_inline(&self) -> bool {
        matches!(self, Self::Inline { .. })
    }
}

/// The object-safe face of a [`Task`], for what every task of a panel shares: polling,
/// whether it runs, cancelling.
pub trait TaskHandle {
    /// Takes in streamed updates and, once, the outcome; true when a result arrived now.
    fn poll(&mut self) -> bool;

    /// Whether the task's job is running.
    fn is_busy(&self) -> bool;

    /// Asks the running job to stop.
    fn cancel(&self);

    /// How many results the task's runs have delivered so far (a run that was stopped or
    /// failed delivers none): a new one is a new result.
    fn results_received(&self) -> u64;

    /// Whether the task holds a result (computed, or restored from the project).
    fn has_result(&self) -> bool;

    /// A digest of the inputs the result shown was made from (`None` without a result): saved
    /// with the project, so that a reopened result whose settings differ from the panel's is
    /// marked stale exactly as before saving.
    fn made_from(&self) -> Option<u64>;

    /// Says the result shown was made from inputs with digest `digest` (a restored result).
    fn set_made_from(&mut self, digest: u64);

    /// How long the run that delivered the result shown took, from its start to its result
    /// (`None` for a result restored from the project or set from elsewhere).
    fn compute_time(&self) -> Option<Duration>;
}

/// Results that took longer than this to compute are worth asking about before they are
/// thrown away: the window counts them as unsaved even when the panel computed them by itself
/// (e.g. a project's `compute_on_open`), so quitting or opening another project asks first.
pub const LONG_COMPUTE: Duration = Duration::from_secs(60);

/// A digest of `key` (FNV-1a over its `Debug` text): equal inputs give equal digests, in this
/// process and the next.
pub fn key_digest<K: std::fmt::Debug>(key: &K) -> u64 {
    format!("{key:?}")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        })
}

/// One computation: job, live state, result, error and the inputs (`K`, the "key") of the
/// running job or of the result shown.
pub struct Task<K, L: Live, R> {
    name: &'static str,
    job: Option<Job<L::Update, R>>,
    /// An outcome of inline work that [`Task::poll`] has not handed over yet.
    finished: Option<JobOutcome<R>>,
    key: Option<K>,
    /// [`key_digest`] of the inputs the result shown was made from.
    made_from: Option<u64>,
    live: L,
    result: Option<R>,
    error: Option<String>,
    /// Results delivered by runs so far.
    received: u64,
    /// Whether the last run was stopped before it finished.
    cancelled: bool,
    /// When the running job (or the last one) started.
    started: Option<Instant>,
    /// How long the run that delivered the result shown took.
    compute_time: Option<Duration>,
}

impl<K, L: Live, R> Task<K, L, R> {
    /// An idle task whose job threads are named `name` (e.g. `spectra: MSE vs AMSE optimum`).
    pub fn new(name: &'static str) -> Self {
        Self {
            name,
            job: None,
            finished: None,
            key: None,
            made_from: None,
            live: L::default(),
            result: None,
            error: None,
            received: 0,
            cancelled: false,
            started: None,
            compute_time: None,
        }
    }
}

impl<K: Clone + PartialEq + std::fmt::Debug, L: Live, R: Send + 'static> Task<K, L, R> {
    /// Starts `work` for inputs `key` on `runner`, replacing (and so cancelling) a running job.
    /// The live state starts empty; the last result stays until a new one arrives.
    pub fn start(
        &mut self,
        runner: &Runner<'_>,
        key: K,
        work: impl FnOnce(&JobContext<L::Update>) -> Result<R, ComputeError> + Send + 'static,
    ) {
        self.job = None;
        self.finished = None;
        self.key = Some(key);
        self.error = None;
        self.cancelled = false;
        self.live = L::default();
        self.started = Some(Instant::now());
        match *runner {
            Runner::Background { jobs, repaint } => {
                match Job::spawn(self.name, jobs, repaint.cloned(), work) {
                    Ok(job) => self.job = Some(job),
                    Err(error) => self.error = Some(error.to_string()),
                }
            }
            Runner::Inline {
                progress,
                cancel,
                failure,
            } => {
                let live = &mut self.live;
                let outcome =
                    match crate::jobs::run_inline(progress, cancel, |u| live.apply(u), work) {
                        Ok(result) => JobOutcome::Finished(result),
                        Err(error) => {
                            let outcome = match &error {
                                ComputeError::Cancelled => JobOutcome::Cancelled,
                                other => JobOutcome::Failed(other.to_string()),
                            };
                            failure.borrow_mut().get_or_insert(error);
                            outcome
                        }
                    };
                self.finished = Some(outcome);
            }
        }
    }

    /// Starts `work` on the inputs `key` and the project folder (against which relative data
    /// paths resolve): `work` gets both, so a tab that makes or reads its data from its
    /// parameters needs no copies of its own.
    pub fn start_from(
        &mut self,
        runner: &Runner<'_>,
        key: K,
        project_dir: Option<&std::path::Path>,
        work: impl FnOnce(
            &K,
            Option<&std::path::Path>,
            &JobContext<L::Update>,
        ) -> Result<R, ComputeError>
        + Send
        + 'static,
    ) where
        K: Send + 'static,
    {
        let inputs = key.clone();
        let dir = project_dir.map(std::path::Path::to_path_buf);
        self.start(runner, key, move |job| work(&inputs, dir.as_deref(), job));
    }

    /// Records that the task cannot start for inputs `key` (e.g. it needs data that is not
    /// loaded); a headless runner stops with `message`.
    pub fn refuse(&mut self, runner: &Runner<'_>, key: K, message: impl Into<String>) {
        let message = message.into();
        self.job = None;
        self.finished = None;
        self.key = Some(key);
        if let Runner::Inline { failure, .. } = runner {
            failure
                .borrow_mut()
                .get_or_insert_with(|| ComputeError::invalid(self.name, message.clone()));
        }
        self.error = Some(message);
    }

    /// Takes in streamed updates and, once, the outcome; true when a result arrived now.
    pub fn poll_result(&mut self) -> bool {
        if let Some(job) = &mut self.job {
            for update in job.drain_updates() {
                self.live.apply(update);
            }
            if let Some(outcome) = job.try_finish() {
                for update in job.drain_updates() {
                    self.live.apply(update);
                }
                self.job = None;
                self.finished = Some(outcome);
            }
        }
        match self.finished.take() {
            Some(JobOutcome::Finished(result)) => {
                self.result = Some(result);
                self.made_from = self.key.as_ref().map(key_digest);
                self.compute_time = self.started.map(|started| started.elapsed());
                self.received += 1;
                true
            }
            Some(JobOutcome::Failed(message)) => {
                self.error = Some(message);
                false
            }
            Some(JobOutcome::Cancelled) => {
                self.cancelled = true;
                false
            }
            None => false,
        }
    }

    /// Whether the last run was stopped before it finished (until the next start).
    pub fn was_cancelled(&self) -> bool {
        self.cancelled
    }

    /// Whether a job is running.
    pub fn is_running(&self) -> bool {
        self.job.is_some()
    }

    /// The running job's progress and cancel flag.
    pub fn info(&self) -> Option<&JobInfo> {
        self.job.as_ref().map(Job::info)
    }

    /// Asks the running job to stop.
    pub fn stop(&self) {
        if let Some(job) = &self.job {
            job.cancel();
        }
    }

    /// The inputs of the running job or of the result shown.
    pub fn key(&self) -> Option<&K> {
        self.key.as_ref()
    }

    /// Whether the running job or the result shown was made from `key` (nothing started yet
    /// counts as not current).
    pub fn is_current(&self, key: &K) -> bool {
        self.key.as_ref() == Some(key)
    }

    /// Whether a result is shown that was made from other inputs than `key`, with nothing
    /// running: the "settings changed" case (also after a stopped run, and after reopening a
    /// project saved with a stale result).
    pub fn is_stale(&self, key: &K) -> bool {
        self.result.is_some() && self.job.is_none() && self.made_from != Some(key_digest(key))
    }

    /// The last result.
    pub fn result(&self) -> Option<&R> {
        self.result.as_ref()
    }

    /// The last result, to change in place (e.g. a view computed from it).
    pub fn result_mut(&mut self) -> Option<&mut R> {
        self.result.as_mut()
    }

    /// Shows `result`, made from `key` (a restored result, or one computed elsewhere).
    pub fn set_result(&mut self, key: K, result: R) {
        self.made_from = Some(key_digest(&key));
        self.key = Some(key);
        self.result = Some(result);
        self.compute_time = None;
    }

    /// Forgets the result (and the inputs it was made from).
    pub fn clear(&mut self) {
        self.result = None;
        self.key = None;
        self.made_from = None;
        self.compute_time = None;
    }

    /// What the running job has streamed so far (or the last job streamed).
    pub fn live(&self) -> &L {
        &self.live
    }

    /// The live state, to change in place (e.g. restored curves).
    pub fn live_mut(&mut self) -> &mut L {
        &mut self.live
    }

    /// The last failure, for the user.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Shows `message` as the task's failure.
    pub fn set_error(&mut self, message: impl Into<String>) {
        self.error = Some(message.into());
    }

    /// The task's controls: while running, a progress bar (message and time left) and a
    /// `stop` button; otherwise a `run` button. Below them the last failure, and a note when
    /// the result shown was made with other settings than `current`. True when `run` was
    /// clicked.
    pub fn controls(&self, ui: &mut egui::Ui, current: &K, run: &str, stop: &str) -> bool {
        let mut clicked = false;
        if let Some(info) = self.info() {
            if crate::widgets::job_progress(ui, info, stop) {
                self.stop();
            }
        } else {
            clicked = ui.button(run).clicked();
        }
        self.status(ui, current);
        clicked
    }

    /// Where the result will appear while there is none: what is happening while a job runs
    /// (its progress bar is with the controls), else `idle` (what to press to get one).
    pub fn placeholder(&self, ui: &mut egui::Ui, idle: &str) {
        if self.is_running() {
            ui.label("Computing… the results appear here when the run finishes.");
        } else {
            ui.label(idle);
        }
    }

    /// The last failure, "Cancelled" after a stopped run, and the "settings changed" note,
    /// without buttons.
    pub fn status(&self, ui: &mut egui::Ui, current: &K) {
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        if self.cancelled {
            ui.colored_label(ui.visuals().warn_fg_color, crate::widgets::CANCELLED_NOTE);
        }
        if self.is_stale(current) {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                "Settings changed since this result: run again to update it.",
            );
        }
    }
}

/// What makes or reads a tab's data from its parameters `K`, with paths relative to the
/// project folder.
pub type Load<K, D> =
    fn(&K, Option<&std::path::Path>, &Progress, &CancelToken) -> Result<D, ComputeError>;

impl<K: Clone + PartialEq + std::fmt::Debug + Send + 'static, D: Send + Sync + 'static>
    Task<K, (), Arc<D>>
{
    /// Starts `load` for the parameters `key` (data a tab makes or reads, shared as `Arc`).
    pub fn start_loading(
        &mut self,
        runner: &Runner<'_>,
        key: K,
        project_dir: Option<&std::path::Path>,
        load: Load<K, D>,
    ) {
        self.start_from(runner, key, project_dir, move |key, dir, job| {
            load(key, dir, &job.progress, &job.cancel).map(Arc::new)
        });
    }
}

impl<K: Clone + PartialEq + std::fmt::Debug, L: Live, R: Send + 'static> TaskHandle
    for Task<K, L, R>
{
    fn poll(&mut self) -> bool {
        self.poll_result()
    }

    fn is_busy(&self) -> bool {
        self.is_running()
    }

    fn cancel(&self) {
        self.stop();
    }

    fn results_received(&self) -> u64 {
        self.received
    }

    fn has_result(&self) -> bool {
        self.result.is_some()
    }

    fn made_from(&self) -> Option<u64> {
        self.result.as_ref().and(self.made_from)
    }

    fn set_made_from(&mut self, digest: u64) {
        if self.result.is_some() {
            self.made_from = Some(digest);
        }
    }

    fn compute_time(&self) -> Option<Duration> {
        self.result.as_ref().and(self.compute_time)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn count_to(n: u32) -> impl FnOnce(&JobContext<u32>) -> Result<u32, ComputeError> {
        move |job| {
            for i in 1..=n {
                job.cancel.check()?;
                job.send(i);
            }
            Ok(n * 10)
        }
    }

    #[test]
    fn background_and_inline_runs_end_alike() {
        let board = JobBoard::new();
        let mut background: Task<u32, Series<u32>, u32> = Task::new("test: background");
        background.start(
            &Runner::Background {
                jobs: &board,
                repaint: None,
            },
            3,
            count_to(3),
        );
        while !background.poll_result() {
            assert!(background.error().is_none());
            std::thread::sleep(Duration::from_millis(1));
        }
        let (progress, cancel, failure) = (Progress::new(), CancelToken::new(), RefCell::default());
        let inline_runner = Runner::Inline {
            progress: &progress,
            cancel: &cancel,
            failure: &failure,
        };
        let mut inline: Task<u32, Series<u32>, u32> = Task::new("test: inline");
        inline.start(&inline_runner, 3, count_to(3));
        assert!(
            inline.poll_result(),
            "inline work is done when start returns"
        );
        for task in [&background, &inline] {
            assert_eq!(task.result(), Some(&30));
            assert_eq!(task.live().0, [1, 2, 3]);
            assert!(task.is_current(&3) && !task.is_stale(&3) && task.is_stale(&4));
            assert!(TaskHandle::compute_time(task).is_some(), "a run is timed");
        }
        inline.set_result(4, 40);
        assert_eq!(
            TaskHandle::compute_time(&inline),
            None,
            "a result set from elsewhere took no time here"
        );
        assert!(failure.borrow().is_none() && board.running().is_empty());
    }

    #[test]
    fn failures_reach_the_task_and_the_inline_runner() {
        let (progress, cancel, failure) = (Progress::new(), CancelToken::new(), RefCell::default());
        let runner = Runner::Inline {
            progress: &progress,
            cancel: &cancel,
            failure: &failure,
        };
        let mut task: Task<(), (), ()> = Task::new("test: failing");
        task.start(&runner, (), |_| {
            Err(ComputeError::invalid("beta", "negative"))
        });
        assert!(!task.poll_result());
        assert!(task.error().is_some_and(|e| e.contains("beta")));
        assert!(failure.borrow().is_some());
        let other = RefCell::default();
        let runner = Runner::Inline {
            progress: &progress,
            cancel: &cancel,
            failure: &other,
        };
        task.refuse(&runner, (), "load trials first");
        assert_eq!(task.error(), Some("load trials first"));
        assert!(
            other
                .borrow()
                .as_ref()
                .is_some_and(|e| e.to_string().contains("load trials first"))
        );
    }

    #[test]
    fn a_stopped_run_says_cancelled_and_delivers_no_result() {
        let board = JobBoard::new();
        let runner = Runner::Background {
            jobs: &board,
            repaint: None,
        };
        let mut task: Task<u32, (), u32> = Task::new("test: stopped");
        task.start(&runner, 1, |job| {
            loop {
                job.cancel.check()?;
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        task.stop();
        while task.is_running() {
            assert!(!task.poll_result());
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(task.was_cancelled() && task.error().is_none());
        assert_eq!(task.results_received(), 0);
        task.start(&runner, 2, |_| Ok(20));
        assert!(!task.was_cancelled(), "a new run clears the note");
        while !task.poll_result() {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!((task.results_received(), task.result()), (1, Some(&20)));
    }

    #[test]
    fn a_new_start_cancels_the_running_job_and_keeps_the_last_result() {
        let board = JobBoard::new();
        let runner = Runner::Background {
            jobs: &board,
            repaint: None,
        };
        let mut task: Task<u32, Latest<u32>, u32> = Task::new("test: restart");
        task.set_result(1, 10);
        task.start(&runner, 2, |job| {
            loop {
                job.cancel.check()?;
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        assert!(task.is_running() && task.result() == Some(&10));
        task.start(&runner, 3, |job| {
            job.send(7);
            Ok(30)
        });
        while !task.poll_result() {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!((task.result(), task.live().0), (Some(&30), Some(7)));
        std::thread::sleep(Duration::from_millis(20));
        assert!(board.running().is_empty(), "the replaced job ended");
    }
}
