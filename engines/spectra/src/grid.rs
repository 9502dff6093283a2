//! Latitude–longitude grids on the sphere and their quadrature weights.
//!
//! Two kinds of rings are supported, both stored north pole first, longitudes starting at 0°:
//! - [`GridKind::Equiangular`]: `nlat` equally spaced latitudes from +90° to −90° *including
//!   both poles* (the ERA5 / WeatherBench layout, ducc0's "CC" geometry), e.g. 721×1440.
//! - [`GridKind::GaussLegendre`]: latitudes at the Gauss–Legendre nodes (no poles).
//!
//! Fields are row-major `nlat × nlon` arrays of `f64`, latitude outermost.

use benchtop_compute::ComputeError;
use serde::{Deserialize, Serialize};

/// How the latitude rings of a grid are placed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GridKind {
    /// Equally spaced latitudes from the north pole to the south pole, both included.
    #[default]
    Equiangular,
    /// Latitudes at the Gauss–Legendre nodes (exact quadrature to degree 2·nlat − 1).
    GaussLegendre,
}

impl GridKind {
    /// The short name used in project files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Equiangular => "equiangular",
            Self::GaussLegendre => "gauss",
        }
    }
}

/// A regular latitude–longitude grid: `nlat` rings of `nlon` equally spaced points each.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Grid {
    /// How the latitudes are placed.
    pub kind: GridKind,
    /// Number of latitude rings.
    pub nlat: usize,
    /// Number of longitudes per ring.
    pub nlon: usize,
}

impl Grid {
    /// Checks the sizes: an equiangular grid needs at least 3 rings (both poles and one more), a
    /// Gauss grid at least 1; every grid needs at least 1 longitude.
    pub fn new(kind: GridKind, nlat: usize, nlon: usize) -> Result<Self, ComputeError> {
        let min_lat = match kind {
            GridKind::Equiangular => 3,
            GridKind::GaussLegendre => 1,
        };
        if nlat < min_lat {
            return Err(ComputeError::invalid(
                "nlat",
                format!(
                    "a {} grid needs at least {min_lat} latitudes (got {nlat})",
                    kind.name()
                ),
            ));
        }
        if nlon == 0 {
            return Err(ComputeError::invalid(
                "nlon",
                "at least one longitude is needed",
            ));
        }
        if nlat.saturating_mul(nlon) > 1 << 31 {
            return Err(ComputeError::invalid(
                "nlat",
                format!("{nlat}×{nlon} points is too large"),
            ));
        }
        Ok(Self { kind, nlat, nlon })
    }

    /// Points in one field (`nlat · nlon`).
    pub fn len(&self) -> usize {
        self.nlat * self.nlon
    }

    /// Whether the grid has no points (never true for a grid made by [`Grid::new`]).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Colatitudes θ in radians (0 at the north pole), one per ring, north first.
    pub fn colatitudes_rad(&self) -> Vec<f64> {
        match self.kind {
            GridKind::Equiangular => {
                let step = std::f64::consts::PI / (self.nlat - 1) as f64;
                (0..self.nlat).map(|i| i as f64 * step).collect()
            }
            GridKind::GaussLegendre => gauss_legendre(self.nlat)
                .0
                .iter()
                .map(|x| x.clamp(-1.0, 1.0).acos())
                .collect(),
        }
    }

    /// Latitudes in degrees, one per ring, from north to south.
    pub fn latitudes_deg(&self) -> Vec<f64> {
        match self.kind {
            GridKind::Equiangular => {
                let step = 180.0 / (self.nlat - 1) as f64;
                (0..self.nlat).map(|i| 90.0 - i as f64 * step).collect()
            }
            GridKind::GaussLegendre => gauss_legendre(self.nlat)
                .0
                .iter()
                .map(|x| x.clamp(-1.0, 1.0).asin().to_degrees())
                .collect(),
        }
    }

    /// Longitudes in degrees, `360·j/nlon` for j = 0..nlon.
    pub fn longitudes_deg(&self) -> Vec<f64> {
        (0..self.nlon)
            .map(|j| 360.0 * j as f64 / self.nlon as f64)
            .collect()
    }

    /// Quadrature weights per ring, summing to 1: Clenshaw–Curtis weights for equiangular grids
    /// (exact for polynomials in cos θ up to degree nlat − 1), Gauss–Legendre weights otherwise
    /// (exact to degree 2·nlat − 1). An area-weighted mean of a field is
    /// `Σ_i w_i · mean_j f(i, j)`.
    pub fn weights(&self) -> Vec<f64> {
        let raw = match self.kind {
            GridKind::Equiangular => clenshaw_curtis_weights(self.nlat),
            GridKind::GaussLegendre => gauss_legendre(self.nlat).1,
        };
        raw.iter().map(|w| w / 2.0).collect()
    }

    /// Cell-area weights per ring, summing to 1: the difference of sin(latitude) between the
    /// midpoints to the neighbouring rings (poles included). This is what the AMSE authors'
    /// code uses; it is close to, but less accurate than, [`Grid::weights`].
    pub fn cell_area_weights(&self) -> Vec<f64> {
        let lat: Vec<f64> = self
            .latitudes_deg()
            .iter()
            .map(|d| d.to_radians())
            .collect();
        let n = lat.len();
        let mut edges = Vec::with_capacity(n + 1);
        edges.push(std::f64::consts::FRAC_PI_2);
        for i in 1..n {
            edges.push(0.5 * (lat[i - 1] + lat[i]));
        }
        edges.push(-std::f64::consts::FRAC_PI_2);
        let raw: Vec<f64> = (0..n)
            .map(|i| edges[i].sin() - edges[i + 1].sin())
            .collect();
        let total: f64 = raw.iter().sum();
        raw.iter().map(|w| w / total).collect()
    }

    /// The largest degree a transform on this grid can analyse exactly: nlat − 2 for
    /// equiangular grids (with meridional resampling, as ducc0's "CC"), nlat − 1 for Gauss
    /// grids, and at most (nlon − 1)/2 for the longitudes.
    pub fn max_lmax(&self) -> usize {
        let by_lat = match self.kind {
            GridKind::Equiangular => self.nlat - 2,
            GridKind::GaussLegendre => self.nlat - 1,
        };
        by_lat.min((self.nlon - 1) / 2)
    }

    /// The area-weighted mean of `field` (row-major `nlat × nlon`) with [`Grid::weights`].
    pub fn mean(&self, field: &[f64]) -> Result<f64, ComputeError> {
        self.check_field(field)?;
        let weights = self.weights();
        Ok(field
            .chunks_exact(self.nlon)
            .zip(&weights)
            .map(|(row, w)| w * row.iter().sum::<f64>() / self.nlon as f64)
            .sum())
    }

    /// Errors unless `field` has exactly `nlat · nlon` finite values.
    pub fn check_field(&self, field: &[f64]) -> Result<(), ComputeError> {
        if field.len() != self.len() {
            return Err(ComputeError::invalid(
                "field",
                format!(
                    "expected {}×{} = {} values, got {}",
                    self.nlat,
                    self.nlon,
                    self.len(),
                    field.len()
                ),
            ));
        }
        if let Some(index) = field.iter().position(|v| !v.is_finite()) {
            return Err(ComputeError::invalid(
                "field",
                format!(
                    "value at latitude index {}, longitude index {} is not finite ({})",
                    index / self.nlon,
                    index % self.nlon,
                    field[index]
                ),
            ));
        }
        Ok(())
    }
}

/// Gauss–Legendre nodes (descending, +1 side first) and weights (summing to 2) on [−1, 1].
///
/// Newton iteration on P_n from the Tricomi initial guesses, accurate to a few ulps for n in
/// the thousands.
pub fn gauss_legendre(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut nodes = vec![0.0; n];
    let mut weights = vec![0.0; n];
    let nf = n as f64;
    for k in 0..n.div_ceil(2) {
        // Tricomi's approximation of the k-th root (descending).
        let theta = std::f64::consts::PI * (k as f64 + 0.75) / (nf + 0.5);
        let mut x = (1.0 - (nf - 1.0) / (8.0 * nf * nf * nf)) * theta.cos();
        let mut derivative = 1.0;
        for _ in 0..100 {
            let (p, dp) = legendre_p_and_derivative(n, x);
            let step = p / dp;
            x -= step;
            derivative = dp;
            if step.abs() <= 1e-16 * x.abs().max(1e-300) {
                let (_, dp) = legendre_p_and_derivative(n, x);
                derivative = dp;
                break;
            }
        }
        let w = 2.0 / ((1.0 - x * x) * derivative * derivative);
        nodes[k] = x;
        nodes[n - 1 - k] = -x;
        weights[k] = w;
        weights[n - 1 - k] = w;
    }
    if n % 2 == 1 {
        nodes[n / 2] = 0.0;
    }
    (nodes, weights)
}

/// P_n(x) and P_n'(x) by the three-term recurrence.
fn legendre_p_and_derivative(n: usize, x: f64) -> (f64, f64) {
    let mut p0 = 1.0;
    let mut p1 = x;
    if n == 0 {
        return (1.0, 0.0);
    }
    for l in 2..=n {
        let lf = l as f64;
        let p2 = ((2.0 * lf - 1.0) * x * p1 - (lf - 1.0) * p0) / lf;
        p0 = p1;
        p1 = p2;
    }
    let nf = n as f64;
    let dp = nf * (x * p1 - p0) / (x * x - 1.0);
    (p1, dp)
}

/// Clenshaw–Curtis weights (summing to 2) for the nodes x_j = cos(jπ/N), j = 0..=N, N = n − 1.
pub fn clenshaw_curtis_weights(n: usize) -> Vec<f64> {
    if n < 2 {
        return vec![2.0; n];
    }
    let big_n = n - 1;
    let nf = big_n as f64;
    (0..n)
        .map(|j| {
            let c = if j == 0 || j == big_n { 1.0 } else { 2.0 };
            let mut sum = 0.0;
            for k in 1..=big_n / 2 {
                let b = if 2 * k == big_n { 1.0 } else { 2.0 };
                let kf = k as f64;
                let angle = 2.0 * kf * j as f64 * std::f64::consts::PI / nf;
                sum += b / (4.0 * kf * kf - 1.0) * angle.cos();
            }
            c / nf * (1.0 - sum)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauss_legendre_integrates_polynomials_exactly() {
        for n in [1, 2, 5, 16, 180, 721] {
            let (x, w) = gauss_legendre(n);
            let total: f64 = w.iter().sum();
            assert!((total - 2.0).abs() < 1e-13, "n = {n}: Σw = {total}");
            assert!(x.windows(2).all(|p| p[0] > p[1]), "nodes descend");
            // ∫ x^k dx = 2/(k+1) for even k, exact to degree 2n − 1.
            for k in (0..(2 * n).min(40)).step_by(2) {
                let q: f64 = x.iter().zip(&w).map(|(x, w)| w * x.powi(k as i32)).sum();
                let exact = 2.0 / (k as f64 + 1.0);
                assert!(
                    (q - exact).abs() < 1e-13,
                    "n = {n}, k = {k}: {q} vs {exact}"
                );
            }
        }
        // Known 3-point rule.
        let (x, w) = gauss_legendre(3);
        assert!((x[0] - (0.6_f64).sqrt()).abs() < 1e-15);
        assert!((w[0] - 5.0 / 9.0).abs() < 1e-15 && (w[1] - 8.0 / 9.0).abs() < 1e-15);
    }

    #[test]
    fn clenshaw_curtis_is_exact_to_degree_n_minus_one() {
        for n in [3, 4, 73, 181, 721] {
            let w = clenshaw_curtis_weights(n);
            let big_n = (n - 1) as f64;
            for k in (0..n).step_by(2) {
                let q: f64 = w
                    .iter()
                    .enumerate()
                    .map(|(j, w)| {
                        w * (j as f64 * std::f64::consts::PI / big_n)
                            .cos()
                            .powi(k as i32)
                    })
                    .sum();
                let exact = 2.0 / (k as f64 + 1.0);
                assert!(
                    (q - exact).abs() < 1e-12,
                    "n = {n}, k = {k}: {q} vs {exact}"
                );
            }
        }
    }

    #[test]
    fn grids_have_the_documented_layout() {
        let g = Grid::new(GridKind::Equiangular, 721, 1440).unwrap();
        let lat = g.latitudes_deg();
        assert_eq!(lat[0], 90.0);
        assert_eq!(lat[720], -90.0);
        assert!((lat[1] - 89.75).abs() < 1e-12);
        assert_eq!(g.longitudes_deg()[4], 1.0);
        assert_eq!(g.max_lmax(), 719);
        for weights in [g.weights(), g.cell_area_weights()] {
            assert!((weights.iter().sum::<f64>() - 1.0).abs() < 1e-13);
        }
        let gauss = Grid::new(GridKind::GaussLegendre, 180, 360).unwrap();
        assert_eq!(gauss.max_lmax(), 179);
        let lat = gauss.latitudes_deg();
        assert!(lat[0] < 90.0 && lat[0] > 89.0 && (lat[0] + lat[179]).abs() < 1e-12);
        assert!(Grid::new(GridKind::Equiangular, 2, 8).is_err());
        assert!(Grid::new(GridKind::GaussLegendre, 4, 0).is_err());
        // Area mean of sin²(lat) over the sphere is 1/3.
        let g = Grid::new(GridKind::Equiangular, 73, 144).unwrap();
        let field: Vec<f64> = g
            .latitudes_deg()
            .iter()
            .flat_map(|lat| std::iter::repeat_n(lat.to_radians().sin().powi(2), 144))
            .collect();
        assert!((g.mean(&field).unwrap() - 1.0 / 3.0).abs() < 1e-14);
        let mut bad = field.clone();
        bad[145] = f64::NAN;
        let message = g.mean(&bad).unwrap_err().to_string();
        assert!(message.contains("latitude index 1"), "{message}");
    }
}
