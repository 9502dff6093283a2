//! What the panel keeps of its subjects: their description (ids, groups, ages, ROI and network
//! names) in the project file and their series in the sidecar (NPY), so that reopening a
//! project shows the same figures without regenerating or reloading.

use benchtop_neurotree::Matrix;
use benchtop_neurotree::cohort::Group;
use benchtop_neurotree::dataset::{Dataset, SubjectRecord};
use benchtop_neurotree::result::NeuroTreeResult;
use serde::{Deserialize, Serialize};

use super::{LoadedData, SavedResults};
use benchtop_kit::data::StoredData;
use benchtop_kit::panel::{from_saved, to_saved};
use benchtop_kit::project::Sidecar;

/// The description of the subjects kept in the project file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct DataMeta {
    source: String,
    roi_names: Vec<String>,
    network_names: Vec<String>,
    network_of_roi: Vec<usize>,
    ids: Vec<String>,
    groups: Vec<Group>,
    ages_years: Vec<f64>,
    /// Time points of each subject's series.
    time_points: Vec<usize>,
}

/// Writes the subjects' description to `results` and their series to the sidecar (all
/// subjects' ROIs × time matrices one after another).
fn save_data(
    data: &LoadedData,
    results: &mut SavedResults,
    sidecar: Option<&Sidecar>,
) -> anyhow::Result<()> {
    let d = &data.dataset;
    results.data = Some(to_saved(&DataMeta {
        source: data.source.clone(),
        roi_names: d.roi_names.clone(),
        network_names: d.network_names.clone(),
        network_of_roi: d.network_of_roi.clone(),
        ids: d.subjects.iter().map(|s| s.id.clone()).collect(),
        groups: d.subjects.iter().map(|s| s.group).collect(),
        ages_years: d.subjects.iter().map(|s| s.age_years).collect(),
        time_points: d.subjects.iter().map(|s| s.series.cols()).collect(),
    })?);
    let Some(sidecar) = sidecar else {
        return Ok(());
    };
    let flat: Vec<f64> = d
        .subjects
        .iter()
        .flat_map(|s| s.series.as_slice().iter().copied())
        .collect();
    results.series_file = Some(sidecar.write_f64("neurotree-series", &[flat.len()], &flat)?);
    Ok(())
}

/// Reads the subjects saved by [`save_data`]; `None` when nothing was saved.
fn restore_data(
    results: &SavedResults,
    sidecar: Option<&Sidecar>,
) -> anyhow::Result<Option<LoadedData>> {
    let (Some(value), Some(sidecar), Some(file)) = (&results.data, sidecar, &results.series_file)
    else {
        return Ok(None);
    };
    let meta: DataMeta = from_saved(value)?;
    let (_, flat) = sidecar.read_f64(file)?;
    let n = meta.roi_names.len();
    let expected: usize = meta.time_points.iter().map(|t| t * n).sum();
    anyhow::ensure!(
        flat.len() == expected,
        "{file}: expected {expected} values, found {}",
        flat.len()
    );
    anyhow::ensure!(
        meta.ids.len() == meta.time_points.len()
            && meta.groups.len() == meta.ids.len()
            && meta.ages_years.len() == meta.ids.len(),
        "the saved subject lists differ in length"
    );
    let mut offset = 0;
    let mut subjects = Vec::with_capacity(meta.ids.len());
    for (i, id) in meta.ids.iter().enumerate() {
        let t = meta.time_points[i];
        let series = Matrix::from_row_major(n, t, flat[offset..offset + n * t].to_vec())?;
        offset += n * t;
        subjects.push(SubjectRecord {
            id: id.clone(),
            group: meta.groups[i],
            age_years: meta.ages_years[i],
            series,
        });
    }
    let dataset = Dataset {
        roi_names: meta.roi_names,
        network_names: meta.network_names,
        network_of_roi: meta.network_of_roi,
        subjects,
    };
    dataset.validate()?;
    Ok(Some(LoadedData {
        dataset,
        source: meta.source,
    }))
}

/// Writes a result: the group-mean FC matrices to the sidecar (when there is one), the rest to
/// `results`.
pub(super) fn save_result(
    result: Option<&NeuroTreeResult>,
    results: &mut SavedResults,
    sidecar: Option<&Sidecar>,
) -> anyhow::Result<()> {
    let Some(result) = result else {
        return Ok(());
    };
    let mut stored = result.clone();
    if let Some(sidecar) = sidecar
        && let Some(first) = stored.group_trees.first()
    {
        let n = first.mean_fc.rows();
        let flat: Vec<f64> = stored
            .group_trees
            .iter()
            .flat_map(|g| g.mean_fc.as_slice().iter().copied())
            .collect();
        results.group_fc_file = Some(sidecar.write_f64(
            "neurotree-group-fc",
            &[stored.group_trees.len(), n, n],
            &flat,
        )?);
        for group in &mut stored.group_trees {
            group.mean_fc = Matrix::zeros(0, 0);
        }
    }
    results.result = Some(to_saved(&stored)?);
    Ok(())
}

/// Reads a result saved by [`save_result`]; `None` when nothing was saved.
pub(super) fn restore_result(
    results: &SavedResults,
    sidecar: Option<&Sidecar>,
) -> anyhow::Result<Option<NeuroTreeResult>> {
    let Some(value) = &results.result else {
        return Ok(None);
    };
    let mut result: NeuroTreeResult = from_saved(value)?;
    if let (Some(sidecar), Some(file)) = (sidecar, &results.group_fc_file) {
        let (shape, flat) = sidecar.read_f64(file)?;
        anyhow::ensure!(
            shape.len() == 3 && shape[0] == result.group_trees.len() && shape[1] == shape[2],
            "{file}: expected {} square matrices, found shape {shape:?}",
            result.group_trees.len()
        );
        let n = shape[1];
        for (g, group) in result.group_trees.iter_mut().enumerate() {
            group.mean_fc =
                Matrix::from_row_major(n, n, flat[g * n * n..(g + 1) * n * n].to_vec())?;
        }
    }
    Ok(Some(result))
}

impl StoredData<SavedResults> for LoadedData {
    fn save(&self, results: &mut SavedResults, sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        save_data(self, results, sidecar)
    }

    fn restore(results: &SavedResults, sidecar: Option<&Sidecar>) -> anyhow::Result<Option<Self>> {
        restore_data(results, sidecar)
    }
}
