//! Functional connectivity: Pearson correlation between ROI time series, the paper's static
//! |Pearson| FC, and windowed dynamic FC.

use crate::matrix::Matrix;
use benchtop_compute::ComputeError;

/// The mean of `row` and the norm of its deviations from the mean.
fn mean_and_spread(row: &[f64]) -> (f64, f64) {
    let t = row.len() as f64;
    let mean = row.iter().sum::<f64>() / t;
    let norm = row.iter().map(|v| (v - mean).powi(2)).sum::<f64>().sqrt();
    (mean, norm)
}

/// Whether a time series is constant (zero variance up to f64 rounding: its spread about its
/// mean is within `ε·max(|mean|, 1)·T`), so that its Pearson correlation with anything is
/// undefined. [`pearson`] and [`crate::dataset::Dataset::validate`] use this one criterion.
pub fn is_constant(row: &[f64]) -> bool {
    let (mean, norm) = mean_and_spread(row);
    norm <= f64::EPSILON * mean.abs().max(1.0) * row.len() as f64
}

/// The Pearson correlation matrix of the rows of `series` (ROIs × time points).
///
/// The diagonal is exactly 1 and the result is exactly symmetric. Errors when there are fewer
/// than 2 time points or an ROI's series is constant ([`is_constant`]: its correlation is
/// undefined), naming the ROI (counted from 1).
pub fn pearson(series: &Matrix) -> Result<Matrix, ComputeError> {
    let (n, t) = (series.rows(), series.cols());
    if t < 2 {
        return Err(ComputeError::invalid(
            "time_points",
            format!("{t} time points; Pearson correlation needs at least 2"),
        ));
    }
    // Centre and scale each row to unit norm; r_ij is then a dot product.
    let mut z = Matrix::zeros(n, t);
    for i in 0..n {
        let row = series.row(i);
        let (mean, norm) = mean_and_spread(row);
        if !norm.is_finite() || is_constant(row) {
            return Err(ComputeError::invalid(
                "series",
                format!(
                    "ROI {} is constant over time (zero variance) or not finite: its \
                     correlation is undefined",
                    i + 1
                ),
            ));
        }
        for (o, v) in z.row_mut(i).iter_mut().zip(row) {
            *o = (v - mean) / norm;
        }
    }
    let mut r = Matrix::identity(n);
    for i in 0..n {
        for j in 0..i {
            let dot: f64 = z.row(i).iter().zip(z.row(j)).map(|(a, b)| a * b).sum();
            let dot = dot.clamp(-1.0, 1.0);
            r.set(i, j, dot);
            r.set(j, i, dot);
        }
    }
    Ok(r)
}

/// Static FC as the paper's code computes it: A_s = |corr(X)|, diagonal 1.
pub fn static_fc(series: &Matrix) -> Result<Matrix, ComputeError> {
    let mut r = pearson(series)?;
    for i in 0..r.rows() {
        for v in r.row_mut(i) {
            *v = v.abs();
        }
    }
    Ok(r)
}

/// Sliding windows over time: `window_len` points, advancing by `stride`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Windows {
    /// Time points per window (≥ 2).
    pub window_len: usize,
    /// Time points between window starts (≥ 1).
    pub stride: usize,
}

impl Windows {
    /// `count` equal non-overlapping windows covering the first `count · ⌊T/count⌋` points (the
    /// paper's code uses 2 halves).
    pub fn equal_split(time_points: usize, count: usize) -> Result<Self, ComputeError> {
        if count == 0 || time_points / count < 2 {
            return Err(ComputeError::invalid(
                "windows",
                format!("{count} windows over {time_points} time points leave fewer than 2 each"),
            ));
        }
        let len = time_points / count;
        Ok(Self {
            window_len: len,
            stride: len,
        })
    }

    /// The `[start, end)` ranges of every full window over `time_points`.
    pub fn ranges(&self, time_points: usize) -> Result<Vec<(usize, usize)>, ComputeError> {
        if self.window_len < 2 {
            return Err(ComputeError::invalid("window_len", "must be at least 2"));
        }
        if self.stride == 0 {
            return Err(ComputeError::invalid("stride", "must be at least 1"));
        }
        if self.window_len > time_points {
            return Err(ComputeError::invalid(
                "window_len",
                format!("{} exceeds the {time_points} time points", self.window_len),
            ));
        }
        Ok((0..=time_points - self.window_len)
            .step_by(self.stride)
            .map(|s| (s, s + self.window_len))
            .collect())
    }
}

/// Windowed dynamic FC: the Pearson correlation (signed) of each window of `series`.
pub fn dynamic_fc(series: &Matrix, windows: Windows) -> Result<Vec<Matrix>, ComputeError> {
    windows
        .ranges(series.cols())?
        .into_iter()
        .map(|(s, e)| pearson(&series.column_range(s, e)?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    fn random_series(n: usize, t: usize, seed: u64) -> Matrix {
        let mut rng = benchtop_compute::rng::seeded(seed);
        let data = (0..n * t).map(|_| rng.random_range(-1.0..1.0)).collect();
        Matrix::from_row_major(n, t, data).unwrap()
    }

    #[test]
    fn static_fc_has_unit_diagonal_is_symmetric_and_bounded() {
        let x = random_series(7, 40, 3);
        let fc = static_fc(&x).unwrap();
        assert_eq!(fc.asymmetry().unwrap(), 0.0);
        for i in 0..7 {
            assert_eq!(fc.get(i, i), 1.0);
            for j in 0..7 {
                assert!((0.0..=1.0).contains(&fc.get(i, j)));
            }
        }
    }

    #[test]
    fn known_two_signal_example() {
        // y = −2x + 1 exactly anticorrelated; z orthogonal to x after centring.
        let x = [1.0, 2.0, 3.0, 4.0];
        let y: Vec<f64> = x.iter().map(|v| -2.0 * v + 1.0).collect();
        let z = [1.0, -1.0, -1.0, 1.0];
        let s = Matrix::from_rows(&[x.to_vec(), y, z.to_vec()]).unwrap();
        let r = pearson(&s).unwrap();
        assert!((r.get(0, 1) + 1.0).abs() < 1e-12);
        assert!(r.get(0, 2).abs() < 1e-12);
        let a = static_fc(&s).unwrap();
        assert!((a.get(1, 0) - 1.0).abs() < 1e-12);
        // A hand-computed value: x = (1,2,3), w = (1,3,2): r = 0.5.
        let s2 = Matrix::from_rows(&[vec![1.0, 2.0, 3.0], vec![1.0, 3.0, 2.0]]).unwrap();
        assert!((pearson(&s2).unwrap().get(0, 1) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn constant_roi_and_short_series_are_errors() {
        let s = Matrix::from_rows(&[vec![1.0, 2.0, 3.0], vec![5.0, 5.0, 5.0]]).unwrap();
        assert!(pearson(&s).is_err());
        let s = Matrix::from_rows(&[vec![1.0], vec![2.0]]).unwrap();
        assert!(pearson(&s).is_err());
    }

    #[test]
    fn dynamic_fc_windows_match_static_fc_of_each_slice() {
        let x = random_series(5, 30, 9);
        let w = Windows {
            window_len: 10,
            stride: 5,
        };
        assert_eq!(
            w.ranges(30).unwrap(),
            vec![(0, 10), (5, 15), (10, 20), (15, 25), (20, 30)]
        );
        let d = dynamic_fc(&x, w).unwrap();
        assert_eq!(d.len(), 5);
        assert_eq!(d[2], pearson(&x.column_range(10, 20).unwrap()).unwrap());
        // One window over the whole series is the static correlation.
        let whole = dynamic_fc(&x, Windows::equal_split(30, 1).unwrap()).unwrap();
        assert_eq!(whole, vec![pearson(&x).unwrap()]);
        assert_eq!(
            Windows::equal_split(31, 2).unwrap().ranges(31).unwrap(),
            vec![(0, 15), (15, 30)]
        );
        assert!(Windows::equal_split(3, 2).is_err());
    }
}
