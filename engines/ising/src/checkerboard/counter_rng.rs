//! The counter-based random numbers of the canonical checkerboard sampler.
//!
//! Two rounds of Wellons' `lowbias32` integer hash over a counter, keyed per (seed, sweep,
//! colour). Written with 32-bit operations only, so WGSL and CUDA compute the same words.

use benchtop_compute::rng::splitmix64;

/// The per-phase key (two 32-bit halves of a 64-bit mix of seed, sweep and colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct PhaseKey {
    /// Added to the counter before the first round.
    pub k0: u32,
    /// Mixed in between the two rounds.
    pub k1: u32,
}

/// The key for sweep `sweep` (counted from 0) and colour `colour` of a run seeded with `seed`.
pub fn phase_key(seed: u64, sweep: u64, colour: u32) -> PhaseKey {
    let z = splitmix64(seed.wrapping_add(splitmix64(
        sweep.wrapping_mul(2).wrapping_add(u64::from(colour)),
    )));
    PhaseKey {
        k0: z as u32,
        k1: (z >> 32) as u32,
    }
}

/// Wellons' `lowbias32`: a bijective 32-bit hash with low avalanche bias.
#[inline(always)]
pub const fn lowbias32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// The random word for `counter` under `key`.
#[inline(always)]
pub const fn random_word(key: PhaseKey, counter: u32) -> u32 {
    lowbias32(lowbias32(counter.wrapping_add(key.k0)) ^ key.k1)
}

/// The counter of bit level `level` (0..32) of group `group` in row `row`, with `groups` groups
/// of 32 compact sites per row.
#[inline(always)]
pub const fn counter(row: u32, group: u32, groups: u32, level: u32) -> u32 {
    ((row * groups + group) << 5) | level
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowbias32_is_injective_and_avalanches() {
        let mut seen: Vec<u32> = (0..100_000).map(lowbias32).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 100_000);
        // Flipping one input bit flips about half of the output bits.
        let mut flipped = 0_u64;
        let mut trials = 0_u64;
        for x in 0..2_000_u32 {
            for bit in 0..32 {
                flipped += u64::from((lowbias32(x) ^ lowbias32(x ^ (1 << bit))).count_ones());
                trials += 1;
            }
        }
        let mean = flipped as f64 / trials as f64;
        assert!((mean - 16.0).abs() < 0.3, "avalanche {mean}");
    }

    #[test]
    fn words_are_uniform_bits() {
        let key = phase_key(42, 7, 1);
        let mut ones = [0_u32; 32];
        let n = 20_000;
        for c in 0..n {
            let w = random_word(key, c);
            for (bit, count) in ones.iter_mut().enumerate() {
                *count += (w >> bit) & 1;
            }
        }
        for count in ones {
            let fraction = f64::from(count) / f64::from(n);
            assert!((fraction - 0.5).abs() < 0.02, "bit frequency {fraction}");
        }
    }

    #[test]
    fn keys_differ_by_sweep_colour_and_seed() {
        let base = phase_key(1, 0, 0);
        assert_ne!(base, phase_key(1, 0, 1));
        assert_ne!(base, phase_key(1, 1, 0));
        assert_ne!(base, phase_key(2, 0, 0));
    }
}
