//! The model's couplings and the Metropolis acceptance table they imply.
//!
//! H(s) = −β Σ_⟨ij⟩ s_i s_j − K Σ_□ s₁s₂s₃s₄ on an L×L torus, with weight e^{−H}.
//! K = 0 is the plain Ising model.

use benchtop_compute::ComputeError;
use serde::{Deserialize, Serialize};

/// Critical coupling of the square-lattice Ising model, β_c = ½ ln(1 + √2).
pub const BETA_CRITICAL: f64 = 0.440_686_793_509_771_5;

/// Nearest-neighbour coupling β and plaquette coupling K (both in units of k_B T).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Couplings {
    /// Nearest-neighbour coupling β = J / k_B T (ferromagnetic when positive).
    pub beta: f64,
    /// Four-spin plaquette coupling K.
    pub plaquette: f64,
}

impl Default for Couplings {
    fn default() -> Self {
        Self {
            beta: BETA_CRITICAL,
            plaquette: 0.0,
        }
    }
}

impl Couplings {
    /// Couplings of the plain Ising model (K = 0).
    pub fn ising(beta: f64) -> Self {
        Self {
            beta,
            plaquette: 0.0,
        }
    }

    /// Checks that both couplings are finite, β ≥ 0 and |K| ≤ 10.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !self.beta.is_finite() || self.beta < 0.0 {
            return Err(ComputeError::invalid(
                "beta",
                format!(
                    "β must be a finite number ≥ 0 (got {}); negative β is the antiferromagnet, \
                     which this panel does not model",
                    self.beta
                ),
            ));
        }
        if self.beta > 100.0 {
            return Err(ComputeError::invalid(
                "beta",
                format!("β = {} is absurdly cold; use β ≤ 100", self.beta),
            ));
        }
        if !self.plaquette.is_finite() || self.plaquette.abs() > 10.0 {
            return Err(ComputeError::invalid(
                "plaquette",
                format!(
                    "K must be a finite number with |K| ≤ 10 (got {})",
                    self.plaquette
                ),
            ));
        }
        Ok(())
    }

    /// Energy change H(flipped) − H(current) of flipping one spin that has `aligned`
    /// (0..=4) neighbours equal to it and `positive_plaquettes` (0..=4) of its four plaquettes
    /// with product +1.
    pub fn flip_energy(&self, aligned: u32, positive_plaquettes: u32) -> f64 {
        let a = f64::from(aligned);
        let q = f64::from(positive_plaquettes);
        2.0 * self.beta * (2.0 * a - 4.0) + 2.0 * self.plaquette * (2.0 * q - 4.0)
    }

    /// The largest |ΔH| of any flip, 8|β| + 8|K| (some class of the table has it).
    pub fn max_flip_energy(&self) -> f64 {
        8.0 * self.beta.abs() + 8.0 * self.plaquette.abs()
    }

    /// The weight λ of heat-bath acceptance in the checkerboard's rule (see [`FlipTable`]):
    /// 1 − D/[`HEAT_BATH_SCALE`] with D = [`Self::max_flip_energy`], and 0 once D ≥ that scale.
    pub fn heat_bath_weight(&self) -> f64 {
        (1.0 - self.max_flip_energy() / HEAT_BATH_SCALE).max(0.0)
    }

    /// The acceptance table of the canonical checkerboard sampler (see [`FlipTable`]):
    /// Metropolis blended with heat bath by [`Self::heat_bath_weight`].
    pub fn flip_table(&self) -> FlipTable {
        let weight = self.heat_bath_weight();
        self.table(|delta| {
            if weight == 0.0 {
                acceptance_threshold(delta)
            } else {
                blended_threshold(delta, weight)
            }
        })
    }

    /// The plain Metropolis table, min(1, e^{−ΔH}) (the single-spin sampler's rule).
    pub fn metropolis_table(&self) -> FlipTable {
        self.table(acceptance_threshold)
    }

    fn table(&self, threshold: impl Fn(f64) -> u32) -> FlipTable {
        let mut thresholds = [0_u32; 25];
        for aligned in 0..5_u32 {
            for positive in 0..5_u32 {
                let delta = self.flip_energy(aligned, positive);
                thresholds[(aligned * 5 + positive) as usize] = threshold(delta);
            }
        }
        FlipTable { thresholds }
    }
}

/// The scale of [`Couplings::heat_bath_weight`]: couplings whose costliest flip has
/// ΔH ≥ 2 (β ≥ ¼ when K = 0) use plain Metropolis.
pub const HEAT_BATH_SCALE: f64 = 2.0;

/// Acceptance thresholds as 32-bit integers, indexed by `aligned * 5 + positive`.
///
/// A flip is accepted when a uniform 32-bit integer R satisfies R < threshold, where the
/// threshold is ⌊a(ΔH)·2³²⌋ for the acceptance probability a; `u32::MAX` marks "always accept"
/// (no random number needed). Every backend uses this one table, so CPU, wgpu and CUDA accept
/// exactly the same flips.
///
/// The checkerboard's rule ([`Couplings::flip_table`]) is
/// a(ΔH) = (1 − λ)·min(1, e^{−ΔH}) + λ/(1 + e^{ΔH}): Metropolis blended with heat bath. Both
/// satisfy detailed balance, a(ΔH) = e^{−ΔH}·a(−ΔH), so every blend does. Plain Metropolis
/// (λ = 0) accepts every flip with ΔH ≤ 0; when all |ΔH| are small (β, K → 0) it accepts
/// almost everything, and a checkerboard sweep, which visits every site in a fixed order,
/// becomes nearly deterministic: at β = K = 0 it flips every spin every sweep and a cold start
/// stays ordered forever (|m| = 1, bond energy 2 instead of 0). The heat-bath weight
/// λ = max(0, 1 − D/2), D = 8|β| + 8|K| the costliest flip, makes the rule exactly heat bath
/// (a = ½, independent spins after one sweep) at β = K = 0, and leaves plain Metropolis, the
/// faster sampler near β_c and below, wherever D ≥ 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlipTable {
    /// The 25 thresholds.
    pub thresholds: [u32; 25],
}

impl FlipTable {
    /// The threshold for a spin with `aligned` equal neighbours and `positive` +1 plaquettes.
    pub fn threshold(&self, aligned: u32, positive: u32) -> u32 {
        self.thresholds[(aligned * 5 + positive) as usize]
    }
}

/// ⌊min(1, e^{−ΔH})·2³²⌋ saturated to `u32::MAX`, which means "always accept".
pub fn acceptance_threshold(delta_energy: f64) -> u32 {
    if delta_energy <= 0.0 {
        return u32::MAX;
    }
    probability_threshold((-delta_energy).exp())
}

/// The threshold of (1 − λ)·min(1, e^{−ΔH}) + λ/(1 + e^{ΔH}) for heat-bath weight λ ∈ [0, 1].
pub fn blended_threshold(delta_energy: f64, heat_bath_weight: f64) -> u32 {
    let metropolis = (-delta_energy).exp().min(1.0);
    let heat_bath = 1.0 / (1.0 + delta_energy.exp());
    probability_threshold((1.0 - heat_bath_weight) * metropolis + heat_bath_weight * heat_bath)
}

/// ⌊p·2³²⌋ for a probability p, saturated to `u32::MAX` ("always accept").
fn probability_threshold(probability: f64) -> u32 {
    let scaled = probability * 4_294_967_296.0;
    if scaled >= 4_294_967_295.0 {
        u32::MAX
    } else {
        // In range [0, 2^32 − 1) by the check above; truncation is the definition.

        scaled as u32
    }
}

/// The Kramers–Wannier dual coupling β*, defined by sinh 2β · sinh 2β* = 1.
pub fn kramers_wannier_dual(beta: f64) -> f64 {
    0.5 * (1.0 / (2.0 * beta).sinh()).asinh()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn critical_coupling_is_self_dual() {
        assert!((BETA_CRITICAL - 0.5 * (1.0 + 2.0_f64.sqrt()).ln()).abs() < 1e-15);
        assert!((kramers_wannier_dual(BETA_CRITICAL) - BETA_CRITICAL).abs() < 1e-12);
    }

    #[test]
    fn dual_satisfies_sinh_identity_and_is_an_involution() {
        for beta in [0.05, 0.1, 0.2, 0.3, 0.44, 0.6, 0.8, 1.5] {
            let dual = kramers_wannier_dual(beta);
            assert!(((2.0 * beta).sinh() * (2.0 * dual).sinh() - 1.0).abs() < 1e-12);
            assert!((kramers_wannier_dual(dual) - beta).abs() < 1e-10);
        }
        assert!((kramers_wannier_dual(0.2) - 0.811_324).abs() < 1e-6);
    }

    #[test]
    fn flip_table_matches_boltzmann_factors() {
        let couplings = Couplings {
            beta: 0.4,
            plaquette: 0.1,
        };
        let table = couplings.flip_table();
        // Two aligned neighbours and two positive plaquettes: ΔH = 0, always accepted.
        assert_eq!(table.threshold(2, 2), u32::MAX);
        // All aligned, all positive: ΔH = 8β + 8K.
        let expected = (-(8.0 * 0.4 + 8.0 * 0.1_f64)).exp() * 2f64.powi(32);
        assert!((f64::from(table.threshold(4, 4)) - expected).abs() <= 1.0);
        assert_eq!(table.threshold(0, 0), u32::MAX);
        assert_eq!(
            couplings.metropolis_table(),
            table,
            "D = 4 ≥ 2: plain Metropolis"
        );
    }

    #[test]
    fn small_couplings_blend_in_heat_bath() {
        // β = K = 0: every flip is accepted with probability ½, by every backend's table.
        let free = Couplings::ising(0.0);
        assert_eq!(free.heat_bath_weight(), 1.0);
        assert!(free.flip_table().thresholds.iter().all(|&t| t == 1 << 31));
        // Plain Metropolis would accept every flip: a deterministic checkerboard sweep.
        assert!(
            free.metropolis_table()
                .thresholds
                .iter()
                .all(|&t| t == u32::MAX)
        );
        // β = 0.05: λ = 0.8; ΔH = 0 is accepted with 0.2 + 0.8·½ = 0.6.
        let warm = Couplings::ising(0.05);
        assert!((warm.heat_bath_weight() - 0.8).abs() < 1e-12);
        let table = warm.flip_table();
        let expected = 0.6 * 2f64.powi(32);
        assert!((f64::from(table.threshold(2, 0)) - expected).abs() <= 1.0);
        // Detailed balance a(ΔH) = e^{−ΔH}·a(−ΔH) between 0 and 4 aligned neighbours.
        let (down, up) = (
            f64::from(table.threshold(0, 0)),
            f64::from(table.threshold(4, 0)),
        );
        assert!((up / down - (-0.4_f64).exp()).abs() < 1e-8, "{up} / {down}");
        // At and below β_c the rule is plain Metropolis.
        for beta in [0.25, BETA_CRITICAL, 1.0] {
            let couplings = Couplings::ising(beta);
            assert_eq!(couplings.heat_bath_weight(), 0.0);
            assert_eq!(couplings.flip_table(), couplings.metropolis_table());
        }
        // The plaquette coupling counts towards D as well.
        let plaquette = Couplings {
            beta: 0.0,
            plaquette: 0.1,
        };
        assert!((plaquette.heat_bath_weight() - 0.6).abs() < 1e-12);
    }

    #[test]
    fn validation_names_the_parameter() {
        let error = Couplings {
            beta: -0.1,
            plaquette: 0.0,
        }
        .validate()
        .unwrap_err();
        assert!(error.to_string().contains("beta"), "{error}");
        let error = Couplings {
            beta: 0.3,
            plaquette: f64::NAN,
        }
        .validate()
        .unwrap_err();
        assert!(error.to_string().contains("plaquette"), "{error}");
        assert!(Couplings::default().validate().is_ok());
    }
}
