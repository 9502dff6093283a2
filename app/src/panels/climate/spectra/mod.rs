//! Weather spectra: spherical-harmonic power spectra of real fields, and why the AMSE loss
//! keeps forecasts sharp where MSE blurs them (Subich, Husain, Separovic, Yang, ICML 2025).
//!
//! Three tabs: **Data** (load a NetCDF/NPY field, map it, its spectrum), **Analytic** (a
//! forecast with scale-dependent decorrelation ρ_k; the MSE-optimal forecast damps every k by
//! ρ_k, the AMSE-optimal keeps amplitude 1) and **Learned** (two small neural forecasters of
//! a barotropic vorticity model on the sphere trained with MSE and with AMSE).

mod analytic_tab;
mod data_tab;
mod field_spectrum;
mod figures;
mod learned_tab;
mod sweeps;

use std::path::{Path, PathBuf};

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_spectra::data::{GridChoice, LoadOptions};
use benchtop_spectra::experiments::AnalyticParams;
use benchtop_spectra::forecast::ForecastParams;
use serde::{Deserialize, Serialize};

use crate::panels::{
    DataTable, Field, Panel, PanelContext, PanelFigure, PanelKind, PanelState, Paper, ParamIssue,
};
use crate::project::{DataRef, Sidecar};
use crate::sweep::SweepSupport;
use crate::undo::UndoHistory;

pub use field_spectrum::{file_spectrum, mean_square, spectrum_csv, wavelengths_km};

/// The catalog entry.
pub const KIND: PanelKind = PanelKind {
    id: "spectra",
    name: "Weather spectra (AMSE)",
    description: "Spherical-harmonic power spectra of weather fields, effective resolution, and \
                  MSE- vs AMSE-trained forecasters: why MSE blurs and AMSE keeps the spectrum.",
    field: Field::Climate,
    paper: Paper {
        title: "Fixing the Double Penalty in Data-Driven Weather Forecasting Through a \
                Modified Spherical Harmonic Loss Function",
        authors: "Christopher Subich, Syed Zahid Husain, Leo Separovic, Jing Yang",
        venue: "ICML 2025",
        link: "https://arxiv.org/abs/2501.19374",
    },
    create: create_panel,
};

fn create_panel() -> Box<dyn Panel> {
    Box::new(SpectraPanel::new(SpectraState::default()))
}

/// Which tab of the panel is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SpectraTab {
    /// A field from a file and its spectrum.
    Data,
    /// The analytic MSE vs AMSE optimum.
    #[default]
    Analytic,
    /// The learned MSE vs AMSE forecasters.
    Learned,
}

/// What to read and transform in the data tab.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DataParams {
    /// The NetCDF or NPY file (relative to the project file); empty: the bundled NCEP/NCAR
    /// 200 hPa zonal-wind sample.
    pub file: DataRef,
    /// Variable, time, level and grid.
    pub options: LoadOptions,
    /// Largest total wavenumber (0: the most the grid resolves).
    pub lmax: usize,
}

impl Default for DataParams {
    fn default() -> Self {
        Self {
            file: DataRef::default(),
            options: LoadOptions {
                grid: GridChoice::Auto,
                ..LoadOptions::default()
            },
            lmax: 0,
        }
    }
}

impl DataParams {
    /// The file to read: the given one resolved against `project_dir`, or the bundled sample.
    pub fn resolved_file(&self, project_dir: Option<&Path>) -> PathBuf {
        if self.file.path.trim().is_empty() {
            benchtop_spectra::data::sample_wind_paths().0
        } else {
            self.file.resolve(project_dir)
        }
    }

    /// Checks what can be checked without reading the file.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if self.lmax > 4095 {
            return Err(ComputeError::invalid(
                "lmax",
                format!("{} is more than 4095 (0 picks the grid's own)", self.lmax),
            ));
        }
        Ok(())
    }
}

/// The parameters a user edits (the unit of undo).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpectraParams {
    /// The data tab.
    pub data: DataParams,
    /// The analytic experiment.
    pub analytic: AnalyticParams,
    /// Seed of the analytic experiment's random truth.
    pub analytic_seed: u64,
    /// The learned experiment.
    pub learned: ForecastParams,
    /// Seed of the learned experiment (data, initial weights, batches).
    pub learned_seed: u64,
}

impl Default for SpectraParams {
    fn default() -> Self {
        Self {
            data: DataParams::default(),
            analytic: AnalyticParams::default(),
            analytic_seed: 1,
            learned: ForecastParams::default(),
            learned_seed: 1,
        }
    }
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpectraView {
    /// The tab shown.
    pub tab: SpectraTab,
    /// The lead (index into the evaluated leads) whose spectra the learned tab shows.
    pub lead_index: usize,
}

/// What `benchtop run` computes for this panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HeadlessTasks {
    /// Load the data tab's field and compute its spectrum.
    pub data: bool,
    /// Run the analytic experiment.
    pub analytic: bool,
    /// Train and evaluate the two forecasters (minutes).
    pub learned: bool,
}

impl Default for HeadlessTasks {
    fn default() -> Self {
        Self {
            data: true,
            analytic: true,
            learned: false,
        }
    }
}

/// Results kept with the project (arrays go to the sidecar).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The loaded field's description and spectrum.
    pub data: Option<serde_json::Value>,
    /// Sidecar file with the loaded field (nlat × nlon).
    pub field_file: Option<String>,
    /// The analytic result without its maps.
    pub analytic: Option<serde_json::Value>,
    /// Sidecar file with the analytic maps (4 × nlat × nlon: truth, forecast, MSE fit, AMSE
    /// fit), on the grid stored in `analytic`.
    pub analytic_maps_file: Option<String>,
    /// The learned result without its training history and maps.
    pub learned: Option<serde_json::Value>,
    /// Sidecar file with the training history (one row per step).
    pub learned_history_file: Option<String>,
    /// Sidecar file with the learned maps (3 × nlat × nlon: truth, MSE, AMSE).
    pub learned_maps_file: Option<String>,
}

/// Everything the project file stores for this panel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SpectraState {
    /// Parameters and seeds.
    pub params: SpectraParams,
    /// View settings.
    pub view: SpectraView,
    /// What a headless run computes.
    pub headless: HeadlessTasks,
    /// Results.
    pub results: SavedResults,
}

/// The panel.
pub struct SpectraPanel {
    params: SpectraParams,
    view: SpectraView,
    headless: HeadlessTasks,
    history: UndoHistory<SpectraParams>,
    project_dir: Option<PathBuf>,
    data: data_tab::DataTab,
    analytic: analytic_tab::AnalyticTab,
    learned: learned_tab::LearnedTab,
    /// A problem to show at the top of the panel until dismissed.
    warning: Option<String>,
}

impl SpectraPanel {
    /// A panel showing `state` (no results).
    pub fn new(state: SpectraState) -> Self {
        Self {
            history: UndoHistory::new(state.params.clone()),
            params: state.params,
            view: state.view,
            headless: state.headless,
            project_dir: None,
            data: data_tab::DataTab::default(),
            analytic: analytic_tab::AnalyticTab::default(),
            learned: learned_tab::LearnedTab::default(),
            warning: None,
        }
    }

    /// Rebuilds the panel with its saved results (arrays from `sidecar`); results whose arrays
    /// cannot be read are dropped with a warning (they can be recomputed).
    pub fn restore(state: SpectraState, sidecar: Option<&Sidecar>) -> anyhow::Result<Self> {
        let results = state.results.clone();
        let mut panel = Self::new(state);
        let restored = panel
            .data
            .restore(&results, sidecar)
            .and_then(|()| panel.analytic.restore(&results, sidecar))
            .and_then(|()| panel.learned.restore(&results, sidecar));
        if let Err(error) = restored {
            panel.data = data_tab::DataTab::default();
            panel.analytic = analytic_tab::AnalyticTab::default();
            panel.learned = learned_tab::LearnedTab::default();
            panel.warning = Some(format!(
                "saved results were not restored ({error:#}); run again to recompute them"
            ));
        }
        panel.data.mark_current(&panel.params);
        panel.analytic.mark_current(&panel.params);
        panel.learned.mark_current(&panel.params);
        Ok(panel)
    }
}

impl Panel for SpectraPanel {
    fn kind(&self) -> &'static PanelKind {
        &KIND
    }

    fn set_project_dir(&mut self, dir: Option<&Path>) {
        self.project_dir = dir.map(Path::to_path_buf);
    }

    fn ui(&mut self, ui: &mut egui::Ui, context: &mut PanelContext<'_>) {
        crate::widgets::dismissible_warning(ui, &mut self.warning);
        if let Some(dir) = context.project_dir {
            self.project_dir = Some(dir.to_path_buf());
        }
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.view.tab, SpectraTab::Data, "Data");
            ui.selectable_value(&mut self.view.tab, SpectraTab::Analytic, "Analytic");
            ui.selectable_value(&mut self.view.tab, SpectraTab::Learned, "Learned");
        });
        ui.separator();
        let project_dir = self.project_dir.clone();
        match self.view.tab {
            SpectraTab::Data => {
                self.data
                    .ui(ui, &mut self.params, project_dir.as_deref(), context);
            }
            SpectraTab::Analytic => self.analytic.ui(ui, &mut self.params, context),
            SpectraTab::Learned => self
                .learned
                .ui(ui, &mut self.params, &mut self.view, context),
        }
        let interacting = ui.input(|input| input.pointer.any_down());
        self.history.observe(&self.params, interacting);
        if !interacting {
            self.analytic
                .react_to_params(&self.params, context, ui.ctx());
        }
    }

    fn poll(&mut self) {
        self.data.poll();
        self.analytic.poll();
        self.learned.poll();
    }

    fn is_busy(&self) -> bool {
        self.data.is_busy() || self.analytic.is_busy() || self.learned.is_busy()
    }

    fn save(&self, sidecar: Option<&Sidecar>) -> anyhow::Result<PanelState> {
        let mut results = SavedResults::default();
        self.data.save(&mut results, sidecar)?;
        self.analytic.save(&mut results, sidecar)?;
        self.learned.save(&mut results, sidecar)?;
        Ok(PanelState::Spectra(SpectraState {
            params: self.params.clone(),
            view: self.view.clone(),
            headless: self.headless,
            results,
        }))
    }

    fn validate(&self) -> Vec<ParamIssue> {
        [
            ParamIssue::from_result("params.data", self.params.data.validate()),
            ParamIssue::from_result("params.analytic", self.params.analytic.validate()),
            ParamIssue::from_result("params.learned", self.params.learned.validate()),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    fn figures(&self) -> Vec<PanelFigure> {
        let mut figures = self.data.figures(&self.params);
        figures.extend(self.analytic.figures(&self.params));
        figures.extend(self.learned.figures(&self.params));
        figures
    }

    fn data_tables(&self) -> Vec<DataTable> {
        let mut tables = self.data.tables();
        tables.extend(self.analytic.tables());
        tables.extend(self.learned.tables());
        tables
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "data": self.data.summary(),
            "analytic": self.analytic.summary(&self.params),
            "learned": self.learned.summary(&self.params),
        })
    }

    fn sweep_support(&self) -> SweepSupport {
        sweeps::support(&self.params)
    }

    fn run_headless(&mut self, progress: &Progress, cancel: &CancelToken) -> anyhow::Result<()> {
        let tasks = [
            self.headless.data,
            self.headless.analytic,
            self.headless.learned,
        ];
        #[allow(clippy::cast_precision_loss)]
        let total = tasks.iter().filter(|&&t| t).count().max(1) as f64;
        let mut done = 0.0;
        let slice = |done: f64| progress.slice(done / total, (done + 1.0) / total);
        if self.headless.data {
            self.data
                .load_blocking(&self.params, self.project_dir.as_deref(), cancel)?;
            done += 1.0;
        }
        if self.headless.analytic {
            self.analytic
                .run_blocking(&self.params, &slice(done), cancel)?;
            done += 1.0;
        }
        if self.headless.learned {
            self.learned
                .train_blocking(&self.params, &slice(done), cancel)?;
        }
        progress.set(1.0, "done");
        Ok(())
    }

    fn undo(&mut self) -> bool {
        self.history.undo_into(&mut self.params)
    }

    fn redo(&mut self) -> bool {
        self.history.redo_into(&mut self.params)
    }
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-spectra", env!("CARGO_PKG_VERSION"));
