//! `benchtop bench ENGINE [--option value …]`: one JSON object on stdout.
//!
//! The numbers come from the engine's real code path (the same samplers the panels use);
//! the run's own observables are included so a fast but wrong result is visible.

use std::io::Write as _;

use benchtop_compute::{CancelToken, Progress};
use benchtop_ising::Start;
use benchtop_ising::exact::{
    finite_torus, infinite_temperature_abs_magnetization, onsager_nn_correlation,
    spontaneous_magnetization,
};
use benchtop_ising::simulation::{self, Algorithm, Backend, McParams};
use clap::Parser;

/// A benchmark report with the app's version line (and the engine's name, where one command
/// serves several) added: every `benchtop bench` object says what produced it.
fn stamped(
    mut value: serde_json::Value,
    engine: Option<&str>,
) -> anyhow::Result<serde_json::Value> {
    if let Some(object) = value.as_object_mut() {
        if let Some(engine) = engine {
            object.insert("engine".into(), engine.into());
        }
        object.insert("app".into(), crate::build_info::version_line().into());
    }
    Ok(value)
}

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

/// Options of `benchtop bench sht`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench sht",
    allow_negative_numbers = true,
    about = "Spherical harmonic transform timings and round-trip error"
)]
pub struct ShtBench {
    /// Latitude rings.
    #[arg(long, default_value_t = 181)]
    pub nlat: usize,
    /// Longitudes per ring.
    #[arg(long, default_value_t = 360)]
    pub nlon: usize,
    /// Largest degree.
    #[arg(long, default_value_t = 179)]
    pub lmax: usize,
    /// Fields transformed per call.
    #[arg(long, default_value_t = 1)]
    pub batch: usize,
    /// equiangular (both poles included) or gauss.
    #[arg(long, default_value = "equiangular")]
    pub grid: String,
    /// cpu or wgpu.
    #[arg(long, default_value = "cpu")]
    pub backend: String,
    /// Timed repetitions after one warm-up (the median is reported).
    #[arg(long, default_value_t = 7)]
    pub repeats: usize,
    /// Seed of the random coefficients.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The SHT benchmark: `forward_ms`, `inverse_ms`, `roundtrip_max_abs_err` and the setup.
pub fn sht(options: &ShtBench) -> anyhow::Result<serde_json::Value> {
    let grid = match options.grid.as_str() {
        "equiangular" => benchtop_spectra::GridKind::Equiangular,
        "gauss" | "gauss-legendre" => benchtop_spectra::GridKind::GaussLegendre,
        other => anyhow::bail!("--grid {other}: use equiangular or gauss"),
    };
    let value = benchtop_spectra::bench::bench_sht_with(&benchtop_spectra::bench::BenchParams {
        grid,
        nlat: options.nlat,
        nlon: options.nlon,
        lmax: options.lmax,
        batch: options.batch,
        backend: options.backend.clone(),
        repeats: options.repeats,
        seed: options.seed,
    })?;
    stamped(value, Some("sht"))
}

/// Options of `benchtop bench findr`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench findr",
    allow_negative_numbers = true,
    about = "FINDR training-step timing (forward, backward, clip, SGD-momentum update)"
)]
pub struct FindrBench {
    /// Trials per batch B.
    #[arg(long, default_value_t = 25)]
    pub trials: usize,
    /// Bins per trial T.
    #[arg(long, default_value_t = 100)]
    pub bins: usize,
    /// Neurons N.
    #[arg(long, default_value_t = 50)]
    pub neurons: usize,
    /// Flow width H.
    #[arg(long, default_value_t = 50)]
    pub flow_width: usize,
    /// Encoder hidden units E per direction.
    #[arg(long, default_value_t = 50)]
    pub encoder: usize,
    /// Timed steps (after two warm-up steps).
    #[arg(long, default_value_t = 20)]
    pub steps: usize,
    /// Seed of the data and the weights.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The FINDR benchmark: `ms_per_step`, `final_loss` and the sizes.
pub fn findr(options: &FindrBench) -> anyhow::Result<serde_json::Value> {
    let value = benchtop_findr::bench::bench_training(&benchtop_findr::bench::BenchParams {
        trials: options.trials,
        bins: options.bins,
        neurons: options.neurons,
        flow_width: options.flow_width,
        encoder: options.encoder,
        steps: options.steps,
        seed: options.seed,
        ..benchtop_findr::bench::BenchParams::default()
    })?;
    stamped(value, None)
}

/// Options of `benchtop bench neurotree`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench neurotree",
    allow_negative_numbers = true,
    about = "NeuroTree AGE-GCN training-step timing (forward, backward, Adam) on one batch"
)]
pub struct NeuroTreeBench {
    /// Subjects per batch B.
    #[arg(long, default_value_t = 32)]
    pub subjects: usize,
    /// ROIs (graph nodes) N.
    #[arg(long, default_value_t = 116)]
    pub rois: usize,
    /// Time points per synthetic subject.
    #[arg(long, default_value_t = 150)]
    pub time_points: usize,
    /// Timed steps (after one warm-up step).
    #[arg(long, default_value_t = 20)]
    pub steps: usize,
    /// Seed of the cohort and the weights.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The NeuroTree benchmark: `ms_per_step`, the losses and the sizes.
pub fn neurotree(options: &NeuroTreeBench) -> anyhow::Result<serde_json::Value> {
    let report = benchtop_neurotree::bench::bench(&benchtop_neurotree::bench::BenchParams {
        subjects: options.subjects,
        rois: options.rois,
        time_points: options.time_points,
        steps: options.steps,
        seed: options.seed,
    })?;
    stamped(serde_json::to_value(report)?, None)
}

/// Options of `benchtop bench hymn`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench hymn",
    allow_negative_numbers = true,
    about = "HyMN subgraph-GIN training-step timing (forward, backward, Adam) on one batch of marked copies"
)]
pub struct HymnBench {
    /// Graphs per batch (G(n, p) with mean degree 4).
    #[arg(long, default_value_t = 128)]
    pub graphs: usize,
    /// Nodes per graph.
    #[arg(long, default_value_t = 20)]
    pub nodes: usize,
    /// Marked copies T per graph (chosen by centrality; the unmarked graph is one more copy).
    #[arg(long, default_value_t = 2)]
    pub subgraphs: usize,
    /// Timed steps (after one warm-up step).
    #[arg(long, default_value_t = 20)]
    pub steps: usize,
    /// Hidden width.
    #[arg(long, default_value_t = 64)]
    pub hidden: usize,
    /// GIN layers.
    #[arg(long, default_value_t = 3)]
    pub layers: usize,
    /// Seed of the graphs and the weights.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The HyMN benchmark: `ms_per_step`, the batch's sizes and the last loss.
pub fn hymn(options: &HymnBench) -> anyhow::Result<serde_json::Value> {
    let report = benchtop_hymn::bench::bench(&benchtop_hymn::bench::BenchParams {
        graphs: options.graphs,
        nodes: options.nodes,
        subgraphs: options.subgraphs,
        steps: options.steps,
        model: benchtop_hymn::model::ModelConfig {
            hidden: options.hidden,
            layers: options.layers,
        },
        seed: options.seed,
    })?;
    stamped(serde_json::to_value(report)?, None)
}

/// Options of `benchtop bench molstitch`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench molstitch",
    allow_negative_numbers = true,
    about = "MolStitch throughput: RDKit property scoring of the offline set and prior sampling"
)]
pub struct MolStitchBench {
    /// Scoring threads (0: one per core).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Offline molecules the prior is trained on before sampling is timed.
    #[arg(long, default_value_t = 2000)]
    pub train_molecules: usize,
    /// Untimed training epochs of the prior (the optimisation's prior size).
    #[arg(long, default_value_t = 6)]
    pub train_epochs: usize,
    /// Molecules sampled in the timed part.
    #[arg(long, default_value_t = 500)]
    pub samples: usize,
    /// Seed of the prior and the samples.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The MolStitch benchmark: `scoring` and `sampling` objects, each with `molecules_per_s`.
pub fn molstitch(options: &MolStitchBench) -> anyhow::Result<serde_json::Value> {
    use benchtop_molstitch::bench::{SamplingParams, bench_offline_scoring, bench_sampling};
    let threads = match options.threads {
        0 => std::thread::available_parallelism().map_or(1, usize::from),
        n => n,
    };
    let scoring = bench_offline_scoring(threads)?;
    let sampling = bench_sampling(&SamplingParams {
        train_molecules: options.train_molecules,
        train_epochs: options.train_epochs,
        samples: options.samples,
        seed: options.seed,
        ..SamplingParams::default()
    })?;
    Ok(serde_json::json!({
        "engine": "molstitch",
        "scoring": scoring,
        "sampling": sampling,
        "seed": options.seed,
        "app": crate::build_info::version_line(),
    }))
}

/// Options of `benchtop bench rcgp`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench rcgp",
    allow_negative_numbers = true,
    about = "Spatio-temporal GP Kalman filter + RTS smoother timing (STGP, or ST-RCGP with --robust)"
)]
pub struct RcgpBench {
    /// Time steps T.
    #[arg(long, default_value_t = 100)]
    pub times: usize,
    /// Spatial locations n_s (the stacked state has 2·n_s entries).
    #[arg(long, default_value_t = 100)]
    pub space: usize,
    /// Use the robust (IMQ-weighted) update.
    #[arg(long)]
    pub robust: bool,
    /// Also time dense O(n³) GP regression on the same n = T·n_s points.
    #[arg(long)]
    pub dense: bool,
    /// Timed repeats (the fastest is reported).
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
}

/// The RCGP benchmark: `ms_total`, `us_per_step` and, with `--dense`, `dense_ms`.
pub fn rcgp(options: &RcgpBench) -> anyhow::Result<serde_json::Value> {
    let report = benchtop_rcgp::bench::bench(&benchtop_rcgp::bench::BenchParams {
        times: options.times,
        space: options.space,
        robust: options.robust,
        dense: options.dense,
        repeats: options.repeats,
    })?;
    stamped(serde_json::to_value(report)?, None)
}

/// Options of `benchtop bench reflection`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench reflection",
    about = "Reflection-Bench: the reversal scorer over LCG sessions a NumPy peer rebuilds, and the full scripted table"
)]
pub struct ReflectionBench {
    /// Reversal sessions to score.
    #[arg(long, default_value_t = 20000)]
    pub sessions: usize,
    /// Trials per session (even).
    #[arg(long, default_value_t = 40)]
    pub trials: usize,
    /// Timed repeats (the fastest is reported).
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
}

/// The Reflection-Bench benchmark: `ms_score`, `us_per_session`, `score_checksum`, `ms_table`.
pub fn reflection(options: &ReflectionBench) -> anyhow::Result<serde_json::Value> {
    let report = benchtop_reflection::bench::run(&benchtop_reflection::bench::BenchParams {
        sessions: options.sessions,
        trials: options.trials,
        repeats: options.repeats,
    })?;
    stamped(serde_json::to_value(report)?, None)
}

/// Options of `benchtop bench linnet`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench linnet",
    about = "Two-layer linear network training: S seeds under no, input and parameter noise"
)]
pub struct LinnetBench {
    /// Seeds per noise regime (3 regimes).
    #[arg(long, default_value_t = 8)]
    pub seeds: usize,
    /// Full-batch gradient-descent steps per seed.
    #[arg(long, default_value_t = 6000)]
    pub steps: usize,
    /// Hidden width.
    #[arg(long, default_value_t = 16)]
    pub width: usize,
    /// Depth of the binary item tree (items 2^depth, features 2^(depth+1) − 1).
    #[arg(long, default_value_t = 3)]
    pub depth: usize,
    /// Timed repeats (the fastest is reported).
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
}

/// The linnet benchmark: `ms_total`, `us_per_step` and each regime's loss and CKA.
pub fn linnet(options: &LinnetBench) -> anyhow::Result<serde_json::Value> {
    let report = benchtop_linnet::bench::bench(&benchtop_linnet::bench::BenchParams {
        seeds: options.seeds,
        steps: options.steps,
        width: options.width,
        depth: options.depth,
        repeats: options.repeats,
    })?;
    stamped(serde_json::to_value(report)?, Some("linnet"))
}

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
    stamped(serde_json::to_value(report)?, None)
}

/// Options of `benchtop bench watermark`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench watermark",
    about = "StealthInk on the KJV trigram or GRU model: watermarked tokens per second, detections per second, and the GRU's training time"
)]
pub struct WatermarkBench {
    /// Language model: `kjv` (trigram), `gru` (trained in candle) or `synthetic`.
    #[arg(long, default_value = "kjv", value_parser = ["kjv", "gru", "synthetic"])]
    pub model: String,
    /// Cache trained GRU weights in this folder (without it the GRUs are trained every time,
    /// so `model_build_s` is the training time).
    #[arg(long)]
    pub cache: Option<std::path::PathBuf>,
    /// Texts generated and then detected.
    #[arg(long, default_value_t = 100)]
    pub texts: usize,
    /// Tokens per text.
    #[arg(long, default_value_t = 200)]
    pub tokens: usize,
    /// Seed of sampling.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write the scheme, the texts, our colour counts and p-values as JSON here for the NumPy
    /// peer (scripts/bench_watermark_peer.py).
    #[arg(long)]
    pub dump: Option<std::path::PathBuf>,
}

/// The watermark benchmark: `tokens_per_s` (generation with StealthInk) and `detections_per_s`.
pub fn watermark(options: &WatermarkBench) -> anyhow::Result<serde_json::Value> {
    anyhow::ensure!(options.texts > 0, "--texts must be at least 1");
    anyhow::ensure!(options.tokens > 8, "--tokens must be more than 8");
    use benchtop_watermark::lm::ModelChoice;
    let model = match options.model.as_str() {
        "gru" => ModelChoice::Gru,
        "synthetic" => ModelChoice::Synthetic,
        _ => ModelChoice::Kjv,
    };
    let report = benchtop_watermark::bench::run(
        options.texts,
        options.tokens,
        options.seed,
        model,
        options.cache.as_deref(),
    )?;
    if let Some(path) = &options.dump {
        std::fs::write(path, serde_json::to_string(&report.peer_problem())?)
            .map_err(|e| anyhow::anyhow!("--dump {}: {e}", path.display()))?;
    }
    stamped(serde_json::to_value(report)?, None)
}

/// Options of `benchtop bench mlip`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench mlip",
    about = "PIWSL training steps (energy + force loss with PITC and PISC, gradient forces) on Lennard-Jones clusters"
)]
pub struct MlipBench {
    /// Atoms per cluster.
    #[arg(long, default_value_t = 7)]
    pub atoms: usize,
    /// Labelled configurations per (full-batch) step.
    #[arg(long, default_value_t = 32)]
    pub configs: usize,
    /// Training steps timed.
    #[arg(long, default_value_t = 50)]
    pub steps: usize,
    /// Seed of the data and weights.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

/// The PIWSL benchmark: `ms_per_step` of full-batch training with all four loss terms.
pub fn mlip(options: &MlipBench) -> anyhow::Result<serde_json::Value> {
    anyhow::ensure!((2..=13).contains(&options.atoms), "--atoms must be 2 to 13");
    anyhow::ensure!(options.configs > 0, "--configs must be at least 1");
    anyhow::ensure!(options.steps > 0, "--steps must be at least 1");
    let report =
        benchtop_mlip::bench::run(options.atoms, options.configs, options.steps, options.seed);
    stamped(serde_json::to_value(report)?, None)
}

/// Runs the benchmark of `engine` with `options` and prints one JSON object.
pub fn bench(engine: &str, options: &[String]) -> anyhow::Result<()> {
    let value = match engine {
        "ising" => {
            let args = std::iter::once("ising".to_owned()).chain(options.iter().cloned());
            ising(&IsingBench::try_parse_from(args)?)?
        }
        "sht" => {
            let args = std::iter::once("sht".to_owned()).chain(options.iter().cloned());
            sht(&ShtBench::try_parse_from(args)?)?
        }
        "findr" => {
            let args = std::iter::once("findr".to_owned()).chain(options.iter().cloned());
            findr(&FindrBench::try_parse_from(args)?)?
        }
        "neurotree" => {
            let args = std::iter::once("neurotree".to_owned()).chain(options.iter().cloned());
            neurotree(&NeuroTreeBench::try_parse_from(args)?)?
        }
        "molstitch" => {
            let args = std::iter::once("molstitch".to_owned()).chain(options.iter().cloned());
            molstitch(&MolStitchBench::try_parse_from(args)?)?
        }
        "rcgp" => {
            let args = std::iter::once("rcgp".to_owned()).chain(options.iter().cloned());
            rcgp(&RcgpBench::try_parse_from(args)?)?
        }
        "linnet" => {
            let args = std::iter::once("linnet".to_owned()).chain(options.iter().cloned());
            linnet(&LinnetBench::try_parse_from(args)?)?
        }
        "assimilation" => {
            let args = std::iter::once("assimilation".to_owned()).chain(options.iter().cloned());
            assimilation(&AssimilationBench::try_parse_from(args)?)?
        }
        "reflection" => {
            let args = std::iter::once("reflection".to_owned()).chain(options.iter().cloned());
            reflection(&ReflectionBench::try_parse_from(args)?)?
        }
        "hymn" => {
            let args = std::iter::once("hymn".to_owned()).chain(options.iter().cloned());
            hymn(&HymnBench::try_parse_from(args)?)?
        }
        "mlip" => {
            let args = std::iter::once("mlip".to_owned()).chain(options.iter().cloned());
            mlip(&MlipBench::try_parse_from(args)?)?
        }
        "watermark" => {
            let args = std::iter::once("watermark".to_owned()).chain(options.iter().cloned());
            watermark(&WatermarkBench::try_parse_from(args)?)?
        }
        other => anyhow::bail!(
            "unknown engine `{other}`; available: ising, sht, findr, neurotree, molstitch, rcgp, linnet, assimilation, reflection, hymn, watermark, mlip"
        ),
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", serde_json::to_string(&value)?)?;
    Ok(())
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
        "app": crate::build_info::version_line(),
    }))
}
