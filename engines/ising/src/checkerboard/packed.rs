//! The bit-packed checkerboard layout shared by the multi-spin CPU path, wgpu and CUDA.
//!
//! Bit value 1 means spin −1, so the XOR of bits is the sign of a product of spins. The words
//! form four blocks, one per (colour c, row parity r), in the order of
//! [`super::PHASES`]; block (c, r) holds rows y = 2i + r (i = 0..L/2) of colour-c sites, each
//! row as L/2 compact sites j = ⌊x/2⌋ packed `W::BITS` to a word, lane = j mod `W::BITS`.
//! Word index: `((2c + r)·(L/2) + i)·words_per_row + ⌊j / W::BITS⌋`.

use std::ops::{BitAnd, BitOr, BitXor, Not, Shl, Shr};

use benchtop_compute::ComputeError;

use super::counter_rng::{PhaseKey, counter, random_word};
use crate::lattice::SpinConfig;

/// A machine word holding one lane per compact site.
pub trait SpinWord:
    Copy
    + Send
    + Sync
    + Eq
    + std::fmt::Debug
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + 'static
{
    /// Lanes per word.
    const BITS: u32;
    /// All lanes 0.
    const ZERO: Self;
    /// All lanes 1.
    const ONES: Self;
    /// The canonical random word for bit level `level` of word `word` in row `row`, with
    /// `groups` 32-lane groups per row.
    fn random(key: PhaseKey, row: u32, word: u32, groups: u32, level: u32) -> Self;
    /// Lane `lane` as a bool.
    fn lane(self, lane: u32) -> bool;
    /// This word with lane `lane` set.
    fn with_lane(self, lane: u32) -> Self;
}

impl SpinWord for u32 {
    const BITS: u32 = 32;
    const ZERO: Self = 0;
    const ONES: Self = u32::MAX;
    #[inline(always)]
    fn random(key: PhaseKey, row: u32, word: u32, groups: u32, level: u32) -> Self {
        random_word(key, counter(row, word, groups, level))
    }
    #[inline(always)]
    fn lane(self, lane: u32) -> bool {
        (self >> lane) & 1 == 1
    }
    #[inline(always)]
    fn with_lane(self, lane: u32) -> Self {
        self | (1 << lane)
    }
}

impl SpinWord for u64 {
    const BITS: u32 = 64;
    const ZERO: Self = 0;
    const ONES: Self = u64::MAX;
    #[inline(always)]
    fn random(key: PhaseKey, row: u32, word: u32, groups: u32, level: u32) -> Self {
        let low = random_word(key, counter(row, 2 * word, groups, level));
        let high = random_word(key, counter(row, 2 * word + 1, groups, level));
        u64::from(low) | (u64::from(high) << 32)
    }
    #[inline(always)]
    fn lane(self, lane: u32) -> bool {
        (self >> lane) & 1 == 1
    }
    #[inline(always)]
    fn with_lane(self, lane: u32) -> Self {
        self | (1 << lane)
    }
}

/// An L×L lattice in the packed checkerboard layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackedLattice<W: SpinWord> {
    size: usize,
    words: Vec<W>,
}

impl<W: SpinWord> PackedLattice<W> {
    /// Whether side `size` packs into whole words of this type (L/2 a multiple of `W::BITS`).
    pub fn fits(size: usize) -> bool {
        size > 0 && size.is_multiple_of(2) && (size / 2).is_multiple_of(W::BITS as usize)
    }

    /// Packs a configuration; fails when L/2 is not a multiple of `W::BITS`.
    pub fn pack(config: &SpinConfig) -> Result<Self, ComputeError> {
        let size = config.size();
        if !Self::fits(size) {
            return Err(ComputeError::invalid(
                "size",
                format!(
                    "L = {size} does not pack into {}-bit words (L must be a multiple of {})",
                    W::BITS,
                    2 * W::BITS
                ),
            ));
        }
        let mut lattice = Self {
            size,
            words: vec![W::ZERO; size * size / W::BITS as usize],
        };
        for y in 0..size {
            for x in 0..size {
                if config.spins()[y * size + x] < 0 {
                    let (index, lane) = lattice.locate(x, y);
                    lattice.words[index] = lattice.words[index].with_lane(lane);
                }
            }
        }
        Ok(lattice)
    }

    /// Wraps words already in the layout (e.g. read back from a GPU).
    pub fn from_words(size: usize, words: Vec<W>) -> Result<Self, ComputeError> {
        if !Self::fits(size) || words.len() != size * size / W::BITS as usize {
            return Err(ComputeError::invalid(
                "size",
                format!(
                    "{} words do not form a packed {size}×{size} lattice",
                    words.len()
                ),
            ));
        }
        Ok(Self { size, words })
    }

    /// Unpacks into one byte per spin.
    pub fn unpack(&self) -> SpinConfig {
        let size = self.size;
        let mut spins = vec![1_i8; size * size];
        for y in 0..size {
            for x in 0..size {
                let (index, lane) = self.locate(x, y);
                if self.words[index].lane(lane) {
                    spins[y * size + x] = -1;
                }
            }
        }
        SpinConfig::from_valid_spins(size, spins)
    }

    /// Side L.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Words per packed row: (L/2) / `W::BITS`.
    pub fn words_per_row(&self) -> usize {
        self.size / 2 / W::BITS as usize
    }

    /// Every word, in layout order.
    pub fn words(&self) -> &[W] {
        &self.words
    }

    /// Every word, mutable, in layout order.
    pub fn words_mut(&mut self) -> &mut [W] {
        &mut self.words
    }

    /// Word index and lane of site (x, y).
    pub fn locate(&self, x: usize, y: usize) -> (usize, u32) {
        let colour = (x + y) % 2;
        let parity = y % 2;
        let half = self.size / 2;
        let j = x / 2;
        let bits = W::BITS as usize;
        let row = ((2 * colour + parity) * half + y / 2) * self.words_per_row();
        let lane = (j % bits) as u32;
        (row + j / bits, lane)
    }
}

impl PackedLattice<u64> {
    /// The same lattice as 32-bit words (the GPU layout).
    pub fn to_u32(&self) -> PackedLattice<u32> {
        let words = self
            .words
            .iter()
            .flat_map(|&w| [w as u32, (w >> 32) as u32])
            .collect();
        PackedLattice {
            size: self.size,
            words,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lattice::Start;

    #[test]
    fn pack_unpack_round_trip_and_word_views_agree() {
        let config = SpinConfig::new(128, Start::Hot, 9).unwrap();
        let packed64 = PackedLattice::<u64>::pack(&config).unwrap();
        let packed32 = PackedLattice::<u32>::pack(&config).unwrap();
        assert_eq!(packed64.unpack(), config);
        assert_eq!(packed32.unpack(), config);
        assert_eq!(packed64.to_u32(), packed32);
        assert!(PackedLattice::<u64>::pack(&SpinConfig::new(64, Start::Cold, 0).unwrap()).is_err());
        assert!(PackedLattice::<u32>::fits(64));
    }
}
