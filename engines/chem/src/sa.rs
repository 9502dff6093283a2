//! Ertl & Schuffenhauer's synthetic-accessibility (SA) score, as RDKit's
//! `Contrib/SA_Score/sascorer.py` computes it (ported; BSD-3 original by Novartis).
//!
//! The score combines a fragment score (mean contribution of the molecule's Morgan radius-2
//! environments, looked up in a table derived from PubChem; unknown environments count −4)
//! with size, stereo, spiro, bridgehead and macrocycle penalties and a symmetry bonus, then
//! rescales to 1 (easy) … 10 (hard). The table ships gzipped in
//! `assets/molstitch/sa_fpscores.tsv.gz` (see `assets/SOURCES.md`).

use std::collections::HashMap;
use std::io::Read;
use std::sync::OnceLock;

use flate2::read::GzDecoder;

use crate::error::ChemError;
use crate::mol::Molecule;

/// The gzipped `id<TAB>score` table, converted from RDKit's `fpscores.pkl.gz`.
const FPSCORES_TSV_GZ: &[u8] = include_bytes!("../../../assets/molstitch/sa_fpscores.tsv.gz");

/// Score of a Morgan environment absent from the table.
const UNKNOWN_FRAGMENT_SCORE: f64 = -4.0;

/// The fragment-score table: Morgan (radius 2) environment id → score.
pub fn fragment_scores() -> Result<&'static HashMap<u32, f64>, ChemError> {
    static TABLE: OnceLock<Result<HashMap<u32, f64>, ChemError>> = OnceLock::new();
    TABLE
        .get_or_init(|| parse_table(FPSCORES_TSV_GZ))
        .as_ref()
        .map_err(Clone::clone)
}

fn parse_table(gz: &[u8]) -> Result<HashMap<u32, f64>, ChemError> {
    let mut text = String::new();
    GzDecoder::new(gz)
        .read_to_string(&mut text)
        .map_err(|e| ChemError::Data(format!("SA table is not valid gzip text: {e}")))?;
    let mut table = HashMap::with_capacity(710_000);
    for (n, line) in text.lines().enumerate() {
        let bad = || ChemError::Data(format!("SA table line {}: {line:?}", n + 1));
        let (id, score) = line.split_once('\t').ok_or_else(bad)?;
        let id: u32 = id.parse().map_err(|_| bad())?;
        let score: f64 = score.parse().map_err(|_| bad())?;
        table.insert(id, score);
    }
    if table.is_empty() {
        return Err(ChemError::Data("SA table is empty".to_owned()));
    }
    Ok(table)
}

/// The Ertl SA score of `mol`, in [1, 10] (1 = easy to make). Errors on a molecule without
/// atoms.
pub fn sa_score(mol: &Molecule) -> Result<f64, ChemError> {
    let n_atoms = mol.num_atoms();
    if n_atoms == 0 {
        return Err(ChemError::Rdkit {
            operation: "SA score",
            reason: "molecule has no atoms".to_owned(),
        });
    }
    let table = fragment_scores()?;
    let counts = mol.morgan_counts(2)?;
    let mut fragment_sum = 0.0;
    let mut n_fragments = 0_u32;
    for &(id, count) in &counts {
        n_fragments += count;
        fragment_sum +=
            table.get(&id).copied().unwrap_or(UNKNOWN_FRAGMENT_SCORE) * f64::from(count);
    }
    let score1 = fragment_sum / f64::from(n_fragments.max(1));

    let n_atoms_f = n_atoms as f64;
    let size_penalty = n_atoms_f.powf(1.005) - n_atoms_f;
    let stereo_penalty = f64::from(mol.num_chiral_centres()? + 1).log10();
    let spiro_penalty = f64::from(mol.num_spiro_atoms()? + 1).log10();
    let bridge_penalty = f64::from(mol.num_bridgehead_atoms()? + 1).log10();
    let macrocycle_penalty = if mol.num_macrocycles()? > 0 {
        2_f64.log10()
    } else {
        0.0
    };
    let score2 =
        0.0 - size_penalty - stereo_penalty - spiro_penalty - bridge_penalty - macrocycle_penalty;

    // Symmetry correction: fewer distinct environments than atoms makes a molecule easier.
    let n_bits = counts.len() as f64;
    let score3 = if n_atoms_f > n_bits {
        (n_atoms_f / n_bits).ln() * 0.5
    } else {
        0.0
    };

    let raw = score1 + score2 + score3;
    let (lo, hi) = (-4.0, 2.5);
    let mut sa = 11.0 - (raw - lo + 1.0) / (hi - lo) * 9.0;
    if sa > 8.0 {
        sa = 8.0 + (sa + 1.0 - 9.0).ln();
    }
    Ok(sa.clamp(1.0, 10.0))
}

/// The SA score normalised as in MolStitch's objectives: (10 − SA) / 9, in [0, 1], higher is
/// easier to make.
pub fn normalized_sa(sa: f64) -> f64 {
    (10.0 - sa) / 9.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_every_entry_of_the_rdkit_pickle() {
        let t = fragment_scores().unwrap();
        assert_eq!(t.len(), 705_292);
        assert_eq!(t.get(&1301), Some(&-2.1265));
    }

    #[test]
    fn known_sa_scores() {
        // Python RDKit 2026.09.1 sascorer values.
        for (smiles, want) in [
            ("CC(=O)Oc1ccccc1C(=O)O", 1.580_039_750_008_826),
            ("c1ccccc1", 1.0),
        ] {
            let m = Molecule::from_smiles(smiles).unwrap();
            let got = sa_score(&m).unwrap();
            assert!((got - want).abs() < 1e-9, "{smiles}: {got} vs {want}");
        }
    }

    #[test]
    fn normalised_sa_maps_1_to_1_and_10_to_0() {
        assert_eq!(normalized_sa(1.0), 1.0);
        assert_eq!(normalized_sa(10.0), 0.0);
    }
}
