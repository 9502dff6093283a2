//! Exact properties of a (real) ground state: Pauli-string expectations, the two-point
//! correlations C_ij = ⅓⟨X_iX_j + Y_iY_j + Z_iZ_j⟩, reduced density matrices and the Rényi-2
//! entropy of small blocks (in bits), and the TFIM order parameter m² = ⟨(Σ Z_i / L)²⟩.

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// A single-qubit Pauli matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Pauli {
    /// σ_x.
    X,
    /// σ_y.
    Y,
    /// σ_z.
    Z,
}

impl Pauli {
    /// The three, in the order of their basis codes 0, 1, 2.
    pub const ALL: [Self; 3] = [Self::X, Self::Y, Self::Z];

    /// The code of the basis that measures this Pauli (0 X, 1 Y, 2 Z).
    pub fn code(self) -> u8 {
        match self {
            Self::X => 0,
            Self::Y => 1,
            Self::Z => 2,
        }
    }
}

/// ⟨ψ|P|ψ⟩ for the Pauli string `ops` (distinct sites) on a real state `psi`.
///
/// P|s⟩ = i^{#Y} (−1)^{#(Y or Z on a down spin)} |s ⊕ flips⟩, so for real ψ a string with an
/// odd number of Y has a purely imaginary expectation: its real part, 0, is returned.
pub fn pauli_expectation(psi: &[f64], ops: &[(usize, Pauli)]) -> f64 {
    let mut flip = 0_usize;
    let mut phase_mask = 0_usize;
    let mut ys = 0_u32;
    for &(site, p) in ops {
        match p {
            Pauli::X => flip |= 1 << site,
            Pauli::Y => {
                flip |= 1 << site;
                phase_mask |= 1 << site;
                ys += 1;
            }
            Pauli::Z => phase_mask |= 1 << site,
        }
    }
    if ys % 2 == 1 {
        return 0.0;
    }
    let global = if ys.is_multiple_of(4) { 1.0 } else { -1.0 };
    let sum: f64 = psi
        .iter()
        .enumerate()
        .map(|(s, &amp)| {
            let sign = if (s & phase_mask).count_ones().is_multiple_of(2) {
                1.0
            } else {
                -1.0
            };
            psi[s ^ flip] * sign * amp
        })
        .sum();
    global * sum
}

/// C_ij = ⅓⟨X_iX_j + Y_iY_j + Z_iZ_j⟩ for every pair (1 on the diagonal), L × L.
pub fn correlations(psi: &[f64], sites: usize) -> DMatrix<f64> {
    let mut c = DMatrix::identity(sites, sites);
    for i in 0..sites {
        for j in i + 1..sites {
            let v = Pauli::ALL
                .iter()
                .map(|&p| pauli_expectation(psi, &[(i, p), (j, p)]))
                .sum::<f64>()
                / 3.0;
            c[(i, j)] = v;
            c[(j, i)] = v;
        }
    }
    c
}

/// The pairs (i < j) in the order every correlation vector uses.
pub fn pairs(sites: usize) -> Vec<(usize, usize)> {
    (0..sites)
        .flat_map(|i| (i + 1..sites).map(move |j| (i, j)))
        .collect()
}

/// The upper triangle of `c` in the order of [`pairs`].
pub fn upper_triangle(c: &DMatrix<f64>) -> Vec<f64> {
    pairs(c.nrows()).iter().map(|&(i, j)| c[(i, j)]).collect()
}

/// The L × L matrix with `values` (in the order of [`pairs`]) above and below the diagonal and
/// 1 on it.
pub fn from_upper_triangle(sites: usize, values: &[f64]) -> DMatrix<f64> {
    let mut c = DMatrix::identity(sites, sites);
    for (&(i, j), &v) in pairs(sites).iter().zip(values) {
        c[(i, j)] = v;
        c[(j, i)] = v;
    }
    c
}

/// The reduced density matrix of the sites `block` (2^|A| × 2^|A|; row bit k is `block[k]`).
pub fn reduced_density_matrix(psi: &[f64], block: &[usize]) -> DMatrix<f64> {
    let k = block.len();
    let size = 1 << k;
    let block_mask: usize = block.iter().map(|&s| 1 << s).sum();
    let local = |s: usize| -> usize {
        block
            .iter()
            .enumerate()
            .map(|(bit, &site)| ((s >> site) & 1) << bit)
            .sum()
    };
    let spread = |a: usize| -> usize {
        block
            .iter()
            .enumerate()
            .map(|(bit, &site)| ((a >> bit) & 1) << site)
            .sum()
    };
    let mut rho = DMatrix::zeros(size, size);
    for (s, &amp) in psi.iter().enumerate() {
        if amp == 0.0 {
            continue;
        }
        let rest = s & !block_mask;
        let a = local(s);
        for b in 0..size {
            rho[(a, b)] += amp * psi[rest | spread(b)];
        }
    }
    rho
}

/// tr ρ_A².
pub fn purity(psi: &[f64], block: &[usize]) -> f64 {
    let rho = reduced_density_matrix(psi, block);
    rho.iter().map(|x| x * x).sum()
}

/// The Rényi-2 entropy S₂ = −log₂ tr ρ_A² in bits.
pub fn renyi2_bits(purity: f64) -> f64 {
    -purity.log2()
}

/// The contiguous blocks of `size` sites whose entropies are the targets: (i, …, i+size−1)
/// for every start i (wrapping round on a periodic chain, stopping at the end of an open one).
pub fn blocks(sites: usize, size: usize, periodic: bool) -> Vec<Vec<usize>> {
    if size == 0 || size >= sites {
        return Vec::new();
    }
    let starts = if periodic { sites } else { sites - size + 1 };
    (0..starts)
        .map(|i| (0..size).map(|k| (i + k) % sites).collect())
        .collect()
}

/// m² = ⟨(Σ_i Z_i / L)²⟩, the TFIM's order parameter squared (1 in a ferromagnetic cat state,
/// 1/L in the paramagnet at h → ∞).
pub fn order_parameter(psi: &[f64], sites: usize) -> f64 {
    let l = sites as f64;
    psi.iter()
        .enumerate()
        .map(|(s, a)| {
            let magnetisation = l - 2.0 * f64::from(s.count_ones());
            a * a * magnetisation * magnetisation
        })
        .sum::<f64>()
        / (l * l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantum_singlet_correlation_is_minus_one() {
        // (|01⟩ − |10⟩)/√2: basis indices 1 (site 0 down) and 2 (site 1 down).
        let r = std::f64::consts::FRAC_1_SQRT_2;
        let singlet = [0.0, r, -r, 0.0];
        let c = correlations(&singlet, 2);
        assert!((c[(0, 1)] + 1.0).abs() < 1e-15, "{c}");
        for p in Pauli::ALL {
            assert!((pauli_expectation(&singlet, &[(0, p), (1, p)]) + 1.0).abs() < 1e-15);
        }
        // Maximally entangled: one bit of Rényi-2 entropy for either spin.
        assert!((renyi2_bits(purity(&singlet, &[0])) - 1.0).abs() < 1e-15);
        assert!((renyi2_bits(purity(&singlet, &[0, 1]))).abs() < 1e-15);
    }

    #[test]
    fn quantum_product_states_have_known_expectations() {
        // |+⟩|0⟩: ⟨X₀⟩ = 1, ⟨Z₁⟩ = 1, ⟨X₀Z₁⟩ = 1, ⟨Z₀⟩ = 0.
        let r = std::f64::consts::FRAC_1_SQRT_2;
        let psi = [r, r, 0.0, 0.0];
        assert!((pauli_expectation(&psi, &[(0, Pauli::X)]) - 1.0).abs() < 1e-15);
        assert!((pauli_expectation(&psi, &[(1, Pauli::Z)]) - 1.0).abs() < 1e-15);
        assert!((pauli_expectation(&psi, &[(0, Pauli::X), (1, Pauli::Z)]) - 1.0).abs() < 1e-15);
        assert!(pauli_expectation(&psi, &[(0, Pauli::Z)]).abs() < 1e-15);
        assert!(renyi2_bits(purity(&psi, &[0])).abs() < 1e-15);
        // GHZ on three sites: m² = 1, ⟨Y₀Y₁X₂⟩ = −1.
        let ghz = [r, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, r];
        assert!((order_parameter(&ghz, 3) - 1.0).abs() < 1e-15);
        let yyx = pauli_expectation(&ghz, &[(0, Pauli::Y), (1, Pauli::Y), (2, Pauli::X)]);
        assert!((yyx + 1.0).abs() < 1e-15, "{yyx}");
        let rho = reduced_density_matrix(&ghz, &[2, 0]);
        assert!((rho[(0, 0)] - 0.5).abs() < 1e-15 && (rho[(3, 3)] - 0.5).abs() < 1e-15);
        assert_eq!(blocks(5, 2, false).len(), 4);
        assert_eq!(blocks(5, 2, true)[4], vec![4, 0]);
    }
}
