//! Safe Rust wrapper over the RDKit bridge: [`Molecule`], [`Pattern`], [`Fingerprint`] and
//! [`Drawing`].

use std::fmt;
use std::sync::Once;

use cxx::UniquePtr;

use crate::error::ChemError;
use crate::rdkit_ffi::ffi;

/// Once per process, before any molecule exists: silences RDKit's own stderr logging (errors
/// come back as values) and makes CoordGen RDKit's 2D layout (the depictions chemists expect;
/// its ring templates are loaded here, under the `Once`, so threads never race to load them).
fn quiet() {
    static QUIET: Once = Once::new();
    QUIET.call_once(|| {
        ffi::silence_logs();
        ffi::prefer_coordgen();
    });
}

/// The longest SMILES Benchtop hands to RDKit, in characters.
///
/// RDKit's SMILES parsing takes time that grows about cubically with the length of a chain (a
/// 2,000-carbon chain takes seconds, 10,000 carbons do not finish in minutes), so one absurd
/// row could stall a whole file. Drug-like molecules are under 200 characters (the shipped
/// MOSES set under 100); a 1,000-character SMILES still scores in about a second.
pub const MAX_SMILES_CHARS: usize = 1_000;

/// The most atoms a mol block (one SDF record) may declare on its counts line; the same bound
/// as [`MAX_SMILES_CHARS`] in atoms.
pub const MAX_MOLBLOCK_ATOMS: usize = 1_000;

/// The first control character of `text` (1-based position) that is not in `allowed`.
fn first_control(text: &str, allowed: &[char]) -> Option<(usize, char)> {
    text.chars()
        .enumerate()
        .find(|(_, c)| c.is_control() && !allowed.contains(c))
        .map(|(i, c)| (i + 1, c))
}

/// Checks a SMILES string before RDKit sees it: at most [`MAX_SMILES_CHARS`] characters
/// ([`ChemError::SmilesTooLong`]) and no control character, NUL, tab and line breaks included
/// ([`ChemError::ControlCharacter`]; a NUL would cut the string short in C++, so `CC<NUL>O`
/// would be read as ethane). [`Molecule::from_smiles`] calls it, so every path that parses a
/// SMILES (the dataset loaders, `benchtop chem props`, scoring, stitching) is bounded by it.
pub fn check_smiles(smiles: &str) -> Result<(), ChemError> {
    // Count characters only up to the bound: the check itself stays cheap on huge input.
    let chars = smiles.chars().take(MAX_SMILES_CHARS + 1).count();
    if chars > MAX_SMILES_CHARS {
        return Err(ChemError::SmilesTooLong {
            chars: smiles.chars().count(),
        });
    }
    if let Some((position, character)) = first_control(smiles, &[]) {
        return Err(ChemError::ControlCharacter {
            what: "SMILES",
            character,
            place: format!("character {position}"),
        });
    }
    Ok(())
}

/// Checks a mol block before RDKit sees it: no control character other than tabs and line
/// breaks ([`ChemError::ControlCharacter`], naming the line), and at most
/// [`MAX_MOLBLOCK_ATOMS`] atoms on the counts line (V2000: line 4; V3000: `M  V30 COUNTS`)
/// ([`ChemError::TooManyAtoms`]). A block whose counts cannot be read is left to RDKit, which
/// rejects it. [`Molecule::from_molblock`] calls it.
pub fn check_molblock(block: &str) -> Result<(), ChemError> {
    for (index, line) in block.lines().enumerate() {
        if let Some((_, character)) = first_control(line, &['\t', '\r']) {
            return Err(ChemError::ControlCharacter {
                what: "mol block",
                character,
                place: format!("line {}", index + 1),
            });
        }
    }
    let v3000 = block
        .lines()
        .find_map(|l| l.strip_prefix("M  V30 COUNTS"))
        .and_then(|rest| rest.split_whitespace().next());
    let declared = match v3000 {
        Some(count) => count.parse::<usize>().ok(),
        None => block
            .lines()
            .nth(3)
            .and_then(|counts| counts.get(..3))
            .and_then(|field| field.trim().parse::<usize>().ok()),
    };
    match declared {
        Some(atoms) if atoms > MAX_MOLBLOCK_ATOMS => Err(ChemError::TooManyAtoms { atoms }),
        _ => Ok(()),
    }
}

/// A sanitised RDKit molecule.
pub struct Molecule {
    inner: UniquePtr<ffi::ROMol>,
}

impl fmt::Debug for Molecule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.canonical_smiles() {
            Ok(s) => write!(f, "Molecule({s})"),
            Err(_) => write!(f, "Molecule(?)"),
        }
    }
}

impl Molecule {
    /// Parses and sanitises a SMILES string. An invalid SMILES (for example `C1CC(`) is a
    /// [`ChemError::InvalidSmiles`] naming the input; one longer than [`MAX_SMILES_CHARS`] or
    /// with a control character is refused before parsing ([`check_smiles`]).
    pub fn from_smiles(smiles: &str) -> Result<Self, ChemError> {
        check_smiles(smiles)?;
        quiet();
        let invalid = |reason: String| ChemError::InvalidSmiles {
            smiles: smiles.to_owned(),
            reason,
        };
        if smiles.trim().is_empty() {
            return Err(invalid("empty input".to_owned()));
        }
        let inner = ffi::parse_smiles(smiles).map_err(|e| invalid(e.what().to_owned()))?;
        if inner.is_null() {
            return Err(invalid("RDKit returned no molecule".to_owned()));
        }
        Ok(Self { inner })
    }

    /// Parses and sanitises one MDL mol block (V2000 or V3000, the part of an SDF record before
    /// its `M  END`), with RDKit's `MolBlockToMol`. A block RDKit rejects is
    /// [`ChemError::Rdkit`] with operation `"mol block"`; one with more than
    /// [`MAX_MOLBLOCK_ATOMS`] atoms or a control character is refused before parsing
    /// ([`check_molblock`]).
    pub fn from_molblock(block: &str) -> Result<Self, ChemError> {
        check_molblock(block)?;
        quiet();
        let inner =
            ffi::parse_molblock(block, true).map_err(|e| ChemError::rdkit("mol block", &e))?;
        Self::from_raw(inner, "mol block")
    }

    /// Wraps a pointer returned by the bridge.
    pub(crate) fn from_raw(
        inner: UniquePtr<ffi::ROMol>,
        operation: &'static str,
    ) -> Result<Self, ChemError> {
        if inner.is_null() {
            return Err(ChemError::Rdkit {
                operation,
                reason: "null molecule".to_owned(),
            });
        }
        Ok(Self { inner })
    }

    /// The underlying RDKit molecule.
    pub(crate) fn raw(&self) -> &ffi::ROMol {
        // `inner` is never null: every constructor checks.
        &self.inner
    }

    /// RDKit's canonical SMILES (isomeric).
    pub fn canonical_smiles(&self) -> Result<String, ChemError> {
        ffi::to_smiles(self.raw()).map_err(|e| ChemError::rdkit("canonical SMILES", &e))
    }

    /// An MDL V2000 mol block with fresh 2D coordinates (one SDF record without its `$$$$`).
    pub fn molblock(&self) -> Result<String, ChemError> {
        ffi::to_molblock(self.raw()).map_err(|e| ChemError::rdkit("MolToMolBlock", &e))
    }

    /// Number of atoms in the graph (heavy atoms and dummies; implicit hydrogens excluded).
    pub fn num_atoms(&self) -> usize {
        ffi::num_atoms(self.raw()) as usize
    }

    /// Average molecular weight in g/mol (RDKit `calcAMW`, Python `Descriptors.MolWt`).
    pub fn mol_weight_g_per_mol(&self) -> Result<f64, ChemError> {
        ffi::amw(self.raw()).map_err(|e| ChemError::rdkit("MW", &e))
    }

    /// Wildman–Crippen logP (RDKit `calcClogP`, Python `Crippen.MolLogP`).
    pub fn crippen_logp(&self) -> Result<f64, ChemError> {
        ffi::clogp(self.raw()).map_err(|e| ChemError::rdkit("Crippen logP", &e))
    }

    /// Topological polar surface area in Å² (N and O only, as RDKit's default `calcTPSA`).
    pub fn tpsa_a2(&self) -> Result<f64, ChemError> {
        ffi::tpsa(self.raw()).map_err(|e| ChemError::rdkit("TPSA", &e))
    }

    /// Number of hydrogen-bond donors (RDKit `calcNumHBD`).
    pub fn num_hbd(&self) -> Result<u32, ChemError> {
        ffi::num_hbd(self.raw()).map_err(|e| ChemError::rdkit("HBD", &e))
    }

    /// Number of rotatable bonds, RDKit's strict definition.
    pub fn num_rotatable_bonds(&self) -> Result<u32, ChemError> {
        ffi::num_rotatable_strict(self.raw()).map_err(|e| ChemError::rdkit("rotatable bonds", &e))
    }

    /// Number of spiro atoms.
    pub fn num_spiro_atoms(&self) -> Result<u32, ChemError> {
        ffi::num_spiro(self.raw()).map_err(|e| ChemError::rdkit("spiro atoms", &e))
    }

    /// Number of bridgehead atoms.
    pub fn num_bridgehead_atoms(&self) -> Result<u32, ChemError> {
        ffi::num_bridgehead(self.raw()).map_err(|e| ChemError::rdkit("bridgehead atoms", &e))
    }

    /// Number of rings (RDKit's ring perception) with more than 8 atoms.
    pub fn num_macrocycles(&self) -> Result<u32, ChemError> {
        ffi::num_macrocycles(self.raw()).map_err(|e| ChemError::rdkit("macrocycles", &e))
    }

    /// Number of stereocentres, assigned or possible (as `FindMolChiralCenters(m,
    /// includeUnassigned=True)` with the legacy perception).
    pub fn num_chiral_centres(&self) -> Result<u32, ChemError> {
        ffi::num_chiral_centres(self.raw()).map_err(|e| ChemError::rdkit("chiral centres", &e))
    }

    /// A copy without explicit hydrogens (`MolOps::removeHs`).
    pub fn without_hs(&self) -> Result<Self, ChemError> {
        let m = ffi::remove_hs(self.raw()).map_err(|e| ChemError::rdkit("removeHs", &e))?;
        Self::from_raw(m, "removeHs")
    }

    /// Number of unique substructure matches of `pattern`, at most `max_matches`.
    pub fn count_matches(&self, pattern: &Pattern, max_matches: u32) -> Result<u32, ChemError> {
        ffi::match_count(self.raw(), pattern.raw(), max_matches)
            .map_err(|e| ChemError::rdkit("substructure match", &e))
    }

    /// The unique substructure matches of `pattern` (at most `max_matches`): each match lists,
    /// for every pattern atom in order, the index of the matched atom of this molecule.
    pub fn matches(
        &self,
        pattern: &Pattern,
        max_matches: u32,
    ) -> Result<Vec<Vec<usize>>, ChemError> {
        let mut flat = Vec::new();
        ffi::match_atoms(self.raw(), pattern.raw(), max_matches, &mut flat)
            .map_err(|e| ChemError::rdkit("substructure match", &e))?;
        let width = pattern.num_atoms().max(1);
        Ok(flat
            .chunks(width)
            .map(|m| m.iter().map(|&i| i as usize).collect())
            .collect())
    }

    /// Whether `pattern` matches at least once.
    pub fn has_match(&self, pattern: &Pattern) -> Result<bool, ChemError> {
        Ok(self.count_matches(pattern, 1)? > 0)
    }

    /// Size of the SSSR after deleting every match of `pattern` (QED's aromatic-ring count).
    pub fn sssr_after_deleting(&self, pattern: &Pattern) -> Result<u32, ChemError> {
        ffi::sssr_after_delete(self.raw(), pattern.raw())
            .map_err(|e| ChemError::rdkit("deleteSubstructs + SSSR", &e))
    }

    /// Morgan (ECFP-like) count fingerprint of the given radius: `(id, count)` pairs sorted by
    /// id. The ids are RDKit's unfolded 32-bit invariants.
    pub fn morgan_counts(&self, radius: u32) -> Result<Vec<(u32, u32)>, ChemError> {
        let mut ids = Vec::new();
        let mut counts = Vec::new();
        ffi::morgan_counts(self.raw(), radius, &mut ids, &mut counts)
            .map_err(|e| ChemError::rdkit("Morgan counts", &e))?;
        let mut pairs: Vec<(u32, u32)> = ids.into_iter().zip(counts).collect();
        pairs.sort_unstable();
        Ok(pairs)
    }

    /// Morgan bit fingerprint of the given radius folded to `n_bits` bits.
    pub fn morgan_fingerprint(&self, radius: u32, n_bits: u32) -> Result<Fingerprint, ChemError> {
        if n_bits == 0 {
            return Err(ChemError::Rdkit {
                operation: "Morgan bits",
                reason: "n_bits must be > 0".to_owned(),
            });
        }
        let mut on = Vec::new();
        ffi::morgan_bits(self.raw(), radius, n_bits, &mut on)
            .map_err(|e| ChemError::rdkit("Morgan bits", &e))?;
        let mut words = vec![0_u64; (n_bits as usize).div_ceil(64)];
        for bit in on {
            let bit = bit as usize;
            if let Some(w) = words.get_mut(bit / 64) {
                *w |= 1 << (bit % 64);
            }
        }
        Ok(Fingerprint { n_bits, words })
    }

    /// Atoms and bonds with freshly computed 2D coordinates (RDKit's depictor, CoordGen), for
    /// drawing; [`Drawing::depict_svg`] has RDKit draw it in this layout.
    pub fn drawing(&self) -> Result<Drawing, ChemError> {
        self.atoms_and_bonds(true)
    }

    /// Atoms and bonds without coordinates (all x and y are zero; it cannot be depicted).
    pub fn graph(&self) -> Result<Drawing, ChemError> {
        self.atoms_and_bonds(false)
    }

    fn atoms_and_bonds(&self, compute_2d: bool) -> Result<Drawing, ChemError> {
        let mut atoms = Vec::new();
        let mut bonds = Vec::new();
        let molblock = ffi::atoms_and_bonds(self.raw(), compute_2d, &mut atoms, &mut bonds)
            .map_err(|e| ChemError::rdkit("2D coordinates", &e))?;
        Ok(Drawing {
            molblock,
            atoms: atoms
                .into_iter()
                .map(|a| DrawAtom {
                    x: a.x,
                    y: a.y,
                    atomic_num: a.atomic_num,
                    isotope: a.isotope,
                    formal_charge: a.formal_charge,
                    map_num: a.map_num,
                    aromatic: a.aromatic,
                    total_hs: a.total_hs,
                })
                .collect(),
            bonds: bonds
                .into_iter()
                .map(|b| DrawBond {
                    begin: b.begin as usize,
                    end: b.end as usize,
                    kind: match b.kind {
                        1 => BondKind::Single,
                        2 => BondKind::Double,
                        3 => BondKind::Triple,
                        4 => BondKind::Aromatic,
                        _ => BondKind::Other,
                    },
                })
                .collect(),
        })
    }

    /// A copy with the atom-map numbers of the given atoms set (`indices[i]` gets `maps[i]`).
    pub(crate) fn with_atom_maps(&self, indices: &[u32], maps: &[u32]) -> Result<Self, ChemError> {
        let m = ffi::with_atom_maps(self.raw(), indices, maps)
            .map_err(|e| ChemError::rdkit("set atom maps", &e))?;
        Self::from_raw(m, "set atom maps")
    }
}

/// A compiled SMARTS query.
pub struct Pattern {
    inner: UniquePtr<ffi::ROMol>,
    smarts: String,
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Pattern({})", self.smarts)
    }
}

impl Pattern {
    /// Compiles a SMARTS pattern; an invalid one is [`ChemError::InvalidSmarts`], one with a
    /// control character [`ChemError::ControlCharacter`] (a NUL would cut it short in C++).
    pub fn from_smarts(smarts: &str) -> Result<Self, ChemError> {
        if let Some((position, character)) = first_control(smarts, &[]) {
            return Err(ChemError::ControlCharacter {
                what: "SMARTS",
                character,
                place: format!("character {position}"),
            });
        }
        quiet();
        let invalid = |reason: String| ChemError::InvalidSmarts {
            smarts: smarts.to_owned(),
            reason,
        };
        let inner = ffi::parse_smarts(smarts).map_err(|e| invalid(e.what().to_owned()))?;
        if inner.is_null() {
            return Err(invalid("RDKit returned no query".to_owned()));
        }
        Ok(Self {
            inner,
            smarts: smarts.to_owned(),
        })
    }

    /// The SMARTS text.
    pub fn smarts(&self) -> &str {
        &self.smarts
    }

    /// Number of query atoms.
    pub fn num_atoms(&self) -> usize {
        ffi::num_atoms(self.raw()) as usize
    }

    fn raw(&self) -> &ffi::ROMol {
        &self.inner
    }
}

/// A folded bit fingerprint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    n_bits: u32,
    words: Vec<u64>,
}

impl Fingerprint {
    /// Length in bits.
    pub fn n_bits(&self) -> u32 {
        self.n_bits
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    /// Whether bit `i` is set.
    pub fn get(&self, i: u32) -> bool {
        self.words
            .get(i as usize / 64)
            .is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// Tanimoto similarity |A∩B| / |A∪B| (1 for two empty fingerprints, as RDKit). Fingerprints
    /// of different lengths are compared over the common words.
    pub fn tanimoto(&self, other: &Self) -> f64 {
        let (mut both, mut either) = (0_u32, 0_u32);
        for (a, b) in self.words.iter().zip(&other.words) {
            both += (a & b).count_ones();
            either += (a | b).count_ones();
        }
        if either == 0 {
            1.0
        } else {
            f64::from(both) / f64::from(either)
        }
    }
}

/// Bond order as drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BondKind {
    /// Single bond.
    Single,
    /// Double bond.
    Double,
    /// Triple bond.
    Triple,
    /// Aromatic bond.
    Aromatic,
    /// Anything else (dative, zero-order, ...).
    Other,
}

/// One atom for drawing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DrawAtom {
    /// x in RDKit depiction units (a bond is 1.5 long on average).
    pub x: f64,
    /// y in RDKit depiction units (y up).
    pub y: f64,
    /// Atomic number; 0 for a dummy (attachment point).
    pub atomic_num: u32,
    /// Isotope; on BRICS dummies it is the environment label.
    pub isotope: u32,
    /// Formal charge.
    pub formal_charge: i32,
    /// Atom-map number (0 when unset).
    pub map_num: u32,
    /// Aromatic flag.
    pub aromatic: bool,
    /// Total hydrogens (implicit and explicit).
    pub total_hs: u32,
}

/// One bond for drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawBond {
    /// Index of the first atom in [`Drawing::atoms`].
    pub begin: usize,
    /// Index of the second atom.
    pub end: usize,
    /// Bond order.
    pub kind: BondKind,
}

/// A molecule's atoms and bonds with 2D coordinates: what atom indices (e.g. of a fragment)
/// refer to, and a layout that [`Drawing::depict_svg`] has RDKit draw.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Drawing {
    /// Atoms in RDKit's atom order.
    pub atoms: Vec<DrawAtom>,
    /// Bonds.
    pub bonds: Vec<DrawBond>,
    /// The molecule in this layout as an MDL mol block (atoms in the order of `atoms`); empty
    /// for a [`Molecule::graph`], which has no layout.
    pub(crate) molblock: String,
}

impl Drawing {
    /// The molecule in this layout as an MDL mol block, atoms in the order of
    /// [`Drawing::atoms`] (empty for a [`Molecule::graph`]): what the depiction is drawn from,
    /// and a key for caching depictions.
    pub fn molblock(&self) -> &str {
        &self.molblock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_smiles_is_an_error_naming_the_input() {
        for bad in ["C1CC(", "", "c1cccc1", "C(C)(C)(C)(C)C", "not a smiles"] {
            match Molecule::from_smiles(bad) {
                Err(ChemError::InvalidSmiles { smiles, .. }) => assert_eq!(smiles, bad),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
        let err = Molecule::from_smiles("C1CC(").unwrap_err();
        assert!(err.to_string().contains("C1CC("));
    }

    #[test]
    fn aspirin_descriptors_match_rdkit() {
        let m = Molecule::from_smiles("CC(=O)Oc1ccccc1C(=O)O").unwrap();
        assert_eq!(m.canonical_smiles().unwrap(), "CC(=O)Oc1ccccc1C(=O)O");
        assert_eq!(m.num_atoms(), 13);
        assert!((m.mol_weight_g_per_mol().unwrap() - 180.159).abs() < 1e-3);
        assert!((m.crippen_logp().unwrap() - 1.3101).abs() < 1e-4);
        assert!((m.tpsa_a2().unwrap() - 63.6).abs() < 1e-9);
        assert_eq!(m.num_hbd().unwrap(), 1);
        assert_eq!(m.num_rotatable_bonds().unwrap(), 2);
    }

    #[test]
    fn molblock_round_trips_through_the_sdf_reader() {
        let m = Molecule::from_smiles("CC(=O)Oc1ccccc1C(=O)O").unwrap();
        let block = m.molblock().unwrap();
        assert!(
            block.contains("V2000") && block.trim_end().ends_with("M  END"),
            "{block}"
        );
        let back = Molecule::from_molblock(&block).unwrap();
        assert_eq!(
            back.canonical_smiles().unwrap(),
            m.canonical_smiles().unwrap()
        );
    }

    #[test]
    fn canonical_smiles_is_independent_of_input_order() {
        let a = Molecule::from_smiles("OC(=O)c1ccccc1OC(C)=O").unwrap();
        let b = Molecule::from_smiles("CC(=O)Oc1ccccc1C(O)=O").unwrap();
        assert_eq!(a.canonical_smiles().unwrap(), b.canonical_smiles().unwrap());
    }

    #[test]
    fn smarts_counts_unique_matches() {
        let m = Molecule::from_smiles("CC(=O)Oc1ccccc1C(=O)O").unwrap();
        let carbonyl = Pattern::from_smarts("C=O").unwrap();
        assert_eq!(m.count_matches(&carbonyl, 1000).unwrap(), 2);
        let arom_c = Pattern::from_smarts("c").unwrap();
        assert_eq!(m.count_matches(&arom_c, 1000).unwrap(), 6);
        assert_eq!(m.count_matches(&arom_c, 3).unwrap(), 3);
        assert!(!m.has_match(&Pattern::from_smarts("[#7]").unwrap()).unwrap());
        assert!(matches!(
            Pattern::from_smarts("[C"),
            Err(ChemError::InvalidSmarts { .. })
        ));
    }

    #[test]
    fn tanimoto_identities() {
        let a = Molecule::from_smiles("CC(=O)Oc1ccccc1C(=O)O").unwrap();
        let b = Molecule::from_smiles("OC(=O)c1ccccc1O").unwrap();
        let fa = a.morgan_fingerprint(2, 2048).unwrap();
        let fb = b.morgan_fingerprint(2, 2048).unwrap();
        assert_eq!(fa.n_bits(), 2048);
        assert!(fa.count_ones() > 10);
        assert_eq!(fa.tanimoto(&fa), 1.0);
        let s = fa.tanimoto(&fb);
        assert_eq!(s, fb.tanimoto(&fa));
        // Python: DataStructs.TanimotoSimilarity of GetMorganFingerprintAsBitVect(m, 2, 2048).
        assert_eq!(fa.count_ones(), 24);
        assert!((s - 0.448_275_862_068_965_5).abs() < 1e-15, "{s}");
        // Same molecule written differently gives the same fingerprint.
        let a2 = Molecule::from_smiles("OC(=O)c1ccccc1OC(C)=O").unwrap();
        assert_eq!(a2.morgan_fingerprint(2, 2048).unwrap(), fa);
    }

    #[test]
    fn morgan_counts_equal_rdkit_python() {
        // Python: rdFingerprintGenerator.GetMorganGenerator(radius=2)
        //     .GetSparseCountFingerprint(MolFromSmiles("CCO")).GetNonzeroElements()
        let counts = Molecule::from_smiles("CCO")
            .unwrap()
            .morgan_counts(2)
            .unwrap();
        assert_eq!(
            counts,
            [
                (864_662_311, 1),
                (1_535_166_686, 1),
                (2_245_384_272, 1),
                (2_246_728_737, 1),
                (3_542_456_614, 1),
                (4_018_048_386, 1)
            ]
        );
    }

    #[test]
    fn drawing_has_bond_lengths_near_1_5() {
        let m = Molecule::from_smiles("c1ccccc1O").unwrap();
        let d = m.drawing().unwrap();
        assert_eq!(d.atoms.len(), 7);
        assert_eq!(d.bonds.len(), 7);
        assert_eq!(
            d.bonds
                .iter()
                .filter(|b| b.kind == BondKind::Aromatic)
                .count(),
            6
        );
        for b in &d.bonds {
            let (p, q) = (d.atoms[b.begin], d.atoms[b.end]);
            let len = ((p.x - q.x).powi(2) + (p.y - q.y).powi(2)).sqrt();
            assert!((len - 1.5).abs() < 0.05, "bond length {len}");
        }
        assert_eq!(d.atoms[6].atomic_num, 8);
        assert_eq!(d.atoms[6].total_hs, 1);
    }

    #[test]
    fn robust_overlong_smiles_is_refused_before_rdkit_with_its_length() {
        // A 10,002-carbon chain took minutes in RDKit's parser; the check answers at once.
        let long = "C".repeat(10_002);
        let start = std::time::Instant::now();
        let err = Molecule::from_smiles(&long).unwrap_err();
        assert!(start.elapsed().as_secs_f64() < 1.0);
        assert_eq!(err, ChemError::SmilesTooLong { chars: 10_002 });
        assert_eq!(
            err.to_string(),
            "the SMILES is 10,002 characters long; Benchtop reads SMILES up to 1,000 characters"
        );
        // The bound itself is accepted by the check (parsing it is RDKit's business).
        assert!(check_smiles(&"C".repeat(MAX_SMILES_CHARS)).is_ok());
        assert!(check_smiles(&"C".repeat(MAX_SMILES_CHARS + 1)).is_err());
        // Characters, not bytes.
        assert!(check_smiles(&"é".repeat(MAX_SMILES_CHARS)).is_ok());
    }

    #[test]
    fn robust_control_characters_are_refused_by_name_and_position() {
        // The NUL used to cut the C++ string short: `CC<NUL>O` was scored as ethane.
        let err = Molecule::from_smiles("CC\0O").unwrap_err();
        assert_eq!(
            err,
            ChemError::ControlCharacter {
                what: "SMILES",
                character: '\0',
                place: "character 3".to_owned(),
            }
        );
        assert_eq!(
            err.to_string(),
            "the SMILES has a control character (NUL, U+0000) at character 3; Benchtop reads \
             SMILES as printable text"
        );
        for (bad, name) in [
            ("CC\tO", "TAB, U+0009"),
            ("CCO\n", "LF, U+000A"),
            ("C\u{1f}C", "U+001F"),
        ] {
            let message = Molecule::from_smiles(bad).unwrap_err().to_string();
            assert!(message.contains(&format!("({name})")), "{message}");
        }
        let err = Pattern::from_smarts("C\0=O").unwrap_err();
        assert!(
            matches!(&err, ChemError::ControlCharacter { what: "SMARTS", .. }),
            "{err:?}"
        );
    }

    #[test]
    fn robust_mol_blocks_are_bounded_in_atoms_and_printable() {
        let block = Molecule::from_smiles("CCO").unwrap().molblock().unwrap();
        assert!(check_molblock(&block).is_ok());
        // A NUL in the atom lines is named by line.
        let mut lines: Vec<&str> = block.lines().collect();
        let broken = format!("{}\0", lines[4]);
        lines[4] = &broken;
        let err = Molecule::from_molblock(&lines.join("\n")).unwrap_err();
        assert_eq!(
            err,
            ChemError::ControlCharacter {
                what: "mol block",
                character: '\0',
                place: "line 5".to_owned(),
            }
        );
        // A V3000 block declaring 5,000 atoms is refused before RDKit reads it.
        let v3000 = "big\n  handmade\n\n  0  0  0     0  0            999 V3000\n\
                     M  V30 BEGIN CTAB\nM  V30 COUNTS 5000 4999 0 0 0\nM  V30 END CTAB\nM  END\n";
        let err = Molecule::from_molblock(v3000).unwrap_err();
        assert_eq!(err, ChemError::TooManyAtoms { atoms: 5000 });
        assert_eq!(
            err.to_string(),
            "the mol block declares 5,000 atoms; Benchtop reads molecules of up to 1,000 atoms"
        );
    }
}
