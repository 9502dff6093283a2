//! The canonical checkerboard Metropolis sampler, shared bit for bit by CPU, wgpu and CUDA.
//!
//! # The update rule
//! Sites (x, y) of the L×L torus (L even) have colour c = (x + y) mod 2. One sweep visits four
//! phases in order: colour 0 on even rows, colour 0 on odd rows, colour 1 on even rows, colour 1
//! on odd rows. Within a phase no two updated sites share a bond or a plaquette, so every site of
//! the phase is updated at once. (For K = 0 the row split changes nothing; with K ≠ 0 it keeps the
//! diagonal partners of a plaquette out of the same phase.)
//!
//! A site with `a` neighbours equal to it and `q` of its four plaquettes with product +1 has
//! ΔH = 2β(2a − 4) + 2K(2q − 4); it flips when its uniform 32-bit number R is below the
//! threshold ⌊a(ΔH)·2³²⌋ of the [`crate::couplings::FlipTable`] (always when the threshold is
//! `u32::MAX`). a(ΔH) is Metropolis, min(1, e^{−ΔH}), blended with heat bath when every |ΔH|
//! is small: with a fixed visiting order, plain Metropolis at β = K = 0 would flip every spin
//! every sweep and never leave a cold start (see [`crate::couplings::FlipTable`]).
//!
//! # The random numbers
//! R comes from a counter-based generator ([`counter_rng`]), so it does not depend on which
//! thread or GPU lane computes it: the key is derived from (seed, sweep, colour); the counter
//! from (row, 32-site group, bit level). Bit `lane` of word `level` is bit (31 − level) of R for
//! the site in that lane. Lanes are compact columns j = ⌊x/2⌋, 32 per group.
//!
//! Samplers: [`CpuCheckerboard`] (multi-threaded; multi-spin coded on 64-bit words when
//! L is a multiple of 128, on 32-bit words when it is a multiple of 64, one byte per spin
//! otherwise); the wgpu and CUDA samplers in [`crate::gpu`] and [`crate::cuda`] share
//! [`packed::PackedLattice`] and [`counter_rng`].

pub mod counter_rng;
mod cpu;
mod multispin;
pub mod packed;
mod reference;

pub use cpu::{CpuCheckerboard, CpuLayout};

/// Phases per sweep: (colour, row parity) in this order.
pub const PHASES: [(u32, u32); 4] = [(0, 0), (0, 1), (1, 0), (1, 1)];
