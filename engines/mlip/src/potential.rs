//! Reference potentials with exact energies and forces.
//!
//! Positions are flat: atom `i`, axis `a` is `r[i * dim + a]`. Müller–Brown is one
//! particle in two dimensions; Lennard-Jones and Morse are clusters in three (reduced
//! units: ε = σ = 1 for Lennard-Jones, D = 1, a = 1.5, r₀ = 1.12 for Morse).

use serde::{Deserialize, Serialize};

/// Which reference system generates the labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum SystemKind {
    /// The 2-D Müller–Brown surface (one particle, three minima).
    MullerBrown,
    /// A Lennard-Jones cluster (ε = σ = 1).
    #[default]
    LennardJones,
    /// A Morse cluster (D = 1, a = 1.5, r₀ = 2^(1/6)).
    Morse,
}

/// A reference system: kind and number of atoms (Müller–Brown always has one).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct System {
    /// The potential.
    pub kind: SystemKind,
    /// Number of particles.
    pub atoms: usize,
}

/// Müller–Brown coefficients (A, a, b, c, x₀, y₀), the standard set.
const MB: [[f64; 6]; 4] = [
    [-200.0, -1.0, 0.0, -10.0, 1.0, 0.0],
    [-100.0, -1.0, 0.0, -10.0, 0.0, 0.5],
    [-170.0, -6.5, 11.0, -6.5, -0.5, 1.5],
    [15.0, 0.7, 0.6, 0.7, -1.0, 1.0],
];

/// Morse well depth, stiffness and equilibrium distance (reduced units).
const MORSE: (f64, f64, f64) = (1.0, 1.5, 1.122_462_048_309_373);

impl System {
    /// A system of `kind` with `atoms` particles (forced to one for Müller–Brown).
    pub fn new(kind: SystemKind, atoms: usize) -> Self {
        let atoms = if kind == SystemKind::MullerBrown {
            1
        } else {
            atoms
        };
        Self { kind, atoms }
    }

    /// Spatial dimension: 2 for Müller–Brown, 3 for clusters.
    pub fn dim(&self) -> usize {
        if self.kind == SystemKind::MullerBrown {
            2
        } else {
            3
        }
    }

    /// Number of coordinates, `atoms · dim`.
    pub fn coords(&self) -> usize {
        self.atoms * self.dim()
    }

    /// Exact energy and forces (F = −∂E/∂R) at positions `r`.
    pub fn energy_forces(&self, r: &[f64]) -> (f64, Vec<f64>) {
        match self.kind {
            SystemKind::MullerBrown => muller_brown(r[0], r[1]),
            SystemKind::LennardJones => pair_sum(r, lj),
            SystemKind::Morse => pair_sum(r, morse),
        }
    }

    /// Exact energy only.
    pub fn energy(&self, r: &[f64]) -> f64 {
        self.energy_forces(r).0
    }

    /// Natural energy scale for temperatures (kT in the potential's units).
    pub fn energy_scale(&self) -> f64 {
        if self.kind == SystemKind::MullerBrown {
            100.0
        } else {
            1.0
        }
    }
}

/// Müller–Brown energy and force at (x, y).
fn muller_brown(x: f64, y: f64) -> (f64, Vec<f64>) {
    let (mut e, mut fx, mut fy) = (0.0, 0.0, 0.0);
    for [big_a, a, b, c, x0, y0] in MB {
        let (dx, dy) = (x - x0, y - y0);
        let term = big_a * (a * dx * dx + b * dx * dy + c * dy * dy).exp();
        e += term;
        fx -= term * (2.0 * a * dx + b * dy);
        fy -= term * (b * dx + 2.0 * c * dy);
    }
    (e, vec![fx, fy])
}

/// Lennard-Jones pair energy and dE/dd.
fn lj(d: f64) -> (f64, f64) {
    let s6 = d.powi(-6);
    (4.0 * (s6 * s6 - s6), 4.0 * (-12.0 * s6 * s6 + 6.0 * s6) / d)
}

/// Morse pair energy and dE/dd.
fn morse(d: f64) -> (f64, f64) {
    let (depth, a, r0) = MORSE;
    let x = (-a * (d - r0)).exp();
    (
        depth * (x * x - 2.0 * x),
        depth * (-2.0 * a * x * x + 2.0 * a * x),
    )
}

/// Sum of a pair potential over all pairs of a 3-D cluster.
fn pair_sum(r: &[f64], pair: fn(f64) -> (f64, f64)) -> (f64, Vec<f64>) {
    let n = r.len() / 3;
    let mut e = 0.0;
    let mut f = vec![0.0; r.len()];
    for i in 0..n {
        for j in i + 1..n {
            let dv = [
                r[3 * i] - r[3 * j],
                r[3 * i + 1] - r[3 * j + 1],
                r[3 * i + 2] - r[3 * j + 2],
            ];
            let d = (dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]).sqrt();
            let (u, du) = pair(d);
            e += u;
            for a in 0..3 {
                let g = du * dv[a] / d;
                f[3 * i + a] -= g;
                f[3 * j + a] += g;
            }
        }
    }
    (e, f)
}
