//! The forward SHT as a fixed linear map in candle, and the MSE and AMSE losses built on it.
//!
//! A real field on the grid (flattened, `N = nlat·nlon` points) maps to a real coefficient
//! vector ĉ (`C = (L+1)²` entries): `Re a_l0` for m = 0 and `√2·Re a_lm`, `√2·Im a_lm` for
//! m ≥ 1, so that `PSD_k = Σ_{c of degree k} ĉ_c²` and the cross-spectrum is `Σ ĉ_x ĉ_y`
//! ([`crate::spectrum`]). The matrix is built from the crate's own [`Sht::forward`] (one
//! transform per latitude ring: the transform of a unit value at longitude λ_j is that at
//! longitude 0 times `e^{−imλ_j}`), so the candle losses are exactly the f64 ones.

use benchtop_compute::ComputeError;
use candle_core::{DType, Device, Tensor};
use num_complex::Complex64;

use crate::sht::{Coeffs, Sht};

/// The real-coefficient layout: (l, m, imaginary part?) of every column of the matrix.
fn layout(lmax: usize) -> Vec<(usize, usize, bool)> {
    let mut out = Vec::with_capacity((lmax + 1) * (lmax + 1));
    for m in 0..=lmax {
        for l in m..=lmax {
            out.push((l, m, false));
            if m > 0 {
                out.push((l, m, true));
            }
        }
    }
    out
}

/// The forward transform as a matrix and the degree of each real coefficient.
#[derive(Debug, Clone)]
pub struct SpectralMap {
    lmax: usize,
    points: usize,
    /// (N × C) f32: ĉ = field · matrix.
    matrix: Tensor,
    /// (C × (L+1)) f32 one-hot degree indicator, zero in column 0 (k = 0 is handled apart).
    degree: Tensor,
}

impl SpectralMap {
    /// Builds the map for `sht` (grid and lmax) on `device`.
    pub fn new(sht: &Sht, device: &Device) -> Result<Self, ComputeError> {
        let grid = sht.grid().clone();
        let lmax = sht.lmax();
        let (nlat, nlon) = (grid.nlat, grid.nlon);
        let columns = layout(lmax);
        let c = columns.len();
        let lons: Vec<f64> = grid
            .longitudes_deg()
            .iter()
            .map(|d| d.to_radians())
            .collect();
        let mut matrix = vec![0.0_f32; nlat * nlon * c];
        let sqrt2 = std::f64::consts::SQRT_2;
        let mut unit = vec![0.0; nlat * nlon];
        for i in 0..nlat {
            unit.fill(0.0);
            unit[i * nlon] = 1.0;
            let ring: Coeffs = sht.forward(&unit)?;
            for (j, lambda) in lons.iter().enumerate() {
                let row = (i * nlon + j) * c;
                for (col, &(l, m, imaginary)) in columns.iter().enumerate() {
                    let phase = Complex64::from_polar(1.0, -(m as f64) * lambda);
                    let value = ring.get(l, m) * phase;
                    let real = match (m, imaginary) {
                        (0, _) => value.re,
                        (_, false) => sqrt2 * value.re,
                        (_, true) => sqrt2 * value.im,
                    };
                    matrix[row + col] = real as f32;
                }
            }
        }
        let mut degree = vec![0.0_f32; c * (lmax + 1)];
        for (col, &(l, _, _)) in columns.iter().enumerate() {
            if l > 0 {
                degree[col * (lmax + 1) + l] = 1.0;
            }
        }
        Ok(Self {
            lmax,
            points: nlat * nlon,
            matrix: Tensor::from_vec(matrix, (nlat * nlon, c), device)?,
            degree: Tensor::from_vec(degree, (c, lmax + 1), device)?,
        })
    }

    /// The largest degree.
    pub fn lmax(&self) -> usize {
        self.lmax
    }

    /// Real coefficients (B × C) of fields (B × N, or B × nlat × nlon).
    pub fn coefficients(&self, fields: &Tensor) -> Result<Tensor, ComputeError> {
        let batch = fields.dim(0)?;
        let flat = fields.reshape((batch, self.points))?;
        Ok(flat.matmul(&self.matrix)?)
    }

    /// Per-sample spectral MSE `Σ_c (ĉ_x − ĉ_y)²` (B), which is the area-weighted MSE of the
    /// band-limited parts.
    pub fn mse(&self, x: &Tensor, y: &Tensor) -> Result<Tensor, ComputeError> {
        let (cx, cy) = (self.coefficients(x)?, self.coefficients(y)?);
        Ok((cx - cy)?.sqr()?.sum(1)?)
    }

    /// Per-sample AMSE (B), paper eq. 6 with the authors' details: k = 0 as `|x_00 − y_00|²`,
    /// coherence clipped at 1, `1e-16` in the geometric mean.
    pub fn amse(&self, x: &Tensor, y: &Tensor) -> Result<Tensor, ComputeError> {
        let (cx, cy) = (self.coefficients(x)?, self.coefficients(y)?);
        let px = cx.sqr()?.matmul(&self.degree)?;
        let py = cy.sqr()?.matmul(&self.degree)?;
        let cross = (&cx * &cy)?.matmul(&self.degree)?;
        // Degree-0 columns of `degree` are zero, so k = 0 contributes nothing below.
        let sx = (&px + 1e-12)?.sqrt()?;
        let sy = (&py + 1e-12)?.sqrt()?;
        let amplitude = (&sx - &sy)?.sqr()?;
        let geometric = ((&px * &py)? + 1e-16)?.sqrt()?;
        let coherence = (cross / geometric)?.minimum(1.0)?;
        let one_minus = coherence.affine(-1.0, 1.0)?;
        let decorrelation = (px.maximum(&py)? * one_minus)?.affine(2.0, 0.0)?;
        let per_k = (amplitude + decorrelation)?.sum(1)?;
        let mean_term = (cx.narrow(1, 0, 1)? - cy.narrow(1, 0, 1)?)?
            .sqr()?
            .squeeze(1)?;
        Ok((per_k + mean_term)?)
    }
}

/// Converts f64 values to an f32 tensor of `shape`.
pub fn tensor_f32(
    values: &[f64],
    shape: &[usize],
    device: &Device,
) -> Result<Tensor, ComputeError> {
    let data: Vec<f32> = values.iter().map(|v| *v as f32).collect();
    Ok(Tensor::from_vec(data, shape, device)?)
}

/// Reads a tensor back as f64 values (any shape).
pub fn values_f64(tensor: &Tensor) -> Result<Vec<f64>, ComputeError> {
    Ok(tensor
        .to_dtype(DType::F64)?
        .flatten_all()?
        .to_vec1::<f64>()?)
}
