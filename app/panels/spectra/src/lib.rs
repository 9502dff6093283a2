//! Weather spectra: spherical-harmonic power spectra of real fields, and why the AMSE loss
//! keeps forecasts sharp where MSE blurs them (Subich, Husain, Separovic, Yang, ICML 2025).
//!
//! Three tabs: **Data** (load a NetCDF/NPY field, map it, its spectrum), **Analytic** (a
//! forecast with scale-dependent decorrelation ρ_k; the MSE-optimal forecast damps every k by
//! ρ_k, the AMSE-optimal keeps amplitude 1) and **Learned** (two small neural forecasters of
//! a barotropic vorticity model on the sphere trained with MSE and with AMSE).
//!
//! The panel is a [`PanelModel`]: its parameters are declared once in [`params`], each tab is
//! one task of the kit, and [`Host`] supplies the rest.

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_spectra as engine;

mod analytic_tab;
pub mod bench;
pub mod cli;
mod data_tab;
mod field_spectrum;
mod figures;
mod learned_tab;
pub mod params;
pub mod sweeps;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, issues_of};
use benchtop_kit::project::{DataRef, Sidecar};
use benchtop_kit::sweep::{ReferenceCurve, SweepOutput};
use benchtop_spectra::data::{GridChoice, LoadOptions};
use benchtop_spectra::experiments::AnalyticParams;
use benchtop_spectra::forecast::ForecastParams;
use serde::{Deserialize, Serialize};

pub use field_spectrum::{file_spectrum, mean_square, spectrum_csv, wavelengths_km};

/// The weather spectra panel.
pub type SpectraPanel = Host<SpectraModel>;

/// Everything the project file stores for this panel.
pub type SpectraState = DocOf<SpectraModel>;

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

/// Results kept with the project (arrays go to the sidecar).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The loaded field's description and spectrum.
    pub data: Option<benchtop_kit::panel::SavedValue>,
    /// Sidecar file with the loaded field (nlat × nlon).
    pub field_file: Option<String>,
    /// The analytic result without its maps.
    pub analytic: Option<benchtop_kit::panel::SavedValue>,
    /// Sidecar file with the analytic maps (4 × nlat × nlon: truth, forecast, MSE fit, AMSE
    /// fit), on the grid stored in `analytic`.
    pub analytic_maps_file: Option<String>,
    /// The learned result without its training history and maps.
    pub learned: Option<benchtop_kit::panel::SavedValue>,
    /// Sidecar file with the training history (one row per step).
    pub learned_history_file: Option<String>,
    /// Sidecar file with the learned maps (3 × nlat × nlon: truth, MSE, AMSE).
    pub learned_maps_file: Option<String>,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum SpectraTask for SpectraModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// Load the data tab's field and compute its spectrum.
    Load(data = true): data.task => |m, cx| m.data.start(cx);
    /// Run the analytic experiment: fit the MSE- and AMSE-optimal gains.
    Fit(analytic = true): analytic.task => |m, cx| m.analytic.start(cx);
    /// Train and evaluate the two forecasters (minutes).
    Train(learned = false): learned.task => |m, cx| m.learned.start(cx);
}

/// The weather spectra panel's tabs and their results.
#[derive(Default)]
pub struct SpectraModel {
    data: data_tab::DataTab,
    analytic: analytic_tab::AnalyticTab,
    learned: learned_tab::LearnedTab,
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-spectra", env!("CARGO_PKG_VERSION"));

impl PanelModel for SpectraModel {
    type Params = SpectraParams;
    type View = SpectraView;
    type Results = SavedResults;
    type Tab = SpectraTab;

    const KIND: PanelKind = PanelKind {
        id: "spectra",
        name: "Weather spectra (AMSE)",
        description: "Spherical-harmonic power spectra of weather fields, effective resolution, \
                      and MSE- vs AMSE-trained forecasters: why MSE blurs and AMSE keeps the \
                      spectrum.",
        field: Field::Climate,
        paper: Paper {
            title: "Fixing the Double Penalty in Data-Driven Weather Forecasting Through a \
                    Modified Spherical Harmonic Loss Function",
            authors: "Christopher Subich, Syed Zahid Husain, Leo Separovic, Jing Yang",
            venue: "ICML 2025",
            link: "https://arxiv.org/abs/2501.19374",
        },
    };

    benchtop_kit::tabs!(SpectraTab {
        Data => "Data",
        Analytic => "Analytic",
        Learned => "Learned",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;
    const COMMANDS: &'static [benchtop_kit::cli::CommandEntry] = cli::COMMANDS;

    fn restore(
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &SpectraParams,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            data: data_tab::DataTab::restore(results, sidecar, params)?,
            analytic: analytic_tab::AnalyticTab::restore(results, sidecar, params)?,
            learned: learned_tab::LearnedTab::restore(results, sidecar, params)?,
        })
    }

    fn save(&self, results: &mut SavedResults, sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        self.data.save(results, sidecar)?;
        self.analytic.save(results, sidecar)?;
        self.learned.save(results, sidecar)
    }

    fn tab_ui(&mut self, tab: SpectraTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        match tab {
            SpectraTab::Data => self.data.ui(ui, cx),
            SpectraTab::Analytic => self.analytic.ui(ui, cx),
            SpectraTab::Learned => self.learned.ui(ui, cx),
        }
    }

    fn react(&mut self, cx: &mut Cx<'_, Self>) {
        // The fit takes well under a second, so the figures follow the sliders.
        self.analytic.react(cx);
    }

    fn validate(params: &SpectraParams) -> Vec<ParamIssue> {
        issues_of([
            ("params.analytic", params.analytic.validate()),
            ("params.learned", params.learned.validate()),
        ])
    }

    fn figures(&self, params: &SpectraParams, _view: &SpectraView) -> Vec<PanelFigure> {
        let mut figures = self.data.figures(params);
        figures.extend(self.analytic.figures(params));
        figures.extend(self.learned.figures(params));
        figures
    }

    fn tables(&self, _params: &SpectraParams, _view: &SpectraView) -> Vec<DataTable> {
        let mut tables = self.data.tables();
        tables.extend(self.analytic.tables());
        tables.extend(self.learned.tables());
        tables
    }

    fn summary(&self, params: &SpectraParams) -> serde_json::Value {
        serde_json::json!({
            "data": self.data.summary(),
            "analytic": self.analytic.summary(params),
            "learned": self.learned.summary(params),
        })
    }

    fn sweep_outputs() -> Vec<SweepOutput> {
        sweeps::outputs()
    }

    fn evaluate(
        params: &SpectraParams,
        outputs: &[String],
        seed: u64,
        _cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        sweeps::evaluate(params, outputs, seed, progress, cancel)
    }

    fn sweep_fingerprint(params: &SpectraParams) -> String {
        format!("{:?}", (&params.analytic, &params.learned))
    }

    fn reference(
        params: &SpectraParams,
        param: &str,
        output: &str,
        low: f64,
        high: f64,
    ) -> Option<ReferenceCurve> {
        sweeps::reference(param, output, low, high, params.analytic.lmax)
    }
}
