//! Spin configurations on an L×L torus, stored one byte per spin (+1 or −1), row-major.
//!
//! This is the common currency between samplers and observables: every sampler can hand out a
//! [`SpinConfig`], and every observable is computed from one.

use benchtop_compute::ComputeError;
use rand::Rng as _;

/// Smallest lattice side accepted (the checkerboard needs distinct neighbours).
pub const MIN_SIZE: usize = 4;
/// Largest lattice side accepted: 32768² spins are 1 GiB at one byte per spin.
pub const MAX_SIZE: usize = 32_768;

/// Checks a lattice side: even, at least [`MIN_SIZE`], at most [`MAX_SIZE`].
pub fn validate_size(size: usize) -> Result<(), ComputeError> {
    if size < MIN_SIZE {
        return Err(ComputeError::invalid(
            "size",
            format!("L = {size} is too small; the torus needs L ≥ {MIN_SIZE}"),
        ));
    }
    if !size.is_multiple_of(2) {
        return Err(ComputeError::invalid(
            "size",
            format!("L = {size} is odd; the checkerboard torus needs an even L"),
        ));
    }
    if size > MAX_SIZE {
        let gib = (size as f64).powi(2) / f64::from(1_u32 << 30);
        return Err(ComputeError::invalid(
            "size",
            format!(
                "L = {size} needs {gib:.1} GiB at one byte per spin and does not fit; \
                 use L ≤ {MAX_SIZE}"
            ),
        ));
    }
    Ok(())
}

/// How a lattice starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Start {
    /// All spins +1 (ordered).
    #[default]
    Cold,
    /// Independent random spins (infinite temperature), from the seed.
    Hot,
}

/// An L×L torus of ±1 spins, row-major: spin (x, y) is at `y * L + x`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpinConfig {
    size: usize,
    spins: Vec<i8>,
}

impl SpinConfig {
    /// A lattice started as `start`; `seed` is used only for [`Start::Hot`].
    pub fn new(size: usize, start: Start, seed: u64) -> Result<Self, ComputeError> {
        validate_size(size)?;
        let spins = match start {
            Start::Cold => vec![1; size * size],
            Start::Hot => {
                let mut rng = benchtop_compute::rng::seeded(seed);
                (0..size * size)
                    .map(|_| if rng.random::<bool>() { 1 } else { -1 })
                    .collect()
            }
        };
        Ok(Self { size, spins })
    }

    /// Wraps existing spins; every value must be +1 or −1 and there must be L² of them.
    pub fn from_spins(size: usize, spins: Vec<i8>) -> Result<Self, ComputeError> {
        validate_size(size)?;
        if spins.len() != size * size {
            return Err(ComputeError::invalid(
                "spins",
                format!(
                    "expected {} spins for L = {size}, got {}",
                    size * size,
                    spins.len()
                ),
            ));
        }
        if let Some(index) = spins.iter().position(|&s| s != 1 && s != -1) {
            return Err(ComputeError::invalid(
                "spins",
                format!("spin {index} is {}, not ±1", spins[index]),
            ));
        }
        Ok(Self { size, spins })
    }

    /// Wraps spins a sampler produced; the caller guarantees L² entries of ±1 and a valid L.
    pub(crate) fn from_valid_spins(size: usize, spins: Vec<i8>) -> Self {
        debug_assert!(spins.len() == size * size && spins.iter().all(|&s| s == 1 || s == -1));
        Self { size, spins }
    }

    /// The side L.
    pub fn size(&self) -> usize {
        self.size
    }

    /// All L² spins, row-major.
    pub fn spins(&self) -> &[i8] {
        &self.spins
    }

    /// Mutable access for samplers; values must stay ±1.
    pub fn spins_mut(&mut self) -> &mut [i8] {
        &mut self.spins
    }

    /// The spin at (x, y), with both coordinates taken modulo L.
    pub fn get(&self, x: isize, y: isize) -> i8 {
        self.spins[self.index(x, y)]
    }

    /// The row-major index of (x, y), with both coordinates taken modulo L.
    pub fn index(&self, x: isize, y: isize) -> usize {
        let l = self.size as isize;
        let (xm, ym) = (x.rem_euclid(l) as usize, y.rem_euclid(l) as usize);
        ym * self.size + xm
    }

    /// Magnetisation per site, Σ s / L².
    pub fn magnetization(&self) -> f64 {
        let sum: i64 = self.spins.iter().map(|&s| i64::from(s)).sum();

        sum as f64 / self.spins.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked_with_reasons() {
        assert!(validate_size(64).is_ok());
        for (size, word) in [(2, "small"), (7, "odd"), (1_000_000, "GiB")] {
            let message = validate_size(size).unwrap_err().to_string();
            assert!(
                message.contains(word) && message.contains("size"),
                "{message}"
            );
        }
    }

    #[test]
    fn cold_and_hot_starts() {
        let cold = SpinConfig::new(8, Start::Cold, 0).unwrap();
        assert!((cold.magnetization() - 1.0).abs() < 1e-12);
        let hot = SpinConfig::new(64, Start::Hot, 3).unwrap();
        assert!(hot.magnetization().abs() < 0.1);
        assert_eq!(hot, SpinConfig::new(64, Start::Hot, 3).unwrap());
        assert_ne!(hot, SpinConfig::new(64, Start::Hot, 4).unwrap());
    }

    #[test]
    fn periodic_indexing() {
        let config = SpinConfig::new(4, Start::Cold, 0).unwrap();
        assert_eq!(config.index(-1, 0), 3);
        assert_eq!(config.index(0, -1), 12);
        assert_eq!(config.index(5, 5), 5);
        assert!(SpinConfig::from_spins(4, vec![0; 16]).is_err());
    }
}
