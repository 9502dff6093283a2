//! Normalised associated Legendre functions and the Legendre stage of the transform.
//!
//! Normalisation: `P̄_lm(x)` with `½∫₋₁¹ P̄_lm(x)² dx = 1` and no Condon–Shortley phase, so that
//! `Y_lm(θ, φ) = P̄_lm(cos θ)·e^{imφ}` has unit mean square over the sphere (4π-normalised:
//! `(1/4π)∫|Y_lm|² dΩ = 1`, `Y_00 = 1`).
//!
//! Recurrence (stable in the direction of increasing l):
//! - `P̄_00 = 1`, `P̄_mm = √((2m+1)/(2m))·sin θ·P̄_{m−1,m−1}`,
//! - `P̄_lm = α_lm·x·P̄_{l−1,m} − β_lm·P̄_{l−2,m}` with `α = √((4l²−1)/(l²−m²))`,
//!   `β = √((2l+1)((l−1)²−m²)/((2l−3)(l²−m²)))`.
//!
//! The seed `P̄_mm ∝ sin^m θ` underflows f64 near the poles for large m (sin 0.25° ^ 700 is
//! 10^−1650), so it is carried in scaled form: a mantissa and an exponent in steps of 2^256.
//! The scaled recurrence runs until the function becomes significant (|value| ≥ 10^−40); from
//! there on it is plain f64 and the transform kernels take over. Contributions below 10^−40 are
//! dropped, which is far below f64 resolution of O(1) data.
//!
//! For speed the kernels run a rescaled recurrence with one multiply and one FMA per step:
//! `u_l = A'_l·x·u_{l−1} + u_{l−2}`, with `P̄_lm = c_lm·u_l` (`c` absorbs the β products and a
//! sign pattern). The kernels are written once with [`pulp`] and dispatched at run time to
//! AVX-512, AVX2+FMA or scalar code, processing 2–4 SIMD vectors of ring pairs at once; the
//! north and south rings of a pair share the recurrence (P̄_lm(−x) = (−1)^{l+m} P̄_lm(x)).

use pulp::{Simd, WithSimd};
use rayon::prelude::*;

/// Functions below this magnitude are treated as zero (see the module docs).
pub const SIGNIFICANT: f64 = 1e-40;

const SCALE_BITS: i32 = 256;

fn two_pow(bits: i32) -> f64 {
    2.0_f64.powi(bits)
}

/// `P̄_lm(x)` for `l = m..=lmax` at one point `x = cos θ` (see the module docs for the
/// normalisation). Accurate in f64 for any degree: the seed is carried in scaled form.
pub fn legendre_column(lmax: usize, m: usize, x: f64) -> Vec<f64> {
    if m > lmax {
        return Vec::new();
    }
    let s = ((1.0 - x) * (1.0 + x)).max(0.0).sqrt();
    let (mut v, mut e) = (1.0_f64, 0_i32);
    for k in 1..=m {
        let kf = k as f64;
        v *= ((2.0 * kf + 1.0) / (2.0 * kf)).sqrt() * s;
        if v != 0.0 && v.abs() < two_pow(-SCALE_BITS) {
            v *= two_pow(SCALE_BITS);
            e -= 1;
        }
    }
    let mut out = Vec::with_capacity(lmax + 1 - m);
    let unscale = |v: f64, e: i32| {
        if e == 0 {
            v
        } else {
            v * 2.0_f64.powi(e * SCALE_BITS)
        }
    };
    let mf = m as f64;
    let (mut p1, mut p2) = (v, 0.0_f64);
    out.push(unscale(p1, e));
    for l in m + 1..=lmax {
        let lf = l as f64;
        let alpha = ((4.0 * lf * lf - 1.0) / (lf * lf - mf * mf)).sqrt();
        let beta = ((2.0 * lf + 1.0) * ((lf - 1.0).powi(2) - mf * mf)
            / ((2.0 * lf - 3.0) * (lf * lf - mf * mf)))
            .max(0.0)
            .sqrt();
        let p = alpha * x * p1 - beta * p2;
        p2 = p1;
        p1 = p;
        if e < 0 && p1.abs() > 1.0 {
            p1 *= two_pow(-SCALE_BITS);
            p2 *= two_pow(-SCALE_BITS);
            e += 1;
        }
        out.push(unscale(p1, e));
    }
    out
}

/// Index of `(l, m)` in an m-major triangle of degree `lmax` (healpy/ducc0 order):
/// `m·(2·lmax + 1 − m)/2 + l`.
#[inline]
pub fn triangle_index(lmax: usize, l: usize, m: usize) -> usize {
    m * (2 * lmax + 1 - m) / 2 + l
}

/// Number of `(l, m)` pairs with `0 ≤ m ≤ l ≤ lmax`.
#[inline]
pub fn triangle_len(lmax: usize) -> usize {
    (lmax + 1) * (lmax + 2) / 2
}

/// Per-plan tables: recurrence coefficients for every (l, m) and, for every (m, ring pair), the
/// degree at which the function becomes significant together with the recurrence state there.
#[derive(Debug)]
pub struct LegendreTables {
    lmax: usize,
    /// Ring pairs, padded with dead lanes to a multiple of [`MAX_BLOCK`].
    padded: usize,
    /// cos θ of the northern ring of each pair (0 for padding).
    x: Vec<f64>,
    /// `A'_l` (m-major triangle, two spare entries at the end).
    amul: Vec<f64>,
    /// `c_lm` with `P̄_lm = c_lm·u_l`.
    scale: Vec<f64>,
    /// First significant degree per (m, pair); `u32::MAX` when never significant.
    live_l: Vec<u32>,
    /// `u` at the first significant degree.
    live_u1: Vec<f64>,
    /// `u` one degree earlier.
    live_u0: Vec<f64>,
}

/// Largest number of ring pairs one kernel block handles (4 vectors of 8 lanes).
pub const MAX_BLOCK: usize = 32;

impl LegendreTables {
    /// Tables for degree `lmax` at the northern rings of each pair: `x = cos θ ≥ 0` and
    /// `sin θ` (passed separately: recomputing it from x loses accuracy near the poles).
    pub fn new(lmax: usize, x_north: &[f64], sin_north: &[f64]) -> Self {
        let pairs = x_north.len();
        let padded = pairs.div_ceil(MAX_BLOCK).max(1) * MAX_BLOCK;
        let mut x = vec![0.0; padded];
        x[..pairs].copy_from_slice(x_north);
        let len = triangle_len(lmax);
        let mut amul = vec![0.0; len + 2];
        let mut scale = vec![0.0; len];
        for m in 0..=lmax {
            let base = triangle_index(lmax, m, m);
            let mf = m as f64;
            // γ_l (β products over every other degree), A_l, and the sign pattern s.
            let mut gamma = vec![1.0_f64; lmax + 1 - m];
            for l in m + 2..=lmax {
                let lf = l as f64;
                let beta = ((2.0 * lf + 1.0) * ((lf - 1.0).powi(2) - mf * mf)
                    / ((2.0 * lf - 3.0) * (lf * lf - mf * mf)))
                    .sqrt();
                gamma[l - m] = beta * gamma[l - m - 2];
            }
            let sign = |l: usize| if (l - m) % 4 < 2 { 1.0 } else { -1.0 };
            for l in m..=lmax {
                scale[base + l - m] = gamma[l - m] * sign(l);
                if l > m {
                    let lf = l as f64;
                    let alpha = ((4.0 * lf * lf - 1.0) / (lf * lf - mf * mf)).sqrt();
                    let a = alpha * gamma[l - m - 1] / gamma[l - m];
                    amul[base + l - m] = a * sign(l) * sign(l - 1);
                }
            }
        }
        // Scaled seeds P̄_mm per pair, m by m.
        let mut sin = vec![0.0; padded];
        sin[..pairs].copy_from_slice(&sin_north[..pairs]);
        let mut seeds: Vec<(f64, i32)> = Vec::with_capacity((lmax + 1) * padded);
        let mut current: Vec<(f64, i32)> = (0..padded)
            .map(|i| if i < pairs { (1.0, 0) } else { (0.0, 0) })
            .collect();
        for m in 0..=lmax {
            if m > 0 {
                let factor = ((2.0 * m as f64 + 1.0) / (2.0 * m as f64)).sqrt();
                for (state, s) in current.iter_mut().zip(&sin) {
                    state.0 *= factor * s;
                    if state.0 != 0.0 && state.0.abs() < two_pow(-SCALE_BITS) {
                        state.0 *= two_pow(SCALE_BITS);
                        state.1 -= 1;
                    }
                }
            }
            seeds.extend_from_slice(&current);
        }
        let mut live_l = vec![u32::MAX; (lmax + 1) * padded];
        let mut live_u1 = vec![0.0; (lmax + 1) * padded];
        let mut live_u0 = vec![0.0; (lmax + 1) * padded];
        live_l
            .par_chunks_mut(padded)
            .zip(live_u1.par_chunks_mut(padded))
            .zip(live_u0.par_chunks_mut(padded))
            .enumerate()
            .for_each(|(m, ((ll, u1), u0))| {
                let base = triangle_index(lmax, m, m);
                let amul_m = &amul[base..base + lmax + 1 - m];
                for i in 0..pairs {
                    let (v, e) = seeds[m * padded + i];
                    if let Some((l, a, b)) = first_significant(m, lmax, x[i], v, e, amul_m) {
                        ll[i] = l as u32;
                        u1[i] = a;
                        u0[i] = b;
                    }
                }
            });
        Self {
            lmax,
            padded,
            x,
            amul,
            scale,
            live_l,
            live_u1,
            live_u0,
        }
    }

    /// The degree the tables were built for.
    pub fn lmax(&self) -> usize {
        self.lmax
    }

    /// Ring pairs including padding.
    pub fn padded_pairs(&self) -> usize {
        self.padded
    }

    /// `c_lm`, the factor from the kernel's `u_l` to `P̄_lm`, for l = m..=lmax.
    pub fn scale_for(&self, m: usize) -> &[f64] {
        let base = triangle_index(self.lmax, m, m);
        &self.scale[base..base + self.lmax + 1 - m]
    }

    /// Synthesis for one m: given `(a_lm·c_lm)` split into real and imaginary parts (indexed by
    /// l − m), writes the symmetric and antisymmetric sums per ring pair:
    /// `Σ_{l−m even} a_lm P̄_lm(x)` and `Σ_{l−m odd} a_lm P̄_lm(x)`.
    pub fn synthesis_m(
        &self,
        arch: pulp::Arch,
        m: usize,
        coef_re: &[f64],
        coef_im: &[f64],
        out: &mut PairSums,
        scratch: &mut Vec<f64>,
    ) {
        arch.dispatch(SynthesisOp {
            tables: self,
            m,
            coef_re,
            coef_im,
            out,
            scratch,
        });
    }

    /// Analysis for one m: given the symmetric (north + south) and antisymmetric (north − south)
    /// weighted ring data, returns `Σ_pairs u_l·g` per degree (multiply by [`Self::scale_for`]
    /// to get coefficients) into `out_re`/`out_im`, indexed by l − m.
    pub fn analysis_m(
        &self,
        arch: pulp::Arch,
        m: usize,
        input: &PairSums,
        out_re: &mut [f64],
        out_im: &mut [f64],
        scratch: &mut Vec<f64>,
    ) {
        arch.dispatch(AnalysisOp {
            tables: self,
            m,
            input,
            out_re,
            out_im,
            scratch,
        });
    }

    fn block_range(&self, m: usize, start: usize, lanes: usize) -> Option<(usize, usize)> {
        let live = &self.live_l[m * self.padded + start..m * self.padded + start + lanes];
        let mut lo = u32::MAX;
        let mut hi = 0_u32;
        for &l in live {
            if l != u32::MAX {
                lo = lo.min(l);
                hi = hi.max(l);
            }
        }
        (lo != u32::MAX).then_some((lo as usize, hi as usize))
    }

    /// Fills `inj1`/`inj0` (each `(hi − lo + 1)·lanes`) with the states injected at each degree.
    fn injections(
        &self,
        m: usize,
        start: usize,
        lanes: usize,
        lo: usize,
        hi: usize,
        buf: &mut [f64],
    ) {
        let steps = hi - lo + 1;
        let (inj1, inj0) = buf.split_at_mut(steps * lanes);
        inj1.fill(0.0);
        inj0.fill(0.0);
        let base = m * self.padded + start;
        for lane in 0..lanes {
            let l = self.live_l[base + lane];
            if l != u32::MAX {
                let k = (l as usize - lo) * lanes + lane;
                inj1[k] = self.live_u1[base + lane];
                inj0[k] = self.live_u0[base + lane];
            }
        }
    }
}

/// Runs the scaled recurrence from the seed until the function is significant.
/// Returns `(l, u_l, u_{l−1})`, or `None` when it stays insignificant up to `lmax`.
fn first_significant(
    m: usize,
    lmax: usize,
    x: f64,
    seed: f64,
    exponent: i32,
    amul_m: &[f64],
) -> Option<(usize, f64, f64)> {
    if seed == 0.0 {
        return None;
    }
    let (mut u1, mut u0, mut e, mut l) = (seed, 0.0_f64, exponent, m);
    loop {
        if e == 0 && u1.abs() >= SIGNIFICANT {
            return Some((l, u1, u0));
        }
        if l == lmax {
            return None;
        }
        let next = amul_m[l + 1 - m] * x * u1 + u0;
        u0 = u1;
        u1 = next;
        l += 1;
        if e < 0 && u1.abs() > 1.0 {
            u1 *= two_pow(-SCALE_BITS);
            u0 *= two_pow(-SCALE_BITS);
            e += 1;
        }
    }
}

/// Per-ring-pair complex sums for one m: symmetric (l − m even) and antisymmetric parts.
#[derive(Clone, Debug)]
pub struct PairSums {
    /// Real part of the symmetric sum.
    pub sym_re: Vec<f64>,
    /// Imaginary part of the symmetric sum.
    pub sym_im: Vec<f64>,
    /// Real part of the antisymmetric sum.
    pub anti_re: Vec<f64>,
    /// Imaginary part of the antisymmetric sum.
    pub anti_im: Vec<f64>,
}

impl PairSums {
    /// Zeros for `padded` ring pairs.
    pub fn zeros(padded: usize) -> Self {
        Self {
            sym_re: vec![0.0; padded],
            sym_im: vec![0.0; padded],
            anti_re: vec![0.0; padded],
            anti_im: vec![0.0; padded],
        }
    }
}

struct SynthesisOp<'a> {
    tables: &'a LegendreTables,
    m: usize,
    coef_re: &'a [f64],
    coef_im: &'a [f64],
    out: &'a mut PairSums,
    scratch: &'a mut Vec<f64>,
}

impl WithSimd for SynthesisOp<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(mut self, simd: S) -> Self::Output {
        if S::F64_LANES >= 8 {
            synthesis_blocks::<S, 4>(simd, &mut self);
        } else {
            synthesis_blocks::<S, 2>(simd, &mut self);
        }
    }
}

#[inline(always)]
fn load<S: Simd, const NV: usize>(slice: &[f64]) -> [S::f64s; NV] {
    let (head, _) = S::as_simd_f64s(slice);
    core::array::from_fn(|v| head[v])
}

#[inline(always)]
fn store<S: Simd, const NV: usize>(slice: &mut [f64], values: &[S::f64s; NV]) {
    let (head, _) = S::as_mut_simd_f64s(slice);
    head[..NV].copy_from_slice(values);
}

#[inline(always)]
fn synthesis_blocks<S: Simd, const NV: usize>(simd: S, op: &mut SynthesisOp<'_>) {
    let t = op.tables;
    let lanes = NV * S::F64_LANES;
    let m = op.m;
    let lmax = t.lmax;
    let base = triangle_index(lmax, m, m);
    let amul = &t.amul[base..base + lmax + 3 - m];
    let zero = simd.splat_f64s(0.0);
    for start in (0..t.padded).step_by(lanes) {
        let end = start + lanes;
        let Some((lo, hi)) = t.block_range(m, start, lanes) else {
            op.out.sym_re[start..end].fill(0.0);
            op.out.sym_im[start..end].fill(0.0);
            op.out.anti_re[start..end].fill(0.0);
            op.out.anti_im[start..end].fill(0.0);
            continue;
        };
        let steps = hi - lo + 1;
        op.scratch.resize(2 * steps * lanes, 0.0);
        t.injections(m, start, lanes, lo, hi, op.scratch);
        let (inj1, inj0) = op.scratch.split_at(steps * lanes);
        let x: [S::f64s; NV] = load::<S, NV>(&t.x[start..end]);
        let mut u1 = [zero; NV];
        let mut u0 = [zero; NV];
        // acc[0]: l − m even (symmetric), acc[1]: odd (antisymmetric).
        let mut acc_re = [[zero; NV]; 2];
        let mut acc_im = [[zero; NV]; 2];
        // Phase 1: degrees lo..=hi with lanes joining as they become significant.
        for l in lo..=hi {
            let k = (l - lo) * lanes;
            let a1 = load::<S, NV>(&inj1[k..k + lanes]);
            let a0 = load::<S, NV>(&inj0[k..k + lanes]);
            for v in 0..NV {
                u1[v] = simd.add_f64s(u1[v], a1[v]);
                u0[v] = simd.add_f64s(u0[v], a0[v]);
            }
            let p = (l - m) & 1;
            let cr = simd.splat_f64s(op.coef_re[l - m]);
            let ci = simd.splat_f64s(op.coef_im[l - m]);
            for v in 0..NV {
                acc_re[p][v] = simd.mul_add_f64s(cr, u1[v], acc_re[p][v]);
                acc_im[p][v] = simd.mul_add_f64s(ci, u1[v], acc_im[p][v]);
            }
            let a = simd.splat_f64s(amul[l + 1 - m]);
            for v in 0..NV {
                let next = simd.mul_add_f64s(simd.mul_f64s(a, x[v]), u1[v], u0[v]);
                u0[v] = u1[v];
                u1[v] = next;
            }
        }
        // Phase 2: all lanes live; two degrees per iteration, swapping the roles of u0/u1.
        let mut l = hi + 1;
        let first = (l - m) & 1;
        let [mut ea_re, mut eb_re] = acc_re;
        let [mut ea_im, mut eb_im] = acc_im;
        if first == 1 {
            std::mem::swap(&mut ea_re, &mut eb_re);
            std::mem::swap(&mut ea_im, &mut eb_im);
        }
        // ea_*: parity of l, eb_*: parity of l + 1.
        while l < lmax {
            let cr = simd.splat_f64s(op.coef_re[l - m]);
            let ci = simd.splat_f64s(op.coef_im[l - m]);
            let a = simd.splat_f64s(amul[l + 1 - m]);
            for v in 0..NV {
                ea_re[v] = simd.mul_add_f64s(cr, u1[v], ea_re[v]);
                ea_im[v] = simd.mul_add_f64s(ci, u1[v], ea_im[v]);
                u0[v] = simd.mul_add_f64s(simd.mul_f64s(a, x[v]), u1[v], u0[v]);
            }
            let cr = simd.splat_f64s(op.coef_re[l + 1 - m]);
            let ci = simd.splat_f64s(op.coef_im[l + 1 - m]);
            let a = simd.splat_f64s(amul[l + 2 - m]);
            for v in 0..NV {
                eb_re[v] = simd.mul_add_f64s(cr, u0[v], eb_re[v]);
                eb_im[v] = simd.mul_add_f64s(ci, u0[v], eb_im[v]);
                u1[v] = simd.mul_add_f64s(simd.mul_f64s(a, x[v]), u0[v], u1[v]);
            }
            l += 2;
        }
        if l == lmax {
            let cr = simd.splat_f64s(op.coef_re[l - m]);
            let ci = simd.splat_f64s(op.coef_im[l - m]);
            for v in 0..NV {
                ea_re[v] = simd.mul_add_f64s(cr, u1[v], ea_re[v]);
                ea_im[v] = simd.mul_add_f64s(ci, u1[v], ea_im[v]);
            }
        }
        let (sym_re, sym_im, anti_re, anti_im) = if first == 0 {
            (ea_re, ea_im, eb_re, eb_im)
        } else {
            (eb_re, eb_im, ea_re, ea_im)
        };
        store::<S, NV>(&mut op.out.sym_re[start..end], &sym_re);
        store::<S, NV>(&mut op.out.sym_im[start..end], &sym_im);
        store::<S, NV>(&mut op.out.anti_re[start..end], &anti_re);
        store::<S, NV>(&mut op.out.anti_im[start..end], &anti_im);
    }
}

struct AnalysisOp<'a> {
    tables: &'a LegendreTables,
    m: usize,
    input: &'a PairSums,
    out_re: &'a mut [f64],
    out_im: &'a mut [f64],
    scratch: &'a mut Vec<f64>,
}

impl WithSimd for AnalysisOp<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(mut self, simd: S) -> Self::Output {
        if S::F64_LANES >= 8 {
            analysis_blocks::<S, 4>(simd, &mut self);
        } else {
            analysis_blocks::<S, 2>(simd, &mut self);
        }
    }
}

#[inline(always)]
fn analysis_blocks<S: Simd, const NV: usize>(simd: S, op: &mut AnalysisOp<'_>) {
    let t = op.tables;
    let lanes = NV * S::F64_LANES;
    let w = S::F64_LANES;
    let m = op.m;
    let lmax = t.lmax;
    let nl = lmax + 1 - m;
    let base = triangle_index(lmax, m, m);
    let amul = &t.amul[base..base + lmax + 3 - m];
    let zero = simd.splat_f64s(0.0);
    // Scratch: per-degree lane partial sums (re, im), then the injection tables.
    let mut max_steps = 0;
    let mut any = false;
    for start in (0..t.padded).step_by(lanes) {
        if let Some((lo, hi)) = t.block_range(m, start, lanes) {
            max_steps = max_steps.max(hi - lo + 1);
            any = true;
        }
    }
    op.out_re[..nl].fill(0.0);
    op.out_im[..nl].fill(0.0);
    if !any {
        return;
    }
    op.scratch.clear();
    op.scratch.resize(2 * nl * w + 2 * max_steps * lanes, 0.0);
    let (accs, inj) = op.scratch.split_at_mut(2 * nl * w);
    let (acc_re_all, acc_im_all) = accs.split_at_mut(nl * w);
    let (acc_re, _) = S::as_mut_simd_f64s(acc_re_all);
    let (acc_im, _) = S::as_mut_simd_f64s(acc_im_all);
    for start in (0..t.padded).step_by(lanes) {
        let end = start + lanes;
        let Some((lo, hi)) = t.block_range(m, start, lanes) else {
            continue;
        };
        let steps = hi - lo + 1;
        let inj = &mut inj[..2 * steps * lanes];
        t.injections(m, start, lanes, lo, hi, inj);
        let (inj1, inj0) = inj.split_at(steps * lanes);
        let x: [S::f64s; NV] = load::<S, NV>(&t.x[start..end]);
        let g_re = [
            load::<S, NV>(&op.input.sym_re[start..end]),
            load::<S, NV>(&op.input.anti_re[start..end]),
        ];
        let g_im = [
            load::<S, NV>(&op.input.sym_im[start..end]),
            load::<S, NV>(&op.input.anti_im[start..end]),
        ];
        let mut u1 = [zero; NV];
        let mut u0 = [zero; NV];
        for l in lo..=hi {
            let k = (l - lo) * lanes;
            let a1 = load::<S, NV>(&inj1[k..k + lanes]);
            let a0 = load::<S, NV>(&inj0[k..k + lanes]);
            for v in 0..NV {
                u1[v] = simd.add_f64s(u1[v], a1[v]);
                u0[v] = simd.add_f64s(u0[v], a0[v]);
            }
            let p = (l - m) & 1;
            let mut sr = acc_re[l - m];
            let mut si = acc_im[l - m];
            for v in 0..NV {
                sr = simd.mul_add_f64s(u1[v], g_re[p][v], sr);
                si = simd.mul_add_f64s(u1[v], g_im[p][v], si);
            }
            acc_re[l - m] = sr;
            acc_im[l - m] = si;
            let a = simd.splat_f64s(amul[l + 1 - m]);
            for v in 0..NV {
                let next = simd.mul_add_f64s(simd.mul_f64s(a, x[v]), u1[v], u0[v]);
                u0[v] = u1[v];
                u1[v] = next;
            }
        }
        let mut l = hi + 1;
        let first = (l - m) & 1;
        let (ga_re, gb_re) = (g_re[first], g_re[first ^ 1]);
        let (ga_im, gb_im) = (g_im[first], g_im[first ^ 1]);
        while l < lmax {
            let a = simd.splat_f64s(amul[l + 1 - m]);
            let mut sr = acc_re[l - m];
            let mut si = acc_im[l - m];
            for v in 0..NV {
                sr = simd.mul_add_f64s(u1[v], ga_re[v], sr);
                si = simd.mul_add_f64s(u1[v], ga_im[v], si);
                u0[v] = simd.mul_add_f64s(simd.mul_f64s(a, x[v]), u1[v], u0[v]);
            }
            acc_re[l - m] = sr;
            acc_im[l - m] = si;
            let a = simd.splat_f64s(amul[l + 2 - m]);
            let mut sr = acc_re[l + 1 - m];
            let mut si = acc_im[l + 1 - m];
            for v in 0..NV {
                sr = simd.mul_add_f64s(u0[v], gb_re[v], sr);
                si = simd.mul_add_f64s(u0[v], gb_im[v], si);
                u1[v] = simd.mul_add_f64s(simd.mul_f64s(a, x[v]), u0[v], u1[v]);
            }
            acc_re[l + 1 - m] = sr;
            acc_im[l + 1 - m] = si;
            l += 2;
        }
        if l == lmax {
            let mut sr = acc_re[l - m];
            let mut si = acc_im[l - m];
            for v in 0..NV {
                sr = simd.mul_add_f64s(u1[v], ga_re[v], sr);
                si = simd.mul_add_f64s(u1[v], ga_im[v], si);
            }
            acc_re[l - m] = sr;
            acc_im[l - m] = si;
        }
    }
    for k in 0..nl {
        op.out_re[k] = simd.reduce_sum_f64s(acc_re[k]);
        op.out_im[k] = simd.reduce_sum_f64s(acc_im[k]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct closed forms of P̄_lm (4π normalisation, no Condon–Shortley phase).
    fn closed_form(l: usize, m: usize, x: f64) -> f64 {
        let s = (1.0 - x * x).sqrt();
        match (l, m) {
            (0, 0) => 1.0,
            (1, 0) => 3.0_f64.sqrt() * x,
            (1, 1) => (1.5_f64).sqrt() * s,
            (2, 0) => 5.0_f64.sqrt() * 0.5 * (3.0 * x * x - 1.0),
            (2, 1) => (15.0_f64 / 2.0).sqrt() * x * s,
            (2, 2) => (15.0_f64 / 8.0).sqrt() * s * s,
            (3, 0) => 7.0_f64.sqrt() * 0.5 * (5.0 * x * x * x - 3.0 * x),
            (3, 1) => (21.0_f64 / 16.0).sqrt() * s * (5.0 * x * x - 1.0),
            (3, 2) => (105.0_f64 / 8.0).sqrt() * x * s * s,
            (3, 3) => (35.0_f64 / 16.0).sqrt() * s * s * s,
            _ => unreachable!(),
        }
    }

    #[test]
    fn small_degrees_match_closed_forms() {
        for &x in &[-0.9, -0.3, 0.0, 0.2, 0.77, 1.0] {
            for m in 0..=3 {
                let column = legendre_column(3, m, x);
                for l in m..=3 {
                    let exact = closed_form(l, m, x);
                    assert!(
                        (column[l - m] - exact).abs() < 1e-14,
                        "l={l} m={m} x={x}: {} vs {exact}",
                        column[l - m]
                    );
                }
            }
        }
    }

    #[test]
    fn high_degree_functions_are_normalised_and_finite() {
        // ½∫P̄² dx = 1 by Gauss–Legendre quadrature, including m near lmax (seed underflow).
        let lmax = 1200;
        let (nodes, weights) = crate::grid::gauss_legendre(lmax + 2);
        for m in [0, 1, 500, 1199, 1200] {
            let mut norms = vec![0.0; lmax + 1 - m];
            for (x, w) in nodes.iter().zip(&weights) {
                for (k, p) in legendre_column(lmax, m, *x).iter().enumerate() {
                    assert!(p.is_finite());
                    norms[k] += 0.5 * w * p * p;
                }
            }
            for (k, n) in norms.iter().enumerate() {
                assert!((n - 1.0).abs() < 1e-11, "l={} m={m}: {n}", m + k);
            }
        }
    }
}
