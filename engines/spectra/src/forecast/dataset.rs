//! Training and test data for the learned forecasters: trajectories of the barotropic model
//! started from the real 200 hPa wind, and the network's input features.
//!
//! Trajectory n starts from the climatological-mean flow of month `n mod 12` (the bundled
//! NCEP/NCAR sample, [`crate::data::sample_wind_paths`]) plus a seeded random vorticity
//! perturbation with a k⁻¹ vorticity spectrum (k⁻³ kinetic energy) whose rms is a given
//! fraction of the flow's. The model spins up, then one state is recorded every lead time.
//! Trajectories are independent and computed in parallel; each depends only on the seed and
//! its index, so the data are the same on every machine.

use std::path::PathBuf;

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use num_complex::Complex64;
use rayon::prelude::*;

use crate::barotropic::BarotropicModel;
use crate::data::{LoadOptions, load_field, sample_wind_paths};
use crate::grid::Grid;
use crate::sht::{Coeffs, Sht};
use crate::spectrum::psd;
use crate::synthetic::{SpectrumShape, SpectrumSpec, random_coeffs};

use super::ForecastParams;

/// Dynamic input channels per state: vorticity, zonal wind, meridional wind.
pub const DYNAMIC_CHANNELS: usize = 3;
/// Static input channels: sin φ and cos φ.
pub const STATIC_CHANNELS: usize = 2;

/// One model trajectory: states one lead time apart.
#[derive(Debug, Clone)]
pub struct Trajectory {
    /// Month (0 = January) of the climatological start.
    pub month: usize,
    /// Vorticity coefficients (model units, 1/day), one per lead time.
    pub states: Vec<Coeffs>,
}

/// The forecasters' data: trajectories, normalisation and grid features.
#[derive(Debug)]
pub struct Dataset {
    /// The model grid (Gauss).
    pub grid: Grid,
    /// Transform at the model truncation on the model grid.
    pub sht: Sht,
    /// Training trajectories.
    pub train: Vec<Trajectory>,
    /// Held-out trajectories.
    pub test: Vec<Trajectory>,
    /// Area-weighted std of the vorticity over the training states (1/day).
    pub vorticity_std: f64,
    /// Area-weighted rms of the wind components over the training states (m/s).
    pub wind_std: f64,
    /// Normalised dynamic features of every training state, `[trajectory][state]`, each
    /// `DYNAMIC_CHANNELS × nlat × nlon` f32.
    pub train_features: Vec<Vec<Vec<f32>>>,
    /// sin φ and cos φ, `STATIC_CHANNELS × nlat × nlon`.
    pub static_features: Vec<f32>,
}

/// Reads the twelve monthly mean 200 hPa wind fields (u, v) of the bundled sample (or the
/// given files) as model states.
fn climatology(
    model: &BarotropicModel,
    params: &ForecastParams,
) -> Result<Vec<Coeffs>, ComputeError> {
    let (default_u, default_v) = sample_wind_paths();
    let pick = |given: &str, default: PathBuf| {
        if given.is_empty() {
            default
        } else {
            PathBuf::from(given)
        }
    };
    let u_path = pick(&params.wind_u_path, default_u);
    let v_path = pick(&params.wind_v_path, default_v);
    (0..12)
        .map(|month| {
            let options = LoadOptions {
                time_index: month,
                ..LoadOptions::default()
            };
            let u = load_field(&u_path, &options)?;
            let v = load_field(&v_path, &options)?;
            if u.grid != v.grid {
                return Err(ComputeError::invalid(
                    "wind_v_path",
                    format!(
                        "{}: the v wind's grid differs from the u wind's ({})",
                        v.source.file, u.source.file
                    ),
                ));
            }
            model.state_from_wind(&u.grid, &u.values, &v.values)
        })
        .collect()
}

/// Runs trajectory `index` (see the module docs).
fn trajectory(
    model: &BarotropicModel,
    params: &ForecastParams,
    climate: &[Coeffs],
    index: usize,
    seed: u64,
    cancel: &CancelToken,
) -> Result<Trajectory, ComputeError> {
    let month = index % climate.len();
    let base = &climate[month];
    let lmax = model.lmax();
    let variance: f64 = psd(base).iter().skip(1).sum();
    let spec = SpectrumSpec {
        shape: SpectrumShape::PowerLaw { exponent: 1.0 },
        variance: variance * params.perturbation.powi(2),
    };
    let mut rng = seeded(derive_seed(seed, index as u64));
    let noise = random_coeffs(&spec.psd(lmax)?, &mut rng)?;
    let mut state = base.clone();
    for (s, n) in state.data_mut().iter_mut().zip(noise.data()) {
        *s += n;
    }
    state.set(0, 0, Complex64::new(0.0, 0.0));
    let steps_per_lead = params.steps_per_lead()?;
    let spinup = (params.spinup_days * 1440.0 / params.model.dt_minutes).round() as usize;
    state = model.integrate(&state, spinup, cancel)?;
    let mut states = Vec::with_capacity(params.states_per_trajectory);
    states.push(state.clone());
    for _ in 1..params.states_per_trajectory {
        state = model.integrate(&state, steps_per_lead, cancel)?;
        states.push(state.clone());
    }
    Ok(Trajectory { month, states })
}

impl Dataset {
    /// Generates the trajectories and features.
    pub fn generate(
        params: &ForecastParams,
        model: &BarotropicModel,
        seed: u64,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<Self, ComputeError> {
        progress.set(0.0, "reading the 200 hPa wind sample");
        let climate = climatology(model, params)?;
        let total = params.train_trajectories + params.test_trajectories;
        let done = std::sync::atomic::AtomicUsize::new(0);
        let trajectories: Vec<Trajectory> = (0..total)
            .into_par_iter()
            .map(|index| {
                let t = trajectory(model, params, &climate, index, seed, cancel)?;
                let finished = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                progress.set(
                    finished as f64 / total as f64,
                    format!("barotropic trajectories: {finished} of {total}"),
                );
                Ok(t)
            })
            .collect::<Result<_, ComputeError>>()?;
        let mut trajectories = trajectories;
        let test = trajectories.split_off(params.train_trajectories);
        let train = trajectories;

        let grid = model.grid().clone();
        let sht = Sht::new(&grid, model.lmax())?;
        // Normalisation from the training states.
        let (mut vorticity_square, mut wind_square, mut count) = (0.0, 0.0, 0.0);
        for t in &train {
            for s in &t.states {
                vorticity_square += psd(s).iter().skip(1).sum::<f64>();
                // ½ mean |u|² = energy; the rms of one component is √energy.
                wind_square += crate::barotropic::kinetic_energy(s);
                count += 1.0;
            }
        }
        let to_m_per_s = crate::barotropic::EARTH_RADIUS_M / crate::barotropic::SECONDS_PER_DAY;
        let vorticity_std = (vorticity_square / count).sqrt();
        let wind_std = (wind_square / count).sqrt() * to_m_per_s;
        if !(vorticity_std > 0.0 && wind_std > 0.0) {
            return Err(ComputeError::Numerical(
                "the training states have no vorticity".to_owned(),
            ));
        }
        let mut dataset = Self {
            grid,
            sht,
            train,
            test,
            vorticity_std,
            wind_std,
            train_features: Vec::new(),
            static_features: Vec::new(),
        };
        let lats = dataset.grid.latitudes_deg();
        let nlon = dataset.grid.nlon;
        let mut statics = Vec::with_capacity(STATIC_CHANNELS * dataset.grid.len());
        for f in [f64::sin, f64::cos] {
            for lat in &lats {
                statics.extend(std::iter::repeat_n(f(lat.to_radians()) as f32, nlon));
            }
        }
        dataset.static_features = statics;
        let features = dataset
            .train
            .iter()
            .map(|t| {
                t.states
                    .iter()
                    .map(|s| dataset.dynamic_features(model, s))
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        dataset.train_features = features;
        Ok(dataset)
    }

    /// Normalised ζ, u, v of a state on the grid (`DYNAMIC_CHANNELS × nlat × nlon`, f32).
    pub fn dynamic_features(
        &self,
        model: &BarotropicModel,
        state: &Coeffs,
    ) -> Result<Vec<f32>, ComputeError> {
        let zeta = self.sht.inverse(state)?;
        let (u, v) = model.wind(state)?;
        let mut out = Vec::with_capacity(DYNAMIC_CHANNELS * zeta.len());
        out.extend(zeta.iter().map(|z| (z / self.vorticity_std) as f32));
        out.extend(u.iter().map(|x| (x / self.wind_std) as f32));
        out.extend(v.iter().map(|x| (x / self.wind_std) as f32));
        Ok(out)
    }

    /// Number of input channels of the network.
    pub fn input_channels(&self) -> usize {
        DYNAMIC_CHANNELS + STATIC_CHANNELS
    }
}
