//! Spin-spin correlation function G(r) via FFT.
//!
//! G(r) = (1 / 2L²) Σ_x [s(x) s(x + r·ê_x) + s(x) s(x + r·ê_y)] for r = 0..=L/2, the average
//! over sites and over the two lattice directions.
//!
//! # Method
//! The autocorrelation of the lattice along x for every displacement is the inverse FFT of the
//! power spectrum summed over rows, Σ_y |F_y(k)|² (this is the k_y-sum of the 2-D power
//! spectrum |S(k_x, k_y)|² by Parseval, i.e. the 2-D FFT autocorrelation restricted to the
//! axis, without its L² complex buffer: 4 GiB at L = 16384). Columns likewise. Two real lines
//! share one complex FFT (z = a + i b gives |A(k)|² + |B(k)|² = (|Z(k)|² + |Z(−k)|²) / 2), and
//! tiles of lines run in parallel. Every Σ s s' is an integer, so the transform's result is
//! rounded to that integer: G is exact and independent of thread count and FFT rounding.

use std::sync::Arc;

use benchtop_compute::ComputeError;
use rayon::prelude::*;
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

use crate::lattice::SpinConfig;
use crate::stats::{Estimate, jackknife};

/// Line pairs per parallel tile.
const TILE_PAIRS: usize = 32;

/// Integer sums along both axes of one configuration.
struct AxisSums {
    /// Σ_{x,y} s(x, y) s(x + r, y) for r = 0..=L/2.
    along_x: Vec<i64>,
    /// Σ_{x,y} s(x, y) s(x, y + r) for r = 0..=L/2.
    along_y: Vec<i64>,
    /// Σ_y s(x, y) for each column x.
    column_sums: Vec<i64>,
    /// Σ_x s(x, y) for each row y.
    row_sums: Vec<i64>,
}

/// The direction of the lines whose power spectra are summed.
#[derive(Clone, Copy)]
enum Lines {
    /// Line y holds s(x, y) for x = 0..L (contiguous in memory).
    Rows,
    /// Line x holds s(x, y) for y = 0..L (stride L in memory).
    Columns,
}

/// Packs lines first..first + 2·count into `count` complex lines (even line real, odd line
/// imaginary) and adds each line's spin sum to `sums`, in an order that reads memory in rows.
fn gather_line_pairs(
    spins: &[i8],
    size: usize,
    lines: Lines,
    first: usize,
    buffer: &mut [Complex<f64>],
    sums: &mut [i64],
) {
    match lines {
        Lines::Rows => {
            for (p, chunk) in buffer.chunks_exact_mut(size).enumerate() {
                let a = &spins[(first + 2 * p) * size..(first + 2 * p + 1) * size];
                let b = &spins[(first + 2 * p + 1) * size..(first + 2 * p + 2) * size];
                for ((z, &sa), &sb) in chunk.iter_mut().zip(a).zip(b) {
                    sums[2 * p] += i64::from(sa);
                    sums[2 * p + 1] += i64::from(sb);
                    *z = Complex::new(f64::from(sa), f64::from(sb));
                }
            }
        }
        Lines::Columns => {
            // Transpose in blocks of rows: the block's bytes stay in L1 while each column pair
            // is written contiguously (writing all pairs row by row, 2^k·16 bytes apart,
            // thrashes the cache at large L).
            const ROWS_PER_BLOCK: usize = 64;
            for y0 in (0..size).step_by(ROWS_PER_BLOCK) {
                let y1 = (y0 + ROWS_PER_BLOCK).min(size);
                for (p, chunk) in buffer.chunks_exact_mut(size).enumerate() {
                    let x = first + 2 * p;
                    let (mut sum_a, mut sum_b) = (0_i64, 0_i64);
                    for (y, z) in (y0..y1).zip(&mut chunk[y0..y1]) {
                        let (sa, sb) = (spins[y * size + x], spins[y * size + x + 1]);
                        sum_a += i64::from(sa);
                        sum_b += i64::from(sb);
                        *z = Complex::new(f64::from(sa), f64::from(sb));
                    }
                    sums[2 * p] += sum_a;
                    sums[2 * p + 1] += sum_b;
                }
            }
        }
    }
}

/// The summed power spectrum Σ_lines |F(k)|² of all lines in one direction, and the spin sum
/// of each line in order.
fn line_power_spectrum(
    spins: &[i8],
    size: usize,
    lines: Lines,
    fft: &Arc<dyn Fft<f64>>,
) -> (Vec<f64>, Vec<i64>) {
    let pairs = size / 2;
    let tiles = pairs.div_ceil(TILE_PAIRS);
    let partials: Vec<(Vec<f64>, Vec<i64>)> = (0..tiles)
        .into_par_iter()
        .map(|tile| {
            let first = tile * TILE_PAIRS;
            let last = ((tile + 1) * TILE_PAIRS).min(pairs);
            let count = last - first;
            let mut buffer = vec![Complex::new(0.0, 0.0); count * size];
            let mut sums = vec![0_i64; 2 * count];
            gather_line_pairs(spins, size, lines, 2 * first, &mut buffer, &mut sums);
            let mut scratch = vec![Complex::new(0.0, 0.0); fft.get_inplace_scratch_len()];
            fft.process_with_scratch(&mut buffer, &mut scratch);
            let mut power = vec![0.0; size];
            for chunk in buffer.chunks_exact(size) {
                for (acc, z) in power.iter_mut().zip(chunk) {
                    *acc += z.norm_sqr();
                }
            }
            (power, sums)
        })
        .collect();
    let mut power = vec![0.0; size];
    let mut sums = Vec::with_capacity(size);
    for (partial, line_sums) in partials {
        for (acc, p) in power.iter_mut().zip(&partial) {
            *acc += p;
        }
        sums.extend(line_sums);
    }
    // Undo the pairing: Σ|A|² + |B|² = (Q(k) + Q(−k)) / 2.
    let symmetric = (0..size)
        .map(|k| 0.5 * (power[k] + power[(size - k) % size]))
        .collect();
    (symmetric, sums)
}

/// Σ_lines Σ_t s(t) s(t + r) for r = 0..=L/2, from the summed power spectrum.
fn autocorrelation_from_power(power: &[f64], fft_inverse: &Arc<dyn Fft<f64>>) -> Vec<i64> {
    let size = power.len();
    let mut buffer: Vec<Complex<f64>> = power.iter().map(|&p| Complex::new(p, 0.0)).collect();
    fft_inverse.process(&mut buffer);
    let scale = size as f64;
    buffer[..=size / 2]
        .iter()
        .map(|z| {
            // An integer of magnitude ≤ L² up to FFT rounding (≪ ½ for every allowed L).

            (z.re / scale).round() as i64
        })
        .collect()
}

/// Autocorrelation sums and line sums of `config` along both axes.
fn axis_sums(config: &SpinConfig) -> AxisSums {
    let size = config.size();
    let spins = config.spins();
    let mut planner = FftPlanner::<f64>::new();
    let forward = planner.plan_fft_forward(size);
    let inverse = planner.plan_fft_inverse(size);
    let (row_power, row_sums) = line_power_spectrum(spins, size, Lines::Rows, &forward);
    let (column_power, column_sums) = line_power_spectrum(spins, size, Lines::Columns, &forward);
    AxisSums {
        along_x: autocorrelation_from_power(&row_power, &inverse),
        along_y: autocorrelation_from_power(&column_power, &inverse),
        column_sums,
        row_sums,
    }
}

/// G(r) from the axis sums.
fn correlation_from_sums(sums: &AxisSums, size: usize) -> Vec<f64> {
    let norm = 2.0 * (size * size) as f64;
    sums.along_x
        .iter()
        .zip(&sums.along_y)
        .map(|(&x, &y)| {
            let total = (x + y) as f64;
            total / norm
        })
        .collect()
}

/// G(r) for r = 0..=L/2 of one configuration (see the module docs); G(0) = 1 and
/// G(1) = b/2 with b the bond energy per site.
pub fn spin_correlation(config: &SpinConfig) -> Vec<f64> {
    correlation_from_sums(&axis_sums(config), config.size())
}

/// |Σ_t v(t) e^{−2πit/L}|², the power of a line-sum profile at the smallest wave number.
fn lowest_mode_power(values: &[i64]) -> f64 {
    let size = values.len() as f64;
    let (mut re, mut im) = (0.0_f64, 0.0_f64);
    for (t, &v) in values.iter().enumerate() {
        let phase = std::f64::consts::TAU * t as f64 / size;
        let v = v as f64;
        re += v * phase.cos();
        im -= v * phase.sin();
    }
    re * re + im * im
}

/// Sums over a block of configurations.
#[derive(Clone, Debug)]
struct BlockSums {
    configurations: usize,
    correlation: Vec<f64>,
    abs_magnetization: f64,
    /// S(0) = L² m².
    structure_factor_zero: f64,
    /// S(k_min), averaged over the x and y directions.
    structure_factor_lowest: f64,
}

impl BlockSums {
    fn new(length: usize) -> Self {
        Self {
            configurations: 0,
            correlation: vec![0.0; length],
            abs_magnetization: 0.0,
            structure_factor_zero: 0.0,
            structure_factor_lowest: 0.0,
        }
    }

    fn absorb(&mut self, other: &Self) {
        self.configurations += other.configurations;
        for (a, b) in self.correlation.iter_mut().zip(&other.correlation) {
            *a += b;
        }
        self.abs_magnetization += other.abs_magnetization;
        self.structure_factor_zero += other.structure_factor_zero;
        self.structure_factor_lowest += other.structure_factor_lowest;
    }
}

/// A [`CorrelationAccumulator`] merges its completed blocks pairwise when it has this many.
pub const MAX_BLOCKS: usize = 64;

/// Accumulates G(r) over configurations, with error bars and the structure factor.
///
/// Error bars come from block means: configurations are grouped into blocks whose length
/// doubles whenever [`MAX_BLOCKS`] blocks are complete (so there are 32 to 63 blocks once 64
/// configurations have been added, and the blocks grow with the run). The errors are honest
/// when a block is much longer than the autocorrelation time of the configurations; with
/// fewer than 64 configurations each one is its own block, which assumes they are independent.
#[derive(Clone, Debug)]
pub struct CorrelationAccumulator {
    size: usize,
    total: BlockSums,
    block_length: usize,
    current: BlockSums,
    blocks: Vec<BlockSums>,
}

impl CorrelationAccumulator {
    /// An empty accumulator for L×L configurations.
    pub fn new(size: usize) -> Result<Self, ComputeError> {
        crate::lattice::validate_size(size)?;
        let length = size / 2 + 1;
        Ok(Self {
            size,
            total: BlockSums::new(length),
            block_length: 1,
            current: BlockSums::new(length),
            blocks: Vec::new(),
        })
    }

    /// The side L.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Number of configurations added.
    pub fn configurations(&self) -> usize {
        self.total.configurations
    }

    /// Adds one configuration; it must have the accumulator's size.
    pub fn add(&mut self, config: &SpinConfig) -> Result<(), ComputeError> {
        if config.size() != self.size {
            return Err(ComputeError::invalid(
                "size",
                format!(
                    "this accumulator holds L = {} correlations, got an L = {} configuration",
                    self.size,
                    config.size()
                ),
            ));
        }
        let sums = axis_sums(config);
        let correlation = correlation_from_sums(&sums, self.size);
        let sites = (self.size * self.size) as f64;
        let total_spin: i64 = sums.row_sums.iter().sum();
        let total_spin = total_spin as f64;
        // S(k) = |Σ_x s(x) e^{−ik·x}|² / L²; the lowest mode averaged over both directions.
        let one = BlockSums {
            configurations: 1,
            correlation,
            abs_magnetization: total_spin.abs() / sites,
            structure_factor_zero: total_spin * total_spin / sites,
            structure_factor_lowest: 0.5
                * (lowest_mode_power(&sums.column_sums) + lowest_mode_power(&sums.row_sums))
                / sites,
        };
        self.total.absorb(&one);
        self.current.absorb(&one);
        if self.current.configurations == self.block_length {
            let full = std::mem::replace(&mut self.current, BlockSums::new(self.size / 2 + 1));
            self.blocks.push(full);
            if self.blocks.len() == MAX_BLOCKS {
                let merged = self
                    .blocks
                    .chunks_exact(2)
                    .map(|pair| {
                        let mut block = pair[0].clone();
                        block.absorb(&pair[1]);
                        block
                    })
                    .collect();
                self.blocks = merged;
                self.block_length *= 2;
            }
        }
        Ok(())
    }

    /// Mean |m| over all configurations (NaN when empty).
    pub fn mean_abs_magnetization(&self) -> f64 {
        let n = self.total.configurations as f64;
        self.total.abs_magnetization / n
    }

    /// Block means of G(r) (per r) and of |m| over the completed blocks.
    fn block_means(&self) -> (Vec<Vec<f64>>, Vec<f64>) {
        let per = |b: &BlockSums| 1.0 / b.configurations as f64;
        let length = self.size / 2 + 1;
        let by_r = (0..length)
            .map(|r| {
                self.blocks
                    .iter()
                    .map(|b| b.correlation[r] * per(b))
                    .collect()
            })
            .collect();
        let abs_m = self
            .blocks
            .iter()
            .map(|b| b.abs_magnetization * per(b))
            .collect();
        (by_r, abs_m)
    }

    /// Mean G(r), r = 0..=L/2, over all configurations, with the standard error of the block
    /// means (NaN errors with fewer than 2 blocks; NaN values when empty).
    pub fn correlation(&self) -> Vec<Estimate> {
        let n = self.total.configurations as f64;
        let (block_g, _) = self.block_means();
        self.total
            .correlation
            .iter()
            .zip(&block_g)
            .map(|(sum, blocks)| Estimate::new(sum / n, standard_error(blocks)))
            .collect()
    }

    /// The connected correlation G(r) − ⟨|m|⟩², r = 0..=L/2.
    ///
    /// ⟨|m|⟩² (not ⟨m²⟩) is subtracted: on a finite lattice ⟨m⟩ = 0 by symmetry, and ⟨|m|⟩²
    /// is the finite-size stand-in for m₀² in the ordered phase, so G_c(r) → 0 at large r there;
    /// in the disordered phase ⟨|m|⟩² = O(1/L²)·χ is small. Errors are jackknifed over the
    /// blocks, so they include the uncertainty of ⟨|m|⟩².
    pub fn connected_correlation(&self) -> Vec<Estimate> {
        let abs_m = self.mean_abs_magnetization();
        let (block_g, block_m) = self.block_means();
        let blocks = block_m.len();
        self.correlation()
            .iter()
            .zip(&block_g)
            .map(|(g, per_block)| {
                let error = jackknife(&[per_block, &block_m], blocks, |m| m[0] - m[1] * m[1]).error;
                Estimate::new(g.value - abs_m * abs_m, error)
            })
            .collect()
    }

    /// The second-moment correlation length ξ = √(S(0)/S(k_min) − 1) / (2 sin(π/L)), with
    /// S(k) = ⟨|Σ_x s(x) e^{−ik·x}|²⟩ / L² averaged over configurations, k_min = 2π/L along x
    /// and y (averaged).
    ///
    /// Meaningful in the disordered phase and at criticality (where ξ/L → 0.905 for the
    /// Ising torus); in the ordered phase S(0) is dominated by m² and ξ grows with L. `None`
    /// when empty, when S(k_min) ≤ 10⁻¹²·S(0) (an ordered lattice, where it is zero up to
    /// rounding) or when S(0) ≤ S(k_min). When ξ ≪ L the ratio S(0)/S(k_min) is close to 1
    /// and ξ is noisy: see [`Self::second_moment_correlation_length_estimate`].
    pub fn second_moment_correlation_length(&self) -> Option<f64> {
        if self.total.configurations == 0 {
            return None;
        }
        correlation_length(
            self.size,
            self.total.structure_factor_zero,
            self.total.structure_factor_lowest,
        )
    }

    /// [`Self::second_moment_correlation_length`] with a jackknife error over the completed
    /// blocks (NaN with fewer than 2 blocks, or when a left-out sample has S(0) ≤ S(k_min)).
    pub fn second_moment_correlation_length_estimate(&self) -> Option<Estimate> {
        let value = self.second_moment_correlation_length()?;
        let per = |b: &BlockSums| 1.0 / b.configurations as f64;
        let zero: Vec<f64> = self
            .blocks
            .iter()
            .map(|b| b.structure_factor_zero * per(b))
            .collect();
        let lowest: Vec<f64> = self
            .blocks
            .iter()
            .map(|b| b.structure_factor_lowest * per(b))
            .collect();
        let size = self.size;
        let error = jackknife(&[&zero, &lowest], zero.len(), |m| {
            correlation_length(size, m[0], m[1]).unwrap_or(f64::NAN)
        })
        .error;
        Some(Estimate::new(value, error))
    }
}

/// ξ from (sums or means of) S(0) and S(k_min); `None` when undefined.
fn correlation_length(size: usize, zero: f64, lowest: f64) -> Option<f64> {
    // An ordered lattice has S(k_min) = 0 up to rounding of the Fourier sum.
    if lowest <= 1e-12 * zero || lowest <= 0.0 {
        return None;
    }
    let ratio = zero / lowest;
    if ratio <= 1.0 {
        return None;
    }
    let size = size as f64;
    Some((ratio - 1.0).sqrt() / (2.0 * (std::f64::consts::PI / size).sin()))
}

/// Standard error of the mean of independent values (NaN for fewer than 2).
fn standard_error(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return f64::NAN;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let sum_sq: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
    (sum_sq / (n * (n - 1.0))).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::onsager_nn_correlation;
    use crate::lattice::Start;
    use crate::observables::measure;
    use crate::wolff::Wolff;

    /// G(r) by the O(L²·r) direct sum.
    fn direct_correlation(config: &SpinConfig) -> Vec<f64> {
        let l = config.size() as isize;
        (0..=l / 2)
            .map(|r| {
                let mut total = 0_i64;
                for y in 0..l {
                    for x in 0..l {
                        let s = i64::from(config.get(x, y));
                        total += s * i64::from(config.get(x + r, y));
                        total += s * i64::from(config.get(x, y + r));
                    }
                }

                total as f64 / (2 * l * l) as f64
            })
            .collect()
    }

    #[test]
    fn fft_matches_the_direct_sum() {
        for (size, seed) in [(4, 1), (12, 2), (16, 3), (32, 4), (66, 5), (130, 6)] {
            let config = SpinConfig::new(size, Start::Hot, seed).unwrap();
            let fast = spin_correlation(&config);
            let direct = direct_correlation(&config);
            assert_eq!(fast.len(), size / 2 + 1);
            for (r, (a, b)) in fast.iter().zip(&direct).enumerate() {
                assert!((a - b).abs() < 1e-12, "L = {size}, r = {r}: {a} vs {b}");
            }
            assert_eq!(fast[0], 1.0);
            assert_eq!(fast[1], measure(&config).bond_energy_per_site / 2.0);
        }
    }

    #[test]
    fn ordered_and_antiferromagnetic_lattices() {
        let cold = spin_correlation(&SpinConfig::new(16, Start::Cold, 0).unwrap());
        assert!(cold.iter().all(|&g| g == 1.0));
        let size = 10;
        let spins = (0..size * size)
            .map(|i| {
                if (i % size + i / size) % 2 == 0 {
                    1
                } else {
                    -1
                }
            })
            .collect();
        let neel = spin_correlation(&SpinConfig::from_spins(size, spins).unwrap());
        for (r, g) in neel.iter().enumerate() {
            assert_eq!(*g, if r % 2 == 0 { 1.0 } else { -1.0 });
        }
    }

    #[test]
    fn accumulator_means_errors_and_blocks() {
        let size = 8;
        let mut accumulator = CorrelationAccumulator::new(size).unwrap();
        assert!(accumulator.second_moment_correlation_length().is_none());
        let configs: Vec<SpinConfig> = (0..150)
            .map(|seed| SpinConfig::new(size, Start::Hot, seed).unwrap())
            .collect();
        let mut sum = vec![0.0; size / 2 + 1];
        let mut abs_m = 0.0;
        for config in &configs {
            accumulator.add(config).unwrap();
            for (s, g) in sum.iter_mut().zip(spin_correlation(config)) {
                *s += g;
            }
            abs_m += config.magnetization().abs();
        }
        assert_eq!(accumulator.configurations(), 150);
        // 150 configurations: 64 blocks of 1 merged into 32 of 2 at 64, 64 of 2 merged into
        // 32 of 4 at 128, then 5 blocks of 4 (148 configurations) and 2 in the current block.
        assert_eq!(accumulator.block_length, 4);
        assert_eq!(accumulator.blocks.len(), 37);
        assert_eq!(accumulator.current.configurations, 2);
        let estimates = accumulator.correlation();
        for (estimate, s) in estimates.iter().zip(&sum) {
            assert!((estimate.value - s / 150.0).abs() < 1e-12);
        }
        assert_eq!(estimates[0], Estimate::new(1.0, 0.0));
        assert!(estimates[1].error > 0.0);
        assert!((accumulator.mean_abs_magnetization() - abs_m / 150.0).abs() < 1e-12);
        let connected = accumulator.connected_correlation();
        let m2 = (abs_m / 150.0).powi(2);
        assert!((connected[2].value - (sum[2] / 150.0 - m2)).abs() < 1e-12);
        assert!(connected[2].error > 0.0);
        let error = accumulator
            .add(&SpinConfig::new(16, Start::Cold, 0).unwrap())
            .unwrap_err();
        assert!(error.to_string().contains("size"), "{error}");
    }

    #[test]
    fn structure_factor_of_a_known_configuration() {
        // L = 8, columns 0..6 up and 6..8 down: S(0) = 32²/64 = 16; along x the lowest mode
        // has |Σ c(x) e^{−ikx}|² = 256·|1 + e^{−iπ/4}|², along y it vanishes (equal rows).
        let size = 8;
        let spins = (0..size * size)
            .map(|i| if i % size < 6 { 1 } else { -1 })
            .collect();
        let config = SpinConfig::from_spins(size, spins).unwrap();
        let mut accumulator = CorrelationAccumulator::new(size).unwrap();
        accumulator.add(&config).unwrap();
        let cos2 = (std::f64::consts::PI / 8.0).cos().powi(2);
        let s_lowest = 0.5 * (256.0 * 4.0 * cos2 / 64.0);
        let expected = (16.0 / s_lowest - 1.0).sqrt() / (2.0 * (std::f64::consts::PI / 8.0).sin());
        let xi = accumulator.second_moment_correlation_length().unwrap();
        assert!((xi - expected).abs() < 1e-12, "{xi} vs {expected}");
        // An ordered lattice has no weight at k_min.
        let mut ordered = CorrelationAccumulator::new(size).unwrap();
        ordered
            .add(&SpinConfig::new(size, Start::Cold, 0).unwrap())
            .unwrap();
        assert!(ordered.second_moment_correlation_length().is_none());
    }

    #[test]
    fn high_temperature_correlations_match_onsager() {
        // β = 0.3 (ξ ≈ 1.5): on L = 32 finite-size effects are far below the error bars.
        let size = 32;
        let beta = 0.3;
        let mut wolff = Wolff::new(SpinConfig::new(size, Start::Hot, 1).unwrap(), beta, 2).unwrap();
        for _ in 0..50 {
            wolff.sweep();
        }
        let clusters = wolff.clusters_per_sweep();
        let mut accumulator = CorrelationAccumulator::new(size).unwrap();
        for _ in 0..1024 {
            wolff.steps(clusters);
            accumulator.add(wolff.config()).unwrap();
        }
        let g = accumulator.correlation();
        let u = onsager_nn_correlation(beta);
        assert!(
            (g[1].value - u).abs() < 4.0 * g[1].error,
            "G(1) = {:?}, u = {u}",
            g[1]
        );
        // G decays monotonically towards 0 at high temperature.
        for r in 1..6 {
            assert!(g[r].value < g[r - 1].value);
        }
        assert!(g[16].value.abs() < 0.01);
        let xi = accumulator
            .second_moment_correlation_length_estimate()
            .unwrap();
        assert!(xi.value > 0.0 && xi.error > 0.0, "{xi:?}");
    }

    #[test]
    fn critical_correlation_length_ratio() {
        // At β_c on the L×L torus ξ/L → 0.9050 (Salas & Sokal); corrections are O(L⁻²·ln L).
        let size = 16;
        let mut wolff = Wolff::new(
            SpinConfig::new(size, Start::Cold, 3).unwrap(),
            crate::BETA_CRITICAL,
            4,
        )
        .unwrap();
        for _ in 0..100 {
            wolff.sweep();
        }
        let clusters = wolff.clusters_per_sweep();
        let mut accumulator = CorrelationAccumulator::new(size).unwrap();
        for _ in 0..32_768 {
            wolff.steps(clusters);
            accumulator.add(wolff.config()).unwrap();
        }
        let xi = accumulator
            .second_moment_correlation_length_estimate()
            .unwrap();
        let ratio = xi.value / size as f64;
        let ratio_error = xi.error / size as f64;
        println!("ξ/L = {ratio} ± {ratio_error}");
        assert!(ratio_error > 0.0 && ratio_error < 0.02, "{ratio_error}");
        assert!(
            (ratio - 0.905).abs() < 4.0 * ratio_error + 0.01,
            "ξ/L = {ratio} ± {ratio_error}"
        );
    }
}
