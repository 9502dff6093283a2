//! Single-spin Metropolis with the plaquette term (the duality paper's sampler).
//!
//! One update picks a site uniformly at random and proposes to flip it. The energy change of
//! H = −β Σ links − K Σ plaquettes involves the four nearest neighbours and the four plaquettes
//! that contain the site; the flip is accepted with probability min(1, e^{−ΔH}), looked up in
//! the 25-entry table of [`Couplings::metropolis_table`]. (Random site order keeps the chain
//! ergodic even at β = K = 0, where every flip is accepted; the checkerboard needs the heat-bath
//! blend of [`Couplings::flip_table`] there.) [`sample_configs`] runs independent chains in parallel, each
//! from an all-+1 start, with a warm-up and thinning measured in updates per site.

use benchtop_compute::rng::{EngineRng, derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError};
use rand::RngCore as _;
use rayon::prelude::*;

use crate::couplings::Couplings;
use crate::lattice::{SpinConfig, Start, validate_size};

/// Largest lattice side the single-spin sampler accepts (its neighbour table holds 32 bytes
/// per site: 32 MiB at this size).
pub const MAX_SINGLE_SPIN_SIZE: usize = 1024;

/// Neighbour slots of a site, in the order the neighbour table stores them.
const EAST: usize = 0;
const NORTH: usize = 1;
const WEST: usize = 2;
const SOUTH: usize = 3;
const NORTH_EAST: usize = 4;
const NORTH_WEST: usize = 5;
const SOUTH_WEST: usize = 6;
const SOUTH_EAST: usize = 7;

/// Single-spin Metropolis on one L×L torus.
#[derive(Clone, Debug)]
pub struct SingleSpinMetropolis {
    config: SpinConfig,
    couplings: Couplings,
    /// Acceptance thresholds out of 2³², indexed by `aligned * 5 + positive`; 2³² = always.
    thresholds: [u64; 25],
    /// The 8 neighbours of every site: E, N, W, S, NE, NW, SW, SE ("north" is +y).
    neighbours: Vec<[u32; 8]>,
    rng: EngineRng,
    attempted: u64,
    accepted: u64,
}

impl SingleSpinMetropolis {
    /// A sampler that continues from `config`, with its own random stream from `seed`.
    pub fn new(config: SpinConfig, couplings: Couplings, seed: u64) -> Result<Self, ComputeError> {
        couplings.validate()?;
        let size = config.size();
        check_size(size)?;
        let table = couplings.metropolis_table();
        let mut thresholds = [0_u64; 25];
        for (slot, &threshold) in thresholds.iter_mut().zip(table.thresholds.iter()) {
            *slot = if threshold == u32::MAX {
                1_u64 << 32
            } else {
                u64::from(threshold)
            };
        }
        Ok(Self {
            neighbours: neighbour_table(&config),
            config,
            couplings,
            thresholds,
            rng: seeded(seed),
            attempted: 0,
            accepted: 0,
        })
    }

    /// The current configuration.
    pub fn config(&self) -> &SpinConfig {
        &self.config
    }

    /// The couplings being sampled.
    pub fn couplings(&self) -> Couplings {
        self.couplings
    }

    /// Fraction of proposed flips accepted so far (0 before any update).
    pub fn acceptance_rate(&self) -> f64 {
        if self.attempted == 0 {
            0.0
        } else {
            self.accepted as f64 / self.attempted as f64
        }
    }

    /// Single-spin updates proposed so far.
    pub fn updates_done(&self) -> u64 {
        self.attempted
    }

    /// Performs `n_updates` single-spin updates (one per randomly chosen site).
    pub fn update(&mut self, n_updates: u64) {
        if self.couplings.plaquette == 0.0 {
            self.run::<false>(n_updates);
        } else {
            self.run::<true>(n_updates);
        }
    }

    /// The update loop; `PLAQUETTE = false` skips the four plaquette products (K = 0).
    fn run<const PLAQUETTE: bool>(&mut self, n_updates: u64) {
        let sites = self.neighbours.len() as u64;
        let spins = self.config.spins_mut();
        let mut accepted = 0_u64;
        for _ in 0..n_updates {
            let random = self.rng.next_u64();
            // Multiply-shift picks a site from the low 32 bits; the proposal probabilities are
            // symmetric (the reverse move picks the same site), so detailed balance is exact.
            let site = (((random & 0xffff_ffff) * sites) >> 32) as usize;
            let uniform = random >> 32;
            let near = &self.neighbours[site];
            let spin = i32::from(spins[site]);
            let east = i32::from(spins[near[EAST] as usize]);
            let north = i32::from(spins[near[NORTH] as usize]);
            let west = i32::from(spins[near[WEST] as usize]);
            let south = i32::from(spins[near[SOUTH] as usize]);
            let aligned = (4 + spin * (east + north + west + south)) >> 1;
            let positive = if PLAQUETTE {
                let north_east = i32::from(spins[near[NORTH_EAST] as usize]);
                let north_west = i32::from(spins[near[NORTH_WEST] as usize]);
                let south_west = i32::from(spins[near[SOUTH_WEST] as usize]);
                let south_east = i32::from(spins[near[SOUTH_EAST] as usize]);
                let plaquettes = east * north_east * north
                    + north * north_west * west
                    + west * south_west * south
                    + south * south_east * east;
                (4 + spin * plaquettes) >> 1
            } else {
                // With K = 0 the plaquette column of the table does not matter; 2 = neutral.
                2
            };
            let slot = (aligned * 5 + positive) as usize;
            let accept = uniform < self.thresholds[slot];
            // Branch-free flip: multiply by −1 when accepted.
            let flipped = (spin * (1 - 2 * i32::from(accept))) as i8;
            spins[site] = flipped;
            accepted += u64::from(accept);
        }
        self.attempted += n_updates;
        self.accepted += accepted;
    }
}

/// Checks that `size` suits the single-spin sampler.
fn check_size(size: usize) -> Result<(), ComputeError> {
    validate_size(size)?;
    if size > MAX_SINGLE_SPIN_SIZE {
        return Err(ComputeError::invalid(
            "size",
            format!(
                "L = {size} is too large for the single-spin sampler; use L ≤ \
                 {MAX_SINGLE_SPIN_SIZE} (the checkerboard samplers handle larger lattices)"
            ),
        ));
    }
    Ok(())
}

/// E, N, W, S, NE, NW, SW, SE neighbours of every site of `config`'s torus.
fn neighbour_table(config: &SpinConfig) -> Vec<[u32; 8]> {
    let size = config.size();
    let mut table = Vec::with_capacity(size * size);
    let side = size as isize;
    for y in 0..side {
        for x in 0..side {
            let at = |dx: isize, dy: isize| -> u32 {
                // L ≤ MAX_SINGLE_SPIN_SIZE, so every index fits in u32.

                config.index(x + dx, y + dy) as u32
            };
            table.push([
                at(1, 0),
                at(0, 1),
                at(-1, 0),
                at(0, -1),
                at(1, 1),
                at(-1, 1),
                at(-1, -1),
                at(1, -1),
            ]);
        }
    }
    table
}

/// Draws `n_samples` configurations of the L×L torus at `couplings` from `chains` independent
/// single-spin Metropolis chains run in parallel.
///
/// Chain c (seed `derive_seed(seed, c)`) starts all +1, performs `warmup_per_site`·L² updates,
/// records a sample, then records another after every further `thin_per_site`·L² updates.
/// Chain c contributes ⌊n/chains⌋ samples, plus one if c < n mod chains. The samples come back
/// chain by chain in chain order, so the result depends only on the arguments, never on thread
/// timing. Cancellation is checked between samples.
#[allow(clippy::too_many_arguments)]
pub fn sample_configs(
    size: usize,
    couplings: Couplings,
    n_samples: usize,
    warmup_per_site: u64,
    thin_per_site: u64,
    seed: u64,
    chains: usize,
    cancel: &CancelToken,
) -> Result<Vec<SpinConfig>, ComputeError> {
    check_size(size)?;
    couplings.validate()?;
    if chains == 0 {
        return Err(ComputeError::invalid(
            "chains",
            "at least one Markov chain is needed",
        ));
    }
    if thin_per_site == 0 {
        return Err(ComputeError::invalid(
            "thin_per_site",
            "thinning must be at least 1 update per site, or every sample would repeat",
        ));
    }
    let sites = (size * size) as u64;
    let warmup = warmup_per_site.checked_mul(sites).ok_or_else(|| {
        ComputeError::invalid(
            "warmup_per_site",
            format!("{warmup_per_site} updates per site overflow the update counter"),
        )
    })?;
    let thin = thin_per_site.checked_mul(sites).ok_or_else(|| {
        ComputeError::invalid(
            "thin_per_site",
            format!("{thin_per_site} updates per site overflow the update counter"),
        )
    })?;
    let per_chain: Vec<(u64, usize)> = (0..chains)
        .map(|chain| {
            let extra = usize::from(chain < n_samples % chains);
            (chain as u64, n_samples / chains + extra)
        })
        .filter(|&(_, count)| count > 0)
        .collect();
    let blocks: Vec<Vec<SpinConfig>> = per_chain
        .into_par_iter()
        .map(|(chain, count)| {
            let start = SpinConfig::new(size, Start::Cold, 0)?;
            let mut sampler =
                SingleSpinMetropolis::new(start, couplings, derive_seed(seed, chain))?;
            sampler.update(warmup);
            let mut samples = Vec::with_capacity(count);
            for index in 0..count {
                cancel.check()?;
                if index > 0 {
                    sampler.update(thin);
                }
                samples.push(sampler.config().clone());
            }
            Ok(samples)
        })
        .collect::<Result<_, ComputeError>>()?;
    Ok(blocks.into_iter().flatten().collect())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Exact Boltzmann averages on the 4×4 torus by enumerating all 2¹⁶ states (test-only).
    pub(crate) mod enumeration {
        use crate::couplings::Couplings;
        use crate::lattice::SpinConfig;

        /// Side of the enumerated torus.
        pub(crate) const SIZE: usize = 4;

        /// Every configuration of the 4×4 torus (bit i of the state is spin i, 1 = +1).
        pub(crate) fn all_configs() -> Vec<SpinConfig> {
            (0..1_u32 << 16)
                .map(|state| {
                    let spins = (0..16)
                        .map(|i| if state >> i & 1 == 1 { 1 } else { -1 })
                        .collect();
                    SpinConfig::from_spins(SIZE, spins).unwrap()
                })
                .collect()
        }

        /// Σ over links of s_i s_j and Σ over plaquettes of s₁s₂s₃s₄.
        pub(crate) fn link_and_plaquette_sums(config: &SpinConfig) -> (f64, f64) {
            let (mut links, mut plaquettes) = (0_i32, 0_i32);
            for y in 0..4 {
                for x in 0..4 {
                    let s = i32::from(config.get(x, y));
                    let east = i32::from(config.get(x + 1, y));
                    let north = i32::from(config.get(x, y + 1));
                    let north_east = i32::from(config.get(x + 1, y + 1));
                    links += s * east + s * north;
                    plaquettes += s * east * north * north_east;
                }
            }
            (f64::from(links), f64::from(plaquettes))
        }

        /// Normalised Boltzmann weights e^{β Σ links + K Σ plaquettes}/Z of `configs`.
        pub(crate) fn weights(configs: &[SpinConfig], couplings: Couplings) -> Vec<f64> {
            let energies: Vec<f64> = configs
                .iter()
                .map(|c| {
                    let (links, plaquettes) = link_and_plaquette_sums(c);
                    couplings.beta * links + couplings.plaquette * plaquettes
                })
                .collect();
            let top = energies.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let raw: Vec<f64> = energies.iter().map(|e| (e - top).exp()).collect();
            let total: f64 = raw.iter().sum();
            raw.into_iter().map(|w| w / total).collect()
        }

        /// Exact ⟨f⟩ under the weights.
        pub(crate) fn average(weights: &[f64], values: &[f64]) -> f64 {
            weights.iter().zip(values).map(|(w, v)| w * v).sum()
        }
    }

    /// Bond energy per link and plaquette per site of one configuration.
    fn per_site(config: &SpinConfig) -> (f64, f64) {
        let (links, plaquettes) = enumeration::link_and_plaquette_sums(config);
        let sites = (config.size() * config.size()) as f64;
        (links / (2.0 * sites), plaquettes / sites)
    }

    /// Mean and standard error from independent chains (one estimate per chain).
    fn mean_and_error(estimates: &[f64]) -> (f64, f64) {
        let n = estimates.len() as f64;
        let mean = estimates.iter().sum::<f64>() / n;
        let variance = estimates.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (n - 1.0);
        (mean, (variance / n).sqrt())
    }

    #[test]
    fn averages_match_exact_enumeration_on_4x4() {
        let configs = enumeration::all_configs();
        let exact_values: Vec<(f64, f64)> = configs.iter().map(per_site).collect();
        let bonds: Vec<f64> = exact_values.iter().map(|v| v.0).collect();
        let plaquettes: Vec<f64> = exact_values.iter().map(|v| v.1).collect();
        for (couplings, seed) in [
            (Couplings::ising(0.35), 11),
            (
                Couplings {
                    beta: 0.35,
                    plaquette: 0.2,
                },
                12,
            ),
        ] {
            let weights = enumeration::weights(&configs, couplings);
            let exact_bond = enumeration::average(&weights, &bonds);
            let exact_plaquette = enumeration::average(&weights, &plaquettes);
            // 40 independent chains of 500 samples; one estimate per chain.
            let chains = 40;
            let samples = sample_configs(
                4,
                couplings,
                chains * 500,
                50,
                2,
                seed,
                chains,
                &CancelToken::new(),
            )
            .unwrap();
            let (bond_chain, plaquette_chain): (Vec<f64>, Vec<f64>) = samples
                .chunks(500)
                .map(|chunk| {
                    let (b, p) = chunk
                        .iter()
                        .map(per_site)
                        .fold((0.0, 0.0), |acc, v| (acc.0 + v.0, acc.1 + v.1));
                    (b / 500.0, p / 500.0)
                })
                .unzip();
            let (bond, bond_error) = mean_and_error(&bond_chain);
            let (plaquette, plaquette_error) = mean_and_error(&plaquette_chain);
            assert!(
                (bond - exact_bond).abs() < 4.0 * bond_error,
                "{couplings:?}: bond {bond} ± {bond_error} vs exact {exact_bond}"
            );
            assert!(
                (plaquette - exact_plaquette).abs() < 4.0 * plaquette_error,
                "{couplings:?}: plaquette {plaquette} ± {plaquette_error} vs exact {exact_plaquette}"
            );
            // The error bars are small enough for the check to mean something.
            assert!(bond_error < 0.01 && plaquette_error < 0.01);
        }
    }

    #[test]
    fn sampling_is_deterministic_and_chains_differ() {
        let couplings = Couplings {
            beta: 0.4,
            plaquette: -0.1,
        };
        let cancel = CancelToken::new();
        let a = sample_configs(8, couplings, 7, 5, 1, 99, 3, &cancel).unwrap();
        let b = sample_configs(8, couplings, 7, 5, 1, 99, 3, &cancel).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len(), 7);
        // Chain 0 gives samples 0..3, chain 1 samples 3..5: different streams.
        assert_ne!(a[0], a[3]);
        // The same chain computed alone gives the same first sample.
        let mut alone = SingleSpinMetropolis::new(
            SpinConfig::new(8, Start::Cold, 0).unwrap(),
            couplings,
            derive_seed(99, 1),
        )
        .unwrap();
        alone.update(5 * 64);
        assert_eq!(alone.config(), &a[3]);
        let other_seed = sample_configs(8, couplings, 7, 5, 1, 100, 3, &cancel).unwrap();
        assert_ne!(a, other_seed);
    }

    #[test]
    fn acceptance_is_total_at_infinite_temperature_and_rare_when_cold() {
        let mut hot = SingleSpinMetropolis::new(
            SpinConfig::new(8, Start::Cold, 0).unwrap(),
            Couplings::ising(0.0),
            1,
        )
        .unwrap();
        hot.update(1000);
        assert!((hot.acceptance_rate() - 1.0).abs() < 1e-12);
        assert_eq!(hot.updates_done(), 1000);
        // From all +1 at β = 3 every flip costs ΔH = 24: essentially never accepted.
        let mut cold = SingleSpinMetropolis::new(
            SpinConfig::new(8, Start::Cold, 0).unwrap(),
            Couplings::ising(3.0),
            1,
        )
        .unwrap();
        cold.update(10_000);
        assert!(cold.acceptance_rate() < 1e-3);
        assert!((cold.config().magnetization() - 1.0).abs() < 0.05);
    }

    #[test]
    fn bad_arguments_are_named() {
        let cancel = CancelToken::new();
        let c = Couplings::ising(0.3);
        let message = |r: Result<Vec<SpinConfig>, ComputeError>| r.unwrap_err().to_string();
        assert!(message(sample_configs(8, c, 4, 1, 1, 0, 0, &cancel)).contains("chains"));
        assert!(message(sample_configs(8, c, 4, 1, 0, 0, 1, &cancel)).contains("thin_per_site"));
        assert!(message(sample_configs(7, c, 4, 1, 1, 0, 1, &cancel)).contains("size"));
        assert!(message(sample_configs(2048, c, 4, 1, 1, 0, 1, &cancel)).contains("size"));
        let bad = Couplings {
            beta: f64::NAN,
            plaquette: 0.0,
        };
        assert!(message(sample_configs(8, bad, 4, 1, 1, 0, 1, &cancel)).contains("beta"));
        cancel.cancel();
        assert!(matches!(
            sample_configs(8, c, 4, 1, 1, 0, 1, &cancel),
            Err(ComputeError::Cancelled)
        ));
    }
}
