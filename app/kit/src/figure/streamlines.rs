//! Streamlines of a gridded 2-D vector field: classic RK4 on the bilinearly interpolated unit
//! direction field, seeded on a regular grid. Pure and deterministic.

use serde::{Deserialize, Serialize};

/// How streamlines are seeded and integrated.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StreamlineOptions {
    /// Seeds across x (a regular grid of cell centres over the field's extent).
    pub seeds_x: usize,
    /// Seeds across y.
    pub seeds_y: usize,
    /// Step length as a fraction of the smaller grid spacing.
    pub step_fraction: f64,
    /// Maximum number of steps in each direction from a seed.
    pub max_steps: usize,
    /// Stop where the speed falls below this fraction of the field's largest speed.
    pub min_relative_speed: f64,
    /// Integrate backwards from the seed as well as forwards.
    pub both_directions: bool,
}

impl Default for StreamlineOptions {
    fn default() -> Self {
        Self {
            seeds_x: 8,
            seeds_y: 8,
            step_fraction: 0.25,
            max_steps: 400,
            min_relative_speed: 1e-6,
            both_directions: true,
        }
    }
}

/// A regular grid with bilinear interpolation of (u, v).
struct Field<'a> {
    x0: f64,
    y0: f64,
    dx: f64,
    dy: f64,
    nx: usize,
    ny: usize,
    u: &'a [f64],
    v: &'a [f64],
}

impl Field<'_> {
    fn x_max(&self) -> f64 {
        self.x0 + self.dx * (self.nx - 1) as f64
    }

    fn y_max(&self) -> f64 {
        self.y0 + self.dy * (self.ny - 1) as f64
    }

    fn contains(&self, (x, y): (f64, f64)) -> bool {
        x >= self.x0 && x <= self.x_max() && y >= self.y0 && y <= self.y_max()
    }

    /// Cell index and fractional position along one axis (index clamped to the last cell).
    fn locate(pos: f64, origin: f64, spacing: f64, n: usize) -> (usize, f64) {
        let f = ((pos - origin) / spacing).max(0.0);
        // Clamped to n − 2, so the float-to-int conversion stays in range.
        let i = (f.floor() as usize).min(n - 2);
        (i, f - i as f64)
    }

    /// Bilinearly interpolated velocity at a point inside the grid.
    fn velocity(&self, (x, y): (f64, f64)) -> (f64, f64) {
        let (i, tx) = Self::locate(x, self.x0, self.dx, self.nx);
        let (j, ty) = Self::locate(y, self.y0, self.dy, self.ny);
        let k00 = j * self.nx + i;
        let k10 = k00 + 1;
        let k01 = k00 + self.nx;
        let k11 = k01 + 1;
        let lerp2 = |c: &[f64]| {
            let bottom = c[k00] * (1.0 - tx) + c[k10] * tx;
            let top = c[k01] * (1.0 - tx) + c[k11] * tx;
            bottom * (1.0 - ty) + top * ty
        };
        (lerp2(self.u), lerp2(self.v))
    }

    /// Unit direction at a point, or `None` outside, at non-finite or too-slow velocity.
    fn direction(&self, p: (f64, f64), min_speed: f64) -> Option<(f64, f64)> {
        if !self.contains(p) {
            return None;
        }
        let (u, v) = self.velocity(p);
        let speed = u.hypot(v);
        if !speed.is_finite() || speed <= min_speed {
            return None;
        }
        Some((u / speed, v / speed))
    }

    /// One RK4 step of length `h` (negative for backwards); `None` if any stage fails.
    fn rk4_step(&self, p: (f64, f64), h: f64, min_speed: f64) -> Option<(f64, f64)> {
        let k1 = self.direction(p, min_speed)?;
        let k2 = self.direction((p.0 + 0.5 * h * k1.0, p.1 + 0.5 * h * k1.1), min_speed)?;
        let k3 = self.direction((p.0 + 0.5 * h * k2.0, p.1 + 0.5 * h * k2.1), min_speed)?;
        let k4 = self.direction((p.0 + h * k3.0, p.1 + h * k3.1), min_speed)?;
        let next = (
            p.0 + h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0),
            p.1 + h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1),
        );
        self.contains(next).then_some(next)
    }

    /// Integrates from `seed` in one direction; returns the points (seed first) and whether the
    /// line closed on itself.
    fn trace(
        &self,
        seed: (f64, f64),
        h: f64,
        options: &StreamlineOptions,
        min_speed: f64,
    ) -> (Vec<(f64, f64)>, bool) {
        let mut points = vec![seed];
        let mut p = seed;
        let mut travelled = 0.0;
        for _ in 0..options.max_steps {
            let Some(next) = self.rk4_step(p, h, min_speed) else {
                break;
            };
            travelled += h.abs();
            p = next;
            let back_home = (p.0 - seed.0).hypot(p.1 - seed.1) < 0.5 * h.abs();
            if travelled > 4.0 * h.abs() && back_home {
                points.push(seed);
                return (points, true);
            }
            points.push(p);
        }
        (points, false)
    }
}

/// Streamlines of the field (`u`, `v` row-major with `ys.len()` rows of `xs.len()` values) on
/// the evenly spaced grid `xs` × `ys`, as polylines in data units. Returns no lines when the
/// grid is malformed (fewer than 2 points an axis, mismatched lengths, non-increasing or
/// non-finite coordinates, no finite non-zero velocity) or the options ask for no seeds.
pub fn compute_streamlines(
    xs: &[f64],
    ys: &[f64],
    u: &[f64],
    v: &[f64],
    options: &StreamlineOptions,
) -> Vec<Vec<(f64, f64)>> {
    let (nx, ny) = (xs.len(), ys.len());
    if nx < 2 || ny < 2 || u.len() != nx * ny || v.len() != nx * ny {
        return Vec::new();
    }
    let (x0, y0) = (xs[0], ys[0]);
    let dx = (xs[nx - 1] - x0) / (nx - 1) as f64;
    let dy = (ys[ny - 1] - y0) / (ny - 1) as f64;
    if !(dx.is_finite()
        && dy.is_finite()
        && dx > 0.0
        && dy > 0.0
        && x0.is_finite()
        && y0.is_finite())
    {
        return Vec::new();
    }
    let max_speed = u
        .iter()
        .zip(v)
        .map(|(a, b)| a.hypot(*b))
        .filter(|s| s.is_finite())
        .fold(0.0_f64, f64::max);
    if max_speed <= 0.0 || options.seeds_x == 0 || options.seeds_y == 0 {
        return Vec::new();
    }
    if !(options.step_fraction.is_finite() && options.step_fraction > 0.0) {
        return Vec::new();
    }
    let field = Field {
        x0,
        y0,
        dx,
        dy,
        nx,
        ny,
        u,
        v,
    };
    let min_speed = max_speed * options.min_relative_speed.max(0.0);
    let h = options.step_fraction * dx.min(dy);
    let (width, height) = (field.x_max() - x0, field.y_max() - y0);

    let mut lines = Vec::new();
    for j in 0..options.seeds_y {
        for i in 0..options.seeds_x {
            let seed = (
                x0 + width * (i as f64 + 0.5) / options.seeds_x as f64,
                y0 + height * (j as f64 + 0.5) / options.seeds_y as f64,
            );
            let (forward, closed) = field.trace(seed, h, options, min_speed);
            let mut line = if options.both_directions && !closed {
                let (mut backward, _) = field.trace(seed, -h, options, min_speed);
                backward.reverse();
                backward.extend_from_slice(&forward[1..]);
                backward
            } else {
                forward
            };
            if line.len() >= 2 {
                line.shrink_to_fit();
                lines.push(line);
            }
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n)
            .map(|i| lo + (hi - lo) * i as f64 / (n - 1) as f64)
            .collect()
    }

    /// Samples `f(x, y)` on the grid, row-major, bottom row first.
    fn sample(xs: &[f64], ys: &[f64], f: impl Fn(f64, f64) -> (f64, f64)) -> (Vec<f64>, Vec<f64>) {
        let mut u = Vec::new();
        let mut v = Vec::new();
        for &y in ys {
            for &x in xs {
                let (a, b) = f(x, y);
                u.push(a);
                v.push(b);
            }
        }
        (u, v)
    }

    #[test]
    fn circular_flow_stays_on_circles_and_closes() {
        let xs = grid(21, -1.0, 1.0);
        let ys = grid(21, -1.0, 1.0);
        // Solid-body rotation: bilinear interpolation of a linear field is exact.
        let (u, v) = sample(&xs, &ys, |x, y| (-y, x));
        let options = StreamlineOptions {
            seeds_x: 4,
            seeds_y: 4,
            ..StreamlineOptions::default()
        };
        let lines = compute_streamlines(&xs, &ys, &u, &v, &options);
        assert!(!lines.is_empty());
        let mut closed = 0;
        for line in &lines {
            let r0 = line[0].0.hypot(line[0].1);
            for &(x, y) in line {
                let r = x.hypot(y);
                assert!(
                    (r - r0).abs() < 1e-6 * r0.max(1e-3),
                    "radius drifted: {r0} -> {r}"
                );
            }
            if line.first() == line.last() {
                closed += 1;
                // A closed circle is about 2π r long.
                let length: f64 = line
                    .windows(2)
                    .map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1))
                    .sum();
                let circumference = 2.0 * std::f64::consts::PI * r0;
                assert!(
                    (length - circumference).abs() < 0.02 * circumference,
                    "{length} vs {circumference}"
                );
            }
        }
        // Seeds whose circle fits inside the square close on themselves.
        assert!(closed >= 4, "only {closed} closed loops");
    }

    #[test]
    fn uniform_flow_gives_straight_lines_across_the_domain() {
        let xs = grid(11, 0.0, 2.0);
        let ys = grid(6, 0.0, 1.0);
        let (u, v) = sample(&xs, &ys, |_, _| (3.0, 0.0));
        let options = StreamlineOptions {
            seeds_x: 1,
            seeds_y: 3,
            step_fraction: 0.5,
            ..StreamlineOptions::default()
        };
        let lines = compute_streamlines(&xs, &ys, &u, &v, &options);
        assert_eq!(lines.len(), 3);
        for line in &lines {
            let y0 = line[0].1;
            assert!(line.iter().all(|p| p.1 == y0));
            // Steps of 0.1 from the seed at x = 1 reach within one step of both edges.
            assert!(line[0].0 <= 0.1 + 1e-9, "{:?}", line[0]);
            assert!(line[line.len() - 1].0 >= 1.9 - 1e-9);
            assert!(line.windows(2).all(|w| w[1].0 > w[0].0));
        }
    }

    #[test]
    fn deterministic_and_robust_to_bad_input() {
        let xs = grid(9, 0.0, 1.0);
        let ys = grid(9, 0.0, 1.0);
        let (mut u, v) = sample(&xs, &ys, |x, y| (y - 0.5, 0.5 - x + 0.1));
        u[40] = f64::NAN;
        let options = StreamlineOptions::default();
        let a = compute_streamlines(&xs, &ys, &u, &v, &options);
        let b = compute_streamlines(&xs, &ys, &u, &v, &options);
        assert_eq!(a, b);
        assert!(
            a.iter()
                .flatten()
                .all(|p| p.0.is_finite() && p.1.is_finite())
        );
        assert!(compute_streamlines(&xs, &ys, &u[..10], &v, &options).is_empty());
        assert!(compute_streamlines(&xs[..1], &ys[..1], &u[..1], &v[..1], &options).is_empty());
        let zeros = vec![0.0; 81];
        assert!(compute_streamlines(&xs, &ys, &zeros, &zeros, &options).is_empty());
    }
}
