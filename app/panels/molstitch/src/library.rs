//! The molecule set the viewer and the optimisation start from: the shipped offline set (5,000
//! MOSES training molecules) or a user file (CSV, SMI, SDF), scored on the panel's objectives,
//! with its Pareto front. Loading and scoring run in a task.

use std::path::Path;

use benchtop_chem::offline::{self, Dataset};
use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_molstitch::metrics::pareto_front;
use benchtop_molstitch::{ObjectiveSpec, Objectives};

/// Molecules scored per progress step (and between cancellation checks).
const SCORE_CHUNK: usize = 250;

/// A scored molecule set.
#[derive(Clone, Debug, PartialEq)]
pub struct MoleculeSet {
    /// `offline set (MOSES)` or the file's path.
    pub source: String,
    /// Canonical SMILES, in file order.
    pub smiles: Vec<String>,
    /// Objective values of each molecule (one row per molecule).
    pub objectives: Vec<Vec<f64>>,
    /// The objectives scored.
    pub specs: Vec<ObjectiveSpec>,
    /// Indices of the Pareto-optimal molecules.
    pub front: Vec<usize>,
    /// Rows that were skipped, each naming the file, the line and the reason.
    pub skipped: Vec<String>,
    /// What the scores were computed from ([`fingerprint`]): saved scores are reused only while
    /// it holds. Empty for a set scored from data in memory.
    pub fingerprint: String,
}

impl MoleculeSet {
    /// The molecule nearest to (`x`, `y`) in objectives (`ix`, `iy`), scaled by `(sx, sy)`
    /// data units per screen unit so distance is measured on screen.
    pub fn nearest(
        &self,
        ix: usize,
        iy: usize,
        (x, y): (f64, f64),
        (sx, sy): (f64, f64),
    ) -> Option<usize> {
        self.objectives
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let dx = (v.get(ix).copied().unwrap_or(0.0) - x) / sx.max(1e-12);
                let dy = (v.get(iy).copied().unwrap_or(0.0) - y) / sy.max(1e-12);
                (i, dx * dx + dy * dy)
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }
}

/// Reads the molecules: the shipped offline set when `file` is `None`.
pub fn read(file: Option<&Path>) -> Result<Dataset, ComputeError> {
    let data = match file {
        None => offline::offline_dataset(),
        Some(path) => offline::load(path),
    }
    .map_err(|e| ComputeError::invalid("data.file", e.to_string()))?;
    if data.records.is_empty() {
        let why = data.errors.first().map_or_else(
            || "the file has no molecules".to_owned(),
            ToString::to_string,
        );
        return Err(ComputeError::invalid(
            "data.file",
            format!("{}: no valid molecule ({why})", data.source),
        ));
    }
    Ok(data)
}

/// Reads the molecules (the shipped offline set when `file` is `None`) and scores them on
/// `specs`; reading takes the first 5 % of the progress.
pub fn load(
    file: Option<&Path>,
    specs: &[ObjectiveSpec],
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<MoleculeSet, ComputeError> {
    progress.set(0.0, "reading molecules");
    let data = read(file)?;
    progress.set(0.05, "scoring objectives");
    score(&data, specs, &progress.slice(0.05, 1.0), cancel)
}

/// Scores `data` on `specs` with every core, in chunks (progress and cancel between them).
pub fn score(
    data: &Dataset,
    specs: &[ObjectiveSpec],
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<MoleculeSet, ComputeError> {
    if specs.is_empty() {
        return Err(ComputeError::invalid(
            "objectives",
            "choose at least one objective",
        ));
    }
    let objectives =
        Objectives::new(specs).map_err(|e| ComputeError::invalid("objectives", e.to_string()))?;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let smiles = data.smiles();
    let mut kept = Vec::with_capacity(smiles.len());
    let mut values = Vec::with_capacity(smiles.len());
    let mut skipped: Vec<String> = data.errors.iter().map(ToString::to_string).collect();
    for (k, chunk) in smiles.chunks(SCORE_CHUNK).enumerate() {
        cancel.check()?;
        progress.set_count((k * SCORE_CHUNK) as u64, smiles.len() as u64);
        for (s, scored) in chunk
            .iter()
            .zip(objectives.score_all_parallel(chunk, threads))
        {
            match scored {
                Ok(v) => {
                    kept.push(s.clone());
                    values.push(v);
                }
                Err(e) => skipped.push(format!("{}: {s:?}: {e}", data.source)),
            }
        }
    }
    let front = pareto_front(&values)?;
    progress.set(1.0, "scored");
    Ok(MoleculeSet {
        source: data.source.clone(),
        smiles: kept,
        objectives: values,
        specs: specs.to_vec(),
        front,
        skipped,
        fingerprint: String::new(),
    })
}

/// What scores of the molecules in `file` (as written in the parameters; `resolved` is where
/// it is, `None` for the shipped set) on `specs` depend on: this build's version, the file
/// with its size and modification time, and the objectives. A file that was replaced or
/// touched since gives another fingerprint, so its molecules are scored again.
pub fn fingerprint(file: &str, resolved: Option<&Path>, specs: &[ObjectiveSpec]) -> String {
    let data = match resolved {
        None => "the shipped offline set".to_owned(),
        Some(path) => {
            let stamp = std::fs::metadata(path).ok().map(|meta| {
                let modified = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                format!("{} bytes, modified {modified} ns", meta.len())
            });
            format!("{file} ({})", stamp.as_deref().unwrap_or("unreadable"))
        }
    };
    format!(
        "benchtop {}; {data}; objectives {specs:?}",
        env!("CARGO_PKG_VERSION")
    )
}
