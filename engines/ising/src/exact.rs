//! Exact results: Onsager's solution and exact enumeration of small tori.
//!
//! - [`onsager_nn_correlation`], [`onsager_specific_heat`] and [`spontaneous_magnetization`]
//!   are the infinite-lattice answers of the plain Ising model (K = 0, k_B = 1).
//! - [`exact_averages`] sums over all 2^(L²) states of a small torus, for any couplings
//!   (β, K), with the same observable definitions as [`crate::observables`].
//! - [`finite_torus`] is Kaufman's exact solution of the plain Ising model on an L×L torus of
//!   any size: the bond energy and specific heat a Monte Carlo run at that L converges to.

use benchtop_compute::ComputeError;
use serde::{Deserialize, Serialize};

use crate::couplings::Couplings;

/// The arithmetic–geometric mean of 1 and `b` (0 ≤ b ≤ 1), together with AGM(1, b) − b.
///
/// `one_minus_b` must be 1 − b computed without cancellation; the difference AGM − b is then
/// tracked directly, so it keeps full relative precision when b is close to 1.
fn agm_from_one(b: f64, one_minus_b: f64) -> (f64, f64) {
    if b <= 0.0 {
        return (0.0, 0.0);
    }
    // a = b + da, g = b + dg.
    let mut da = one_minus_b;
    let mut dg = 0.0_f64;
    for _ in 0..64 {
        let a = b + da;
        let g = b + dg;
        // Quadratic convergence: once a and g agree to 1e-9 of their distance from b, the
        // remaining correction to (a + g) / 2 is below 1e-18 of it.
        if (da - dg).abs() <= 1e-9 * da.abs().max(dg.abs()) {
            break;
        }
        let next_da = 0.5 * (da + dg);
        let product_minus_b2 = b * (da + dg) + da * dg;
        let next_g = (a * g).sqrt();
        dg = product_minus_b2 / (next_g + b);
        da = next_da;
    }
    (b + 0.5 * (da + dg), 0.5 * (da + dg))
}

/// Complete elliptic integrals 𝕂(k) and 𝔼(k) of modulus k, from k and k' = √(1 − k²) (both
/// given, so that neither loses precision near 0 or 1). 𝕂(1) = +∞, 𝔼(1) = 1.
fn elliptic_k_e(k: f64, k_complement: f64) -> (f64, f64) {
    if k_complement <= 0.0 {
        return (f64::INFINITY, 1.0);
    }
    let mut a = 1.0_f64;
    let mut g = k_complement;
    let mut c = k;
    let mut weight = 0.5_f64;
    let mut sum = weight * c * c;
    for _ in 0..64 {
        // Stop before the differences reach rounding noise, which the growing weights 2^n
        // would amplify; the neglected terms are below 1e-17.
        if (a - g).abs() <= 1e-9 * a {
            break;
        }
        c = 0.5 * (a - g);
        let next_a = 0.5 * (a + g);
        g = (a * g).sqrt();
        a = next_a;
        weight *= 2.0;
        sum += weight * c * c;
    }
    // (a + g) / 2 is within O((a − g)²) of the AGM.
    let complete_k = std::f64::consts::PI / (a + g);
    (complete_k, complete_k * (1.0 - sum))
}

/// The elliptic modulus of Onsager's solution at coupling β ≥ 0: (k, k', σ) with
/// k = 2 sinh 2β / cosh² 2β, k' = |1 − sinh² 2β| / cosh² 2β and σ = sign(1 − sinh² 2β)
/// (+1 in the high-temperature phase).
fn onsager_modulus(beta: f64) -> (f64, f64, f64) {
    let s = (2.0 * beta).sinh();
    let c2 = 1.0 + s * s;
    let one_minus_s2 = (1.0 - s) * (1.0 + s);
    let sigma = if one_minus_s2 >= 0.0 { 1.0 } else { -1.0 };
    (2.0 * s / c2, one_minus_s2.abs() / c2, sigma)
}

/// Onsager's nearest-neighbour correlation u(β) = ⟨s_i s_j⟩ of the infinite square lattice
/// (K = 0), u = coth 2β·[½ + (1/π)(2 tanh² 2β − 1)·𝕂(k)], k = 2 sinh 2β / cosh² 2β.
///
/// The bond energy per site in the thermodynamic limit is 2u (two bonds per site). Special
/// values: u(0) = 0, u(β_c) = √2/2 (where 𝕂 diverges but its prefactor vanishes), u → 1 as
/// β → ∞, and u(−β) = −u(β) (the antiferromagnet, by flipping one sublattice). In the
/// high-temperature phase the bracket is evaluated without cancellation, so u ≈ tanh β keeps
/// full relative precision for tiny β. NaN gives NaN.
pub fn onsager_nn_correlation(beta: f64) -> f64 {
    if beta.is_nan() {
        return f64::NAN;
    }
    if beta < 0.0 {
        return -onsager_nn_correlation(-beta);
    }
    if beta == 0.0 {
        return 0.0;
    }
    if beta.is_infinite() {
        return 1.0;
    }
    let (_, k_complement, sigma) = onsager_modulus(beta);
    let coth = 1.0 / (2.0 * beta).tanh();
    if k_complement == 0.0 {
        // β = β_c to the last bit: the limit of the bracket is ½.
        return 0.5 * coth;
    }
    // With M = AGM(1, k'), 𝕂 = π / (2M) and (2 tanh² 2β − 1) = −σ k', the bracket is
    // (M − σ k') / (2M).
    let s = (2.0 * beta).sinh();
    let c2 = 1.0 + s * s;
    let one_minus_kc = if sigma > 0.0 {
        2.0 * s * s / c2
    } else {
        2.0 / c2
    };
    let (mean, mean_minus_kc) = agm_from_one(k_complement, one_minus_kc);
    let numerator = if sigma > 0.0 {
        mean_minus_kc
    } else {
        mean + k_complement
    };
    coth * numerator / (2.0 * mean)
}

/// Onsager's specific heat per site of the infinite square lattice (K = 0, k_B = 1):
///
/// C = (4/π)(β coth 2β)²·{𝕂(k) − 𝔼(k) − (1 − tanh² 2β)[π/2 + (2 tanh² 2β − 1)𝕂(k)]}.
///
/// It equals 2β²·du/dβ with u from [`onsager_nn_correlation`]. C diverges logarithmically at
/// β_c; when k' = 0 exactly (β = β_c to the last bit) this returns `f64::INFINITY`, and
/// arbitrarily close to β_c a large finite number. C(0) = 0, C(−β) = C(β), NaN gives NaN.
pub fn onsager_specific_heat(beta: f64) -> f64 {
    if beta.is_nan() {
        return f64::NAN;
    }
    let beta = beta.abs();
    if beta == 0.0 || beta.is_infinite() {
        return 0.0;
    }
    let (k, k_complement, sigma) = onsager_modulus(beta);
    if k_complement == 0.0 {
        return f64::INFINITY;
    }
    let (complete_k, complete_e) = elliptic_k_e(k, k_complement);
    let t = (2.0 * beta).tanh();
    let prefactor = beta / t;
    let one_minus_t2 = 1.0 / (2.0 * beta).cosh().powi(2);
    let bracket = complete_k
        - complete_e
        - one_minus_t2 * (std::f64::consts::FRAC_PI_2 - sigma * k_complement * complete_k);
    2.0 * std::f64::consts::FRAC_2_PI * prefactor * prefactor * bracket
}

/// Yang's spontaneous magnetisation per site, (1 − sinh⁻⁴ 2β)^{1/8} for β > β_c, else 0.
pub fn spontaneous_magnetization(beta: f64) -> f64 {
    if beta.is_nan() {
        return f64::NAN;
    }
    let s = (2.0 * beta).sinh();
    if s <= 1.0 {
        return 0.0;
    }
    (1.0 - s.powi(-4)).max(0.0).powf(0.125)
}

/// Exact bond energy and specific heat of the plain Ising model (K = 0) on one L×L torus.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FiniteTorus {
    /// The side L.
    pub size: usize,
    /// The coupling β.
    pub beta: f64,
    /// ⟨b⟩, the bond energy per site, as in [`crate::observables`].
    pub bond_energy_per_site: f64,
    /// C = L²(⟨h²⟩ − ⟨h⟩²) with h = −β b (k_B = 1); finite at β_c on a finite torus.
    pub specific_heat: f64,
}

/// Below this β the torus differs from the infinite lattice by less than tanh(β)^L ≤ 10⁻¹²
/// (only graphs that wrap around the torus see its size), and [`finite_torus`] returns
/// Onsager's values, which keep full precision there.
const FINITE_TORUS_SMALL_BETA: f64 = 1e-3;

/// ln(2 cosh x), without overflow.
fn ln_two_cosh(x: f64) -> f64 {
    x.abs() + (-2.0 * x.abs()).exp().ln_1p()
}

/// ln |2 sinh x|, without overflow (−∞ at x = 0).
fn ln_two_sinh_abs(x: f64) -> f64 {
    x.abs() + (-(-2.0 * x.abs()).exp()).ln_1p()
}

/// ln Z and d ln Z / dβ of the L×L torus at β > 0, by Kaufman's formula
/// Z = ½ (2 sinh 2β)^{L²/2} (Z₁ + Z₂ + Z₃ + Z₄) with
/// Z₁,₂ = Π_{r<L} 2 cosh, 2 sinh (L γ_{2r+1} / 2) and Z₃,₄ = Π_{r<L} 2 cosh, 2 sinh (L γ_{2r} / 2),
/// cosh γ_k = cosh 2β coth 2β − cos(πk/L) for k ≥ 1 and γ₀ = 2β + ln tanh β (negative above
/// T_c, which makes Z₄ negative). Sums are kept as logarithms (Z overflows from L ≈ 30 on).
fn kaufman_log_partition(size: usize, beta: f64) -> (f64, f64) {
    let l = size as f64;
    let (s2, c2) = ((2.0 * beta).sinh(), (2.0 * beta).cosh());
    let base = c2 * c2 / s2;
    let base_derivative = 2.0 * c2 * (1.0 - 1.0 / (s2 * s2));
    // (ln |Z_i|, d ln |Z_i| / dβ) of the k ≥ 1 factors; for Z₃ and Z₄ the r = 0 factor (γ₀) is
    // added below.
    let mut products = [(0.0, 0.0); 4];
    for r in 0..size {
        let odd = 2 * r + 1;
        let mut factors = vec![(odd, 0_usize)];
        if r > 0 {
            factors.push((2 * r, 2));
        }
        for (k, slot) in factors {
            let angle = std::f64::consts::PI * k as f64 / l;
            let gamma = (base - angle.cos()).acosh();
            let x = 0.5 * l * gamma;
            let dx = 0.5 * l * base_derivative / gamma.sinh();
            products[slot].0 += ln_two_cosh(x);
            products[slot].1 += dx * x.tanh();
            products[slot + 1].0 += ln_two_sinh_abs(x);
            products[slot + 1].1 += dx / x.tanh();
        }
    }
    let gamma0 = 2.0 * beta + beta.tanh().ln();
    let x0 = 0.5 * l * gamma0;
    let dx0 = 0.5 * l * (2.0 + 2.0 / s2);
    // Z₃ = 2 cosh x₀ · R₃ and Z₄ = 2 sinh x₀ · R₄: the magnitudes, then each term's value and
    // derivative relative to the largest (R₄ ≤ R₃, so no term overflows).
    let (r3, r4) = (products[2], products[3]);
    let logs = [
        products[0].0,
        products[1].0,
        r3.0 + ln_two_cosh(x0),
        r4.0 + ln_two_sinh_abs(x0),
    ];
    let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let scaled = |log: f64| (log - top).exp();
    let sign4 = if x0 < 0.0 { -1.0 } else { 1.0 };
    let values = [
        scaled(logs[0]),
        scaled(logs[1]),
        scaled(logs[2]),
        sign4 * scaled(logs[3]),
    ];
    let derivatives = [
        values[0] * products[0].1,
        values[1] * products[1].1,
        values[2] * (r3.1 + dx0 * x0.tanh()),
        // d(2 sinh x₀ · R₄) = 2 cosh x₀ · x₀' · R₄ + 2 sinh x₀ · R₄ · (ln R₄)'.
        scaled(r4.0 + ln_two_cosh(x0)) * dx0 + values[3] * r4.1,
    ];
    let total: f64 = values.iter().sum();
    let total_derivative: f64 = derivatives.iter().sum();
    let sites = l * l;
    let log_z = -std::f64::consts::LN_2 + 0.5 * sites * (2.0 * s2).ln() + top + total.ln();
    let derivative = sites * c2 / s2 + total_derivative / total;
    (log_z, derivative)
}

/// The bond energy per site of the L×L torus from Kaufman's formula (β ≥ the small-β cut).
fn kaufman_bond_energy(size: usize, beta: f64) -> f64 {
    let sites = (size * size) as f64;
    kaufman_log_partition(size, beta).1 / sites
}

/// Kaufman's exact solution of the plain Ising model (K = 0) on the L×L torus at coupling β:
/// the bond energy per site ⟨b⟩ = (1/L²) ∂ ln Z/∂β and the specific heat C = β² ∂⟨b⟩/∂β.
///
/// This is what a Monte Carlo run at that L converges to, finite-size corrections included:
/// at β_c the torus has ⟨b⟩ ≈ √2 + 0.6224/L (1.41664 at L = 256, against Onsager's
/// 1.41421), and a finite C. Agrees with [`exact_averages`] at L = 4. Any L from
/// [`crate::lattice::MIN_SIZE`] to [`crate::lattice::MAX_SIZE`] (O(L) work); β must be a
/// finite number ≥ 0. For β < 10⁻³ Onsager's infinite-lattice values are returned: the torus
/// differs from them by less than tanh(β)^L ≤ 10⁻¹².
pub fn finite_torus(size: usize, beta: f64) -> Result<FiniteTorus, ComputeError> {
    crate::lattice::validate_size(size)?;
    Couplings::ising(beta).validate()?;
    let (bond, heat) = if beta < FINITE_TORUS_SMALL_BETA {
        (
            2.0 * onsager_nn_correlation(beta),
            onsager_specific_heat(beta),
        )
    } else {
        // Five-point derivative; b varies on the scale 1/L near β_c.
        let step = 1e-3 * beta.min(1.0) / size as f64;
        let at = |offset: f64| kaufman_bond_energy(size, beta + offset * step);
        let slope = (at(-2.0) - 8.0 * at(-1.0) + 8.0 * at(1.0) - at(2.0)) / (12.0 * step);
        (kaufman_bond_energy(size, beta), beta * beta * slope)
    };
    Ok(FiniteTorus {
        size,
        beta,
        bond_energy_per_site: bond,
        specific_heat: heat,
    })
}

/// ⟨|m|⟩ of `sites` independent ±1 spins (β = K = 0, any lattice):
/// C(N − 1, ⌊(N − 1)/2⌋) / 2^{N−1} ≈ √(2/(πN)). (⟨m²⟩ = 1/N and ⟨b⟩ = ⟨p⟩ = 0 there.)
/// NaN for 0 sites.
pub fn infinite_temperature_abs_magnetization(sites: usize) -> f64 {
    if sites == 0 {
        return f64::NAN;
    }
    // With n = N − 1 = 2k (+1): C(2k, k)/4^k, times (2k + 1)/(2k + 2) when n is odd.
    let n = sites - 1;
    let k = n / 2;
    let central = if k <= 4096 {
        (1..=k).fold(1.0, |product, i| {
            let i = i as f64;
            product * (2.0 * i - 1.0) / (2.0 * i)
        })
    } else {
        // The asymptotic series, exact to 10⁻¹⁴ here.
        let k = k as f64;
        (1.0 - 1.0 / (8.0 * k) + 1.0 / (128.0 * k * k) + 5.0 / (1024.0 * k.powi(3))
            - 21.0 / (32_768.0 * k.powi(4)))
            / (std::f64::consts::PI * k).sqrt()
    };
    if n % 2 == 1 {
        let k = k as f64;
        central * (2.0 * k + 1.0) / (2.0 * k + 2.0)
    } else {
        central
    }
}

/// Exact Boltzmann averages on a small L×L torus, from enumerating every state.
///
/// Definitions match [`crate::observables`]: b = Σ_⟨ij⟩ s_i s_j / L² over the 2L² bonds,
/// p = Σ_□ s₁s₂s₃s₄ / L² over the L² plaquettes, m = Σ s / L², and the energy per site
/// h = H / L² = −β b − K p with weight e^{−H}.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExactAverages {
    /// The side L.
    pub size: usize,
    /// The couplings the averages are for.
    pub couplings: Couplings,
    /// ⟨b⟩, the bond energy per site (2 when fully ordered).
    pub bond_energy_per_site: f64,
    /// ⟨p⟩, the plaquette sum per site.
    pub plaquette_per_site: f64,
    /// ⟨h⟩ = −β⟨b⟩ − K⟨p⟩, the dimensionless energy per site.
    pub energy_per_site: f64,
    /// ⟨|m|⟩.
    pub abs_magnetization: f64,
    /// ⟨m²⟩.
    pub magnetization_squared: f64,
    /// ⟨m⁴⟩.
    pub magnetization_fourth: f64,
    /// χ = L²(⟨m²⟩ − ⟨|m|⟩²).
    pub susceptibility: f64,
    /// C = L²(⟨h²⟩ − ⟨h⟩²) (k_B = 1).
    pub specific_heat: f64,
    /// U = 1 − ⟨m⁴⟩ / (3⟨m²⟩²).
    pub binder_cumulant: f64,
    /// ln Z with Z = Σ_s e^{−H(s)}.
    pub log_partition_function: f64,
}

/// Largest number of spins [`exact_averages`] enumerates (2^16 states).
pub const MAX_ENUMERATED_SPINS: usize = 16;

/// One class of states: bond sum B, plaquette sum P, magnetisation sum M and how many states.
#[derive(Clone, Copy, Debug)]
struct StateClass {
    bonds: i32,
    plaquettes: i32,
    magnetization: i32,
    count: u64,
}

/// The joint density of states n(B, P, M) of the L×L torus, by enumerating all 2^(L²) states.
fn density_of_states(size: usize) -> Vec<StateClass> {
    let sites = size * size;
    // Each site's right and down neighbour, and its plaquette partners (right, down, diagonal).
    let right: Vec<usize> = (0..sites)
        .map(|i| (i / size) * size + (i % size + 1) % size)
        .collect();
    let down: Vec<usize> = (0..sites).map(|i| (i + size) % sites).collect();
    let diagonal: Vec<usize> = (0..sites).map(|i| down[right[i]]).collect();

    // B ∈ [−2N, 2N], P ∈ [−N, N], M ∈ [−N, N], indexed densely.
    let width_p = 2 * sites + 1;
    let width_m = 2 * sites + 1;
    let mut counts = vec![0_u64; (4 * sites + 1) * width_p * width_m];
    let mut spin = vec![1_i32; sites];
    for state in 0_u32..(1_u32 << sites) {
        for (i, s) in spin.iter_mut().enumerate() {
            *s = if (state >> i) & 1 == 0 { 1 } else { -1 };
        }
        let mut bonds = 0_i32;
        let mut plaquettes = 0_i32;
        let mut magnetization = 0_i32;
        for i in 0..sites {
            let s = spin[i];
            magnetization += s;
            bonds += s * (spin[right[i]] + spin[down[i]]);
            plaquettes += s * spin[right[i]] * spin[down[i]] * spin[diagonal[i]];
        }
        let index = |value: i32, offset: usize| -> usize {
            // value + offset ≥ 0 by the ranges above.

            (i64::from(value) + offset as i64) as usize
        };
        let cell = (index(bonds, 2 * sites) * width_p + index(plaquettes, sites)) * width_m
            + index(magnetization, sites);
        counts[cell] += 1;
    }

    let mut classes = Vec::new();
    for (cell, &count) in counts.iter().enumerate() {
        if count == 0 {
            continue;
        }
        let m_index = cell % width_m;
        let p_index = (cell / width_m) % width_p;
        let b_index = cell / (width_m * width_p);
        classes.push(StateClass {
            bonds: b_index as i32 - 2 * sites as i32,
            plaquettes: p_index as i32 - sites as i32,
            magnetization: m_index as i32 - sites as i32,
            count,
        });
    }
    classes
}

/// Exact averages on the L×L torus for `couplings`, by enumerating all 2^(L²) states.
///
/// Accepts 2 ≤ L with L² ≤ [`MAX_ENUMERATED_SPINS`], i.e. L = 2, 3 or 4 (L = 4 is the useful
/// case: 65 536 states, a few milliseconds). Neighbours are periodic exactly as in
/// [`crate::lattice::SpinConfig::get`]; for L = 2 that means each bond is counted twice.
/// The couplings must pass [`Couplings::validate`].
pub fn exact_averages(size: usize, couplings: &Couplings) -> Result<ExactAverages, ComputeError> {
    if size < 2 {
        return Err(ComputeError::invalid(
            "size",
            format!("exact enumeration needs L ≥ 2 (got L = {size})"),
        ));
    }
    if size.saturating_mul(size) > MAX_ENUMERATED_SPINS {
        return Err(ComputeError::invalid(
            "size",
            format!(
                "exact enumeration visits 2^(L²) states; L = {size} would be 2^{} states, \
                 use L ≤ 4 (at most {MAX_ENUMERATED_SPINS} spins)",
                size.saturating_mul(size)
            ),
        ));
    }
    couplings.validate()?;
    let classes = density_of_states(size);
    Ok(averages_from_classes(size, couplings, &classes))
}

/// Boltzmann averages over the classes of the density of states (log-sum-exp for stability).
fn averages_from_classes(
    size: usize,
    couplings: &Couplings,
    classes: &[StateClass],
) -> ExactAverages {
    let sites = (size * size) as f64;
    let log_weights: Vec<f64> = classes
        .iter()
        .map(|c| {
            (c.count as f64).ln()
                + couplings.beta * f64::from(c.bonds)
                + couplings.plaquette * f64::from(c.plaquettes)
        })
        .collect();
    let max_log_weight = log_weights
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = log_weights
        .iter()
        .map(|w| (w - max_log_weight).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let average = |f: &dyn Fn(&StateClass) -> f64| -> f64 {
        classes
            .iter()
            .zip(&weights)
            .map(|(c, w)| w * f(c))
            .sum::<f64>()
            / total
    };
    let bond = average(&|c| f64::from(c.bonds) / sites);
    let plaquette = average(&|c| f64::from(c.plaquettes) / sites);
    let energy_of = |c: &StateClass| -> f64 {
        -(couplings.beta * f64::from(c.bonds) + couplings.plaquette * f64::from(c.plaquettes))
            / sites
    };
    let energy = average(&energy_of);
    let energy_variance = average(&|c| (energy_of(c) - energy).powi(2));
    let abs_m = average(&|c| f64::from(c.magnetization).abs() / sites);
    let abs_m_variance = average(&|c| (f64::from(c.magnetization).abs() / sites - abs_m).powi(2));
    let m2 = average(&|c| (f64::from(c.magnetization) / sites).powi(2));
    let m4 = average(&|c| (f64::from(c.magnetization) / sites).powi(4));
    ExactAverages {
        size,
        couplings: *couplings,
        bond_energy_per_site: bond,
        plaquette_per_site: plaquette,
        energy_per_site: energy,
        abs_magnetization: abs_m,
        magnetization_squared: m2,
        magnetization_fourth: m4,
        susceptibility: sites * abs_m_variance,
        specific_heat: sites * energy_variance,
        binder_cumulant: 1.0 - m4 / (3.0 * m2 * m2),
        log_partition_function: max_log_weight + total.ln(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::couplings::{BETA_CRITICAL, kramers_wannier_dual};

    #[test]
    fn finite_torus_matches_enumeration_and_onsager() {
        for beta in [0.001, 0.1, 0.3, BETA_CRITICAL, 0.6, 1.2] {
            let exact = exact_averages(4, &Couplings::ising(beta)).unwrap();
            let kaufman = finite_torus(4, beta).unwrap();
            assert!(
                (kaufman.bond_energy_per_site - exact.bond_energy_per_site).abs() < 1e-9,
                "β = {beta}: {} vs {}",
                kaufman.bond_energy_per_site,
                exact.bond_energy_per_site
            );
            assert!(
                (kaufman.specific_heat - exact.specific_heat).abs() < 1e-6,
                "β = {beta}: C {} vs {}",
                kaufman.specific_heat,
                exact.specific_heat
            );
        }
        // At β_c: ⟨b⟩ = √2 + a/L with a → 0.6224 (Ferdinand–Fisher), C grows like (8/π)β_c² ln L.
        for (size, expected) in [(8, 1.491_589_1), (64, 1.423_938_4), (256, 1.416_644_9)] {
            let b = finite_torus(size, BETA_CRITICAL)
                .unwrap()
                .bond_energy_per_site;
            assert!((b - expected).abs() < 1e-6, "L = {size}: {b}");
        }
        let heat = |size| finite_torus(size, BETA_CRITICAL).unwrap().specific_heat;
        let slope = (heat(1024) - heat(256)) / 4_f64.ln();
        let expected = 8.0 / std::f64::consts::PI * BETA_CRITICAL * BETA_CRITICAL;
        assert!(
            (slope / expected - 1.0).abs() < 0.01,
            "{slope} vs {expected}"
        );
        // Away from β_c large tori are the infinite lattice.
        for beta in [0.2, 0.35, 0.55, 0.8] {
            let torus = finite_torus(1024, beta).unwrap();
            assert!(
                (torus.bond_energy_per_site - 2.0 * onsager_nn_correlation(beta)).abs() < 1e-9,
                "β = {beta}"
            );
            assert!((torus.specific_heat - onsager_specific_heat(beta)).abs() < 1e-5);
        }
        assert_eq!(finite_torus(16, 0.0).unwrap().bond_energy_per_site, 0.0);
        assert!(finite_torus(7, 0.3).is_err());
        assert!(finite_torus(8, -0.3).is_err());
    }

    #[test]
    fn independent_spins_abs_magnetization() {
        // By hand: N = 2 gives ½, N = 4 gives 3/8; L = 4 by enumeration at β = K = 0.
        assert!((infinite_temperature_abs_magnetization(2) - 0.5).abs() < 1e-15);
        assert!((infinite_temperature_abs_magnetization(4) - 0.375).abs() < 1e-15);
        let free = exact_averages(4, &Couplings::ising(0.0)).unwrap();
        assert!(
            (infinite_temperature_abs_magnetization(16) - free.abs_magnetization).abs() < 1e-14
        );
        assert!((free.magnetization_squared - 1.0 / 16.0).abs() < 1e-15);
        // The product and the asymptotic series meet, and both approach √(2/(πN)).
        for sites in [8190, 8192, 8194, 1 << 20] {
            let value = infinite_temperature_abs_magnetization(sites);
            let leading = (2.0 / (std::f64::consts::PI * sites as f64)).sqrt();
            assert!(
                (value / leading - 1.0).abs() < 1.0 / sites as f64,
                "N = {sites}"
            );
        }
        let (below, above) = (
            infinite_temperature_abs_magnetization(8193),
            infinite_temperature_abs_magnetization(8195),
        );
        assert!(below > above && below / above - 1.0 < 2.5e-4);
        assert!(infinite_temperature_abs_magnetization(0).is_nan());
    }

    #[test]
    fn onsager_table_of_known_values() {
        for (beta, expected) in [
            (0.1, 0.101_689),
            (0.2, 0.214_114),
            (0.3, 0.352_250),
            (0.4, 0.553_040),
            (0.6, 0.954_543),
            (0.8, 0.992_426),
        ] {
            let u = onsager_nn_correlation(beta);
            assert!(
                (u - expected).abs() < 5e-7,
                "u({beta}) = {u}, expected {expected}"
            );
        }
    }

    #[test]
    fn onsager_special_points_and_limits() {
        let half_sqrt2 = std::f64::consts::FRAC_1_SQRT_2;
        assert!((onsager_nn_correlation(BETA_CRITICAL) - half_sqrt2).abs() < 1e-12);
        // Continuous (with an infinite slope) through β_c.
        for offset in [1e-9, -1e-9, 1e-6, -1e-6] {
            let u = onsager_nn_correlation(BETA_CRITICAL + offset);
            assert!((u - half_sqrt2).abs() < 1e-4, "u(β_c + {offset}) = {u}");
        }
        assert_eq!(onsager_nn_correlation(0.0), 0.0);
        // High-temperature limit u = tanh β + O(β³), with full relative precision.
        for beta in [1e-12, 1e-8, 1e-4, 1e-3] {
            let u = onsager_nn_correlation(beta);
            assert!(
                ((u - beta.tanh()) / beta).abs() < 3.0 * beta * beta + 1e-15,
                "u({beta}) = {u}"
            );
        }
        assert!((onsager_nn_correlation(5.0) - 1.0).abs() < 1e-8);
        assert!((onsager_nn_correlation(-0.3) + onsager_nn_correlation(0.3)).abs() < 1e-15);
        // Monotone increasing.
        let mut previous = 0.0;
        for i in 1..200 {
            let u = onsager_nn_correlation(f64::from(i) * 0.01);
            assert!(u > previous);
            previous = u;
        }
    }

    #[test]
    fn kramers_wannier_identity_in_the_thermodynamic_limit() {
        for i in 1..60 {
            let beta = 0.02 * f64::from(i);
            let dual = kramers_wannier_dual(beta);
            let rhs = (2.0 * dual).cosh() - (2.0 * dual).sinh() * onsager_nn_correlation(dual);
            let lhs = onsager_nn_correlation(beta);
            assert!((lhs - rhs).abs() < 1e-10, "β = {beta}: {lhs} vs {rhs}");
        }
    }

    #[test]
    fn specific_heat_is_the_derivative_of_the_energy() {
        let h = 1e-5;
        for beta in [0.05, 0.2, 0.35, 0.42, 0.46, 0.5, 0.7, 1.0] {
            let derivative =
                (onsager_nn_correlation(beta + h) - onsager_nn_correlation(beta - h)) / (2.0 * h);
            let expected = 2.0 * beta * beta * derivative;
            let c = onsager_specific_heat(beta);
            assert!(
                (c - expected).abs() < 1e-6 * (1.0 + c),
                "β = {beta}: {c} vs {expected}"
            );
        }
        assert_eq!(onsager_specific_heat(0.0), 0.0);
        assert!(onsager_specific_heat(BETA_CRITICAL) > 10.0);
        assert!(onsager_specific_heat(BETA_CRITICAL + 1e-10) > 5.0);
        // High-temperature limit C ≈ 2β².
        assert!((onsager_specific_heat(1e-3) / 2e-6 - 1.0).abs() < 1e-3);
    }

    #[test]
    fn spontaneous_magnetization_values() {
        let m = spontaneous_magnetization(0.5);
        let expected = (1.0 - 1.0_f64.sinh().powi(-4)).powf(0.125);
        assert!((m - expected).abs() < 1e-15);
        assert!((m - 0.911_319).abs() < 1e-6, "{m}");
        assert_eq!(spontaneous_magnetization(0.3), 0.0);
        assert_eq!(spontaneous_magnetization(BETA_CRITICAL - 1e-12), 0.0);
        assert!(spontaneous_magnetization(BETA_CRITICAL + 1e-6) < 0.3);
        assert!((spontaneous_magnetization(3.0) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn elliptic_integrals_known_values() {
        // 𝕂(1/√2) = Γ(1/4)² / (4√π), 𝔼(0) = π/2, 𝔼(1) = 1.
        let gamma_quarter: f64 = 3.625_609_908_221_908;
        let s = std::f64::consts::FRAC_1_SQRT_2;
        let (k, e) = elliptic_k_e(s, s);
        assert!((k - gamma_quarter.powi(2) / (4.0 * std::f64::consts::PI.sqrt())).abs() < 1e-13);
        // Legendre's relation at k = k': 2𝔼𝕂 − 𝕂² = π/2.
        assert!((2.0 * e * k - k * k - std::f64::consts::FRAC_PI_2).abs() < 1e-13);
        let (k0, e0) = elliptic_k_e(0.0, 1.0);
        assert!((k0 - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        assert!((e0 - std::f64::consts::FRAC_PI_2).abs() < 1e-15);
        assert_eq!(elliptic_k_e(1.0, 0.0), (f64::INFINITY, 1.0));
    }

    /// d/dx of f at x by the five-point stencil.
    fn derivative(f: impl Fn(f64) -> f64, x: f64, h: f64) -> f64 {
        (f(x - 2.0 * h) - 8.0 * f(x - h) + 8.0 * f(x + h) - f(x + 2.0 * h)) / (12.0 * h)
    }

    /// d²/dx² of f at x by the five-point stencil.
    fn second_derivative(f: impl Fn(f64) -> f64, x: f64, h: f64) -> f64 {
        (-f(x - 2.0 * h) + 16.0 * f(x - h) - 30.0 * f(x) + 16.0 * f(x + h) - f(x + 2.0 * h))
            / (12.0 * h * h)
    }

    fn log_z(size: usize, beta: f64, plaquette: f64) -> f64 {
        exact_averages(size, &Couplings { beta, plaquette })
            .unwrap()
            .log_partition_function
    }

    #[test]
    fn enumeration_derivative_identities() {
        let size = 4;
        let sites = 16.0;
        let classes = density_of_states(size);
        let total: u64 = classes.iter().map(|c| c.count).sum();
        assert_eq!(total, 1 << 16);
        for (beta, plaquette) in [
            (0.3, 0.0),
            (BETA_CRITICAL, 0.0),
            (0.6, 0.0),
            (0.3, 0.2),
            (0.25, -0.15),
        ] {
            let exact = exact_averages(size, &Couplings { beta, plaquette }).unwrap();
            let d_beta = derivative(|b| log_z(size, b, plaquette), beta, 1e-3);
            let d_k = derivative(|k| log_z(size, beta, k), plaquette, 1e-3);
            assert!(
                (d_beta - sites * exact.bond_energy_per_site).abs() < 1e-8,
                "∂lnZ/∂β = {d_beta}, L²⟨b⟩ = {}",
                sites * exact.bond_energy_per_site
            );
            assert!(
                (d_k - sites * exact.plaquette_per_site).abs() < 1e-8,
                "∂lnZ/∂K = {d_k}, L²⟨p⟩ = {}",
                sites * exact.plaquette_per_site
            );
            // d²/dt² ln Z(tβ, tK) at t = 1 is Var(H) = L²·C.
            let var_h = second_derivative(|t| log_z(size, t * beta, t * plaquette), 1.0, 1e-3);
            assert!(
                (var_h - sites * exact.specific_heat).abs() < 1e-5 * (1.0 + var_h),
                "Var H = {var_h}, L² C = {}",
                sites * exact.specific_heat
            );
            assert!(
                (exact.energy_per_site
                    + beta * exact.bond_energy_per_site
                    + plaquette * exact.plaquette_per_site)
                    .abs()
                    < 1e-14
            );
            assert!(exact.abs_magnetization.powi(2) <= exact.magnetization_squared);
            assert!(exact.susceptibility > 0.0);
        }
    }

    #[test]
    fn enumeration_limits() {
        // Infinite temperature: spins independent, ⟨m²⟩ = 1/L², ⟨m⁴⟩ = (3N² − 2N)/N⁴, ln Z = N ln 2.
        let hot = exact_averages(4, &Couplings::ising(0.0)).unwrap();
        assert!((hot.magnetization_squared - 1.0 / 16.0).abs() < 1e-15);
        assert!((hot.magnetization_fourth - (3.0 * 256.0 - 32.0) / 65_536.0).abs() < 1e-15);
        assert!(hot.bond_energy_per_site.abs() < 1e-15);
        assert!(hot.plaquette_per_site.abs() < 1e-15);
        assert!((hot.log_partition_function - 16.0 * 2.0_f64.ln()).abs() < 1e-12);
        assert!(hot.specific_heat.abs() < 1e-15);
        // Cold: fully ordered.
        let cold = exact_averages(4, &Couplings::ising(8.0)).unwrap();
        assert!((cold.bond_energy_per_site - 2.0).abs() < 1e-9);
        assert!((cold.abs_magnetization - 1.0).abs() < 1e-9);
        assert!((cold.magnetization_squared - 1.0).abs() < 1e-9);
        assert!((cold.binder_cumulant - 2.0 / 3.0).abs() < 1e-9);
        assert!((cold.log_partition_function - (2.0_f64.ln() + 8.0 * 32.0)).abs() < 1e-9);
        // Pure plaquette model at K = 0, β = 0 with a large K: every plaquette +1.
        let plaquettes = exact_averages(
            4,
            &Couplings {
                beta: 0.0,
                plaquette: 9.0,
            },
        )
        .unwrap();
        assert!((plaquettes.plaquette_per_site - 1.0).abs() < 1e-9);
    }

    #[test]
    fn tiny_torus_by_hand() {
        // L = 2: four spins, every bond counted twice, both plaquette terms equal to s₁s₂s₃s₄.
        // At β = 0, K > 0: Z = 8 e^{4K} + 8 e^{−4K}, ⟨p⟩ = tanh 4K.
        let k = 0.3;
        let exact = exact_averages(
            2,
            &Couplings {
                beta: 0.0,
                plaquette: k,
            },
        )
        .unwrap();
        let z = 8.0 * (4.0 * k).exp() + 8.0 * (-4.0 * k).exp();
        assert!((exact.log_partition_function - z.ln()).abs() < 1e-14);
        assert!((exact.plaquette_per_site - (4.0 * k).tanh()).abs() < 1e-14);
    }

    #[test]
    fn enumeration_rejects_large_tori() {
        let error = exact_averages(6, &Couplings::ising(0.3)).unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("size") && message.contains("2^36"),
            "{message}"
        );
        assert!(exact_averages(1, &Couplings::ising(0.3)).is_err());
        assert!(exact_averages(4, &Couplings::ising(-1.0)).is_err());
    }
}
