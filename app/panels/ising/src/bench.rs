//! `benchtop bench ising`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_compute::{CancelToken, Progress};
use benchtop_ising::Start;
use benchtop_ising::exact::{
    finite_torus, infinite_temperature_abs_magnetization, onsager_nn_correlation,
    spontaneous_magnetization,
};
use benchtop_ising::simulation::{self, Algorithm, Backend, McParams};
use benchtop_kit::cli::{BenchEntry, run_bench};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "ising",
    about: "Checkerboard Metropolis throughput and observables",
    run: |args| run_bench("ising", args, ising),
}];

/// Options of `benchtop bench ising`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench ising",
    allow_negative_numbers = true,
    about = "Checkerboard Metropolis throughput and observables"
)]
pub struct IsingBench {
    /// Lattice side L.
    #[arg(long, default_value_t = 1024)]
    pub size: usize,
    /// Coupling β.
    #[arg(long, default_value_t = benchtop_ising::BETA_CRITICAL)]
    pub beta: f64,
    /// Plaquette coupling K.
    #[arg(long, default_value_t = 0.0)]
    pub plaquette: f64,
    /// Timed sweeps (measurements are taken between them, untimed).
    #[arg(long, default_value_t = 1000)]
    pub sweeps: u64,
    /// Untimed warm-up sweeps before measuring, at least (default: a quarter of --sweeps); the
    /// run keeps thermalising while its check fails, up to max(warm-up, --sweeps).
    #[arg(long)]
    pub warmup: Option<u64>,
    /// Sweeps between measurements (default: --sweeps / 200, at least 1).
    #[arg(long)]
    pub measure_every: Option<u64>,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// cpu, wgpu, cuda or auto.
    #[arg(long, default_value = "cpu")]
    pub backend: String,
    /// CPU worker threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// checkerboard, single-spin or wolff.
    #[arg(long, default_value = "checkerboard")]
    pub algorithm: String,
}

/// The Ising benchmark.
pub fn ising(options: &IsingBench) -> anyhow::Result<serde_json::Value> {
    let backend = match options.backend.as_str() {
        "cpu" => Backend::Cpu,
        "wgpu" => Backend::Wgpu,
        "cuda" => Backend::Cuda,
        "auto" => Backend::Auto,
        other => anyhow::bail!("--backend {other}: use cpu, wgpu, cuda or auto"),
    };
    let algorithm = match options.algorithm.as_str() {
        "checkerboard" => Algorithm::Checkerboard,
        "single-spin" => Algorithm::SingleSpin,
        "wolff" => Algorithm::Wolff,
        other => anyhow::bail!("--algorithm {other}: use checkerboard, single-spin or wolff"),
    };
    let measure_every = options
        .measure_every
        .unwrap_or((options.sweeps / 200).max(1));
    let params = McParams {
        size: options.size,
        beta: options.beta,
        plaquette: options.plaquette,
        algorithm,
        backend,
        start: Start::Cold,
        thermalization_sweeps: options.warmup.unwrap_or(options.sweeps / 4),
        measurement_sweeps: options.sweeps,
        measure_every,
        correlation_every: options.sweeps + 1,
        threads: options.threads,
    };
    let result = simulation::run(&params, options.seed, &Progress::new(), &CancelToken::new())?;
    let s = &result.summary;
    let exact = (options.plaquette == 0.0).then(|| {
        serde_json::json!({
            "bond_energy_per_site": 2.0 * onsager_nn_correlation(options.beta),
            "abs_magnetization": spontaneous_magnetization(options.beta),
        })
    });
    // Kaufman's torus of this L (and, at β = 0, independent spins' |m|).
    let exact_lattice = (options.plaquette == 0.0).then(|| {
        let torus = finite_torus(options.size, options.beta).ok();
        serde_json::json!({
            "bond_energy_per_site": torus.map(|t| t.bond_energy_per_site),
            "specific_heat": torus.map(|t| t.specific_heat),
            "abs_magnetization": (options.beta == 0.0)
                .then(|| infinite_temperature_abs_magnetization(options.size * options.size)),
        })
    });
    Ok(serde_json::json!({
        "engine": "ising",
        "algorithm": options.algorithm,
        "size": options.size,
        "beta": options.beta,
        "plaquette": options.plaquette,
        "sweeps": result.sweeps,
        "thermalization_sweeps": result.thermalization_sweeps,
        "thermalized": result.thermalized,
        "seed": options.seed,
        "backend": result.backend.kind,
        "adapter": result.backend.description,
        "threads": options.threads,
        "flips_per_ns": result.flips_per_ns,
        "sweep_seconds": result.sweep_time_s,
        "measurements": s.samples,
        "bond_energy_per_site": s.bond_energy_per_site.value,
        "bond_energy_per_site_err": s.bond_energy_per_site.error,
        "plaquette_per_site": s.plaquette_per_site.value,
        "plaquette_per_site_err": s.plaquette_per_site.error,
        "abs_magnetization": s.abs_magnetization.value,
        "abs_magnetization_err": s.abs_magnetization.error,
        "exact_infinite_lattice": exact,
        "exact_this_lattice": exact_lattice,
        "notes": result.notes,
    }))
}
