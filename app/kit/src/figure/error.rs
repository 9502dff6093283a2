//! Errors of rendering and exporting figures.

use std::path::PathBuf;

/// Why a figure could not be rendered or exported.
#[derive(Debug, thiserror::Error)]
pub enum FigureError {
    /// An export option is out of range.
    #[error("invalid export option `{name}`: {reason}")]
    InvalidOption {
        /// The option's name.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// Drawing the SVG failed.
    #[error("drawing the figure failed: {0}")]
    Draw(String),
    /// The rendered SVG could not be parsed back (a bug if it happens).
    #[error("the rendered SVG could not be parsed: {0}")]
    Svg(String),
    /// Encoding the PNG failed.
    #[error("encoding the PNG failed: {0}")]
    Png(String),
    /// Converting to PDF failed.
    #[error("converting the figure to PDF failed: {0}")]
    Pdf(String),
    /// Serialising the provenance failed.
    #[error("serialising the provenance failed: {0}")]
    Provenance(String),
    /// Rendering for an export failed; names the file that was not written.
    #[error("could not export {path}: {source}")]
    Export {
        /// The file that was to be written.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: Box<FigureError>,
    },
    /// Writing a file failed.
    #[error("could not write {path}: {source}")]
    Io {
        /// The file being written.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}
