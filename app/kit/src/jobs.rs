//! Background jobs: work on named threads, never on the UI thread.
//!
//! A [`Job`] runs a closure on its own named thread with a [`Progress`], a [`CancelToken`] and
//! a channel for streamed updates (live plots). The UI polls it every frame and never blocks.
//! Every job is listed in the shared [`JobBoard`] so the status bar can show and cancel it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use benchtop_compute::{CancelToken, ComputeError, Progress};

use crate::eta::EtaTracker;
use parking_lot::Mutex;

/// What a running job looks like from outside: enough for a progress bar and a cancel button.
#[derive(Clone, Debug)]
pub struct JobInfo {
    /// Unique within the process.
    pub id: u64,
    /// The thread name, e.g. `ising: live simulation`.
    pub name: String,
    /// Shared progress.
    pub progress: Progress,
    /// Shared cancel flag.
    pub cancel: CancelToken,
    /// When the job started.
    pub started: Instant,
    /// The progress seen so far, for the time left (shared by clones).
    eta: Arc<Mutex<EtaTracker>>,
}

impl JobInfo {
    /// Estimated time left from how fast the progress moved lately (`None` until enough is
    /// done to say).
    pub fn eta(&self) -> Option<Duration> {
        let elapsed = self.started.elapsed().as_secs_f64();
        self.eta.lock().observe(elapsed, self.progress.fraction())
    }

    /// The time left as a person says it (`about 3 min left`), if it can be estimated.
    pub fn time_left(&self) -> Option<String> {
        self.eta().map(crate::eta::time_left_text)
    }
}

/// Every running job of the app, for the status bar.
#[derive(Clone, Debug, Default)]
pub struct JobBoard {
    jobs: Arc<Mutex<Vec<JobInfo>>>,
}

impl JobBoard {
    /// An empty board.
    pub fn new() -> Self {
        Self::default()
    }

    fn add(&self, info: JobInfo) {
        self.jobs.lock().push(info);
    }

    fn remove(&self, id: u64) {
        self.jobs.lock().retain(|job| job.id != id);
    }

    /// The jobs running now.
    pub fn running(&self) -> Vec<JobInfo> {
        self.jobs.lock().clone()
    }

    /// Cancels every running job (used when a project is closed).
    pub fn cancel_all(&self) {
        for job in self.jobs.lock().iter() {
            job.cancel.cancel();
        }
    }
}

static NEXT_JOB_ID: AtomicU64 = AtomicU64::new(1);

/// Handed to the job's closure: progress, cancellation and the update channel.
#[derive(Debug)]
pub struct JobContext<U> {
    /// Report progress here.
    pub progress: Progress,
    /// Check this at loop granularity.
    pub cancel: CancelToken,
    updates: Sender<U>,
    repaint: Option<egui::Context>,
}

impl<U> JobContext<U> {
    /// Streams an update to the UI (dropped silently if the UI has gone away) and wakes it.
    pub fn send(&self, update: U) {
        // A closed channel means the job was abandoned; the update has no reader.
        let _ = self.updates.send(update);
        self.request_repaint();
    }

    /// Wakes the UI so it polls promptly.
    pub fn request_repaint(&self) {
        if let Some(context) = &self.repaint {
            context.request_repaint();
        }
    }
}

/// How a job ended.
#[derive(Debug)]
pub enum JobOutcome<R> {
    /// It returned a result.
    Finished(R),
    /// It was cancelled.
    Cancelled,
    /// It failed; the message is meant for the user.
    Failed(String),
}

/// A background computation producing streamed updates `U` and a result `R`.
#[derive(Debug)]
pub struct Job<U, R> {
    info: JobInfo,
    updates: Receiver<U>,
    handle: Option<JoinHandle<Result<R, ComputeError>>>,
    board: JobBoard,
}

impl<U: Send + 'static, R: Send + 'static> Job<U, R> {
    /// Starts `work` on a thread named `name`, listed on `board`; `repaint` is woken on updates.
    pub fn spawn(
        name: impl Into<String>,
        board: &JobBoard,
        repaint: Option<egui::Context>,
        work: impl FnOnce(&JobContext<U>) -> Result<R, ComputeError> + Send + 'static,
    ) -> Result<Self, ComputeError> {
        let name = name.into();
        let (sender, updates) = channel();
        let info = JobInfo {
            id: NEXT_JOB_ID.fetch_add(1, Ordering::Relaxed),
            name: name.clone(),
            progress: Progress::new(),
            cancel: CancelToken::new(),
            started: Instant::now(),
            eta: Arc::default(),
        };
        let context = JobContext {
            progress: info.progress.clone(),
            cancel: info.cancel.clone(),
            updates: sender,
            repaint,
        };
        let handle = std::thread::Builder::new()
            .name(name.clone())
            .spawn(move || {
                let result = work(&context);
                context.request_repaint();
                result
            })
            .map_err(|error| {
                ComputeError::Gpu(format!("could not start thread {name}: {error}"))
            })?;
        board.add(info.clone());
        Ok(Self {
            info,
            updates,
            handle: Some(handle),
            board: board.clone(),
        })
    }

    /// The job's progress, cancel flag and start time.
    pub fn info(&self) -> &JobInfo {
        &self.info
    }

    /// Asks the job to stop; it ends at its next cancellation check.
    pub fn cancel(&self) {
        self.info.cancel.cancel();
    }

    /// Updates streamed since the last call.
    pub fn drain_updates(&self) -> Vec<U> {
        let mut updates = Vec::new();
        while let Ok(update) = self.updates.try_recv() {
            updates.push(update);
        }
        updates
    }

    /// Whether the thread has finished.
    pub fn is_finished(&self) -> bool {
        self.handle.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// The outcome once the thread has finished (never blocks); `None` while it runs.
    pub fn try_finish(&mut self) -> Option<JobOutcome<R>> {
        if !self.is_finished() {
            return None;
        }
        let handle = self.handle.take()?;
        self.board.remove(self.info.id);
        Some(match handle.join() {
            Ok(Ok(result)) => JobOutcome::Finished(result),
            Ok(Err(ComputeError::Cancelled)) => JobOutcome::Cancelled,
            Ok(Err(error)) => JobOutcome::Failed(error.to_string()),
            Err(_) => JobOutcome::Failed(format!(
                "{} crashed (a bug: please report it)",
                self.info.name
            )),
        })
    }

    /// Blocks until the job ends (headless runs and tests only; never on the UI thread).
    pub fn wait(mut self) -> JobOutcome<R> {
        let Some(handle) = self.handle.take() else {
            return JobOutcome::Failed("job already collected".to_owned());
        };
        let outcome = match handle.join() {
            Ok(Ok(result)) => JobOutcome::Finished(result),
            Ok(Err(ComputeError::Cancelled)) => JobOutcome::Cancelled,
            Ok(Err(error)) => JobOutcome::Failed(error.to_string()),
            Err(_) => JobOutcome::Failed(format!("{} crashed", self.info.name)),
        };
        self.board.remove(self.info.id);
        outcome
    }
}

impl<U, R> Drop for Job<U, R> {
    fn drop(&mut self) {
        // An abandoned job is cancelled; its thread ends at the next check and is not joined.
        self.info.cancel.cancel();
        if self.handle.is_some() {
            self.board.remove(self.info.id);
        }
    }
}

/// Runs `work` on this thread to the end (headless runs, tests), handing its streamed updates
/// to `on_update` as they come.
pub fn run_inline<U, R>(
    progress: &Progress,
    cancel: &CancelToken,
    mut on_update: impl FnMut(U),
    work: impl FnOnce(&JobContext<U>) -> Result<R, ComputeError>,
) -> Result<R, ComputeError> {
    let (sender, updates) = channel();
    let context = JobContext {
        progress: progress.clone(),
        cancel: cancel.clone(),
        updates: sender,
        repaint: None,
    };
    let result = work(&context);
    while let Ok(update) = updates.try_recv() {
        on_update(update);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_work_hands_over_its_updates() {
        let mut got = Vec::new();
        let result = run_inline(
            &Progress::new(),
            &CancelToken::new(),
            |u| got.push(u),
            |context: &JobContext<u32>| {
                context.send(3);
                Ok(5)
            },
        );
        assert_eq!((result.unwrap(), got), (5, vec![3]));
    }

    #[test]
    fn streams_updates_and_finishes() {
        let board = JobBoard::new();
        let job = Job::spawn("test: count", &board, None, |context: &JobContext<u32>| {
            for i in 0..5 {
                context.send(i);
                context.progress.set_count(u64::from(i) + 1, 5);
            }
            Ok(42)
        })
        .unwrap();
        assert_eq!(board.running().len(), 1);
        assert!(matches!(job.wait(), JobOutcome::Finished(42)));
        assert!(board.running().is_empty());
    }

    #[test]
    fn cancel_takes_effect_quickly() {
        let board = JobBoard::new();
        let mut job = Job::spawn("test: spin", &board, None, |context: &JobContext<()>| {
            loop {
                context.cancel.check()?;
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .unwrap();
        let asked = Instant::now();
        job.cancel();
        let outcome = loop {
            if let Some(outcome) = job.try_finish() {
                break outcome;
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        assert!(matches!(outcome, JobOutcome::Cancelled::<()>));
        assert!(asked.elapsed() < Duration::from_millis(100));
        assert!(board.running().is_empty());
    }

    #[test]
    fn failures_carry_the_message() {
        let board = JobBoard::new();
        let job = Job::spawn(
            "test: fail",
            &board,
            None,
            |_: &JobContext<()>| -> Result<(), _> {
                Err(ComputeError::invalid("beta", "negative"))
            },
        )
        .unwrap();
        match job.wait() {
            JobOutcome::Failed(message) => assert!(message.contains("beta")),
            other => panic!("unexpected {other:?}"),
        }
    }
}
