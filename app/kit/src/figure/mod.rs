//! Figures: one model ([`Figure`]) drawn by two renderers, egui on screen ([`show_figure`])
//! and plotters to SVG, rasterised to PNG with resvg and converted to PDF with svg2pdf, for
//! export ([`export_figure`]). Both renderers draw what one preparation step decides (bad points
//! skipped, log axes applied, ranges and colours resolved), so what you see is
//! what you export.

mod check;
mod colormap;
mod egui_view;
mod error;
mod export;
mod fonts;
mod layout;
mod model;
mod pdf;
mod prepare;
mod provenance;
mod raster;
mod rich;
mod streamlines;
mod svg;
#[cfg(test)]
mod tests;
mod ticks;

pub use check::{SCREEN_SIZES, check_figure, check_figure_on_screen};
pub use colormap::{COLORMAP_LUT_SIZE, Colormap, Rgba};
pub use egui_view::{FigureViewState, ZOOM_HINT, figure_hovered, install_figure_font, show_figure};
pub use error::FigureError;
pub use export::{
    ExportFormat, ExportOptions, export_figure, provenance_path, render_bytes, write_atomically,
};
pub use fonts::{DEJAVU_SANS_TTF, FONT_FAMILY};
pub use model::{
    Annotation, Axis, BarPositions, Bars, Dash, ErrorBars, Figure, Graph, GraphEdge, GraphNode,
    Heatmap, Item, Line, Marker, Picture, RefLine, Scale, Scatter, Subplot, TextAnchor, TickNames,
    ValueStats, VectorField,
};
pub use pdf::render_pdf;
pub use provenance::{APP_VERSION, Provenance};
pub use raster::{png_size_px, render_png};
pub use streamlines::{StreamlineOptions, compute_streamlines};
pub use svg::{render_svg, render_svg_with_provenance};
