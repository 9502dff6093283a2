//! The CPU checkerboard sampler: multi-threaded, multi-spin coded where the lattice allows.

use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError};

use super::counter_rng::phase_key;
use super::multispin::{self, BitTable};
use super::packed::PackedLattice;
use super::{PHASES, reference};
use crate::couplings::{Couplings, FlipTable};
use crate::lattice::SpinConfig;

/// How the CPU sampler stores the lattice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum CpuLayout {
    /// 64 spins per word (L a multiple of 128).
    Words64,
    /// 32 spins per word (L a multiple of 64).
    Words32,
    /// One byte per spin (any even L).
    BytePerSpin,
}

impl CpuLayout {
    /// The fastest layout for side `size`.
    pub fn best_for(size: usize) -> Self {
        if PackedLattice::<u64>::fits(size) {
            Self::Words64
        } else if PackedLattice::<u32>::fits(size) {
            Self::Words32
        } else {
            Self::BytePerSpin
        }
    }
}

#[derive(Clone, Debug)]
enum Storage {
    Words64(PackedLattice<u64>),
    Words32(PackedLattice<u32>),
    Bytes(SpinConfig),
}

/// Checkerboard Metropolis on the CPU, following the canonical rule of [`super`].
#[derive(Debug)]
pub struct CpuCheckerboard {
    storage: Storage,
    couplings: Couplings,
    table: FlipTable,
    bit_table: BitTable,
    seed: u64,
    sweeps_done: u64,
    pool: Arc<rayon::ThreadPool>,
}

impl CpuCheckerboard {
    /// A sampler over `config` with the fastest layout, on `threads` worker threads
    /// (0 = one per core).
    pub fn new(
        config: &SpinConfig,
        couplings: Couplings,
        seed: u64,
        threads: usize,
    ) -> Result<Self, ComputeError> {
        Self::with_layout(
            config,
            couplings,
            seed,
            threads,
            CpuLayout::best_for(config.size()),
        )
    }

    /// A sampler with a chosen layout (tests compare layouts bit for bit).
    pub fn with_layout(
        config: &SpinConfig,
        couplings: Couplings,
        seed: u64,
        threads: usize,
        layout: CpuLayout,
    ) -> Result<Self, ComputeError> {
        couplings.validate()?;
        let storage = match layout {
            CpuLayout::Words64 => Storage::Words64(PackedLattice::pack(config)?),
            CpuLayout::Words32 => Storage::Words32(PackedLattice::pack(config)?),
            CpuLayout::BytePerSpin => Storage::Bytes(config.clone()),
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|index| format!("ising-cpu-{index}"))
            .build()
            .map_err(|error| ComputeError::invalid("threads", format!("thread pool: {error}")))?;
        let table = couplings.flip_table();
        Ok(Self {
            storage,
            couplings,
            table,
            bit_table: BitTable::new(&table, couplings.plaquette != 0.0),
            seed,
            sweeps_done: 0,
            pool: Arc::new(pool),
        })
    }

    /// The layout in use.
    pub fn layout(&self) -> CpuLayout {
        match self.storage {
            Storage::Words64(_) => CpuLayout::Words64,
            Storage::Words32(_) => CpuLayout::Words32,
            Storage::Bytes(_) => CpuLayout::BytePerSpin,
        }
    }

    /// Worker threads in use.
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// The couplings in use.
    pub fn couplings(&self) -> Couplings {
        self.couplings
    }

    /// Changes the couplings for the following sweeps (the lattice is kept).
    pub fn set_couplings(&mut self, couplings: Couplings) -> Result<(), ComputeError> {
        couplings.validate()?;
        self.couplings = couplings;
        self.table = couplings.flip_table();
        self.bit_table = BitTable::new(&self.table, couplings.plaquette != 0.0);
        Ok(())
    }

    /// Sweeps done since creation (the sweep counter keys the random numbers).
    pub fn sweeps_done(&self) -> u64 {
        self.sweeps_done
    }

    /// One sweep (four phases).
    pub fn sweep(&mut self) {
        let plaquette = self.couplings.plaquette != 0.0;
        let (seed, sweep) = (self.seed, self.sweeps_done);
        let Self {
            storage,
            table,
            bit_table,
            pool,
            ..
        } = self;
        pool.install(|| {
            for (colour, parity) in PHASES {
                let key = phase_key(seed, sweep, colour);
                let (colour, parity) = (colour as usize, parity as usize);
                match storage {
                    Storage::Words64(lattice) => {
                        multispin::update_phase(lattice, colour, parity, bit_table, key);
                    }
                    Storage::Words32(lattice) => {
                        multispin::update_phase(lattice, colour, parity, bit_table, key);
                    }
                    Storage::Bytes(config) => {
                        reference::update_phase(config, colour, parity, table, plaquette, key);
                    }
                }
            }
        });
        self.sweeps_done += 1;
    }

    /// `count` sweeps, checking `cancel` between sweeps.
    pub fn sweeps(&mut self, count: u64, cancel: &CancelToken) -> Result<(), ComputeError> {
        for _ in 0..count {
            cancel.check()?;
            self.sweep();
        }
        Ok(())
    }

    /// The current configuration, one byte per spin.
    pub fn config(&self) -> SpinConfig {
        match &self.storage {
            Storage::Words64(lattice) => lattice.unpack(),
            Storage::Words32(lattice) => lattice.unpack(),
            Storage::Bytes(config) => config.clone(),
        }
    }

    /// The current lattice in the 32-bit packed layout, when the side allows it (for GPUs).
    pub fn packed_u32(&self) -> Option<PackedLattice<u32>> {
        match &self.storage {
            Storage::Words64(lattice) => Some(lattice.to_u32()),
            Storage::Words32(lattice) => Some(lattice.clone()),
            Storage::Bytes(config) => PackedLattice::pack(config).ok(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lattice::Start;

    fn run(
        layout: CpuLayout,
        size: usize,
        couplings: Couplings,
        sweeps: u64,
        threads: usize,
    ) -> SpinConfig {
        let config = SpinConfig::new(size, Start::Hot, 11).unwrap();
        let mut sampler =
            CpuCheckerboard::with_layout(&config, couplings, 5, threads, layout).unwrap();
        sampler.sweeps(sweeps, &CancelToken::new()).unwrap();
        sampler.config()
    }

    #[test]
    fn all_layouts_accept_the_same_flips() {
        for couplings in [
            Couplings::ising(0.42),
            Couplings {
                beta: 0.3,
                plaquette: 0.15,
            },
            Couplings {
                beta: 0.5,
                plaquette: -0.2,
            },
            // The heat-bath blend: every class needs a random number.
            Couplings::ising(0.0),
            Couplings {
                beta: 0.02,
                plaquette: -0.03,
            },
        ] {
            let reference = run(CpuLayout::BytePerSpin, 128, couplings, 6, 1);
            assert_eq!(
                run(CpuLayout::Words32, 128, couplings, 6, 2),
                reference,
                "{couplings:?}"
            );
            assert_eq!(
                run(CpuLayout::Words64, 128, couplings, 6, 2),
                reference,
                "{couplings:?}"
            );
        }
    }

    #[test]
    fn thread_count_does_not_change_the_result() {
        let couplings = Couplings::ising(0.44);
        assert_eq!(
            run(CpuLayout::Words64, 256, couplings, 5, 1),
            run(CpuLayout::Words64, 256, couplings, 5, 3)
        );
    }

    #[test]
    fn seed_changes_the_result_and_cancel_stops() {
        let config = SpinConfig::new(64, Start::Hot, 1).unwrap();
        let mut a = CpuCheckerboard::new(&config, Couplings::ising(0.3), 1, 1).unwrap();
        let mut b = CpuCheckerboard::new(&config, Couplings::ising(0.3), 2, 1).unwrap();
        a.sweep();
        b.sweep();
        assert_ne!(a.config(), b.config());
        let cancel = CancelToken::new();
        cancel.cancel();
        assert!(matches!(
            a.sweeps(10, &cancel),
            Err(ComputeError::Cancelled)
        ));
        assert_eq!(a.sweeps_done(), 1);
    }

    #[test]
    fn magnetisation_matches_onsager_below_tc() {
        // β = 0.5: spontaneous magnetisation (1 − sinh⁻⁴ 1)^{1/8} = 0.91132.
        let config = SpinConfig::new(128, Start::Cold, 0).unwrap();
        let mut sampler = CpuCheckerboard::new(&config, Couplings::ising(0.5), 3, 2).unwrap();
        sampler.sweeps(200, &CancelToken::new()).unwrap();
        let mut sum = 0.0;
        for _ in 0..400 {
            sampler.sweep();
            sum += sampler.config().magnetization().abs();
        }
        let mean = sum / 400.0;
        let exact = (1.0 - (1.0_f64).sinh().powi(-4)).powf(0.125);
        assert!(
            (mean - exact).abs() < 0.005,
            "⟨|m|⟩ = {mean}, Onsager {exact}"
        );
    }
}
