//! Model inputs per subject, as the paper's code prepares them.
//!
//! - **Static FC** A_s = |corr(X)| and its symmetric normalisation D^{-1/2} A_s D^{-1/2}.
//! - **Window features**: each ROI series is z-scored over the whole recording, cut to the
//!   cohort's shortest length, and split into `windows` equal windows X_t (N × F each).
//! - **Age-aware dynamic FC** (the authors' code, generalised from 2 to w windows): with m^t_i
//!   the mean amplitude of ROI i in window t and a the age in `age_unit_years`,
//!   A^t_ij = ½(m^{t'}_j / m^t_i − ½·a), where t' = t + 1 (the last window uses itself), then
//!   D_out^{-1/2} A D_in^{-1/2} with absolute row and column sums. For 2 windows this is the
//!   code's A⁰_ij = ½(m¹_j/m⁰_i − ½a), A¹_ij = ½(m¹_j/m¹_i − ½a).
//!
//!   The code divides raw window means; z-scored or demeaned series have means near zero, which
//!   makes that ratio explode, so m^t_i here is the mean absolute deviation of ROI i in window t
//!   from its whole-recording mean (positive, scale-free after the ratio).

use crate::connectivity::static_fc;
use crate::dataset::{Dataset, SubjectRecord};
use crate::matrix::Matrix;
use benchtop_compute::ComputeError;
use serde::{Deserialize, Serialize};

/// What the model sees as each node's features in a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum NodeFeatures {
    /// The node's |r| to every node in the window (N features): the usual brain-GNN input.
    #[default]
    FcRows,
    /// The node's z-scored time series in the window (T/w features), as the authors' code does.
    /// Resting-state time points are not aligned across subjects, so only their power carries
    /// over; on the synthetic cohort this input leaves AGE-GCN near chance (see the docs).
    Series,
}

/// Settings of the feature preparation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FeatureParams {
    /// Number of equal time windows (the paper uses 2).
    pub windows: usize,
    /// The age unit of the model, years (the model sees age_years / age_unit_years).
    pub age_unit_years: f64,
    /// The node features of each window.
    pub node_features: NodeFeatures,
}

impl Default for FeatureParams {
    fn default() -> Self {
        Self {
            windows: 2,
            age_unit_years: 100.0,
            node_features: NodeFeatures::FcRows,
        }
    }
}

impl FeatureParams {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(1..=16).contains(&self.windows) {
            return Err(ComputeError::invalid("windows", "must lie in 1..=16"));
        }
        if !(self.age_unit_years.is_finite() && self.age_unit_years > 0.0) {
            return Err(ComputeError::invalid(
                "age_unit_years",
                "must be finite and > 0",
            ));
        }
        Ok(())
    }
}

/// Model input of one subject (every matrix N × N unless said otherwise).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubjectGraph {
    /// |Pearson r| over the whole recording, diagonal 1.
    pub static_fc: Matrix,
    /// D^{-1/2} |r| D^{-1/2}.
    pub static_norm: Matrix,
    /// Per window: the age-aware dynamic FC, D_out^{-1/2} A D_in^{-1/2}.
    pub dynamic_norm: Vec<Matrix>,
    /// Per window: the node features, N × F (see [`NodeFeatures`]).
    pub window_features: Vec<Matrix>,
    /// Age in model units (age_years / age_unit_years).
    pub age: f64,
    /// Age in years.
    pub age_years: f64,
    /// 0 = control, 1 = patient.
    pub label: usize,
}

/// The symmetric normalisation D^{-1/2} A D^{-1/2} with D the absolute row sums (a zero row
/// stays zero).
pub fn symmetric_normalise(a: &Matrix) -> Matrix {
    directed_normalise(a)
}

/// D_out^{-1/2} A D_in^{-1/2}, with D_out the absolute row sums and D_in the absolute column
/// sums (a zero row or column stays zero). For a symmetric A this is the symmetric
/// normalisation.
pub fn directed_normalise(a: &Matrix) -> Matrix {
    let (r, c) = (a.rows(), a.cols());
    let inv_sqrt = |s: f64| if s > 0.0 { 1.0 / s.sqrt() } else { 0.0 };
    let out: Vec<f64> = (0..r)
        .map(|i| inv_sqrt(a.row(i).iter().map(|v| v.abs()).sum()))
        .collect();
    let inn: Vec<f64> = (0..c)
        .map(|j| inv_sqrt((0..r).map(|i| a.get(i, j).abs()).sum()))
        .collect();
    let mut n = a.clone();
    for (i, out_i) in out.iter().enumerate() {
        for (v, in_j) in n.row_mut(i).iter_mut().zip(&inn) {
            *v *= out_i * in_j;
        }
    }
    n
}

/// Each row of `series` (first `time_points` columns) z-scored over those columns.
fn z_scored(series: &Matrix, time_points: usize, id: &str) -> Result<Matrix, ComputeError> {
    let mut z = series.column_range(0, time_points)?;
    for i in 0..z.rows() {
        let row = z.row_mut(i);
        let mean = row.iter().sum::<f64>() / time_points as f64;
        let sd = (row.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / time_points as f64).sqrt();
        if !(sd.is_finite() && sd > 0.0) {
            return Err(ComputeError::invalid(
                "series",
                format!(
                    "subject {id}: ROI {} is constant over the first {time_points} time points",
                    i + 1
                ),
            ));
        }
        for v in row {
            *v = (*v - mean) / sd;
        }
    }
    Ok(z)
}

/// The age-aware dynamic FC of the windows (see the module docs), normalised.
pub fn age_aware_dynamic_fc(windows: &[Matrix], age: f64) -> Vec<Matrix> {
    // Window features are z-scored over the recording, so the mean absolute value is the mean
    // absolute deviation from the recording mean.
    let amplitude: Vec<Vec<f64>> = windows
        .iter()
        .map(|w| {
            (0..w.rows())
                .map(|i| w.row(i).iter().map(|v| v.abs()).sum::<f64>() / w.cols() as f64)
                .map(|m| m.max(f64::MIN_POSITIVE))
                .collect()
        })
        .collect();
    (0..windows.len())
        .map(|t| {
            let next = &amplitude[(t + 1).min(windows.len() - 1)];
            let here = &amplitude[t];
            let n = here.len();
            let mut a = Matrix::zeros(n, n);
            for (i, m_i) in here.iter().enumerate() {
                for (v, m_j) in a.row_mut(i).iter_mut().zip(next) {
                    *v = 0.5 * (m_j / m_i - 0.5 * age);
                }
            }
            directed_normalise(&a)
        })
        .collect()
}

/// The model input of one subject, its series cut to `time_points`.
pub fn subject_graph(
    subject: &SubjectRecord,
    time_points: usize,
    params: &FeatureParams,
) -> Result<SubjectGraph, ComputeError> {
    params.validate()?;
    let window_len = time_points / params.windows;
    if window_len < 2 {
        return Err(ComputeError::invalid(
            "windows",
            format!(
                "{time_points} time points cannot make {} windows of at least 2 points",
                params.windows
            ),
        ));
    }
    let used = window_len * params.windows;
    let z = z_scored(&subject.series, used, &subject.id)?;
    let window_series = (0..params.windows)
        .map(|t| z.column_range(t * window_len, (t + 1) * window_len))
        .collect::<Result<Vec<_>, _>>()?;
    let whole_fc = static_fc(&z)?;
    let age = subject.age_years / params.age_unit_years;
    let dynamic_norm = age_aware_dynamic_fc(&window_series, age);
    let window_features = match params.node_features {
        NodeFeatures::Series => window_series,
        NodeFeatures::FcRows => window_series
            .iter()
            .enumerate()
            .map(|(t, w)| {
                static_fc(w).map_err(|e| {
                    ComputeError::invalid(
                        "series",
                        format!("subject {}, window {}: {e}", subject.id, t + 1),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    Ok(SubjectGraph {
        static_norm: symmetric_normalise(&whole_fc),
        static_fc: whole_fc,
        dynamic_norm,
        window_features,
        age,
        age_years: subject.age_years,
        label: usize::from(subject.group == crate::cohort::Group::Patient),
    })
}

/// The model inputs of every subject; all share N and F (series are cut to the shortest
/// subject's length).
pub fn subject_graphs(
    dataset: &Dataset,
    params: &FeatureParams,
) -> Result<Vec<SubjectGraph>, ComputeError> {
    dataset.validate()?;
    let t = dataset.min_time_points();
    dataset
        .subjects
        .iter()
        .map(|s| subject_graph(s, t, params))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cohort::{CohortParams, Group, generate_cohort};

    #[test]
    fn symmetric_normalisation_of_a_regular_graph_divides_by_degree() {
        // A 3-cycle with unit weights plus self loops: every degree is 3.
        let a = Matrix::from_row_major(3, 3, vec![1.0; 9]).unwrap();
        let n = symmetric_normalise(&a);
        for v in n.as_slice() {
            assert!((v - 1.0 / 3.0).abs() < 1e-15);
        }
        // Directed: row sums (out) 1 and 3, column sums (in) 2 and 2.
        let d = Matrix::from_rows(&[vec![0.0, 1.0], vec![2.0, -1.0]]).unwrap();
        let n = directed_normalise(&d);
        assert!((n.get(0, 1) - 1.0 / (1.0f64 * 2.0).sqrt()).abs() < 1e-15);
        assert!((n.get(1, 0) - 2.0 / (3.0f64 * 2.0).sqrt()).abs() < 1e-15);
        assert!((n.get(1, 1) + 1.0 / (3.0f64 * 2.0).sqrt()).abs() < 1e-15);
        assert_eq!(n.get(0, 0), 0.0);
    }

    #[test]
    fn symmetric_normalised_spectrum_lies_in_minus_one_one() {
        let c = generate_cohort(&CohortParams {
            subjects: 1,
            rois: 12,
            time_points: 60,
            ..CohortParams::default()
        })
        .unwrap();
        let d = Dataset::from_cohort(&c);
        let g = &subject_graphs(&d, &FeatureParams::default()).unwrap()[0];
        // The largest |eigenvalue| of a symmetric matrix is its spectral norm; bound it by
        // power iteration on A².
        let a = &g.static_norm;
        assert_eq!(a.asymmetry().unwrap(), 0.0);
        let mut v = vec![1.0; 12];
        let mut rho = 0.0;
        for _ in 0..200 {
            let w: Vec<f64> = (0..12)
                .map(|i| a.row(i).iter().zip(&v).map(|(x, y)| x * y).sum())
                .collect();
            let norm = w.iter().map(|x| x * x).sum::<f64>().sqrt();
            rho = norm / v.iter().map(|x| x * x).sum::<f64>().sqrt();
            v = w.iter().map(|x| x / norm).collect();
        }
        assert!(rho <= 1.0 + 1e-9, "spectral radius {rho}");
        // |r| ≥ 0 with unit diagonal: the Perron eigenvalue of D^-1/2 A D^-1/2 is exactly 1.
        assert!((rho - 1.0).abs() < 1e-6, "spectral radius {rho}");
    }

    #[test]
    fn age_aware_dynamic_fc_follows_the_two_window_formula() {
        // Two ROIs, two windows of 2 points with known mean absolute values.
        let w0 = Matrix::from_rows(&[vec![1.0, -1.0], vec![2.0, 2.0]]).unwrap(); // m = 1, 2
        let w1 = Matrix::from_rows(&[vec![3.0, 3.0], vec![-4.0, 4.0]]).unwrap(); // m = 3, 4
        let age = 0.4;
        let raw = |mj: f64, mi: f64| 0.5 * (mj / mi - 0.5 * age);
        let a0 = Matrix::from_rows(&[
            vec![raw(3.0, 1.0), raw(4.0, 1.0)],
            vec![raw(3.0, 2.0), raw(4.0, 2.0)],
        ])
        .unwrap();
        let a1 = Matrix::from_rows(&[
            vec![raw(3.0, 3.0), raw(4.0, 3.0)],
            vec![raw(3.0, 4.0), raw(4.0, 4.0)],
        ])
        .unwrap();
        let d = age_aware_dynamic_fc(&[w0, w1], age);
        for (got, want) in d.iter().zip([a0, a1]) {
            let want = directed_normalise(&want);
            for (g, w) in got.as_slice().iter().zip(want.as_slice()) {
                assert!((g - w).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn subject_graphs_share_shapes_and_cut_to_the_shortest_series() {
        let c = generate_cohort(&CohortParams {
            subjects: 3,
            rois: 10,
            time_points: 41,
            ..CohortParams::default()
        })
        .unwrap();
        let mut d = Dataset::from_cohort(&c);
        d.subjects[1].series = d.subjects[1].series.column_range(0, 31).unwrap();
        let series = FeatureParams {
            node_features: NodeFeatures::Series,
            ..FeatureParams::default()
        };
        let gs = subject_graphs(&d, &series).unwrap();
        let fc_rows = subject_graphs(&d, &FeatureParams::default()).unwrap();
        for ((g, s), f) in gs.iter().zip(&d.subjects).zip(&fc_rows) {
            // FC-row features: each window's |r|, N × N with unit diagonal.
            assert_eq!(f.window_features[1].cols(), 10);
            assert_eq!(f.window_features[1].get(3, 3), 1.0);
            assert_eq!(
                f.window_features[1],
                static_fc(&g.window_features[1]).unwrap()
            );
            assert_eq!(g.window_features.len(), 2);
            assert_eq!(g.window_features[0].cols(), 15);
            assert_eq!(g.dynamic_norm[1].rows(), 10);
            assert_eq!(g.label, usize::from(s.group == Group::Patient));
            assert!((g.age - s.age_years / 100.0).abs() < 1e-15);
            // Each window row is a slice of the z-scored series: mean over both windows 0.
            let mean: f64 = (0..2)
                .map(|t| g.window_features[t].row(4).iter().sum::<f64>())
                .sum();
            assert!(mean.abs() < 1e-9);
        }
        let bad = FeatureParams {
            windows: 20,
            ..FeatureParams::default()
        };
        assert!(
            subject_graphs(&d, &bad)
                .unwrap_err()
                .to_string()
                .contains("windows")
        );
    }
}
