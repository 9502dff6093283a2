//! A cohort of subjects as the pipeline consumes it: ROI time series with group and age, ROI
//! names and a network label per ROI. Built from the synthetic cohort or from loaded files.

use crate::cohort::{Cohort, Group, YEO7_NETWORKS};
use crate::connectivity::is_constant;
use crate::matrix::Matrix;
use benchtop_compute::ComputeError;
use serde::{Deserialize, Serialize};

/// One subject's recording.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubjectRecord {
    /// Identifier (file stem for loaded data, `sub-000`… for synthetic subjects).
    pub id: String,
    /// Diagnostic group.
    pub group: Group,
    /// Age in years (0 when the data come without demographics).
    pub age_years: f64,
    /// The ROI time series, ROIs × time points.
    pub series: Matrix,
}

/// Subjects sharing one parcellation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    /// The name of each ROI, in row order of every subject's series.
    pub roi_names: Vec<String>,
    /// The network (or anatomical system) names that `network_of_roi` indexes.
    pub network_names: Vec<String>,
    /// The network index of each ROI.
    pub network_of_roi: Vec<usize>,
    /// The subjects.
    pub subjects: Vec<SubjectRecord>,
}

impl Dataset {
    /// A dataset from a synthetic cohort: ROIs are named `<network> <k>` after their Yeo-style
    /// network.
    pub fn from_cohort(cohort: &Cohort) -> Self {
        let mut seen = [0usize; YEO7_NETWORKS.len()];
        let roi_names = cohort
            .network_of_roi
            .iter()
            .map(|&net| {
                seen[net] += 1;
                format!("{} {}", YEO7_NETWORKS[net], seen[net])
            })
            .collect();
        Self {
            roi_names,
            network_names: YEO7_NETWORKS.iter().map(|s| s.to_string()).collect(),
            network_of_roi: cohort.network_of_roi.clone(),
            subjects: cohort
                .subjects
                .iter()
                .map(|s| SubjectRecord {
                    id: s.id.clone(),
                    group: s.group,
                    age_years: s.age_years,
                    series: s.series.clone(),
                })
                .collect(),
        }
    }

    /// The number of ROIs.
    pub fn rois(&self) -> usize {
        self.roi_names.len()
    }

    /// The number of subjects in `group`.
    pub fn count(&self, group: Group) -> usize {
        self.subjects.iter().filter(|s| s.group == group).count()
    }

    /// The shortest series length over subjects (0 without subjects).
    pub fn min_time_points(&self) -> usize {
        self.subjects
            .iter()
            .map(|s| s.series.cols())
            .min()
            .unwrap_or(0)
    }

    /// Checks that names, networks and every subject's series agree, that every value and age
    /// is finite, and that no ROI is constant over the time points every analysis uses (the
    /// first [`Dataset::min_time_points`]; zero variance leaves its correlation undefined, see
    /// [`crate::connectivity::is_constant`]). Errors name the subject and the place; ROIs and
    /// time points are counted from 1.
    pub fn validate(&self) -> Result<(), ComputeError> {
        let n = self.rois();
        if n < 2 {
            return Err(ComputeError::invalid(
                "rois",
                "a dataset needs at least 2 ROIs",
            ));
        }
        if self.network_of_roi.len() != n {
            return Err(ComputeError::invalid(
                "network_of_roi",
                format!("{} labels for {n} ROIs", self.network_of_roi.len()),
            ));
        }
        if let Some(&bad) = self
            .network_of_roi
            .iter()
            .find(|&&k| k >= self.network_names.len())
        {
            return Err(ComputeError::invalid(
                "network_of_roi",
                format!(
                    "network index {bad} but only {} networks are named",
                    self.network_names.len()
                ),
            ));
        }
        if self.subjects.is_empty() {
            return Err(ComputeError::invalid(
                "subjects",
                "the dataset has no subjects",
            ));
        }
        for s in &self.subjects {
            if s.series.rows() != n {
                return Err(ComputeError::invalid(
                    "series",
                    format!(
                        "subject {}: {} ROIs, expected {n} like the ROI names",
                        s.id,
                        s.series.rows()
                    ),
                ));
            }
            if s.series.cols() < 4 {
                return Err(ComputeError::invalid(
                    "series",
                    format!(
                        "subject {}: {} time points, need at least 4",
                        s.id,
                        s.series.cols()
                    ),
                ));
            }
            if let Some(pos) = s.series.as_slice().iter().position(|v| !v.is_finite()) {
                let t = s.series.cols();
                return Err(ComputeError::invalid(
                    "series",
                    format!(
                        "subject {}: value at ROI {}, time point {} is not finite",
                        s.id,
                        pos / t + 1,
                        pos % t + 1
                    ),
                ));
            }
            self.check_not_constant(s)?;
            if !(s.age_years.is_finite() && s.age_years >= 0.0) {
                return Err(ComputeError::invalid(
                    "age_years",
                    format!("subject {}: age {} is not a finite age", s.id, s.age_years),
                ));
            }
        }
        Ok(())
    }

    /// Refuses a subject with an ROI that is constant over the first
    /// [`Dataset::min_time_points`] time points, naming the subject and the ROI.
    fn check_not_constant(&self, subject: &SubjectRecord) -> Result<(), ComputeError> {
        let used = self.min_time_points().min(subject.series.cols());
        let Some(i) =
            (0..subject.series.rows()).find(|&i| is_constant(&subject.series.row(i)[..used]))
        else {
            return Ok(());
        };
        let number = i + 1;
        let name = match self.roi_names.get(i) {
            Some(name) if *name != format!("ROI {number}") => format!(" (`{name}`)"),
            _ => String::new(),
        };
        let span = if used == subject.series.cols() {
            "over time".to_owned()
        } else {
            format!("over the first {used} time points (the shortest subject's length)")
        };
        Err(ComputeError::invalid(
            "series",
            format!(
                "subject {}: ROI {number}{name} is constant {span} (zero variance): its \
                 correlation is undefined; remove that ROI or subject",
                subject.id
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cohort::{CohortParams, generate_cohort};

    fn small() -> Dataset {
        let c = generate_cohort(&CohortParams {
            subjects: 4,
            rois: 9,
            time_points: 20,
            ..CohortParams::default()
        })
        .unwrap();
        Dataset::from_cohort(&c)
    }

    #[test]
    fn from_cohort_names_rois_by_network_and_validates() {
        let d = small();
        d.validate().unwrap();
        assert_eq!(d.rois(), 9);
        // 9 ROIs over 7 networks: the first two networks get 2 ROIs.
        assert_eq!(d.roi_names[0], "Visual 1");
        assert_eq!(d.roi_names[1], "Visual 2");
        assert_eq!(d.roi_names[8], "Default mode 1");
        assert_eq!(d.count(Group::Control) + d.count(Group::Patient), 4);
        assert_eq!(d.min_time_points(), 20);
    }

    #[test]
    fn validation_names_the_subject_and_place() {
        let mut d = small();
        d.subjects[2].series.set(3, 7, f64::NAN);
        let msg = d.validate().unwrap_err().to_string();
        assert!(
            msg.contains(&d.subjects[2].id) && msg.contains("ROI 4, time point 8"),
            "{msg}"
        );
        let mut d = small();
        d.network_of_roi.pop();
        assert!(
            d.validate()
                .unwrap_err()
                .to_string()
                .contains("8 labels for 9 ROIs")
        );
        let mut d = small();
        d.subjects[0].age_years = f64::INFINITY;
        assert!(d.validate().is_err());
    }

    #[test]
    fn robust_a_constant_roi_is_refused_naming_subject_and_roi() {
        let mut d = small();
        let id = d.subjects[1].id.clone();
        for t in 0..20 {
            d.subjects[1].series.set(6, t, 0.1);
        }
        let msg = d.validate().unwrap_err().to_string();
        assert_eq!(
            msg,
            format!(
                "invalid parameter `series`: subject {id}: ROI 7 (`{}`) is constant over time \
                 (zero variance): its correlation is undefined; remove that ROI or subject",
                d.roi_names[6]
            )
        );
        // Constant only over the part every analysis uses (the shortest subject's length).
        let mut d = small();
        d.subjects[0].series = d.subjects[0].series.column_range(0, 12).unwrap();
        for t in 0..12 {
            d.subjects[3].series.set(0, t, -2.5);
        }
        d.roi_names[0] = "ROI 1".to_owned();
        let msg = d.validate().unwrap_err().to_string();
        assert!(
            msg.contains(&format!(
                "subject {}: ROI 1 is constant over the first 12 time points",
                d.subjects[3].id
            )),
            "{msg}"
        );
    }
}
