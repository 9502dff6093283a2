//! The coupling gradient by the score-function identity, and its Gauss–Newton preconditioner.
//!
//! The dual weight is e^{−β̃H₁ − K̃H₂} with H₁ = −Σ links and H₂ = −Σ plaquettes, so
//! ∂⟨F⟩/∂θ_a = ⟨(⟨H_a⟩ − H_a)·F⟩. With the target subtracted as a control variate the Jacobian
//! of the mapped correlators is J_{m,a} = ⟨(⟨H_a⟩ − H_a)(F_m − F̄_m)⟩, the loss gradient is
//! grad_a = 2·mean_m[δ_m·J_{m,a}] with δ_m = ⟨F_m⟩ − F̄_m, and the Gauss–Newton Hessian is
//! 2·mean_m[J_{m,a}·J_{m,b}].

use std::ops::Range;

use benchtop_compute::ComputeError;

use crate::lattice::SpinConfig;
use crate::links::CORRELATOR_COUNT;

/// Number of dual couplings θ = (β̃, K̃).
pub const COUPLING_COUNT: usize = 2;

/// Ridge added to the Gauss–Newton Hessian before it is inverted.
pub const HESSIAN_RIDGE: f64 = 1e-6;

/// (H₁, H₂) = (−Σ links, −Σ plaquettes) of one configuration, so H = β̃H₁ + K̃H₂.
pub fn hamiltonian_terms(config: &SpinConfig) -> [f64; COUPLING_COUNT] {
    let size = config.size();
    let spins = config.spins();
    let (mut links, mut plaquettes) = (0_i64, 0_i64);
    for y in 0..size {
        let row = y * size;
        let up = ((y + 1) % size) * size;
        for x in 0..size {
            let right = (x + 1) % size;
            let s = i64::from(spins[row + x]);
            let east = i64::from(spins[row + right]);
            let north = i64::from(spins[up + x]);
            let north_east = i64::from(spins[up + right]);
            links += s * (east + north);
            plaquettes += s * east * north * north_east;
        }
    }

    [-(links as f64), -(plaquettes as f64)]
}

/// Jacobian, gradient and Gauss–Newton Hessian of the loss with respect to θ.
#[derive(Clone, Debug, PartialEq)]
pub struct CouplingGradient {
    /// δ_m = ⟨F_m(ô)⟩_θ − F̄_m.
    pub residual: [f64; CORRELATOR_COUNT],
    /// J_{m,a} = ∂⟨F_m(ô)⟩_θ/∂θ_a.
    pub jacobian: [[f64; COUPLING_COUNT]; CORRELATOR_COUNT],
    /// grad_a = 2·mean_m[δ_m·J_{m,a}].
    pub gradient: [f64; COUPLING_COUNT],
    /// 2·mean_m[J_{m,a}·J_{m,b}].
    pub gauss_newton: [[f64; COUPLING_COUNT]; COUPLING_COUNT],
}

impl CouplingGradient {
    /// Estimates the gradient from dual samples with Hamiltonian terms `terms` and mapped
    /// correlators `mapped`, weighted by `weights` (normalised here; `None` = equal weights),
    /// against the target `target`.
    pub fn estimate(
        terms: &[[f64; COUPLING_COUNT]],
        mapped: &[[f64; CORRELATOR_COUNT]],
        weights: Option<&[f64]>,
        target: &[f64; CORRELATOR_COUNT],
    ) -> Result<Self, ComputeError> {
        let n = terms.len();
        if n == 0 || mapped.len() != n || weights.is_some_and(|w| w.len() != n) {
            return Err(ComputeError::Numerical(format!(
                "score-function gradient: {n} energies, {} correlator rows, {} weights",
                mapped.len(),
                weights.map_or(n, <[f64]>::len)
            )));
        }
        let uniform = 1.0 / n as f64;
        let total: f64 = weights.map_or(1.0, |w| w.iter().sum());
        let weight = |i: usize| weights.map_or(uniform, |w| w[i] / total);
        let mut mean_terms = [0.0; COUPLING_COUNT];
        let mut mean_mapped = [0.0; CORRELATOR_COUNT];
        for i in 0..n {
            let w = weight(i);
            for a in 0..COUPLING_COUNT {
                mean_terms[a] += w * terms[i][a];
            }
            for m in 0..CORRELATOR_COUNT {
                mean_mapped[m] += w * mapped[i][m];
            }
        }
        let mut jacobian = [[0.0; COUPLING_COUNT]; CORRELATOR_COUNT];
        for i in 0..n {
            let w = weight(i);
            for (m, row) in jacobian.iter_mut().enumerate() {
                let centred = mapped[i][m] - target[m];
                for (a, entry) in row.iter_mut().enumerate() {
                    *entry += w * (mean_terms[a] - terms[i][a]) * centred;
                }
            }
        }
        let residual: [f64; CORRELATOR_COUNT] = std::array::from_fn(|m| mean_mapped[m] - target[m]);
        let scale = 2.0 / CORRELATOR_COUNT as f64;
        let gradient: [f64; COUPLING_COUNT] = std::array::from_fn(|a| {
            scale
                * (0..CORRELATOR_COUNT)
                    .map(|m| residual[m] * jacobian[m][a])
                    .sum::<f64>()
        });
        let gauss_newton: [[f64; COUPLING_COUNT]; COUPLING_COUNT] = std::array::from_fn(|a| {
            std::array::from_fn(|b| {
                scale
                    * (0..CORRELATOR_COUNT)
                        .map(|m| jacobian[m][a] * jacobian[m][b])
                        .sum::<f64>()
            })
        });
        Ok(Self {
            residual,
            jacobian,
            gradient,
            gauss_newton,
        })
    }

    /// The preconditioned step direction (H + ridge·I)⁻¹·grad over the learned couplings
    /// (`learned[a]`); couplings that are not learned get 0.
    pub fn preconditioned(&self, learned: [bool; COUPLING_COUNT]) -> [f64; COUPLING_COUNT] {
        let h = self.gauss_newton;
        let g = self.gradient;
        match learned {
            [true, true] => {
                let (a, b, c, d) = (
                    h[0][0] + HESSIAN_RIDGE,
                    h[0][1],
                    h[1][0],
                    h[1][1] + HESSIAN_RIDGE,
                );
                let det = a * d - b * c;
                [(d * g[0] - b * g[1]) / det, (a * g[1] - c * g[0]) / det]
            }
            [true, false] => [g[0] / (h[0][0] + HESSIAN_RIDGE), 0.0],
            [false, true] => [0.0, g[1] / (h[1][1] + HESSIAN_RIDGE)],
            [false, false] => [0.0, 0.0],
        }
    }
}

impl CouplingGradient {
    /// Like [`CouplingGradient::estimate`] (equal weights), but the gradient is the U-statistic
    /// over independent sample groups g with shares w_g:
    /// grad_a = (2/13) Σ_m (δ̄_m J̄_{m,a} − Σ_g w_g² δ_{g,m} J_{g,m,a}) / (1 − Σ_g w_g²),
    /// i.e. only products of δ and J from different groups. Its expectation is the gradient of
    /// (⟨F⟩_θ − F̄)², free of the covariance between δ and J that same-sample products carry.
    /// Group Jacobians are centred on the whole batch's ⟨H⟩. Residual, Jacobian and
    /// Gauss–Newton matrix are those of the whole batch.
    pub fn estimate_grouped(
        terms: &[[f64; COUPLING_COUNT]],
        mapped: &[[f64; CORRELATOR_COUNT]],
        groups: &[Range<usize>],
        target: &[f64; CORRELATOR_COUNT],
    ) -> Result<Self, ComputeError> {
        let n = terms.len();
        let whole = Self::estimate(terms, mapped, None, target)?;
        if groups.len() < 2
            || groups.iter().any(|g| g.is_empty() || g.end > n)
            || groups.iter().map(ExactSizeIterator::len).sum::<usize>() != n
        {
            return Err(ComputeError::Numerical(format!(
                "grouped gradient: {} groups do not partition {n} samples into two or more",
                groups.len()
            )));
        }
        let count = n as f64;
        let mean_terms: [f64; COUPLING_COUNT] =
            std::array::from_fn(|a| terms.iter().map(|t| t[a]).sum::<f64>() / count);
        let mut within = [0.0; COUPLING_COUNT];
        let mut sum_squares = 0.0;
        for group in groups {
            let size = group.len() as f64;
            let share = size / count;
            sum_squares += share * share;
            let mut residual = [0.0; CORRELATOR_COUNT];
            let mut jacobian = [[0.0; COUPLING_COUNT]; CORRELATOR_COUNT];
            for i in group.clone() {
                for m in 0..CORRELATOR_COUNT {
                    let centred = mapped[i][m] - target[m];
                    residual[m] += centred / size;
                    for a in 0..COUPLING_COUNT {
                        jacobian[m][a] += (mean_terms[a] - terms[i][a]) * centred / size;
                    }
                }
            }
            for (a, slot) in within.iter_mut().enumerate() {
                *slot += share
                    * share
                    * (0..CORRELATOR_COUNT)
                        .map(|m| residual[m] * jacobian[m][a])
                        .sum::<f64>();
            }
        }
        let scale = 2.0 / CORRELATOR_COUNT as f64;
        let gradient = std::array::from_fn(|a| {
            let cross: f64 = (0..CORRELATOR_COUNT)
                .map(|m| whole.residual[m] * whole.jacobian[m][a])
                .sum();
            scale * (cross - within[a]) / (1.0 - sum_squares)
        });
        Ok(Self { gradient, ..whole })
    }
}

/// The Gauss–Newton matrix (2/13)·JᵀJ over the columns: the learned couplings (`learned[a]`),
/// then, when `map_jacobian` is given, the map's slope w and offset b.
///
/// Solving it against the matching gradient and keeping the coupling components is a
/// Schur-complement preconditioner: the step anticipates that w and b will follow, so θ moves
/// along the valley of the loss in which (β̃, w, b) compensate each other instead of crawling
/// across it.
pub fn joint_matrix(
    jacobian: &[[f64; COUPLING_COUNT]; CORRELATOR_COUNT],
    learned: [bool; COUPLING_COUNT],
    map_jacobian: Option<&[[f64; 2]; CORRELATOR_COUNT]>,
) -> Vec<Vec<f64>> {
    let mut columns: Vec<[f64; CORRELATOR_COUNT]> = (0..COUPLING_COUNT)
        .filter(|&a| learned[a])
        .map(|a| std::array::from_fn(|m| jacobian[m][a]))
        .collect();
    if let Some(map) = map_jacobian {
        columns.extend((0..2).map(|c| std::array::from_fn(|m| map[m][c])));
    }
    let scale = 2.0 / CORRELATOR_COUNT as f64;
    columns
        .iter()
        .map(|ci| {
            columns
                .iter()
                .map(|cj| scale * ci.iter().zip(cj).map(|(x, y)| x * y).sum::<f64>())
                .collect()
        })
        .collect()
}

/// Solves (matrix + [`HESSIAN_RIDGE`]·I)·s = gradient; `None` when singular or mis-shaped.
pub fn solve_ridge(matrix: &[Vec<f64>], gradient: &[f64]) -> Option<Vec<f64>> {
    let n = gradient.len();
    if matrix.len() != n || matrix.iter().any(|row| row.len() != n) {
        return None;
    }
    let augmented = matrix
        .iter()
        .zip(gradient)
        .enumerate()
        .map(|(i, (row, &g))| {
            let mut row = row.clone();
            row[i] += HESSIAN_RIDGE;
            row.push(g);
            row
        })
        .collect();
    solve(augmented)
}

/// Solves the augmented n×(n+1) system by Gaussian elimination with partial pivoting;
/// `None` when it is singular.
fn solve(mut matrix: Vec<Vec<f64>>) -> Option<Vec<f64>> {
    let n = matrix.len();
    for col in 0..n {
        let pivot =
            (col..n).max_by(|&a, &b| matrix[a][col].abs().total_cmp(&matrix[b][col].abs()))?;
        if matrix[pivot][col].abs() < 1e-300 {
            return None;
        }
        matrix.swap(col, pivot);
        let pivot_row = matrix[col].clone();
        for row in matrix.iter_mut().skip(col + 1) {
            let factor = row[col] / pivot_row[col];
            for (entry, pivot) in row.iter_mut().zip(&pivot_row).skip(col) {
                *entry -= factor * pivot;
            }
        }
    }
    let mut solution = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| matrix[row][k] * solution[k]).sum();
        solution[row] = (matrix[row][n] - tail) / matrix[row][row];
    }
    solution.iter().all(|v| v.is_finite()).then_some(solution)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::couplings::Couplings;
    use crate::duality::map::{CANDIDATE_COUNT, apply_map, candidate_table, softmax};
    use crate::links::{LinkField, link_correlators};
    use crate::single_spin::tests::enumeration;

    /// Mapped correlators of every 4×4 configuration under a soft map.
    fn mapped_rows(configs: &[SpinConfig]) -> Vec<[f64; CORRELATOR_COUNT]> {
        let table = candidate_table(4);
        let attention: [f64; CANDIDATE_COUNT] = softmax(&[0.2, -0.4, 1.5, 0.1, 0.0, 0.6, -0.3]);
        configs
            .iter()
            .map(|c| {
                let mapped =
                    apply_map(&LinkField::from_spins(c), &table, &attention, -1.3, 1.1).unwrap();
                link_correlators(&mapped)
            })
            .collect()
    }

    #[test]
    fn hamiltonian_terms_of_simple_states() {
        let cold = SpinConfig::new(4, crate::lattice::Start::Cold, 0).unwrap();
        assert_eq!(hamiltonian_terms(&cold), [-32.0, -16.0]);
        let (links, plaquettes) = enumeration::link_and_plaquette_sums(
            &SpinConfig::new(4, crate::lattice::Start::Hot, 9).unwrap(),
        );
        assert_eq!(
            hamiltonian_terms(&SpinConfig::new(4, crate::lattice::Start::Hot, 9).unwrap()),
            [-links, -plaquettes]
        );
    }

    #[test]
    fn score_function_gradient_matches_finite_differences_on_4x4() {
        let configs = enumeration::all_configs();
        let terms: Vec<[f64; 2]> = configs.iter().map(hamiltonian_terms).collect();
        let rows = mapped_rows(&configs);
        let theta = Couplings {
            beta: 0.38,
            plaquette: 0.15,
        };
        let target: [f64; CORRELATOR_COUNT] = std::array::from_fn(|m| 0.1 * m as f64 - 0.2);
        let exact_mean = |couplings: Couplings| -> [f64; CORRELATOR_COUNT] {
            let weights = enumeration::weights(&configs, couplings);
            std::array::from_fn(|m| {
                let column: Vec<f64> = rows.iter().map(|r| r[m]).collect();
                enumeration::average(&weights, &column)
            })
        };
        let loss = |couplings: Couplings| -> f64 {
            exact_mean(couplings)
                .iter()
                .zip(&target)
                .map(|(f, t)| (f - t).powi(2))
                .sum::<f64>()
                / 13.0
        };
        let weights = enumeration::weights(&configs, theta);
        let estimate = CouplingGradient::estimate(&terms, &rows, Some(&weights), &target).unwrap();
        let h = 1e-5;
        let shifted = |a: usize, sign: f64| {
            let mut c = theta;
            if a == 0 {
                c.beta += sign * h;
            } else {
                c.plaquette += sign * h;
            }
            c
        };
        for a in 0..2 {
            let plus = exact_mean(shifted(a, 1.0));
            let minus = exact_mean(shifted(a, -1.0));
            for m in 0..CORRELATOR_COUNT {
                let numeric = (plus[m] - minus[m]) / (2.0 * h);
                let analytic = estimate.jacobian[m][a];
                assert!(
                    (numeric - analytic).abs() < 1e-6 * (1.0 + numeric.abs()),
                    "∂F_{m}/∂θ_{a}: {numeric} vs {analytic}"
                );
            }
            let numeric = (loss(shifted(a, 1.0)) - loss(shifted(a, -1.0))) / (2.0 * h);
            assert!(
                (numeric - estimate.gradient[a]).abs() < 1e-6 * (1.0 + numeric.abs()),
                "∂L/∂θ_{a}: {numeric} vs {}",
                estimate.gradient[a]
            );
        }
        // The Jacobian is not trivially small, so the comparison above has teeth.
        assert!(estimate.jacobian[0][0].abs() > 0.05);
    }

    #[test]
    fn grouped_gradient_keeps_only_cross_group_products() {
        let configs = enumeration::all_configs();
        let rows = mapped_rows(&configs[..300]);
        let terms: Vec<[f64; 2]> = configs[..300].iter().map(hamiltonian_terms).collect();
        let target = [0.2; CORRELATOR_COUNT];
        let groups = [0..100, 100..200, 200..300];
        let grouped = CouplingGradient::estimate_grouped(&terms, &rows, &groups, &target).unwrap();
        // Brute force: Σ_{g≠h} w_g w_h δ_g J_h / Σ_{g≠h} w_g w_h, J centred on the batch ⟨H⟩.
        let mean_h: Vec<f64> = (0..2)
            .map(|a| terms.iter().map(|t| t[a]).sum::<f64>() / 300.0)
            .collect();
        let moments = |g: &std::ops::Range<usize>| {
            let mut delta = [0.0; CORRELATOR_COUNT];
            let mut jac = [[0.0; 2]; CORRELATOR_COUNT];
            for i in g.clone() {
                for m in 0..CORRELATOR_COUNT {
                    delta[m] += (rows[i][m] - target[m]) / 100.0;
                    for a in 0..2 {
                        jac[m][a] += (mean_h[a] - terms[i][a]) * (rows[i][m] - target[m]) / 100.0;
                    }
                }
            }
            (delta, jac)
        };
        let parts: Vec<_> = groups.iter().map(moments).collect();
        for a in 0..2 {
            let mut cross = 0.0;
            for (g, (delta, _)) in parts.iter().enumerate() {
                for (h, (_, jac)) in parts.iter().enumerate() {
                    if g != h {
                        cross += (0..CORRELATOR_COUNT)
                            .map(|m| delta[m] * jac[m][a])
                            .sum::<f64>();
                    }
                }
            }
            // Equal shares: Σ_{g≠h} w_g w_h = 6/9, each pair weighted 1/9.
            let expected = 2.0 / 13.0 * (cross / 9.0) / (6.0 / 9.0);
            assert!(
                (grouped.gradient[a] - expected).abs() < 1e-12 * (1.0 + expected.abs()),
                "{} vs {expected}",
                grouped.gradient[a]
            );
        }
        let whole = CouplingGradient::estimate(&terms, &rows, None, &target).unwrap();
        assert_eq!(grouped.jacobian, whole.jacobian);
        assert_eq!(grouped.residual, whole.residual);
        assert!(CouplingGradient::estimate_grouped(&terms, &rows, &groups[..1], &target).is_err());
        assert!(
            CouplingGradient::estimate_grouped(&terms, &rows, &[0..100, 100..250], &target)
                .is_err()
        );
    }

    #[test]
    fn gauss_newton_step_solves_a_linear_problem() {
        // Two samples whose mapped correlators are linear in the terms: the preconditioned
        // direction of a 1-D problem is δ/J.
        let terms = vec![[-1.0, 0.0], [1.0, 0.0]];
        let rows = vec![[1.0; CORRELATOR_COUNT], [0.0; CORRELATOR_COUNT]];
        let target = [0.25; CORRELATOR_COUNT];
        let g = CouplingGradient::estimate(&terms, &rows, None, &target).unwrap();
        // ⟨F⟩ = 0.5, δ = 0.25; J = mean((0 − H)(F − 0.25)) = 0.5·(1·0.75 + (−1)·(−0.25)) = 0.5.
        assert!((g.residual[0] - 0.25).abs() < 1e-15);
        assert!((g.jacobian[0][0] - 0.5).abs() < 1e-15);
        let step = g.preconditioned([true, false]);
        assert!((step[0] - 0.5).abs() < 1e-5 && step[1] == 0.0);
        assert_eq!(g.preconditioned([false, false]), [0.0, 0.0]);
        // With a map Jacobian orthogonal to the coupling column the joint step's coupling
        // component equals the coupling-only step.
        let mut orthogonal = [[0.0; 2]; CORRELATOR_COUNT];
        orthogonal[0] = [1.0, 0.0];
        orthogonal[1] = [-1.0, 0.0];
        orthogonal[2] = [0.0, 1.0];
        orthogonal[3] = [0.0, -1.0];
        let mut rows_alt = rows.clone();
        rows_alt[0][0] = 0.5;
        rows_alt[1][0] = 0.5;
        rows_alt[0][1] = 0.25;
        rows_alt[1][1] = 0.25;
        let g2 = CouplingGradient::estimate(&terms, &rows_alt, None, &target).unwrap();
        let matrix = joint_matrix(&g2.jacobian, [true, false], Some(&orthogonal));
        assert_eq!(matrix.len(), 3);
        let joint = solve_ridge(&matrix, &[g2.gradient[0], 0.0, 0.0]).unwrap();
        let alone = g2.preconditioned([true, false]);
        assert!((joint[0] - alone[0]).abs() < 1e-9, "{joint:?} vs {alone:?}");
        assert!(solve_ridge(&matrix, &[1.0]).is_none());
        assert!(solve(vec![vec![0.0, 0.0, 1.0], vec![0.0, 0.0, 1.0]]).is_none());
        let x = solve(vec![vec![2.0, 1.0, 5.0], vec![1.0, 3.0, 10.0]]).unwrap();
        assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 3.0).abs() < 1e-12);
        assert!(CouplingGradient::estimate(&terms, &rows[..1], None, &target).is_err());
    }
}
