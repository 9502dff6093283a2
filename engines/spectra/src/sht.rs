//! Forward (analysis) and inverse (synthesis) spherical harmonic transforms of real fields.
//!
//! Convention: `f(θ, φ) = Σ_{l ≤ lmax} Σ_{|m| ≤ l} a_lm Y_lm(θ, φ)` with the 4π-normalised
//! harmonics of [`crate::legendre`] (`Y_00 = 1`, unit mean square, no Condon–Shortley phase)
//! and `a_{l,−m} = conj(a_lm)` for real fields, so only `m ≥ 0` is stored ([`Coeffs`]).
//! Hence `a_00` is the area mean and `mean(f²) = Σ_l (|a_l0|² + 2 Σ_{m≥1} |a_lm|²)`.
//!
//! Steps: a real FFT along each latitude ring (realfft), then the Legendre stage per m over
//! north/south ring pairs ([`crate::legendre`]), parallel over m with rayon.
//!
//! Quadrature: Gauss grids use Gauss–Legendre weights (exact to lmax = nlat − 1). Equiangular
//! grids with poles use Clenshaw–Curtis weights when 2·lmax ≤ nlat − 1; above that (up to
//! lmax = nlat − 2) each meridian circle (longitudes φ and φ + π) is resampled: the values are
//! interpolated by a trigonometric polynomial in θ, multiplied on a finer grid by |sin θ|
//! truncated to the needed degree, projected back to degree ≤ lmax and evaluated on the original
//! rings, where the trapezoidal rule is then exact. This is the same idea as ducc0's "CC"
//! analysis (temporary upsampling along meridians) and costs four real FFTs per meridian circle.

use std::sync::Arc;

use benchtop_compute::ComputeError;
use num_complex::Complex64;
use rayon::prelude::*;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use serde::{Deserialize, Serialize};

use crate::grid::{Grid, GridKind, clenshaw_curtis_weights, gauss_legendre};
use crate::legendre::{LegendreTables, PairSums, triangle_index, triangle_len};

/// Spherical harmonic coefficients `a_lm` of a real field, `0 ≤ m ≤ l ≤ lmax`.
///
/// Stored m-major (healpy/ducc0 order): index `m·(2·lmax + 1 − m)/2 + l`. `a_l0` must be real
/// for a real field; the inverse transform ignores its imaginary part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Coeffs {
    lmax: usize,
    data: Vec<Complex64>,
}

impl Coeffs {
    /// All-zero coefficients up to degree `lmax`.
    pub fn zeros(lmax: usize) -> Self {
        Self {
            lmax,
            data: vec![Complex64::new(0.0, 0.0); triangle_len(lmax)],
        }
    }

    /// Wraps `data` in the m-major order above; errors unless it has (lmax+1)(lmax+2)/2 entries.
    pub fn from_vec(lmax: usize, data: Vec<Complex64>) -> Result<Self, ComputeError> {
        if data.len() != triangle_len(lmax) {
            return Err(ComputeError::invalid(
                "coeffs",
                format!(
                    "lmax {lmax} needs {} coefficients, got {}",
                    triangle_len(lmax),
                    data.len()
                ),
            ));
        }
        Ok(Self { lmax, data })
    }

    /// The largest degree.
    pub fn lmax(&self) -> usize {
        self.lmax
    }

    /// Position of `(l, m)` in [`Coeffs::data`]. Panics unless `m ≤ l ≤ lmax`.
    pub fn index(&self, l: usize, m: usize) -> usize {
        assert!(
            m <= l && l <= self.lmax,
            "(l, m) = ({l}, {m}) outside lmax {}",
            self.lmax
        );
        triangle_index(self.lmax, l, m)
    }

    /// `a_lm`. Panics unless `m ≤ l ≤ lmax`.
    pub fn get(&self, l: usize, m: usize) -> Complex64 {
        self.data[self.index(l, m)]
    }

    /// Sets `a_lm`. Panics unless `m ≤ l ≤ lmax`.
    pub fn set(&mut self, l: usize, m: usize, value: Complex64) {
        let index = self.index(l, m);
        self.data[index] = value;
    }

    /// All coefficients in m-major order.
    pub fn data(&self) -> &[Complex64] {
        &self.data
    }

    /// All coefficients in m-major order, mutable.
    pub fn data_mut(&mut self) -> &mut [Complex64] {
        &mut self.data
    }

    /// The coefficients `a_lm` for `l = m..=lmax` (contiguous).
    pub fn column(&self, m: usize) -> &[Complex64] {
        let start = triangle_index(self.lmax, m, m);
        &self.data[start..start + self.lmax + 1 - m]
    }

    /// A copy cut down to (or zero-padded up to) degree `lmax`.
    pub fn with_lmax(&self, lmax: usize) -> Self {
        let mut out = Self::zeros(lmax);
        for m in 0..=lmax.min(self.lmax) {
            for l in m..=lmax.min(self.lmax) {
                out.set(l, m, self.get(l, m));
            }
        }
        out
    }

    /// Applies `f(l, a_lm)` to every coefficient.
    pub fn map_by_degree(&self, f: impl Fn(usize, Complex64) -> Complex64) -> Self {
        let mut out = self.clone();
        for m in 0..=self.lmax {
            for l in m..=self.lmax {
                let index = triangle_index(self.lmax, l, m);
                out.data[index] = f(l, self.data[index]);
            }
        }
        out
    }
}

/// Meridional resampling that makes equiangular analysis exact up to lmax = nlat − 2.
struct MeridianResampler {
    /// Points on a meridian circle, 2·(nlat − 1).
    circle: usize,
    /// Points on the fine circle.
    fine: usize,
    lmax: usize,
    to_coarse_spectrum: Arc<dyn RealToComplex<f64>>,
    to_fine_values: Arc<dyn ComplexToReal<f64>>,
    to_fine_spectrum: Arc<dyn RealToComplex<f64>>,
    to_coarse_values: Arc<dyn ComplexToReal<f64>>,
    /// |sin θ| truncated to degree (nlat − 1) + lmax on the fine grid, times 1/(circle·fine).
    weight: Vec<f64>,
}

/// Columns handled together by the resampler (one cache line of f64 per row).
const COLUMN_BLOCK: usize = 8;

struct CircleScratch {
    circle: Vec<f64>,
    coarse: Vec<Complex64>,
    fine_values: Vec<f64>,
    fine: Vec<Complex64>,
    scratch: Vec<Complex64>,
}

impl MeridianResampler {
    fn new(
        planner: &mut RealFftPlanner<f64>,
        nlat: usize,
        lmax: usize,
    ) -> Result<Self, ComputeError> {
        let half = nlat - 1;
        let circle = 2 * half;
        let fine = nice_even_size(2 * half + 2 * lmax + 1);
        let to_coarse_spectrum = planner.plan_fft_forward(circle);
        let to_coarse_values = planner.plan_fft_inverse(circle);
        let to_fine_spectrum = planner.plan_fft_forward(fine);
        let to_fine_values = planner.plan_fft_inverse(fine);
        // Fourier series of |sin θ|: 2/π + Σ_{even s ≥ 2} 4/(π(1 − s²)) cos sθ, up to s = half + lmax.
        let top = half + lmax;
        let mut spectrum = vec![Complex64::new(0.0, 0.0); fine / 2 + 1];
        spectrum[0] = Complex64::new(2.0 / std::f64::consts::PI, 0.0);
        for s in (2..=top).step_by(2) {
            let sf = s as f64;
            spectrum[s] = Complex64::new(2.0 / (std::f64::consts::PI * (1.0 - sf * sf)), 0.0);
        }
        let mut weight = vec![0.0; fine];
        let mut scratch = to_fine_values.make_scratch_vec();
        to_fine_values
            .process_with_scratch(&mut spectrum, &mut weight, &mut scratch)
            .map_err(|e| ComputeError::Numerical(format!("resampling weights: {e}")))?;
        let norm = 1.0 / (circle as f64 * fine as f64);
        for w in &mut weight {
            *w *= norm;
        }
        Ok(Self {
            circle,
            fine,
            lmax,
            to_coarse_spectrum,
            to_fine_values,
            to_fine_spectrum,
            to_coarse_values,
            weight,
        })
    }

    fn scratch(&self) -> CircleScratch {
        let len = [
            self.to_coarse_spectrum.get_scratch_len(),
            self.to_fine_values.get_scratch_len(),
            self.to_fine_spectrum.get_scratch_len(),
            self.to_coarse_values.get_scratch_len(),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        CircleScratch {
            circle: vec![0.0; self.circle],
            coarse: vec![Complex64::new(0.0, 0.0); self.circle / 2 + 1],
            fine_values: vec![0.0; self.fine],
            fine: vec![Complex64::new(0.0, 0.0); self.fine / 2 + 1],
            scratch: vec![Complex64::new(0.0, 0.0); len],
        }
    }

    /// Replaces `s.circle` by its weighted projection (see the module docs).
    fn process_circle(&self, s: &mut CircleScratch) -> Result<(), ComputeError> {
        let half = self.circle / 2;
        let fail = |e: realfft::FftError| ComputeError::Numerical(format!("meridian FFT: {e}"));
        self.to_coarse_spectrum
            .process_with_scratch(&mut s.circle, &mut s.coarse, &mut s.scratch)
            .map_err(fail)?;
        s.fine.fill(Complex64::new(0.0, 0.0));
        s.fine[..half].copy_from_slice(&s.coarse[..half]);
        s.fine[half] = s.coarse[half] * 0.5;
        self.to_fine_values
            .process_with_scratch(&mut s.fine, &mut s.fine_values, &mut s.scratch)
            .map_err(fail)?;
        for (v, w) in s.fine_values.iter_mut().zip(&self.weight) {
            *v *= w;
        }
        self.to_fine_spectrum
            .process_with_scratch(&mut s.fine_values, &mut s.fine, &mut s.scratch)
            .map_err(fail)?;
        s.coarse.fill(Complex64::new(0.0, 0.0));
        s.coarse[..=self.lmax].copy_from_slice(&s.fine[..=self.lmax]);
        s.coarse[0].im = 0.0;
        self.to_coarse_values
            .process_with_scratch(&mut s.coarse, &mut s.circle, &mut s.scratch)
            .map_err(fail)?;
        Ok(())
    }

    /// The weighted map whose plain ring sums give exact coefficients (poles: first half of
    /// the longitudes only).
    fn apply(&self, field: &[f64], nlat: usize, nlon: usize) -> Result<Vec<f64>, ComputeError> {
        let half_lon = nlon / 2;
        let half = nlat - 1;
        let blocks = half_lon.div_ceil(COLUMN_BLOCK);
        let results: Vec<Vec<f64>> = (0..blocks)
            .into_par_iter()
            .map_init(
                || self.scratch(),
                |s, b| {
                    let j0 = b * COLUMN_BLOCK;
                    let nc = COLUMN_BLOCK.min(half_lon - j0);
                    let mut gathered = vec![0.0; self.circle * nc];
                    for i in 0..nlat {
                        let row = &field[i * nlon..(i + 1) * nlon];
                        gathered[i * nc..i * nc + nc].copy_from_slice(&row[j0..j0 + nc]);
                        if i > 0 && i < half {
                            let k = self.circle - i;
                            gathered[k * nc..k * nc + nc]
                                .copy_from_slice(&row[j0 + half_lon..j0 + half_lon + nc]);
                        }
                    }
                    for c in 0..nc {
                        for (i, v) in s.circle.iter_mut().enumerate() {
                            *v = gathered[i * nc + c];
                        }
                        self.process_circle(s)?;
                        for (i, v) in s.circle.iter().enumerate() {
                            gathered[i * nc + c] = *v;
                        }
                    }
                    Ok(gathered)
                },
            )
            .collect::<Result<_, ComputeError>>()?;
        let mut out = vec![0.0; nlat * nlon];
        out.par_chunks_mut(nlon).enumerate().for_each(|(i, row)| {
            for (b, block) in results.iter().enumerate() {
                let j0 = b * COLUMN_BLOCK;
                let nc = COLUMN_BLOCK.min(half_lon - j0);
                row[j0..j0 + nc].copy_from_slice(&block[i * nc..i * nc + nc]);
                if i > 0 && i < half {
                    let k = self.circle - i;
                    row[j0 + half_lon..j0 + half_lon + nc]
                        .copy_from_slice(&block[k * nc..k * nc + nc]);
                }
            }
        });
        Ok(out)
    }
}

/// The meridional resampling in the m domain, for the GPU path: two `nlat × nlat` matrices
/// (even m first, then odd m), row-major, mapping the ring spectra `F_m(θ_i')` (DFT divided by
/// nlon) to weighted values whose plain Legendre sums are the exact coefficients.
pub(crate) fn meridian_matrices(nlat: usize, lmax: usize) -> Result<Vec<f64>, ComputeError> {
    let mut planner = RealFftPlanner::<f64>::new();
    let resampler = MeridianResampler::new(&mut planner, nlat, lmax)?;
    let half = nlat - 1;
    let factor = std::f64::consts::PI / (4.0 * half as f64);
    let mut out = vec![0.0; 2 * nlat * nlat];
    let mut s = resampler.scratch();
    for parity in 0..2 {
        for column in 0..nlat {
            s.circle.fill(0.0);
            s.circle[column] = 1.0;
            if column > 0 && column < half {
                s.circle[2 * half - column] = if parity == 0 { 1.0 } else { -1.0 };
            }
            resampler.process_circle(&mut s)?;
            for row in 0..nlat {
                let tau = if row == 0 || row == half { 1.0 } else { 2.0 };
                out[parity * nlat * nlat + row * nlat + column] = tau * factor * s.circle[row];
            }
        }
    }
    Ok(out)
}

/// The smallest even size ≥ `n` whose prime factors are 2, 3, 5 and 7.
fn nice_even_size(n: usize) -> usize {
    let mut size = n.max(2).next_multiple_of(2);
    loop {
        let mut rest = size;
        for p in [2, 3, 5, 7] {
            while rest.is_multiple_of(p) {
                rest /= p;
            }
        }
        if rest == 1 {
            return size;
        }
        size += 2;
    }
}

/// A transform plan for one grid and degree: FFT plans, Legendre tables and weights.
///
/// Building it costs about as much as a few transforms; reuse it for many fields.
pub struct Sht {
    grid: Grid,
    lmax: usize,
    pairs: usize,
    tables: LegendreTables,
    ring_weight: Vec<f64>,
    forward_fft: Arc<dyn RealToComplex<f64>>,
    inverse_fft: Arc<dyn ComplexToReal<f64>>,
    resampler: Option<MeridianResampler>,
    arch: pulp::Arch,
}

impl std::fmt::Debug for Sht {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sht")
            .field("grid", &self.grid)
            .field("lmax", &self.lmax)
            .field("resampled", &self.resampler.is_some())
            .finish_non_exhaustive()
    }
}

impl Sht {
    /// A plan for fields on `grid` up to degree `lmax` (at most [`Grid::max_lmax`]; equiangular
    /// grids with lmax > (nlat − 1)/2 also need an even `nlon`).
    pub fn new(grid: &Grid, lmax: usize) -> Result<Self, ComputeError> {
        let grid = Grid::new(grid.kind, grid.nlat, grid.nlon)?;
        if lmax > grid.max_lmax() {
            return Err(ComputeError::invalid(
                "lmax",
                format!(
                    "lmax {lmax} is too large for a {} {}×{} grid (at most {})",
                    grid.kind.name(),
                    grid.nlat,
                    grid.nlon,
                    grid.max_lmax()
                ),
            ));
        }
        let (nlat, nlon) = (grid.nlat, grid.nlon);
        let (x, sin, quadrature) = match grid.kind {
            GridKind::Equiangular => {
                let step = std::f64::consts::PI / (nlat - 1) as f64;
                let theta: Vec<f64> = (0..nlat).map(|i| i as f64 * step).collect();
                (
                    theta.iter().map(|t| t.cos()).collect::<Vec<_>>(),
                    theta.iter().map(|t| t.sin()).collect::<Vec<_>>(),
                    clenshaw_curtis_weights(nlat),
                )
            }
            GridKind::GaussLegendre => {
                let (x, w) = gauss_legendre(nlat);
                let sin = x
                    .iter()
                    .map(|x| ((1.0 - x) * (1.0 + x)).max(0.0).sqrt())
                    .collect();
                (x, sin, w)
            }
        };
        let pairs = nlat.div_ceil(2);
        let mut x_north: Vec<f64> = x[..pairs].to_vec();
        let mut sin_north: Vec<f64> = sin[..pairs].to_vec();
        if nlat % 2 == 1 {
            x_north[pairs - 1] = 0.0;
            sin_north[pairs - 1] = 1.0;
        }
        let tables = LegendreTables::new(lmax, &x_north, &sin_north);
        let mut planner = RealFftPlanner::<f64>::new();
        let forward_fft = planner.plan_fft_forward(nlon);
        let inverse_fft = planner.plan_fft_inverse(nlon);
        let needs_resampling = grid.kind == GridKind::Equiangular && 2 * lmax > nlat - 1;
        let (resampler, ring_weight) = if needs_resampling {
            if nlon % 2 != 0 {
                return Err(ComputeError::invalid(
                    "nlon",
                    format!(
                        "equiangular analysis above lmax {} needs an even number of longitudes (got {nlon})",
                        (nlat - 1) / 2
                    ),
                ));
            }
            let resampler = MeridianResampler::new(&mut planner, nlat, lmax)?;
            let w = std::f64::consts::PI / (2.0 * (nlat - 1) as f64) / nlon as f64;
            (Some(resampler), vec![w; nlat])
        } else {
            (
                None,
                quadrature.iter().map(|w| w / 2.0 / nlon as f64).collect(),
            )
        };
        Ok(Self {
            grid,
            lmax,
            pairs,
            tables,
            ring_weight,
            forward_fft,
            inverse_fft,
            resampler,
            arch: pulp::Arch::new(),
        })
    }

    /// The grid.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The largest degree.
    pub fn lmax(&self) -> usize {
        self.lmax
    }

    /// The SIMD instruction set the Legendre kernels dispatch to (e.g. `V4` = AVX-512).
    pub fn simd_level(&self) -> String {
        format!("{:?}", self.arch)
    }

    /// Whether equiangular analysis uses meridional resampling (lmax > (nlat − 1)/2).
    pub fn resamples(&self) -> bool {
        self.resampler.is_some()
    }

    /// Analysis: the coefficients of a real field (row-major `nlat × nlon`, north first).
    pub fn forward(&self, field: &[f64]) -> Result<Coeffs, ComputeError> {
        self.grid.check_field(field)?;
        let (nlat, nlon, lmax) = (self.grid.nlat, self.grid.nlon, self.lmax);
        let resampled;
        let source: &[f64] = match &self.resampler {
            Some(r) => {
                resampled = r.apply(field, nlat, nlon)?;
                &resampled
            }
            None => field,
        };
        let nm = lmax + 1;
        let mut spectra = vec![Complex64::new(0.0, 0.0); nlat * nm];
        let fft = &self.forward_fft;
        spectra
            .par_chunks_mut(nm)
            .zip(source.par_chunks(nlon))
            .enumerate()
            .try_for_each_init(
                || {
                    (
                        fft.make_input_vec(),
                        fft.make_output_vec(),
                        fft.make_scratch_vec(),
                    )
                },
                |(input, output, scratch), (i, (dst, row))| {
                    input.copy_from_slice(row);
                    fft.process_with_scratch(input, output, scratch)
                        .map_err(|e| ComputeError::Numerical(format!("ring FFT: {e}")))?;
                    let w = self.ring_weight[i];
                    for (d, o) in dst.iter_mut().zip(output.iter()) {
                        *d = o * w;
                    }
                    Ok::<(), ComputeError>(())
                },
            )?;
        let mut coeffs = Coeffs::zeros(lmax);
        let columns = split_columns(&mut coeffs.data, lmax);
        let padded = self.tables.padded_pairs();
        columns.into_par_iter().enumerate().for_each_init(
            || {
                (
                    PairSums::zeros(padded),
                    vec![0.0; nm],
                    vec![0.0; nm],
                    Vec::new(),
                )
            },
            |(sums, out_re, out_im, scratch), (m, column)| {
                for i in 0..self.pairs {
                    let north = spectra[i * nm + m];
                    let south_ring = nlat - 1 - i;
                    let south = if south_ring == i {
                        Complex64::new(0.0, 0.0)
                    } else {
                        spectra[south_ring * nm + m]
                    };
                    sums.sym_re[i] = north.re + south.re;
                    sums.sym_im[i] = north.im + south.im;
                    sums.anti_re[i] = north.re - south.re;
                    sums.anti_im[i] = north.im - south.im;
                }
                let nl = lmax + 1 - m;
                self.tables.analysis_m(
                    self.arch,
                    m,
                    sums,
                    &mut out_re[..nl],
                    &mut out_im[..nl],
                    scratch,
                );
                let scale = self.tables.scale_for(m);
                for (k, c) in column.iter_mut().enumerate() {
                    *c = Complex64::new(out_re[k] * scale[k], out_im[k] * scale[k]);
                }
                if m == 0 {
                    for c in column.iter_mut() {
                        c.im = 0.0;
                    }
                }
            },
        );
        Ok(coeffs)
    }

    /// Synthesis: the real field (row-major `nlat × nlon`) with coefficients `coeffs`.
    /// Coefficients above this plan's lmax are an error; fewer are zero-padded.
    pub fn inverse(&self, coeffs: &Coeffs) -> Result<Vec<f64>, ComputeError> {
        if coeffs.lmax() > self.lmax {
            return Err(ComputeError::invalid(
                "coeffs",
                format!(
                    "coefficients go to lmax {}, the transform only to {}",
                    coeffs.lmax(),
                    self.lmax
                ),
            ));
        }
        if let Some(bad) = coeffs
            .data()
            .iter()
            .position(|c| !c.re.is_finite() || !c.im.is_finite())
        {
            return Err(ComputeError::invalid(
                "coeffs",
                format!("coefficient {bad} is not finite"),
            ));
        }
        let padded_coeffs;
        let coeffs = if coeffs.lmax() < self.lmax {
            padded_coeffs = coeffs.with_lmax(self.lmax);
            &padded_coeffs
        } else {
            coeffs
        };
        let (nlat, nlon, lmax) = (self.grid.nlat, self.grid.nlon, self.lmax);
        let nm = lmax + 1;
        let padded = self.tables.padded_pairs();
        let mut legendre = vec![Complex64::new(0.0, 0.0); nm * nlat];
        legendre.par_chunks_mut(nlat).enumerate().for_each_init(
            || {
                (
                    PairSums::zeros(padded),
                    vec![0.0; nm],
                    vec![0.0; nm],
                    Vec::new(),
                )
            },
            |(sums, coef_re, coef_im, scratch), (m, out)| {
                let scale = self.tables.scale_for(m);
                let column = coeffs.column(m);
                let nl = lmax + 1 - m;
                for k in 0..nl {
                    coef_re[k] = column[k].re * scale[k];
                    coef_im[k] = if m == 0 { 0.0 } else { column[k].im * scale[k] };
                }
                self.tables.synthesis_m(
                    self.arch,
                    m,
                    &coef_re[..nl],
                    &coef_im[..nl],
                    sums,
                    scratch,
                );
                for i in 0..self.pairs {
                    let (sr, si) = (sums.sym_re[i], sums.sym_im[i]);
                    let (ar, ai) = (sums.anti_re[i], sums.anti_im[i]);
                    out[i] = Complex64::new(sr + ar, si + ai);
                    let south = nlat - 1 - i;
                    if south != i {
                        out[south] = Complex64::new(sr - ar, si - ai);
                    }
                }
            },
        );
        let mut field = vec![0.0; nlat * nlon];
        let fft = &self.inverse_fft;
        field.par_chunks_mut(nlon).enumerate().try_for_each_init(
            || (fft.make_input_vec(), fft.make_scratch_vec()),
            |(spectrum, scratch), (i, row)| {
                spectrum.fill(Complex64::new(0.0, 0.0));
                for m in 0..nm {
                    spectrum[m] = legendre[m * nlat + i];
                }
                spectrum[0].im = 0.0;
                fft.process_with_scratch(spectrum, row, scratch)
                    .map_err(|e| ComputeError::Numerical(format!("ring FFT: {e}")))
            },
        )?;
        Ok(field)
    }

    /// [`Sht::forward`] for many fields (in parallel).
    pub fn forward_batch(&self, fields: &[&[f64]]) -> Result<Vec<Coeffs>, ComputeError> {
        fields.par_iter().map(|f| self.forward(f)).collect()
    }

    /// [`Sht::inverse`] for many coefficient sets (in parallel).
    pub fn inverse_batch(&self, coeffs: &[&Coeffs]) -> Result<Vec<Vec<f64>>, ComputeError> {
        coeffs.par_iter().map(|c| self.inverse(c)).collect()
    }
}

/// Splits m-major coefficient storage into one mutable column per m.
fn split_columns(data: &mut [Complex64], lmax: usize) -> Vec<&mut [Complex64]> {
    let mut columns = Vec::with_capacity(lmax + 1);
    let mut rest = data;
    for m in 0..=lmax {
        let (column, tail) = rest.split_at_mut(lmax + 1 - m);
        columns.push(column);
        rest = tail;
    }
    columns
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legendre::legendre_column;
    use rand::Rng as _;

    fn random_coeffs(lmax: usize, seed: u64) -> Coeffs {
        let mut rng = benchtop_compute::rng::seeded(seed);
        let mut c = Coeffs::zeros(lmax);
        for m in 0..=lmax {
            for l in m..=lmax {
                let re: f64 = rng.random_range(-1.0..1.0);
                let im: f64 = if m == 0 {
                    0.0
                } else {
                    rng.random_range(-1.0..1.0)
                };
                c.set(l, m, Complex64::new(re, im));
            }
        }
        c
    }

    fn max_diff(a: &Coeffs, b: &Coeffs) -> f64 {
        a.data()
            .iter()
            .zip(b.data())
            .map(|(x, y)| (x - y).norm())
            .fold(0.0, f64::max)
    }

    fn round_trip(kind: GridKind, nlat: usize, nlon: usize, lmax: usize) -> f64 {
        let grid = Grid::new(kind, nlat, nlon).unwrap();
        let sht = Sht::new(&grid, lmax).unwrap();
        let c = random_coeffs(lmax, 11);
        let field = sht.inverse(&c).unwrap();
        let back = sht.forward(&field).unwrap();
        max_diff(&c, &back)
    }

    #[test]
    fn single_harmonics_match_the_direct_formula_and_round_trip() {
        let grid = Grid::new(GridKind::Equiangular, 19, 36).unwrap();
        let sht = Sht::new(&grid, 17).unwrap();
        let colat = grid.colatitudes_rad();
        let lon: Vec<f64> = grid
            .longitudes_deg()
            .iter()
            .map(|d| d.to_radians())
            .collect();
        for (l, m) in [(0, 0), (1, 0), (1, 1), (5, 3), (12, 0), (17, 17), (16, 9)] {
            let mut c = Coeffs::zeros(17);
            c.set(l, m, Complex64::new(0.6, if m == 0 { 0.0 } else { -0.3 }));
            let field = sht.inverse(&c).unwrap();
            // Real field: a Y_lm + conj(a) Y_l,−m = 2 Re(a e^{imφ}) P̄_lm (m > 0).
            for (i, theta) in colat.iter().enumerate() {
                let p = legendre_column(l, m, theta.cos())[l - m];
                for (j, phi) in lon.iter().enumerate() {
                    let phase = Complex64::from_polar(1.0, m as f64 * phi);
                    let a = c.get(l, m);
                    let expected = if m == 0 {
                        a.re * p
                    } else {
                        2.0 * (a * phase).re * p
                    };
                    let got = field[i * 36 + j];
                    assert!((got - expected).abs() < 1e-13, "l={l} m={m} i={i} j={j}");
                }
            }
            let back = sht.forward(&field).unwrap();
            assert!(max_diff(&c, &back) < 1e-13, "round trip of Y_{l}^{m}");
        }
    }

    #[test]
    fn random_band_limited_fields_round_trip_on_every_supported_layout() {
        for (kind, nlat, nlon, lmax) in [
            (GridKind::Equiangular, 73, 144, 71),
            (GridKind::Equiangular, 73, 144, 36),
            (GridKind::Equiangular, 73, 144, 20),
            (GridKind::GaussLegendre, 64, 128, 63),
            (GridKind::GaussLegendre, 65, 131, 64),
            (GridKind::Equiangular, 4, 6, 2),
        ] {
            let err = round_trip(kind, nlat, nlon, lmax);
            assert!(err < 1e-12, "{kind:?} {nlat}×{nlon} lmax {lmax}: {err:e}");
        }
    }

    #[test]
    fn round_trip_181_by_360_at_full_degree() {
        let err = round_trip(GridKind::Equiangular, 181, 360, 179);
        assert!(err < 1e-11, "{err:e}");
    }

    #[test]
    #[ignore = "large: run with --release -- --ignored"]
    fn round_trip_era5_grid_at_lmax_719() {
        let err = round_trip(GridKind::Equiangular, 721, 1440, 719);
        assert!(err < 1e-10, "{err:e}");
        let err = round_trip(GridKind::GaussLegendre, 720, 1440, 719);
        assert!(err < 1e-10, "{err:e}");
    }

    #[test]
    fn parseval_and_mean() {
        let grid = Grid::new(GridKind::GaussLegendre, 48, 96).unwrap();
        let sht = Sht::new(&grid, 47).unwrap();
        let c = random_coeffs(47, 5);
        let field = sht.inverse(&c).unwrap();
        let squared: Vec<f64> = field.iter().map(|v| v * v).collect();
        let mean_square = grid.mean(&squared).unwrap();
        let spectral: f64 = crate::spectrum::psd(&c).iter().sum();
        assert!((mean_square - spectral).abs() < 1e-11 * spectral);
        assert!((grid.mean(&field).unwrap() - c.get(0, 0).re).abs() < 1e-13);
    }

    #[test]
    fn rejects_bad_inputs() {
        let grid = Grid::new(GridKind::Equiangular, 73, 144).unwrap();
        assert!(Sht::new(&grid, 72).is_err());
        let odd = Grid::new(GridKind::Equiangular, 73, 145).unwrap();
        assert!(Sht::new(&odd, 60).is_err());
        assert!(Sht::new(&odd, 36).is_ok());
        let sht = Sht::new(&grid, 20).unwrap();
        assert!(sht.forward(&[0.0; 10]).is_err());
        assert!(sht.inverse(&Coeffs::zeros(21)).is_err());
        assert!(sht.inverse(&Coeffs::zeros(5)).is_ok());
    }
}
