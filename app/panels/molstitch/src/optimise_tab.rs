//! The optimisation tab: MolStitch (prior, trajectory-balance fine-tuning, rank proxies,
//! priority sampling and stitching, IPO) against its two baselines on the same oracle budget,
//! with live curves, the Pareto scatter of generated vs offline molecules, hypervolume against
//! the budget, the metrics table and molecule export.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_molstitch::metrics::pareto_front;
use benchtop_molstitch::optimise::{
    self, MethodMetrics, OptimiseConfig, OptimiseEvent, OptimiseResult,
};

use super::library::MoleculeSet;
use super::molecule_export::{ExportRow, grid_figure, to_csv, to_sdf};
use super::objectives_ui::objective_name;
use super::{MolStitchParams, MolStitchView};
use benchtop_kit::figure::{Figure, FigureViewState, Line, Rgba, Scatter, Subplot, show_figure};
use benchtop_kit::jobs::{JobOutcome, JobSlot};
use benchtop_kit::panel::{DataTable, PanelContext};
use benchtop_kit::widgets::job_progress;

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

impl LiveCurves {
    fn apply(&mut self, event: &OptimiseEvent) {
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

/// The tab's job and result.
#[derive(Default)]
pub(super) struct OptimiseTab {
    job: JobSlot<OptimiseEvent, OptimiseResult>,
    result: Option<Arc<OptimiseResult>>,
    live: LiveCurves,
    error: Option<String>,
    export_message: Option<String>,
    figure_state: FigureViewState,
}

/// The run's configuration: the panel's objectives with the tab's settings.
pub(super) fn run_config(params: &MolStitchParams) -> OptimiseConfig {
    let mut config = params.optimise.clone();
    config.objectives = params.objectives.clone();
    config.weights.resize(config.objectives.len(), 1.0);
    config
}

/// Runs the pipeline on the set (its SMILES are the offline data).
fn run_on(
    set: &MoleculeSet,
    config: &OptimiseConfig,
    cache_dir: Option<&Path>,
    progress: &Progress,
    cancel: &CancelToken,
    on_event: &mut (dyn FnMut(&OptimiseEvent) + Send),
) -> Result<OptimiseResult, ComputeError> {
    optimise::run(&set.smiles, config, cache_dir, progress, cancel, on_event)
}

impl OptimiseTab {
    pub(super) fn is_busy(&self) -> bool {
        self.job.is_busy()
    }

    pub(super) fn result(&self) -> Option<Arc<OptimiseResult>> {
        self.result.clone()
    }

    pub(super) fn set_result(&mut self, result: Option<OptimiseResult>) {
        self.result = result.map(Arc::new);
    }

    pub(super) fn poll(&mut self) {
        let live = &mut self.live;
        if let Some(outcome) = self.job.poll(|event| live.apply(&event)) {
            match outcome {
                JobOutcome::Finished(result) => self.result = Some(Arc::new(result)),
                JobOutcome::Cancelled => self.live.stage = "stopped".to_owned(),
                JobOutcome::Failed(message) => self.error = Some(message),
            }
        }
    }

    fn start(
        &mut self,
        params: &MolStitchParams,
        set: Arc<MoleculeSet>,
        cache_dir: Option<PathBuf>,
        context: &PanelContext<'_>,
        ctx: &egui::Context,
    ) {
        let config = run_config(params);
        if let Err(error) = config.validate() {
            self.error = Some(format!("params.optimise: {error}"));
            return;
        }
        self.error = None;
        self.live = LiveCurves::default();
        let started = self.job.start(
            "molstitch: optimise",
            context.jobs,
            Some(ctx.clone()),
            move |job| {
                run_on(
                    &set,
                    &config,
                    cache_dir.as_deref(),
                    &job.progress,
                    &job.cancel,
                    &mut |event| {
                        job.send(event.clone());
                    },
                )
            },
        );
        if let Err(error) = started {
            self.error = Some(error.to_string());
        }
    }

    /// Runs on this thread (headless runs).
    pub(super) fn run_blocking(
        &mut self,
        params: &MolStitchParams,
        set: &MoleculeSet,
        cache_dir: Option<&Path>,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> anyhow::Result<()> {
        let config = run_config(params);
        let live = &mut self.live;
        let result = run_on(set, &config, cache_dir, progress, cancel, &mut |event| {
            live.apply(event);
        })?;
        self.result = Some(Arc::new(result));
        Ok(())
    }

    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut MolStitchParams,
        view: &MolStitchView,
        set: Option<&Arc<MoleculeSet>>,
        cache_dir: Option<&Path>,
        context: &PanelContext<'_>,
    ) {
        egui::CollapsingHeader::new("Settings")
            .default_open(true)
            .show(ui, |ui| settings_ui(ui, params));
        ui.horizontal(|ui| {
            if let Some(info) = self.job.info() {
                if job_progress(ui, info, "Stop") {
                    self.job.cancel();
                }
            } else {
                let ready = set.is_some();
                let run = ui.add_enabled(ready, egui::Button::new("Run optimisation"));
                if !ready {
                    ui.label("(waiting for the molecule set to be scored)");
                }
                if run.clicked()
                    && let Some(set) = set
                {
                    let cache = cache_dir.map(Path::to_path_buf);
                    self.start(params, Arc::clone(set), cache, context, ui.ctx());
                }
            }
        });
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
        if self.job.is_busy() || !self.live.prior_nll.is_empty() {
            ui.label(format!("Stage: {}", self.live.stage));
        }
        if let Some(result) = &self.result
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
        let figure = match &self.result {
            Some(result) => results_figure(result, params, view),
            None => live_figure(&self.live),
        };
        show_figure(ui, &figure, &mut self.figure_state);
        if let Some(result) = self.result.clone() {
            metrics_ui(ui, &result);
            for note in result.notes.iter().chain(&self.live.notes) {
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
                if ui.button(label).clicked()
                    && let Some(path) = rfd::FileDialog::new()
                        .set_file_name(format!("molstitch-molecules.{extension}"))
                        .save_file()
                {
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

fn settings_ui(ui: &mut egui::Ui, params: &mut MolStitchParams) {
    let c = &mut params.optimise;
    egui::Grid::new("molstitch optimise settings")
        .num_columns(4)
        .show(ui, |ui| {
            let count = |ui: &mut egui::Ui, label: &str, value: &mut usize, max: usize| {
                let name = ui.label(label);
                ui.add(egui::DragValue::new(value).range(1..=max))
                    .labelled_by(name.id);
            };
            count(ui, "Offline molecules used", &mut c.offline_size, 100_000);
            count(ui, "Prior epochs", &mut c.prior_epochs, 1000);
            ui.end_row();
            count(ui, "Proxies M", &mut c.n_proxies, 32);
            count(ui, "Proxy rounds", &mut c.proxy_rounds, 1000);
            ui.end_row();
            count(ui, "Stitch rounds", &mut c.stitch_rounds, 1000);
            count(ui, "Stitches per round", &mut c.stitched_per_round, 10_000);
            ui.end_row();
            count(ui, "Parent pool", &mut c.pool_size, 100_000);
            count(ui, "Oracle budget per method", &mut c.eval_budget, 100_000);
            ui.end_row();
            let real = |ui: &mut egui::Ui, label: &str, value: &mut f64, speed: f64| {
                let name = ui.label(label);
                ui.add(egui::DragValue::new(value).speed(speed))
                    .labelled_by(name.id);
            };
            real(ui, "IPO β", &mut c.beta, 0.01);
            real(ui, "Dirichlet α", &mut c.dirichlet_alpha, 0.05);
            ui.end_row();
            real(ui, "TB reward scale σ", &mut c.sigma, 1.0);
            let name = ui.label("Seed");
            ui.add(egui::DragValue::new(&mut c.seed))
                .labelled_by(name.id);
            ui.end_row();
        });
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
pub(super) fn result_matches_objectives(result: &OptimiseResult, params: &MolStitchParams) -> bool {
    result
        .objective_labels
        .iter()
        .map(String::as_str)
        .eq(params.objectives.iter().map(|s| s.label()))
}

/// Axis names of the result's objectives: the panel's readable names while they are the
/// objectives the result was computed for, else the result's own labels.
fn result_axis_names(result: &OptimiseResult, params: &MolStitchParams) -> Vec<String> {
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
    Figure::new("MolStitch optimisation")
        .grid(1, 3)
        .size_in(12.0, 4.0)
        .subplot(pareto)
        .subplot(hv)
        .subplot(curves)
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
    let mut columns = vec!["method".to_owned()];
    columns.extend(METRIC_KEYS.iter().map(|k| (*k).to_owned()));
    columns.push("molecules".to_owned());
    #[allow(clippy::cast_precision_loss)]
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
    #[allow(clippy::cast_precision_loss)]
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
    vec![
        DataTable {
            name: "molstitch-metrics".into(),
            columns,
            rows,
        },
        DataTable {
            name: "molstitch-hypervolume-by-budget".into(),
            columns: ["method", "oracle_calls", "hypervolume"]
                .map(str::to_owned)
                .to_vec(),
            rows: budget_rows,
        },
    ]
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
    serde_json::json!({
        "objectives": result.objective_labels,
        "methods": methods,
        "molstitch_hypervolume_beats": beats,
        "best_molstitch_molecules": best,
        "notes": result.notes,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use benchtop_molstitch::ObjectiveSpec;

    fn result_for(labels: &[&str]) -> OptimiseResult {
        let metrics = MethodMetrics {
            hypervolume: 0.0,
            r2: 0.0,
            top1: 0.0,
            top10: 0.0,
            top100: 0.0,
            diversity: 0.0,
            validity: 0.0,
            uniqueness: 0.0,
            novelty: 0.0,
        };
        OptimiseResult {
            objective_labels: labels.iter().map(|l| (*l).to_owned()).collect(),
            offline: Vec::new(),
            offline_metrics: metrics,
            methods: Vec::new(),
            proxy_accuracy: Vec::new(),
            ipo_loss: Vec::new(),
            notes: Vec::new(),
            weight_files: Vec::new(),
        }
    }

    #[test]
    fn a_result_for_other_objectives_is_labelled_by_its_own_objectives() {
        let mut params = MolStitchParams::default();
        let result = result_for(&["qed", "sa", "sim"]);
        assert!(result_matches_objectives(&result, &params));
        assert_eq!(result_axis_names(&result, &params)[0], "QED");
        params.objectives = vec![ObjectiveSpec::Sa, ObjectiveSpec::Qed];
        assert!(!result_matches_objectives(&result, &params));
        assert_eq!(result_axis_names(&result, &params), ["qed", "sa", "sim"]);
    }
}
