//! The Ising duality explorer: live Monte Carlo of the Ising model with a plaquette term, and
//! neural discovery of its Kramers–Wannier dual (Gupta, Ferrari, Iqbal, ICML 2025).
//!
//! Two tabs: **Monte Carlo** (a live run on CPU, wgpu or CUDA: the lattice, traces, G(r) and
//! observables against Onsager's solution) and **Duality** (training the dual couplings and
//! the observable map, and the map of approximate duals when K ≠ 0).
//!
//! The panel is a [`PanelModel`]: its parameters are declared once in [`params`], each
//! computation is one task of the kit, and [`Host`] supplies the rest.

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_ising as engine;

pub mod bench;
mod duality_tab;
mod figures;
mod lattice_view;
mod mc_tab;
pub mod params;
pub mod sweeps;

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_ising::duality::DualityParams;
use benchtop_ising::simulation::McParams;
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, issues_of};
use benchtop_kit::project::Sidecar;
use benchtop_kit::sweep::{ReferenceCurve, SweepOutput};
use serde::{Deserialize, Serialize};

pub use duality_tab::ResidualGrid;

/// The Ising duality explorer panel.
pub type IsingPanel = Host<IsingModel>;

/// Everything the project file stores for this panel.
pub type IsingState = DocOf<IsingModel>;

/// Which tab of the panel is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum IsingTab {
    /// Live Monte Carlo.
    #[default]
    MonteCarlo,
    /// Duality discovery.
    Duality,
}

/// The parameters a user edits (the unit of undo).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IsingParams {
    /// Monte Carlo parameters.
    pub mc: McParams,
    /// Seed of the Monte Carlo.
    pub mc_seed: u64,
    /// Duality discovery parameters.
    pub duality: DualityParams,
    /// Seed of the duality training.
    pub duality_seed: u64,
    /// The (β̃, K̃) grid of the approximate-dual map.
    pub residual_grid: ResidualGrid,
}

impl Default for IsingParams {
    fn default() -> Self {
        Self {
            // At β_c (checkerboard Metropolis) 40,000 sweeps are about 180 τ_int of |m| at
            // L = 64 (τ_int ≈ 220 sweeps): agrees with Kaufman's exact torus within its error
            // bars, without notes, in about 2 s on two cores in release. L = 128 needs more
            // than twice the sweeps at four times the cost per sweep (docs/benchmarks.md).
            mc: McParams {
                size: 64,
                thermalization_sweeps: 1000,
                measurement_sweeps: 40_000,
                measure_every: 5,
                ..McParams::default()
            },
            mc_seed: 1,
            duality: DualityParams::default(),
            duality_seed: 1,
            residual_grid: ResidualGrid::default(),
        }
    }
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IsingView {
    /// The tab shown.
    pub tab: IsingTab,
    /// Show temperature T = 1/β instead of β on the coupling slider.
    pub temperature: bool,
    /// Start a run automatically when a parameter changes.
    pub auto_run: bool,
}

impl Default for IsingView {
    fn default() -> Self {
        Self {
            tab: IsingTab::MonteCarlo,
            temperature: false,
            auto_run: true,
        }
    }
}

/// Results kept with the project (arrays go to the sidecar).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The Monte Carlo result without its time series (see `series_file`).
    pub mc: Option<benchtop_kit::panel::SavedValue>,
    /// Sidecar file with the measurement series (columns: bond, plaquette, m).
    pub series_file: Option<String>,
    /// Sidecar file with the last lattice (int8, L×L).
    pub snapshot_file: Option<String>,
    /// The duality result.
    pub duality: Option<benchtop_kit::panel::SavedValue>,
    /// Sidecar file with the training history (one row per step).
    pub history_file: Option<String>,
    /// The approximate-dual map.
    pub residual_map: Option<benchtop_kit::panel::SavedValue>,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum IsingTask for IsingModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// The live Monte Carlo run (run it with the panel's parameters).
    MonteCarlo(monte_carlo = true): mc.task => |m, cx| m.mc.start(cx);
    /// Training the duality map with the panel's parameters.
    Duality(duality = true): duality.train => |m, cx| m.duality.start_training(cx);
    /// Mapping the residual loss over the (β̃, K̃) grid.
    ApproximateDuals(approximate_duals = false): duality.map => |m, cx| m.duality.start_map(cx);
}

/// The Ising panel's tabs and their results.
#[derive(Default)]
pub struct IsingModel {
    mc: mc_tab::McTab,
    duality: duality_tab::DualityTab,
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = (
    benchtop_ising::simulation::ENGINE_NAME,
    benchtop_ising::simulation::ENGINE_VERSION,
);

impl PanelModel for IsingModel {
    type Params = IsingParams;
    type View = IsingView;
    type Results = SavedResults;
    type Tab = IsingTab;

    const KIND: PanelKind = PanelKind {
        id: "ising",
        name: "Ising duality explorer",
        description: "Monte Carlo of the Ising model with a plaquette term on CPU, wgpu or CUDA, \
                      and a neural network that rediscovers the Kramers–Wannier dual.",
        field: Field::StatisticalPhysics,
        paper: Paper {
            title: "A Machine Learning Approach to Duality in Statistical Physics",
            authors: "Prateek Gupta, Andrea E. V. Ferrari, Nabil Iqbal",
            venue: "ICML 2025",
            link: "https://openreview.net/forum?id=bWeLpOgqGp",
        },
    };

    benchtop_kit::tabs!(IsingTab {
        MonteCarlo => "Monte Carlo",
        Duality => "Duality",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;

    fn restore(
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &IsingParams,
    ) -> anyhow::Result<Self> {
        Ok(Self {
            mc: mc_tab::McTab::restore(results, sidecar, params)?,
            duality: duality_tab::DualityTab::restore(results, sidecar, params)?,
        })
    }

    fn save(&self, results: &mut SavedResults, sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        self.mc.save(results, sidecar)?;
        self.duality.save(results, sidecar)
    }

    fn tab_ui(&mut self, tab: IsingTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        match tab {
            IsingTab::MonteCarlo => self.mc.ui(ui, cx),
            IsingTab::Duality => self.duality.ui(ui, cx),
        }
    }

    fn react(&mut self, cx: &mut Cx<'_, Self>) {
        self.mc.react(cx);
        self.duality.react(cx);
    }

    fn poll(&mut self, _params: &mut IsingParams) {
        // The Monte Carlo tab keeps its last lattice across restarts.
        self.mc.poll();
        self.duality.train.poll_result();
        self.duality.map.poll_result();
    }

    fn validate(params: &IsingParams) -> Vec<ParamIssue> {
        issues_of([
            ("params.mc", params.mc.validate()),
            ("params.duality", params.duality.validate()),
            ("params.residual_grid", params.residual_grid.validate()),
        ])
    }

    fn figures(&self, params: &IsingParams, _view: &IsingView) -> Vec<PanelFigure> {
        let mut figures = self.mc.figures(params);
        figures.extend(self.duality.figures(params));
        figures
    }

    fn tables(&self, _params: &IsingParams, _view: &IsingView) -> Vec<DataTable> {
        let mut tables = self.mc.tables();
        tables.extend(self.duality.tables());
        tables
    }

    fn summary(&self, params: &IsingParams) -> serde_json::Value {
        serde_json::json!({
            "monte_carlo": self.mc.summary(params),
            "duality": self.duality.summary(params),
        })
    }

    fn sweep_outputs() -> Vec<SweepOutput> {
        sweeps::outputs()
    }

    fn evaluate(
        params: &IsingParams,
        outputs: &[String],
        seed: u64,
        _cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        sweeps::evaluate(params, outputs, seed, progress, cancel)
    }

    fn sweep_fingerprint(params: &IsingParams) -> String {
        sweeps::fingerprint(params)
    }

    fn reference(
        params: &IsingParams,
        param: &str,
        output: &str,
        low: f64,
        high: f64,
    ) -> Option<ReferenceCurve> {
        sweeps::reference(param, output, low, high, params.mc.plaquette)
    }
}
