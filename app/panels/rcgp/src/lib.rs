//! Robust spatio-temporal GP: STGP (Kalman filter + RTS smoother) against ST-RCGP (the robust
//! conjugate update with IMQ weights) on data with outliers (Laplante et al., ICML 2025).
//!
//! One task fits and runs both methods on the chosen data (the Figure-1 field, a vendored real
//! series or the user's CSV) with injected outliers; a second sweeps the outlier rate. Tabs show
//! the posteriors over time with the outliers and weights, maps of the field at a time, and the
//! sweep. The engine is `benchtop-rcgp`.

/// The panel's engine, for tests and tools that drive it directly.
pub use benchtop_rcgp as engine;

pub mod bench;
mod figures;
mod params;
mod saved;

use std::collections::BTreeMap;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::file_dialog::{Filter, Kind, Request};
use benchtop_kit::host::{Cx, DocOf, Host, PanelModel, SweepCx};
use benchtop_kit::panel::{DataTable, Field, PanelFigure, PanelKind, Paper, ParamIssue, Recipe};
use benchtop_kit::project::Sidecar;
use benchtop_kit::sweep::SweepOutput;
use benchtop_kit::task::Task;
use benchtop_kit::widgets::controls_and_view;
use benchtop_rcgp::data::{STOCK_SYMBOLS, WEATHER_COLUMNS};
use benchtop_rcgp::{
    RcgpParams, RobustFit, RunResult, Source, SpatialKernel, SweepPoint, TemporalKernel,
};
use serde::{Deserialize, Serialize};

pub use figures::regular_grid;

/// The panel.
pub type RcgpPanel = Host<RcgpModel>;

/// Everything the project file stores for this panel.
pub type RcgpState = DocOf<RcgpModel>;

/// The outlier-rate sweep's settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SweepSpec {
    /// Largest rate (the sweep starts at 0).
    pub max_rate: f64,
    /// Number of rates.
    pub points: usize,
}

impl Default for SweepSpec {
    fn default() -> Self {
        Self {
            max_rate: 0.2,
            points: 6,
        }
    }
}

impl SweepSpec {
    /// The rates, evenly spaced from 0 to `max_rate`.
    pub fn rates(&self) -> Vec<f64> {
        let n = self.points.max(2);
        (0..n)
            .map(|k| self.max_rate * k as f64 / (n - 1) as f64)
            .collect()
    }
}

/// The parameters a user edits (the unit of undo and of sweeps).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RcgpPanelParams {
    /// The engine's experiment.
    pub run: RcgpParams,
    /// The outlier-rate sweep.
    pub sweep: SweepSpec,
}

/// The tabs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RcgpTab {
    /// Both posteriors over time, with outliers and weights.
    #[default]
    Fit,
    /// Maps of the field at one time.
    Maps,
    /// RMSE over the outlier rate.
    Sweep,
}

/// View settings that are saved but are not parameters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RcgpView {
    /// The tab shown.
    pub tab: RcgpTab,
    /// The location whose series is shown.
    pub location: usize,
    /// The time index of the maps.
    pub time: usize,
}

/// Results kept with the project: the run's description inline and its per-observation arrays
/// in the sidecar (everything inline when there is no sidecar), the sweep inline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedResults {
    /// The sidecar array holding the run's per-observation values (see `saved`).
    pub run_file: Option<String>,
    /// The run; without its per-observation arrays when `run_file` holds them.
    pub run: Option<RunResult>,
    /// The sweep.
    pub sweep: Option<Vec<SweepPoint>>,
}

benchtop_kit::panel_tasks! {
    /// The panel's computations.
    pub enum RcgpTask for RcgpModel;
    /// What `benchtop run` computes for this panel.
    pub struct HeadlessTasks;
    /// Fit and run both methods.
    Run(run = true): run => |m, cx| m.start_run(cx);
    /// The outlier-rate sweep.
    Sweep(sweep = false): sweep => |m, cx| m.start_sweep(cx);
}

/// What the sweep depends on.
type SweepKey = (RcgpParams, SweepSpec);

/// The panel's tasks and figure views.
pub struct RcgpModel {
    run: Task<RcgpParams, (), RunResult>,
    sweep: Task<SweepKey, (), Vec<SweepPoint>>,
    series_plot: FigureViewState,
    maps_plot: FigureViewState,
    sweep_plot: FigureViewState,
}

impl Default for RcgpModel {
    fn default() -> Self {
        Self {
            run: Task::new("rcgp: fit STGP and ST-RCGP"),
            sweep: Task::new("rcgp: outlier-rate sweep"),
            series_plot: FigureViewState::default(),
            maps_plot: FigureViewState::default(),
            sweep_plot: FigureViewState::default(),
        }
    }
}

/// The engine name and version recorded in figure provenance.
const ENGINE: (&str, &str) = ("benchtop-rcgp", env!("CARGO_PKG_VERSION"));

/// Sidecar array of the run's per-observation values.
const RUN_FILE: &str = "rcgp-run";

fn sweep_key(params: &RcgpPanelParams) -> SweepKey {
    (params.run.clone(), params.sweep)
}

impl RcgpModel {
    fn start_run(&mut self, cx: &mut Cx<'_, Self>) {
        self.run.start_from(
            &cx.runner,
            cx.params.run.clone(),
            cx.project_dir,
            |params, dir, job| benchtop_rcgp::run(params, dir, &job.progress, &job.cancel),
        );
    }

    fn start_sweep(&mut self, cx: &mut Cx<'_, Self>) {
        let rates = cx.params.sweep.rates();
        self.sweep.start_from(
            &cx.runner,
            sweep_key(cx.params),
            cx.project_dir,
            move |(params, _), dir, job| {
                benchtop_rcgp::sweep_outlier_rate(params, &rates, dir, &job.progress, &job.cancel)
            },
        );
    }

    /// The data and model settings shared by every tab.
    fn settings_ui(ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        ui.heading("Data");
        let run = &mut cx.params.run;
        egui::ComboBox::from_label("Data source")
            .selected_text(run.data.source.label())
            .show_ui(ui, |ui| {
                for source in Source::ALL {
                    ui.selectable_value(&mut run.data.source, source, source.label());
                }
            });
        match run.data.source {
            Source::Figure1 => cx.params(ui, &["data.grid", "data.n_times", "data.noise_sd"]),
            Source::Stocks => {
                egui::ComboBox::from_label("Ticker")
                    .selected_text(run.data.symbol.clone())
                    .show_ui(ui, |ui| {
                        for s in STOCK_SYMBOLS {
                            ui.selectable_value(&mut run.data.symbol, s.to_owned(), s);
                        }
                    });
            }
            Source::SeattleWeather => {
                egui::ComboBox::from_label("Weather column")
                    .selected_text(run.data.weather_column.clone())
                    .show_ui(ui, |ui| {
                        for c in WEATHER_COLUMNS {
                            ui.selectable_value(&mut run.data.weather_column, c.to_owned(), c);
                        }
                    });
            }
            Source::Csv => {
                ui.horizontal(|ui| {
                    ui.label("CSV file");
                    ui.text_edit_singleline(&mut run.data.csv_path)
                        .on_hover_text("time,value… (wide) or time,x,y,value (long); relative to the project's folder");
                });
                let request = ui.button("Choose CSV…").clicked().then(|| {
                    Request::new(Kind::Open, "Choose a CSV file")
                        .filter(Filter::new("CSV", &["csv"]))
                });
                let id = ui.scope_id().with("rcgp csv");
                if let Some(path) = benchtop_kit::file_dialog::pick(ui.ctx(), id, request) {
                    cx.params.run.data.csv_path = path.display().to_string();
                }
                cx.params(ui, &["data.csv_column"]);
            }
        }
        cx.params(ui, &["data.outlier_rate", "data.outlier_size", "seed"]);
        ui.separator();
        ui.heading("Kernel");
        let run = &mut cx.params.run;
        egui::ComboBox::from_label("Temporal kernel")
            .selected_text(run.kernel.temporal.label())
            .show_ui(ui, |ui| {
                for k in TemporalKernel::ALL {
                    ui.selectable_value(&mut run.kernel.temporal, k, k.label());
                }
            });
        egui::ComboBox::from_label("Spatial kernel")
            .selected_text(run.kernel.spatial.label())
            .show_ui(ui, |ui| {
                for k in SpatialKernel::ALL {
                    ui.selectable_value(&mut run.kernel.spatial, k, k.label());
                }
            });
        ui.checkbox(&mut run.fit, "Fit hyperparameters")
            .on_hover_text(
                "L-BFGS on the log hyperparameters from the values below and from \
                            \"Fit starts\" − 1 further starts spread over decades (the best \
                            is kept, the same budget for both methods): STGP on its marginal \
                            likelihood, ST-RCGP as chosen below.",
            );
        if run.fit {
            egui::ComboBox::from_label("ST-RCGP fit")
                .selected_text(run.robust_fit.label())
                .show_ui(ui, |ui| {
                    for f in RobustFit::ALL {
                        ui.selectable_value(&mut run.robust_fit, f, f.label());
                    }
                });
        }
        cx.params(
            ui,
            &[
                "hyper.time_length",
                "hyper.space_length",
                "hyper.variance",
                "hyper.noise",
                "fit_iterations",
                "fit_starts",
            ],
        );
        ui.separator();
        ui.heading("Robust update (IMQ weight)");
        let robust = &mut cx.params.run.robust;
        ui.checkbox(&mut robust.adaptive_centre, "Adaptive centre (one-step prediction)")
            .on_hover_text("Centre the weight on the predictive mean f̂ instead of the prior mean (the data's median).");
        ui.checkbox(&mut robust.adaptive_scale, "Adaptive scale c")
            .on_hover_text(
                "c = √(factor·(s² + σ²)) from the predictive variance, instead of the fixed c.",
            );
        if cx.params.run.robust.adaptive_scale {
            cx.params(ui, &["robust.c_factor", "robust.beta_scale"]);
        } else {
            cx.params(ui, &["robust.c", "robust.beta_scale"]);
        }
    }

    fn metrics_ui(ui: &mut egui::Ui, result: &RunResult) {
        ui.small(format!(
            "Scores against the {}.",
            figures::reference_name(&result.data)
        ));
        egui::Grid::new("rcgp metrics")
            .striped(true)
            .show(ui, |ui| {
                ui.strong("method");
                ui.strong("RMSE");
                ui.strong("NLPD");
                ui.strong("seconds");
                ui.end_row();
                for m in [&result.stgp, &result.rcgp] {
                    ui.label(m.name.as_str());
                    ui.label(format!("{:.4}", m.rmse));
                    ui.label(format!("{:.3}", m.nlpd));
                    ui.label(format!("{:.2}", m.seconds));
                    ui.end_row();
                }
                if let Some(r) = result.references {
                    ui.label("raw observations (no model)");
                    ui.label(format!("{:.4}", r.observations_rmse));
                    ui.label("–");
                    ui.label("–");
                    ui.end_row();
                    ui.label("per-location mean");
                    ui.label(format!("{:.4}", r.location_mean_rmse));
                    ui.label(format!("{:.3}", r.location_mean_nlpd));
                    ui.label("–");
                    ui.end_row();
                }
            });
        ui.label(egui::RichText::new(result.verdict()).strong());
        for m in [&result.stgp, &result.rcgp] {
            if let Some(f) = m.fit {
                ui.small(fit_line(&m.name, &f));
            }
        }
        for m in [&result.stgp, &result.rcgp] {
            let h = m.hyper;
            ui.small(format!(
                "{}: ℓ_t {:.3}, ℓ_s {:.3}, v {:.3}, σ² {:.4}{}",
                m.name,
                h.time_length,
                h.space_length,
                h.variance,
                h.noise,
                if m.fit.is_some() { " (fitted)" } else { "" }
            ));
        }
    }

    fn fit_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        controls_and_view(
            ui,
            "rcgp controls",
            320.0,
            &mut (self, cx),
            |(model, cx), ui| {
                if model
                    .run
                    .controls(ui, &cx.params.run.clone(), "Fit both", "Stop")
                {
                    model.start_run(cx);
                }
                if let Some(result) = model.run.result() {
                    Self::metrics_ui(ui, result);
                    let ns = result.data.n_space();
                    if ns > 1 {
                        ui.add(
                            egui::Slider::new(&mut cx.view.location, 0..=ns - 1)
                                .text("Location shown"),
                        );
                    }
                }
                ui.separator();
                egui::ScrollArea::vertical().show(ui, |ui| Self::settings_ui(ui, cx));
            },
            |(model, cx), ui| match model.run.result() {
                Some(result) => show_figure(
                    ui,
                    &figures::series(result, cx.view.location),
                    &mut model.series_plot,
                ),
                None => {
                    ui.label("Fit both to see STGP and ST-RCGP side by side.");
                }
            },
        );
    }

    fn maps_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        let Some(result) = self.run.result() else {
            ui.label("Fit both (first tab) to see the maps.");
            return;
        };
        let n_t = result.data.n_times();
        ui.add(egui::Slider::new(&mut cx.view.time, 0..=n_t.saturating_sub(1)).text("Time index"));
        match figures::maps(result, cx.view.time) {
            Some(figure) => show_figure(ui, &figure, &mut self.maps_plot),
            None => {
                ui.label("Maps need a regular spatial grid (the Figure-1 field, or a long CSV on a full grid).");
            }
        }
    }

    fn sweep_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        controls_and_view(
            ui,
            "rcgp sweep controls",
            300.0,
            &mut (self, cx),
            |(model, cx), ui| {
                cx.params(ui, &["sweep.max_rate", "sweep.points"]);
                ui.small("Each rate runs the whole experiment (data, fits, both methods) with the same seed.");
                if model.sweep.controls(
                    ui,
                    &sweep_key(cx.params),
                    "Sweep outlier rate",
                    "Stop sweep",
                ) {
                    model.start_sweep(cx);
                }
                if let Some(points) = model.sweep.result() {
                    egui::Grid::new("rcgp sweep table")
                        .striped(true)
                        .show(ui, |ui| {
                            ui.strong("rate");
                            ui.strong("STGP");
                            ui.strong("ST-RCGP");
                            ui.strong("location mean");
                            ui.end_row();
                            for p in points {
                                ui.label(format!("{:.3}", p.rate));
                                ui.label(format!("{:.4}", p.stgp_rmse));
                                ui.label(format!("{:.4}", p.rcgp_rmse));
                                ui.label(
                                    p.location_mean_rmse
                                        .map_or_else(|| "–".to_owned(), |v| format!("{v:.4}")),
                                );
                                ui.end_row();
                            }
                        });
                }
            },
            |(model, _), ui| match model.sweep.result() {
                Some(points) => show_figure(ui, &figures::sweep(points), &mut model.sweep_plot),
                None => {
                    ui.label("Sweep the outlier rate to compare the methods' RMSE.");
                }
            },
        );
    }
}

/// One method's fit in words: the log likelihood of the best start and of the user's start.
fn fit_line(name: &str, f: &benchtop_rcgp::fit::FitReport) -> String {
    if f.starts <= 1 {
        return format!("{name} fit: log likelihood {:.1} (one start)", f.objective);
    }
    format!(
        "{name} fit: log likelihood {:.1}, best of {} starts (start {}); from your start alone \
         {:.1}{}",
        f.objective,
        f.starts,
        f.best_start + 1,
        f.single_start_objective,
        if f.single_start_at_bound {
            ", stopped at a bound"
        } else {
            ""
        }
    )
}

/// A number for JSON: non-finite values become null.
fn number(v: f64) -> serde_json::Value {
    serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

/// The methods' scores and the fitted hyperparameters, the panel's `summary`.
fn summary(result: &RunResult) -> serde_json::Value {
    let method = |m: &benchtop_rcgp::MethodResult| {
        let fit = m.fit.map_or(serde_json::Value::Null, |f| {
            serde_json::json!({
                "log_likelihood": number(f.objective),
                "log_likelihood_single_start": number(f.single_start_objective),
                "single_start_at_bound": f.single_start_at_bound,
                "starts": f.starts,
                "best_start": f.best_start,
            })
        });
        serde_json::json!({"rmse": m.rmse, "nlpd": m.nlpd, "seconds": m.seconds, "fit": fit})
    };
    let references = result.references.map_or(serde_json::Value::Null, |r| {
        serde_json::json!({
            "observations": {"rmse": number(r.observations_rmse)},
            "location_mean": {"rmse": number(r.location_mean_rmse), "nlpd": number(r.location_mean_nlpd)},
        })
    });
    let hyper = |m: &benchtop_rcgp::MethodResult| {
        serde_json::json!({
            "time_length": m.hyper.time_length,
            "space_length": m.hyper.space_length,
            "variance": m.hyper.variance,
            "noise": m.hyper.noise,
            "fitted": m.fit.is_some(),
        })
    };
    let rate = result.data.outlier.iter().filter(|o| **o).count() as f64
        / result.data.outlier.len().max(1) as f64;
    serde_json::json!({
        "methods": {"STGP": method(&result.stgp), "ST-RCGP": method(&result.rcgp)},
        "outlier_rate": rate,
        "n_times": result.data.n_times(),
        "n_space": result.data.n_space(),
        "hyperparameters": {"STGP": hyper(&result.stgp), "ST-RCGP": hyper(&result.rcgp)},
        "scored_against": result.data.scored_against(),
        "references": references,
        "rmse_ratio": number(result.rmse_ratio()),
        "verdict": result.verdict(),
    })
}

impl PanelModel for RcgpModel {
    type Params = RcgpPanelParams;
    type View = RcgpView;
    type Results = SavedResults;
    type Tab = RcgpTab;

    const KIND: PanelKind = PanelKind {
        id: "rcgp",
        name: "Robust spatio-temporal GP",
        description: "Kalman-filter spatio-temporal GPs against their robust conjugate version (ST-RCGP): fits that shrug off outliers, at the same linear-in-time cost.",
        field: Field::MachineLearning,
        paper: Paper {
            title: "Robust and Conjugate Spatio-Temporal Gaussian Processes",
            authors: "Laplante, Altamirano, Duncan, Knoblauch, Briol",
            venue: "ICML 2025",
            link: "https://proceedings.mlr.press/v267/",
        },
    };

    benchtop_kit::tabs!(RcgpTab {
        Fit => "Fits over time",
        Maps => "Maps",
        Sweep => "Outlier sweep",
    });

    const BENCHES: &'static [benchtop_kit::cli::BenchEntry] = bench::BENCHES;

    fn restore(
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &RcgpPanelParams,
    ) -> anyhow::Result<Self> {
        let mut model = Self::default();
        let run = match (&results.run, &results.run_file, sidecar) {
            (Some(run), Some(file), Some(sidecar)) => {
                Some(saved::with_arrays(run, &sidecar.dir().join(file))?)
            }
            (run, _, _) => run.clone(),
        };
        if let Some(run) = run {
            model.run.set_result(params.run.clone(), run);
        }
        if let Some(points) = &results.sweep {
            model.sweep.set_result(sweep_key(params), points.clone());
        }
        Ok(model)
    }

    fn save(&self, results: &mut SavedResults, sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        results.run_file = None;
        results.run = None;
        if let Some(run) = self.run.result() {
            match sidecar {
                Some(sidecar) => {
                    let (meta, shape, arrays) = saved::split_arrays(run);
                    results.run_file = Some(sidecar.write_f64(RUN_FILE, &shape, &arrays)?);
                    results.run = Some(meta);
                }
                None => results.run = Some(run.clone()),
            }
        }
        results.sweep = self.sweep.result().cloned();
        Ok(())
    }

    fn tab_ui(&mut self, tab: RcgpTab, ui: &mut egui::Ui, cx: &mut Cx<'_, Self>) {
        match tab {
            RcgpTab::Fit => self.fit_ui(ui, cx),
            RcgpTab::Maps => self.maps_ui(ui, cx),
            RcgpTab::Sweep => self.sweep_ui(ui, cx),
        }
    }

    fn validate(params: &RcgpPanelParams) -> Vec<ParamIssue> {
        let mut issues = Vec::new();
        if params.run.data.source == Source::Csv && params.run.data.csv_path.trim().is_empty() {
            issues.push(ParamIssue {
                key: "data.csv_path".to_owned(),
                message: "choose a CSV file".to_owned(),
            });
        }
        issues
    }

    fn figures(&self, params: &RcgpPanelParams, view: &RcgpView) -> Vec<PanelFigure> {
        let recipe = Recipe::new(ENGINE, params, Some(params.run.seed));
        let mut out = Vec::new();
        if let Some(result) = self.run.result() {
            out.push(recipe.figure("rcgp-series", figures::series(result, view.location)));
            if let Some(maps) = figures::maps(result, view.time) {
                out.push(recipe.figure("rcgp-maps", maps));
            }
        }
        if let Some(points) = self.sweep.result() {
            out.push(recipe.figure("rcgp-sweep", figures::sweep(points)));
        }
        out
    }

    fn tables(&self, _params: &RcgpPanelParams, _view: &RcgpView) -> Vec<DataTable> {
        let mut out = Vec::new();
        if let Some(r) = self.run.result() {
            let ns = r.data.n_space();
            let rows = (0..r.data.y.len())
                .map(|k| {
                    let s = r.data.locations[k % ns];
                    vec![
                        r.data.times[k / ns],
                        s[0],
                        s[1],
                        r.data.y[k],
                        if r.data.outlier[k] { 1.0 } else { 0.0 },
                        r.data.clean[k],
                        r.stgp.mean[k],
                        r.stgp.var[k],
                        r.rcgp.mean[k],
                        r.rcgp.var[k],
                        r.rcgp.weight[k],
                    ]
                })
                .collect();
            out.push(DataTable::new(
                "rcgp-posteriors",
                &[
                    "time",
                    "x",
                    "y",
                    "observed",
                    "outlier",
                    "clean",
                    "stgp_mean",
                    "stgp_var",
                    "rcgp_mean",
                    "rcgp_var",
                    "rcgp_weight",
                ],
                rows,
            ));
        }
        if let Some(points) = self.sweep.result() {
            let rows = points
                .iter()
                .map(|p| {
                    vec![
                        p.rate,
                        p.stgp_rmse,
                        p.rcgp_rmse,
                        p.observations_rmse.unwrap_or(f64::NAN),
                        p.location_mean_rmse.unwrap_or(f64::NAN),
                    ]
                })
                .collect();
            out.push(DataTable::new(
                "rcgp-sweep",
                &[
                    "outlier_rate",
                    "stgp_rmse",
                    "rcgp_rmse",
                    "observations_rmse",
                    "location_mean_rmse",
                ],
                rows,
            ));
        }
        out
    }

    fn summary(&self, _params: &RcgpPanelParams) -> serde_json::Value {
        self.run.result().map_or(serde_json::Value::Null, summary)
    }

    fn sweep_outputs() -> Vec<SweepOutput> {
        vec![
            SweepOutput::new("stgp_rmse", "STGP RMSE"),
            SweepOutput::new("rcgp_rmse", "ST-RCGP RMSE"),
            SweepOutput::new("stgp_nlpd", "STGP NLPD"),
            SweepOutput::new("rcgp_nlpd", "ST-RCGP NLPD"),
            SweepOutput::new("observations_rmse", "Raw observations RMSE"),
            SweepOutput::new("location_mean_rmse", "Per-location mean RMSE"),
        ]
    }

    fn evaluate(
        params: &RcgpPanelParams,
        _outputs: &[String],
        seed: u64,
        cx: &SweepCx<'_>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        let mut run = params.run.clone();
        run.seed = seed;
        let r = benchtop_rcgp::run(&run, cx.project_dir, progress, cancel)?;
        Ok(BTreeMap::from([
            ("stgp_rmse".to_owned(), r.stgp.rmse),
            ("rcgp_rmse".to_owned(), r.rcgp.rmse),
            ("stgp_nlpd".to_owned(), r.stgp.nlpd),
            ("rcgp_nlpd".to_owned(), r.rcgp.nlpd),
            (
                "observations_rmse".to_owned(),
                r.references.map_or(f64::NAN, |x| x.observations_rmse),
            ),
            (
                "location_mean_rmse".to_owned(),
                r.references.map_or(f64::NAN, |x| x.location_mean_rmse),
            ),
        ]))
    }
}
