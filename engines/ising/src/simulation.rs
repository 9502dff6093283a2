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
use crate::stats::Estimate;
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
    /// Sweeps discarded before measuring.
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
    /// Every measurement.
    pub series: TimeSeries,
    /// G(r) for r = 0..=L/2 with standard errors.
    pub correlation: Vec<Estimate>,
    /// Second-moment correlation length, when defined.
    pub correlation_length: Option<f64>,
    /// The 13 link correlators of the duality paper (means over measurements).
    pub link_correlators: Vec<Estimate>,
    /// Where it ran.
    pub backend: BackendInfo,
    /// Sweeps done (thermalisation and measurement).
    pub sweeps: u64,
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

/// A Monte Carlo run advanced in chunks.
pub struct McRun {
    params: McParams,
    simulation: Simulation,
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

    /// Total sweeps of the run.
    pub fn total_sweeps(&self) -> u64 {
        self.params.thermalization_sweeps + self.params.measurement_sweeps
    }

    /// Sweeps done so far.
    pub fn sweeps_done(&self) -> u64 {
        self.sweeps_done
    }

    /// The current stage.
    pub fn stage(&self) -> Stage {
        if self.sweeps_done < self.params.thermalization_sweeps {
            Stage::Thermalizing
        } else if self.sweeps_done < self.total_sweeps() {
            Stage::Measuring
        } else {
            Stage::Finished
        }
    }

    /// Fraction done.
    pub fn fraction(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        let f = self.sweeps_done as f64 / self.total_sweeps().max(1) as f64;
        f
    }

    /// Measurements so far.
    pub fn series(&self) -> &TimeSeries {
        &self.series
    }

    /// Up to `max_sweeps` more sweeps, with measurements on schedule; returns the new
    /// measurements (sweep number, values).
    pub fn advance(
        &mut self,
        max_sweeps: u64,
        cancel: &CancelToken,
    ) -> Result<Vec<(u64, Measurement)>, ComputeError> {
        let mut new = Vec::new();
        let end = (self.sweeps_done + max_sweeps).min(self.total_sweeps());
        while self.sweeps_done < end {
            let thermal = self.params.thermalization_sweeps;
            let next_stop = if self.sweeps_done < thermal {
                thermal.min(end)
            } else {
                let into = self.sweeps_done - thermal;
                let to_next = self.params.measure_every - into % self.params.measure_every;
                (self.sweeps_done + to_next).min(end)
            };
            let started = Instant::now();
            self.simulation
                .sweeps(next_stop - self.sweeps_done, cancel)?;
            self.sweep_time_s += started.elapsed().as_secs_f64();
            self.sweeps_done = next_stop;
            if self.sweeps_done == thermal {
                self.simulation.fix_cluster_budget();
            }
            let into = self.sweeps_done.saturating_sub(thermal);
            if self.sweeps_done > thermal && into.is_multiple_of(self.params.measure_every) {
                let config = self.simulation.config()?;
                let measurement = measure(&config);
                self.series.push(measurement);
                new.push((self.sweeps_done, measurement));
                if into.is_multiple_of(self.params.correlation_every) {
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

    /// The result so far (complete once [`McRun::stage`] is `Finished`); needs at least two
    /// measurements.
    pub fn result(&self) -> Result<McResult, ComputeError> {
        let couplings = self.params.couplings();
        #[allow(clippy::cast_precision_loss)]
        let flips = (self.params.size * self.params.size) as f64 * self.sweeps_done as f64;
        Ok(McResult {
            summary: ObservableSummary::from_series(&self.series, self.params.size, &couplings)?,
            series: self.series.clone(),
            correlation: self.correlations.correlation(),
            correlation_length: self.correlations.second_moment_correlation_length(),
            link_correlators: self
                .links
                .iter()
                .map(|values| {
                    let binned = crate::stats::binning_error(values);
                    Estimate::new(binned.mean, binned.error)
                })
                .collect(),
            backend: self.simulation.backend().clone(),
            sweeps: self.sweeps_done,
            sweep_time_s: self.sweep_time_s,
            flips_per_ns: if self.sweep_time_s > 0.0 {
                flips / self.sweep_time_s / 1e9
            } else {
                0.0
            },
        })
    }
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
