//! A spectral non-divergent barotropic vorticity model on the rotating unit sphere.
//!
//! `∂ζ/∂t = −u·∇(ζ + f) − ν_l ζ`, with `f = 2Ω sin φ`, streamfunction `ψ = ∇⁻²ζ` (degree l:
//! `ψ_l = −ζ_l/(l(l+1))`), `u = k × ∇ψ` and a hyperdiffusion `ν_l = (1/τ)·(l(l+1)/(L(L+1)))^p`
//! (`p = 2`: ∇⁴, `p = 4`: ∇⁸) that e-folds the truncation degree L in `τ`.
//!
//! Units: radius 1, time in days (Ω = 2π/sidereal day ≈ 6.30 per day); [`wind_to_model`]
//! converts m/s. The state is the vorticity's spherical harmonic coefficients up to L.
//!
//! **Transform method** (alias-free): with `μ = sin φ`, `U = u cos φ = −(1−μ²)∂ψ/∂μ`,
//! `V = v cos φ = ∂ψ/∂λ`, the advection is `u·∇q = [U ∂q/∂λ + V (1−μ²)∂q/∂μ]/(1−μ²)`. The
//! operators `∂/∂λ` (multiply by i·m) and `(1−μ²)∂/∂μ` (a two-term recurrence in l, see
//! [`cos_lat_derivative`]) act on coefficients; U, V, ∂q/∂λ, (1−μ²)∂q/∂μ are synthesised
//! exactly (degree ≤ L + 1) on a Gauss–Legendre grid, multiplied pointwise and divided by
//! `1 − μ²` (Gauss rings never touch the poles), and analysed back. The Jacobian of two
//! degree-L fields has degree ≤ 2L − 1, so a grid with `nlat ≥ 3L/2` and `nlon ≥ 3L` gives
//! the truncated tendency without aliasing (T42: 64×128).
//!
//! **Time stepping**: the classical fourth-order Runge–Kutta scheme with the diffusion in an
//! integrating factor (Lawson's IF-RK4), so that diffusion never limits the step.
//!
//! **Initial states from data**: [`vorticity_from_wind`] computes ζ = (1/cos φ)[∂v/∂λ −
//! ∂(u cos φ)/∂φ] on an equiangular grid with poles using *spectral* derivatives: an FFT along
//! each latitude ring for ∂/∂λ, and for ∂/∂φ an FFT along each full meridian circle (longitude λ
//! continued over the pole by λ + 180°, on which u·cos φ is smooth and periodic). The pole
//! values come from the circulation around the first ring (Stokes). [`BarotropicModel::
//! state_from_wind`] then analyses ζ with the crate's SHT and truncates it to the model's L.

use benchtop_compute::{CancelToken, ComputeError};
use num_complex::Complex64;
use realfft::RealFftPlanner;
use serde::{Deserialize, Serialize};

use crate::grid::{Grid, GridKind};
use crate::sht::{Coeffs, Sht};
use crate::spectrum::psd;

/// Mean Earth radius in metres.
pub const EARTH_RADIUS_M: f64 = 6.371e6;
/// Seconds per day.
pub const SECONDS_PER_DAY: f64 = 86_400.0;
/// Earth's rotation rate Ω in radians per day (7.292115 × 10⁻⁵ s⁻¹).
pub const EARTH_ROTATION_PER_DAY: f64 = 7.292_115e-5 * SECONDS_PER_DAY;

/// Converts a wind speed in m/s to the model's units (unit radius per day).
pub fn wind_to_model(speed_m_per_s: f64) -> f64 {
    speed_m_per_s * SECONDS_PER_DAY / EARTH_RADIUS_M
}

/// Converts a vorticity in 1/s to the model's units (1/day).
pub fn vorticity_to_model(vorticity_per_s: f64) -> f64 {
    vorticity_per_s * SECONDS_PER_DAY
}

// ---------------------------------------------------------------------------------------------
// Spectral operators (4π-normalised harmonics without Condon–Shortley phase; the recurrences
// below only relate functions of the same m, so they hold for any m-dependent normalisation).

/// `ε_l^m = √((l² − m²)/(4l² − 1))`, the coefficient in `μ P̄_l^m = ε_{l+1}^m P̄_{l+1}^m +
/// ε_l^m P̄_{l−1}^m` (0 for l ≤ m).
pub fn epsilon(l: usize, m: usize) -> f64 {
    if l <= m {
        return 0.0;
    }
    let (l, m) = (l as f64, m as f64);
    ((l * l - m * m) / (4.0 * l * l - 1.0)).sqrt()
}

/// `∂a/∂λ`: multiplies `a_lm` by `i·m`.
pub fn longitude_derivative(a: &Coeffs) -> Coeffs {
    let mut out = a.clone();
    for m in 0..=a.lmax() {
        let factor = Complex64::new(0.0, m as f64);
        for l in m..=a.lmax() {
            out.set(l, m, a.get(l, m) * factor);
        }
    }
    out
}

/// `(1 − μ²)·∂a/∂μ = cos φ·∂a/∂φ`, exactly, as coefficients up to lmax + 1. From
/// `(1−μ²) dP̄_n/dμ = −n ε_{n+1} P̄_{n+1} + (n+1) ε_n P̄_{n−1}`, the output's degree-l
/// coefficient is `−(l−1) ε_l a_{l−1} + (l+2) ε_{l+1} a_{l+1}`.
pub fn cos_lat_derivative(a: &Coeffs) -> Coeffs {
    let lmax = a.lmax();
    let mut out = Coeffs::zeros(lmax + 1);
    for m in 0..=lmax {
        for l in m..=lmax + 1 {
            let mut value = Complex64::new(0.0, 0.0);
            if l > m && l - 1 <= lmax {
                let n = (l - 1) as f64;
                value -= a.get(l - 1, m) * (n * epsilon(l, m));
            }
            if l < lmax {
                let n = (l + 1) as f64;
                value += a.get(l + 1, m) * ((n + 1.0) * epsilon(l + 1, m));
            }
            out.set(l, m, value);
        }
    }
    out
}

/// The streamfunction `ψ = ∇⁻²ζ` (`ψ_00 = 0`).
pub fn streamfunction(vorticity: &Coeffs) -> Coeffs {
    vorticity.map_by_degree(|l, c| {
        if l == 0 {
            Complex64::new(0.0, 0.0)
        } else {
            let eigen = (l * (l + 1)) as f64;
            -c / eigen
        }
    })
}

/// `∇²a`: multiplies degree l by `−l(l+1)`.
pub fn laplacian(a: &Coeffs) -> Coeffs {
    a.map_by_degree(|l, c| -c * (l * (l + 1)) as f64)
}

/// Kinetic energy per unit area, `½·mean |u|² = ½ Σ_{l≥1} PSD_l(ζ)/(l(l+1))`.
pub fn kinetic_energy(vorticity: &Coeffs) -> f64 {
    psd(vorticity)
        .iter()
        .enumerate()
        .skip(1)
        .map(|(l, p)| {
            let eigen = (l * (l + 1)) as f64;
            0.5 * p / eigen
        })
        .sum()
}

/// Enstrophy per unit area, `½·mean ζ²`.
pub fn enstrophy(vorticity: &Coeffs) -> f64 {
    0.5 * psd(vorticity).iter().sum::<f64>()
}

// ---------------------------------------------------------------------------------------------
// The model.

/// Settings of the barotropic model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BarotropicParams {
    /// Triangular truncation L of the vorticity.
    pub lmax: usize,
    /// Gauss latitudes of the transform grid; 0 picks the smallest alias-free even number
    /// (≥ (3L + 1)/2).
    pub nlat: usize,
    /// Longitudes of the transform grid; 0 picks 2·nlat (≥ 3L + 1).
    pub nlon: usize,
    /// Time step in minutes.
    pub dt_minutes: f64,
    /// Planetary rotation Ω in radians per day (Earth: [`EARTH_ROTATION_PER_DAY`]).
    pub rotation_per_day: f64,
    /// Order p of the hyperdiffusion ∇^{2p} (2 → ∇⁴, 4 → ∇⁸).
    pub diffusion_order: u32,
    /// E-folding time of degree L under the hyperdiffusion, in hours; 0 switches it off.
    pub diffusion_time_h: f64,
}

impl Default for BarotropicParams {
    fn default() -> Self {
        Self {
            lmax: 42,
            nlat: 0,
            nlon: 0,
            dt_minutes: 30.0,
            rotation_per_day: EARTH_ROTATION_PER_DAY,
            diffusion_order: 4,
            diffusion_time_h: 6.0,
        }
    }
}

impl BarotropicParams {
    /// The transform grid (automatic sizes resolved).
    pub fn grid(&self) -> Result<Grid, ComputeError> {
        let alias_free = (3 * self.lmax + 2).div_ceil(2);
        let nlat = if self.nlat == 0 {
            alias_free + alias_free % 2
        } else {
            self.nlat
        };
        let nlon = if self.nlon == 0 { 2 * nlat } else { self.nlon };
        Grid::new(GridKind::GaussLegendre, nlat, nlon)
    }

    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if self.lmax < 2 {
            return Err(ComputeError::invalid("lmax", "must be at least 2"));
        }
        if self.lmax > 340 {
            return Err(ComputeError::invalid(
                "lmax",
                format!(
                    "{} is beyond what this model is meant for (≤ 340)",
                    self.lmax
                ),
            ));
        }
        let grid = self.grid()?;
        if 2 * grid.nlat < 3 * self.lmax + 1 || grid.nlon < 3 * self.lmax + 1 {
            return Err(ComputeError::invalid(
                "nlat",
                format!(
                    "a {}×{} grid aliases the advection at L = {}: it needs nlat ≥ {} and \
                     nlon ≥ {}",
                    grid.nlat,
                    grid.nlon,
                    self.lmax,
                    (3 * self.lmax + 2).div_ceil(2),
                    3 * self.lmax + 1
                ),
            ));
        }
        if !(self.dt_minutes.is_finite() && self.dt_minutes > 0.0 && self.dt_minutes <= 1440.0) {
            return Err(ComputeError::invalid(
                "dt_minutes",
                format!("must lie in (0, 1440] (got {})", self.dt_minutes),
            ));
        }
        if !self.rotation_per_day.is_finite() {
            return Err(ComputeError::invalid("rotation_per_day", "must be finite"));
        }
        if !(1..=8).contains(&self.diffusion_order) {
            return Err(ComputeError::invalid(
                "diffusion_order",
                format!("must be 1..=8 (got {})", self.diffusion_order),
            ));
        }
        if !(self.diffusion_time_h.is_finite() && self.diffusion_time_h >= 0.0) {
            return Err(ComputeError::invalid(
                "diffusion_time_h",
                format!("must be finite and ≥ 0 (got {})", self.diffusion_time_h),
            ));
        }
        Ok(())
    }

    /// The time step in days.
    pub fn dt_days(&self) -> f64 {
        self.dt_minutes / 1440.0
    }
}

/// A barotropic vorticity model: transform plan, grid geometry and diffusion rates.
#[derive(Debug)]
pub struct BarotropicModel {
    params: BarotropicParams,
    grid: Grid,
    /// Transform up to L + 1 (the derivative fields have degree L + 1).
    sht: Sht,
    /// 1/(1 − μ²) per ring.
    inverse_cos2: Vec<f64>,
    /// Diffusion rate per degree, per day.
    decay_per_day: Vec<f64>,
}

impl BarotropicModel {
    /// A model with `params` (validated).
    pub fn new(params: &BarotropicParams) -> Result<Self, ComputeError> {
        params.validate()?;
        let grid = params.grid()?;
        let sht = Sht::new(&grid, params.lmax + 1)?;
        let inverse_cos2 = grid
            .latitudes_deg()
            .iter()
            .map(|lat| 1.0 / lat.to_radians().cos().powi(2))
            .collect();
        let lmax = params.lmax;
        let top = (lmax * (lmax + 1)) as f64;
        let decay_per_day = (0..=lmax)
            .map(|l| {
                if params.diffusion_time_h == 0.0 {
                    0.0
                } else {
                    let ratio = (l * (l + 1)) as f64 / top;
                    let p = params.diffusion_order as i32;
                    ratio.powi(p) * 24.0 / params.diffusion_time_h
                }
            })
            .collect();
        Ok(Self {
            params: params.clone(),
            grid,
            sht,
            inverse_cos2,
            decay_per_day,
        })
    }

    /// The settings.
    pub fn params(&self) -> &BarotropicParams {
        &self.params
    }

    /// The Gauss grid the model computes products on.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    /// The truncation L.
    pub fn lmax(&self) -> usize {
        self.params.lmax
    }

    /// The transform (up to L + 1) on the model grid.
    pub fn sht(&self) -> &Sht {
        &self.sht
    }

    /// Checks that `vorticity` has the model's truncation.
    fn check_state(&self, vorticity: &Coeffs) -> Result<(), ComputeError> {
        if vorticity.lmax() == self.params.lmax {
            Ok(())
        } else {
            Err(ComputeError::invalid(
                "vorticity",
                format!(
                    "state has lmax {}, the model {}",
                    vorticity.lmax(),
                    self.params.lmax
                ),
            ))
        }
    }

    /// The advective tendency `−u·∇(ζ + f)` as coefficients up to L (no diffusion).
    pub fn advection_tendency(&self, vorticity: &Coeffs) -> Result<Coeffs, ComputeError> {
        self.check_state(vorticity)?;
        let lmax = self.params.lmax;
        let psi = streamfunction(vorticity);
        let mut absolute = vorticity.clone();
        // f = 2Ω μ and μ = Y_10/√3 for 4π-normalised harmonics.
        let coriolis = 2.0 * self.params.rotation_per_day / 3.0_f64.sqrt();
        absolute.set(1, 0, absolute.get(1, 0) + coriolis);
        let u_cos = cos_lat_derivative(&psi).map_by_degree(|_, c| -c);
        let v_cos = longitude_derivative(&psi);
        let dq_dlambda = longitude_derivative(&absolute);
        let dq_dmu = cos_lat_derivative(&absolute);
        let fields = self
            .sht
            .inverse_batch(&[&u_cos, &v_cos, &dq_dlambda, &dq_dmu])?;
        let nlon = self.grid.nlon;
        let mut advection = vec![0.0; self.grid.len()];
        for (index, value) in advection.iter_mut().enumerate() {
            let ring = index / nlon;
            *value = -(fields[0][index] * fields[2][index] + fields[1][index] * fields[3][index])
                * self.inverse_cos2[ring];
        }
        let mut tendency = self.sht.forward(&advection)?.with_lmax(lmax);
        tendency.set(0, 0, Complex64::new(0.0, 0.0));
        Ok(tendency)
    }

    /// `exp(−ν_l·t)·a` for every degree.
    fn decay(&self, a: &Coeffs, days: f64) -> Coeffs {
        if self.params.diffusion_time_h == 0.0 {
            return a.clone();
        }
        a.map_by_degree(|l, c| c * (-self.decay_per_day[l] * days).exp())
    }

    /// One IF-RK4 step of `dt`.
    pub fn step(&self, vorticity: &Coeffs) -> Result<Coeffs, ComputeError> {
        let h = self.params.dt_days();
        let axpy = |y: &Coeffs, s: f64, x: &Coeffs| -> Coeffs {
            let mut out = y.clone();
            for (o, v) in out.data_mut().iter_mut().zip(x.data()) {
                *o += v * s;
            }
            out
        };
        let k1 = self.advection_tendency(vorticity)?;
        let half_y = self.decay(vorticity, h / 2.0);
        let k2 = self.advection_tendency(&self.decay(&axpy(vorticity, h / 2.0, &k1), h / 2.0))?;
        let k3 = self.advection_tendency(&axpy(&half_y, h / 2.0, &k2))?;
        let k4 = self.advection_tendency(&axpy(
            &self.decay(vorticity, h),
            h,
            &self.decay(&k3, h / 2.0),
        ))?;
        // y₁ = E(h)y + h/6·[E(h)k1 + 2E(h/2)(k2 + k3) + k4].
        let mut sum = self.decay(&k1, h);
        let middle = self.decay(&axpy(&k2, 1.0, &k3), h / 2.0);
        sum = axpy(&sum, 2.0, &middle);
        sum = axpy(&sum, 1.0, &k4);
        let next = axpy(&self.decay(vorticity, h), h / 6.0, &sum);
        if next
            .data()
            .iter()
            .any(|c| !(c.re.is_finite() && c.im.is_finite()))
        {
            return Err(ComputeError::Numerical(
                "the barotropic model blew up (reduce dt_minutes or add diffusion)".to_owned(),
            ));
        }
        Ok(next)
    }

    /// `steps` steps from `vorticity`, checking `cancel` between steps.
    pub fn integrate(
        &self,
        vorticity: &Coeffs,
        steps: usize,
        cancel: &CancelToken,
    ) -> Result<Coeffs, ComputeError> {
        let mut state = vorticity.clone();
        for _ in 0..steps {
            cancel.check()?;
            state = self.step(&state)?;
        }
        Ok(state)
    }

    /// The vorticity (1/day) on the model grid.
    pub fn vorticity_field(&self, vorticity: &Coeffs) -> Result<Vec<f64>, ComputeError> {
        self.sht.inverse(vorticity)
    }

    /// The wind (u, v) in m/s on the model grid.
    pub fn wind(&self, vorticity: &Coeffs) -> Result<(Vec<f64>, Vec<f64>), ComputeError> {
        let psi = streamfunction(vorticity);
        let u_cos = cos_lat_derivative(&psi).map_by_degree(|_, c| -c);
        let v_cos = longitude_derivative(&psi);
        let fields = self.sht.inverse_batch(&[&u_cos, &v_cos])?;
        let nlon = self.grid.nlon;
        let to_m_per_s = EARTH_RADIUS_M / SECONDS_PER_DAY;
        let mut u = fields[0].clone();
        let mut v = fields[1].clone();
        for (index, (a, b)) in u.iter_mut().zip(v.iter_mut()).enumerate() {
            let scale = self.inverse_cos2[index / nlon].sqrt() * to_m_per_s;
            *a *= scale;
            *b *= scale;
        }
        Ok((u, v))
    }

    /// The model state (vorticity up to L) of a wind field in m/s on an equiangular grid with
    /// poles (north first, longitudes from 0°; see [`vorticity_from_wind`]).
    pub fn state_from_wind(
        &self,
        grid: &Grid,
        u_m_per_s: &[f64],
        v_m_per_s: &[f64],
    ) -> Result<Coeffs, ComputeError> {
        let zeta = vorticity_from_wind(grid, u_m_per_s, v_m_per_s)?;
        let zeta: Vec<f64> = zeta.iter().map(|z| vorticity_to_model(*z)).collect();
        let lmax = self.params.lmax.min(grid.max_lmax());
        let sht = Sht::new(grid, lmax)?;
        let mut coeffs = sht.forward(&zeta)?.with_lmax(self.params.lmax);
        coeffs.set(0, 0, Complex64::new(0.0, 0.0));
        Ok(coeffs)
    }
}

// ---------------------------------------------------------------------------------------------
// Vorticity from wind on an equiangular grid.

/// Relative vorticity ζ in 1/s of a wind (u east, v north, m/s) on an equiangular grid with
/// both poles and an even number of longitudes, with spectral derivatives (see the module
/// docs). Returns `nlat × nlon` values, north first.
pub fn vorticity_from_wind(grid: &Grid, u: &[f64], v: &[f64]) -> Result<Vec<f64>, ComputeError> {
    if grid.kind != GridKind::Equiangular {
        return Err(ComputeError::invalid(
            "grid",
            "vorticity from wind needs an equiangular grid with both poles",
        ));
    }
    let (nlat, nlon) = (grid.nlat, grid.nlon);
    if nlon % 2 != 0 || nlon < 4 {
        return Err(ComputeError::invalid(
            "nlon",
            format!("vorticity from wind needs an even number (≥ 4) of longitudes (got {nlon})"),
        ));
    }
    for (name, field) in [("u", u), ("v", v)] {
        if field.len() != nlat * nlon {
            return Err(ComputeError::invalid(
                name,
                format!("has {} values, the grid {}", field.len(), nlat * nlon),
            ));
        }
        if field.iter().any(|x| !x.is_finite()) {
            return Err(ComputeError::invalid(name, "holds non-finite values"));
        }
    }
    let lat: Vec<f64> = grid
        .latitudes_deg()
        .iter()
        .map(|d| d.to_radians())
        .collect();
    let cos: Vec<f64> = lat.iter().map(|p| p.cos()).collect();
    let mut planner = RealFftPlanner::<f64>::new();
    let fft_error = |e: realfft::FftError| ComputeError::Numerical(format!("FFT: {e}"));

    // ∂v/∂λ ring by ring.
    let ring_forward = planner.plan_fft_forward(nlon);
    let ring_inverse = planner.plan_fft_inverse(nlon);
    let mut dv_dlambda = vec![0.0; nlat * nlon];
    let mut input = ring_forward.make_input_vec();
    let mut spectrum = ring_forward.make_output_vec();
    for i in 0..nlat {
        input.copy_from_slice(&v[i * nlon..(i + 1) * nlon]);
        ring_forward
            .process(&mut input, &mut spectrum)
            .map_err(fft_error)?;
        let half = nlon / 2;
        for (m, s) in spectrum.iter_mut().enumerate() {
            let factor = if m == half {
                0.0
            } else {
                m as f64 / nlon as f64
            };
            *s = Complex64::new(-s.im * factor, s.re * factor);
        }
        ring_inverse
            .process(&mut spectrum, &mut dv_dlambda[i * nlon..(i + 1) * nlon])
            .map_err(fft_error)?;
    }

    // ∂(u cos φ)/∂θ on meridian circles: column j continued over both poles by column j + nlon/2.
    let circle = 2 * (nlat - 1);
    let circle_forward = planner.plan_fft_forward(circle);
    let circle_inverse = planner.plan_fft_inverse(circle);
    let mut values = circle_forward.make_input_vec();
    let mut coefficients = circle_forward.make_output_vec();
    let mut derivative = circle_inverse.make_output_vec();
    let mut du_dtheta = vec![0.0; nlat * nlon];
    let half = nlon / 2;
    for j in 0..half {
        for (t, value) in values.iter_mut().enumerate() {
            let (row, column) = if t < nlat {
                (t, j)
            } else {
                (circle - t, j + half)
            };
            *value = u[row * nlon + column] * cos[row];
        }
        circle_forward
            .process(&mut values, &mut coefficients)
            .map_err(fft_error)?;
        let nyquist = circle / 2;
        for (n, c) in coefficients.iter_mut().enumerate() {
            let factor = if n == nyquist {
                0.0
            } else {
                n as f64 / circle as f64
            };
            *c = Complex64::new(-c.im * factor, c.re * factor);
        }
        circle_inverse
            .process(&mut coefficients, &mut derivative)
            .map_err(fft_error)?;
        for (t, d) in derivative.iter().enumerate() {
            if t < nlat {
                du_dtheta[t * nlon + j] = *d;
            } else {
                // The far half runs up column j + nlon/2 against its colatitude. (That
                // column's pole rows are not needed: the poles come from the circulation.)
                du_dtheta[(circle - t) * nlon + j + half] = -d;
            }
        }
    }

    let mut zeta = vec![0.0; nlat * nlon];
    for (i, cos_lat) in cos.iter().enumerate().take(nlat - 1).skip(1) {
        for j in 0..nlon {
            let index = i * nlon + j;
            // ∂/∂φ = −∂/∂θ.
            zeta[index] = (dv_dlambda[index] + du_dtheta[index]) / (EARTH_RADIUS_M * cos_lat);
        }
    }
    // Poles: mean vorticity of the polar cap bounded by the first ring (Stokes).
    let theta1 = std::f64::consts::PI / (nlat - 1) as f64;
    let cap = theta1.sin() / (EARTH_RADIUS_M * (1.0 - theta1.cos()));
    let ring_mean = |i: usize| u[i * nlon..(i + 1) * nlon].iter().sum::<f64>() / nlon as f64;
    let north = ring_mean(1) * cap;
    let south = -ring_mean(nlat - 2) * cap;
    zeta[..nlon].fill(north);
    zeta[(nlat - 1) * nlon..].fill(south);
    Ok(zeta)
}

// ---------------------------------------------------------------------------------------------
// Rossby–Haurwitz waves.

/// The Rossby–Haurwitz wave `ψ = −ω sin φ + K cos^R φ sin φ cos(Rλ)` (unit sphere, ω and K
/// in 1/day) as vorticity coefficients up to `lmax` (≥ R + 1), computed by analysing ψ on a
/// Gauss grid.
pub fn rossby_haurwitz(
    lmax: usize,
    omega: f64,
    amplitude: f64,
    wavenumber: usize,
) -> Result<Coeffs, ComputeError> {
    if wavenumber + 1 > lmax {
        return Err(ComputeError::invalid(
            "wavenumber",
            format!("R + 1 = {} exceeds lmax {lmax}", wavenumber + 1),
        ));
    }
    let nlat = lmax + 2;
    let grid = Grid::new(GridKind::GaussLegendre, nlat, 2 * lmax + 2)?;
    let sht = Sht::new(&grid, lmax)?;
    let lats = grid.latitudes_deg();
    let lons = grid.longitudes_deg();
    let mut psi = Vec::with_capacity(grid.len());
    let r = wavenumber as i32;
    let rf = wavenumber as f64;
    for lat in &lats {
        let phi = lat.to_radians();
        for lon in &lons {
            let lambda = lon.to_radians();
            psi.push(
                -omega * phi.sin()
                    + amplitude * phi.cos().powi(r) * phi.sin() * (rf * lambda).cos(),
            );
        }
    }
    Ok(laplacian(&sht.forward(&psi)?))
}

/// The angular phase speed (radians per day, eastward) of the Rossby–Haurwitz wave of
/// [`rossby_haurwitz`] in the non-divergent model: `ν = [R(3+R)ω − 2Ω]/((1+R)(2+R))`
/// (Haurwitz 1940). The pattern moves as ψ(λ − νt).
pub fn rossby_haurwitz_speed(omega: f64, rotation: f64, wavenumber: usize) -> f64 {
    let r = wavenumber as f64;
    (r * (3.0 + r) * omega - 2.0 * rotation) / ((1.0 + r) * (2.0 + r))
}

#[cfg(test)]
mod tests;
