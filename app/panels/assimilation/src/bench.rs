//! `benchtop bench assimilation`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_kit::cli::{BenchEntry, run_bench};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "assimilation",
    about: "Tensor-Var, 4D-Var (adjoint + L-BFGS) and 3D-Var cycled over windows: ms per window",
    run: |args| run_bench("assimilation", args, assimilation),
}];

/// Options of `benchtop bench assimilation`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench assimilation",
    about = "Tensor-Var, 4D-Var (adjoint + L-BFGS) and 3D-Var cycled over windows: ms per window"
)]
pub struct AssimilationBench {
    /// The system: l96 (Lorenz-96, RK4) or ks (Kuramoto–Sivashinsky, ETDRK4, L = 22).
    #[arg(long, default_value = "l96")]
    pub system: String,
    /// State dimension D (default 40 for l96, 128 grid points for ks).
    #[arg(long)]
    pub dim: Option<usize>,
    /// Windows assimilated.
    #[arg(long, default_value_t = 40)]
    pub windows: usize,
    /// Observation times per window.
    #[arg(long, default_value_t = 5)]
    pub window: usize,
    /// Observed fraction of the components.
    #[arg(long, default_value_t = 0.2)]
    pub obs_fraction: f64,
    /// Tensor-Var training states.
    #[arg(long, default_value_t = 3000)]
    pub train: usize,
    /// Seed of the data.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Timed repeats (the fastest per method is reported).
    #[arg(long, default_value_t = 1)]
    pub repeats: usize,
    /// Write the 4D-Var problem (B⁻¹, observations, background, truth) as JSON here for the
    /// NumPy/SciPy peer.
    #[arg(long)]
    pub dump: Option<std::path::PathBuf>,
}

/// The assimilation benchmark: each method's `ms_per_window` and RMSE, and the speed-up.
pub fn assimilation(options: &AssimilationBench) -> anyhow::Result<serde_json::Value> {
    use benchtop_assimilation::{AssimParams, SystemKind};
    let system = match options.system.as_str() {
        "l96" => SystemKind::Lorenz96,
        "ks" => SystemKind::KuramotoSivashinsky,
        other => {
            anyhow::bail!("--system {other}: use l96 (Lorenz-96) or ks (Kuramoto–Sivashinsky)")
        }
    };
    let defaults = AssimParams::for_system(system);
    let params = AssimParams {
        dim: options.dim.unwrap_or(defaults.dim),
        windows: options.windows,
        window: options.window,
        obs_fraction: options.obs_fraction,
        train_steps: options.train,
        ..defaults
    };
    if let Some(path) = &options.dump {
        let problem = benchtop_assimilation::bench::problem_json(&params, options.seed)?;
        std::fs::write(path, serde_json::to_string(&problem)?)
            .map_err(|e| anyhow::anyhow!("--dump {}: {e}", path.display()))?;
    }
    let report = benchtop_assimilation::bench::bench(&benchtop_assimilation::bench::BenchParams {
        params,
        seed: options.seed,
        repeats: options.repeats,
    })?;
    Ok(serde_json::to_value(report)?)
}
