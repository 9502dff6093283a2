//! Dynamical systems, the RK4 integrator and its tangent-linear and adjoint, and the discrete
//! [`Model`] every method steps (Lorenz-96 by RK4, Kuramoto–Sivashinsky by ETDRK4).
//!
//! A [`Dynamics`] gives the right-hand side f(x), its Jacobian-vector product J(x)·v and the
//! transposed product J(x)ᵀ·w. [`rk4_step`], [`rk4_tangent`] and [`rk4_adjoint`] are the
//! classical fourth-order Runge–Kutta step, its exact linearisation and the exact transpose of
//! that linearisation (the discrete adjoint, so gradients match finite differences of the
//! discrete model, not of the ODE).

use crate::ks::Ks;

/// A system dx/dt = f(x) on ℝᴰ.
pub trait Dynamics {
    /// The state dimension D.
    fn dim(&self) -> usize;
    /// f(x), written into `out`.
    fn rhs(&self, x: &[f64], out: &mut [f64]);
    /// J(x)·v, written into `out`.
    fn jvp(&self, x: &[f64], v: &[f64], out: &mut [f64]);
    /// J(x)ᵀ·w, written into `out`.
    fn vjp(&self, x: &[f64], w: &[f64], out: &mut [f64]);
}

/// Lorenz-96: dx_i/dt = (x_{i+1} − x_{i−2}) x_{i−1} − x_i + F with cyclic indices.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lorenz96 {
    /// Number of variables D (at least 4).
    pub dim: usize,
    /// Forcing F.
    pub forcing: f64,
}

impl Lorenz96 {
    /// Cyclic neighbours (i−2, i−1, i+1) of `i`.
    fn neighbours(&self, i: usize) -> (usize, usize, usize) {
        let d = self.dim;
        ((i + d - 2) % d, (i + d - 1) % d, (i + 1) % d)
    }
}

impl Dynamics for Lorenz96 {
    fn dim(&self) -> usize {
        self.dim
    }

    fn rhs(&self, x: &[f64], out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            let (m2, m1, p1) = self.neighbours(i);
            *o = (x[p1] - x[m2]) * x[m1] - x[i] + self.forcing;
        }
    }

    fn jvp(&self, x: &[f64], v: &[f64], out: &mut [f64]) {
        for (i, o) in out.iter_mut().enumerate() {
            let (m2, m1, p1) = self.neighbours(i);
            *o = (v[p1] - v[m2]) * x[m1] + (x[p1] - x[m2]) * v[m1] - v[i];
        }
    }

    fn vjp(&self, x: &[f64], w: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        for (i, &wi) in w.iter().enumerate() {
            let (m2, m1, p1) = self.neighbours(i);
            out[p1] += wi * x[m1];
            out[m2] -= wi * x[m1];
            out[m1] += wi * (x[p1] - x[m2]);
            out[i] -= wi;
        }
    }
}

/// The four stage states of one RK4 step from `x` (x, x + h/2·k1, x + h/2·k2, x + h·k3) and the
/// stage slopes k1..k4.
struct Stages {
    points: [Vec<f64>; 4],
    slopes: [Vec<f64>; 4],
}

fn stages<S: Dynamics + ?Sized>(system: &S, x: &[f64], h: f64) -> Stages {
    let d = x.len();
    let mut points: [Vec<f64>; 4] = std::array::from_fn(|_| vec![0.0; d]);
    let mut slopes: [Vec<f64>; 4] = std::array::from_fn(|_| vec![0.0; d]);
    points[0].copy_from_slice(x);
    let factors = [0.5 * h, 0.5 * h, h];
    for s in 0..4 {
        system.rhs(&points[s], &mut slopes[s]);
        if s < 3 {
            for i in 0..d {
                points[s + 1][i] = x[i] + factors[s] * slopes[s][i];
            }
        }
    }
    Stages { points, slopes }
}

/// One RK4 step of size `h` in place.
pub fn rk4_step<S: Dynamics + ?Sized>(system: &S, x: &mut [f64], h: f64) {
    let st = stages(system, x, h);
    for (i, xi) in x.iter_mut().enumerate() {
        *xi += h / 6.0
            * (st.slopes[0][i] + 2.0 * st.slopes[1][i] + 2.0 * st.slopes[2][i] + st.slopes[3][i]);
    }
}

/// The tangent-linear of one RK4 step at `x`: returns δx' for the perturbation `dx`.
pub fn rk4_tangent<S: Dynamics + ?Sized>(system: &S, x: &[f64], dx: &[f64], h: f64) -> Vec<f64> {
    let st = stages(system, x, h);
    let d = x.len();
    let factors = [0.5 * h, 0.5 * h, h];
    let mut dk: [Vec<f64>; 4] = std::array::from_fn(|_| vec![0.0; d]);
    let mut input = dx.to_vec();
    for s in 0..4 {
        system.jvp(&st.points[s], &input, &mut dk[s]);
        if s < 3 {
            input = dx
                .iter()
                .zip(&dk[s])
                .map(|(a, b)| a + factors[s] * b)
                .collect();
        }
    }
    (0..d)
        .map(|i| dx[i] + h / 6.0 * (dk[0][i] + 2.0 * dk[1][i] + 2.0 * dk[2][i] + dk[3][i]))
        .collect()
}

/// The adjoint of one RK4 step at `x`: returns (∂x'/∂x)ᵀ·`lambda`.
pub fn rk4_adjoint<S: Dynamics + ?Sized>(
    system: &S,
    x: &[f64],
    lambda: &[f64],
    h: f64,
) -> Vec<f64> {
    let st = stages(system, x, h);
    let d = x.len();
    let mut out = lambda.to_vec();
    // Adjoints of the slopes k1..k4 from x' = x + h/6 (k1 + 2k2 + 2k3 + k4).
    let weights = [h / 6.0, h / 3.0, h / 3.0, h / 6.0];
    let mut ak: [Vec<f64>; 4] =
        std::array::from_fn(|s| lambda.iter().map(|l| weights[s] * l).collect());
    let factors = [0.5 * h, 0.5 * h, h];
    let mut b = vec![0.0; d];
    for s in (0..4).rev() {
        // k_s = f(x + c·k_{s−1}): the stage input's adjoint is J(point_s)ᵀ·ak_s.
        system.vjp(&st.points[s], &ak[s], &mut b);
        for i in 0..d {
            out[i] += b[i];
        }
        if s > 0 {
            let c = factors[s - 1];
            for i in 0..d {
                ak[s - 1][i] += c * b[i];
            }
        }
    }
    out
}

/// A discrete-time model: one step of size h, its tangent-linear and its adjoint (the exact
/// transpose of the tangent-linear, so adjoint gradients match finite differences).
pub trait Model {
    /// The state dimension.
    fn dim(&self) -> usize;
    /// One step of size `h` in place.
    fn step(&self, x: &mut [f64], h: f64);
    /// The tangent-linear of one step at `x` applied to `dx`.
    fn step_tangent(&self, x: &[f64], dx: &[f64], h: f64) -> Vec<f64>;
    /// The adjoint of one step at `x` applied to `lambda`.
    fn step_adjoint(&self, x: &[f64], lambda: &[f64], h: f64) -> Vec<f64>;
}

impl Model for Lorenz96 {
    fn dim(&self) -> usize {
        self.dim
    }

    fn step(&self, x: &mut [f64], h: f64) {
        rk4_step(self, x, h);
    }

    fn step_tangent(&self, x: &[f64], dx: &[f64], h: f64) -> Vec<f64> {
        rk4_tangent(self, x, dx, h)
    }

    fn step_adjoint(&self, x: &[f64], lambda: &[f64], h: f64) -> Vec<f64> {
        rk4_adjoint(self, x, lambda, h)
    }
}

impl Model for Ks {
    fn dim(&self) -> usize {
        self.n
    }

    fn step(&self, x: &mut [f64], h: f64) {
        Ks::step(self, x, h);
    }

    fn step_tangent(&self, x: &[f64], dx: &[f64], h: f64) -> Vec<f64> {
        Ks::step_tangent(self, x, dx, h)
    }

    fn step_adjoint(&self, x: &[f64], lambda: &[f64], h: f64) -> Vec<f64> {
        Ks::step_adjoint(self, x, lambda, h)
    }
}

/// The systems an experiment can run on.
#[derive(Clone, Debug, PartialEq)]
pub enum System {
    /// Lorenz-96 stepped by RK4.
    Lorenz96(Lorenz96),
    /// Kuramoto–Sivashinsky stepped by ETDRK4.
    Ks(Box<Ks>),
}

impl System {
    fn model(&self) -> &dyn Model {
        match self {
            Self::Lorenz96(s) => s,
            Self::Ks(s) => s.as_ref(),
        }
    }
}

impl Model for System {
    fn dim(&self) -> usize {
        self.model().dim()
    }

    fn step(&self, x: &mut [f64], h: f64) {
        self.model().step(x, h);
    }

    fn step_tangent(&self, x: &[f64], dx: &[f64], h: f64) -> Vec<f64> {
        self.model().step_tangent(x, dx, h)
    }

    fn step_adjoint(&self, x: &[f64], lambda: &[f64], h: f64) -> Vec<f64> {
        self.model().step_adjoint(x, lambda, h)
    }
}

/// `steps` steps of size `h` of `model` in place.
pub fn integrate<M: Model + ?Sized>(model: &M, x: &mut [f64], h: f64, steps: usize) {
    for _ in 0..steps {
        model.step(x, h);
    }
}

/// A trajectory from `x0`: `count` states spaced `steps` steps of size `h` apart, the first
/// being `x0` itself.
pub fn trajectory<M: Model + ?Sized>(
    model: &M,
    x0: &[f64],
    h: f64,
    steps: usize,
    count: usize,
) -> Vec<Vec<f64>> {
    let mut x = x0.to_vec();
    let mut out = Vec::with_capacity(count);
    for k in 0..count {
        if k > 0 {
            integrate(model, &mut x, h, steps);
        }
        out.push(x.clone());
    }
    out
}
