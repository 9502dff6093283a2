//! Errors reading and writing project files; each names the file and the line or key.

use std::path::PathBuf;

use thiserror::Error;

/// What went wrong with a project file.
#[derive(Debug, Error)]
pub enum ProjectError {
    /// The file could not be read or written.
    #[error("{path}: {error}", path = path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The system error (in the message, not a separate cause, so it is said once).
        error: std::io::Error,
    },
    /// The text is not a valid project (syntax or a value of the wrong type).
    #[error("{path}:{line}:{column}: {message}{key}", path = path.display(), key = key.as_ref().map(|k| format!(" (at key `{k}`)")).unwrap_or_default())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
        /// The key path (e.g. `panels[0].state`), when known.
        key: Option<String>,
    },
    /// The text does not begin as a project does.
    #[error("{path}: this is not a Benchtop project file (expected it to begin with `(format_version: …`): {detail}", path = path.display())]
    NotAProject {
        /// The file.
        path: PathBuf,
        /// What the parser found, with line and column.
        detail: String,
    },
    /// The file was written by a newer Benchtop.
    #[error("{path}: written in project format {found}, but this Benchtop reads format {supported} or older; update Benchtop to open it", path = path.display())]
    NewerFormat {
        /// The file.
        path: PathBuf,
        /// The file's `format_version`.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// A value parsed but is not acceptable (e.g. a negative temperature).
    #[error("{path}: panel `{panel}`, key `{key}`: {message}", path = path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The panel's title.
        panel: String,
        /// The parameter key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A key the format does not know (usually a misspelling).
    #[error("{path}:{line}: unknown key `{key}`{hint}", path = path.display(), hint = closest.as_ref().map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default())]
    UnknownKey {
        /// The file.
        path: PathBuf,
        /// 1-based line of the key (of the file's start when it cannot be found).
        line: usize,
        /// The key's path, e.g. `panels[0].state.params.szie`.
        key: String,
        /// The closest known key at that place.
        closest: Option<String>,
    },
    /// A value outside the panels (e.g. the sidecar folder) is not acceptable.
    #[error("{path}: key `{key}`: {message}", path = path.display())]
    Value {
        /// The file.
        path: PathBuf,
        /// The key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A referenced data file is missing.
    #[error("{path}: the data file {data} does not exist (paths are relative to the project file)", path = path.display(), data = data.display())]
    MissingData {
        /// The project file.
        path: PathBuf,
        /// The missing file.
        data: PathBuf,
    },
    /// The project could not be turned into text (a bug).
    #[error("could not serialise the project: {message}")]
    Serialize {
        /// The serialiser's message.
        message: String,
    },
}

impl ProjectError {
    /// A syntax error from RON's spanned error.
    pub fn syntax(
        path: &std::path::Path,
        error: &ron::error::SpannedError,
        key: Option<String>,
    ) -> Self {
        Self::Syntax {
            path: path.to_path_buf(),
            line: error.span.start.line,
            column: error.span.start.col,
            message: error.code.to_string(),
            key: key.filter(|k| !k.is_empty() && k != "."),
        }
    }
}
