//! Per-configuration observables and their summaries with error bars.
//!
//! Definitions (used everywhere, including [`crate::exact`]) on an L×L torus:
//! - bond energy per site b = Σ over the 2L² bonds of s_i s_j / L² (+2 when fully ordered);
//! - plaquette per site p = Σ over the L² plaquettes of s₁s₂s₃s₄ / L²;
//! - magnetisation per site m = Σ s / L² (signed);
//! - energy per site h = H / L² = −β b − K p (dimensionless, weight e^{−H}, k_B = 1).

use benchtop_compute::ComputeError;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::couplings::Couplings;
use crate::lattice::{SpinConfig, validate_size};
use crate::stats::{Estimate, correlated_error, integrated_autocorrelation_time, jackknife, mean};

/// The observables of one configuration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// b = Σ_⟨ij⟩ s_i s_j / L² over the 2L² bonds, in [−2, 2].
    pub bond_energy_per_site: f64,
    /// p = Σ_□ s₁s₂s₃s₄ / L² over the L² plaquettes, in [−1, 1].
    pub plaquette_per_site: f64,
    /// m = Σ s / L², signed, in [−1, 1].
    pub magnetization: f64,
}

impl Measurement {
    /// The energy per site h = −β b − K p for `couplings`.
    pub fn energy_per_site(&self, couplings: &Couplings) -> f64 {
        -couplings.beta * self.bond_energy_per_site - couplings.plaquette * self.plaquette_per_site
    }
}

/// Integer bond, plaquette and spin sums of row `y` (bonds to the right and down, the plaquette
/// whose top-left corner is each site).
fn row_sums(spins: &[i8], size: usize, y: usize) -> (i64, i64, i64) {
    let row = &spins[y * size..(y + 1) * size];
    let next_y = if y + 1 == size { 0 } else { y + 1 };
    let next = &spins[next_y * size..(next_y + 1) * size];
    let mut bonds = 0_i32;
    let mut plaquettes = 0_i32;
    let mut magnetization = 0_i32;
    // The interior columns as straight zipped slices, so the loop vectorises.
    for (((&s, &r), &d), &dr) in row[..size - 1]
        .iter()
        .zip(&row[1..])
        .zip(&next[..size - 1])
        .zip(&next[1..])
    {
        magnetization += i32::from(s);
        bonds += i32::from(s * (r + d));
        plaquettes += i32::from(s * r * d * dr);
    }
    // The last column wraps to column 0.
    let (s, r, d, dr) = (row[size - 1], row[0], next[size - 1], next[0]);
    magnetization += i32::from(s);
    bonds += i32::from(s * (r + d));
    plaquettes += i32::from(s * r * d * dr);
    (
        i64::from(bonds),
        i64::from(plaquettes),
        i64::from(magnetization),
    )
}

/// Measures one configuration in a single pass over the spins (rows in parallel).
///
/// The sums are exact integers, so the result does not depend on the number of threads.
pub fn measure(config: &SpinConfig) -> Measurement {
    let size = config.size();
    let spins = config.spins();
    let (bonds, plaquettes, magnetization) = (0..size)
        .into_par_iter()
        .with_min_len(16)
        .map(|y| row_sums(spins, size, y))
        .reduce(|| (0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    let sites = (size * size) as f64;
    Measurement {
        bond_energy_per_site: bonds as f64 / sites,
        plaquette_per_site: plaquettes as f64 / sites,
        magnetization: magnetization as f64 / sites,
    }
}

/// A time series of measurements, stored as one vector per quantity.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeSeries {
    bond_energy_per_site: Vec<f64>,
    plaquette_per_site: Vec<f64>,
    magnetization: Vec<f64>,
}

impl TimeSeries {
    /// An empty series.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty series with room for `capacity` measurements.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            bond_energy_per_site: Vec::with_capacity(capacity),
            plaquette_per_site: Vec::with_capacity(capacity),
            magnetization: Vec::with_capacity(capacity),
        }
    }

    /// Appends one measurement.
    pub fn push(&mut self, measurement: Measurement) {
        self.bond_energy_per_site
            .push(measurement.bond_energy_per_site);
        self.plaquette_per_site.push(measurement.plaquette_per_site);
        self.magnetization.push(measurement.magnetization);
    }

    /// Number of measurements (the shortest vector, should a file have been edited by hand).
    pub fn len(&self) -> usize {
        self.bond_energy_per_site
            .len()
            .min(self.plaquette_per_site.len())
            .min(self.magnetization.len())
    }

    /// Whether there are no measurements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Measurement `index`, if there is one.
    pub fn get(&self, index: usize) -> Option<Measurement> {
        (index < self.len()).then(|| Measurement {
            bond_energy_per_site: self.bond_energy_per_site[index],
            plaquette_per_site: self.plaquette_per_site[index],
            magnetization: self.magnetization[index],
        })
    }

    /// The measurements after the first `skip` (empty when there are no more).
    pub fn tail(&self, skip: usize) -> TimeSeries {
        let from = skip.min(self.len());
        let to = self.len();
        Self {
            bond_energy_per_site: self.bond_energy_per_site[from..to].to_vec(),
            plaquette_per_site: self.plaquette_per_site[from..to].to_vec(),
            magnetization: self.magnetization[from..to].to_vec(),
        }
    }

    /// The bond energies per site, in order.
    pub fn bond_energy_per_site(&self) -> &[f64] {
        &self.bond_energy_per_site[..self.len()]
    }

    /// The plaquette sums per site, in order.
    pub fn plaquette_per_site(&self) -> &[f64] {
        &self.plaquette_per_site[..self.len()]
    }

    /// The signed magnetisations per site, in order.
    pub fn magnetization(&self) -> &[f64] {
        &self.magnetization[..self.len()]
    }

    /// |m| for every measurement.
    pub fn abs_magnetization(&self) -> Vec<f64> {
        self.magnetization().iter().map(|m| m.abs()).collect()
    }

    /// The energies per site h = −β b − K p for `couplings`.
    pub fn energy_per_site(&self, couplings: &Couplings) -> Vec<f64> {
        self.bond_energy_per_site()
            .iter()
            .zip(self.plaquette_per_site())
            .map(|(b, p)| -couplings.beta * b - couplings.plaquette * p)
            .collect()
    }
}

/// Number of jackknife blocks used for χ, C and U when the series is long enough.
pub const JACKKNIFE_BLOCKS: usize = 32;

/// Fewest jackknife blocks: shorter series (fewer than 20·τ_int per block at 32 blocks) use
/// fewer, longer blocks, down to this many.
pub const MIN_JACKKNIFE_BLOCKS: usize = 8;

/// A jackknife block should span at least this many integrated autocorrelation times, or the
/// blocks are correlated and the error comes out too small.
pub const BLOCK_IN_TAU: f64 = 20.0;

/// Jackknife blocks for `samples` measurements whose longest τ_int is `tau` measurements:
/// [`JACKKNIFE_BLOCKS`], or fewer so that each spans [`BLOCK_IN_TAU`]·τ_int, but at least
/// [`MIN_JACKKNIFE_BLOCKS`].
pub fn jackknife_blocks(samples: usize, tau: f64) -> usize {
    let fitting = samples as f64 / (BLOCK_IN_TAU * tau.max(0.5));
    let fitting = if fitting.is_finite() {
        fitting.floor() as usize
    } else {
        JACKKNIFE_BLOCKS
    };
    fitting.clamp(MIN_JACKKNIFE_BLOCKS, JACKKNIFE_BLOCKS)
}

/// Averages of a time series with honest error bars.
///
/// Plain means carry [`correlated_error`]s (binning, or the windowed τ_int when larger); χ, C
/// and U carry delete-one-block jackknife errors with [`jackknife_blocks`] blocks, which keeps
/// each block longer than the autocorrelation time down to runs of 160 τ_int. Shorter runs
/// still get errors that are too small: [`crate::simulation::McResult::notes`] says so.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ObservableSummary {
    /// The side L.
    pub size: usize,
    /// The couplings the series was sampled at (they define h).
    pub couplings: Couplings,
    /// ⟨b⟩.
    pub bond_energy_per_site: Estimate,
    /// ⟨p⟩.
    pub plaquette_per_site: Estimate,
    /// ⟨|m|⟩.
    pub abs_magnetization: Estimate,
    /// ⟨m²⟩.
    pub magnetization_squared: Estimate,
    /// χ = L²(⟨m²⟩ − ⟨|m|⟩²).
    pub susceptibility: Estimate,
    /// C = L²(⟨h²⟩ − ⟨h⟩²) with h = −β b − K p (k_B = 1).
    pub specific_heat: Estimate,
    /// U = 1 − ⟨m⁴⟩ / (3⟨m²⟩²).
    pub binder_cumulant: Estimate,
    /// τ_int of h in measurements (Sokal windowing; ½ when h is constant, e.g. β = K = 0).
    pub tau_int_energy: f64,
    /// τ_int of |m| in measurements.
    pub tau_int_abs_magnetization: f64,
    /// Number of measurements.
    pub samples: usize,
}

impl ObservableSummary {
    /// Summarises `series`, measured on an L×L torus (`size`) at `couplings`.
    ///
    /// Needs at least 2 finite measurements. Variances are computed from series shifted by
    /// their mean, so χ and C keep their precision when the fluctuations are tiny.
    pub fn from_series(
        series: &TimeSeries,
        size: usize,
        couplings: &Couplings,
    ) -> Result<Self, ComputeError> {
        validate_size(size)?;
        couplings.validate()?;
        let samples = series.len();
        if samples < 2 {
            return Err(ComputeError::invalid(
                "samples",
                format!("a summary needs at least 2 measurements (got {samples})"),
            ));
        }
        let finite = |v: &[f64]| v.iter().all(|x| x.is_finite());
        if !(finite(series.bond_energy_per_site())
            && finite(series.plaquette_per_site())
            && finite(series.magnetization()))
        {
            return Err(ComputeError::Numerical(
                "the time series holds non-finite measurements".into(),
            ));
        }
        let sites = (size * size) as f64;

        let plain = |v: &[f64]| Estimate::new(mean(v), correlated_error(v));
        let abs_m = series.abs_magnetization();
        let m2: Vec<f64> = series.magnetization().iter().map(|m| m * m).collect();
        let m4: Vec<f64> = m2.iter().map(|x| x * x).collect();
        let energy = series.energy_per_site(couplings);
        let tau_int_energy = integrated_autocorrelation_time(&energy);
        let tau_int_abs_magnetization = integrated_autocorrelation_time(&abs_m);
        let blocks = jackknife_blocks(samples, tau_int_energy.max(tau_int_abs_magnetization));

        // L²·Var(x) by jackknife, on x shifted by its mean (Var is shift invariant).
        let scaled_variance = |v: &[f64]| {
            let centre = mean(v);
            let shifted: Vec<f64> = v.iter().map(|x| x - centre).collect();
            let squared: Vec<f64> = shifted.iter().map(|x| x * x).collect();
            jackknife(&[&shifted, &squared], blocks, |m| {
                sites * (m[1] - m[0] * m[0])
            })
        };
        // ⟨m²⟩ − ⟨|m|⟩² is the variance of |m|.
        let susceptibility = scaled_variance(&abs_m);
        let specific_heat = scaled_variance(&energy);
        let binder_cumulant = jackknife(&[&m2, &m4], blocks, |m| 1.0 - m[1] / (3.0 * m[0] * m[0]));

        Ok(Self {
            size,
            couplings: *couplings,
            bond_energy_per_site: plain(series.bond_energy_per_site()),
            plaquette_per_site: plain(series.plaquette_per_site()),
            abs_magnetization: plain(&abs_m),
            magnetization_squared: plain(&m2),
            susceptibility,
            specific_heat,
            binder_cumulant,
            tau_int_energy,
            tau_int_abs_magnetization,
            samples,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lattice::Start;
    use benchtop_compute::rng::seeded;
    use rand::Rng as _;
    use rand_distr::StandardNormal;

    /// The definitions written out site by site with periodic `get`.
    fn measure_directly(config: &SpinConfig) -> (i64, i64, i64) {
        let l = config.size() as isize;
        let (mut b, mut p, mut m) = (0, 0, 0);
        for y in 0..l {
            for x in 0..l {
                let s = i64::from(config.get(x, y));
                m += s;
                b += s * i64::from(config.get(x + 1, y)) + s * i64::from(config.get(x, y + 1));
                p += s
                    * i64::from(config.get(x + 1, y))
                    * i64::from(config.get(x, y + 1))
                    * i64::from(config.get(x + 1, y + 1));
            }
        }
        (b, p, m)
    }

    fn pattern(size: usize, f: impl Fn(usize, usize) -> bool) -> SpinConfig {
        let spins = (0..size * size)
            .map(|i| if f(i % size, i / size) { 1 } else { -1 })
            .collect();
        SpinConfig::from_spins(size, spins).unwrap()
    }

    #[test]
    fn ordered_and_patterned_lattices() {
        let cold = measure(&SpinConfig::new(8, Start::Cold, 0).unwrap());
        assert_eq!(
            cold,
            Measurement {
                bond_energy_per_site: 2.0,
                plaquette_per_site: 1.0,
                magnetization: 1.0
            }
        );
        let checkerboard = measure(&pattern(8, |x, y| (x + y) % 2 == 0));
        assert_eq!(checkerboard.bond_energy_per_site, -2.0);
        assert_eq!(checkerboard.plaquette_per_site, 1.0);
        assert_eq!(checkerboard.magnetization, 0.0);
        // Vertical stripes of width 1: horizontal bonds −1, vertical bonds +1.
        let stripes = measure(&pattern(8, |x, _| x % 2 == 0));
        assert_eq!(stripes.bond_energy_per_site, 0.0);
        assert_eq!(stripes.plaquette_per_site, 1.0);
        // Horizontal stripes of width 2 on L = 12: half the vertical bonds broken.
        let wide = measure(&pattern(12, |_, y| y % 4 < 2));
        assert_eq!(wide.bond_energy_per_site, 1.0);
        assert_eq!(wide.plaquette_per_site, 1.0);
        // One flipped spin in an ordered 8×8 lattice: 4 bonds and 4 plaquettes turn negative.
        let defect = measure(&pattern(8, |x, y| (x, y) != (7, 7)));
        assert_eq!(defect.bond_energy_per_site, 2.0 - 8.0 / 64.0);
        assert_eq!(defect.plaquette_per_site, 1.0 - 8.0 / 64.0);
        assert_eq!(defect.magnetization, 1.0 - 2.0 / 64.0);
        let energy = defect.energy_per_site(&Couplings {
            beta: 0.5,
            plaquette: 0.25,
        });
        assert_eq!(energy, -0.5 * (2.0 - 0.125) - 0.25 * (1.0 - 0.125));
    }

    #[test]
    fn random_lattices_match_the_definition() {
        for (size, seed) in [(4, 1), (6, 2), (10, 3), (64, 4)] {
            let config = SpinConfig::new(size, Start::Hot, seed).unwrap();
            let (b, p, m) = measure_directly(&config);
            let measured = measure(&config);
            let sites = (size * size) as f64;
            assert_eq!(measured.bond_energy_per_site, b as f64 / sites);
            assert_eq!(measured.plaquette_per_site, p as f64 / sites);
            assert_eq!(measured.magnetization, m as f64 / sites);
            assert_eq!(measured.magnetization, config.magnetization());
        }
    }

    #[test]
    fn time_series_round_trip() {
        let mut series = TimeSeries::new();
        assert!(series.is_empty());
        let first = Measurement {
            bond_energy_per_site: 1.5,
            plaquette_per_site: 0.5,
            magnetization: -0.25,
        };
        series.push(first);
        series.push(Measurement {
            magnetization: 0.5,
            ..first
        });
        assert_eq!(series.len(), 2);
        assert_eq!(series.get(0), Some(first));
        assert_eq!(series.get(2), None);
        assert_eq!(series.abs_magnetization(), vec![0.25, 0.5]);
        let json = serde_json::to_string(&series).unwrap();
        let back: TimeSeries = serde_json::from_str(&json).unwrap();
        assert_eq!(back, series);
    }

    #[test]
    fn summary_of_a_synthetic_series_with_known_answers() {
        // Period 4: m = ±0.5, ±0.25; b alternates 1.0, 1.2; p constant.
        let mut series = TimeSeries::new();
        for i in 0..64 {
            let magnetization = [0.5, -0.5, 0.25, -0.25][i % 4];
            series.push(Measurement {
                bond_energy_per_site: [1.0, 1.2][i % 2],
                plaquette_per_site: 0.3,
                magnetization,
            });
        }
        let size = 8;
        let couplings = Couplings::ising(0.5);
        let summary = ObservableSummary::from_series(&series, size, &couplings).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert_eq!(summary.samples, 64);
        assert!(close(summary.bond_energy_per_site.value, 1.1));
        assert!(close(summary.plaquette_per_site.value, 0.3));
        assert!(summary.plaquette_per_site.error < 1e-15);
        assert!(close(summary.abs_magnetization.value, 0.375));
        assert!(close(summary.magnetization_squared.value, 0.156_25));
        // χ = 64·(0.15625 − 0.375²) = 1; C = 64·Var(−0.5 b) = 64·0.0025 = 0.16.
        assert!(close(summary.susceptibility.value, 1.0));
        assert!(close(summary.specific_heat.value, 0.16));
        // U = 1 − ⟨m⁴⟩/(3⟨m²⟩²) with ⟨m⁴⟩ = (2·0.0625 + 2·0.00390625)/4.
        let m4 = (2.0 * 0.0625 + 2.0 * 0.003_906_25) / 4.0;
        assert!(close(
            summary.binder_cumulant.value,
            1.0 - m4 / (3.0 * 0.156_25 * 0.156_25)
        ));
        // Blocks of two measurements see a perfectly regular series: no spread at all for b.
        assert!(summary.specific_heat.error.abs() < 1e-12);
        let json = serde_json::to_string(&summary).unwrap();
        let back: ObservableSummary = serde_json::from_str(&json).unwrap();
        // JSON keeps every field (the last digit of a float may round differently on reading).
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            serde_json::from_str::<serde_json::Value>(&json).unwrap()
        );
        assert_eq!(back.samples, summary.samples);
    }

    #[test]
    fn summary_errors_of_independent_samples() {
        // Independent Gaussian b with σ = 0.1: binning error ≈ σ/√n, C error ≈ L²β²σ²√(2/n).
        let n = 4096;
        let sigma = 0.1;
        let mut rng = seeded(21);
        let mut series = TimeSeries::with_capacity(n);
        for _ in 0..n {
            let noise: f64 = rng.sample(StandardNormal);
            let spin: f64 = rng.sample(StandardNormal);
            series.push(Measurement {
                bond_energy_per_site: 1.0 + sigma * noise,
                plaquette_per_site: 0.0,
                magnetization: 0.1 * spin,
            });
        }
        let size = 16;
        let beta = 0.5;
        let summary =
            ObservableSummary::from_series(&series, size, &Couplings::ising(beta)).unwrap();
        let n_f = n as f64;
        let expected = sigma / n_f.sqrt();
        assert!((summary.bond_energy_per_site.error / expected - 1.0).abs() < 0.1);
        let c_expected = 256.0 * beta * beta * sigma * sigma;
        assert!((summary.specific_heat.value / c_expected - 1.0).abs() < 0.1);
        let c_error = c_expected * (2.0 / n_f).sqrt();
        assert!((summary.specific_heat.error / c_error - 1.0).abs() < 0.3);
        assert!((summary.tau_int_energy - 0.5).abs() < 0.1);
        assert!((summary.tau_int_abs_magnetization - 0.5).abs() < 0.1);
        // Gaussian m: U = 1 − 3σ⁴/(3σ⁴) = 0.
        assert!(summary.binder_cumulant.value.abs() < 4.0 * summary.binder_cumulant.error);
    }

    #[test]
    fn summary_rejects_bad_input() {
        let mut series = TimeSeries::new();
        let couplings = Couplings::ising(0.3);
        assert!(ObservableSummary::from_series(&series, 8, &couplings).is_err());
        series.push(Measurement {
            bond_energy_per_site: 1.0,
            plaquette_per_site: 0.0,
            magnetization: f64::NAN,
        });
        series.push(Measurement {
            bond_energy_per_site: 1.0,
            plaquette_per_site: 0.0,
            magnetization: 0.0,
        });
        assert!(ObservableSummary::from_series(&series, 8, &couplings).is_err());
        let error = ObservableSummary::from_series(&TimeSeries::new(), 8, &couplings).unwrap_err();
        assert!(error.to_string().contains("samples"), "{error}");
    }
}
