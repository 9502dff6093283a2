//! `benchtop bench quantum`: the Lanczos ground state of one deterministic chain (the one
//! `scripts/bench_quantum_peer.py` builds for `scipy.sparse.linalg.eigsh`) and the shadow
//! snapshots drawn per second from it, with the run's energy, residual and a shadow estimate
//! against its exact value.

use benchtop_kit::cli::{BenchEntry, run_bench, within};
use benchtop_quantum::bench::{BenchParams, bench};
use benchtop_quantum::hamiltonian::{Boundary, MAX_SITES, Model};
use clap::Parser;

/// The panel's `benchtop bench` entries.
pub const BENCHES: &[BenchEntry] = &[BenchEntry {
    name: "quantum",
    about: "Lanczos ground state of a spin chain (ms) and classical-shadow snapshots per second",
    run: |args| run_bench("quantum", args, quantum),
}];

/// Options of `benchtop bench quantum`.
#[derive(Debug, Parser)]
#[command(
    name = "benchtop bench quantum",
    about = "Lanczos ground state of a spin chain (ms) and classical-shadow snapshots per second"
)]
pub struct QuantumBench {
    /// Sites L (2 to 14; 2^L amplitudes).
    #[arg(long, default_value_t = 12)]
    pub sites: usize,
    /// The model: heisenberg (H = Σ J_b S_i·S_j) or tfim (H = −Σ J_b Z_iZ_j − Σ h_i X_i).
    #[arg(long, default_value = "heisenberg", value_parser = ["heisenberg", "tfim"])]
    pub model: String,
    /// The boundary: open or periodic.
    #[arg(long, default_value = "open", value_parser = ["open", "periodic"])]
    pub boundary: String,
    /// Timed repeats of the ground state (the fastest is reported).
    #[arg(long, default_value_t = 3)]
    pub repeats: usize,
    /// Snapshots drawn for the rate.
    #[arg(long, default_value_t = 2000)]
    pub snapshots: usize,
}

/// The quantum benchmark: `ms_ground_state`, `energy`, `residual`, `snapshots_per_second`,
/// `shadow_c01` against `exact_c01`.
pub fn quantum(options: &QuantumBench) -> anyhow::Result<serde_json::Value> {
    within("--sites", options.sites, 2..=MAX_SITES)?;
    within("--repeats", options.repeats, 1..=100)?;
    within("--snapshots", options.snapshots, 1..=1_000_000)?;
    let model = match options.model.as_str() {
        "tfim" => Model::Tfim,
        _ => Model::Heisenberg,
    };
    let boundary = match options.boundary.as_str() {
        "periodic" => Boundary::Periodic,
        _ => Boundary::Open,
    };
    let report = bench(&BenchParams {
        sites: options.sites,
        model,
        boundary,
        repeats: options.repeats,
        snapshots: options.snapshots,
    })?;
    Ok(serde_json::to_value(report)?)
}
