//! Objectives of the multi-objective optimisation: each maps a molecule to [0, 1], higher is
//! better (maximised).
//!
//! MolStitch's MPO task optimises JNK3 and GSK3β activity together with QED and SA. The JNK3
//! and GSK3β oracles are trained models (random forests from the TDC oracle collection) that are
//! not available offline or in Rust, so this engine offers only objectives RDKit can compute:
//! QED, the normalised SA score SA' = (10 − SA)/9 (as MolStitch's `MultiOracle`), Tanimoto
//! similarity to a chosen reference molecule (Morgan radius 2, 2048 bits), and logP and TPSA
//! windows (1 inside [lo, hi], a Gaussian fall-off of the given width outside).

use serde::{Deserialize, Serialize};

use benchtop_chem::error::ChemError;
use benchtop_chem::mol::{Fingerprint, Molecule};
use benchtop_chem::{qed, sa};

/// Morgan radius of the similarity objective (and of diversity): ECFP4-like.
pub const MORGAN_RADIUS: u32 = 2;
/// Morgan fingerprint length of the similarity objective (and of diversity).
pub const MORGAN_BITS: u32 = 2048;

/// One objective, as written in a project file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ObjectiveSpec {
    /// RDKit's QED (`QED.qed`), already in (0, 1].
    Qed,
    /// Normalised synthetic accessibility SA' = (10 − SA)/9 (SA is Ertl's score in [1, 10]).
    Sa,
    /// Tanimoto similarity of Morgan (r = 2, 2048-bit) fingerprints to `reference` (SMILES).
    Similarity {
        /// The reference molecule, e.g. a known drug.
        reference: String,
    },
    /// Crippen logP window: 1 inside [`lo`, `hi`], exp(−½ (d / `width`)²) at distance d outside.
    LogpWindow {
        /// Lower edge.
        lo: f64,
        /// Upper edge.
        hi: f64,
        /// Gaussian width of the fall-off, logP units (> 0).
        width: f64,
    },
    /// TPSA window in Å²: 1 inside [`lo_a2`, `hi_a2`], Gaussian fall-off of `width_a2` outside.
    TpsaWindow {
        /// Lower edge, Å².
        lo_a2: f64,
        /// Upper edge, Å².
        hi_a2: f64,
        /// Gaussian width of the fall-off, Å² (> 0).
        width_a2: f64,
    },
}

impl ObjectiveSpec {
    /// A short label for plots and CSV headers (`qed`, `sa`, `sim`, `logp`, `tpsa`).
    pub fn label(&self) -> &'static str {
        match self {
            Self::Qed => "qed",
            Self::Sa => "sa",
            Self::Similarity { .. } => "sim",
            Self::LogpWindow { .. } => "logp",
            Self::TpsaWindow { .. } => "tpsa",
        }
    }

    /// Checks the parameters: windows need finite lo ≤ hi and width > 0; the reference must
    /// parse.
    pub fn validate(&self) -> Result<(), ChemError> {
        let window = |lo: f64, hi: f64, width: f64| {
            if lo.is_finite() && hi.is_finite() && lo <= hi && width.is_finite() && width > 0.0 {
                Ok(())
            } else {
                Err(ChemError::Data(format!(
                    "objective {}: need finite lo <= hi and width > 0, got lo {lo}, hi {hi}, width {width}",
                    self.label()
                )))
            }
        };
        match self {
            Self::Qed | Self::Sa => Ok(()),
            Self::Similarity { reference } => Molecule::from_smiles(reference).map(|_| ()),
            Self::LogpWindow { lo, hi, width } => window(*lo, *hi, *width),
            Self::TpsaWindow {
                lo_a2,
                hi_a2,
                width_a2,
            } => window(*lo_a2, *hi_a2, *width_a2),
        }
    }
}

/// A window score: 1 for `x` in [lo, hi], exp(−½ (d / width)²) where d is the distance to the
/// nearer edge.
pub fn window_score(x: f64, lo: f64, hi: f64, width: f64) -> f64 {
    let d = if x < lo {
        lo - x
    } else if x > hi {
        x - hi
    } else {
        0.0
    };
    (-0.5 * (d / width).powi(2)).exp()
}

/// A list of objectives ready to score: validated, with reference fingerprints computed once.
#[derive(Debug, Clone)]
pub struct Objectives {
    specs: Vec<ObjectiveSpec>,
    references: Vec<Option<Fingerprint>>,
}

impl Objectives {
    /// Validates `specs` and computes the reference fingerprints.
    pub fn new(specs: &[ObjectiveSpec]) -> Result<Self, ChemError> {
        let mut references = Vec::with_capacity(specs.len());
        for spec in specs {
            spec.validate()?;
            references.push(match spec {
                ObjectiveSpec::Similarity { reference } => Some(
                    Molecule::from_smiles(reference)?
                        .morgan_fingerprint(MORGAN_RADIUS, MORGAN_BITS)?,
                ),
                _ => None,
            });
        }
        Ok(Self {
            specs: specs.to_vec(),
            references,
        })
    }

    /// The specifications, in order.
    pub fn specs(&self) -> &[ObjectiveSpec] {
        &self.specs
    }

    /// Number of objectives.
    pub fn len(&self) -> usize {
        self.specs.len()
    }

    /// Whether there are no objectives.
    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// The objective values of `mol`, each in [0, 1], in the order of the specs.
    pub fn score(&self, mol: &Molecule) -> Result<Vec<f64>, ChemError> {
        let mut fp = None;
        self.specs
            .iter()
            .zip(&self.references)
            .map(|(spec, reference)| -> Result<f64, ChemError> {
                Ok(match spec {
                    ObjectiveSpec::Qed => qed::qed(mol)?,
                    ObjectiveSpec::Sa => sa::normalized_sa(sa::sa_score(mol)?),
                    ObjectiveSpec::Similarity { .. } => {
                        if fp.is_none() {
                            fp = Some(mol.morgan_fingerprint(MORGAN_RADIUS, MORGAN_BITS)?);
                        }
                        match (&fp, reference) {
                            (Some(a), Some(b)) => a.tanimoto(b),
                            _ => 0.0,
                        }
                    }
                    ObjectiveSpec::LogpWindow { lo, hi, width } => {
                        window_score(mol.crippen_logp()?, *lo, *hi, *width)
                    }
                    ObjectiveSpec::TpsaWindow {
                        lo_a2,
                        hi_a2,
                        width_a2,
                    } => window_score(mol.tpsa_a2()?, *lo_a2, *hi_a2, *width_a2),
                })
            })
            .collect()
    }

    /// Parses `smiles` and scores it; an invalid SMILES is [`ChemError::InvalidSmiles`].
    pub fn score_smiles(&self, smiles: &str) -> Result<Vec<f64>, ChemError> {
        self.score(&Molecule::from_smiles(smiles)?)
    }

    /// [`Self::score_smiles`] of every entry on up to `threads` OS threads (each parses its own
    /// molecules), in input order; invalid entries are errors in place. Identical to scoring
    /// serially.
    pub fn score_all_parallel<S: AsRef<str> + Sync>(
        &self,
        smiles: &[S],
        threads: usize,
    ) -> Vec<Result<Vec<f64>, ChemError>> {
        benchtop_chem::parallel::map_smiles(smiles, threads, "objective scoring", |s| {
            self.score_smiles(s)
        })
    }
}

/// The objective values of `mol` under `specs` (validates them and computes reference
/// fingerprints on every call; use [`Objectives`] to score many molecules).
pub fn score(mol: &Molecule, specs: &[ObjectiveSpec]) -> Result<Vec<f64>, ChemError> {
    Objectives::new(specs)?.score(mol)
}

/// The weighted sum Σ wᵢ fᵢ (MolStitch's scalar reward with weights `weights`).
pub fn weighted_sum(values: &[f64], weights: &[f64]) -> f64 {
    values.iter().zip(weights).map(|(v, w)| v * w).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ASPIRIN: &str = "CC(=O)Oc1ccccc1C(=O)O";

    #[test]
    fn qed_and_sa_equal_the_property_record() {
        let m = Molecule::from_smiles(ASPIRIN).unwrap();
        let p = benchtop_chem::props::Properties::of(&m).unwrap();
        let v = score(&m, &[ObjectiveSpec::Qed, ObjectiveSpec::Sa]).unwrap();
        assert_eq!(v[0], p.qed);
        assert_eq!(v[1], (10.0 - p.sa) / 9.0);
        // Python RDKit: QED.qed(aspirin) = 0.5501217966938848.
        assert!((v[0] - 0.550_121_796_693_884_8).abs() < 1e-9);
        assert!(v.iter().all(|x| (0.0..=1.0).contains(x)));
    }

    #[test]
    fn similarity_is_tanimoto_to_the_reference() {
        let spec = ObjectiveSpec::Similarity {
            reference: ASPIRIN.to_owned(),
        };
        let obj = Objectives::new(std::slice::from_ref(&spec)).unwrap();
        assert_eq!(obj.score_smiles("OC(=O)c1ccccc1OC(C)=O").unwrap(), [1.0]);
        // The value of mol::tests::tanimoto_identities (Python DataStructs.TanimotoSimilarity).
        let s = obj.score_smiles("OC(=O)c1ccccc1O").unwrap()[0];
        assert!((s - 0.448_275_862_068_965_5).abs() < 1e-15, "{s}");
        assert!(matches!(
            Objectives::new(&[ObjectiveSpec::Similarity {
                reference: "C1CC(".to_owned()
            }]),
            Err(ChemError::InvalidSmiles { .. })
        ));
    }

    #[test]
    fn windows_are_one_inside_and_gaussian_outside() {
        assert_eq!(window_score(2.0, 1.0, 3.0, 0.5), 1.0);
        assert_eq!(window_score(1.0, 1.0, 3.0, 0.5), 1.0);
        assert!((window_score(3.5, 1.0, 3.0, 0.5) - (-0.5_f64).exp()).abs() < 1e-15);
        assert!((window_score(0.0, 1.0, 3.0, 0.5) - (-2.0_f64).exp()).abs() < 1e-15);
        // Aspirin: logP 1.3101, TPSA 63.6 Å².
        let m = Molecule::from_smiles(ASPIRIN).unwrap();
        let v = score(
            &m,
            &[
                ObjectiveSpec::LogpWindow {
                    lo: 2.0,
                    hi: 3.0,
                    width: 1.0,
                },
                ObjectiveSpec::TpsaWindow {
                    lo_a2: 20.0,
                    hi_a2: 90.0,
                    width_a2: 10.0,
                },
            ],
        )
        .unwrap();
        let d = 2.0 - m.crippen_logp().unwrap();
        assert!((v[0] - (-0.5 * d * d).exp()).abs() < 1e-15);
        assert_eq!(v[1], 1.0);
        for bad in [
            ObjectiveSpec::LogpWindow {
                lo: 3.0,
                hi: 2.0,
                width: 1.0,
            },
            ObjectiveSpec::TpsaWindow {
                lo_a2: 0.0,
                hi_a2: 1.0,
                width_a2: 0.0,
            },
        ] {
            assert!(bad.validate().is_err());
        }
    }

    #[test]
    fn parallel_scoring_equals_serial_on_offline_molecules() {
        let mut smiles: Vec<String> = benchtop_chem::offline::offline_smiles()
            .unwrap()
            .into_iter()
            .take(30)
            .collect();
        smiles.insert(3, "C1CC(".to_owned());
        let obj = Objectives::new(&[
            ObjectiveSpec::Qed,
            ObjectiveSpec::Sa,
            ObjectiveSpec::Similarity {
                reference: ASPIRIN.to_owned(),
            },
        ])
        .unwrap();
        let serial: Vec<_> = smiles.iter().map(|s| obj.score_smiles(s)).collect();
        assert!(serial[3].is_err());
        assert_eq!(serial.iter().filter(|r| r.is_ok()).count(), 30);
        for threads in [1, 2, 5] {
            assert_eq!(obj.score_all_parallel(&smiles, threads), serial);
        }
        for v in serial.iter().flatten() {
            assert!(v.iter().all(|x| (0.0..=1.0).contains(x)), "{v:?}");
        }
    }

    #[test]
    fn specs_round_trip_through_json() {
        let specs = vec![
            ObjectiveSpec::Qed,
            ObjectiveSpec::Sa,
            ObjectiveSpec::Similarity {
                reference: ASPIRIN.to_owned(),
            },
            ObjectiveSpec::LogpWindow {
                lo: 1.0,
                hi: 3.0,
                width: 1.0,
            },
        ];
        let json = serde_json::to_string(&specs).unwrap();
        assert!(json.contains(r#"{"kind":"qed"}"#), "{json}");
        assert!(json.contains(r#""kind":"logp_window""#), "{json}");
        let back: Vec<ObjectiveSpec> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, specs);
        assert_eq!(weighted_sum(&[0.5, 0.25], &[1.0, 2.0]), 1.0);
    }
}
