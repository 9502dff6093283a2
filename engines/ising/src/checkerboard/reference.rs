//! The canonical rule evaluated one site at a time on one byte per spin.
//!
//! Used for lattices whose side does not pack into whole words, and in tests as the definition
//! the packed and GPU paths must reproduce bit for bit.

use rayon::prelude::*;

use super::counter_rng::{PhaseKey, counter, random_word};
use crate::couplings::FlipTable;
use crate::lattice::SpinConfig;

/// Whether the site with compact index `j` in row `y` draws R below `threshold`.
#[inline]
fn uniform_below(key: PhaseKey, y: u32, j: u32, groups: u32, threshold: u32) -> bool {
    let (group, lane) = (j / 32, j % 32);
    for level in 0..32 {
        let random_bit = (random_word(key, counter(y, group, groups, level)) >> lane) & 1;
        let threshold_bit = (threshold >> (31 - level)) & 1;
        if random_bit != threshold_bit {
            return random_bit < threshold_bit;
        }
    }
    false
}

/// Columns of row `y` (of phase colour `colour`) whose spins flip.
fn row_flips(
    config: &SpinConfig,
    colour: usize,
    y: usize,
    table: &FlipTable,
    plaquette: bool,
    key: PhaseKey,
) -> Vec<usize> {
    let size = config.size();
    let groups = size.div_ceil(2).div_ceil(32) as u32;
    let start = (colour + y) % 2;
    let yi = y as isize;
    let mut flips = Vec::new();
    for x in (start..size).step_by(2) {
        let xi = x as isize;
        let s = config.get(xi, yi);
        let right = config.get(xi + 1, yi);
        let left = config.get(xi - 1, yi);
        let up = config.get(xi, yi - 1);
        let down = config.get(xi, yi + 1);
        let aligned = [right, left, up, down].iter().filter(|&&n| n == s).count();
        let positive = if plaquette {
            [
                (1, -1, right, up),
                (-1, -1, left, up),
                (1, 1, right, down),
                (-1, 1, left, down),
            ]
            .iter()
            .filter(|&&(dx, dy, h, v)| s * h * v * config.get(xi + dx, yi + dy) == 1)
            .count()
        } else {
            0
        };
        let threshold = table.threshold(aligned as u32, positive as u32);
        if threshold == u32::MAX || uniform_below(key, y as u32, (x / 2) as u32, groups, threshold)
        {
            flips.push(x);
        }
    }
    flips
}

/// Updates every site of phase (colour, parity).
pub(crate) fn update_phase(
    config: &mut SpinConfig,
    colour: usize,
    parity: usize,
    table: &FlipTable,
    plaquette: bool,
    key: PhaseKey,
) {
    let size = config.size();
    let shared: &SpinConfig = config;
    let flips: Vec<(usize, Vec<usize>)> = (parity..size)
        .into_par_iter()
        .step_by(2)
        .map(|y| (y, row_flips(shared, colour, y, table, plaquette, key)))
        .collect();
    let spins = config.spins_mut();
    for (y, columns) in flips {
        for x in columns {
            spins[y * size + x] = -spins[y * size + x];
        }
    }
}
