//! The autosaved copy of unsaved work, and what an earlier session left behind.
//!
//! While the project has unsaved changes, its text is written to one recovery file every
//! minute. The file is removed once the work is safe or given up: on save, on Discard, and on
//! quitting without unsaved changes. A recovery file found at start-up belongs to a session
//! that ended without any of these (a crash, a killed process): it is moved aside under a name
//! of its own, so that this session's autosaves never overwrite it, and the user is offered to
//! open or delete it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::session::Session;

/// The file in eframe's storage folder that holds the autosaved copy of unsaved work.
pub const RECOVERY_FILE: &str = "recovery.ron";

/// How often unsaved work is autosaved.
pub const AUTOSAVE_EVERY: Duration = Duration::from_secs(60);

/// Where unsaved work is autosaved, and when it was last.
#[derive(Debug)]
pub struct Recovery {
    path: Option<PathBuf>,
    every: Duration,
    last: Option<Instant>,
}

impl Recovery {
    /// No autosaving (tests, headless).
    pub fn off() -> Self {
        Self {
            path: None,
            every: AUTOSAVE_EVERY,
            last: None,
        }
    }

    /// Autosaves to `path` at most once per `every`.
    pub fn at(path: impl Into<PathBuf>, every: Duration) -> Self {
        Self {
            path: Some(path.into()),
            every,
            last: None,
        }
    }

    /// The recovery file in eframe's storage folder of the app `app_id`.
    pub fn in_storage(app_id: &str) -> Self {
        eframe::storage_dir(app_id).map_or_else(Self::off, |dir| {
            Self::at(dir.join(RECOVERY_FILE), AUTOSAVE_EVERY)
        })
    }

    /// The recovery file, when autosaving.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// Whether the recovery file exists.
    pub fn exists(&self) -> bool {
        self.path.as_deref().is_some_and(Path::exists)
    }

    /// Moves a recovery file left by an earlier session aside (to `recovered-<seconds>.ron`
    /// next to it) and returns where it went; `None` when there is none.
    pub fn take_previous(&self) -> Option<PathBuf> {
        let path = self.path.as_deref().filter(|p| p.exists())?;
        let seconds = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let kept = path.with_file_name(format!("recovered-{seconds}.ron"));
        match std::fs::rename(path, &kept) {
            Ok(()) => Some(kept),
            Err(error) => {
                log::warn!("could not move {} aside: {error}", path.display());
                Some(path.to_path_buf())
            }
        }
    }

    /// Writes `session`'s text to the recovery file when `unsaved` and the last autosave is
    /// older than the interval.
    pub fn autosave(&mut self, session: &Session, unsaved: bool) {
        let Some(path) = self.path.as_deref() else {
            return;
        };
        if !unsaved || self.last.is_some_and(|at| at.elapsed() < self.every) {
            return;
        }
        self.last = Some(Instant::now());
        let result = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .map_err(anyhow::Error::from)
            .and_then(|()| session.to_text())
            .and_then(|text| Ok(benchtop_kit::project::write_atomic(path, text.as_bytes())?));
        if let Err(error) = result {
            log::warn!("autosave to {} failed: {error:#}", path.display());
        }
    }

    /// Removes the recovery file: the work is saved, or given up.
    pub fn discard(&mut self) {
        self.last = None;
        if let Some(path) = self.path.as_deref().filter(|p| p.exists())
            && let Err(error) = std::fs::remove_file(path)
        {
            log::warn!("could not remove {}: {error}", path.display());
        }
    }
}
