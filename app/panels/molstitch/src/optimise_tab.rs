//! The optimisation tab: MolStitch (prior, trajectory-balance fine-tuning, rank proxies,
//! priority sampling and stitching, IPO) against its two baselines on the same oracle budget,
//! with live curves, the Pareto scatter of generated vs offline molecules, hypervolume against
//! the budget, the metrics table and molecule export; over several seeds (`optimise.seeds`),
//! each method's metrics with their spread, MolStitch paired with each reference (wins, exact
//! sign test, mean difference) and the verdict of the paper's claims.

use benchtop_kit::file_dialog::{Filter, Kind, Request};
use std::path::Path;
use std::sync::Arc;

use benchtop_kit::figure::{
    ErrorBars, Figure, FigureViewState, Line, Rgba, Scatter, Subplot, show_figure,
};
use benchtop_kit::host::Cx;
use benchtop_kit::panel::DataTable;
use benchtop_kit::task::{Live, Task};
use benchtop_kit::widgets::job_progress;
use benchtop_molstitch::metrics::pareto_front;
use benchtop_molstitch::optimise::seeds::{SeedStudy, Verdict};
use benchtop_molstitch::optimise::{
    self, MethodMetrics, OptimiseConfig, OptimiseEvent, OptimiseResult,
};

use super::library::MoleculeSet;
use super::molecule_export::{ExportRow, grid_figure, to_csv, to_sdf};
use super::objectives_ui::objective_name;
use super::{DataParams, MolStitchModel, MolStitchParams, MolStitchView};

/// The method whose improvement the tab reports.
pub const MOLSTITCH: &str = "MolStitch";

/// Curves streamed while a run works.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct LiveCurves {
    /// The current stage.
    pub stage: String,
    /// Prior NLL per epoch (nats).
    pub prior_nll: Vec<f64>,
    /// Trajectory-balance loss per epoch.
    pub tb_loss: Vec<f64>,
    /// StitchNet pretraining NLL per epoch (nats).
    pub stitchnet_nll: Vec<f64>,
    /// Proxy held-out pair accuracy per round.
    pub proxy_accuracy: Vec<f64>,
    /// IPO loss per stitch round.
    pub ipo_loss: Vec<f64>,
    /// Valid fraction of stitch attempts per round.
    pub valid_fraction: Vec<f64>,
    /// Notes such as "prior loaded from the cache".
    pub notes: Vec<String>,
}

impl Live for LiveCurves {
    type Update = OptimiseEvent;

    fn apply(&mut self, event: OptimiseEvent) {
        self.record(&event);
    }
}

impl LiveCurves {
    fn record(&mut self, event: &OptimiseEvent) {
        match event {
            OptimiseEvent::Stage { name } => self.stage = name.clone(),
            OptimiseEvent::PriorEpoch { nll, .. } => self.prior_nll.push(*nll),
            OptimiseEvent::PriorLoaded { path } => {
                self.notes.push(format!("prior weights read from {path}"));
            }
            OptimiseEvent::TbEpoch { loss, .. } => self.tb_loss.push(*loss),
            OptimiseEvent::StitchNetEpoch { nll, .. } => self.stitchnet_nll.push(*nll),
            OptimiseEvent::StitchNetLoaded { path } => {
                self.notes
                    .push(format!("StitchNet weights read from {path}"));
            }
            OptimiseEvent::ProxyRound { pair_accuracy, .. } => {
                self.proxy_accuracy.push(*pair_accuracy);
            }
            OptimiseEvent::StitchRound {
                valid_fraction,
                ipo_loss,
                ..
            } => {
                self.ipo_loss.push(*ipo_loss);
                self.valid_fraction.push(*valid_fraction);
            }
            OptimiseEvent::Evaluated {
                method,
                hypervolume,
            } => {
                self.notes
                    .push(format!("{method}: hypervolume {hypervolume:.4}"));
            }
        }
    }
}

/// What an optimisation depends on: the molecule file and the run's configuration.
pub(super) type OptimiseKey = (DataParams, OptimiseConfig);

/// The inputs of an optimisation with the current parameters.
pub(super) fn key(params: &MolStitchParams) -> OptimiseKey {
    (params.data.clone(), run_config(params))
}

/// The optimisation, its live curves and its result.
pub(super) struct OptimiseTab {
    pub(super) task: Task<OptimiseKey, LiveCurves, Arc<OptimiseResult>>,
    export_message: Option<String>,
    figure_state: FigureViewState,
}

impl Default for OptimiseTab {
    fn default() -> Self {
        Self {
            task: Task::new("molstitch: optimise"),
            export_message: None,
            figure_state: FigureViewState::default(),
        }
    }
}

/// The run's configuration: the panel's objectives with the tab's settings.
pub(super) fn run_config(params: &MolStitchParams) -> OptimiseConfig {
    let mut config = params.optimise.clone();
    config.objectives = params.objectives.clone();
    config.weights.resize(config.objectives.len(), 1.0);
    config
}

impl OptimiseTab {
    /// The last result.
    pub(super) fn result(&self) -> Option<Arc<OptimiseResult>> {
        self.task.result().cloned()
    }

    /// Takes in streamed curves and the result; a run that was stopped says so as its stage.
    pub(super) fn poll(&mut self) {
        let was_running = self.task.is_running();
        let arrived = self.task.poll_result();
        if was_running && !self.task.is_running() && !arrived && self.task.error().is_none() {
            self.task.live_mut().stage = "stopped".to_owned();
        }
    }

    /// Runs the pipeline on `set` (its SMILES are the offline data), caching trained weights in
    /// `cache_dir`; refused without a scored set or with invalid settings.
    pub(super) fn start(
        &mut self,
        cx: &mut Cx<'_, MolStitchModel>,
        set: Option<Arc<MoleculeSet>>,
        cache_dir: &Path,
    ) {
        let key = key(cx.params);
        let Some(set) = set else {
            self.task
                .refuse(&cx.runner, key, "no molecules to optimise");
            return;
        };
        let config = key.1.clone();
        if let Err(error) = config.validate() {
            self.task
                .refuse(&cx.runner, key, format!("params.optimise: {error}"));
            return;
        }
        let cache_dir = cache_dir.to_path_buf();
        self.task.start(&cx.runner, key, move |job| {
            optimise::run_seeds(
                &set.smiles,
                &config,
                Some(&cache_dir),
                &job.progress,
                &job.cancel,
                &mut |event| job.send(event.clone()),
            )
            .map(Arc::new)
        });
    }

    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        cx: &mut Cx<'_, MolStitchModel>,
        set: Option<&Arc<MoleculeSet>>,
        cache_dir: &Path,
    ) {
        egui::CollapsingHeader::new("Settings")
            .default_open(true)
            .show(ui, |ui| settings_ui(ui, cx));
        let mut run = false;
        ui.horizontal(|ui| {
            if let Some(info) = self.task.info() {
                if job_progress(ui, info, "Stop") {
                    self.task.stop();
                }
            } else {
                let ready = set.is_some();
                run = ui
                    .add_enabled(ready, egui::Button::new("Run optimisation"))
                    .clicked();
                if !ready {
                    ui.label("(waiting for the molecule set to be scored)");
                }
            }
        });
        if run {
            self.start(cx, set.cloned(), cache_dir);
        }
        self.task.status(ui, &key(cx.params));
        let live = self.task.live();
        if self.task.is_running() || !live.prior_nll.is_empty() {
            ui.label(format!("Stage: {}", live.stage));
        }
        let params = &*cx.params;
        if let Some(result) = self.task.result()
            && !result_matches_objectives(result, params)
        {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                format!(
                    "This result was computed for the objectives {}; the objectives have \
                     changed since. Run again to optimise the current ones.",
                    result.objective_labels.join(", ")
                ),
            );
        }
        let figure = match self.task.result() {
            Some(result) => results_figure(result, params, cx.view),
            None => live_figure(self.task.live()),
        };
        show_figure(ui, &figure, &mut self.figure_state);
        if let Some(result) = self.result() {
            let config = run_config(params);
            seeds_ui(ui, &result, &config);
            metrics_ui(ui, &result);
            for note in result.notes.iter().chain(&self.task.live().notes) {
                ui.label(format!("• {note}"));
            }
            self.export_ui(ui, &result);
        }
    }

    fn export_ui(&mut self, ui: &mut egui::Ui, result: &OptimiseResult) {
        ui.horizontal(|ui| {
            for (label, extension) in [
                ("Export molecules as CSV…", "csv"),
                ("Export molecules as SDF…", "sdf"),
                ("Export best molecules as SVG grid…", "svg"),
            ] {
                let clicked = ui.button(label).clicked();
                let request = clicked.then(|| {
                    Request::new(Kind::Save, label.trim_end_matches('…'))
                        .filter(Filter::new(extension, &[extension]))
                        .file_name(&format!("molstitch-molecules.{extension}"))
                });
                let id = ui.scope_id().with(("molstitch export", extension));
                if let Some(path) = benchtop_kit::file_dialog::pick(ui.ctx(), id, request) {
                    self.export_message = Some(match export_molecules(result, &path) {
                        Ok(()) => format!("written {}", path.display()),
                        Err(error) => format!("{}: {error:#}", path.display()),
                    });
                }
            }
        });
        if let Some(message) = &self.export_message {
            ui.label(message);
        }
    }
}

/// Every generated and offline molecule of `result`, best weighted (mean) score first within
/// each group.
pub(super) fn export_rows(result: &OptimiseResult) -> Vec<ExportRow> {
    let mut rows = Vec::new();
    for method in &result.methods {
        let mut group: Vec<ExportRow> = method
            .molecules
            .iter()
            .map(|m| ExportRow {
                smiles: m.smiles.clone(),
                group: method.name.clone(),
                objectives: m.objectives.clone(),
            })
            .collect();
        group.sort_by(|a, b| mean(&b.objectives).total_cmp(&mean(&a.objectives)));
        rows.extend(group);
    }
    rows.extend(result.offline.iter().map(|m| ExportRow {
        smiles: m.smiles.clone(),
        group: "offline".to_owned(),
        objectives: m.objectives.clone(),
    }));
    rows
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Writes the molecules to `path` by its extension: `.csv`, `.sdf`, or `.svg` (a grid of the
/// 24 best MolStitch molecules).
pub(super) fn export_molecules(result: &OptimiseResult, path: &Path) -> anyhow::Result<()> {
    let rows = export_rows(result);
    let labels = &result.objective_labels;
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let text = match extension.as_str() {
        "csv" => to_csv(labels, &rows)?,
        "sdf" | "sd" => to_sdf(labels, &rows)?,
        "svg" => {
            let best: Vec<ExportRow> = rows.into_iter().filter(|r| r.group == MOLSTITCH).collect();
            let figure = grid_figure("MolStitch: best generated molecules", &best, 6, 24)?;
            benchtop_kit::figure::render_svg(
                &figure,
                &benchtop_kit::figure::ExportOptions::default(),
            )?
        }
        other => {
            anyhow::bail!("unknown molecule export format `.{other}` (use .csv, .sdf or .svg)")
        }
    };
    std::fs::write(path, text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(())
}

/// The optimisation's settings, two per row, then the reward weights.
const SETTINGS: [&[&str]; 7] = [
    &["optimise.offline_size", "optimise.prior_epochs"],
    &["optimise.n_proxies", "optimise.proxy_rounds"],
    &["optimise.stitch_rounds", "optimise.stitched_per_round"],
    &["optimise.pool_size", "optimise.eval_budget"],
    &["optimise.beta", "optimise.dirichlet_alpha"],
    &["optimise.sigma", "optimise.seed"],
    &["optimise.seeds"],
];

fn settings_ui(ui: &mut egui::Ui, cx: &mut Cx<'_, MolStitchModel>) {
    egui::Grid::new("molstitch optimise settings")
        .num_columns(2)
        .show(ui, |ui| {
            for row in SETTINGS {
                cx.params(ui, row);
                ui.end_row();
            }
        });
    let params = &mut *cx.params;
    let n = params.objectives.len();
    params.optimise.weights.resize(n, 1.0);
    ui.horizontal_wrapped(|ui| {
        ui.label("Reward weights:");
        for (spec, w) in params
            .objectives
            .iter()
            .zip(params.optimise.weights.iter_mut())
        {
            let name = ui.label(objective_name(spec));
            ui.add(egui::DragValue::new(w).speed(0.05).range(0.0..=100.0))
                .labelled_by(name.id);
        }
    });
}

/// Colour of each method in the figures.
pub fn method_color(name: &str) -> Rgba {
    match name {
        MOLSTITCH => Rgba::rgb(44, 160, 44),
        "Prior fine-tuned" => Rgba::rgb(148, 103, 189),
        _ => Rgba::rgb(140, 86, 75),
    }
}

fn live_figure(live: &LiveCurves) -> Figure {
    let index = |v: &[f64]| (1..=v.len()).map(|i| i as f64).collect::<Vec<f64>>();
    Figure::new("MolStitch training")
        .grid(1, 3)
        .size_in(10.0, 3.2)
        .subplot(
            Subplot::new("Pretraining")
                .x_label("epoch")
                .y_label("NLL (nats)")
                .legend(true)
                .line("prior", index(&live.prior_nll), live.prior_nll.clone())
                .line(
                    "StitchNet",
                    index(&live.stitchnet_nll),
                    live.stitchnet_nll.clone(),
                ),
        )
        .subplot(
            Subplot::new("Rank proxies")
                .x_label("round")
                .y_label("held-out pair accuracy")
                .y_range(0.0, 1.0)
                .line(
                    "proxies",
                    index(&live.proxy_accuracy),
                    live.proxy_accuracy.clone(),
                ),
        )
        .subplot(
            Subplot::new("IPO on stitched pairs")
                .x_label("stitch round")
                .y_label("IPO loss")
                .line("IPO", index(&live.ipo_loss), live.ipo_loss.clone()),
        )
}

/// Whether `result` was computed for the panel's current objectives.
pub fn result_matches_objectives(result: &OptimiseResult, params: &MolStitchParams) -> bool {
    result
        .objective_labels
        .iter()
        .map(String::as_str)
        .eq(params.objectives.iter().map(|s| s.label()))
}

/// Axis names of the result's objectives: the panel's readable names while they are the
/// objectives the result was computed for, else the result's own labels.
pub fn result_axis_names(result: &OptimiseResult, params: &MolStitchParams) -> Vec<String> {
    if result_matches_objectives(result, params) {
        params.objectives.iter().map(objective_name).collect()
    } else {
        result.objective_labels.clone()
    }
}

/// The result figure: Pareto scatter of generated vs offline on the view's axes, hypervolume
/// against oracle calls, and the proxy and IPO curves.
pub(super) fn results_figure(
    result: &OptimiseResult,
    params: &MolStitchParams,
    view: &MolStitchView,
) -> Figure {
    let (ix, iy) = (view.x_objective, view.y_objective);
    let offline: Vec<Vec<f64>> = result
        .offline
        .iter()
        .map(|m| m.objectives.clone())
        .collect();
    let offline_front = pareto_front(&offline).unwrap_or_default();
    let mut pareto = super::figures::set_subplot(
        "Generated vs offline molecules",
        (&offline, &offline_front),
        &result_axis_names(result, params),
        (ix, iy),
        ("offline", "offline front"),
    );
    let every = || {
        offline.iter().chain(
            result
                .methods
                .iter()
                .flat_map(|m| m.molecules.iter().map(|x| &x.objectives)),
        )
    };
    let (x_range, y_range) = (
        super::figures::fitted_range(every(), ix),
        super::figures::fitted_range(every(), iy),
    );
    pareto = pareto
        .x_range(x_range.0, x_range.1)
        .y_range(y_range.0, y_range.1);
    let mut hv = Subplot::new("Hypervolume of offline ∪ generated")
        .x_label("oracle calls")
        .y_label("hypervolume")
        .legend(true);
    hv = hv.hline(result.offline_metrics.hypervolume, "offline set");
    for method in &result.methods {
        let color = method_color(&method.name);
        let points: Vec<Vec<f64>> = method
            .molecules
            .iter()
            .map(|m| m.objectives.clone())
            .collect();
        let (mx, my) = super::figures::xy(&points, ix, iy);
        pareto.push(
            Scatter::new(method.name.clone(), mx, my)
                .color(color.with_alpha(170))
                .size_pt(2.5),
        );
        let mut union = offline.clone();
        union.extend(points);
        if let Ok(front) = pareto_front(&union) {
            let own: Vec<usize> = front.into_iter().filter(|&i| i >= offline.len()).collect();
            if !own.is_empty() {
                pareto.push(super::figures::front_line("", &union, &own, ix, iy, color));
            }
        }
        let (bx, by): (Vec<f64>, Vec<f64>) = method
            .hypervolume_by_budget
            .iter()
            .map(|&(b, h)| (b as f64, h))
            .unzip();
        hv.push(
            Line::new(method.name.clone(), bx, by)
                .color(color)
                .width_pt(1.8),
        );
    }
    let index = |v: &[f64]| (1..=v.len()).map(|i| i as f64).collect::<Vec<f64>>();
    let curves = Subplot::new("Proxy accuracy and IPO loss")
        .x_label("round")
        .y_label("value")
        .legend(true)
        .with(Line::new(
            "proxy pair accuracy",
            index(&result.proxy_accuracy),
            result.proxy_accuracy.clone(),
        ))
        .with(Line::new(
            "IPO loss",
            index(&result.ipo_loss),
            result.ipo_loss.clone(),
        ));
    match &result.seed_study {
        Some(study) => Figure::new("MolStitch optimisation")
            .grid(2, 2)
            .size_in(10.0, 8.0)
            .subplot(pareto)
            .subplot(hv)
            .subplot(seeds_subplot(study))
            .subplot(curves),
        None => Figure::new("MolStitch optimisation")
            .grid(1, 3)
            .size_in(12.0, 4.0)
            .subplot(pareto)
            .subplot(hv)
            .subplot(curves),
    }
}

/// MolStitch's hypervolume minus each reference's, seed by seed (the paired comparison), with
/// the mean ± SD of each and the line of no difference.
fn seeds_subplot(study: &SeedStudy) -> Subplot {
    let seeds: Vec<f64> = study.seeds.iter().map(|&s| s as f64).collect();
    let right = seeds.iter().copied().fold(f64::NEG_INFINITY, f64::max) + 0.8;
    let mut plot = Subplot::new("MolStitch − reference, hypervolume, per seed")
        .x_label("seed (right: mean ± SD)")
        .y_label("hypervolume difference")
        .legend(true)
        .hline(0.0, "no difference");
    let references = [
        optimise::seeds::OFFLINE,
        optimise::run::METHOD_FINE_TUNED,
        optimise::run::METHOD_CROSSOVER,
    ];
    for (k, reference) in references.into_iter().enumerate() {
        let Some(p) = study
            .paired
            .iter()
            .find(|p| p.reference == reference && p.metric == "hypervolume")
        else {
            continue;
        };
        let diffs = hv_differences(study, reference);
        let color = match reference {
            optimise::seeds::OFFLINE => Rgba::rgb(120, 120, 120),
            other => method_color(other),
        };
        plot.push(
            Scatter::new(format!("− {reference}"), seeds.clone(), diffs)
                .color(color)
                .size_pt(3.5),
        );
        let x = right + 0.15 * k as f64;
        plot.push(
            ErrorBars::new("", vec![x], vec![p.mean_difference], vec![p.sd_difference])
                .color(color),
        );
    }
    plot
}

/// MolStitch's hypervolume minus `reference`'s on each seed of `study`.
fn hv_differences(study: &SeedStudy, reference: &str) -> Vec<f64> {
    let values = |name: &str| -> Vec<f64> {
        study
            .methods
            .iter()
            .find(|m| m.name == name)
            .and_then(|m| m.metrics.iter().find(|(k, _)| k == "hypervolume"))
            .map(|(_, s)| s.values.clone())
            .unwrap_or_default()
    };
    values(MOLSTITCH)
        .iter()
        .zip(values(reference))
        .map(|(a, b)| a - b)
        .collect()
}

/// The metrics of the offline set and each method, in the table's order.
fn metric_rows(result: &OptimiseResult) -> Vec<(&str, &MethodMetrics, usize)> {
    std::iter::once(("Offline set", &result.offline_metrics, result.offline.len()))
        .chain(
            result
                .methods
                .iter()
                .map(|m| (m.name.as_str(), &m.metrics, m.molecules.len())),
        )
        .collect()
}

fn metric_values(m: &MethodMetrics) -> [f64; 9] {
    [
        m.hypervolume,
        m.r2,
        m.top1,
        m.top10,
        m.top100,
        m.diversity,
        m.validity,
        m.uniqueness,
        m.novelty,
    ]
}

/// Metric names in [`metric_values`]' order (CSV and `summary.json` keys).
const METRIC_KEYS: [&str; 9] = [
    "hypervolume",
    "r2",
    "top1",
    "top10",
    "top100",
    "diversity",
    "validity",
    "uniqueness",
    "novelty",
];

/// CSV tables: metrics per method (row 0 the offline set, then the methods in order) and
/// hypervolume against oracle calls per method.
pub(super) fn tables(result: &OptimiseResult) -> Vec<DataTable> {
    let mut columns = vec!["method"];
    columns.extend(METRIC_KEYS);
    columns.push("molecules");
    let rows = metric_rows(result)
        .into_iter()
        .enumerate()
        .map(|(i, (_, m, n))| {
            let mut row = vec![i as f64];
            row.extend(metric_values(m));
            row.push(n as f64);
            row
        })
        .collect();
    let budget_rows = result
        .methods
        .iter()
        .enumerate()
        .flat_map(|(i, m)| {
            m.hypervolume_by_budget
                .iter()
                .map(move |&(b, h)| vec![(i + 1) as f64, b as f64, h])
        })
        .collect();
    let mut tables = vec![
        DataTable::new("molstitch-metrics", &columns, rows),
        DataTable::new(
            "molstitch-hypervolume-by-budget",
            &["method", "oracle_calls", "hypervolume"],
            budget_rows,
        ),
    ];
    if let Some(study) = &result.seed_study {
        let mut columns = vec!["method (0 offline, 1 MolStitch, 2 prior fine-tuned, 3 crossover)"];
        columns.push("seed");
        columns.extend(MethodMetrics::KEYS);
        let rows = study
            .methods
            .iter()
            .enumerate()
            .flat_map(|(i, m)| {
                study.seeds.iter().enumerate().map(move |(j, &seed)| {
                    let mut row = vec![i as f64, seed as f64];
                    row.extend(
                        m.metrics
                            .iter()
                            .map(|(_, s)| s.values.get(j).copied().unwrap_or(f64::NAN)),
                    );
                    row
                })
            })
            .collect();
        tables.push(DataTable::new("molstitch-metrics-by-seed", &columns, rows));
    }
    tables
}

/// MolStitch's metrics in `result`.
pub(super) fn molstitch_metrics(result: &OptimiseResult) -> Option<&MethodMetrics> {
    result
        .methods
        .iter()
        .find(|m| m.name == MOLSTITCH)
        .map(|m| &m.metrics)
}

/// The larger hypervolume of the two baselines (NaN when there is none).
pub(super) fn best_baseline_hypervolume(result: &OptimiseResult) -> f64 {
    result
        .methods
        .iter()
        .filter(|m| m.name != MOLSTITCH)
        .map(|m| m.metrics.hypervolume)
        .fold(f64::NAN, f64::max)
}

/// `summary.json`'s `optimisation` object: metrics per method (offline set included), whether
/// MolStitch's hypervolume beats the offline set and each baseline, its 5 best molecules, and
/// the run's notes.
pub(super) fn summary(result: &OptimiseResult) -> serde_json::Value {
    let mut methods = serde_json::Map::new();
    for (name, m, n) in metric_rows(result) {
        let mut entry: serde_json::Map<String, serde_json::Value> = METRIC_KEYS
            .iter()
            .zip(metric_values(m))
            .map(|(k, v)| ((*k).to_owned(), v.into()))
            .collect();
        entry.insert("molecules".into(), n.into());
        methods.insert(name.to_owned(), entry.into());
    }
    let ours = molstitch_metrics(result).map_or(f64::NAN, |m| m.hypervolume);
    let beats: serde_json::Map<String, serde_json::Value> =
        std::iter::once(("Offline set".to_owned(), result.offline_metrics.hypervolume))
            .chain(
                result
                    .methods
                    .iter()
                    .filter(|m| m.name != MOLSTITCH)
                    .map(|m| (m.name.clone(), m.metrics.hypervolume)),
            )
            .map(|(name, h)| (name, (ours > h).into()))
            .collect();
    let best: Vec<serde_json::Value> = export_rows(result)
        .into_iter()
        .filter(|r| r.group == MOLSTITCH)
        .take(5)
        .map(|r| serde_json::json!({"smiles": r.smiles, "objectives": r.objectives}))
        .collect();
    let mut out = serde_json::json!({
        "objectives": result.objective_labels,
        "methods": methods,
        "molstitch_hypervolume_beats": beats,
        "best_molstitch_molecules": best,
        "notes": result.notes,
    });
    if let (Some(study), Some(map)) = (&result.seed_study, out.as_object_mut()) {
        map.insert("seeds".into(), seeds_summary(study));
        map.insert("paired".into(), paired_summary(study));
        map.insert(
            "claims".into(),
            study
                .claims
                .iter()
                .map(|c| {
                    serde_json::json!({
                        "id": c.id, "claim": c.claim, "measured": c.measured,
                        "verdict": c.verdict.text(),
                    })
                })
                .collect(),
        );
    }
    out
}

/// `seeds`: the seeds and, per method, each metric's `{mean, sd, values}` over them.
fn seeds_summary(study: &SeedStudy) -> serde_json::Value {
    let methods: serde_json::Map<String, serde_json::Value> = study
        .methods
        .iter()
        .map(|m| {
            let metrics: serde_json::Map<String, serde_json::Value> = m
                .metrics
                .iter()
                .map(|(k, s)| {
                    (
                        k.clone(),
                        serde_json::json!({"mean": s.mean, "sd": s.sd, "values": s.values}),
                    )
                })
                .collect();
            (m.name.clone(), metrics.into())
        })
        .collect();
    serde_json::json!({"seeds": study.seeds, "methods": methods})
}

/// `paired`: per reference and metric, MolStitch's wins, losses, ties, the exact sign-test
/// p-value and the mean paired difference ± SD.
fn paired_summary(study: &SeedStudy) -> serde_json::Value {
    let mut out = serde_json::Map::new();
    for p in &study.paired {
        let entry = out
            .entry(p.reference.clone())
            .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
        if let Some(map) = entry.as_object_mut() {
            map.insert(
                p.metric.clone(),
                serde_json::json!({
                    "higher_is_better": p.higher_is_better,
                    "wins": p.wins,
                    "losses": p.losses,
                    "ties": p.ties,
                    "seeds": p.wins + p.losses + p.ties,
                    "sign_test_p": p.sign_test_p,
                    "mean_difference": p.mean_difference,
                    "sd_difference": p.sd_difference,
                    "verdict": p.verdict().text(),
                }),
            );
        }
    }
    out.into()
}

/// The comparison over seeds (the spread, the paired tests and the claims' verdicts), or a note
/// that one seed has neither.
fn seeds_ui(ui: &mut egui::Ui, result: &OptimiseResult, config: &OptimiseConfig) {
    let Some(study) = &result.seed_study else {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            "One seed: the table below is a single run, and the methods differ by about the \
             spread between seeds. Set \"Seeds compared\" to 6 or more for each method's \
             spread, a paired sign test and the claims' verdicts.",
        );
        return;
    };
    let (first, last) = (
        study.seeds.first().copied().unwrap_or(config.seed),
        study.seeds.last().copied().unwrap_or(config.seed),
    );
    ui.strong(format!(
        "Over {} seeds ({first}–{last}): mean ± SD",
        study.seeds.len()
    ));
    let shown = [
        "hypervolume",
        "r2",
        "top10",
        "diversity",
        "validity",
        "novelty",
    ];
    egui::Grid::new("molstitch seeds")
        .striped(true)
        .show(ui, |ui| {
            ui.strong("Method (mean ± SD)");
            for h in [
                "hypervolume ↑",
                "R2 ↓",
                "top-10",
                "diversity",
                "validity",
                "novelty",
            ] {
                ui.strong(h);
            }
            ui.end_row();
            for m in &study.methods {
                ui.label(&m.name);
                for key in shown {
                    let text = m
                        .metrics
                        .iter()
                        .find(|(k, _)| k == key)
                        .map_or("–".to_owned(), |(_, s)| {
                            format!("{:.4} ± {:.4}", s.mean, s.sd)
                        });
                    ui.label(text);
                }
                ui.end_row();
            }
        });
    ui.strong("MolStitch paired with each reference (hypervolume)");
    for p in study.paired.iter().filter(|p| p.metric == "hypervolume") {
        ui.label(format!("against {}: {}", p.reference, p.text()));
    }
    ui.strong(
        "The paper's claims over these seeds (the docs page's table comes from the same rule)",
    );
    egui::Grid::new("molstitch claims")
        .striped(true)
        .show(ui, |ui| {
            for c in &study.claims {
                ui.label(&c.claim);
                let colour = match c.verdict {
                    Verdict::Holds => egui::Color32::from_rgb(40, 140, 40),
                    Verdict::HoldsPartly => egui::Color32::from_rgb(190, 130, 0),
                    Verdict::DoesNotHold => egui::Color32::from_rgb(200, 50, 50),
                };
                ui.colored_label(colour, c.verdict.text());
                ui.end_row();
            }
        });
    ui.label(format!(
        "The table below, the figure's scatter and hypervolume curves are seed {first}'s run."
    ));
}

fn metrics_ui(ui: &mut egui::Ui, result: &OptimiseResult) {
    egui::Grid::new("molstitch metrics")
        .striped(true)
        .show(ui, |ui| {
            for h in [
                "Method",
                "HV ↑",
                "R2 ↓",
                "top-1",
                "top-10",
                "top-100",
                "diversity",
                "validity",
                "uniqueness",
                "novelty",
                "molecules",
            ] {
                ui.strong(h);
            }
            ui.end_row();
            for (name, m, n) in metric_rows(result) {
                ui.label(name);
                for v in metric_values(m) {
                    ui.label(format!("{v:.4}"));
                }
                ui.label(n.to_string());
                ui.end_row();
            }
        });
}
