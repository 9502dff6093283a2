//! The scored molecule set kept with the project, so that reopening it does not score the
//! molecules again (5,000 molecules take about 20 s): the objective values as an array in the
//! sidecar, the molecules, Pareto front and skipped rows as text next to it, and the
//! fingerprint of what they were computed from. Saved scores whose fingerprint no longer
//! holds (another file, a changed file, other objectives, another build) are scored again.

use benchtop_kit::project::Sidecar;
use serde::{Deserialize, Serialize};

use super::library::MoleculeSet;

/// Sidecar array of the objective values, one row per molecule.
const SCORES_NAME: &str = "molstitch-scores";
/// Sidecar file of the molecules, the Pareto front and the skipped rows.
const MOLECULES_FILE: &str = "molstitch-molecules.ron";

/// Where the saved scores are and what they were computed from (in the project file).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedScores {
    /// See [`crate::library::fingerprint`].
    pub fingerprint: String,
    /// Sidecar array of the objective values.
    pub scores_file: String,
    /// Sidecar file of the molecules, front and skipped rows.
    pub molecules_file: String,
}

/// The part of a scored set that is not an array.
#[derive(Serialize, Deserialize)]
struct Listing {
    source: String,
    smiles: Vec<String>,
    front: Vec<usize>,
    skipped: Vec<String>,
}

/// Writes `set` to `sidecar`; `None` for a set whose origin is unknown (nothing to check a
/// reopened project against).
pub(crate) fn save(set: &MoleculeSet, sidecar: &Sidecar) -> anyhow::Result<Option<SavedScores>> {
    if set.fingerprint.is_empty() {
        return Ok(None);
    }
    let columns = set.specs.len();
    let flat: Vec<f64> = set.objectives.iter().flatten().copied().collect();
    let scores_file = sidecar.write_f64(SCORES_NAME, &[set.objectives.len(), columns], &flat)?;
    let listing = Listing {
        source: set.source.clone(),
        smiles: set.smiles.clone(),
        front: set.front.clone(),
        skipped: set.skipped.clone(),
    };
    let molecules_file = sidecar.write_text(MOLECULES_FILE, &ron::to_string(&listing)?)?;
    Ok(Some(SavedScores {
        fingerprint: set.fingerprint.clone(),
        scores_file,
        molecules_file,
    }))
}

/// Reads the set `saved` describes, scored on `specs`; refuses files that do not agree with
/// each other.
pub(crate) fn restore(
    saved: &SavedScores,
    sidecar: &Sidecar,
    specs: &[benchtop_molstitch::ObjectiveSpec],
) -> anyhow::Result<MoleculeSet> {
    let text = sidecar.read_text(&saved.molecules_file)?;
    let listing: Listing =
        ron::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", saved.molecules_file))?;
    let (shape, flat) = sidecar.read_f64(&saved.scores_file)?;
    let rows = listing.smiles.len();
    anyhow::ensure!(
        shape == [rows, specs.len()] && listing.front.iter().all(|&i| i < rows),
        "{}: {shape:?} scores for {rows} molecules on {} objectives",
        saved.scores_file,
        specs.len()
    );
    Ok(MoleculeSet {
        source: listing.source,
        smiles: listing.smiles,
        objectives: flat
            .chunks_exact(specs.len().max(1))
            .map(<[f64]>::to_vec)
            .collect(),
        specs: specs.to_vec(),
        front: listing.front,
        skipped: listing.skipped,
        fingerprint: saved.fingerprint.clone(),
    })
}
