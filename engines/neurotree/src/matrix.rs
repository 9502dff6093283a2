//! A dense row-major `f64` matrix: ROI × time series, FC matrices, VAR couplings. It is a
//! container whose rows are slices (the time-series code reads an ROI's samples as one), while
//! its linear algebra (products, transposes) is nalgebra's ([`Matrix::to_nalgebra`]).

use benchtop_compute::ComputeError;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// A dense `rows × cols` matrix stored row-major.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Matrix {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
}

impl Matrix {
    /// A `rows × cols` matrix of zeros.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Self {
            rows,
            cols,
            data: vec![0.0; rows * cols],
        }
    }

    /// The `n × n` identity.
    pub fn identity(n: usize) -> Self {
        let mut m = Self::zeros(n, n);
        for i in 0..n {
            m.set(i, i, 1.0);
        }
        m
    }

    /// A matrix from row-major `data`; errors when the length is not `rows · cols`.
    pub fn from_row_major(rows: usize, cols: usize, data: Vec<f64>) -> Result<Self, ComputeError> {
        if data.len() != rows * cols {
            return Err(ComputeError::invalid(
                "data",
                format!("{} values for a {rows}×{cols} matrix", data.len()),
            ));
        }
        Ok(Self { rows, cols, data })
    }

    /// A matrix from equal-length rows; errors on ragged rows.
    pub fn from_rows(rows: &[Vec<f64>]) -> Result<Self, ComputeError> {
        let cols = rows.first().map_or(0, Vec::len);
        if rows.iter().any(|r| r.len() != cols) {
            return Err(ComputeError::invalid("rows", "rows have different lengths"));
        }
        Ok(Self {
            rows: rows.len(),
            cols,
            data: rows.iter().flatten().copied().collect(),
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Whether the matrix is square.
    pub fn is_square(&self) -> bool {
        self.rows == self.cols
    }

    /// Entry (i, j). Panics when out of range, like slice indexing.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.cols + j]
    }

    /// Sets entry (i, j).
    pub fn set(&mut self, i: usize, j: usize, value: f64) {
        self.data[i * self.cols + j] = value;
    }

    /// Row `i` as a slice.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// Row `i` as a mutable slice.
    pub fn row_mut(&mut self, i: usize) -> &mut [f64] {
        &mut self.data[i * self.cols..(i + 1) * self.cols]
    }

    /// All entries, row-major.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    /// The transpose.
    pub fn transpose(&self) -> Self {
        Self::from_nalgebra(&self.to_nalgebra().transpose())
    }

    /// The same matrix as nalgebra's (column-major) dense matrix.
    pub fn to_nalgebra(&self) -> DMatrix<f64> {
        DMatrix::from_row_slice(self.rows, self.cols, &self.data)
    }

    /// A matrix with the entries of nalgebra's `m`.
    pub fn from_nalgebra(m: &DMatrix<f64>) -> Self {
        // nalgebra stores columns; the transpose's columns are this matrix's rows.
        Self {
            rows: m.nrows(),
            cols: m.ncols(),
            data: m.transpose().as_slice().to_vec(),
        }
    }

    /// Columns `start..end` (e.g. a time window of an ROI × time series).
    pub fn column_range(&self, start: usize, end: usize) -> Result<Self, ComputeError> {
        if start > end || end > self.cols {
            return Err(ComputeError::invalid(
                "columns",
                format!("range {start}..{end} outside 0..{}", self.cols),
            ));
        }
        let mut data = Vec::with_capacity(self.rows * (end - start));
        for i in 0..self.rows {
            data.extend_from_slice(&self.row(i)[start..end]);
        }
        Ok(Self {
            rows: self.rows,
            cols: end - start,
            data,
        })
    }

    /// The product `self · other`; errors on mismatched shapes.
    pub fn matmul(&self, other: &Self) -> Result<Self, ComputeError> {
        if self.cols != other.rows {
            return Err(ComputeError::invalid(
                "matmul",
                format!(
                    "{}×{} times {}×{}",
                    self.rows, self.cols, other.rows, other.cols
                ),
            ));
        }
        Ok(Self::from_nalgebra(
            &(self.to_nalgebra() * other.to_nalgebra()),
        ))
    }

    /// The induced ∞-norm, the largest absolute row sum.
    pub fn norm_inf(&self) -> f64 {
        (0..self.rows)
            .map(|i| self.row(i).iter().map(|v| v.abs()).sum::<f64>())
            .fold(0.0, f64::max)
    }

    /// The largest |a_ij − a_ji| (0 for a symmetric matrix); errors when not square.
    pub fn asymmetry(&self) -> Result<f64, ComputeError> {
        if !self.is_square() {
            return Err(ComputeError::invalid("matrix", "not square"));
        }
        let mut worst = 0.0_f64;
        for i in 0..self.rows {
            for j in 0..i {
                worst = worst.max((self.get(i, j) - self.get(j, i)).abs());
            }
        }
        Ok(worst)
    }

    /// An upper bound on the spectral radius: ‖A^(2^squarings)‖∞^(1/2^squarings) (Gelfand's
    /// formula; every induced norm of A^m bounds ρ(A)^m). Errors when not square.
    pub fn spectral_radius_upper_bound(&self, squarings: u32) -> Result<f64, ComputeError> {
        if !self.is_square() {
            return Err(ComputeError::invalid("matrix", "not square"));
        }
        let mut p = self.clone();
        let mut log_scale = 0.0_f64;
        for _ in 0..squarings {
            // Rescale to unit ∞-norm before squaring so the powers neither overflow nor vanish.
            let norm = p.norm_inf();
            if norm == 0.0 {
                return Ok(0.0);
            }
            for v in &mut p.data {
                *v /= norm;
            }
            log_scale = 2.0 * (log_scale + norm.ln());
            p = p.matmul(&p)?;
        }
        let norm = p.norm_inf();
        if norm == 0.0 {
            return Ok(0.0);
        }
        let m = 2.0_f64.powi(squarings as i32);
        Ok(((log_scale + norm.ln()) / m).exp())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matmul_transpose_and_windows() {
        let a = Matrix::from_rows(&[vec![1.0, 2.0], vec![3.0, 4.0]]).unwrap();
        let b = a.matmul(&Matrix::identity(2)).unwrap();
        assert_eq!(a, b);
        let p = a.matmul(&a).unwrap();
        assert_eq!(p.as_slice(), &[7.0, 10.0, 15.0, 22.0]);
        assert_eq!(a.transpose().as_slice(), &[1.0, 3.0, 2.0, 4.0]);
        assert_eq!(a.column_range(1, 2).unwrap().as_slice(), &[2.0, 4.0]);
        assert_eq!(a.norm_inf(), 7.0);
        assert_eq!(a.asymmetry().unwrap(), 1.0);
        assert!(Matrix::from_row_major(2, 2, vec![0.0; 3]).is_err());
    }

    #[test]
    fn spectral_radius_bound_is_exact_for_diagonal_and_converges_for_nilpotent_like() {
        let d = Matrix::from_rows(&[vec![0.3, 0.0], vec![0.0, -0.2]]).unwrap();
        assert!((d.spectral_radius_upper_bound(6).unwrap() - 0.3).abs() < 1e-12);
        // Eigenvalues ±0.5.
        let a = Matrix::from_rows(&[vec![0.0, 1.0], vec![0.25, 0.0]]).unwrap();
        let b = a.spectral_radius_upper_bound(10).unwrap();
        assert!((0.5 - 1e-12..0.5 + 1e-3).contains(&b), "{b}");
        assert_eq!(
            Matrix::zeros(3, 3).spectral_radius_upper_bound(4).unwrap(),
            0.0
        );
    }
}
