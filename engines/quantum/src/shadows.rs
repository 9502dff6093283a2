//! Classical shadows with random local Pauli measurements (Huang, Kueng, Preskill 2020).
//!
//! One snapshot: every qubit is measured in a uniformly random basis X, Y or Z (the state is
//! rotated by H or HS† and a bitstring is drawn from |ψ|²). For a Pauli string P on k sites
//! the single-snapshot estimate is Π 3·[basis_i = P_i]·(±1)_i; it is unbiased and its second
//! moment is exactly 3^k, so the mean over M snapshots has variance at most 3^k/M. The
//! correlation C_ij = ⅓Σ_P⟨P_iP_j⟩ has the estimate 3·[basis_i = basis_j]·s_i·s_j (variance
//! ≤ 3). The purity tr ρ_A² is the U-statistic over pairs of distinct snapshots of
//! Π_{i∈A} tr(ρ̂_i ρ̂'_i), with tr(ρ̂ρ̂') = 5 (same basis, same outcome), −4 (same basis,
//! other outcome) or ½ (other basis).

use benchtop_compute::ComputeError;
use nalgebra::DMatrix;
use num_complex::Complex64;
use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::observables::{Pauli, pairs};

/// The most snapshots drawn for one state.
pub const MAX_SNAPSHOTS: usize = 1 << 22;

/// M snapshots of one L-site state: per snapshot and site a basis (0 X, 1 Y, 2 Z) and an
/// outcome bit (0: eigenvalue +1, 1: −1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snapshots {
    /// Sites L.
    pub sites: usize,
    /// Bases, snapshot-major (M × L).
    pub bases: Vec<u8>,
    /// Outcome bits, snapshot-major (M × L).
    pub outcomes: Vec<u8>,
}

impl Snapshots {
    /// How many snapshots M.
    pub fn count(&self) -> usize {
        self.bases.len() / self.sites.max(1)
    }

    fn basis(&self, t: usize, site: usize) -> u8 {
        self.bases[t * self.sites + site]
    }

    /// ±1 for snapshot t at `site`.
    fn sign(&self, t: usize, site: usize) -> f64 {
        if self.outcomes[t * self.sites + site] == 0 {
            1.0
        } else {
            -1.0
        }
    }

    /// The single-snapshot estimates of the Pauli string `ops` (distinct sites).
    pub fn pauli_samples(&self, ops: &[(usize, Pauli)]) -> Vec<f64> {
        (0..self.count())
            .map(|t| {
                ops.iter()
                    .map(|&(site, p)| {
                        if self.basis(t, site) == p.code() {
                            3.0 * self.sign(t, site)
                        } else {
                            0.0
                        }
                    })
                    .product()
            })
            .collect()
    }

    /// The shadow estimate of ⟨P⟩ for the Pauli string `ops`.
    pub fn pauli(&self, ops: &[(usize, Pauli)]) -> f64 {
        mean(&self.pauli_samples(ops))
    }

    /// The single-snapshot estimates of C_ij: 3·[basis_i = basis_j]·s_i·s_j.
    pub fn correlation_samples(&self, i: usize, j: usize) -> Vec<f64> {
        (0..self.count())
            .map(|t| {
                if self.basis(t, i) == self.basis(t, j) {
                    3.0 * self.sign(t, i) * self.sign(t, j)
                } else {
                    0.0
                }
            })
            .collect()
    }

    /// The shadow estimate of every C_ij (i < j), in the order of [`pairs`].
    pub fn correlations(&self) -> Vec<f64> {
        pairs(self.sites)
            .iter()
            .map(|&(i, j)| mean(&self.correlation_samples(i, j)))
            .collect()
    }

    /// The shadow estimate of every C_ij as an L × L matrix (1 on the diagonal).
    pub fn correlation_matrix(&self) -> DMatrix<f64> {
        crate::observables::from_upper_triangle(self.sites, &self.correlations())
    }

    /// The unbiased estimate of tr ρ_A² for the sites `block` (at most 4), from every pair of
    /// distinct snapshots (counted by their outcome pattern on the block, so the cost is
    /// O(M + 36^|A|)). Needs M ≥ 2.
    pub fn purity(&self, block: &[usize]) -> f64 {
        let m = self.count();
        let k = block.len();
        if m < 2 || k == 0 || k > 4 {
            return f64::NAN;
        }
        let patterns = 6_usize.pow(k as u32);
        let mut counts = vec![0_f64; patterns];
        for t in 0..m {
            let mut p = 0;
            for &site in block {
                let local = usize::from(self.basis(t, site)) * 2
                    + usize::from(self.outcomes[t * self.sites + site]);
                p = p * 6 + local;
            }
            counts[p] += 1.0;
        }
        let occupied: Vec<(usize, f64)> = counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0.0)
            .map(|(p, c)| (p, *c))
            .collect();
        let overlap = |mut p: usize, mut q: usize| -> f64 {
            let mut f = 1.0;
            for _ in 0..k {
                let (a, b) = (p % 6, q % 6);
                f *= if a / 2 != b / 2 {
                    0.5
                } else if a == b {
                    5.0
                } else {
                    -4.0
                };
                p /= 6;
                q /= 6;
            }
            f
        };
        let mut total = 0.0;
        for &(p, np) in &occupied {
            for &(q, nq) in &occupied {
                total += np * nq * overlap(p, q);
            }
            // Remove the pairs of a snapshot with itself: F(p, p) = 5^k.
            total -= np * 5_f64.powi(k as i32);
        }
        total / (m as f64 * (m as f64 - 1.0))
    }

    /// The Rényi-2 entropy of `block` in bits from [`Snapshots::purity`], the purity clamped
    /// to its physical range [2^−|A|, 1] (a small M can estimate it below the minimum).
    pub fn renyi2_bits(&self, block: &[usize]) -> f64 {
        let floor = 0.5_f64.powi(block.len() as i32);
        -self.purity(block).clamp(floor, 1.0).log2()
    }

    /// The shadow estimate of m² = ⟨(Σ Z_i/L)²⟩: (L + Σ_{i≠j} ⟨Z_iZ_j⟩)/L².
    pub fn order_parameter(&self) -> f64 {
        let l = self.sites as f64;
        let mut off = 0.0;
        for (i, j) in pairs(self.sites) {
            off += 2.0 * self.pauli(&[(i, Pauli::Z), (j, Pauli::Z)]);
        }
        (l + off) / (l * l)
    }
}

/// The mean of `values` (NaN when empty).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        f64::NAN
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// Checks a snapshot count: 1 to [`MAX_SNAPSHOTS`], the error naming `key`.
pub fn check_snapshots(key: &str, snapshots: usize) -> Result<(), ComputeError> {
    if (1..=MAX_SNAPSHOTS).contains(&snapshots) {
        Ok(())
    } else {
        Err(ComputeError::invalid(
            key,
            format!(
                "{snapshots} snapshots: every state needs 1 to {MAX_SNAPSHOTS} measurements \
                 (M = 0 leaves nothing to learn from)"
            ),
        ))
    }
}

/// Draws `count` snapshots of the real state `psi` on `sites` sites.
pub fn sample(
    psi: &[f64],
    sites: usize,
    count: usize,
    rng: &mut impl Rng,
) -> Result<Snapshots, ComputeError> {
    check_snapshots("snapshots", count)?;
    if psi.len() != 1 << sites {
        return Err(ComputeError::invalid(
            "sites",
            format!(
                "a state of {} amplitudes is not on {sites} sites",
                psi.len()
            ),
        ));
    }
    ComputeError::check_memory(
        &[("snapshots", count), ("sites", sites)],
        2,
        benchtop_compute::error::ARRAY_LIMIT_BYTES,
    )?;
    let dim = psi.len();
    let mut bases = Vec::with_capacity(count * sites);
    let mut outcomes = Vec::with_capacity(count * sites);
    let mut state = vec![Complex64::new(0.0, 0.0); dim];
    let mut cumulative = vec![0.0; dim];
    let r = std::f64::consts::FRAC_1_SQRT_2;
    for _ in 0..count {
        for (z, &a) in state.iter_mut().zip(psi) {
            *z = Complex64::new(a, 0.0);
        }
        let start = bases.len();
        for site in 0..sites {
            let basis: u8 = rng.random_range(0..3);
            bases.push(basis);
            if basis == 2 {
                continue;
            }
            // X: H; Y: H·S† (S† = diag(1, −i)): the measured eigenstate goes to |0⟩ or |1⟩.
            let bit = 1 << site;
            for s in 0..dim {
                if s & bit != 0 {
                    continue;
                }
                let a0 = state[s];
                let mut a1 = state[s | bit];
                if basis == 1 {
                    a1 = Complex64::new(a1.im, -a1.re);
                }
                state[s] = (a0 + a1) * r;
                state[s | bit] = (a0 - a1) * r;
            }
        }
        let mut total = 0.0;
        for (c, z) in cumulative.iter_mut().zip(&state) {
            total += z.norm_sqr();
            *c = total;
        }
        let u = rng.random::<f64>() * total;
        let s = cumulative.partition_point(|&c| c <= u).min(dim - 1);
        outcomes.extend((0..sites).map(|site| ((s >> site) & 1) as u8));
        debug_assert_eq!(bases.len() - start, sites);
    }
    Ok(Snapshots {
        sites,
        bases,
        outcomes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hamiltonian::{Boundary, Chain, Model};
    use crate::lanczos::{LanczosSettings, ground_state};
    use crate::observables::{self, correlations, order_parameter, purity, renyi2_bits};
    use benchtop_compute::CancelToken;

    fn state(model: Model, sites: usize, seed: u64) -> Vec<f64> {
        let mut rng = benchtop_compute::rng::seeded(seed);
        let chain = Chain::random(model, Boundary::Open, sites, 2.0, 1.5, false, &mut rng).unwrap();
        ground_state(&chain, 1, &LanczosSettings::default(), &CancelToken::new())
            .unwrap()
            .vector
    }

    fn variance(values: &[f64]) -> f64 {
        let m = mean(values);
        values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (values.len() as f64 - 1.0)
    }

    #[test]
    fn quantum_shadow_estimates_converge_within_the_variance_bound() {
        for (model, sites, seed) in [(Model::Heisenberg, 6, 1), (Model::Tfim, 5, 2)] {
            let psi = state(model, sites, seed);
            let mut rng = benchtop_compute::rng::seeded(seed + 10);
            let strings: [&[(usize, Pauli)]; 4] = [
                &[(1, Pauli::Z)],
                &[(0, Pauli::X), (1, Pauli::X)],
                &[(1, Pauli::Z), (3, Pauli::Z)],
                &[(0, Pauli::Y), (2, Pauli::Y), (3, Pauli::X)],
            ];
            let (repeats, m) = (300, 200);
            let runs: Vec<Snapshots> = (0..repeats)
                .map(|_| sample(&psi, sites, m, &mut rng).unwrap())
                .collect();
            for ops in strings {
                let k = ops.len() as i32;
                let exact = observables::pauli_expectation(&psi, ops);
                let estimates: Vec<f64> = runs.iter().map(|s| s.pauli(ops)).collect();
                let var = variance(&estimates);
                let bound = 3_f64.powi(k) / m as f64;
                // The sample variance of 300 means has a relative spread of about 8 %.
                assert!(var <= 1.25 * bound, "{ops:?}: {var} > {bound}");
                let standard_error = (bound / repeats as f64).sqrt();
                assert!(
                    (mean(&estimates) - exact).abs() < 4.0 * standard_error,
                    "{ops:?}: {} vs {exact}",
                    mean(&estimates)
                );
                // The second moment of one snapshot is exactly 3^k.
                let all: Vec<f64> = runs.iter().flat_map(|s| s.pauli_samples(ops)).collect();
                let second = all.iter().map(|x| x * x).sum::<f64>() / all.len() as f64;
                assert!((second / 3_f64.powi(k) - 1.0).abs() < 0.05, "{second}");
            }
            // Correlations (variance ≤ 3/M), the order parameter and the purity converge too.
            let exact_c = correlations(&psi, sites);
            let c01: Vec<f64> = runs
                .iter()
                .map(|s| mean(&s.correlation_samples(0, 1)))
                .collect();
            assert!(variance(&c01) <= 1.25 * 3.0 / m as f64);
            assert!(
                (mean(&c01) - exact_c[(0, 1)]).abs() < 4.0 * (3.0 / (m * repeats) as f64).sqrt()
            );
            let big = sample(&psi, sites, 40_000, &mut rng).unwrap();
            assert!((big.order_parameter() - order_parameter(&psi, sites)).abs() < 0.03);
            for block in [vec![0], vec![1, 2]] {
                let p = purity(&psi, &block);
                assert!((big.purity(&block) - p).abs() < 0.03, "{block:?}");
                assert!((big.renyi2_bits(&block) - renyi2_bits(p)).abs() < 0.1);
            }
        }
    }

    #[test]
    fn quantum_snapshots_of_a_basis_state_and_bad_counts() {
        // |0…0⟩: every Z outcome is +1, every ⟨Z_iZ_j⟩ estimate 9 or 0.
        let mut psi = vec![0.0; 8];
        psi[0] = 1.0;
        let mut rng = benchtop_compute::rng::seeded(4);
        let snaps = sample(&psi, 3, 500, &mut rng).unwrap();
        for t in 0..snaps.count() {
            for site in 0..3 {
                if snaps.basis(t, site) == 2 {
                    assert_eq!(snaps.outcomes[t * 3 + site], 0);
                }
            }
        }
        assert!((snaps.purity(&[0, 1]) - 1.0).abs() < 0.2);
        let error = sample(&psi, 3, 0, &mut rng).unwrap_err().to_string();
        assert!(error.contains("`snapshots`"), "{error}");
    }
}
