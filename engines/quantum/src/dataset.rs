//! Pools of random chains with their exact ground states and targets, and the shadow data a
//! learner gets from them under a budget of M snapshots per chain.

use std::sync::atomic::{AtomicUsize, Ordering};

use benchtop_compute::error::ARRAY_LIMIT_BYTES;
use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use nalgebra::DMatrix;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::hamiltonian::{Boundary, Chain, Model, check_sites};
use crate::lanczos::{LanczosSettings, ground_state};
use crate::learners::{InputSet, Layout};
use crate::observables::{self, Pauli, blocks, pairs};
use crate::shadows::{self, Snapshots};

/// One chain's estimates from its snapshots: shadow features, two-point correlations, block
/// Rényi-2 entropies (bits) and the order parameter.
type ChainEstimates = (Vec<f64>, Vec<f64>, Vec<f64>, f64);

/// The family of chains drawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SystemParams {
    /// Sites L.
    pub sites: usize,
    /// Open or periodic.
    pub boundary: Boundary,
    /// The model whose correlations and entropies are learned (phases are always the TFIM's).
    pub property_model: Model,
    /// Couplings J_b ~ U[0, j_max].
    pub j_max: f64,
    /// TFIM fields h ~ U[0, h_max].
    pub h_max: f64,
    /// One TFIM field for every site (else one per site).
    pub uniform_field: bool,
    /// Sites per entropy block.
    pub block: usize,
}

impl Default for SystemParams {
    fn default() -> Self {
        Self {
            sites: 10,
            boundary: Boundary::Open,
            property_model: Model::Heisenberg,
            j_max: 2.0,
            h_max: 2.0,
            uniform_field: true,
            block: 2,
        }
    }
}

impl SystemParams {
    /// Checks every field, errors naming `prefix.key`.
    pub fn validate(&self, prefix: &str) -> Result<(), ComputeError> {
        let key = |k: &str| format!("{prefix}.{k}");
        check_sites(&key("sites"), self.sites)?;
        if !(self.j_max.is_finite() && self.j_max > 0.0) {
            return Err(ComputeError::invalid(
                key("j_max"),
                "couplings are drawn from U[0, J_max]: J_max must be finite and > 0 (negative \
                 couplings are not part of these models)",
            ));
        }
        if !(self.h_max.is_finite() && self.h_max > 0.0) {
            return Err(ComputeError::invalid(
                key("h_max"),
                "fields are drawn from U[0, h_max]: h_max must be finite and > 0",
            ));
        }
        if !(1..=3).contains(&self.block) || self.block >= self.sites {
            return Err(ComputeError::invalid(
                key("block"),
                format!("choose 1 to {} sites per block", 3.min(self.sites - 1)),
            ));
        }
        Ok(())
    }

    /// The entropy blocks.
    pub fn blocks(&self) -> Vec<Vec<usize>> {
        blocks(self.sites, self.block, self.boundary == Boundary::Periodic)
    }
}

/// Chains of one model with their ground states and exact targets.
#[derive(Clone, Debug, PartialEq)]
pub struct Pool {
    /// Their model.
    pub model: Model,
    /// The chains.
    pub chains: Vec<Chain>,
    /// Their ground states.
    pub states: Vec<Vec<f64>>,
    /// Their ground-state energies.
    pub energies: Vec<f64>,
    /// Exact C_ij (chains × pairs, in the order of [`pairs`]).
    pub correlations: DMatrix<f64>,
    /// Exact Rényi-2 entropies in bits (chains × blocks).
    pub entropies: DMatrix<f64>,
    /// Exact order parameters m².
    pub order: Vec<f64>,
}

/// Draws `count` chains of `model` from `seed` and finds their ground states (in parallel).
pub fn make_pool(
    system: &SystemParams,
    model: Model,
    count: usize,
    seed: u64,
    lanczos: &LanczosSettings,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Pool, ComputeError> {
    system.validate("system")?;
    let dim = 1_usize << system.sites;
    ComputeError::check_memory(
        &[("budget.samples", count), ("system.sites", dim)],
        8,
        ARRAY_LIMIT_BYTES,
    )?;
    let mut rng = seeded(seed);
    let chains = (0..count)
        .map(|_| {
            Chain::random(
                model,
                system.boundary,
                system.sites,
                system.j_max,
                system.h_max,
                system.uniform_field,
                &mut rng,
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let done = AtomicUsize::new(0);
    let results: Vec<(f64, Vec<f64>)> = chains
        .par_iter()
        .enumerate()
        .map(|(k, chain)| {
            let gs = ground_state(chain, derive_seed(seed, k as u64), lanczos, cancel)?;
            let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress.set(
                finished as f64 / count.max(1) as f64,
                format!("{} ground states: {finished} of {count}", model.label()),
            );
            Ok((gs.energy, gs.vector))
        })
        .collect::<Result<_, ComputeError>>()?;
    let (energies, states): (Vec<f64>, Vec<Vec<f64>>) = results.into_iter().unzip();
    let pair_list = pairs(system.sites);
    let block_list = system.blocks();
    let correlations = DMatrix::from_fn(count, pair_list.len(), |r, c| {
        let (i, j) = pair_list[c];
        Pauli::ALL
            .iter()
            .map(|&p| observables::pauli_expectation(&states[r], &[(i, p), (j, p)]))
            .sum::<f64>()
            / 3.0
    });
    let entropies = DMatrix::from_fn(count, block_list.len(), |r, c| {
        observables::renyi2_bits(observables::purity(&states[r], &block_list[c]))
    });
    let order = states
        .iter()
        .map(|s| observables::order_parameter(s, system.sites))
        .collect();
    Ok(Pool {
        model,
        chains,
        states,
        energies,
        correlations,
        entropies,
        order,
    })
}

/// What `M` snapshots of each of a set of chains give a learner.
#[derive(Clone, Debug, PartialEq)]
pub struct ShadowData {
    /// The inputs (parameters and shadow features).
    pub inputs: InputSet,
    /// Shadow estimates of C_ij (chains × pairs).
    pub correlations: DMatrix<f64>,
    /// Shadow estimates of the block entropies in bits (chains × blocks).
    pub entropies: DMatrix<f64>,
    /// Shadow estimates of m².
    pub order: Vec<f64>,
}

/// The shadow features of one chain's snapshots: ⟨X_i⟩, ⟨Y_i⟩, ⟨Z_i⟩ per site, then ⟨XX⟩,
/// ⟨YY⟩, ⟨ZZ⟩ per bond.
pub fn shadow_features(snapshots: &Snapshots, layout: &Layout) -> Vec<f64> {
    let mut f = Vec::with_capacity(layout.shadow_count());
    for site in 0..layout.sites {
        for p in Pauli::ALL {
            f.push(snapshots.pauli(&[(site, p)]));
        }
    }
    for &(i, j) in &layout.bonds {
        for p in Pauli::ALL {
            f.push(snapshots.pauli(&[(i, p), (j, p)]));
        }
    }
    f
}

/// Draws `m` snapshots of the chains `rows` of `pool` (chain k from stream `stream + k` of
/// `seed`) and returns their inputs and shadow-estimated targets.
pub fn shadow_data(
    pool: &Pool,
    rows: std::ops::Range<usize>,
    m: usize,
    system: &SystemParams,
    seed: u64,
    stream: u64,
    cancel: &CancelToken,
) -> Result<ShadowData, ComputeError> {
    shadows::check_snapshots("budget.snapshots", m)?;
    let layout = &Layout::new(pool.model, system.boundary, system.sites);
    let block_list = system.blocks();
    let per_chain: Vec<ChainEstimates> = rows
        .clone()
        .into_par_iter()
        .map(|k| {
            cancel.check()?;
            let mut rng = seeded(derive_seed(seed, stream + k as u64));
            let snaps = shadows::sample(&pool.states[k], system.sites, m, &mut rng)?;
            let features = shadow_features(&snaps, layout);
            let entropies = block_list.iter().map(|b| snaps.renyi2_bits(b)).collect();
            let order = snaps.order_parameter();
            Ok((features, snaps.correlations(), entropies, order))
        })
        .collect::<Result<_, ComputeError>>()?;
    let n = per_chain.len();
    let rows_of_parameters: Vec<Vec<f64>> = rows.map(|k| pool.chains[k].parameters()).collect();
    let parameters = DMatrix::from_fn(n, layout.parameter_count(), |r, c| rows_of_parameters[r][c]);
    let shadow_matrix = DMatrix::from_fn(n, layout.shadow_count(), |r, c| per_chain[r].0[c]);
    let correlations = DMatrix::from_fn(n, pairs(system.sites).len(), |r, c| per_chain[r].1[c]);
    let entropies = DMatrix::from_fn(n, block_list.len(), |r, c| per_chain[r].2[c]);
    Ok(ShadowData {
        inputs: InputSet {
            parameters,
            shadows: shadow_matrix,
        },
        correlations,
        entropies,
        order: per_chain.iter().map(|p| p.3).collect(),
    })
}
