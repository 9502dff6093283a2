//! Export options and writing figures to files (atomically, with a provenance sidecar).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::FigureError;
use super::model::Figure;
use super::pdf::render_pdf;
use super::provenance::Provenance;
use super::raster::render_png;
use super::svg::render_svg_with_provenance;

/// Largest accepted figure side, in inches.
const MAX_SIDE_IN: f64 = 200.0;

/// File format of an export.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ExportFormat {
    /// Scalable vector graphics (text).
    Svg,
    /// Raster image at `dpi`.
    #[default]
    Png,
    /// Vector PDF, one page.
    Pdf,
}

impl ExportFormat {
    /// The usual file extension, without the dot.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Svg => "svg",
            Self::Png => "png",
            Self::Pdf => "pdf",
        }
    }

    /// The format for a file extension (case-insensitive), if known.
    pub fn from_extension(extension: &str) -> Option<Self> {
        match extension.to_ascii_lowercase().as_str() {
            "svg" => Some(Self::Svg),
            "png" => Some(Self::Png),
            "pdf" => Some(Self::Pdf),
            _ => None,
        }
    }
}

/// How to export a figure.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ExportOptions {
    /// File format.
    pub format: ExportFormat,
    /// Resolution of PNG exports in dots per inch.
    pub dpi: u32,
    /// Physical size (width, height) in inches; `None` uses the figure's size.
    pub size_in: Option<(f64, f64)>,
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self {
            format: ExportFormat::Png,
            dpi: Self::DEFAULT_DPI,
            size_in: None,
        }
    }
}

impl ExportOptions {
    /// Default PNG resolution.
    pub const DEFAULT_DPI: u32 = 300;

    /// Default options for a format.
    pub fn new(format: ExportFormat) -> Self {
        Self {
            format,
            ..Self::default()
        }
    }

    /// Sets the PNG resolution.
    #[must_use]
    pub fn dpi(mut self, dpi: u32) -> Self {
        self.dpi = dpi;
        self
    }

    /// Overrides the physical size in inches.
    #[must_use]
    pub fn size_in(mut self, width_in: f64, height_in: f64) -> Self {
        self.size_in = Some((width_in, height_in));
        self
    }

    /// The size to render: the override, else the figure's size, else the default if the
    /// figure's size is unusable. An unusable override or DPI is an error.
    pub fn effective_size_in(&self, figure: &Figure) -> Result<(f64, f64), FigureError> {
        let usable = |(w, h): (f64, f64)| {
            w.is_finite()
                && h.is_finite()
                && w > 0.0
                && h > 0.0
                && w <= MAX_SIDE_IN
                && h <= MAX_SIDE_IN
        };
        if self.dpi == 0 {
            return Err(FigureError::InvalidOption {
                name: "dpi",
                reason: "must be positive".to_owned(),
            });
        }
        match self.size_in {
            Some(size) if usable(size) => Ok(size),
            Some(size) => Err(FigureError::InvalidOption {
                name: "size_in",
                reason: format!("{size:?} is not a positive size up to {MAX_SIDE_IN} in"),
            }),
            None if usable(figure.size_in) => Ok(figure.size_in),
            None => Ok(Figure::DEFAULT_SIZE_IN),
        }
    }
}

/// Renders a figure in the options' format, with provenance embedded where the format allows.
pub fn render_bytes(
    figure: &Figure,
    options: &ExportOptions,
    provenance: &Provenance,
) -> Result<Vec<u8>, FigureError> {
    match options.format {
        ExportFormat::Svg => {
            render_svg_with_provenance(figure, options, provenance).map(String::into_bytes)
        }
        ExportFormat::Png => render_png(figure, options, provenance),
        ExportFormat::Pdf => render_pdf(figure, options, provenance),
    }
}

/// The sidecar path for an export: `<stem>.provenance.json` in the same directory.
pub fn provenance_path(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "figure".into(), |s| s.to_string_lossy().into_owned());
    path.with_file_name(format!("{stem}.provenance.json"))
}

/// Writes `bytes` to `path` atomically (see [`crate::project::write_atomic`]): a failed write
/// leaves any old file intact, and an existing file keeps its permissions.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), FigureError> {
    crate::project::write_atomic(path, bytes).map_err(|source| FigureError::Io {
        path: path.to_owned(),
        source,
    })
}

/// Renders and writes a figure to `path` and its provenance to `<stem>.provenance.json` next
/// to it; returns the paths written (figure first). Nothing is written if rendering fails.
pub fn export_figure(
    figure: &Figure,
    options: &ExportOptions,
    provenance: &Provenance,
    path: &Path,
) -> Result<Vec<PathBuf>, FigureError> {
    let wrap = |source: FigureError| FigureError::Export {
        path: path.to_owned(),
        source: Box::new(source),
    };
    let bytes = render_bytes(figure, options, provenance).map_err(wrap)?;
    let sidecar = provenance_path(path);
    let json = provenance
        .to_json()
        .map_err(|e| wrap(FigureError::Provenance(e.to_string())))?;
    write_atomically(path, &bytes)?;
    write_atomically(&sidecar, json.as_bytes())?;
    Ok(vec![path.to_owned(), sidecar])
}
