//! The per-molecule property record used by MolStitch's objectives and the `chem props` CLI:
//! canonical SMILES, MW, Crippen logP, TPSA, QED and SA, all equal to RDKit's Python values.

use crate::error::ChemError;
use crate::mol::Molecule;
use crate::{qed, sa};

/// Properties of one molecule.
#[derive(Debug, Clone, PartialEq)]
pub struct Properties {
    /// RDKit canonical SMILES.
    pub smiles: String,
    /// Average molecular weight, g/mol (`Descriptors.MolWt`).
    pub mw: f64,
    /// Wildman–Crippen logP (`Crippen.MolLogP`).
    pub logp: f64,
    /// Topological polar surface area, Å² (`rdMolDescriptors.CalcTPSA`).
    pub tpsa: f64,
    /// Quantitative estimate of drug-likeness in (0, 1] (`QED.qed`).
    pub qed: f64,
    /// Ertl synthetic-accessibility score in [1, 10] (`sascorer.calculateScore`).
    pub sa: f64,
}

impl Properties {
    /// Parses `smiles` and computes its properties. An invalid SMILES is
    /// [`ChemError::InvalidSmiles`] naming the input.
    pub fn from_smiles(smiles: &str) -> Result<Self, ChemError> {
        Self::of(&Molecule::from_smiles(smiles)?)
    }

    /// Properties of a parsed molecule.
    pub fn of(mol: &Molecule) -> Result<Self, ChemError> {
        Ok(Self {
            smiles: mol.canonical_smiles()?,
            mw: mol.mol_weight_g_per_mol()?,
            logp: mol.crippen_logp()?,
            tpsa: mol.tpsa_a2()?,
            qed: qed::qed(mol)?,
            sa: sa::sa_score(mol)?,
        })
    }
}

/// Properties of each SMILES in order; invalid entries are errors in place.
pub fn score_all<S: AsRef<str>>(smiles: &[S]) -> Vec<Result<Properties, ChemError>> {
    smiles
        .iter()
        .map(|s| Properties::from_smiles(s.as_ref()))
        .collect()
}

/// [`score_all`] on up to `threads` OS threads (each parses its own molecules: RDKit
/// molecules never cross threads). The result is in input order and identical to
/// [`score_all`]'s.
pub fn score_all_parallel<S: AsRef<str> + Sync>(
    smiles: &[S],
    threads: usize,
) -> Vec<Result<Properties, ChemError>> {
    crate::parallel::map_smiles(smiles, threads, "property scoring", Properties::from_smiles)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One row of `tests/data/reference.csv` (written by `scripts/make_molstitch_reference.py`).
    struct Row {
        smiles: String,
        canonical: String,
        values: Option<[f64; 5]>,
    }

    fn reference() -> Vec<Row> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/reference.csv");
        let mut reader = csv::Reader::from_path(path).unwrap();
        let headers = reader.headers().unwrap().clone();
        assert_eq!(
            &headers,
            vec![
                "smiles",
                "canonical",
                "mw",
                "logp",
                "tpsa",
                "qed",
                "sa",
                "error"
            ]
        );
        reader
            .records()
            .map(|r| {
                let r = r.unwrap();
                let values = if r[7].is_empty() {
                    let v: Vec<f64> = (2..7).map(|i| r[i].parse().unwrap()).collect();
                    Some([v[0], v[1], v[2], v[3], v[4]])
                } else {
                    None
                };
                Row {
                    smiles: r[0].to_owned(),
                    canonical: r[1].to_owned(),
                    values,
                }
            })
            .collect()
    }

    #[test]
    fn reference_values_match_python_rdkit() {
        let rows = reference();
        assert!(rows.len() >= 100, "{} rows", rows.len());
        let n_invalid = rows.iter().filter(|r| r.values.is_none()).count();
        assert!(n_invalid >= 5);
        let names = ["mw", "logp", "tpsa", "qed", "sa"];
        for row in &rows {
            let got = Properties::from_smiles(&row.smiles);
            match (&row.values, got) {
                (None, Err(ChemError::InvalidSmiles { smiles, .. })) => {
                    assert_eq!(smiles, row.smiles);
                }
                (None, other) => panic!("{:?} should be invalid, got {other:?}", row.smiles),
                (Some(want), Ok(p)) => {
                    let got = [p.mw, p.logp, p.tpsa, p.qed, p.sa];
                    for i in 0..5 {
                        assert!(
                            (got[i] - want[i]).abs() < 5e-5,
                            "{} {}: Rust {} vs Python {}",
                            row.smiles,
                            names[i],
                            got[i],
                            want[i]
                        );
                    }
                    // Python's canonical SMILES parses to the same molecule.
                    let back = Molecule::from_smiles(&row.canonical)
                        .unwrap()
                        .canonical_smiles()
                        .unwrap();
                    assert_eq!(back, p.smiles, "{}", row.smiles);
                    assert_eq!(
                        p.smiles, row.canonical,
                        "canonical SMILES of {}",
                        row.smiles
                    );
                }
                (Some(_), Err(e)) => panic!("{:?} failed: {e}", row.smiles),
            }
        }
    }

    #[test]
    fn parallel_scoring_equals_serial() {
        let smiles = [
            "CCO",
            "C1CC(",
            "c1ccccc1",
            "CC(=O)Oc1ccccc1C(=O)O",
            "N[C@@H](C)C(=O)O",
        ];
        let serial = score_all(&smiles);
        for threads in [1, 2, 3, 8] {
            assert_eq!(score_all_parallel(&smiles, threads), serial);
        }
    }

    #[test]
    fn score_all_keeps_order_and_errors_in_place() {
        let out = score_all(&["CCO", "C1CC(", "c1ccccc1"]);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0].as_ref().unwrap().smiles, "CCO");
        assert!(
            matches!(&out[1], Err(ChemError::InvalidSmiles { smiles, .. }) if smiles == "C1CC(")
        );
        assert_eq!(out[2].as_ref().unwrap().smiles, "c1ccccc1");
    }
}
