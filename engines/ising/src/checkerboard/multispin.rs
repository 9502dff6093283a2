//! The multi-spin coded phase update: one machine word updates `W::BITS` sites at once.
//!
//! Neighbour alignment and plaquette signs are computed with bitwise logic on whole words;
//! the Metropolis test compares each lane's counter-based uniform R with its threshold bit by
//! bit from the most significant end, drawing a new random word only while some lane is still
//! undecided (about log₂ W levels on average), which keeps the random-number cost near two
//! hashes per 32 sites.

use rayon::prelude::*;

use super::counter_rng::PhaseKey;
use super::packed::{PackedLattice, SpinWord};
use crate::couplings::FlipTable;

/// The acceptance rule prepared for bitwise evaluation.
#[derive(Clone, Debug)]
pub(crate) struct BitTable {
    /// Whether the plaquette term takes part (K ≠ 0).
    plaquette: bool,
    /// (aligned, positive plaquettes, threshold) for every class that needs a random number;
    /// `positive` is ignored when `plaquette` is false.
    classes: Vec<(usize, usize, u32)>,
}

impl BitTable {
    /// Prepares `table`; `plaquette` says whether K ≠ 0.
    pub(crate) fn new(table: &FlipTable, plaquette: bool) -> Self {
        let mut classes = Vec::new();
        for aligned in 0..5_u32 {
            let positives: &[u32] = if plaquette { &[0, 1, 2, 3, 4] } else { &[0] };
            for &positive in positives {
                let threshold = table.threshold(aligned, positive);
                if threshold != u32::MAX {
                    classes.push((aligned as usize, positive as usize, threshold));
                }
            }
        }
        Self { plaquette, classes }
    }
}

/// One-hot masks of how many of four lane-wise bits are set: `counts[k]` has the lanes with k.
#[inline(always)]
fn one_hot_counts<W: SpinWord>(b0: W, b1: W, b2: W, b3: W) -> [W; 5] {
    let x01 = b0 ^ b1;
    let a01 = b0 & b1;
    let x23 = b2 ^ b3;
    let a23 = b2 & b3;
    let c0 = x01 ^ x23;
    let carry = x01 & x23;
    let c1 = a01 ^ a23 ^ carry;
    let c2 = (a01 & a23) | (a01 & carry) | (a23 & carry);
    let low = !c2;
    [
        !c0 & !c1 & low,
        c0 & !c1 & low,
        !c0 & c1 & low,
        c0 & c1 & low,
        c2,
    ]
}

/// The neighbour word one compact site to the right (j + 1) or left (j − 1) of word `w`.
#[inline(always)]
fn shifted<W: SpinWord>(row: &[W], w: usize, towards_next: bool) -> W {
    let n = row.len();
    let top = W::BITS - 1;
    if towards_next {
        (row[w] >> 1) | (row[(w + 1) % n] << top)
    } else {
        (row[w] << 1) | (row[(w + n - 1) % n] >> top)
    }
}

/// Updates every site of phase (colour, parity) of `lattice` with key `key`.
pub(crate) fn update_phase<W: SpinWord>(
    lattice: &mut PackedLattice<W>,
    colour: usize,
    parity: usize,
    table: &BitTable,
    key: PhaseKey,
) {
    let size = lattice.size();
    let half = size / 2;
    let per_row = lattice.words_per_row();
    let block_len = half * per_row;
    let groups = (half / 32) as u32;
    // Whether a site's second same-row neighbour is at j + 1 (else j − 1).
    let towards_next = (colour + parity) % 2 == 1;

    let mut blocks: Vec<&mut [W]> = lattice.words_mut().chunks_mut(block_len).collect();
    let target_index = 2 * colour + parity;
    let mut target: &mut [W] = &mut [];
    let mut others: [&[W]; 4] = [&[], &[], &[], &[]];
    for (index, block) in blocks.drain(..).enumerate() {
        if index == target_index {
            target = block;
        } else {
            others[index] = block;
        }
    }
    let other_colour = 1 - colour;
    let same_row_other = others[2 * other_colour + parity];
    let next_row_other = others[2 * other_colour + (1 - parity)];
    let next_row_same = others[2 * colour + (1 - parity)];

    target
        .par_chunks_mut(per_row)
        .enumerate()
        .for_each(|(i, row_words)| {
            // Rows y − 1 and y + 1 live in the other-parity blocks.
            let (up, down) = if parity == 0 {
                ((i + half - 1) % half, i)
            } else {
                (i, (i + 1) % half)
            };
            let y = (2 * i + parity) as u32;
            let mid_row = &same_row_other[i * per_row..(i + 1) * per_row];
            let up_row = &next_row_other[up * per_row..(up + 1) * per_row];
            let down_row = &next_row_other[down * per_row..(down + 1) * per_row];
            let diag_up = &next_row_same[up * per_row..(up + 1) * per_row];
            let diag_down = &next_row_same[down * per_row..(down + 1) * per_row];
            for (w, word) in row_words.iter_mut().enumerate() {
                let s = *word;
                let mid = mid_row[w];
                let side = shifted(mid_row, w, towards_next);
                let (right, left) = if towards_next {
                    (side, mid)
                } else {
                    (mid, side)
                };
                let vertical_up = up_row[w];
                let vertical_down = down_row[w];
                let aligned = one_hot_counts(
                    !(s ^ vertical_up),
                    !(s ^ vertical_down),
                    !(s ^ left),
                    !(s ^ right),
                );
                let positive = if table.plaquette {
                    let up_mid = diag_up[w];
                    let up_side = shifted(diag_up, w, towards_next);
                    let down_mid = diag_down[w];
                    let down_side = shifted(diag_down, w, towards_next);
                    let (up_right, up_left) = if towards_next {
                        (up_side, up_mid)
                    } else {
                        (up_mid, up_side)
                    };
                    let (down_right, down_left) = if towards_next {
                        (down_side, down_mid)
                    } else {
                        (down_mid, down_side)
                    };
                    one_hot_counts(
                        !(s ^ right ^ vertical_up ^ up_right),
                        !(s ^ left ^ vertical_up ^ up_left),
                        !(s ^ right ^ vertical_down ^ down_right),
                        !(s ^ left ^ vertical_down ^ down_left),
                    )
                } else {
                    [W::ONES; 5]
                };
                *word = s ^ flip_mask(table, &aligned, &positive, key, y, w, groups);
            }
        });
}

/// Lanes that flip: those always accepted, plus those whose uniform R is below the threshold.
#[inline(always)]
fn flip_mask<W: SpinWord>(
    table: &BitTable,
    aligned: &[W; 5],
    positive: &[W; 5],
    key: PhaseKey,
    y: u32,
    w: usize,
    groups: u32,
) -> W {
    let mut masks = [W::ZERO; 25];
    let mut need = W::ZERO;
    for (slot, &(a, q, _)) in masks.iter_mut().zip(&table.classes) {
        *slot = aligned[a] & positive[q];
        need = need | *slot;
    }
    let mut undecided = need;
    let mut less = W::ZERO;
    let word_index = w as u32;
    for level in 0..32_u32 {
        if undecided == W::ZERO {
            break;
        }
        let random = W::random(key, y, word_index, groups, level);
        let mut threshold_bits = W::ZERO;
        for (mask, &(_, _, threshold)) in masks.iter().zip(&table.classes) {
            if (threshold >> (31 - level)) & 1 == 1 {
                threshold_bits = threshold_bits | *mask;
            }
        }
        less = less | (undecided & !random & threshold_bits);
        undecided = undecided & !(random ^ threshold_bits);
    }
    !need | less
}
