//! One-dimensional spin-½ chains on the 2^L computational basis, applied matrix-free.
//!
//! Qubit `i` is bit `i` of a basis index; bit 0 is spin up (Z = +1), bit 1 spin down (Z = −1).
//!
//! - Random-bond Heisenberg: H = Σ_b J_b S_i·S_j with S = σ/2 (so the two-site singlet has
//!   E = −¾J and the four-site ring E₀ = −2J).
//! - Transverse-field Ising: H = −Σ_b J_b Z_i Z_j − Σ_i h_i X_i (Pauli matrices; two sites,
//!   one bond: E₀ = −√(J² + 4h²)).
//!
//! Open chains have the bonds (i, i+1); periodic chains of three or more sites add (L−1, 0)
//! (two sites have one bond either way).

use benchtop_compute::ComputeError;
use nalgebra::DMatrix;
use rand::Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// The largest chain: 2^14 amplitudes (a Krylov basis of a few hundred vectors fits in memory).
pub const MAX_SITES: usize = 14;

/// Dimensions below which applying H in parallel costs more than it gains.
const PARALLEL_DIMENSION: usize = 1 << 11;

/// Which Hamiltonian.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Model {
    /// H = Σ J_b S_i·S_j, antiferromagnetic random bonds.
    #[default]
    Heisenberg,
    /// H = −Σ J_b Z_i Z_j − Σ h_i X_i.
    Tfim,
}

impl Model {
    /// The name shown in the panel.
    pub fn label(self) -> &'static str {
        match self {
            Self::Heisenberg => "Heisenberg",
            Self::Tfim => "Transverse-field Ising",
        }
    }
}

/// Open or periodic boundary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Boundary {
    /// Bonds (i, i+1), i < L−1.
    #[default]
    Open,
    /// Also the bond (L−1, 0) (for L ≥ 3).
    Periodic,
}

/// The bonds of a chain of `sites` sites.
pub fn bonds(sites: usize, boundary: Boundary) -> Vec<(usize, usize)> {
    let mut bonds: Vec<(usize, usize)> = (0..sites.saturating_sub(1)).map(|i| (i, i + 1)).collect();
    if boundary == Boundary::Periodic && sites > 2 {
        bonds.push((sites - 1, 0));
    }
    bonds
}

/// Checks a chain length: 2 to [`MAX_SITES`], the error naming `key` and the size refused.
pub fn check_sites(key: &str, sites: usize) -> Result<(), ComputeError> {
    if sites < 2 {
        return Err(ComputeError::invalid(key, "a chain needs at least 2 sites"));
    }
    if sites > MAX_SITES {
        let amplitudes = 1_u128 << sites.min(127);
        return Err(ComputeError::invalid(
            key,
            format!(
                "{sites} sites need 2^{sites} = {amplitudes} amplitudes per state; Benchtop \
                 diagonalises at most {MAX_SITES} sites (2^{MAX_SITES} = {} amplitudes)",
                1_usize << MAX_SITES
            ),
        ));
    }
    Ok(())
}

/// One Hamiltonian: its model, boundary, couplings (one per bond) and fields (one per site,
/// TFIM only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chain {
    /// The model.
    pub model: Model,
    /// The boundary.
    pub boundary: Boundary,
    /// Sites L.
    pub sites: usize,
    /// J_b, in the order of [`bonds`].
    pub couplings: Vec<f64>,
    /// h_i (empty for Heisenberg).
    pub fields: Vec<f64>,
}

impl Chain {
    /// A chain, checked: 2 to [`MAX_SITES`] sites (`sites`), one finite non-negative coupling
    /// per bond (`couplings`; antiferromagnetic Heisenberg and ferromagnetic TFIM bonds), and
    /// for the TFIM one finite non-negative field per site (`fields`).
    pub fn new(
        model: Model,
        boundary: Boundary,
        couplings: Vec<f64>,
        fields: Vec<f64>,
    ) -> Result<Self, ComputeError> {
        let sites = match (model, boundary) {
            (_, Boundary::Open) => couplings.len() + 1,
            (_, Boundary::Periodic) if couplings.len() >= 3 => couplings.len(),
            (_, Boundary::Periodic) => couplings.len() + 1,
        };
        check_sites("sites", sites)?;
        if bonds(sites, boundary).len() != couplings.len() {
            return Err(ComputeError::invalid(
                "couplings",
                format!(
                    "{sites} sites need {} couplings",
                    bonds(sites, boundary).len()
                ),
            ));
        }
        if let Some((b, j)) = couplings
            .iter()
            .enumerate()
            .find(|(_, j)| !(j.is_finite() && **j >= 0.0))
        {
            return Err(ComputeError::invalid(
                "couplings",
                format!("J_{b} = {j}: couplings must be finite and ≥ 0 for this model"),
            ));
        }
        match model {
            Model::Heisenberg if !fields.is_empty() => {
                return Err(ComputeError::invalid(
                    "fields",
                    "the Heisenberg chain has no field",
                ));
            }
            Model::Tfim if fields.len() != sites => {
                return Err(ComputeError::invalid(
                    "fields",
                    format!("{sites} sites need {sites} fields"),
                ));
            }
            _ => {}
        }
        if let Some((i, h)) = fields
            .iter()
            .enumerate()
            .find(|(_, h)| !(h.is_finite() && **h >= 0.0))
        {
            return Err(ComputeError::invalid(
                "fields",
                format!("h_{i} = {h}: fields must be finite and ≥ 0"),
            ));
        }
        Ok(Self {
            model,
            boundary,
            sites,
            couplings,
            fields,
        })
    }

    /// A Heisenberg chain with couplings `couplings`.
    pub fn heisenberg(boundary: Boundary, couplings: Vec<f64>) -> Result<Self, ComputeError> {
        Self::new(Model::Heisenberg, boundary, couplings, Vec::new())
    }

    /// A TFIM chain with couplings `couplings` and fields `fields`.
    pub fn tfim(
        boundary: Boundary,
        couplings: Vec<f64>,
        fields: Vec<f64>,
    ) -> Result<Self, ComputeError> {
        Self::new(Model::Tfim, boundary, couplings, fields)
    }

    /// The Hilbert-space dimension 2^L.
    pub fn dimension(&self) -> usize {
        1 << self.sites
    }

    /// The bonds, in the order of the couplings.
    pub fn bonds(&self) -> Vec<(usize, usize)> {
        bonds(self.sites, self.boundary)
    }

    /// The Hamiltonian's parameters as one vector: couplings, then fields.
    pub fn parameters(&self) -> Vec<f64> {
        let mut p = self.couplings.clone();
        p.extend_from_slice(&self.fields);
        p
    }

    /// The operator, ready to apply.
    pub fn operator(&self) -> Operator {
        Operator::new(self)
    }

    /// The dense matrix (for checks on small chains; 2^L × 2^L).
    pub fn dense(&self) -> Result<DMatrix<f64>, ComputeError> {
        let dim = self.dimension();
        ComputeError::check_memory(
            &[("sites", dim), ("sites", dim)],
            8,
            benchtop_compute::error::ARRAY_LIMIT_BYTES,
        )?;
        let op = self.operator();
        let mut h = DMatrix::zeros(dim, dim);
        for s in 0..dim {
            h[(s, s)] = op.diagonal[s];
            for &(mask, amplitude) in &op.flips {
                if op.flip_allowed(s, mask) {
                    h[(s ^ mask, s)] += amplitude;
                }
            }
        }
        Ok(h)
    }

    /// Draws a chain: couplings J_b ~ U[0, j_max]; for the TFIM fields h_i ~ U[0, h_max]
    /// (one draw for every site when `uniform_field`).
    pub fn random(
        model: Model,
        boundary: Boundary,
        sites: usize,
        j_max: f64,
        h_max: f64,
        uniform_field: bool,
        rng: &mut impl Rng,
    ) -> Result<Self, ComputeError> {
        check_sites("sites", sites)?;
        if !(j_max.is_finite() && j_max > 0.0) {
            return Err(ComputeError::invalid("j_max", "must be finite and > 0"));
        }
        let couplings = (0..bonds(sites, boundary).len())
            .map(|_| j_max * rng.random::<f64>())
            .collect();
        let fields = match model {
            Model::Heisenberg => Vec::new(),
            Model::Tfim => {
                if !(h_max.is_finite() && h_max >= 0.0) {
                    return Err(ComputeError::invalid("h_max", "must be finite and ≥ 0"));
                }
                if uniform_field {
                    vec![h_max * rng.random::<f64>(); sites]
                } else {
                    (0..sites).map(|_| h_max * rng.random::<f64>()).collect()
                }
            }
        };
        Self::new(model, boundary, couplings, fields)
    }
}

/// H as a diagonal and a list of spin flips: H|s⟩ = d(s)|s⟩ + Σ a·|s ⊕ mask⟩ over the flips
/// allowed at s (for the Heisenberg exchange: the two spins of the bond differ).
#[derive(Clone, Debug)]
pub struct Operator {
    diagonal: Vec<f64>,
    /// (mask, amplitude) of each off-diagonal term.
    flips: Vec<(usize, f64)>,
    /// Whether a flip needs the two spins of its mask to differ (Heisenberg).
    exchange: bool,
}

impl Operator {
    fn new(chain: &Chain) -> Self {
        let dim = chain.dimension();
        let bonds = chain.bonds();
        let sign = |s: usize, i: usize, j: usize| -> f64 {
            if ((s >> i) ^ (s >> j)) & 1 == 0 {
                1.0
            } else {
                -1.0
            }
        };
        match chain.model {
            Model::Heisenberg => {
                let diagonal = (0..dim)
                    .map(|s| {
                        bonds
                            .iter()
                            .zip(&chain.couplings)
                            .map(|(&(i, j), &jb)| 0.25 * jb * sign(s, i, j))
                            .sum()
                    })
                    .collect();
                let flips = bonds
                    .iter()
                    .zip(&chain.couplings)
                    .map(|(&(i, j), &jb)| ((1 << i) | (1 << j), 0.5 * jb))
                    .collect();
                Self {
                    diagonal,
                    flips,
                    exchange: true,
                }
            }
            Model::Tfim => {
                let diagonal = (0..dim)
                    .map(|s| {
                        -bonds
                            .iter()
                            .zip(&chain.couplings)
                            .map(|(&(i, j), &jb)| jb * sign(s, i, j))
                            .sum::<f64>()
                    })
                    .collect();
                let flips = chain
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(i, &h)| (1 << i, -h))
                    .collect();
                Self {
                    diagonal,
                    flips,
                    exchange: false,
                }
            }
        }
    }

    /// The dimension 2^L.
    pub fn dimension(&self) -> usize {
        self.diagonal.len()
    }

    fn flip_allowed(&self, s: usize, mask: usize) -> bool {
        !self.exchange || (s & mask).count_ones() == 1
    }

    fn row(&self, s: usize, v: &[f64]) -> f64 {
        let mut sum = self.diagonal[s] * v[s];
        for &(mask, amplitude) in &self.flips {
            if self.flip_allowed(s, mask) {
                sum += amplitude * v[s ^ mask];
            }
        }
        sum
    }

    /// `out = H v` (H is real symmetric, so each row gathers its flipped partners).
    pub fn apply(&self, v: &[f64], out: &mut [f64]) {
        if v.len() >= PARALLEL_DIMENSION {
            out.par_chunks_mut(256).enumerate().for_each(|(c, chunk)| {
                for (k, o) in chunk.iter_mut().enumerate() {
                    *o = self.row(c * 256 + k, v);
                }
            });
        } else {
            for (s, o) in out.iter_mut().enumerate() {
                *o = self.row(s, v);
            }
        }
    }

    /// A bound on the spectral radius: max over rows of Σ |H_st| (Gershgorin).
    pub fn norm_bound(&self) -> f64 {
        let off: f64 = self.flips.iter().map(|(_, a)| a.abs()).sum();
        self.diagonal.iter().fold(0.0_f64, |m, d| m.max(d.abs())) + off
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantum_the_dense_matrix_is_symmetric_and_matches_the_operator() {
        let mut rng = benchtop_compute::rng::seeded(3);
        for model in [Model::Heisenberg, Model::Tfim] {
            for boundary in [Boundary::Open, Boundary::Periodic] {
                let chain = Chain::random(model, boundary, 5, 2.0, 1.5, false, &mut rng).unwrap();
                let h = chain.dense().unwrap();
                assert!((&h - h.transpose()).amax() < 1e-15);
                let v: Vec<f64> = (0..32).map(|k| (k as f64 * 0.37).sin()).collect();
                let mut out = vec![0.0; 32];
                chain.operator().apply(&v, &mut out);
                let dense = &h * nalgebra::DVector::from_vec(v);
                for (a, b) in out.iter().zip(dense.iter()) {
                    assert!((a - b).abs() < 1e-13);
                }
            }
        }
    }

    #[test]
    fn quantum_bad_chains_name_their_key() {
        let error = Chain::heisenberg(Boundary::Open, vec![1.0, -0.5]).unwrap_err();
        assert!(error.to_string().contains("`couplings`"), "{error}");
        let error = Chain::tfim(Boundary::Open, vec![1.0], vec![1.0, f64::NAN]).unwrap_err();
        assert!(error.to_string().contains("`fields`"), "{error}");
        let error = Chain::heisenberg(Boundary::Open, vec![1.0; 15]).unwrap_err();
        assert!(
            error.to_string().contains("`sites`") && error.to_string().contains("65536"),
            "{error}"
        );
        let mut rng = benchtop_compute::rng::seeded(1);
        let error =
            Chain::random(Model::Tfim, Boundary::Open, 4, -1.0, 1.0, true, &mut rng).unwrap_err();
        assert!(error.to_string().contains("`j_max`"), "{error}");
        assert_eq!(bonds(2, Boundary::Periodic), vec![(0, 1)]);
        assert_eq!(bonds(4, Boundary::Periodic).len(), 4);
    }
}
