//! Monte Carlo runs: choose a sampler and backend, thermalise, measure, summarise.
//!
//! [`McRun`] is a stepper (the panel advances it in small chunks and draws as it goes);
//! [`run`] drives one to the end. Both give the same bits for the same params and seed.

use std::sync::Arc;
use std::time::Instant;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::{Deserialize, Serialize};

use crate::checkerboard::{CpuCheckerboard, CpuLayout};
use crate::correlation::CorrelationAccumulator;
use crate::couplings::{BETA_CRITICAL, Couplings};
use crate::cuda::CudaCheckerboard;
use crate::gpu::GpuCheckerboard;
use crate::lattice::{SpinConfig, Start};
use crate::observables::{Measurement, ObservableSummary, TimeSeries, measure};
use crate::single_spin::SingleSpinMetropolis;
use crate::stats::{
    Estimate, binning_error, correlated_error, drift_z, integrated_autocorrelation_time, mean,
};
use crate::wolff::Wolff;

/// Engine name for provenance.
pub const ENGINE_NAME: &str = "benchtop-ising";
/// Engine version for provenance.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The update algorithm.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Algorithm {
    /// Checkerboard Metropolis (CPU multi-spin, wgpu or CUDA).
    #[default]
    Checkerboard,
    /// Single-spin Metropolis at random sites, as in the duality paper (CPU).
    SingleSpin,
    /// Wolff clusters (K = 0 only, CPU).
    Wolff,
}

impl Algorithm {
    /// Sentence-case name.
    pub fn label(self) -> &'static str {
        match self {
            Self::Checkerboard => "Checkerboard Metropolis",
            Self::SingleSpin => "Single-spin Metropolis",
            Self::Wolff => "Wolff clusters",
        }
    }
}

/// Where checkerboard sweeps run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Backend {
    /// CUDA when present, else a hardware wgpu adapter, else the CPU.
    #[default]
    Auto,
    /// The CPU (multi-threaded, multi-spin coded).
    Cpu,
    /// The shared wgpu device.
    Wgpu,
    /// CUDA device 0.
    Cuda,
}

impl Backend {
    /// Lower-case name as used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Cpu => "cpu",
            Self::Wgpu => "wgpu",
            Self::Cuda => "cuda",
        }
    }
}

/// Parameters of a Monte Carlo run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct McParams {
    /// Lattice side L.
    pub size: usize,
    /// Nearest-neighbour coupling β.
    pub beta: f64,
    /// Plaquette coupling K.
    pub plaquette: f64,
    /// Update algorithm.
    pub algorithm: Algorithm,
    /// Backend for checkerboard sweeps.
    pub backend: Backend,
    /// Initial configuration.
    pub start: Start,
    /// Sweeps discarded before measuring, at least: the run checks that it has thermalised
    /// and keeps discarding (doubling) while it has not, up to
    /// max(this, `measurement_sweeps`) (see [`McRun`]). 0 skips thermalisation and its check.
    pub thermalization_sweeps: u64,
    /// Sweeps during which measurements are taken.
    pub measurement_sweeps: u64,
    /// Sweeps between measurements of energy, plaquette and magnetisation.
    pub measure_every: u64,
    /// Sweeps between (costlier) measurements of G(r) and the link correlators.
    pub correlation_every: u64,
    /// CPU worker threads (0: one per core).
    pub threads: usize,
}

impl Default for McParams {
    fn default() -> Self {
        Self {
            size: 64,
            beta: BETA_CRITICAL,
            plaquette: 0.0,
            algorithm: Algorithm::Checkerboard,
            backend: Backend::Auto,
            start: Start::Cold,
            thermalization_sweeps: 500,
            measurement_sweeps: 4000,
            measure_every: 1,
            correlation_every: 20,
            threads: 0,
        }
    }
}

impl McParams {
    /// The couplings.
    pub fn couplings(&self) -> Couplings {
        Couplings {
            beta: self.beta,
            plaquette: self.plaquette,
        }
    }

    /// Checks every parameter; errors name the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        crate::lattice::validate_size(self.size)?;
        self.couplings().validate()?;
        if self.algorithm == Algorithm::Wolff && self.plaquette != 0.0 {
            return Err(ComputeError::invalid(
                "algorithm",
                "Wolff clusters need K = 0; use a Metropolis algorithm with a plaquette term",
            ));
        }
        if self.measurement_sweeps == 0 || self.measurement_sweeps > 100_000_000 {
            return Err(ComputeError::invalid(
                "measurement_sweeps",
                "choose between 1 and 10⁸ sweeps",
            ));
        }
        if self.thermalization_sweeps > 100_000_000 {
            return Err(ComputeError::invalid(
                "thermalization_sweeps",
                "choose at most 10⁸ sweeps",
            ));
        }
        if self.measure_every == 0 || self.correlation_every == 0 {
            return Err(ComputeError::invalid(
                "measure_every",
                "measurement intervals must be at least 1 sweep",
            ));
        }
        let measurements = self.measurement_sweeps / self.measure_every;
        if measurements < 2 {
            return Err(ComputeError::invalid(
                "measurement_sweeps",
                format!(
                    "{} measurement sweeps with a measurement every {} sweeps give {measurements} \
                     measurements; a summary needs at least 2 (measure more sweeps, or more often)",
                    self.measurement_sweeps, self.measure_every
                ),
            ));
        }
        if self.threads > 1024 {
            return Err(ComputeError::invalid(
                "threads",
                "use at most 1024 threads (0 = one per core)",
            ));
        }
        Ok(())
    }
}

/// Which backend a run ended up on, in words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackendInfo {
    /// `cpu`, `wgpu` or `cuda`.
    pub kind: String,
    /// Adapter, device or CPU layout, e.g. `NVIDIA H200 (Vulkan, discrete GPU)`.
    pub description: String,
}

enum Sampler {
    Cpu(CpuCheckerboard),
    Wgpu(GpuCheckerboard),
    Cuda(CudaCheckerboard),
    SingleSpin(SingleSpinMetropolis),
    Wolff {
        sampler: Wolff,
        clusters_per_sweep: Option<usize>,
    },
}

/// A lattice with a sampler on a backend.
pub struct Simulation {
    sampler: Sampler,
    size: usize,
    backend: BackendInfo,
}

impl std::fmt::Debug for Simulation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulation")
            .field("size", &self.size)
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

impl Simulation {
    /// Creates the lattice and the sampler (GPU backends compile their kernels here).
    pub fn new(params: &McParams, seed: u64) -> Result<Self, ComputeError> {
        params.validate()?;
        let config = SpinConfig::new(
            params.size,
            params.start,
            benchtop_compute::rng::derive_seed(seed, 1),
        )?;
        let couplings = params.couplings();
        let packable = params.size.is_multiple_of(64);
        let (sampler, backend) = match params.algorithm {
            Algorithm::SingleSpin => (
                Sampler::SingleSpin(SingleSpinMetropolis::new(config, couplings, seed)?),
                BackendInfo {
                    kind: "cpu".into(),
                    description: "CPU, single-spin Metropolis".into(),
                },
            ),
            Algorithm::Wolff => (
                Sampler::Wolff {
                    sampler: Wolff::new(config, params.beta, seed)?,
                    clusters_per_sweep: None,
                },
                BackendInfo {
                    kind: "cpu".into(),
                    description: "CPU, Wolff clusters".into(),
                },
            ),
            Algorithm::Checkerboard => match resolve_backend(params.backend, packable)? {
                Backend::Cuda => {
                    let device = benchtop_compute::cuda::device()?;
                    let name = device.name.clone();
                    let sampler = CudaCheckerboard::new(device, &config, couplings, seed)?;
                    (
                        Sampler::Cuda(sampler),
                        BackendInfo {
                            kind: "cuda".into(),
                            description: name,
                        },
                    )
                }
                Backend::Wgpu => {
                    let context = benchtop_compute::gpu::context()?;
                    let sampler = GpuCheckerboard::new(context, &config, couplings, seed)?;
                    let description = sampler.adapter();
                    (
                        Sampler::Wgpu(sampler),
                        BackendInfo {
                            kind: "wgpu".into(),
                            description,
                        },
                    )
                }
                Backend::Cpu | Backend::Auto => {
                    let sampler = CpuCheckerboard::new(&config, couplings, seed, params.threads)?;
                    let layout = match sampler.layout() {
                        CpuLayout::Words64 => "64 spins per word",
                        CpuLayout::Words32 => "32 spins per word",
                        CpuLayout::BytePerSpin => "one byte per spin",
                    };
                    let description = format!("CPU, {} threads, {layout}", sampler.threads());
                    (
                        Sampler::Cpu(sampler),
                        BackendInfo {
                            kind: "cpu".into(),
                            description,
                        },
                    )
                }
            },
        };
        Ok(Self {
            sampler,
            size: params.size,
            backend,
        })
    }

    /// The backend in use.
    pub fn backend(&self) -> &BackendInfo {
        &self.backend
    }

    /// Side L.
    pub fn size(&self) -> usize {
        self.size
    }

    /// `count` sweeps (for single-spin: L² updates each; for Wolff: clusters until L² flips).
    pub fn sweeps(&mut self, count: u64, cancel: &CancelToken) -> Result<(), ComputeError> {
        match &mut self.sampler {
            Sampler::Cpu(sampler) => sampler.sweeps(count, cancel),
            Sampler::Wgpu(sampler) => sampler.sweeps(count, cancel),
            Sampler::Cuda(sampler) => sampler.sweeps(count, cancel),
            Sampler::SingleSpin(sampler) => {
                let sites = (self.size * self.size) as u64;
                for _ in 0..count {
                    cancel.check()?;
                    sampler.update(sites);
                }
                Ok(())
            }
            Sampler::Wolff {
                sampler,
                clusters_per_sweep,
            } => {
                for _ in 0..count {
                    cancel.check()?;
                    match clusters_per_sweep {
                        // A fixed number of clusters between measurements: ending a "sweep"
                        // after a size threshold would favour ordered states (big clusters).
                        Some(clusters) => {
                            sampler.steps(*clusters);
                        }
                        None => sampler.sweep(),
                    }
                }
                Ok(())
            }
        }
    }

    /// For Wolff: from now on a "sweep" is a fixed number of clusters (the average number per
    /// L² flipped spins so far), so measurements are not biased towards ordered states. Other
    /// samplers ignore this.
    pub fn fix_cluster_budget(&mut self) {
        if let Sampler::Wolff {
            sampler,
            clusters_per_sweep,
        } = &mut self.sampler
        {
            *clusters_per_sweep = Some(sampler.clusters_per_sweep().max(1));
        }
    }

    /// The current configuration (read back from the GPU when needed).
    pub fn config(&self) -> Result<SpinConfig, ComputeError> {
        match &self.sampler {
            Sampler::Cpu(sampler) => Ok(sampler.config()),
            Sampler::Wgpu(sampler) => sampler.read_config(),
            Sampler::Cuda(sampler) => sampler.read_config(),
            Sampler::SingleSpin(sampler) => Ok(sampler.config().clone()),
            Sampler::Wolff { sampler, .. } => Ok(sampler.config().clone()),
        }
    }

    /// The GPU lattice buffer (packed layout) when running on wgpu, for drawing it directly.
    pub fn gpu_lattice(&self) -> Option<(wgpu::Buffer, Arc<benchtop_compute::gpu::GpuContext>)> {
        match &self.sampler {
            Sampler::Wgpu(sampler) => {
                Some((sampler.spin_buffer().clone(), Arc::clone(sampler.context())))
            }
            _ => None,
        }
    }
}

fn resolve_backend(requested: Backend, packable: bool) -> Result<Backend, ComputeError> {
    let needs_packing = |name: &str| {
        ComputeError::invalid(
            "backend",
            format!(
                "the {name} sampler needs L to be a multiple of 64; choose such an L or the CPU"
            ),
        )
    };
    match requested {
        Backend::Cpu => Ok(Backend::Cpu),
        Backend::Wgpu if !packable => Err(needs_packing("wgpu")),
        Backend::Cuda if !packable => Err(needs_packing("CUDA")),
        Backend::Wgpu | Backend::Cuda => Ok(requested),
        Backend::Auto => {
            if packable && benchtop_compute::cuda::device().is_ok() {
                Ok(Backend::Cuda)
            } else if packable
                && benchtop_compute::gpu::context().is_ok_and(|context| !context.is_software())
            {
                Ok(Backend::Wgpu)
            } else {
                Ok(Backend::Cpu)
            }
        }
    }
}

/// The outcome of a Monte Carlo run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct McResult {
    /// Observables with error bars.
    pub summary: ObservableSummary,
    /// The measurements the summary is made of (after any discarded as thermalisation).
    pub series: TimeSeries,
    /// G(r) for r = 0..=L/2 with standard errors.
    pub correlation: Vec<Estimate>,
    /// Second-moment correlation length, when defined and resolved: `None` when undefined or
    /// when it exceeds L (see `correlation_length_exceeds_lattice`).
    pub correlation_length: Option<f64>,
    /// The jackknife error of `correlation_length` (NaN with fewer than 2 blocks of
    /// configurations).
    #[serde(default)]
    pub correlation_length_error: Option<f64>,
    /// Whether ξ came out larger than L by more than twice its error, beyond what the lattice
    /// resolves (in the ordered phase the second-moment ξ measures m² and grows without
    /// bound); it is then not reported.
    #[serde(default)]
    pub correlation_length_exceeds_lattice: bool,
    /// The 13 link correlators of the duality paper (means over measurements).
    pub link_correlators: Vec<Estimate>,
    /// Where it ran.
    pub backend: BackendInfo,
    /// Sweeps done (thermalisation and measurement).
    pub sweeps: u64,
    /// Sweeps discarded as thermalisation: at least the requested number; more when a check
    /// asked for more (the first measurements then count as thermalisation).
    #[serde(default)]
    pub thermalization_sweeps: u64,
    /// Whether the thermalisation checks passed; `None` when there was nothing to check (0
    /// sweeps requested, or too few measurements during thermalisation: a note says so) or the
    /// result predates the checks.
    #[serde(default)]
    pub thermalized: Option<bool>,
    /// Warnings a reader of these numbers needs: thermalisation not reached, a drift during
    /// the measurement, a run shorter than [`RUN_LENGTH_IN_TAU`] autocorrelation times or than
    /// [`MIN_RELIABLE_SAMPLES`] measurements, ξ beyond the lattice. Empty when there is nothing
    /// to warn about.
    #[serde(default)]
    pub notes: Vec<String>,
    /// Wall time spent in sweeps only.
    pub sweep_time_s: f64,
    /// Spin updates per nanosecond during sweeps (L² per sweep).
    pub flips_per_ns: f64,
}

/// Which stage a run is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stage {
    /// Discarding sweeps before measuring.
    Thermalizing,
    /// Measuring.
    Measuring,
    /// All sweeps done.
    Finished,
}

/// A measurement run should last at least this many integrated autocorrelation times of the
/// energy and of |m|; shorter runs get a note (their error bars are themselves unreliable).
pub const RUN_LENGTH_IN_TAU: f64 = 50.0;

/// Thermalisation lasts at least this many integrated autocorrelation times of the energy
/// and of |m|, as measured over the measurement (the first measurements are discarded until it
/// does; see [`McRun`]).
pub const THERMALIZATION_IN_TAU: f64 = 10.0;

/// Fewer measurements than this get a note: on short series the windowed τ_int comes out
/// several times too small (200 measurements at L = 16, β_c: 2.4 instead of about 10), so
/// neither the [`RUN_LENGTH_IN_TAU`] check nor the error bars can be trusted.
pub const MIN_RELIABLE_SAMPLES: usize = 1000;

/// Two halves of a window differ significantly when their means are this many combined
/// standard errors apart ([`crate::stats::drift_z`]).
pub const DRIFT_Z: f64 = 3.0;

/// Each half of a thermalisation window needs this many measurements to be compared.
pub const MIN_WINDOW_HALF: usize = 16;

/// A Monte Carlo run advanced in chunks.
///
/// # Thermalisation, checked
/// Two checks, both automatic:
/// - **Drift.** The run measures b, p and |m| during thermalisation too (every
///   `measure_every` sweeps). When it has done T sweeps (first T = `thermalization_sweeps`) it
///   compares the two halves of the window (T/2, T] with [`crate::stats::drift_z`]: done when
///   every observable agrees within [`DRIFT_Z`] (each half needs [`MIN_WINDOW_HALF`]
///   measurements), else T doubles, up to max(`thermalization_sweeps`, `measurement_sweeps`).
///   This catches the relaxation from the start (a cold start at large L, say).
/// - **Autocorrelation.** A drift test cannot see a slow mode that still remembers the start
///   while everything else looks settled (at β_c the long-wavelength magnetisation relaxes
///   over hundreds of sweeps at L = 128). So thermalisation must also last
///   [`THERMALIZATION_IN_TAU`] τ_int of the energy and of |m|, measured over the whole
///   measurement: the first measurements are discarded until it does, at most half of them.
///
/// A run that fails either check says so in [`McResult::notes`] (`thermalized` false), as does
/// one that measured too rarely during thermalisation to compare anything. The
/// notes also report a drift between the halves of the measurement kept and a measurement
/// shorter than [`RUN_LENGTH_IN_TAU`] τ_int. G(r) and the link correlators use every
/// measurement (a discarded stretch is short next to the run when the checks pass).
pub struct McRun {
    params: McParams,
    simulation: Simulation,
    /// Sweeps to discard (grows while the thermalisation check fails).
    thermalization_target: u64,
    /// The check's verdict once thermalisation has ended (None: not checked).
    thermalized: Option<bool>,
    /// Whether thermalisation ended with too few measurements to check its drift.
    thermalization_unchecked: bool,
    /// Measurements during thermalisation, every `measure_every` sweeps from sweep 0.
    thermalization_series: TimeSeries,
    series: TimeSeries,
    correlations: CorrelationAccumulator,
    links: Vec<Vec<f64>>,
    sweeps_done: u64,
    sweep_time_s: f64,
}

impl std::fmt::Debug for McRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McRun")
            .field("params", &self.params)
            .field("sweeps_done", &self.sweeps_done)
            .finish_non_exhaustive()
    }
}

impl McRun {
    /// Prepares a run (lattice, sampler, accumulators).
    pub fn new(params: &McParams, seed: u64) -> Result<Self, ComputeError> {
        let mut simulation = Simulation::new(params, seed)?;
        if params.thermalization_sweeps == 0 {
            simulation.fix_cluster_budget();
        }
        Ok(Self {
            params: params.clone(),
            correlations: CorrelationAccumulator::new(params.size)?,
            simulation,
            thermalization_target: params.thermalization_sweeps,
            thermalized: None,
            thermalization_unchecked: false,
            thermalization_series: TimeSeries::default(),
            series: TimeSeries::default(),
            links: vec![Vec::new(); crate::links::CORRELATOR_NAMES.len()],
            sweeps_done: 0,
            sweep_time_s: 0.0,
        })
    }

    /// The simulation (backend, GPU buffer, configuration).
    pub fn simulation(&self) -> &Simulation {
        &self.simulation
    }

    /// Total sweeps of the run as planned now (grows when thermalisation is extended).
    pub fn total_sweeps(&self) -> u64 {
        self.thermalization_target + self.params.measurement_sweeps
    }

    /// Sweeps discarded as thermalisation, as planned now.
    pub fn thermalization_sweeps(&self) -> u64 {
        self.thermalization_target
    }

    /// The thermalisation check's verdict: `None` while thermalising or when nothing was
    /// checked (0 thermalisation sweeps).
    pub fn thermalized(&self) -> Option<bool> {
        self.thermalized
    }

    /// The measurements taken during thermalisation (every `measure_every` sweeps from 0).
    pub fn thermalization_series(&self) -> &TimeSeries {
        &self.thermalization_series
    }

    /// Sweeps done so far.
    pub fn sweeps_done(&self) -> u64 {
        self.sweeps_done
    }

    /// The current stage.
    pub fn stage(&self) -> Stage {
        if self.sweeps_done < self.thermalization_target {
            Stage::Thermalizing
        } else if self.sweeps_done < self.total_sweeps() {
            Stage::Measuring
        } else {
            Stage::Finished
        }
    }

    /// Fraction done.
    pub fn fraction(&self) -> f64 {
        self.sweeps_done as f64 / self.total_sweeps().max(1) as f64
    }

    /// Measurements so far.
    pub fn series(&self) -> &TimeSeries {
        &self.series
    }

    /// Up to `max_sweeps` more sweeps, with measurements on schedule; returns the new
    /// measurements of the measurement stage (sweep number, values). Thermalisation
    /// measurements go to [`Self::thermalization_series`].
    pub fn advance(
        &mut self,
        max_sweeps: u64,
        cancel: &CancelToken,
    ) -> Result<Vec<(u64, Measurement)>, ComputeError> {
        let mut new = Vec::new();
        let end = self.sweeps_done.saturating_add(max_sweeps);
        let every = self.params.measure_every;
        while self.sweeps_done < end.min(self.total_sweeps()) {
            let thermal = self.thermalization_target;
            let thermalizing = self.sweeps_done < thermal;
            let (phase_start, phase_end) = if thermalizing {
                (0, thermal)
            } else {
                (thermal, self.total_sweeps())
            };
            let to_next = every - (self.sweeps_done - phase_start) % every;
            let next_stop = (self.sweeps_done + to_next).min(phase_end).min(end);
            let started = Instant::now();
            self.simulation
                .sweeps(next_stop - self.sweeps_done, cancel)?;
            self.sweep_time_s += started.elapsed().as_secs_f64();
            self.sweeps_done = next_stop;
            let on_schedule = (next_stop - phase_start).is_multiple_of(every);
            if thermalizing {
                if on_schedule {
                    let config = self.simulation.config()?;
                    self.thermalization_series.push(measure(&config));
                }
                if next_stop == thermal {
                    self.check_thermalization();
                }
            } else if on_schedule {
                let config = self.simulation.config()?;
                let measurement = measure(&config);
                self.series.push(measurement);
                new.push((self.sweeps_done, measurement));
                if (next_stop - phase_start).is_multiple_of(self.params.correlation_every) {
                    self.correlations.add(&config)?;
                    for (values, value) in self
                        .links
                        .iter_mut()
                        .zip(crate::links::correlators(&config))
                    {
                        values.push(value);
                    }
                }
            }
        }
        Ok(new)
    }

    /// At the end of the planned thermalisation: compares the halves of its second half, and
    /// either ends thermalisation or doubles it (see [`McRun`]).
    fn check_thermalization(&mut self) {
        let target = self.thermalization_target;
        let every = self.params.measure_every;
        // Measurement i was taken at sweep (i + 1)·every; the window is (T/2, T].
        let count = usize::try_from(target / every).unwrap_or(usize::MAX);
        let first = usize::try_from(target / 2 / every).unwrap_or(usize::MAX);
        let count = count.min(self.thermalization_series.len());
        let window = first.min(count)..count;
        let half = window.len() / 2;
        let passed = half >= MIN_WINDOW_HALF && {
            let (a, b) = (
                window.start..window.start + half,
                window.start + half..window.end,
            );
            let s = &self.thermalization_series;
            let abs_m = s.abs_magnetization();
            [s.bond_energy_per_site(), s.plaquette_per_site(), &abs_m]
                .iter()
                .all(|v| drift_z(&v[a.clone()], &v[b.clone()]) <= DRIFT_Z)
        };
        let limit = self
            .params
            .thermalization_sweeps
            .max(self.params.measurement_sweeps);
        // Measurements in the second half of the longest window allowed: too few, and the
        // drift can never be checked, so extending would only cost time.
        let checkable = (limit - limit / 2) / every >= 2 * MIN_WINDOW_HALF as u64;
        if passed || target >= limit || !checkable {
            self.thermalized = (half >= MIN_WINDOW_HALF).then_some(passed);
            self.thermalization_unchecked = half < MIN_WINDOW_HALF;
            self.simulation.fix_cluster_budget();
        } else {
            self.thermalization_target = target.saturating_mul(2).min(limit);
        }
    }

    /// How many of the first measurements to count as thermalisation, and whether that was
    /// enough: thermalisation must last [`THERMALIZATION_IN_TAU`] integrated autocorrelation
    /// times of the energy and of |m| (as measured over the whole measurement), so the first
    /// measurements are discarded until it does, but never more than half of them.
    fn measurements_to_discard(&self) -> (usize, bool) {
        if self.params.thermalization_sweeps == 0 || self.series.len() < 2 {
            return (0, true);
        }
        let couplings = self.params.couplings();
        // A τ_int under half a measurement cannot be resolved: it counts as half of one.
        let tau = integrated_autocorrelation_time(&self.series.energy_per_site(&couplings))
            .max(integrated_autocorrelation_time(
                &self.series.abs_magnetization(),
            ))
            .max(0.5);
        let every = self.params.measure_every as f64;
        let missing = THERMALIZATION_IN_TAU * tau * every - self.thermalization_target as f64;
        if missing.is_nan() || missing <= 0.0 {
            return (0, true);
        }
        let count = (missing / every).ceil() as usize;
        let limit = self.series.len() / 2;
        (count.min(limit), count <= limit)
    }

    /// The result so far (complete once [`McRun::stage`] is `Finished`); needs at least two
    /// measurements after the discarded ones.
    pub fn result(&self) -> Result<McResult, ComputeError> {
        let couplings = self.params.couplings();
        let flips = (self.params.size * self.params.size) as f64 * self.sweeps_done as f64;
        let (discarded, enough) = self.measurements_to_discard();
        let kept = self.series.tail(discarded);
        let summary = ObservableSummary::from_series(&kept, self.params.size, &couplings)?;
        let thermalized = self.thermalized.map(|passed| passed && enough);
        let thermalization_sweeps = (self.thermalization_target
            + discarded as u64 * self.params.measure_every)
            .min(self.sweeps_done);
        let length = self
            .correlations
            .second_moment_correlation_length_estimate();
        // Beyond L by more than twice its error (at β_c ξ/L ≈ 0.905 and noise must not hide it).
        let size = self.params.size as f64;
        let exceeds = length.is_some_and(|xi| {
            if xi.error.is_finite() {
                xi.value - 2.0 * xi.error > size
            } else {
                xi.value > size
            }
        });
        let mut notes = self.notes(&kept, &summary, thermalized, thermalization_sweeps);
        if exceeds {
            notes.push(format!(
                "The correlation length ξ exceeds the lattice (L = {}) by more than twice its \
                 error: beyond what the lattice resolves (in the ordered phase the second-moment \
                 ξ measures m², not the decay of fluctuations), so it is not reported.",
                self.params.size
            ));
        }
        Ok(McResult {
            summary,
            series: kept,
            correlation: self.correlations.correlation(),
            correlation_length: length.filter(|_| !exceeds).map(|xi| xi.value),
            correlation_length_error: length.filter(|_| !exceeds).map(|xi| xi.error),
            correlation_length_exceeds_lattice: exceeds,
            link_correlators: self
                .links
                .iter()
                .map(|values| {
                    let binned = binning_error(values);
                    Estimate::new(binned.mean, binned.error)
                })
                .collect(),
            backend: self.simulation.backend().clone(),
            sweeps: self.sweeps_done,
            thermalization_sweeps,
            thermalized,
            notes,
            sweep_time_s: self.sweep_time_s,
            flips_per_ns: if self.sweep_time_s > 0.0 {
                flips / self.sweep_time_s / 1e9
            } else {
                0.0
            },
        })
    }

    /// The equilibration and run-length warnings of [`McResult::notes`] for the measurements
    /// `series` kept after `thermalization_sweeps` sweeps.
    fn notes(
        &self,
        series: &TimeSeries,
        summary: &ObservableSummary,
        thermalized: Option<bool>,
        thermalization_sweeps: u64,
    ) -> Vec<String> {
        let mut notes = Vec::new();
        let every = self.params.measure_every;
        if self.thermalization_unchecked {
            notes.push(format!(
                "Thermalisation was not checked: the second half of its {} sweeps held fewer \
                 than {MIN_WINDOW_HALF} measurements per half of the comparison (one every \
                 {every} sweeps). Measure more often or thermalise longer.",
                self.thermalization_target
            ));
        }
        if thermalized == Some(false) {
            notes.push(format!(
                "Not thermalised: after {thermalization_sweeps} sweeps the bond energy, \
                 plaquette or |m| still drifted, or thermalisation was shorter than \
                 {THERMALIZATION_IN_TAU:.0} autocorrelation times, so the results may be \
                 biased by the start. Raise the thermalisation or measurement sweeps, or use \
                 Wolff clusters (K = 0) near β_c."
            ));
        }
        let half = series.len() / 2;
        if half >= MIN_WINDOW_HALF {
            let abs_m = series.abs_magnetization();
            let drifting: Vec<&str> = [
                ("bond energy", series.bond_energy_per_site()),
                ("plaquette", series.plaquette_per_site()),
                ("|m|", &abs_m[..]),
            ]
            .into_iter()
            .filter(|(_, v)| halves_z(&v[..half], &v[half..2 * half]) > DRIFT_Z)
            .map(|(name, _)| name)
            .collect();
            if !drifting.is_empty() {
                notes.push(format!(
                    "The {} of the first and second half of the measurement differ by more than \
                     {DRIFT_Z} standard errors: the run is not in equilibrium or is too short \
                     for its autocorrelation time.",
                    drifting.join(", ")
                ));
            }
        }
        let samples = summary.samples as f64;
        // The larger of the windowed and the binning estimates: both fall short when the run
        // is shorter than the autocorrelation time, and then still stay below the rule's 50.
        let binned = |v: &[f64]| binning_error(v).tau_int_estimate;
        let tau = [
            summary.tau_int_energy,
            summary.tau_int_abs_magnetization,
            binned(series.bond_energy_per_site()),
            binned(&series.abs_magnetization()),
        ]
        .into_iter()
        .fold(f64::NAN, f64::max);
        if tau.is_finite() && samples < RUN_LENGTH_IN_TAU * tau {
            let tau_sweeps = tau * every as f64;
            notes.push(format!(
                "The measurement is {} sweeps, only {:.0} autocorrelation times (τ_int ≈ {:.0} \
                 sweeps); error bars need at least {RUN_LENGTH_IN_TAU:.0}, so treat them as \
                 too small. Measure longer{}.",
                self.sweeps_done.saturating_sub(thermalization_sweeps),
                samples / tau,
                tau_sweeps,
                if self.params.plaquette == 0.0 && self.params.algorithm != Algorithm::Wolff {
                    ", or use Wolff clusters"
                } else {
                    ""
                }
            ));
        } else if summary.samples < MIN_RELIABLE_SAMPLES {
            notes.push(format!(
                "Only {} measurements: too few to estimate the autocorrelation time (short \
                 series underestimate it), so the error bars may be too small. Measure at \
                 least {MIN_RELIABLE_SAMPLES} times.",
                summary.samples
            ));
        }
        notes
    }
}

/// How many combined standard errors apart the means of the two halves of a measurement are,
/// each with its [`correlated_error`]. Unlike [`drift_z`] this fits no line: the measurement
/// is meant to be in equilibrium, and removing its slow fluctuations as if they were a trend
/// would make the errors too small and warn about sound runs.
fn halves_z(first: &[f64], second: &[f64]) -> f64 {
    let difference = (mean(first) - mean(second)).abs();
    if difference == 0.0 {
        return 0.0;
    }
    difference / correlated_error(first).hypot(correlated_error(second))
}

/// A whole run: thermalise, measure, summarise.
pub fn run(
    params: &McParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<McResult, ComputeError> {
    let mut mc = McRun::new(params, seed)?;
    progress.set(
        0.0,
        format!("running on {}", mc.simulation().backend().description),
    );
    let chunk = (mc.total_sweeps() / 100).max(1);
    while mc.stage() != Stage::Finished {
        mc.advance(chunk, cancel)?;
        progress.set_fraction(mc.fraction());
    }
    mc.result()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::{finite_torus, infinite_temperature_abs_magnetization};
    use crate::stats::binning_error;
    use rayon::prelude::*;

    fn params(size: usize, beta: f64, thermalization: u64, measurement: u64) -> McParams {
        McParams {
            size,
            beta,
            backend: Backend::Cpu,
            thermalization_sweeps: thermalization,
            measurement_sweeps: measurement,
            correlation_every: measurement + 1,
            threads: 1,
            ..McParams::default()
        }
    }

    fn quiet_run(params: &McParams, seed: u64) -> McResult {
        run(params, seed, &Progress::new(), &CancelToken::new()).unwrap()
    }

    /// At β = K = 0 spins are independent: ⟨b⟩ = ⟨p⟩ = 0, ⟨m²⟩ = 1/N and ⟨|m|⟩ is
    /// C(N − 1, ⌊(N − 1)/2⌋)/2^{N−1}. A cold start must forget its order in a few sweeps on every
    /// sampler and layout (plain Metropolis on the checkerboard flipped every spin every sweep
    /// and reported |m| = 1, b = 2).
    fn assert_infinite_temperature(label: &str, result: &McResult, size: usize) {
        let s = &result.summary;
        let sites = (size * size) as f64;
        let within = |name: &str, estimate: Estimate, exact: f64| {
            assert!(
                estimate.error > 0.0 && (estimate.value - exact).abs() <= 4.0 * estimate.error,
                "{label}, {name}: {} ± {} against exact {exact}",
                estimate.value,
                estimate.error
            );
        };
        within("b", s.bond_energy_per_site, 0.0);
        within("p", s.plaquette_per_site, 0.0);
        within("m²", s.magnetization_squared, 1.0 / sites);
        within(
            "|m|",
            s.abs_magnetization,
            infinite_temperature_abs_magnetization(size * size),
        );
        // Independent samples: b has variance 2/N per sweep, and the error says so.
        let independent = (2.0 / sites / s.samples as f64).sqrt();
        assert!(
            (s.bond_energy_per_site.error / independent - 1.0).abs() < 0.5,
            "{label}: error {} against {independent}",
            s.bond_energy_per_site.error
        );
        assert!(result.notes.is_empty(), "{label}: {:?}", result.notes);
    }

    #[test]
    fn beta_zero_is_infinite_temperature_on_every_sampler() {
        // L = 16: one byte per spin; 64: 32-bit words; 128: 64-bit words.
        for size in [16, 64, 128] {
            let result = quiet_run(&params(size, 0.0, 20, 1000), 5);
            assert_infinite_temperature(&format!("checkerboard, L = {size}"), &result, size);
        }
        for algorithm in [Algorithm::SingleSpin, Algorithm::Wolff] {
            let mc = McParams {
                algorithm,
                ..params(16, 0.0, 20, 1000)
            };
            assert_infinite_temperature(algorithm.label(), &quiet_run(&mc, 5), 16);
        }
        // A coupling far too weak for Metropolis to reject anything in a run's lifetime.
        let tiny = quiet_run(&params(64, 1e-9, 20, 1000), 6);
        let bond = tiny.summary.bond_energy_per_site;
        assert!(
            bond.value.abs() < 4.0 * bond.error,
            "β = 10⁻⁹: b = {bond:?}"
        );
        if benchtop_compute::gpu::context_or_skip("beta_zero_is_infinite_temperature (wgpu)")
            .is_some()
        {
            let mc = McParams {
                backend: Backend::Wgpu,
                ..params(64, 0.0, 20, 1000)
            };
            let gpu = quiet_run(&mc, 5);
            assert_eq!(gpu.backend.kind, "wgpu");
            assert_infinite_temperature("wgpu", &gpu, 64);
            // The same flips as the CPU.
            let cpu = quiet_run(&params(64, 0.0, 20, 1000), 5);
            assert_eq!(gpu.series, cpu.series);
        }
    }

    #[test]
    fn thermalisation_is_extended_until_checked_and_warns_when_not_reached() {
        // Too few sweeps to compare: doubled until each half holds 16 measurements and the
        // relaxation from the cold start is over; then the first measurements are discarded
        // until thermalisation lasts 10 τ_int (about 20 sweeps at L = 32).
        let extended = quiet_run(&params(32, BETA_CRITICAL, 8, 4000), 3);
        assert_eq!(extended.thermalized, Some(true));
        let s = &extended.summary;
        let thermal = extended.thermalization_sweeps as f64;
        assert!(
            thermal >= 64.0 && thermal >= 9.0 * s.tau_int_energy.max(s.tau_int_abs_magnetization),
            "{thermal} sweeps for τ_int {} and {}",
            s.tau_int_energy,
            s.tau_int_abs_magnetization
        );
        assert_eq!(
            extended.thermalization_sweeps + s.samples as u64,
            extended.sweeps,
            "every sweep after thermalisation is measured"
        );
        assert!(extended.sweeps >= 4064);
        // Far from β_c the requested thermalisation is enough and nothing is added.
        let easy = quiet_run(&params(32, 0.25, 200, 2000), 3);
        assert_eq!(
            (easy.thermalization_sweeps, easy.thermalized),
            (200, Some(true))
        );
        assert!(easy.notes.is_empty(), "{:?}", easy.notes);
        // L = 256 at β_c relaxes from a cold start over thousands of sweeps: 40 + 100 cannot
        // get there (thermalisation extended to the cap of 100, then measurements discarded).
        let short = quiet_run(&params(256, BETA_CRITICAL, 40, 100), 3);
        assert_eq!(short.thermalized, Some(false));
        assert!(short.thermalization_sweeps >= 100, "extended up to the cap");
        let notes = short.notes.join(" ");
        assert!(notes.contains("Not thermalised"), "{notes}");
        assert!(notes.contains("autocorrelation times"), "{notes}");
        // L = 128 for 400 sweeps: seemingly settled, but far too short for its τ_int.
        let brief = quiet_run(&params(128, BETA_CRITICAL, 40, 400), 3);
        assert!(
            brief.notes.iter().any(|n| n.contains("only")),
            "{:?}",
            brief.notes
        );
        // One measurement every 50 sweeps: nothing to compare, and no time wasted extending.
        let rare = quiet_run(
            &McParams {
                measure_every: 50,
                ..params(16, 0.3, 100, 2000)
            },
            3,
        );
        assert_eq!(rare.thermalized, None);
        // Not doubled towards 2,000; the τ_int rule adds 10·½·50 sweeps at most (a τ_int below
        // one measurement cannot be resolved, so it counts as half of one).
        assert!(rare.thermalization_sweeps <= 350, "{rare:?}");
        assert!(
            rare.notes.iter().any(|n| n.contains("not checked")),
            "{:?}",
            rare.notes
        );
        // No thermalisation requested: none done, none checked.
        let none = quiet_run(&params(16, 0.3, 0, 100), 3);
        assert_eq!((none.thermalization_sweeps, none.thermalized), (0, None));
    }

    #[test]
    fn correlation_length_beyond_the_lattice_is_not_reported() {
        let ordered = quiet_run(
            &McParams {
                correlation_every: 1,
                ..params(32, 0.6, 200, 400)
            },
            2,
        );
        assert!(ordered.correlation_length_exceeds_lattice);
        assert_eq!(ordered.correlation_length, None);
        assert!(
            ordered
                .notes
                .iter()
                .any(|n| n.contains("beyond what the lattice resolves")),
            "{:?}",
            ordered.notes
        );
        let disordered = quiet_run(
            &McParams {
                correlation_every: 1,
                ..params(32, 0.35, 200, 2000)
            },
            2,
        );
        assert!(!disordered.correlation_length_exceeds_lattice);
        let xi = disordered.correlation_length.expect("ξ at β = 0.35");
        assert!(xi > 1.0 && xi < 8.0, "ξ = {xi}");
    }

    /// Error bars that mean what they say: over 200 seeds at L = 8 and β_c, the quoted error of
    /// ⟨b⟩ covers Kaufman's exact value in about 68 % of runs and 95 % at 2σ. The naive error
    /// σ/√N, which ignores the autocorrelation, covers it far less often.
    ///
    /// Measured (2,000 measurements per seed), fraction of seeds covered at 1σ:
    /// - single-spin Metropolis (τ_int ≈ 6.4 measurements; this test): quoted 0.640 (0.920 at
    ///   2σ); binning alone 0.605 (its plateau comes out 18 % low at 300 τ_int); naive 0.230;
    /// - checkerboard (τ_int ≈ 2.4; ten times slower here, so not run): quoted 0.715 (0.955 at
    ///   2σ); binning alone 0.675; naive 0.415.
    #[test]
    fn quoted_errors_cover_the_exact_value_at_the_stated_rate() {
        let exact = finite_torus(8, BETA_CRITICAL).unwrap().bond_energy_per_site;
        let mc = McParams {
            algorithm: Algorithm::SingleSpin,
            ..params(8, BETA_CRITICAL, 200, 2000)
        };
        let seeds = 200_u64;
        // (deviation from the exact value, quoted error, binning error, naive error) per seed.
        let outcomes: Vec<[f64; 4]> = (0..seeds)
            .into_par_iter()
            .map(|seed| {
                let result = quiet_run(&mc, seed);
                let b = result.summary.bond_energy_per_site;
                let binned = binning_error(result.series.bond_energy_per_site());
                [b.value - exact, b.error, binned.error, binned.naive_error]
            })
            .collect();
        // The fraction of seeds whose error number `which`, times `width`, covers the exact value.
        let coverage = |which: usize, width: f64| {
            let covered = outcomes
                .iter()
                .filter(|o| o[0].abs() <= width * o[which])
                .count();

            covered as f64 / seeds as f64
        };
        let quoted = coverage(1, 1.0);
        let quoted_two = coverage(1, 2.0);
        let binning_only = coverage(2, 1.0);
        let naive = coverage(3, 1.0);
        eprintln!(
            "coverage over {seeds} seeds: quoted {quoted:.3} (1σ), {quoted_two:.3} (2σ); \
             binning alone {binning_only:.3}; naive {naive:.3}"
        );
        assert!(
            (0.58..=0.78).contains(&quoted),
            "quoted 1σ coverage {quoted}"
        );
        assert!(
            (0.88..=0.99).contains(&quoted_two),
            "quoted 2σ coverage {quoted_two}"
        );
        assert!(naive < 0.55, "naive 1σ coverage {naive}");
    }
}
