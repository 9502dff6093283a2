//! The PIWSL losses: supervised E + λ_F·F, Taylor consistency (PITC) and conservative-force
//! consistency (PISC), as in the paper's trainer.
//!
//! With δ₁, δ₂ ~ δ·U[0,1) per coordinate, A = R, C = R + δ₁, B = R + δ₂, δ₃ = δ₁ − δ₂:
//! - PITC: V_AC = E(A) − δ₁·F(A); loss coef_rob · mean (E(C) − V_AC)².
//! - PISC ("case A"): V_BC = E(B) − δ₃·F(B); loss coef_cyc · mean (E(C) − V_BC)².
//!
//! Gradients flow through every term (no stop-gradient). No labels are needed at B or C.

use crate::model::Model;
use crate::sample::Config;
use rand::Rng;

/// Any energy-and-forces field (a model, the reference, a test field).
pub type Field<'a> = dyn Fn(&[f64]) -> (f64, Vec<f64>) + 'a;

/// Which terms and weights make up the training loss.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossSpec {
    /// Weight of the force MSE (0 when only energies are labelled).
    pub lambda_f: f64,
    /// PITC weight (0 switches it off).
    pub coef_rob: f64,
    /// PISC weight (0 switches it off).
    pub coef_cyc: f64,
    /// Displacement scale δ.
    pub delta: f64,
}

/// Loss parts of one evaluation (already weighted).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LossParts {
    /// Energy MSE.
    pub energy: f64,
    /// λ_F · force MSE.
    pub force: f64,
    /// coef_rob · PITC.
    pub pitc: f64,
    /// coef_cyc · PISC.
    pub pisc: f64,
}

impl LossParts {
    /// The total.
    pub fn total(&self) -> f64 {
        self.energy + self.force + self.pitc + self.pisc
    }
}

/// The two displacements δ₁, δ₂, each δ·U[0,1) per coordinate.
pub fn displacements(n: usize, delta: f64, rng: &mut impl Rng) -> (Vec<f64>, Vec<f64>) {
    let mut draw = || {
        (0..n)
            .map(|_| delta * rng.random::<f64>())
            .collect::<Vec<f64>>()
    };
    let d1 = draw();
    let d2 = draw();
    (d1, d2)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn shifted(r: &[f64], d: &[f64]) -> Vec<f64> {
    r.iter().zip(d).map(|(x, y)| x + y).collect()
}

/// PITC residual E(C) − V_AC of any energy/force field at A = `r`.
pub fn pitc_residual(ff: &Field<'_>, r: &[f64], d1: &[f64]) -> f64 {
    let (ea, fa) = ff(r);
    let (ec, _) = ff(&shifted(r, d1));
    ec - (ea - dot(d1, &fa))
}

/// PISC residual E(C) − V_BC of any energy/force field at A = `r`.
pub fn pisc_residual(ff: &Field<'_>, r: &[f64], d1: &[f64], d2: &[f64]) -> f64 {
    let d3: Vec<f64> = d1.iter().zip(d2).map(|(a, b)| a - b).collect();
    let (eb, fb) = ff(&shifted(r, d2));
    let (ec, _) = ff(&shifted(r, d1));
    ec - (eb - dot(&d3, &fb))
}

/// Loss and its weight gradient. `labelled` carry labels; the physics terms act on
/// `labelled` and `unlabelled` positions alike. Energies are measured in units of the
/// model's `e_scale` so the weights mean the same for every system.
pub fn loss_and_grad(
    model: &Model,
    labelled: &[Config],
    unlabelled: &[Config],
    spec: LossSpec,
    rng: &mut impl Rng,
) -> (LossParts, Vec<f64>) {
    let mut grad = vec![0.0; model.params.len()];
    let mut parts = LossParts::default();
    let s2 = model.e_scale * model.e_scale;
    let nl = labelled.len().max(1) as f64;
    for c in labelled {
        let (e, f) = model.energy_forces(&c.r);
        let de = e - c.energy;
        parts.energy += de * de / nl / s2;
        let e_bar = 2.0 * de / nl / s2;
        let mut f_bar = vec![0.0; f.len()];
        if spec.lambda_f > 0.0 {
            let m = nl * f.len() as f64;
            for ((fb, fi), ft) in f_bar.iter_mut().zip(&f).zip(&c.forces) {
                let d = fi - ft;
                parts.force += spec.lambda_f * d * d / m / s2;
                *fb = 2.0 * spec.lambda_f * d / m / s2;
            }
        }
        model.accumulate(&c.r, e_bar, &f_bar, &mut grad);
    }
    if spec.coef_rob <= 0.0 && spec.coef_cyc <= 0.0 {
        return (parts, grad);
    }
    let np = (labelled.len() + unlabelled.len()).max(1) as f64;
    for c in labelled.iter().chain(unlabelled) {
        let n = c.r.len();
        let (d1, d2) = displacements(n, spec.delta, rng);
        let d3: Vec<f64> = d1.iter().zip(&d2).map(|(a, b)| a - b).collect();
        let (rb, rc) = (shifted(&c.r, &d2), shifted(&c.r, &d1));
        let (ea, fa) = model.energy_forces(&c.r);
        let (eb, fb) = model.energy_forces(&rb);
        let (ec, _) = model.energy_forces(&rc);
        let (mut ga, mut gb, mut gc) = (0.0, 0.0, 0.0);
        let mut fa_bar = vec![0.0; n];
        let mut fb_bar = vec![0.0; n];
        if spec.coef_rob > 0.0 {
            let res = ec - (ea - dot(&d1, &fa));
            parts.pitc += spec.coef_rob * res * res / np / s2;
            let g = 2.0 * spec.coef_rob * res / np / s2;
            gc += g;
            ga -= g;
            for (b, d) in fa_bar.iter_mut().zip(&d1) {
                *b += g * d;
            }
        }
        if spec.coef_cyc > 0.0 {
            let res = ec - (eb - dot(&d3, &fb));
            parts.pisc += spec.coef_cyc * res * res / np / s2;
            let g = 2.0 * spec.coef_cyc * res / np / s2;
            gc += g;
            gb -= g;
            for (b, d) in fb_bar.iter_mut().zip(&d3) {
                *b += g * d;
            }
        }
        model.accumulate(&c.r, ga, &fa_bar, &mut grad);
        model.accumulate(&rb, gb, &fb_bar, &mut grad);
        model.accumulate(&rc, gc, &vec![0.0; n], &mut grad);
    }
    (parts, grad)
}
