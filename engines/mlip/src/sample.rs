//! Labelled configurations from Langevin molecular dynamics with the reference potential.

use crate::potential::{System, SystemKind};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// A configuration with its exact labels.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Positions, flat.
    pub r: Vec<f64>,
    /// Reference energy.
    pub energy: f64,
    /// Reference forces.
    pub forces: Vec<f64>,
}

/// A compact starting geometry: Müller–Brown's deepest minimum, or the `n` simple-cubic
/// sites (spacing 1.12) nearest the origin.
pub fn initial(system: System) -> Vec<f64> {
    if system.kind == SystemKind::MullerBrown {
        return vec![-0.558, 1.442];
    }
    let mut sites = Vec::new();
    for x in -2i32..=2 {
        for y in -2i32..=2 {
            for z in -2i32..=2 {
                sites.push([x, y, z].map(|c| f64::from(c) * 1.12));
            }
        }
    }
    sites.sort_by(|a, b| {
        let na = a.iter().map(|v| v * v).sum::<f64>() + 1e-3 * a[0] + 1e-6 * a[1];
        let nb = b.iter().map(|v| v * v).sum::<f64>() + 1e-3 * b[0] + 1e-6 * b[1];
        na.total_cmp(&nb)
    });
    sites.iter().take(system.atoms).flatten().copied().collect()
}

/// Radius of the soft wall that keeps a sampled cluster together (sampling only; it is
/// not part of the labels).
pub fn wall_radius(system: System) -> f64 {
    let n = system.atoms as f64;
    1.0 + 0.8 * n.cbrt()
}

/// Forces of the sampling wall: harmonic beyond [`wall_radius`] from the centre of mass.
fn wall(system: System, r: &[f64], f: &mut [f64]) {
    if system.kind == SystemKind::MullerBrown {
        return;
    }
    let n = system.atoms;
    let com: Vec<f64> = (0..3)
        .map(|a| (0..n).map(|i| r[3 * i + a]).sum::<f64>() / n as f64)
        .collect();
    let rw = wall_radius(system);
    for i in 0..n {
        let dv: Vec<f64> = (0..3).map(|a| r[3 * i + a] - com[a]).collect();
        let d = dv.iter().map(|v| v * v).sum::<f64>().sqrt();
        if d > rw {
            for a in 0..3 {
                f[3 * i + a] -= 10.0 * (d - rw) * dv[a] / d;
            }
        }
    }
}

/// Time step for sampling and MD (reduced units).
pub fn time_step(system: System) -> f64 {
    if system.kind == SystemKind::MullerBrown {
        0.002
    } else {
        0.005
    }
}

/// Samples `count` configurations by Langevin dynamics (BAOAB, friction γ = 1 for clusters,
/// 20 for Müller–Brown) at temperature `kT = temperature · energy_scale`, one every
/// `stride` steps after a burn-in of 20 strides.
pub fn langevin(
    system: System,
    count: usize,
    temperature: f64,
    stride: usize,
    rng: &mut impl Rng,
) -> Vec<Config> {
    let kt = temperature * system.energy_scale();
    let dt = time_step(system);
    let gamma = if system.kind == SystemKind::MullerBrown {
        20.0
    } else {
        1.0
    };
    let c1 = (-gamma * dt).exp();
    let c2 = ((1.0 - c1 * c1) * kt).sqrt();
    let mut r = initial(system);
    let mut v = vec![0.0; r.len()];
    let force = |r: &[f64]| {
        let (_, mut f) = system.energy_forces(r);
        wall(system, r, &mut f);
        f
    };
    let mut f = force(&r);
    let mut out = Vec::with_capacity(count);
    let mut step = 0usize;
    while out.len() < count {
        for (vi, fi) in v.iter_mut().zip(&f) {
            *vi += 0.5 * dt * fi;
        }
        for (ri, vi) in r.iter_mut().zip(&v) {
            *ri += 0.5 * dt * vi;
        }
        for vi in &mut v {
            let z: f64 = StandardNormal.sample(rng);
            *vi = c1 * *vi + c2 * z;
        }
        for (ri, vi) in r.iter_mut().zip(&v) {
            *ri += 0.5 * dt * vi;
        }
        f = force(&r);
        for (vi, fi) in v.iter_mut().zip(&f) {
            *vi += 0.5 * dt * fi;
        }
        step += 1;
        if step >= 20 * stride && step.is_multiple_of(stride) {
            let (energy, forces) = system.energy_forces(&r);
            out.push(Config {
                r: r.clone(),
                energy,
                forces,
            });
        }
    }
    out
}
