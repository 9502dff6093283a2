//! File dialogs that always work: the system's when it can be shown, else Benchtop's own in the
//! window.
//!
//! [`ask`] tries the system's dialog (rfd: the XDG desktop portal, else zenity) unless it is
//! switched off; when rfd reports that no dialog could be shown, the answer is an
//! [`InWindowDialog`] to draw until the user chooses, and later calls go straight to it. The
//! in-window dialog says why it is used. `BENCHTOP_FILE_DIALOG=builtin` (or [`set_native`])
//! switches the system's dialog off; a process that has not installed the watching logger
//! ([`native::install_logger`], as the `benchtop` binary does) cannot tell a failed system
//! dialog from a cancelled one, so it uses the in-window dialog.
//!
//! [`pick`] keeps an in-window dialog in egui's memory, for widgets (e.g. a data file field).

pub mod native;
mod window;

use std::path::PathBuf;

use parking_lot::Mutex;

pub use native::Native;
pub use window::{InWindowDialog, Outcome};

/// The environment variable that switches the system's dialog off (`builtin`) or on (`native`,
/// the default).
pub const ENV_VAR: &str = "BENCHTOP_FILE_DIALOG";

/// What the dialog is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Choose an existing file.
    Open,
    /// Choose where to write a file.
    Save,
    /// Choose a folder (or make one).
    Folder,
}

/// The files a dialog lists: a name (e.g. `Benchtop project`) and extensions without the dot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    /// What the files are.
    pub name: String,
    /// Their extensions, without the dot.
    pub extensions: Vec<String>,
}

impl Filter {
    /// Files called `name` with one of `extensions` (without the dot).
    pub fn new(name: &str, extensions: &[&str]) -> Self {
        Self {
            name: name.to_owned(),
            extensions: extensions.iter().map(|e| (*e).to_owned()).collect(),
        }
    }
}

/// One question to the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// Open, save or folder.
    pub kind: Kind,
    /// The dialog's title.
    pub title: String,
    /// The files listed, if not all.
    pub filter: Option<Filter>,
    /// The file name proposed when saving.
    pub file_name: String,
    /// The folder shown first (else the working folder).
    pub folder: Option<PathBuf>,
}

impl Request {
    /// A dialog of `kind` titled `title`, listing every file of the working folder.
    pub fn new(kind: Kind, title: &str) -> Self {
        Self {
            kind,
            title: title.to_owned(),
            filter: None,
            file_name: String::new(),
            folder: None,
        }
    }

    /// Lists only `filter`'s files.
    #[must_use]
    pub fn filter(mut self, filter: Filter) -> Self {
        self.filter = Some(filter);
        self
    }

    /// Proposes `name` when saving.
    #[must_use]
    pub fn file_name(mut self, name: &str) -> Self {
        name.clone_into(&mut self.file_name);
        self
    }

    /// Starts in `folder` when it is one.
    #[must_use]
    pub fn folder(mut self, folder: Option<PathBuf>) -> Self {
        self.folder = folder.filter(|f| f.is_dir());
        self
    }
}

/// Whether the system's dialog is tried, and why not when it is not.
#[derive(Clone, Debug)]
struct Choice {
    /// Switched on or off by the user ([`ENV_VAR`], [`set_native`]); `None`: not yet read.
    allowed: Option<bool>,
    /// Why the system's dialog failed in this process, once it has.
    failed: Option<String>,
}

static CHOICE: Mutex<Choice> = Mutex::new(Choice {
    allowed: None,
    failed: None,
});

/// Switches the system's dialog on or off for this process (tests; a setting).
pub fn set_native(on: bool) {
    CHOICE.lock().allowed = Some(on);
}

/// Why the in-window dialog is used instead of the system's, or `None` when the system's is
/// tried.
pub fn in_window_reason() -> Option<String> {
    let mut choice = CHOICE.lock();
    let allowed = *choice.allowed.get_or_insert_with(|| {
        std::env::var(ENV_VAR).map_or(true, |v| !v.eq_ignore_ascii_case("builtin"))
    });
    if !allowed {
        Some(format!(
            "Benchtop's own file dialog ({ENV_VAR}=builtin or the setting)."
        ))
    } else if let Some(why) = &choice.failed {
        Some(format!(
            "Benchtop's own file dialog: the system's could not be shown ({why}). \
             Installing xdg-desktop-portal or zenity gives the system's."
        ))
    } else if !native::failures_visible() {
        Some("Benchtop's own file dialog.".to_owned())
    } else {
        None
    }
}

/// What [`ask`] gave.
#[derive(Debug)]
pub enum Asked {
    /// The system's dialog returned this path.
    Chosen(PathBuf),
    /// The user cancelled the system's dialog.
    Cancelled,
    /// Draw this dialog every frame until it gives an [`Outcome`] other than `Open`.
    InWindow(Box<InWindowDialog>),
}

/// Asks the user for a path: the system's dialog when it is tried and works, else the
/// in-window dialog (the decision is made at the call: a system dialog that fails hands over
/// to the in-window one, which says why).
pub fn ask(request: Request) -> Asked {
    if let Some(reason) = in_window_reason() {
        return Asked::InWindow(Box::new(InWindowDialog::new(request, Some(reason))));
    }
    match native::show(&request) {
        Native::Chosen(path) => Asked::Chosen(path),
        Native::Cancelled => Asked::Cancelled,
        Native::Unavailable(why) => {
            log::warn!("the system file dialog could not be shown ({why}): using Benchtop's own");
            CHOICE.lock().failed = Some(why);
            Asked::InWindow(Box::new(InWindowDialog::new(request, in_window_reason())))
        }
    }
}

/// A dialog for a widget, kept in egui's memory under `id`: `open` asks (see [`ask`]); call
/// every frame, with `None` when not opening. Returns the path once the user chose one.
pub fn pick(ctx: &egui::Context, id: egui::Id, open: Option<Request>) -> Option<PathBuf> {
    if let Some(request) = open {
        match ask(request) {
            Asked::Chosen(path) => return Some(path),
            Asked::Cancelled => return None,
            Asked::InWindow(dialog) => {
                ctx.data_mut(|d| d.insert_temp(id, *dialog));
            }
        }
    }
    let mut dialog: InWindowDialog = ctx.data_mut(|d| d.get_temp(id))?;
    match dialog.show(ctx) {
        Outcome::Open => {
            ctx.data_mut(|d| d.insert_temp(id, dialog));
            None
        }
        Outcome::Chosen(path) => {
            ctx.data_mut(|d| d.remove::<InWindowDialog>(id));
            Some(path)
        }
        Outcome::Cancelled => {
            ctx.data_mut(|d| d.remove::<InWindowDialog>(id));
            None
        }
    }
}
