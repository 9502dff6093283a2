//! The Monte Carlo tab: controls, the live lattice, traces, G(r) and observables with errors.

use std::sync::Arc;
use std::time::{Duration, Instant};

use benchtop_compute::ComputeError;
use benchtop_ising::exact::{
    finite_torus, infinite_temperature_abs_magnetization, onsager_nn_correlation,
    onsager_specific_heat, spontaneous_magnetization,
};
use benchtop_ising::observables::Measurement;
use benchtop_ising::simulation::{
    Algorithm, Backend, BackendInfo, McParams, McResult, McRun, Stage,
};
use benchtop_ising::{BETA_CRITICAL, SpinConfig, Start};

use super::lattice_view::{GpuLattice, LatticeView};
use super::{ENGINE, IsingModel, IsingParams, SavedResults, figures};
use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::host::Cx;
use benchtop_kit::jobs::JobContext;
use benchtop_kit::panel::{DataTable, PanelFigure, Recipe, from_saved, to_saved};
use benchtop_kit::project::Sidecar;
use benchtop_kit::task::{Live, Task};
use benchtop_kit::widgets::controls_and_view;

/// The smallest side of the lattice picture, in points.
const MIN_LATTICE_SIDE: f32 = 160.0;

/// The width the observables table needs beside the lattice, in points.
const OBSERVABLES_WIDTH: f32 = 480.0;

/// The smallest height of the live figure, in points (the view scrolls below it).
const MIN_FIGURE_HEIGHT: f32 = 280.0;

/// What the live job streams to the panel.
pub(super) enum McUpdate {
    /// The sampler is ready (and, on wgpu, where its lattice lives).
    Started {
        backend: BackendInfo,
        gpu: Option<GpuLattice>,
    },
    /// New measurements (sweep number, values).
    Measurements(Vec<(u64, Measurement)>),
    /// A copy of the lattice.
    Snapshot(Arc<SpinConfig>),
    /// Observables so far.
    Summary(Box<McResult>),
}

/// What a run has streamed so far: its measurements, its latest lattice and observables, and
/// where it runs.
#[derive(Default)]
pub(super) struct McLive {
    backend: Option<BackendInfo>,
    gpu: Option<GpuLattice>,
    measurements: Vec<(u64, Measurement)>,
    snapshot: Option<Arc<SpinConfig>>,
    summary: Option<McResult>,
}

impl Live for McLive {
    type Update = McUpdate;

    fn apply(&mut self, update: McUpdate) {
        match update {
            McUpdate::Started { backend, gpu } => {
                self.backend = Some(backend);
                self.gpu = gpu;
            }
            McUpdate::Measurements(new) => self.measurements.extend(new),
            McUpdate::Snapshot(config) => self.snapshot = Some(config),
            McUpdate::Summary(result) => self.summary = Some(*result),
        }
    }
}

/// Lattice sizes offered in the size menu.
const SIZES: [usize; 9] = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

/// What a run depends on: the Monte Carlo parameters and the seed.
type McKey = (McParams, u64);

fn key(params: &IsingParams) -> McKey {
    (params.mc.clone(), params.mc_seed)
}

/// The live Monte Carlo run and what it shows.
pub(super) struct McTab {
    pub(super) task: Task<McKey, McLive, McResult>,
    /// The lattice drawn last, kept while a new run starts until its first picture arrives.
    snapshot: Option<Arc<SpinConfig>>,
    /// Where the last run ran, kept likewise.
    backend: Option<BackendInfo>,
    lattice: LatticeView,
    plots: FigureViewState,
}

impl Default for McTab {
    fn default() -> Self {
        Self {
            task: Task::new("ising: Monte Carlo"),
            snapshot: None,
            backend: None,
            lattice: LatticeView::default(),
            plots: FigureViewState::default(),
        }
    }
}

impl McTab {
    /// The observables to show: those of the finished run, else the running (or stopped)
    /// run's latest ones.
    fn shown(&self) -> Option<&McResult> {
        self.task.result().or(self.task.live().summary.as_ref())
    }

    fn measurements(&self) -> &[(u64, Measurement)] {
        &self.task.live().measurements
    }

    fn snapshot(&self) -> Option<&Arc<SpinConfig>> {
        self.task
            .live()
            .snapshot
            .as_ref()
            .or(self.snapshot.as_ref())
    }

    fn backend(&self) -> Option<&BackendInfo> {
        self.task.live().backend.as_ref().or(self.backend.as_ref())
    }

    /// Starts (or restarts) the run with the current parameters; invalid parameters are
    /// refused with the engine's message, keeping what is shown.
    pub(super) fn start(&mut self, cx: &mut Cx<'_, IsingModel>) {
        let key = key(cx.params);
        if let Err(error) = cx.params.mc.validate() {
            self.task.refuse(&cx.runner, key, error.to_string());
            return;
        }
        let (mc, seed) = key.clone();
        let share_gpu = cx.shared_gpu && cx.render_state.is_some();
        // A headless run draws nothing while it runs.
        let watched = !cx.runner.is_inline();
        // A new run shows only its own observables.
        self.task.clear();
        self.task.start(&cx.runner, key, move |job| {
            live_run(&mc, seed, share_gpu, watched, job)
        });
    }

    /// Restarts the run when the parameters changed: always while one runs, else when
    /// "Run when parameters change" is on.
    pub(super) fn react(&mut self, cx: &mut Cx<'_, IsingModel>) {
        if self.task.is_current(&key(cx.params)) {
            return;
        }
        if self.task.is_running() || cx.view.auto_run {
            self.start(cx);
        }
    }

    /// Takes in the run's updates, keeping its lattice and backend across restarts.
    pub(super) fn poll(&mut self) {
        self.task.poll_result();
        let live = self.task.live_mut();
        if let Some(snapshot) = live.snapshot.take() {
            self.snapshot = Some(snapshot);
        }
        if let Some(backend) = live.backend.take() {
            self.backend = Some(backend);
        }
    }

    pub(super) fn save(
        &self,
        results: &mut SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        let Some(result) = self.shown() else {
            return Ok(());
        };
        let mut stripped = result.clone();
        stripped.series = Default::default();
        results.mc = Some(to_saved(&stripped)?);
        if let Some(sidecar) = sidecar {
            let measurements = self.measurements();
            let rows = measurements.len();
            let mut flat = Vec::with_capacity(rows * 4);
            for (sweep, m) in measurements {
                flat.extend([
                    *sweep as f64,
                    m.bond_energy_per_site,
                    m.plaquette_per_site,
                    m.magnetization,
                ]);
            }
            results.series_file = Some(sidecar.write_f64("ising-series", &[rows, 4], &flat)?);
            if let Some(config) = self.snapshot() {
                let size = config.size();
                results.snapshot_file =
                    Some(sidecar.write_i8("ising-lattice", &[size, size], config.spins())?);
            }
        }
        Ok(())
    }

    pub(super) fn restore(
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
        params: &IsingParams,
    ) -> anyhow::Result<Self> {
        let mut tab = Self::default();
        let mut result: Option<McResult> = results.mc.as_ref().map(from_saved).transpose()?;
        tab.backend = result.as_ref().map(|r| r.backend.clone());
        if let (Some(sidecar), Some(file)) = (sidecar, &results.series_file) {
            let (shape, values) = sidecar.read_f64(file)?;
            anyhow::ensure!(
                shape.len() == 2 && shape[1] == 4,
                "{file}: expected a table of 4 columns"
            );
            let rows = values.chunks_exact(4).map(|row| {
                (
                    row[0] as u64,
                    Measurement {
                        bond_energy_per_site: row[1],
                        plaquette_per_site: row[2],
                        magnetization: row[3],
                    },
                )
            });
            let measurements: Vec<(u64, Measurement)> = rows.collect();
            if let Some(result) = &mut result {
                // The summary left out the first measurements when it counted them as
                // thermalisation.
                let discarded = measurements.len().saturating_sub(result.summary.samples);
                for (_, m) in &measurements[discarded..] {
                    result.series.push(*m);
                }
            }
            tab.task.live_mut().measurements = measurements;
        }
        if let (Some(sidecar), Some(file)) = (sidecar, &results.snapshot_file) {
            let (shape, spins) = sidecar.read_i8(file)?;
            anyhow::ensure!(
                shape.len() == 2 && shape[0] == shape[1],
                "{file}: expected a square lattice"
            );
            tab.snapshot = Some(Arc::new(SpinConfig::from_spins(shape[0], spins)?));
        }
        // A restored result was computed with the saved parameters.
        if let Some(result) = result {
            tab.task.set_result(key(params), result);
        }
        Ok(tab)
    }

    pub(super) fn ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, IsingModel>) {
        controls_and_view(
            ui,
            "ising mc controls",
            280.0,
            &mut (self, cx),
            |(tab, cx), ui| tab.controls_ui(ui, cx),
            |(tab, cx), ui| tab.view_ui(ui, cx),
        );
    }

    /// The lattice and the observables side by side when both fit, else one above the
    /// other; then the live figure. The whole view scrolls (and the table sideways), so a
    /// small window cuts nothing off.
    fn view_ui(&mut self, ui: &mut egui::Ui, cx: &Cx<'_, IsingModel>) {
        let width = ui.available_width();
        let height = ui.available_height();
        egui::ScrollArea::vertical()
            .id_salt("ising mc view")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.set_max_width(width);
                let side_by_side = width >= MIN_LATTICE_SIDE + OBSERVABLES_WIDTH;
                if side_by_side {
                    let side = (width * 0.42)
                        .min(height * 0.55)
                        .min(width - OBSERVABLES_WIDTH)
                        .max(MIN_LATTICE_SIDE);
                    ui.horizontal_top(|ui| {
                        self.lattice_ui(ui, side, cx);
                        ui.vertical(|ui| self.observables_ui(ui, cx.params));
                    });
                } else {
                    let side = width.min(height * 0.5).max(MIN_LATTICE_SIDE);
                    self.lattice_ui(ui, side, cx);
                    self.observables_ui(ui, cx.params);
                }
                let used = ui.min_rect().height();
                let figure_height = (height - used).max(MIN_FIGURE_HEIGHT);
                let figure = figures::live_figure(self.measurements(), self.shown(), &cx.params.mc);
                ui.allocate_ui(egui::vec2(width, figure_height), |ui| {
                    show_figure(ui, &figure, &mut self.plots);
                });
            });
    }

    /// The lattice, `side` points square: live from the GPU when the engines share the
    /// window's device, else the last snapshot.
    fn lattice_ui(&mut self, ui: &mut egui::Ui, side: f32, cx: &Cx<'_, IsingModel>) {
        let gpu = if cx.shared_gpu {
            self.task.live().gpu.as_ref()
        } else {
            None
        };
        let snapshot = self
            .task
            .live()
            .snapshot
            .as_ref()
            .or(self.snapshot.as_ref());
        self.lattice.show(ui, side, snapshot, gpu, cx.render_state);
    }

    fn controls_ui(&mut self, ui: &mut egui::Ui, cx: &mut Cx<'_, IsingModel>) {
        ui.checkbox(&mut cx.view.temperature, "Show temperature T = 1/β");
        if cx.view.temperature {
            let mc = &mut cx.params.mc;
            let mut temperature = if mc.beta > 0.0 { 1.0 / mc.beta } else { 100.0 };
            if ui
                .add(
                    egui::Slider::new(&mut temperature, 0.5..=10.0)
                        .logarithmic(true)
                        .text("Temperature T"),
                )
                .changed()
            {
                mc.beta = 1.0 / temperature;
            }
        } else if let Some(beta) = cx.declared.get("mc.beta") {
            beta.ui_within(ui, cx.params, 0.0, 1.5);
        }
        if ui
            .small_button(format!("Set β to β_c = {BETA_CRITICAL:.4}"))
            .clicked()
        {
            cx.params.mc.beta = BETA_CRITICAL;
        }
        if let Some(plaquette) = cx.declared.get("mc.plaquette") {
            plaquette.ui_within(ui, cx.params, -1.0, 1.0);
        }
        size_ui(ui, cx);
        let mc = &mut cx.params.mc;
        egui::ComboBox::from_label("Algorithm")
            .selected_text(mc.algorithm.label())
            .show_ui(ui, |ui| {
                for algorithm in [
                    Algorithm::Checkerboard,
                    Algorithm::SingleSpin,
                    Algorithm::Wolff,
                ] {
                    ui.selectable_value(&mut mc.algorithm, algorithm, algorithm.label());
                }
            });
        egui::ComboBox::from_label("Backend")
            .selected_text(mc.backend.name())
            .show_ui(ui, |ui| {
                for backend in [Backend::Auto, Backend::Cpu, Backend::Wgpu, Backend::Cuda] {
                    ui.selectable_value(&mut mc.backend, backend, backend.name());
                }
            });
        ui.horizontal(|ui| {
            ui.label("Start");
            ui.radio_value(&mut mc.start, Start::Cold, "Cold (all up)");
            ui.radio_value(&mut mc.start, Start::Hot, "Hot (random)");
        });
        cx.params(
            ui,
            &[
                "mc_seed",
                "mc.thermalization_sweeps",
                "mc.measurement_sweeps",
                "mc.measure_every",
            ],
        );
        ui.checkbox(&mut cx.view.auto_run, "Run when parameters change");
        ui.separator();
        if let Some(info) = self.task.info() {
            if benchtop_kit::widgets::job_progress(ui, info, "Stop Monte Carlo") {
                self.task.stop();
            }
        } else if ui.button("Run Monte Carlo").clicked() {
            self.start(cx);
        }
        if let Some(backend) = self.backend() {
            ui.label(format!("Backend: {}", backend.description));
        }
        if let Some(result) = self.shown() {
            ui.label(format!(
                "{} sweeps, {:.3} spin flips per ns",
                result.sweeps, result.flips_per_ns
            ));
        }
        self.task.status(ui, &key(cx.params));
    }

    /// The observables table, scrolled sideways when it is wider than the room it has.
    fn observables_ui(&self, ui: &mut egui::Ui, params: &IsingParams) {
        egui::ScrollArea::horizontal()
            .id_salt("ising observables")
            .show(ui, |ui| self.observables_table(ui, params));
    }

    fn observables_table(&self, ui: &mut egui::Ui, params: &IsingParams) {
        ui.strong("Observables");
        let Some(result) = self.shown() else {
            ui.label("Measuring…");
            return;
        };
        let s = &result.summary;
        let exact = exact_values(&params.mc);
        let shown =
            |value: Option<f64>| value.map_or_else(|| "—".to_owned(), |v| format!("{v:.5}"));
        egui::Grid::new("ising observables")
            .striped(true)
            .show(ui, |ui| {
                ui.strong("quantity");
                ui.strong("Monte Carlo");
                ui.strong("exact (L)").on_hover_text(
                    "Exact for this L×L torus (K = 0): Kaufman's solution; |m| and m² at β = 0",
                );
                ui.strong("exact (∞)")
                    .on_hover_text("Exact for the infinite lattice (K = 0): Onsager's solution");
                ui.end_row();
                let rows = [
                    (
                        "bond energy per site",
                        s.bond_energy_per_site,
                        exact.bond_finite,
                        exact.bond,
                    ),
                    ("plaquette per site", s.plaquette_per_site, None, None),
                    (
                        "|m|",
                        s.abs_magnetization,
                        exact.magnetization_finite,
                        exact.magnetization,
                    ),
                    (
                        "m²",
                        s.magnetization_squared,
                        exact.magnetization_squared_finite,
                        None,
                    ),
                    ("susceptibility χ′", s.susceptibility, None, None),
                    (
                        "specific heat C",
                        s.specific_heat,
                        exact.specific_heat_finite,
                        exact.specific_heat,
                    ),
                    ("Binder cumulant U", s.binder_cumulant, None, None),
                ];
                for (name, estimate, finite, infinite) in rows {
                    let label = ui.label(name);
                    if name.starts_with("susceptibility") {
                        label.on_hover_text(
                            "χ′ = L²(⟨m²⟩ − ⟨|m|⟩²): the connected part, finite in both phases",
                        );
                    }
                    ui.label(format!("{:.5} ± {:.5}", estimate.value, estimate.error));
                    ui.label(shown(finite));
                    ui.label(shown(infinite));
                    ui.end_row();
                }
                ui.label("τ_int (energy, |m|)");
                ui.label(format!(
                    "{:.1}, {:.1} sweeps",
                    s.tau_int_energy * params.mc.measure_every as f64,
                    s.tau_int_abs_magnetization * params.mc.measure_every as f64
                ));
                ui.end_row();
                ui.label("thermalisation");
                ui.label(format!(
                    "{} sweeps, {}",
                    result.thermalization_sweeps,
                    match result.thermalized {
                        Some(true) => "checked",
                        Some(false) => "not reached",
                        None => "not checked",
                    }
                ));
                ui.end_row();
                ui.label("correlation length ξ");
                ui.label(correlation_length_text(result, params.mc.size));
                ui.end_row();
            });
        if params.mc.plaquette != 0.0 {
            ui.label("Exact values are for K = 0 only.");
        }
        for note in &result.notes {
            let text = egui::RichText::new(format!("⚠ {note}")).color(ui.visuals().warn_fg_color);
            ui.add(egui::Label::new(text).wrap());
        }
    }

    pub(super) fn figures(&self, params: &IsingParams) -> Vec<PanelFigure> {
        let recipe = Recipe::new(ENGINE, &params.mc, Some(params.mc_seed));
        let mut out = Vec::new();
        if let Some(config) = self.snapshot() {
            out.push(recipe.figure("ising-lattice", figures::lattice_figure(config, &params.mc)));
        }
        if !self.measurements().is_empty() {
            out.push(recipe.figure(
                "ising-monte-carlo",
                figures::live_figure(self.measurements(), self.shown(), &params.mc),
            ));
        }
        out
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let mut tables = Vec::new();
        let measurements = self.measurements();
        if !measurements.is_empty() {
            let rows = measurements
                .iter()
                .map(|(sweep, m)| {
                    vec![
                        *sweep as f64,
                        m.bond_energy_per_site,
                        m.plaquette_per_site,
                        m.magnetization,
                    ]
                })
                .collect();
            tables.push(DataTable::new(
                "ising-series",
                &[
                    "sweep",
                    "bond_energy_per_site",
                    "plaquette_per_site",
                    "magnetization",
                ],
                rows,
            ));
        }
        if let Some(result) = self.shown() {
            let rows = result
                .correlation
                .iter()
                .enumerate()
                .map(|(r, g)| vec![r as f64, g.value, g.error])
                .collect();
            tables.push(DataTable::new(
                "ising-correlation",
                &["r", "G", "G_err"],
                rows,
            ));
            let rows = result
                .link_correlators
                .iter()
                .enumerate()
                .map(|(i, g)| vec![i as f64, g.value, g.error])
                .collect();
            tables.push(DataTable::new(
                "ising-link-correlators",
                &["index", "value", "error"],
                rows,
            ));
        }
        tables
    }

    pub(super) fn summary(&self, params: &IsingParams) -> serde_json::Value {
        let Some(result) = self.shown() else {
            return serde_json::Value::Null;
        };
        let exact = exact_values(&params.mc);
        serde_json::json!({
            "beta": params.mc.beta,
            "plaquette": params.mc.plaquette,
            "size": params.mc.size,
            "algorithm": params.mc.algorithm,
            "backend": result.backend,
            "sweeps": result.sweeps,
            "thermalization_sweeps": result.thermalization_sweeps,
            "thermalized": result.thermalized,
            "flips_per_ns": result.flips_per_ns,
            "observables": result.summary,
            "correlation_length": result.correlation_length,
            "correlation_length_error": result.correlation_length_error,
            "exact_infinite_lattice": {
                "bond_energy_per_site": exact.bond,
                "abs_magnetization": exact.magnetization,
                "specific_heat": exact.specific_heat,
            },
            "exact_finite_lattice": {
                "bond_energy_per_site": exact.bond_finite,
                "abs_magnetization": exact.magnetization_finite,
                "magnetization_squared": exact.magnetization_squared_finite,
                "specific_heat": exact.specific_heat_finite,
            },
            "notes": result.notes,
        })
    }
}

/// The lattice size: a menu of common sizes and a number field, both labelled "Lattice size L"
/// (the declared range bounds the field).
fn size_ui(ui: &mut egui::Ui, cx: &mut Cx<'_, IsingModel>) {
    let Some(param) = cx.declared.get("mc.size") else {
        return;
    };
    let (min, max) = (param.min as usize, param.max as usize);
    let mc = &mut cx.params.mc;
    ui.horizontal(|ui| {
        let name = ui.label(param.label);
        egui::ComboBox::from_id_salt("ising size")
            .selected_text(mc.size.to_string())
            .show_ui(ui, |ui| {
                for size in SIZES {
                    ui.selectable_value(&mut mc.size, size, size.to_string());
                }
            })
            .response
            .labelled_by(name.id);
        ui.add(egui::DragValue::new(&mut mc.size).range(min..=max))
            .labelled_by(name.id);
    });
}

/// What the panel shows for ξ: the value with ξ/L, or why there is none.
fn correlation_length_text(result: &McResult, size: usize) -> String {
    if result.correlation_length_exceeds_lattice {
        return format!("> L = {size}: beyond what the lattice resolves");
    }
    let size = size as f64;
    match (result.correlation_length, result.correlation_length_error) {
        (Some(xi), Some(error)) if error.is_finite() => {
            format!("{xi:.3} ± {error:.3} (ξ/L = {:.3})", xi / size)
        }
        (Some(xi), _) => format!("{xi:.3} (ξ/L = {:.3})", xi / size),
        (None, _) => "— (undefined)".to_owned(),
    }
}

/// Exact values for K = 0: Onsager's infinite lattice, and this L×L torus (Kaufman's bond
/// energy and specific heat; at β = 0 also |m| and m² of independent spins). None when K ≠ 0
/// or the parameters are invalid.
pub(super) struct ExactValues {
    pub bond: Option<f64>,
    pub magnetization: Option<f64>,
    pub specific_heat: Option<f64>,
    pub bond_finite: Option<f64>,
    pub magnetization_finite: Option<f64>,
    pub magnetization_squared_finite: Option<f64>,
    pub specific_heat_finite: Option<f64>,
}

pub(super) fn exact_values(mc: &McParams) -> ExactValues {
    let plain = mc.plaquette == 0.0 && mc.beta.is_finite() && mc.beta >= 0.0;
    let torus = plain.then(|| finite_torus(mc.size, mc.beta).ok()).flatten();
    let free_spins = (plain && mc.beta == 0.0 && torus.is_some()).then(|| mc.size * mc.size);
    let heat = plain.then(|| onsager_specific_heat(mc.beta));
    ExactValues {
        bond: plain.then(|| 2.0 * onsager_nn_correlation(mc.beta)),
        magnetization: plain.then(|| spontaneous_magnetization(mc.beta)),
        specific_heat: heat.filter(|c| c.is_finite()),
        bond_finite: torus.map(|t| t.bond_energy_per_site),
        magnetization_finite: free_spins.map(infinite_temperature_abs_magnetization),
        magnetization_squared_finite: free_spins.map(|n| 1.0 / n as f64),
        specific_heat_finite: torus.map(|t| t.specific_heat),
    }
}

/// The live run: sweeps in short chunks, streaming measurements and, when someone watches
/// (`watched`), lattice snapshots and observables so far; the final lattice always.
fn live_run(
    params: &McParams,
    seed: u64,
    share_gpu: bool,
    watched: bool,
    job: &JobContext<McUpdate>,
) -> Result<McResult, ComputeError> {
    let mut run = McRun::new(params, seed)?;
    let gpu = if share_gpu {
        run.simulation()
            .gpu_lattice()
            .map(|(buffer, _)| GpuLattice {
                buffer,
                size: params.size,
            })
    } else {
        None
    };
    let drawn_on_gpu = gpu.is_some();
    job.send(McUpdate::Started {
        backend: run.simulation().backend().clone(),
        gpu,
    });
    job.progress.set(
        0.0,
        format!("thermalising on {}", run.simulation().backend().description),
    );
    let mut chunk = 1;
    let mut last_snapshot = Instant::now() - Duration::from_secs(1);
    let mut last_summary = Instant::now();
    while run.stage() != Stage::Finished {
        let started = Instant::now();
        let new = run.advance(chunk, &job.cancel)?;
        // Keep chunks near 30 ms so cancellation and drawing stay prompt.
        let elapsed = started.elapsed();
        if elapsed < Duration::from_millis(15) {
            chunk = (chunk * 2).min(100_000);
        } else if elapsed > Duration::from_millis(60) {
            chunk = (chunk / 2).max(1);
        }
        if !new.is_empty() {
            job.send(McUpdate::Measurements(new));
        }
        if watched && !drawn_on_gpu && last_snapshot.elapsed() > Duration::from_millis(100) {
            job.send(McUpdate::Snapshot(Arc::new(run.simulation().config()?)));
            last_snapshot = Instant::now();
        }
        if watched
            && run.stage() == Stage::Measuring
            && last_summary.elapsed() > Duration::from_millis(700)
        {
            // Too few measurements yet is not an error; the next summary will come.
            if let Ok(result) = run.result() {
                job.send(McUpdate::Summary(Box::new(result)));
            }
            last_summary = Instant::now();
        }
        let stage = if run.stage() == Stage::Thermalizing {
            "thermalising"
        } else {
            "measuring"
        };
        job.progress.set(
            run.fraction(),
            format!(
                "{stage}: sweep {} of {}",
                run.sweeps_done(),
                run.total_sweeps()
            ),
        );
    }
    job.send(McUpdate::Snapshot(Arc::new(run.simulation().config()?)));
    run.result()
}
