//! Spherical harmonic transforms, power spectra and the AMSE loss for weather fields.
//!
//! - [`grid`]: equiangular (with poles, as ERA5) and Gauss–Legendre latitude–longitude grids.
//! - [`legendre`]: normalised associated Legendre functions and the SIMD Legendre stage.
//! - [`sht`]: forward/inverse transforms of real fields ([`Sht`], [`Coeffs`]).
//! - [`spectrum`]: power, cross-power, coherence and amplitude ratio per total wavenumber.
//! - [`loss`]: MSE split into amplitude and decorrelation terms, and the AMSE loss.
//! - [`resolution`]: effective resolution (both definitions) and wavenumber ↔ km.
//! - [`gpu`]: a batched f32 transform on the shared wgpu device.
//! - [`bench`]: timings for `benchtop bench sht`.
//! - [`cf_time`]: CF time coordinates (`hours since 1-1-1`, calendars) decoded to dates.
//!
//! Convention: 4π-normalised harmonics (`Y_00 = 1`), so `a_00` is the area mean and the
//! spectrum sums to the area-weighted mean square (Parseval).

pub mod barotropic;
pub mod bench;
pub mod cf_time;
pub mod data;
pub mod experiments;
pub mod forecast;
pub mod gpu;
pub mod grid;
pub mod legendre;
pub mod loss;
pub mod resolution;
pub mod sht;
pub mod spectrum;
pub mod synthetic;

pub use data::{Field, GridChoice, LoadOptions, load_field};
pub use experiments::{AnalyticParams, AnalyticResult, GainFit, GainStep, run_analytic};
pub use forecast::{ForecastParams, ForecastResult, ForecastTrainer, LeadEvaluation, TrainingStep};
pub use grid::{Grid, GridKind};
pub use loss::{MseTerms, amse, mse_decomposition};
pub use resolution::{
    EffectiveResolution, effective_resolution, effective_resolution_from, wavelength_km,
};
pub use sht::{Coeffs, Sht};
pub use spectrum::{FieldSpectrum, field_spectrum};
pub use spectrum::{amplitude_ratio, coherence, cross_spectrum, psd};
