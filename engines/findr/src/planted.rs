//! The planted 2-D latent dynamics: FINDR's constrained hypothesis family.
//!
//! F(z, u) = M z + bump(z) + B u, in units of 1/τ (the latent moves by α·F per bin, α = Δt/τ).
//!
//! - M = V diag(0, −a) V⁻¹ with V = [[1, sin θ], [0, cos θ]]: a line attractor along e₁ and a
//!   decay at rate a across it, along the (non-orthogonal for θ ≠ 0) direction (sin θ, cos θ).
//!   Written out, M = [[0, −a tan θ], [0, −a]].
//! - bump(z) = −s Σ_± exp(−|z ∓ f|²/w) (z ∓ f) with f = (f₁, 0): point attractors at ±f.
//! - B u = g (cos φ, sin φ)(u_R − u_L): a right click pushes along (cos φ, sin φ), a left one
//!   the opposite way.
//!
//! The paper parameterises a = softplus(r), s = softplus(s'), w = 0.2·sigmoid(q); here the
//! positive quantities are the parameters.

use benchtop_compute::ComputeError;
use serde::{Deserialize, Serialize};

/// Parameters of the planted flow F(z, u) (rates in units of 1/τ, lengths in latent units).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PlantedFlow {
    /// Non-normal angle θ in radians, |θ| < π/2: the decay direction is (sin θ, cos θ).
    pub non_normal_angle_rad: f64,
    /// Decay rate a across the line attractor (softplus(r) in the paper), 1/τ.
    pub across_decay: f64,
    /// Strength s of the two bumps (softplus(s) in the paper), 1/τ; 0 gives a pure line attractor.
    pub bump_strength: f64,
    /// Width w of the bumps (0.2·sigmoid(q) in the paper), squared latent units.
    pub bump_width: f64,
    /// Position f₁ of the point attractors ±(f₁, 0) on the line, latent units.
    pub attractor_position: f64,
    /// Gain g of the click input, latent units per τ per click.
    pub input_gain: f64,
    /// Direction φ of the right-click input in radians (0: along the line).
    pub input_angle_rad: f64,
}

impl Default for PlantedFlow {
    fn default() -> Self {
        Self {
            non_normal_angle_rad: 0.5,
            across_decay: 1.0,
            bump_strength: 1.0,
            bump_width: 0.1,
            attractor_position: 1.0,
            input_gain: 0.4,
            input_angle_rad: 0.0,
        }
    }
}

impl PlantedFlow {
    /// Checks every parameter; errors name the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        let finite = [
            ("non_normal_angle_rad", self.non_normal_angle_rad),
            ("across_decay", self.across_decay),
            ("bump_strength", self.bump_strength),
            ("bump_width", self.bump_width),
            ("attractor_position", self.attractor_position),
            ("input_gain", self.input_gain),
            ("input_angle_rad", self.input_angle_rad),
        ];
        for (name, value) in finite {
            if !value.is_finite() {
                return Err(ComputeError::invalid(name, "must be a finite number"));
            }
        }
        if self.non_normal_angle_rad.abs() >= 1.5 {
            return Err(ComputeError::invalid(
                "non_normal_angle_rad",
                "choose |θ| < 1.5 rad (θ = ±π/2 makes V singular)",
            ));
        }
        if self.across_decay <= 0.0 {
            return Err(ComputeError::invalid(
                "across_decay",
                "must be positive (it is softplus(r) in the paper)",
            ));
        }
        if self.bump_strength < 0.0 {
            return Err(ComputeError::invalid(
                "bump_strength",
                "must be zero (pure line attractor) or positive",
            ));
        }
        if self.bump_width <= 0.0 || self.bump_width > 0.2 {
            return Err(ComputeError::invalid(
                "bump_width",
                "choose a width in (0, 0.2], the range of 0.2·sigmoid(q)",
            ));
        }
        if self.attractor_position < 0.0 {
            return Err(ComputeError::invalid(
                "attractor_position",
                "must be zero or positive (the attractors sit at ±f)",
            ));
        }
        Ok(())
    }

    /// The linear part M = [[0, −a tan θ], [0, −a]] (row-major).
    pub fn linear_part(&self) -> [[f64; 2]; 2] {
        let a = self.across_decay;
        [[0.0, -a * self.non_normal_angle_rad.tan()], [0.0, -a]]
    }

    /// The input matrix B (columns: left click, right click).
    pub fn input_matrix(&self) -> [[f64; 2]; 2] {
        let (sin, cos) = self.input_angle_rad.sin_cos();
        let g = self.input_gain;
        [[-g * cos, g * cos], [-g * sin, g * sin]]
    }

    /// The flow F(z, u) in units of 1/τ; `u` = [left, right] click input of one bin.
    pub fn flow(&self, z: [f64; 2], u: [f64; 2]) -> [f64; 2] {
        let m = self.linear_part();
        let b = self.input_matrix();
        let bump = self.bump(z);
        [
            m[0][0] * z[0] + m[0][1] * z[1] + bump[0] + b[0][0] * u[0] + b[0][1] * u[1],
            m[1][0] * z[0] + m[1][1] * z[1] + bump[1] + b[1][0] * u[0] + b[1][1] * u[1],
        ]
    }

    /// The autonomous flow F(z, 0).
    pub fn autonomous(&self, z: [f64; 2]) -> [f64; 2] {
        self.flow(z, [0.0, 0.0])
    }

    fn bump(&self, z: [f64; 2]) -> [f64; 2] {
        let mut out = [0.0; 2];
        for sign in [1.0, -1.0] {
            let d = [z[0] - sign * self.attractor_position, z[1]];
            let weight = (-(d[0] * d[0] + d[1] * d[1]) / self.bump_width).exp();
            out[0] -= self.bump_strength * weight * d[0];
            out[1] -= self.bump_strength * weight * d[1];
        }
        out
    }

    /// The exact Jacobian ∂F/∂z at `z` (row-major), in units of 1/τ.
    pub fn jacobian(&self, z: [f64; 2]) -> [[f64; 2]; 2] {
        let mut j = self.linear_part();
        for sign in [1.0, -1.0] {
            let d = [z[0] - sign * self.attractor_position, z[1]];
            let weight = (-(d[0] * d[0] + d[1] * d[1]) / self.bump_width).exp();
            for (r, row) in j.iter_mut().enumerate() {
                for (c, entry) in row.iter_mut().enumerate() {
                    let identity = if r == c { 1.0 } else { 0.0 };
                    let outer = 2.0 * d[r] * d[c] / self.bump_width;
                    *entry -= self.bump_strength * weight * (identity - outer);
                }
            }
        }
        j
    }

    /// The planted point attractors ±(f₁, 0). They are exact fixed points up to the overlap of
    /// the two bumps, of size s·2f₁·exp(−4f₁²/w).
    pub fn point_attractors(&self) -> [[f64; 2]; 2] {
        let f = self.attractor_position;
        [[f, 0.0], [-f, 0.0]]
    }

    /// The Jacobian eigenvalues the parameters give at the point attractors: −s and −s − a
    /// (up to the bump overlap), ascending.
    pub fn attractor_eigenvalues(&self) -> [f64; 2] {
        [-self.bump_strength - self.across_decay, -self.bump_strength]
    }

    /// The Jacobian eigenvalues on the line far from the bumps: −a across, 0 along, ascending.
    pub fn line_eigenvalues(&self) -> [f64; 2] {
        [-self.across_decay, 0.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eigenvalues(j: [[f64; 2]; 2]) -> [f64; 2] {
        let trace = j[0][0] + j[1][1];
        let det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
        let disc = trace * trace / 4.0 - det;
        assert!(disc >= 0.0, "real eigenvalues expected, disc {disc}");
        [trace / 2.0 - disc.sqrt(), trace / 2.0 + disc.sqrt()]
    }

    #[test]
    fn linear_part_is_v_diag_v_inverse() {
        let flow = PlantedFlow {
            non_normal_angle_rad: 0.7,
            across_decay: 1.3,
            ..PlantedFlow::default()
        };
        let (s, c) = flow.non_normal_angle_rad.sin_cos();
        let v = [[1.0, s], [0.0, c]];
        let v_inv = [[1.0, -s / c], [0.0, 1.0 / c]];
        let d = [0.0, -flow.across_decay];
        let m = flow.linear_part();
        for r in 0..2 {
            for col in 0..2 {
                let expected: f64 = (0..2).map(|k| v[r][k] * d[k] * v_inv[k][col]).sum();
                assert!((m[r][col] - expected).abs() < 1e-12, "M[{r}][{col}]");
            }
        }
    }

    #[test]
    fn fixed_points_and_eigenvalues_are_what_the_parameters_say() {
        let flow = PlantedFlow::default();
        flow.validate().unwrap();
        // ±f are fixed points (overlap term s·2f·exp(−4f²/w) = 2·e^{−40}).
        for p in flow.point_attractors() {
            let f = flow.autonomous(p);
            assert!(f[0].abs() < 1e-15 && f[1].abs() < 1e-15, "F({p:?}) = {f:?}");
            let eig = eigenvalues(flow.jacobian(p));
            let expected = flow.attractor_eigenvalues();
            assert!((eig[0] - expected[0]).abs() < 1e-12, "{eig:?}");
            assert!((eig[1] - expected[1]).abs() < 1e-12, "{eig:?}");
        }
        // Far along the line the flow vanishes, with eigenvalues 0 (along) and −a (across).
        for x in [-4.0, -3.0, 3.0, 4.5] {
            let f = flow.autonomous([x, 0.0]);
            assert!(f[0].abs() < 1e-12 && f[1] == 0.0, "F = {f:?} at x = {x}");
            let j = flow.jacobian([x, 0.0]);
            let eig = eigenvalues(j);
            assert!((eig[0] + flow.across_decay).abs() < 1e-9, "{eig:?}");
            assert!(eig[1].abs() < 1e-9, "{eig:?}");
            // The zero eigenvector is e₁ (the line), the decaying one is (sin θ, cos θ).
            assert!(j[0][0].abs() < 1e-9 && j[1][0].abs() < 1e-9);
            let (s, c) = flow.non_normal_angle_rad.sin_cos();
            let jv = [j[0][0] * s + j[0][1] * c, j[1][0] * s + j[1][1] * c];
            assert!((jv[0] + flow.across_decay * s).abs() < 1e-9);
            assert!((jv[1] + flow.across_decay * c).abs() < 1e-9);
        }
        // Off the line, the flow points back towards it.
        let f = flow.autonomous([3.0, 0.5]);
        assert!(f[1] < 0.0);
    }

    #[test]
    fn jacobian_matches_finite_differences() {
        let flow = PlantedFlow::default();
        let h = 1e-6;
        for z in [[0.9, 0.1], [-1.2, -0.2], [0.3, 0.4]] {
            let j = flow.jacobian(z);
            for c in 0..2 {
                let mut plus = z;
                let mut minus = z;
                plus[c] += h;
                minus[c] -= h;
                let (fp, fm) = (flow.autonomous(plus), flow.autonomous(minus));
                for r in 0..2 {
                    let fd = (fp[r] - fm[r]) / (2.0 * h);
                    assert!((fd - j[r][c]).abs() < 1e-6, "J[{r}][{c}] at {z:?}");
                }
            }
        }
    }

    #[test]
    fn clicks_push_along_the_input_direction() {
        let flow = PlantedFlow::default();
        let z = [3.0, 0.0];
        let right = flow.flow(z, [0.0, 1.0]);
        let left = flow.flow(z, [1.0, 0.0]);
        let rest = flow.autonomous(z);
        assert!((right[0] - rest[0] - flow.input_gain).abs() < 1e-12);
        assert!((left[0] - rest[0] + flow.input_gain).abs() < 1e-12);
    }

    #[test]
    fn validate_names_the_bad_key() {
        let bad = PlantedFlow {
            bump_width: 0.5,
            ..PlantedFlow::default()
        };
        match bad.validate() {
            Err(ComputeError::InvalidParameter { name, .. }) => assert_eq!(name, "bump_width"),
            other => panic!("expected bump_width error, got {other:?}"),
        }
    }
}
