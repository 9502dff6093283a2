//! The `benchtop bench quantum` workload: the Lanczos ground state of one deterministic chain
//! (the NumPy/SciPy peer builds the same one) and the shadow snapshots drawn per second from
//! it, with the run's own observables (energy, residual, a shadow estimate against its exact
//! value) so that a fast but wrong result shows.

use std::time::Instant;

use benchtop_compute::{CancelToken, ComputeError};
use serde::{Deserialize, Serialize};

use crate::hamiltonian::{Boundary, Chain, Model, bonds, check_sites};
use crate::lanczos::{LanczosSettings, ground_state};
use crate::observables;
use crate::shadows::{check_snapshots, mean, sample};

/// What to time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchParams {
    /// Sites L.
    pub sites: usize,
    /// The model.
    pub model: Model,
    /// The boundary.
    pub boundary: Boundary,
    /// Timed repeats of the ground state (the fastest is reported).
    pub repeats: usize,
    /// Snapshots drawn for the rate.
    pub snapshots: usize,
}

/// The timings and observables.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchReport {
    /// Sites L.
    pub sites: usize,
    /// "heisenberg" or "tfim".
    pub model: String,
    /// "open" or "periodic".
    pub boundary: String,
    /// 2^L.
    pub dimension: usize,
    /// Fastest ground state, milliseconds.
    pub ms_ground_state: f64,
    /// E₀.
    pub energy: f64,
    /// ‖Hψ − E₀ψ‖.
    pub residual: f64,
    /// Matrix–vector products of one ground state.
    pub products: usize,
    /// Snapshots drawn.
    pub snapshots: usize,
    /// Snapshots per second.
    pub snapshots_per_second: f64,
    /// Shadow estimate of C₀₁ from those snapshots.
    pub shadow_c01: f64,
    /// Exact C₀₁.
    pub exact_c01: f64,
}

/// The benchmark chain: J_b = 1 + ½·sin(1.3b + 0.7) on bond b (in the order of [`bonds`]),
/// and for the TFIM h_i = 0.8 + 0.3·cos(0.9i).
pub fn bench_chain(model: Model, boundary: Boundary, sites: usize) -> Result<Chain, ComputeError> {
    check_sites("sites", sites)?;
    let couplings = (0..bonds(sites, boundary).len())
        .map(|b| 1.0 + 0.5 * (1.3 * b as f64 + 0.7).sin())
        .collect();
    let fields = match model {
        Model::Heisenberg => Vec::new(),
        Model::Tfim => (0..sites)
            .map(|i| 0.8 + 0.3 * (0.9 * i as f64).cos())
            .collect(),
    };
    Chain::new(model, boundary, couplings, fields)
}

/// Runs the benchmark.
pub fn bench(params: &BenchParams) -> Result<BenchReport, ComputeError> {
    check_snapshots("snapshots", params.snapshots)?;
    let chain = bench_chain(params.model, params.boundary, params.sites)?;
    let settings = LanczosSettings::default();
    let cancel = CancelToken::new();
    let mut best = f64::INFINITY;
    let mut state = None;
    for _ in 0..params.repeats.max(1) {
        let start = Instant::now();
        let gs = ground_state(&chain, 1, &settings, &cancel)?;
        best = best.min(start.elapsed().as_secs_f64() * 1e3);
        state = Some(gs);
    }
    let gs = state.ok_or_else(|| ComputeError::invalid("repeats", "choose at least 1"))?;
    let mut rng = benchtop_compute::rng::seeded(7);
    let start = Instant::now();
    let snaps = sample(&gs.vector, params.sites, params.snapshots, &mut rng)?;
    let seconds = start.elapsed().as_secs_f64();
    Ok(BenchReport {
        sites: params.sites,
        model: match params.model {
            Model::Heisenberg => "heisenberg",
            Model::Tfim => "tfim",
        }
        .to_owned(),
        boundary: match params.boundary {
            Boundary::Open => "open",
            Boundary::Periodic => "periodic",
        }
        .to_owned(),
        dimension: chain.dimension(),
        ms_ground_state: best,
        energy: gs.energy,
        residual: gs.residual,
        products: gs.products,
        snapshots: params.snapshots,
        snapshots_per_second: params.snapshots as f64 / seconds.max(1e-12),
        shadow_c01: mean(&snaps.correlation_samples(0, 1)),
        exact_c01: observables::correlations(&gs.vector, params.sites)[(0, 1)],
    })
}
