//! Seeded random numbers. Engines take a `seed: u64` and derive every stream from it; there is
//! no global generator.

use rand::SeedableRng as _;
pub use rand_chacha::ChaCha8Rng;

/// The generator engines use: ChaCha8 seeded from a `u64`.
pub type EngineRng = ChaCha8Rng;

/// A generator for `seed`; the same seed always gives the same stream.
pub fn seeded(seed: u64) -> EngineRng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// An independent seed for sub-stream `stream` of `seed` (chains, repeats, threads).
pub fn derive_seed(seed: u64, stream: u64) -> u64 {
    splitmix64(seed ^ splitmix64(stream.wrapping_add(0x6a09_e667_f3bc_c909)))
}

/// The SplitMix64 finaliser: a bijective 64-bit mix with good avalanche.
pub const fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    #[test]
    fn same_seed_same_stream_and_streams_differ() {
        let a: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(seeded(7), |r, _: u64| Some(r.random()))
            .collect();
        let b: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(seeded(7), |r, _: u64| Some(r.random()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(derive_seed(7, 0), derive_seed(7, 1));
        assert_ne!(derive_seed(7, 0), derive_seed(8, 0));
    }
}
