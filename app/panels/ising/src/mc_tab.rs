//! The Monte Carlo tab: controls, the live lattice, traces, G(r) and observables with errors.

use std::sync::Arc;
use std::time::{Duration, Instant};

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_ising::exact::{
    onsager_nn_correlation, onsager_specific_heat, spontaneous_magnetization,
};
use benchtop_ising::observables::Measurement;
use benchtop_ising::simulation::{
    Algorithm, Backend, BackendInfo, McParams, McResult, McRun, Stage,
};
use benchtop_ising::{BETA_CRITICAL, SpinConfig, Start};

use super::lattice_view::{GpuLattice, LatticeView};
use super::{IsingParams, IsingView, SavedResults, figures};
use benchtop_kit::figure::{FigureViewState, show_figure};
use benchtop_kit::jobs::Job;
use benchtop_kit::panel::{DataTable, PanelContext, PanelFigure};
use benchtop_kit::panel::{from_json, to_json};
use benchtop_kit::project::Sidecar;
use benchtop_kit::widgets::labelled;

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

/// Lattice sizes offered in the size menu.
const SIZES: [usize; 9] = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

#[derive(Default)]
pub(super) struct McTab {
    job: Option<Job<McUpdate, McResult>>,
    /// Params and seed of the running job, or of the shown result.
    current: Option<(McParams, u64)>,
    measurements: Vec<(u64, Measurement)>,
    snapshot: Option<Arc<SpinConfig>>,
    result: Option<McResult>,
    backend: Option<BackendInfo>,
    gpu: Option<GpuLattice>,
    lattice: LatticeView,
    error: Option<String>,
    plots: FigureViewState,
}

impl McTab {
    pub(super) fn is_busy(&self) -> bool {
        self.job.is_some()
    }

    pub(super) fn mark_current(&mut self, params: &IsingParams) {
        if self.result.is_some() {
            self.current = Some((params.mc.clone(), params.mc_seed));
        }
    }

    /// Starts (or restarts) the live run with `params`.
    fn start(&mut self, params: &IsingParams, context: &PanelContext<'_>, ctx: &egui::Context) {
        self.job = None;
        self.current = Some((params.mc.clone(), params.mc_seed));
        if let Err(error) = params.mc.validate() {
            self.error = Some(error.to_string());
            return;
        }
        self.error = None;
        self.measurements.clear();
        self.result = None;
        self.gpu = None;
        let (mc, seed) = (params.mc.clone(), params.mc_seed);
        let share_gpu = context.shared_gpu && context.render_state.is_some();
        let spawned = Job::spawn(
            "ising: Monte Carlo",
            context.jobs,
            Some(ctx.clone()),
            move |job| live_run(&mc, seed, share_gpu, job),
        );
        match spawned {
            Ok(job) => self.job = Some(job),
            Err(error) => self.error = Some(error.to_string()),
        }
    }

    pub(super) fn react_to_params(
        &mut self,
        params: &IsingParams,
        view: &IsingView,
        context: &PanelContext<'_>,
        ctx: &egui::Context,
    ) {
        let wanted = (params.mc.clone(), params.mc_seed);
        if self.current.as_ref() == Some(&wanted) {
            return;
        }
        if self.job.is_some() || view.auto_run {
            self.start(params, context, ctx);
        }
    }

    pub(super) fn poll(&mut self) {
        let Some(job) = &mut self.job else { return };
        // Updates sent just before the job returned are drained after it finished, too.
        let finished = job.is_finished();
        for update in job.drain_updates() {
            match update {
                McUpdate::Started { backend, gpu } => {
                    self.backend = Some(backend);
                    self.gpu = gpu;
                }
                McUpdate::Measurements(new) => self.measurements.extend(new),
                McUpdate::Snapshot(config) => self.snapshot = Some(config),
                McUpdate::Summary(result) => self.result = Some(*result),
            }
        }
        if !finished {
            return;
        }
        if let Some(outcome) = job.try_finish() {
            self.job = None;
            if let Some(result) = outcome.result_or_record(&mut self.error) {
                self.result = Some(result);
            }
        }
    }

    /// Runs the Monte Carlo to the end on this thread (headless).
    pub(super) fn run_blocking(
        &mut self,
        params: &IsingParams,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> anyhow::Result<()> {
        params.mc.validate()?;
        let mut run = McRun::new(&params.mc, params.mc_seed)?;
        progress.set(
            0.0,
            format!("Monte Carlo on {}", run.simulation().backend().description),
        );
        let chunk = (run.total_sweeps() / 200).max(1);
        while run.stage() != Stage::Finished {
            let new = run.advance(chunk, cancel)?;
            self.measurements.extend(new);
            progress.set_fraction(run.fraction());
        }
        self.snapshot = Some(Arc::new(run.simulation().config()?));
        self.backend = Some(run.simulation().backend().clone());
        self.result = Some(run.result()?);
        self.current = Some((params.mc.clone(), params.mc_seed));
        Ok(())
    }

    pub(super) fn save(
        &self,
        results: &mut SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        let Some(result) = &self.result else {
            return Ok(());
        };
        let mut stripped = result.clone();
        stripped.series = Default::default();
        results.mc = Some(to_json(&stripped)?);
        if let Some(sidecar) = sidecar {
            let rows = self.measurements.len();
            let mut flat = Vec::with_capacity(rows * 4);
            for (sweep, m) in &self.measurements {
                #[allow(clippy::cast_precision_loss)]
                flat.extend([
                    *sweep as f64,
                    m.bond_energy_per_site,
                    m.plaquette_per_site,
                    m.magnetization,
                ]);
            }
            results.series_file = Some(sidecar.write_f64("ising-series", &[rows, 4], &flat)?);
            if let Some(config) = &self.snapshot {
                let size = config.size();
                results.snapshot_file =
                    Some(sidecar.write_i8("ising-lattice", &[size, size], config.spins())?);
            }
        }
        Ok(())
    }

    pub(super) fn restore(
        &mut self,
        results: &SavedResults,
        sidecar: Option<&Sidecar>,
    ) -> anyhow::Result<()> {
        if let Some(value) = &results.mc {
            self.result = Some(from_json(value)?);
            self.backend = self.result.as_ref().map(|r| r.backend.clone());
        }
        if let (Some(sidecar), Some(file)) = (sidecar, &results.series_file) {
            let (shape, values) = sidecar.read_f64(file)?;
            anyhow::ensure!(
                shape.len() == 2 && shape[1] == 4,
                "{file}: expected a table of 4 columns"
            );
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
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
            self.measurements = rows.collect();
            if let Some(result) = &mut self.result {
                for (_, m) in &self.measurements {
                    result.series.push(*m);
                }
            }
        }
        if let (Some(sidecar), Some(file)) = (sidecar, &results.snapshot_file) {
            let (shape, spins) = sidecar.read_i8(file)?;
            anyhow::ensure!(
                shape.len() == 2 && shape[0] == shape[1],
                "{file}: expected a square lattice"
            );
            self.snapshot = Some(Arc::new(SpinConfig::from_spins(shape[0], spins)?));
        }
        Ok(())
    }

    pub(super) fn ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut IsingParams,
        view: &mut IsingView,
        context: &PanelContext<'_>,
    ) {
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.set_width(280.0);
                egui::ScrollArea::vertical()
                    .id_salt("ising mc controls")
                    .show(ui, |ui| {
                        self.controls_ui(ui, params, view, context);
                    });
            });
            ui.separator();
            ui.vertical(|ui| {
                let side = (ui.available_width() * 0.42)
                    .min(ui.available_height() * 0.55)
                    .max(160.0);
                ui.horizontal_top(|ui| {
                    let gpu = if context.shared_gpu {
                        self.gpu.as_ref()
                    } else {
                        None
                    };
                    self.lattice
                        .show(ui, side, self.snapshot.as_ref(), gpu, context.render_state);
                    ui.vertical(|ui| self.observables_ui(ui, params));
                });
                let figure =
                    figures::live_figure(&self.measurements, self.result.as_ref(), &params.mc);
                show_figure(ui, &figure, &mut self.plots);
            });
        });
    }

    fn controls_ui(
        &mut self,
        ui: &mut egui::Ui,
        params: &mut IsingParams,
        view: &mut IsingView,
        context: &PanelContext<'_>,
    ) {
        let mc = &mut params.mc;
        ui.checkbox(&mut view.temperature, "Show temperature T = 1/β");
        if view.temperature {
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
        } else {
            ui.add(egui::Slider::new(&mut mc.beta, 0.0..=1.5).text("Coupling β"));
        }
        if ui
            .small_button(format!("Set β to β_c = {BETA_CRITICAL:.4}"))
            .clicked()
        {
            mc.beta = BETA_CRITICAL;
        }
        ui.add(egui::Slider::new(&mut mc.plaquette, -1.0..=1.0).text("Plaquette K"));
        ui.horizontal(|ui| {
            let name = ui.label("Lattice size L");
            egui::ComboBox::from_id_salt("ising size")
                .selected_text(mc.size.to_string())
                .show_ui(ui, |ui| {
                    for size in SIZES {
                        ui.selectable_value(&mut mc.size, size, size.to_string());
                    }
                })
                .response
                .labelled_by(name.id);
            ui.add(egui::DragValue::new(&mut mc.size).range(4..=32_768))
                .labelled_by(name.id);
        });
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
        labelled(ui, "Seed", egui::DragValue::new(&mut params.mc_seed));
        let mc = &mut params.mc;
        labelled(
            ui,
            "Thermalisation sweeps",
            egui::DragValue::new(&mut mc.thermalization_sweeps).range(0..=10_000_000),
        );
        labelled(
            ui,
            "Measurement sweeps",
            egui::DragValue::new(&mut mc.measurement_sweeps).range(1..=100_000_000),
        );
        labelled(
            ui,
            "Measure every",
            egui::DragValue::new(&mut mc.measure_every)
                .range(1..=100_000)
                .suffix(" sweeps"),
        );
        ui.checkbox(&mut view.auto_run, "Run when parameters change");
        ui.separator();
        if let Some(job) = &self.job {
            let info = job.info();
            #[allow(clippy::cast_possible_truncation)]
            let fraction = info.progress.fraction() as f32;
            let eta = info
                .eta()
                .map(|d| format!(" — {:.0} s left", d.as_secs_f64()))
                .unwrap_or_default();
            ui.add(egui::ProgressBar::new(fraction).text(format!("{:.0}%{eta}", 100.0 * fraction)));
            if ui.button("Stop Monte Carlo").clicked() {
                job.cancel();
            }
        } else if ui.button("Run Monte Carlo").clicked() {
            self.start(params, context, ui.ctx());
        }
        if let Some(backend) = &self.backend {
            ui.label(format!("Backend: {}", backend.description));
        }
        if let Some(result) = &self.result {
            ui.label(format!(
                "{} sweeps, {:.3} spin flips per ns",
                result.sweeps, result.flips_per_ns
            ));
        }
        if let Some(error) = &self.error {
            ui.colored_label(ui.visuals().error_fg_color, error);
        }
    }

    fn observables_ui(&self, ui: &mut egui::Ui, params: &IsingParams) {
        ui.strong("Observables");
        let Some(result) = &self.result else {
            ui.label("Measuring…");
            return;
        };
        let s = &result.summary;
        let exact = exact_values(&params.mc);
        egui::Grid::new("ising observables")
            .striped(true)
            .show(ui, |ui| {
                ui.strong("quantity");
                ui.strong("Monte Carlo");
                ui.strong("exact, L → ∞");
                ui.end_row();
                let rows = [
                    ("bond energy per site", s.bond_energy_per_site, exact.bond),
                    ("plaquette per site", s.plaquette_per_site, None),
                    ("|m|", s.abs_magnetization, exact.magnetization),
                    ("m²", s.magnetization_squared, None),
                    ("susceptibility χ", s.susceptibility, None),
                    ("specific heat C", s.specific_heat, exact.specific_heat),
                    ("Binder cumulant U", s.binder_cumulant, None),
                ];
                for (name, estimate, exact) in rows {
                    ui.label(name);
                    ui.label(format!("{:.5} ± {:.5}", estimate.value, estimate.error));
                    ui.label(
                        exact
                            .map(|v| format!("{v:.5}"))
                            .unwrap_or_else(|| "—".to_owned()),
                    );
                    ui.end_row();
                }
                ui.label("τ_int (energy, |m|)");
                ui.label(format!(
                    "{:.1}, {:.1} sweeps",
                    s.tau_int_energy, s.tau_int_abs_magnetization
                ));
                ui.label("");
                ui.end_row();
                ui.label("correlation length ξ");
                ui.label(
                    result
                        .correlation_length
                        .map_or_else(|| "—".to_owned(), |x| format!("{x:.3}")),
                );
                ui.label("");
                ui.end_row();
            });
        if params.mc.plaquette != 0.0 {
            ui.label("Exact values are for K = 0 only.");
        }
    }

    pub(super) fn figures(&self, params: &IsingParams) -> Vec<PanelFigure> {
        let provenance = serde_json::to_value(&params.mc).unwrap_or_default();
        let engine = (
            benchtop_ising::simulation::ENGINE_NAME,
            benchtop_ising::simulation::ENGINE_VERSION,
        );
        let mut out = Vec::new();
        if let Some(config) = &self.snapshot {
            out.push(PanelFigure {
                name: "ising-lattice".into(),
                figure: figures::lattice_figure(config, &params.mc),
                params: provenance.clone(),
                seed: Some(params.mc_seed),
                engine,
            });
        }
        if !self.measurements.is_empty() {
            out.push(PanelFigure {
                name: "ising-monte-carlo".into(),
                figure: figures::live_figure(&self.measurements, self.result.as_ref(), &params.mc),
                params: provenance,
                seed: Some(params.mc_seed),
                engine,
            });
        }
        out
    }

    pub(super) fn tables(&self) -> Vec<DataTable> {
        let mut tables = Vec::new();
        if !self.measurements.is_empty() {
            #[allow(clippy::cast_precision_loss)]
            let rows = self
                .measurements
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
            tables.push(DataTable {
                name: "ising-series".into(),
                columns: [
                    "sweep",
                    "bond_energy_per_site",
                    "plaquette_per_site",
                    "magnetization",
                ]
                .map(String::from)
                .to_vec(),
                rows,
            });
        }
        if let Some(result) = &self.result {
            #[allow(clippy::cast_precision_loss)]
            let rows = result
                .correlation
                .iter()
                .enumerate()
                .map(|(r, g)| vec![r as f64, g.value, g.error])
                .collect();
            tables.push(DataTable {
                name: "ising-correlation".into(),
                columns: ["r", "G", "G_err"].map(String::from).to_vec(),
                rows,
            });
            #[allow(clippy::cast_precision_loss)]
            let rows = result
                .link_correlators
                .iter()
                .enumerate()
                .map(|(i, g)| vec![i as f64, g.value, g.error])
                .collect();
            tables.push(DataTable {
                name: "ising-link-correlators".into(),
                columns: ["index", "value", "error"].map(String::from).to_vec(),
                rows,
            });
        }
        tables
    }

    pub(super) fn summary(&self, params: &IsingParams) -> serde_json::Value {
        let Some(result) = &self.result else {
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
            "flips_per_ns": result.flips_per_ns,
            "observables": result.summary,
            "correlation_length": result.correlation_length,
            "exact_infinite_lattice": {
                "bond_energy_per_site": exact.bond,
                "abs_magnetization": exact.magnetization,
                "specific_heat": exact.specific_heat,
            },
        })
    }
}

/// Exact thermodynamic-limit values for K = 0 (None when K ≠ 0 or undefined).
pub(super) struct ExactValues {
    pub bond: Option<f64>,
    pub magnetization: Option<f64>,
    pub specific_heat: Option<f64>,
}

pub(super) fn exact_values(mc: &McParams) -> ExactValues {
    if mc.plaquette != 0.0 || mc.beta <= 0.0 {
        return ExactValues {
            bond: None,
            magnetization: None,
            specific_heat: None,
        };
    }
    let heat = onsager_specific_heat(mc.beta);
    ExactValues {
        bond: Some(2.0 * onsager_nn_correlation(mc.beta)),
        magnetization: Some(spontaneous_magnetization(mc.beta)),
        specific_heat: heat.is_finite().then_some(heat),
    }
}

/// The live run: sweeps in short chunks, streaming measurements, snapshots and summaries.
fn live_run(
    params: &McParams,
    seed: u64,
    share_gpu: bool,
    job: &benchtop_kit::jobs::JobContext<McUpdate>,
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
        if !drawn_on_gpu && last_snapshot.elapsed() > Duration::from_millis(100) {
            job.send(McUpdate::Snapshot(Arc::new(run.simulation().config()?)));
            last_snapshot = Instant::now();
        }
        if run.stage() == Stage::Measuring && last_summary.elapsed() > Duration::from_millis(700) {
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
