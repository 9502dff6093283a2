//! The Kuramoto–Sivashinsky equation u_t = −u u_x − u_xx − u_xxxx on a periodic domain [0, L),
//! discretised on N equispaced points (pseudo-spectral, 2/3-rule dealiasing of the nonlinear
//! term) and stepped by ETDRK4 (Cox & Matthews 2002) with the contour-integral coefficients of
//! Kassam & Trefethen (2005).
//!
//! The state is the field on the grid. In Fourier space the linear part is the diagonal
//! L_k = k² − k⁴ (k = 2πn/L), integrated exactly by e^{hL}; the nonlinear part is
//! N(u) = −½ ∂ₓ P(u²) with P the dealiasing projection. [`Ks::step_tangent`] and
//! [`Ks::step_adjoint`] are the exact linearisation of one ETDRK4 step and its exact transpose
//! (all spectral multipliers are real and even in k, so their physical operators are symmetric;
//! −ik·P is antisymmetric), so 4D-Var gradients match finite differences of the discrete model.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use rustfft::num_complex::Complex;
use rustfft::{Fft, FftPlanner};

type C = Complex<f64>;

/// Contour points of the Kassam–Trefethen coefficient integrals (upper half circle).
const CONTOUR_POINTS: usize = 32;

/// Real-to-half-spectrum FFT of one even size.
#[derive(Clone)]
struct RealFft {
    n: usize,
    forward: Arc<dyn Fft<f64>>,
    inverse: Arc<dyn Fft<f64>>,
}

impl RealFft {
    fn new(n: usize) -> Self {
        let mut planner = FftPlanner::new();
        Self {
            n,
            forward: planner.plan_fft_forward(n),
            inverse: planner.plan_fft_inverse(n),
        }
    }

    /// The coefficients 0..=N/2 of the unnormalised DFT of real `x`.
    fn forward(&self, x: &[f64]) -> Vec<C> {
        let mut buf: Vec<C> = x.iter().map(|&v| C::new(v, 0.0)).collect();
        self.forward.process(&mut buf);
        buf.truncate(self.n / 2 + 1);
        buf
    }

    /// The real signal whose DFT has the half spectrum `v` (Hermitian completion, 1/N).
    fn inverse(&self, v: &[C]) -> Vec<f64> {
        let n = self.n;
        let mut buf = vec![C::new(0.0, 0.0); n];
        buf[..v.len()].copy_from_slice(v);
        for j in 1..n / 2 {
            buf[n - j] = v[j].conj();
        }
        self.inverse.process(&mut buf);
        let scale = 1.0 / n as f64;
        buf.iter().map(|c| c.re * scale).collect()
    }
}

/// The ETDRK4 coefficients of one step size h (all real, per wavenumber).
#[derive(Clone, Debug, PartialEq)]
struct Coefficients {
    h: f64,
    e: Vec<f64>,
    e2: Vec<f64>,
    q: Vec<f64>,
    f1: Vec<f64>,
    f2: Vec<f64>,
    f3: Vec<f64>,
}

impl Coefficients {
    /// Kassam & Trefethen: each φ-function averaged over a circle of radius 1 around hL_k,
    /// which avoids the cancellation of the closed forms near hL_k = 0.
    fn new(linear: &[f64], h: f64) -> Self {
        let m = linear.len();
        let mut c = Self {
            h,
            e: vec![0.0; m],
            e2: vec![0.0; m],
            q: vec![0.0; m],
            f1: vec![0.0; m],
            f2: vec![0.0; m],
            f3: vec![0.0; m],
        };
        let points = CONTOUR_POINTS as f64;
        for (k, &l) in linear.iter().enumerate() {
            let hl = h * l;
            c.e[k] = hl.exp();
            c.e2[k] = (0.5 * hl).exp();
            let (mut q, mut f1, mut f2, mut f3) = (0.0, 0.0, 0.0, 0.0);
            for j in 1..=CONTOUR_POINTS {
                let angle = std::f64::consts::PI * (j as f64 - 0.5) / points;
                let r = C::new(hl, 0.0) + C::from_polar(1.0, angle);
                let er = r.exp();
                let r3 = r * r * r;
                q += (((0.5 * r).exp() - 1.0) / r).re;
                f1 += ((-4.0 - r + er * (4.0 - 3.0 * r + r * r)) / r3).re;
                f2 += ((2.0 + r + er * (r - 2.0)) / r3).re;
                f3 += ((-4.0 - 3.0 * r - r * r + er * (4.0 - r)) / r3).re;
            }
            c.q[k] = h * q / points;
            c.f1[k] = h * f1 / points;
            c.f2[k] = h * f2 / points;
            c.f3[k] = h * f3 / points;
        }
        c
    }
}

/// The forward stages of one ETDRK4 step: the spectral state and the stage fields.
struct Stages {
    /// û and the nonlinear terms N̂ at u, a, b, c.
    v: Vec<C>,
    n: [Vec<C>; 4],
    /// The physical stage fields u, a, b, c.
    fields: [Vec<f64>; 4],
}

/// The Kuramoto–Sivashinsky equation on N grid points of a periodic domain of length L.
#[derive(Clone)]
pub struct Ks {
    /// Grid points N (even, ≥ 8).
    pub n: usize,
    /// Domain length L.
    pub length: f64,
    /// Factor of the nonlinear term (1 for KS; 0 leaves the linear equation u_t = −u_xx − u_xxxx).
    pub nonlinearity: f64,
    fft: RealFft,
    /// k² − k⁴ for n = 0..=N/2.
    linear: Vec<f64>,
    /// −½ i k · P · nonlinearity: N̂(u) = `nonlinear` ∘ FFT(u²).
    nonlinear: Vec<C>,
    /// ETDRK4 coefficients of the step size the model was built for.
    cached: Coefficients,
}

impl fmt::Debug for Ks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ks")
            .field("n", &self.n)
            .field("length", &self.length)
            .field("nonlinearity", &self.nonlinearity)
            .field("dt", &self.cached.h)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Ks {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n
            && self.length == other.length
            && self.nonlinearity == other.nonlinearity
            && self.cached.h == other.cached.h
    }
}

impl Ks {
    /// KS on `n` points (even, at least 8) of a domain of length `length`, with the ETDRK4
    /// coefficients of step `dt` precomputed (other step sizes are computed when asked for).
    ///
    /// # Panics
    /// If `n` is odd or below 8, or `length` or `dt` is not positive.
    pub fn new(n: usize, length: f64, dt: f64) -> Self {
        Self::with_nonlinearity(n, length, dt, 1.0)
    }

    /// [`Ks::new`] with the nonlinear term scaled by `nonlinearity` (0: the linear equation).
    ///
    /// # Panics
    /// If `n` is odd or below 8, or `length` or `dt` is not positive.
    pub fn with_nonlinearity(n: usize, length: f64, dt: f64, nonlinearity: f64) -> Self {
        assert!(
            n >= 8 && n.is_multiple_of(2),
            "KS needs an even number of points ≥ 8"
        );
        assert!(length > 0.0 && dt > 0.0, "KS needs L > 0 and dt > 0");
        let m = n / 2 + 1;
        let wavenumber = |j: usize| std::f64::consts::TAU * j as f64 / length;
        let linear: Vec<f64> = (0..m)
            .map(|j| {
                let k = wavenumber(j);
                k * k - k * k * k * k
            })
            .collect();
        // 2/3 rule: keep |j| < N/3 in the nonlinear term (this also zeroes the Nyquist mode).
        let nonlinear = (0..m)
            .map(|j| {
                if 3 * j < n {
                    C::new(0.0, -0.5 * wavenumber(j) * nonlinearity)
                } else {
                    C::new(0.0, 0.0)
                }
            })
            .collect();
        let cached = Coefficients::new(&linear, dt);
        Self {
            n,
            length,
            nonlinearity,
            fft: RealFft::new(n),
            linear,
            nonlinear,
            cached,
        }
    }

    /// The step size whose coefficients are precomputed.
    pub fn dt(&self) -> f64 {
        self.cached.h
    }

    /// The grid points x_j = jL/N.
    pub fn grid(&self) -> Vec<f64> {
        let dx = self.length / self.n as f64;
        (0..self.n).map(|j| j as f64 * dx).collect()
    }

    /// The linear growth rate k² − k⁴ of Fourier mode `j` (0 ≤ j ≤ N/2).
    pub fn growth_rate(&self, j: usize) -> f64 {
        self.linear[j]
    }

    fn coefficients(&self, h: f64) -> Cow<'_, Coefficients> {
        if h == self.cached.h {
            Cow::Borrowed(&self.cached)
        } else {
            Cow::Owned(Coefficients::new(&self.linear, h))
        }
    }

    /// N̂(u) for the physical field `u`.
    fn nonlinear_hat(&self, u: &[f64]) -> Vec<C> {
        let sq: Vec<f64> = u.iter().map(|v| v * v).collect();
        let mut hat = self.fft.forward(&sq);
        for (h, g) in hat.iter_mut().zip(&self.nonlinear) {
            *h *= g;
        }
        hat
    }

    /// The tangent of N at `u` applied to `du`: −∂ₓP(u·du), spectral.
    fn nonlinear_tangent_hat(&self, u: &[f64], du: &[f64]) -> Vec<C> {
        let prod: Vec<f64> = u.iter().zip(du).map(|(a, b)| a * b).collect();
        let mut hat = self.fft.forward(&prod);
        for (h, g) in hat.iter_mut().zip(&self.nonlinear) {
            *h *= 2.0 * g;
        }
        hat
    }

    /// The transpose of that tangent applied to the adjoint `w` (given and returned as spectra):
    /// u · (−∂ₓP)ᵀ w = u · ∂ₓP w.
    fn nonlinear_adjoint_hat(&self, u: &[f64], w: &[C]) -> Vec<C> {
        let g: Vec<C> = w
            .iter()
            .zip(&self.nonlinear)
            .map(|(a, g)| a * (2.0 * g).conj())
            .collect();
        let gw = self.fft.inverse(&g);
        let prod: Vec<f64> = u.iter().zip(&gw).map(|(a, b)| a * b).collect();
        self.fft.forward(&prod)
    }

    /// The right-hand side −u u_x − u_xx − u_xxxx (dealiased) at `u`.
    pub fn rhs(&self, u: &[f64]) -> Vec<f64> {
        let v = self.fft.forward(u);
        let nl = self.nonlinear_hat(u);
        let total: Vec<C> = v
            .iter()
            .zip(&nl)
            .zip(&self.linear)
            .map(|((a, b), l)| a * *l + b)
            .collect();
        self.fft.inverse(&total)
    }

    fn stages(&self, u: &[f64], c: &Coefficients) -> Stages {
        let v = self.fft.forward(u);
        let n0 = self.nonlinear_hat(u);
        let a_hat = combine(&c.e2, &v, &c.q, &n0);
        let a = self.fft.inverse(&a_hat);
        let n1 = self.nonlinear_hat(&a);
        let b_hat = combine(&c.e2, &v, &c.q, &n1);
        let b = self.fft.inverse(&b_hat);
        let n2 = self.nonlinear_hat(&b);
        let mixed: Vec<C> = n2.iter().zip(&n0).map(|(x, y)| 2.0 * x - y).collect();
        let c_hat = combine(&c.e2, &a_hat, &c.q, &mixed);
        let cf = self.fft.inverse(&c_hat);
        let n3 = self.nonlinear_hat(&cf);
        Stages {
            v,
            n: [n0, n1, n2, n3],
            fields: [u.to_vec(), a, b, cf],
        }
    }

    /// One ETDRK4 step of size `h` in place.
    pub fn step(&self, u: &mut [f64], h: f64) {
        let c = self.coefficients(h);
        let s = self.stages(u, &c);
        let next = update(&c, &s.v, &s.n);
        u.copy_from_slice(&self.fft.inverse(&next));
    }

    /// The tangent-linear of one ETDRK4 step at `u`: the perturbation of the result for `du`.
    pub fn step_tangent(&self, u: &[f64], du: &[f64], h: f64) -> Vec<f64> {
        let c = self.coefficients(h);
        let s = self.stages(u, &c);
        let dv = self.fft.forward(du);
        let dn0 = self.nonlinear_tangent_hat(&s.fields[0], du);
        let da_hat = combine(&c.e2, &dv, &c.q, &dn0);
        let dn1 = self.nonlinear_tangent_hat(&s.fields[1], &self.fft.inverse(&da_hat));
        let db_hat = combine(&c.e2, &dv, &c.q, &dn1);
        let dn2 = self.nonlinear_tangent_hat(&s.fields[2], &self.fft.inverse(&db_hat));
        let mixed: Vec<C> = dn2.iter().zip(&dn0).map(|(x, y)| 2.0 * x - y).collect();
        let dc_hat = combine(&c.e2, &da_hat, &c.q, &mixed);
        let dn3 = self.nonlinear_tangent_hat(&s.fields[3], &self.fft.inverse(&dc_hat));
        self.fft.inverse(&update(&c, &dv, &[dn0, dn1, dn2, dn3]))
    }

    /// The adjoint of one ETDRK4 step at `u`: (∂u'/∂u)ᵀ·`lambda`.
    pub fn step_adjoint(&self, u: &[f64], lambda: &[f64], h: f64) -> Vec<f64> {
        let c = self.coefficients(h);
        let s = self.stages(u, &c);
        let l = self.fft.forward(lambda);
        let scale =
            |m: &[f64], x: &[C]| -> Vec<C> { x.iter().zip(m).map(|(a, b)| a * b).collect() };
        let add = |acc: &mut Vec<C>, x: &[C], factor: f64| {
            for (a, b) in acc.iter_mut().zip(x) {
                *a += b * factor;
            }
        };
        // u' = E u + f1 n0 + 2 f2 (n1 + n2) + f3 n3.
        let mut bar_u = scale(&c.e, &l);
        let mut bar_n0 = scale(&c.f1, &l);
        let f2l: Vec<C> = scale(&c.f2, &l).iter().map(|x| 2.0 * x).collect();
        let mut bar_n1 = f2l.clone();
        let mut bar_n2 = f2l;
        let bar_n3 = scale(&c.f3, &l);
        // n3 = N(c); c = E2 a + Q (2 n2 − n0).
        let bar_c = self.nonlinear_adjoint_hat(&s.fields[3], &bar_n3);
        let mut bar_a = scale(&c.e2, &bar_c);
        let q_c = scale(&c.q, &bar_c);
        add(&mut bar_n2, &q_c, 2.0);
        add(&mut bar_n0, &q_c, -1.0);
        // n2 = N(b); b = E2 u + Q n1.
        let bar_b = self.nonlinear_adjoint_hat(&s.fields[2], &bar_n2);
        add(&mut bar_u, &scale(&c.e2, &bar_b), 1.0);
        add(&mut bar_n1, &scale(&c.q, &bar_b), 1.0);
        // n1 = N(a); a = E2 u + Q n0.
        add(
            &mut bar_a,
            &self.nonlinear_adjoint_hat(&s.fields[1], &bar_n1),
            1.0,
        );
        add(&mut bar_u, &scale(&c.e2, &bar_a), 1.0);
        add(&mut bar_n0, &scale(&c.q, &bar_a), 1.0);
        // n0 = N(u).
        add(
            &mut bar_u,
            &self.nonlinear_adjoint_hat(&s.fields[0], &bar_n0),
            1.0,
        );
        self.fft.inverse(&bar_u)
    }

    /// Shifts the field `u` by `shift` in x (spectral interpolation): returns u(x − shift).
    pub fn translate(&self, u: &[f64], shift: f64) -> Vec<f64> {
        let v = self.fft.forward(u);
        let n = self.n;
        let shifted: Vec<C> = v
            .iter()
            .enumerate()
            .map(|(j, a)| {
                if 2 * j == n {
                    // The Nyquist mode of a real field cannot carry a phase.
                    C::new(0.0, 0.0)
                } else {
                    let k = std::f64::consts::TAU * j as f64 / self.length;
                    a * C::from_polar(1.0, -k * shift)
                }
            })
            .collect();
        self.fft.inverse(&shifted)
    }

    /// The Fourier coefficients 0..=N/2 of `u` (unnormalised DFT).
    pub fn spectrum(&self, u: &[f64]) -> Vec<Complex<f64>> {
        self.fft.forward(u)
    }
}

/// `m1 ∘ x + m2 ∘ y` for real multipliers.
fn combine(m1: &[f64], x: &[C], m2: &[f64], y: &[C]) -> Vec<C> {
    x.iter()
        .zip(y)
        .zip(m1.iter().zip(m2))
        .map(|((a, b), (p, q))| a * *p + b * *q)
        .collect()
}

/// E v + f1 n0 + 2 f2 (n1 + n2) + f3 n3.
fn update(c: &Coefficients, v: &[C], n: &[Vec<C>; 4]) -> Vec<C> {
    (0..v.len())
        .map(|k| {
            v[k] * c.e[k]
                + n[0][k] * c.f1[k]
                + (n[1][k] + n[2][k]) * (2.0 * c.f2[k])
                + n[3][k] * c.f3[k]
        })
        .collect()
}
