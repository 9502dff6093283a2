//! `benchtop bench assimilation`: the panel's benchmark entry (options, and the engine's real code
//! path timed with the run's own observables).

use benchtop_kit::cli::{BenchEntry, run_bench, within};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "assimilation",
    about: "Tensor-Var, 4D-Var (adjoint + L-BFGS), 3D-Var, an EnKF and the trivial references \
            cycled over windows: RMSE, ms per window, training and total time",
    run: |args| run_bench("assimilation", args, assimilation),
}];

/// Options of `benchtop bench assimilation`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench assimilation",
    about = "Tensor-Var, 4D-Var (adjoint + L-BFGS), 3D-Var, an EnKF and the trivial references \
             cycled over windows: RMSE, ms per window, training and total time"
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
    /// Training windows on which 3D-/4D-Var's B scale and the EnKF's localisation and
    /// inflation are chosen (0: B = 0.1 × climatology, c = 4, λ = 1.05).
    #[arg(long, default_value_t = 10)]
    pub tune_windows: usize,
    /// EnKF ensemble members.
    #[arg(long, default_value_t = 40)]
    pub members: usize,
    /// Write the 4D-Var problem (B⁻¹, observations, background, truth) as JSON here for the
    /// NumPy/SciPy peer.
    #[arg(long)]
    pub dump: Option<std::path::PathBuf>,
}

/// The assimilation benchmark: each method's `ms_per_window`, RMSE, training and total time,
/// the speed-ups and the claims judged on the run.
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
    // The panel's declared ranges: sizes are bounded before anything is allocated.
    if let Some(dim) = options.dim {
        within("--dim", dim, 4..=400)?;
    }
    within("--windows", options.windows, 1..=10_000)?;
    within("--window", options.window, 1..=20)?;
    within("--obs-fraction", options.obs_fraction, 0.01..=1.0)?;
    within("--train", options.train, 50..=100_000)?;
    within("--repeats", options.repeats, 1..=100)?;
    within("--tune-windows", options.tune_windows, 0..=1000)?;
    within("--members", options.members, 2..=1000)?;
    let params = AssimParams {
        dim: options.dim.unwrap_or(defaults.dim),
        windows: options.windows,
        window: options.window,
        obs_fraction: options.obs_fraction,
        train_steps: options.train,
        tune_windows: options.tune_windows,
        enkf: benchtop_assimilation::EnkfSettings {
            members: options.members,
            ..defaults.enkf.clone()
        },
        ..defaults
    };
    let report = benchtop_assimilation::bench::bench(&benchtop_assimilation::bench::BenchParams {
        params: params.clone(),
        seed: options.seed,
        repeats: options.repeats,
    })?;
    if let Some(path) = &options.dump {
        // B as 4D-Var ran it (its scale chosen on training windows).
        let problem = benchtop_assimilation::bench::problem_json(
            &params,
            options.seed,
            report.tuning.fourdvar_scale,
        )?;
        std::fs::write(path, serde_json::to_string(&problem)?)
            .map_err(|e| anyhow::anyhow!("--dump {}: {e}", path.display()))?;
    }
    Ok(serde_json::to_value(report)?)
}
