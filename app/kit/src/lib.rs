//! The panel kit: everything a Benchtop panel is built from, and nothing about any one panel.
//!
//! - [`panel`]: the [`Panel`](panel::Panel) trait the shell drives, the catalog entry
//!   ([`PanelKind`](panel::PanelKind)), figures and tables a panel exports.
//! - [`cli`]: what a panel adds to the command line (its `bench` entries and subcommands).
//! - [`data`]: a tab's data made or read from its parameters, kept with the project.
//! - [`figure`]: one figure model drawn on screen (egui) and to SVG, PNG and PDF with
//!   provenance.
//! - [`jobs`]: background work on named threads with progress, ETA, cancel and streamed updates.
//! - [`sweep`]: 1-D and 2-D sweeps of any numeric parameter of a panel.
//! - [`project`]: the project file, its sidecar folder of arrays, atomic writes.
//! - [`export`]: every figure, table and sweep of a project, and `summary.json`.
//! - [`file_dialog`]: the system's file dialog when it works, else Benchtop's own.
//! - [`undo`], [`widgets`]: per-panel undo history and small shared widgets.

pub mod cli;
pub mod data;
pub mod eta;
pub mod export;
pub mod figure;
pub mod file_dialog;
pub mod host;
pub mod jobs;
pub mod panel;
pub mod params;
pub mod project;
pub mod suggest;
pub mod sweep;
pub mod task;
pub mod undo;
pub mod widgets;

/// The shared compute infrastructure (progress, cancel, seeded RNG, devices, errors), for the
/// binary and panels that reach it through the kit.
pub use benchtop_compute as compute;
