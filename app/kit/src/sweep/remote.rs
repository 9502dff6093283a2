//! Somewhere other than this machine to compute a sweep's points, offered by the app.
//!
//! The kit knows no cluster: the Sweeps view asks a [`RemoteRunner`] for its name, offers
//! "Run on: this machine | <name>", and hands the chosen sweep's controls to it. The points
//! it brings back go into the sweep's results, which the view draws as a local run's.

use super::{SweepRun, SweepSupport};
use crate::project::PaneId;

/// A place that computes sweeps elsewhere (e.g. a batch cluster).
pub trait RemoteRunner {
    /// Its name in the "Run on" choice, e.g. `Slurm cluster`.
    fn name(&self) -> String;

    /// Whether sweep `sweep` of pane `pane` has work there already (its "Run on" then starts
    /// on this runner, e.g. after the project is opened again).
    fn has_work(&self, pane: PaneId, sweep: &str) -> bool;

    /// Draws the settings, submit, status and cancel controls of sweep `run` of pane `pane`.
    /// Results are added to `run.doc.results` by the app as they arrive, not here.
    fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        pane: PaneId,
        run: &mut SweepRun,
        support: &SweepSupport,
    );
}
