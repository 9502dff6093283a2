//! The learned potential: E = e_scale · Σ_terms MLP(descriptor) + e_offset, with forces
//! either −∂E/∂R (written by hand through the descriptor's Jacobian) or a direct force head.
//!
//! Clusters use one term per pair with Gaussian radial features of the distance (rotation,
//! translation and permutation invariant); Müller–Brown uses one term on the scaled
//! coordinates. The model is hand-derived rather than built on candle because the force
//! loss needs the weight gradient of −∂E/∂R (a second derivative), which candle 0.11's
//! backward does not reliably provide; [`crate::mlp`] does it exactly.

use crate::mlp::Mlp;
use crate::potential::{System, SystemKind};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// How the model produces forces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum ForceMode {
    /// F = −∂E/∂R (conservative by construction).
    #[default]
    Gradient,
    /// A separate network predicts forces directly (may be non-conservative).
    DirectHead,
}

/// Gaussian radial features of a pair distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rbf {
    /// Number of centres.
    pub k: usize,
    /// First centre.
    pub r_min: f64,
    /// Last centre.
    pub r_max: f64,
}

impl Rbf {
    fn width(&self) -> f64 {
        (self.r_max - self.r_min) / (self.k.max(2) - 1) as f64
    }

    /// Features φ_k(d) and their derivatives dφ_k/dd.
    fn eval(&self, d: f64) -> (Vec<f64>, Vec<f64>) {
        let w = self.width();
        (0..self.k)
            .map(|k| {
                let mu = self.r_min + w * k as f64;
                let x = (d - mu) / w;
                let phi = (-x * x).exp();
                (phi, -2.0 * x / w * phi)
            })
            .unzip()
    }
}

/// One term of the energy sum at a configuration: its features and how they move with R.
enum Term {
    /// Pair (i, j): distance features, their derivative in d, and the unit vector r̂_ij.
    Pair {
        i: usize,
        j: usize,
        phi: Vec<f64>,
        dphi: Vec<f64>,
        unit: [f64; 3],
    },
    /// The whole (2-D) configuration, scaled.
    Coords { x: Vec<f64> },
}

/// The learned potential and its parameters.
#[derive(Clone, Debug)]
pub struct Model {
    /// The system it models (fixes the descriptor).
    pub system: System,
    /// Radial features for clusters.
    pub rbf: Rbf,
    /// Force mode.
    pub mode: ForceMode,
    /// Energy network (features → 1).
    pub energy_net: Mlp,
    /// Direct force head (features → 1 per pair, or → dim), present in `DirectHead` mode.
    pub force_net: Option<Mlp>,
    /// All weights: energy network, then force head.
    pub params: Vec<f64>,
    /// Output scale (energy units).
    pub e_scale: f64,
    /// Output offset (energy units).
    pub e_offset: f64,
}

/// Centre and scale of the Müller–Brown coordinates fed to the network.
const MB_CENTER: [f64; 2] = [-0.25, 0.75];
const MB_SCALE: f64 = 1.0;

impl Model {
    /// A freshly initialised model with `hidden` units in each of two hidden layers.
    pub fn new(
        system: System,
        mode: ForceMode,
        hidden: usize,
        rbf: Rbf,
        e_scale: f64,
        e_offset: f64,
        rng: &mut impl Rng,
    ) -> Self {
        let n_in = if system.kind == SystemKind::MullerBrown {
            2
        } else {
            rbf.k
        };
        let energy_net = Mlp::new(vec![n_in, hidden, hidden, 1]);
        let mut params = energy_net.init(rng, 0.5);
        let force_net = (mode == ForceMode::DirectHead).then(|| {
            let out = if system.kind == SystemKind::MullerBrown {
                2
            } else {
                1
            };
            let net = Mlp::new(vec![n_in, hidden, hidden, out]);
            params.extend(net.init(rng, 0.5));
            net
        });
        Self {
            system,
            rbf,
            mode,
            energy_net,
            force_net,
            params,
            e_scale,
            e_offset,
        }
    }

    fn terms(&self, r: &[f64]) -> Vec<Term> {
        if self.system.kind == SystemKind::MullerBrown {
            let x = (0..2).map(|a| (r[a] - MB_CENTER[a]) / MB_SCALE).collect();
            return vec![Term::Coords { x }];
        }
        let n = self.system.atoms;
        let mut terms = Vec::with_capacity(n * (n - 1) / 2);
        for i in 0..n {
            for j in i + 1..n {
                let dv = [0, 1, 2].map(|a| r[3 * i + a] - r[3 * j + a]);
                let d = (dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2])
                    .sqrt()
                    .max(1e-9);
                let (phi, dphi) = self.rbf.eval(d);
                terms.push(Term::Pair {
                    i,
                    j,
                    phi,
                    dphi,
                    unit: dv.map(|v| v / d),
                });
            }
        }
        terms
    }

    fn split(&self) -> (&[f64], &[f64]) {
        self.params.split_at(self.energy_net.n_params())
    }

    /// Features and their tangent along `v` (coordinates) for one term.
    fn with_tangent(term: &Term, v: Option<&[f64]>) -> (Vec<f64>, Vec<f64>) {
        match term {
            Term::Pair {
                i,
                j,
                phi,
                dphi,
                unit,
            } => {
                let s = v.map_or(0.0, |v| {
                    (0..3)
                        .map(|a| unit[a] * (v[3 * i + a] - v[3 * j + a]))
                        .sum()
                });
                (phi.clone(), dphi.iter().map(|d| d * s).collect())
            }
            Term::Coords { x } => {
                let xd = (0..x.len())
                    .map(|a| v.map_or(0.0, |v| v[a] / MB_SCALE))
                    .collect();
                (x.clone(), xd)
            }
        }
    }

    /// Adds Jᵀ·xbar (features adjoint → coordinates) to `out`, scaled by `s`.
    fn pull_back(term: &Term, xbar: &[f64], s: f64, out: &mut [f64]) {
        match term {
            Term::Pair {
                i, j, dphi, unit, ..
            } => {
                let g: f64 = s * xbar.iter().zip(dphi).map(|(a, b)| a * b).sum::<f64>();
                for a in 0..3 {
                    out[3 * i + a] += g * unit[a];
                    out[3 * j + a] -= g * unit[a];
                }
            }
            Term::Coords { .. } => {
                for (o, x) in out.iter_mut().zip(xbar) {
                    *o += s * x / MB_SCALE;
                }
            }
        }
    }

    /// Model energy at `r`.
    pub fn energy(&self, r: &[f64]) -> f64 {
        let (pe, _) = self.split();
        let sum: f64 = self
            .terms(r)
            .iter()
            .map(|t| {
                let (x, xd) = Self::with_tangent(t, None);
                self.energy_net.forward(pe, &x, &xd).output()[0]
            })
            .sum();
        self.e_scale * sum + self.e_offset
    }

    /// Energy and −∂E/∂R (the conservative forces, whatever the mode).
    pub fn energy_gradient_forces(&self, r: &[f64]) -> (f64, Vec<f64>) {
        let (pe, _) = self.split();
        let mut scratch = vec![0.0; pe.len()];
        let mut f = vec![0.0; r.len()];
        let mut sum = 0.0;
        for t in self.terms(r) {
            let (x, xd) = Self::with_tangent(&t, None);
            let tr = self.energy_net.forward(pe, &x, &xd);
            sum += tr.output()[0];
            let (xbar, _) = self
                .energy_net
                .backward(pe, &tr, &[1.0], &[0.0], &mut scratch);
            Self::pull_back(&t, &xbar, -self.e_scale, &mut f);
        }
        (self.e_scale * sum + self.e_offset, f)
    }

    /// Energy and the model's forces (−∂E/∂R, or the direct head's output).
    pub fn energy_forces(&self, r: &[f64]) -> (f64, Vec<f64>) {
        let Some(net) = &self.force_net else {
            return self.energy_gradient_forces(r);
        };
        let (_, pf) = self.split();
        let e = self.energy(r);
        let mut f = vec![0.0; r.len()];
        for t in self.terms(r) {
            let (x, xd) = Self::with_tangent(&t, None);
            let y = net.forward(pf, &x, &xd);
            match &t {
                Term::Pair { i, j, unit, .. } => {
                    let h = self.e_scale * y.output()[0];
                    for a in 0..3 {
                        f[3 * i + a] += h * unit[a];
                        f[3 * j + a] -= h * unit[a];
                    }
                }
                Term::Coords { .. } => {
                    for (fa, ya) in f.iter_mut().zip(y.output()) {
                        *fa = self.e_scale * ya;
                    }
                }
            }
        }
        (e, f)
    }

    /// Adds to `grad` the weight gradient of `e_bar·E(r) + f_bar·F(r)`.
    pub fn accumulate(&self, r: &[f64], e_bar: f64, f_bar: &[f64], grad: &mut [f64]) {
        let n_e = self.energy_net.n_params();
        let (pe, pf) = self.split();
        let (ge, gf) = grad.split_at_mut(n_e);
        let terms = self.terms(r);
        let conservative = self.force_net.is_none();
        for t in &terms {
            // F = −e_scale Σ ∂m/∂R, so f_bar·F = −e_scale Σ ṁ along the tangent f_bar.
            let (x, xd) = Self::with_tangent(t, conservative.then_some(f_bar));
            let tr = self.energy_net.forward(pe, &x, &xd);
            let ydbar = if conservative { -self.e_scale } else { 0.0 };
            self.energy_net
                .backward(pe, &tr, &[self.e_scale * e_bar], &[ydbar], ge);
        }
        let Some(net) = &self.force_net else {
            return;
        };
        for t in &terms {
            let (x, xd) = Self::with_tangent(t, None);
            let tr = net.forward(pf, &x, &xd);
            let ybar: Vec<f64> = match t {
                Term::Pair { i, j, unit, .. } => vec![
                    self.e_scale
                        * (0..3)
                            .map(|a| (f_bar[3 * i + a] - f_bar[3 * j + a]) * unit[a])
                            .sum::<f64>(),
                ],
                Term::Coords { .. } => f_bar.iter().map(|v| self.e_scale * v).collect(),
            };
            let zeros = vec![0.0; ybar.len()];
            net.backward(pf, &tr, &ybar, &zeros, gf);
        }
    }
}
