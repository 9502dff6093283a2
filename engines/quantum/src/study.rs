//! How shadow estimates converge on one chain: many independent sets of M snapshots for a few
//! M, the estimates of ⟨Z₀Z₁⟩ (a 2-local Pauli string, variance ≤ 3²/M), of C₀₁ (≤ 3/M) and of
//! the Rényi-2 entropy of the first block, against their exact values.

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::dataset::SystemParams;
use crate::hamiltonian::Chain;
use crate::lanczos::{LanczosSettings, ground_state};
use crate::observables::{self, Pauli};
use crate::shadows::{self, check_snapshots, mean};

/// The study's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StudyParams {
    /// The largest M; the study also uses M/100 and M/10 (at least 2).
    pub max_snapshots: usize,
    /// Independent estimates per M.
    pub repeats: usize,
}

impl Default for StudyParams {
    fn default() -> Self {
        Self {
            max_snapshots: 1000,
            repeats: 100,
        }
    }
}

impl StudyParams {
    /// The M values.
    pub fn snapshot_counts(&self) -> Vec<usize> {
        let mut ms: Vec<usize> = [
            self.max_snapshots / 100,
            self.max_snapshots / 10,
            self.max_snapshots,
        ]
        .iter()
        .map(|&m| m.max(2))
        .collect();
        ms.dedup();
        ms
    }

    /// Checks every field, errors naming `prefix.key`.
    pub fn validate(&self, prefix: &str) -> Result<(), ComputeError> {
        check_snapshots(&format!("{prefix}.max_snapshots"), self.max_snapshots)?;
        benchtop_learn::settings::whole_in(&format!("{prefix}.repeats"), self.repeats, 2..=10_000)
    }
}

/// The estimates at one M.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudyPoint {
    /// M.
    pub snapshots: usize,
    /// Estimates of ⟨Z₀Z₁⟩, one per repeat.
    pub zz: Vec<f64>,
    /// Estimates of C₀₁.
    pub correlation: Vec<f64>,
    /// Estimates of S₂ of the first block (bits).
    pub entropy: Vec<f64>,
}

/// Sample variance.
pub fn variance(values: &[f64]) -> f64 {
    if values.len() < 2 {
        return f64::NAN;
    }
    let m = mean(values);
    values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (values.len() as f64 - 1.0)
}

impl StudyPoint {
    /// M·Var of the ⟨Z₀Z₁⟩ estimates (bound 9).
    pub fn zz_scaled_variance(&self) -> f64 {
        variance(&self.zz) * self.snapshots as f64
    }

    /// M·Var of the C₀₁ estimates (bound 3).
    pub fn correlation_scaled_variance(&self) -> f64 {
        variance(&self.correlation) * self.snapshots as f64
    }
}

/// The study's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Study {
    /// The chain.
    pub chain: Chain,
    /// Its block.
    pub block: Vec<usize>,
    /// Exact ⟨Z₀Z₁⟩.
    pub exact_zz: f64,
    /// Exact C₀₁.
    pub exact_correlation: f64,
    /// Exact S₂ of the block (bits).
    pub exact_entropy: f64,
    /// One per M.
    pub points: Vec<StudyPoint>,
}

/// The bound on M·Var of a k-local Pauli string's estimate.
pub fn pauli_bound(k: usize) -> f64 {
    3_f64.powi(k as i32)
}

/// Runs the study on a chain of `system`'s property model drawn from `seed`.
pub fn study(
    system: &SystemParams,
    params: &StudyParams,
    lanczos: &LanczosSettings,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<Study, ComputeError> {
    system.validate("system")?;
    params.validate("shadows")?;
    let mut rng = seeded(seed);
    let chain = Chain::random(
        system.property_model,
        system.boundary,
        system.sites,
        system.j_max,
        system.h_max,
        system.uniform_field,
        &mut rng,
    )?;
    progress.set(0.0, "ground state");
    let psi = ground_state(&chain, derive_seed(seed, 1), lanczos, cancel)?.vector;
    let block: Vec<usize> = (0..system.block).collect();
    let zz_ops = [(0, Pauli::Z), (1, Pauli::Z)];
    let exact_zz = observables::pauli_expectation(&psi, &zz_ops);
    let exact_correlation = observables::correlations(&psi, system.sites)[(0, 1)];
    let exact_entropy = observables::renyi2_bits(observables::purity(&psi, &block));
    let counts = params.snapshot_counts();
    let total: usize = counts.iter().sum::<usize>() * params.repeats;
    let mut done = 0;
    let mut points = Vec::new();
    for (k, &m) in counts.iter().enumerate() {
        let estimates: Vec<(f64, f64, f64)> = (0..params.repeats)
            .into_par_iter()
            .map(|r| {
                cancel.check()?;
                let mut rng = seeded(derive_seed(seed, 1000 * (k as u64 + 1) + r as u64));
                let snaps = shadows::sample(&psi, system.sites, m, &mut rng)?;
                Ok((
                    snaps.pauli(&zz_ops),
                    mean(&snaps.correlation_samples(0, 1)),
                    snaps.renyi2_bits(&block),
                ))
            })
            .collect::<Result<_, ComputeError>>()?;
        done += m * params.repeats;
        progress.set(
            done as f64 / total.max(1) as f64,
            format!("{} sets of {m} snapshots", params.repeats),
        );
        points.push(StudyPoint {
            snapshots: m,
            zz: estimates.iter().map(|e| e.0).collect(),
            correlation: estimates.iter().map(|e| e.1).collect(),
            entropy: estimates.iter().map(|e| e.2).collect(),
        });
    }
    Ok(Study {
        chain,
        block,
        exact_zz,
        exact_correlation,
        exact_entropy,
        points,
    })
}

/// The known answers, computed: what the panel's summary reports for its tests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KnownAnswers {
    /// C₀₁ of the two-site Heisenberg ground state (exact: −1).
    pub singlet_correlation: f64,
    /// E₀ of the four-site Heisenberg ring with J = 1 (exact: −2).
    pub ring_energy: f64,
    /// E₀ of the two-site TFIM with J = 1, h = 0.6 (exact: −√(1 + 4·0.36) = −√2.44).
    pub tfim_pair_energy: f64,
    /// The largest |E_Lanczos − E_dense| over random chains of 2 to 8 sites, both models,
    /// both boundaries.
    pub lanczos_vs_dense: f64,
}

/// Computes [`KnownAnswers`].
pub fn known_answers(
    lanczos: &LanczosSettings,
    cancel: &CancelToken,
) -> Result<KnownAnswers, ComputeError> {
    use crate::hamiltonian::{Boundary, Model};
    let singlet = Chain::heisenberg(Boundary::Open, vec![1.0])?;
    let psi = ground_state(&singlet, 1, lanczos, cancel)?.vector;
    let singlet_correlation = observables::correlations(&psi, 2)[(0, 1)];
    let ring = Chain::heisenberg(Boundary::Periodic, vec![1.0; 4])?;
    let ring_energy = ground_state(&ring, 1, lanczos, cancel)?.energy;
    let pair = Chain::tfim(Boundary::Open, vec![1.0], vec![0.6, 0.6])?;
    let tfim_pair_energy = ground_state(&pair, 1, lanczos, cancel)?.energy;
    let mut rng = seeded(2025);
    let mut worst = 0.0_f64;
    for sites in 2..=8 {
        for model in [Model::Heisenberg, Model::Tfim] {
            for boundary in [Boundary::Open, Boundary::Periodic] {
                cancel.check()?;
                let chain = Chain::random(model, boundary, sites, 2.0, 2.0, false, &mut rng)?;
                let lanczos_energy = ground_state(&chain, 3, lanczos, cancel)?.energy;
                let dense = nalgebra::SymmetricEigen::new(chain.dense()?)
                    .eigenvalues
                    .min();
                worst = worst.max((lanczos_energy - dense).abs());
            }
        }
    }
    Ok(KnownAnswers {
        singlet_correlation,
        ring_energy,
        tfim_pair_energy,
        lanczos_vs_dense: worst,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantum_the_study_converges_and_the_known_answers_hold() {
        let system = SystemParams {
            sites: 6,
            ..SystemParams::default()
        };
        let params = StudyParams {
            max_snapshots: 400,
            repeats: 200,
        };
        let study = study(
            &system,
            &params,
            &LanczosSettings::default(),
            4,
            &Progress::new(),
            &CancelToken::new(),
        )
        .unwrap();
        assert_eq!(study.points.len(), 3);
        let mut last_error = f64::INFINITY;
        for point in &study.points {
            assert!(
                point.zz_scaled_variance() <= 1.3 * pauli_bound(2),
                "{}",
                point.zz_scaled_variance()
            );
            assert!(point.correlation_scaled_variance() <= 1.3 * 3.0);
            let error = (mean(&point.correlation) - study.exact_correlation).abs();
            assert!(error < 4.0 * (3.0 / (point.snapshots * params.repeats) as f64).sqrt());
            last_error = error;
        }
        assert!(last_error < 0.02);
        let big = study.points.last().unwrap();
        assert!((mean(&big.entropy) - study.exact_entropy).abs() < 0.1);

        let known = known_answers(&LanczosSettings::default(), &CancelToken::new()).unwrap();
        assert!((known.singlet_correlation + 1.0).abs() < 1e-12);
        assert!((known.ring_energy + 2.0).abs() < 1e-12);
        assert!((known.tfim_pair_energy + 2.44_f64.sqrt()).abs() < 1e-12);
        assert!(known.lanczos_vs_dense < 1e-10);
    }
}
