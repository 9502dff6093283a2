//! NVE molecular dynamics (velocity Verlet, unit masses) with a learned model.

use crate::model::Model;
use crate::potential::{System, SystemKind};
use crate::sample::wall_radius;
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// One NVE run: the model's total energy along the way and when it failed.
#[derive(Clone, Debug, PartialEq)]
pub struct MdRun {
    /// Total energy E_θ + kinetic, every step up to failure (inclusive of step 0).
    pub total_energy: Vec<f64>,
    /// Steps completed before failure (all requested steps when it never failed).
    pub steps_stable: usize,
    /// Largest |E_tot(t) − E_tot(0)| per atom over the stable steps.
    pub energy_drift: f64,
}

/// Whether a configuration is still physical: finite, and for clusters no pair closer than
/// 0.7 and no atom further than twice the sampling wall from the centre; Müller–Brown
/// inside [−2.5, 2] × [−1.5, 3].
fn sane(system: System, r: &[f64]) -> bool {
    if r.iter().any(|v| !v.is_finite()) {
        return false;
    }
    if system.kind == SystemKind::MullerBrown {
        return (-2.5..=2.0).contains(&r[0]) && (-1.5..=3.0).contains(&r[1]);
    }
    let n = system.atoms;
    let com: Vec<f64> = (0..3)
        .map(|a| (0..n).map(|i| r[3 * i + a]).sum::<f64>() / n as f64)
        .collect();
    let far = 2.0 * wall_radius(system);
    for i in 0..n {
        let dc: f64 = (0..3).map(|a| (r[3 * i + a] - com[a]).powi(2)).sum();
        if dc.sqrt() > far {
            return false;
        }
        for j in i + 1..n {
            let d: f64 = (0..3).map(|a| (r[3 * i + a] - r[3 * j + a]).powi(2)).sum();
            if d.sqrt() < 0.7 {
                return false;
            }
        }
    }
    true
}

/// Runs `steps` of velocity Verlet from `r0` with Maxwell–Boltzmann velocities at
/// `kT = temperature · energy_scale` (centre-of-mass motion removed for clusters). A run
/// fails when the configuration stops being physical or the total energy moves by more
/// than 10 kT.
pub fn nve(
    model: &Model,
    r0: &[f64],
    temperature: f64,
    steps: usize,
    dt: f64,
    rng: &mut impl Rng,
) -> MdRun {
    let system = model.system;
    let kt = temperature * system.energy_scale();
    let mut r = r0.to_vec();
    let mut v: Vec<f64> = (0..r.len())
        .map(|_| {
            let z: f64 = StandardNormal.sample(rng);
            kt.sqrt() * z
        })
        .collect::<Vec<f64>>();
    if system.kind != SystemKind::MullerBrown {
        let n = system.atoms;
        for a in 0..3 {
            let mean = (0..n).map(|i| v[3 * i + a]).sum::<f64>() / n as f64;
            for i in 0..n {
                v[3 * i + a] -= mean;
            }
        }
    }
    let kinetic = |v: &[f64]| 0.5 * v.iter().map(|x| x * x).sum::<f64>();
    let (mut e, mut f) = model.energy_forces(&r);
    let e0 = e + kinetic(&v);
    let mut total = vec![e0];
    let mut drift: f64 = 0.0;
    let atoms = system.atoms as f64;
    for step in 0..steps {
        for i in 0..r.len() {
            v[i] += 0.5 * dt * f[i];
            r[i] += dt * v[i];
        }
        (e, f) = model.energy_forces(&r);
        for i in 0..r.len() {
            v[i] += 0.5 * dt * f[i];
        }
        let et = e + kinetic(&v);
        if !sane(system, &r) || !et.is_finite() || (et - e0).abs() > 10.0 * kt {
            return MdRun {
                total_energy: total,
                steps_stable: step,
                energy_drift: drift,
            };
        }
        drift = drift.max((et - e0).abs() / atoms);
        total.push(et);
    }
    MdRun {
        total_energy: total,
        steps_stable: steps,
        energy_drift: drift,
    }
}
