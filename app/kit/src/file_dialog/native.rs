//! The system's file dialog through rfd, and how a failed one is told apart from a cancelled
//! one.
//!
//! rfd's blocking dialogs return `None` both when the user cancels and when no dialog could be
//! shown (no XDG desktop portal and no zenity); the only report of the failure is an error it
//! logs. [`install_logger`] wraps the process's logger so that [`show`] sees the records rfd
//! logs during the call: when its last one is an error, the call failed and the caller shows
//! Benchtop's own dialog instead.

use std::path::PathBuf;

use parking_lot::Mutex;

use super::{Kind, Request};

/// What the system's dialog gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Native {
    /// The user chose this path.
    Chosen(PathBuf),
    /// The user closed the dialog without choosing.
    Cancelled,
    /// No dialog could be shown; why, as rfd reported it.
    Unavailable(String),
}

/// The last record rfd logged: whether it was an error, and its text. `None` until rfd logs.
static LAST_RFD_RECORD: Mutex<Option<(bool, String)>> = Mutex::new(None);

/// Whether [`install_logger`] ran: without it a failure cannot be seen.
static WATCHING: Mutex<bool> = Mutex::new(false);

/// A logger that passes every record on to the process's logger and remembers the last record
/// rfd logged.
struct Watching {
    inner: Box<dyn log::Log>,
    inner_level: log::LevelFilter,
}

impl log::Log for Watching {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        is_rfd(metadata.target()) || self.inner.enabled(metadata)
    }

    fn log(&self, record: &log::Record<'_>) {
        note(record.target(), record.level(), &record.args().to_string());
        if record.level() <= self.inner_level && self.inner.enabled(record.metadata()) {
            self.inner.log(record);
        }
    }

    fn flush(&self) {
        self.inner.flush();
    }
}

fn is_rfd(target: &str) -> bool {
    target == "rfd" || target.starts_with("rfd::")
}

/// Remembers a record if rfd logged it.
fn note(target: &str, level: log::Level, text: &str) {
    if is_rfd(target) {
        *LAST_RFD_RECORD.lock() = Some((level == log::Level::Error, text.to_owned()));
    }
}

/// Installs `inner` (e.g. an `env_logger` built, not initialised) as the process's logger,
/// wrapped so that a system file dialog that fails is seen. `inner_level` is the most verbose
/// level `inner` wants. Fails when a logger is already installed.
pub fn install_logger(
    inner: Box<dyn log::Log>,
    inner_level: log::LevelFilter,
) -> Result<(), log::SetLoggerError> {
    log::set_boxed_logger(Box::new(Watching { inner, inner_level }))?;
    // rfd's errors must reach the watcher even when the user's filter hides them.
    log::set_max_level(inner_level.max(log::LevelFilter::Warn));
    *WATCHING.lock() = true;
    Ok(())
}

/// Whether a failed system dialog can be told from a cancelled one in this process.
pub fn failures_visible() -> bool {
    *WATCHING.lock()
}

/// Shows the system's dialog for `request` and waits for it.
pub fn show(request: &Request) -> Native {
    *LAST_RFD_RECORD.lock() = None;
    let mut dialog = rfd::FileDialog::new().set_title(&request.title);
    if let Some(filter) = &request.filter {
        dialog = dialog.add_filter(&filter.name, &filter.extensions);
    }
    if let Some(folder) = &request.folder {
        dialog = dialog.set_directory(folder);
    }
    let picked = match request.kind {
        Kind::Open => dialog.pick_file(),
        Kind::Save => dialog.set_file_name(&request.file_name).save_file(),
        Kind::Folder => dialog.pick_folder(),
    };
    outcome(picked, LAST_RFD_RECORD.lock().take())
}

/// What a call gave: its path, else a failure when the last record rfd logged during the call
/// was an error (e.g. the portal failed and then zenity could not be started), else a cancel.
fn outcome(picked: Option<PathBuf>, last_record: Option<(bool, String)>) -> Native {
    match (picked, last_record) {
        (Some(path), _) => Native::Chosen(path),
        (None, Some((true, text))) => Native::Unavailable(text),
        (None, _) => Native::Cancelled,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_failed_only_when_rfd_logged_an_error_last() {
        let path = PathBuf::from("/tmp/a.ron");
        assert_eq!(
            outcome(Some(path.clone()), Some((true, "x".into()))),
            Native::Chosen(path)
        );
        // The portal failed, zenity ran and the user cancelled it: rfd warned last.
        assert_eq!(
            outcome(None, Some((false, "Using zenity fallback".into()))),
            Native::Cancelled
        );
        assert_eq!(outcome(None, None), Native::Cancelled);
        assert_eq!(
            outcome(None, Some((true, "Failed to pick file with zenity".into()))),
            Native::Unavailable("Failed to pick file with zenity".into())
        );
    }

    #[test]
    fn only_rfd_records_are_remembered() {
        *LAST_RFD_RECORD.lock() = None;
        note("wgpu_core::device", log::Level::Error, "not a dialog");
        assert!(LAST_RFD_RECORD.lock().is_none());
        note(
            "rfd::backend::xdg_desktop_portal",
            log::Level::Error,
            "Failed to pick folder with zenity: No such file or directory",
        );
        assert!(
            LAST_RFD_RECORD
                .lock()
                .as_ref()
                .is_some_and(|(error, _)| *error)
        );
        note(
            "rfd::backend::xdg_desktop_portal",
            log::Level::Warn,
            "Using zenity fallback",
        );
        assert!(
            LAST_RFD_RECORD
                .lock()
                .as_ref()
                .is_some_and(|(error, _)| !*error)
        );
        *LAST_RFD_RECORD.lock() = None;
    }
}
