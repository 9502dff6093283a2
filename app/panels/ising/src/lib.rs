//! The Ising duality explorer: live Monte Carlo of the Ising model with a plaquette term, and
//! neural discovery of its Kramers–Wannier dual (Gupta, Ferrari, Iqbal, ICML 2025).

mod duality_tab;
mod figures;
mod lattice_view;
mod mc_tab;
mod sweeps;

use benchtop_compute::{CancelToken, Progress};
use benchtop_ising::duality::DualityParams;
use benchtop_ising::simulation::McParams;
use serde::{Deserialize, Serialize};

use benchtop_kit::panel::{
    DataTable, Field, Panel, PanelContext, PanelFigure, PanelKind, Paper, ParamIssue,
};
use benchtop_kit::project::Sidecar;
use benchtop_kit::sweep::SweepSupport;
use benchtop_kit::undo::UndoHistory;

pub use duality_tab::ResidualGrid;

/// The catalog entry.
pub const KIND: PanelKind = PanelKind {
    id: "ising",
    name: "Ising duality explorer",
    description: "Monte Carlo of the Ising model with a plaquette term on CPU, wgpu or CUDA, and a \
                  neural network that rediscovers the Kramers–Wannier dual.",
    field: Field::StatisticalPhysics,
    paper: Paper {
        title: "A Machine Learning Approach to Duality in Statistical Physics",
        authors: "Prateek Gupta, Andrea E. V. Ferrari, Nabil Iqbal",
        venue: "ICML 2025",
        link: "https://openreview.net/forum?id=bWeLpOgqGp",
    },
    create: create_panel,
};

fn create_panel() -> Box<dyn Panel> {
    Box::new(IsingPanel::new(IsingState::default()))
}

/// Which tab of the panel is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum IsingTab {
    /// Live Monte Carlo.
    #[default]
    MonteCarlo,
    /// Duality discovery.
    Duality,
}

/// What `benchtop run` computes for this panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct HeadlessTasks {
    /// Run the Monte Carlo with the panel's parameters.
    pub monte_carlo: bool,
    /// Train the duality map with the panel's parameters.
    pub duality: bool,
    /// Map the residual loss over the (β̃, K̃) grid.
    pub approximate_duals: bool,
}

impl Default for HeadlessTasks {
    fn default() -> Self {
        Self {
            monte_carlo: true,
            duality: true,
            approximate_duals: false,
        }
    }
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
            mc: McParams {
                size: 256,
                measurement_sweeps: 3000,
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
    pub mc: Option<serde_json::Value>,
    /// Sidecar file with the measurement series (columns: bond, plaquette, m).
    pub series_file: Option<String>,
    /// Sidecar file with the last lattice (int8, L×L).
    pub snapshot_file: Option<String>,
    /// The duality result.
    pub duality: Option<serde_json::Value>,
    /// Sidecar file with the training history (one row per step).
    pub history_file: Option<String>,
    /// The approximate-dual map.
    pub residual_map: Option<serde_json::Value>,
}

/// Everything the project file stores for this panel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct IsingState {
    /// Parameters and seeds.
    pub params: IsingParams,
    /// View settings.
    pub view: IsingView,
    /// What a headless run computes.
    pub headless: HeadlessTasks,
    /// Results.
    pub results: SavedResults,
}

/// The panel.
pub struct IsingPanel {
    params: IsingParams,
    view: IsingView,
    headless: HeadlessTasks,
    history: UndoHistory<IsingParams>,
    mc: mc_tab::McTab,
    duality: duality_tab::DualityTab,
    /// A problem to show at the top of the panel until dismissed.
    warning: Option<String>,
}

impl IsingPanel {
    /// A panel showing `state` (no results).
    pub fn new(state: IsingState) -> Self {
        Self {
            history: UndoHistory::new(state.params.clone()),
            params: state.params,
            view: state.view,
            headless: state.headless,
            mc: mc_tab::McTab::default(),
            duality: duality_tab::DualityTab::default(),
            warning: None,
        }
    }

    /// Rebuilds the panel with its saved results (arrays from `sidecar`).
    ///
    /// Parameters always come back. Results whose arrays cannot be read (a sidecar folder that
    /// was not copied with the project) are dropped with a warning shown in the panel; they can
    /// be recomputed from the parameters and seeds.
    pub fn restore(state: IsingState, sidecar: Option<&Sidecar>) -> anyhow::Result<Self> {
        let results = state.results.clone();
        let mut panel = Self::new(state);
        let restored = panel
            .mc
            .restore(&results, sidecar)
            .and_then(|()| panel.duality.restore(&results, sidecar));
        if let Err(error) = restored {
            panel.mc = mc_tab::McTab::default();
            panel.duality = duality_tab::DualityTab::default();
            panel.warning = Some(format!(
                "saved results were not restored ({error:#}); run again to recompute them"
            ));
        }
        // A restored result was computed with the saved parameters.
        panel.mc.mark_current(&panel.params);
        panel.duality.mark_current(&panel.params);
        Ok(panel)
    }

    fn apply_params(&mut self, params: IsingParams) {
        self.params = params;
    }
}

impl Panel for IsingPanel {
    fn kind(&self) -> &'static PanelKind {
        &KIND
    }

    fn ui(&mut self, ui: &mut egui::Ui, context: &mut PanelContext<'_>) {
        benchtop_kit::widgets::dismissible_warning(ui, &mut self.warning);
        ui.horizontal(|ui| {
            ui.selectable_value(&mut self.view.tab, IsingTab::MonteCarlo, "Monte Carlo");
            ui.selectable_value(&mut self.view.tab, IsingTab::Duality, "Duality");
        });
        ui.separator();
        match self.view.tab {
            IsingTab::MonteCarlo => self.mc.ui(ui, &mut self.params, &mut self.view, context),
            IsingTab::Duality => self.duality.ui(ui, &mut self.params, &self.view, context),
        }
        let interacting = ui.input(|input| input.pointer.any_down());
        self.history.observe(&self.params, interacting);
        if !interacting {
            self.mc
                .react_to_params(&self.params, &self.view, context, ui.ctx());
            self.duality
                .react_to_params(&self.params, context, ui.ctx());
        }
    }

    fn poll(&mut self) {
        self.mc.poll();
        self.duality.poll();
    }

    fn is_busy(&self) -> bool {
        self.mc.is_busy() || self.duality.is_busy()
    }

    fn save(&self, sidecar: Option<&Sidecar>) -> anyhow::Result<Box<dyn std::any::Any>> {
        let mut results = SavedResults::default();
        self.mc.save(&mut results, sidecar)?;
        self.duality.save(&mut results, sidecar)?;
        Ok(Box::new(IsingState {
            params: self.params.clone(),
            view: self.view.clone(),
            headless: self.headless,
            results,
        }))
    }

    fn validate(&self) -> Vec<ParamIssue> {
        [
            ParamIssue::from_result("params.mc", self.params.mc.validate()),
            ParamIssue::from_result("params.duality", self.params.duality.validate()),
            ParamIssue::from_result("params.residual_grid", self.params.residual_grid.validate()),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    fn figures(&self) -> Vec<PanelFigure> {
        let mut figures = self.mc.figures(&self.params);
        figures.extend(self.duality.figures(&self.params));
        figures
    }

    fn data_tables(&self) -> Vec<DataTable> {
        let mut tables = self.mc.tables();
        tables.extend(self.duality.tables());
        tables
    }

    fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "monte_carlo": self.mc.summary(&self.params),
            "duality": self.duality.summary(&self.params),
        })
    }

    fn sweep_support(&self) -> SweepSupport {
        sweeps::support(&self.params)
    }

    fn run_headless(&mut self, progress: &Progress, cancel: &CancelToken) -> anyhow::Result<()> {
        let tasks = [
            self.headless.monte_carlo,
            self.headless.duality,
            self.headless.approximate_duals,
        ];
        #[allow(clippy::cast_precision_loss)]
        let total = tasks.iter().filter(|&&t| t).count().max(1) as f64;
        let mut done = 0.0;
        let slice = |done: f64| progress.slice(done / total, (done + 1.0) / total);
        if self.headless.monte_carlo {
            self.mc.run_blocking(&self.params, &slice(done), cancel)?;
            done += 1.0;
        }
        if self.headless.duality {
            self.duality
                .train_blocking(&self.params, &slice(done), cancel)?;
            done += 1.0;
        }
        if self.headless.approximate_duals {
            self.duality
                .map_blocking(&self.params, &slice(done), cancel)?;
        }
        progress.set(1.0, "done");
        Ok(())
    }

    fn undo(&mut self) -> bool {
        match self.history.undo() {
            Some(params) => {
                self.apply_params(params);
                true
            }
            None => false,
        }
    }

    fn redo(&mut self) -> bool {
        match self.history.redo() {
            Some(params) => {
                self.apply_params(params);
                true
            }
            None => false,
        }
    }
}

impl benchtop_kit::panel::PanelType for IsingPanel {
    type State = IsingState;
    const KIND: PanelKind = KIND;

    fn restore(state: IsingState, sidecar: Option<&Sidecar>) -> anyhow::Result<Self> {
        Self::restore(state, sidecar)
    }
}
