//! BRICS fragmentation with labelled attachment points and fragment stitching.
//!
//! Fragmentation is RDKit's `fragmentOnBRICSBonds`: each broken bond leaves a dummy atom on
//! both sides whose isotope is the BRICS environment type of the atom it replaced (1–16;
//! types 7a and 7b are both labelled 7). Stitching joins two fragments at one pair of dummies
//! whose labels may be bonded under the BRICS rules (Degen et al., ChemMedChem 2008, with
//! RDKit's extensions in `rdkit/Chem/BRICS.py`), through RDKit's `molzip`, and caps every
//! remaining dummy with hydrogen so the result is an ordinary molecule.

use crate::error::ChemError;
use crate::mol::{Molecule, Pattern};
use crate::rdkit_ffi::ffi;

/// Pairs of BRICS environment types that may be bonded (unordered). From the rule table of
/// RDKit's `BRICS.py` (`reactionDefs`); types 7a/7b (joined by a double bond) are both 7.
const COMPATIBLE_PAIRS: [(u32, u32); 46] = [
    (1, 3),
    (1, 5),
    (1, 10),
    (3, 4),
    (3, 13),
    (3, 14),
    (3, 15),
    (3, 16),
    (4, 5),
    (4, 11),
    (5, 12),
    (5, 13),
    (5, 14),
    (5, 15),
    (5, 16),
    (6, 13),
    (6, 14),
    (6, 15),
    (6, 16),
    (7, 7),
    (8, 9),
    (8, 10),
    (8, 13),
    (8, 14),
    (8, 15),
    (8, 16),
    (9, 13),
    (9, 14),
    (9, 15),
    (9, 16),
    (10, 13),
    (10, 14),
    (10, 15),
    (10, 16),
    (11, 13),
    (11, 14),
    (11, 15),
    (11, 16),
    (13, 14),
    (13, 15),
    (13, 16),
    (14, 14),
    (14, 15),
    (14, 16),
    (15, 16),
    (16, 16),
];

/// Whether attachment points labelled `a` and `b` (BRICS environment types) may be joined.
pub fn compatible(a: u32, b: u32) -> bool {
    COMPATIBLE_PAIRS
        .iter()
        .any(|&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))
}

/// One attachment point (dummy atom) of a fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attachment {
    /// Index of the dummy atom in the fragment.
    pub atom_index: usize,
    /// Its BRICS environment label (the dummy's isotope; 0 when unlabelled).
    pub label: u32,
}

/// A BRICS fragment: canonical SMILES with labelled dummies, e.g. `[16*]c1ccccc1[16*]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fragment {
    /// Canonical SMILES of the fragment, dummies written `[label*]`.
    pub smiles: String,
    /// Labels of its attachment points, ascending.
    pub labels: Vec<u32>,
}

/// Breaks every BRICS bond of `mol`; fragments in RDKit's fragment order (a molecule without
/// BRICS bonds gives itself, without attachment points).
pub fn brics_fragments(mol: &Molecule) -> Result<Vec<Fragment>, ChemError> {
    let smiles =
        ffi::brics_fragments(mol.raw()).map_err(|e| ChemError::rdkit("BRICS fragmentation", &e))?;
    smiles
        .into_iter()
        .map(|s| {
            let frag = Molecule::from_smiles(&s)?;
            let mut labels: Vec<u32> = attachment_points(&frag)?.iter().map(|a| a.label).collect();
            labels.sort_unstable();
            Ok(Fragment { smiles: s, labels })
        })
        .collect()
}

/// A fragment's SMILES as a SMARTS query whose attachment points (`[16*]`) match any atom.
fn fragment_query(smiles: &str) -> String {
    let mut out = String::with_capacity(smiles.len());
    let mut rest = smiles;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find(']').map_or(rest.len(), |c| open + c + 1);
        let atom = &rest[open..close];
        let inner = atom.trim_start_matches('[').trim_end_matches(']');
        if inner.trim_start_matches(|c: char| c.is_ascii_digit()) == "*" {
            out.push('*');
        } else {
            out.push_str(atom);
        }
        rest = &rest[close..];
    }
    out.push_str(rest);
    out
}

/// Where each of `fragments` (from [`brics_fragments`] of `parent`) lies in `parent`: the
/// parent's atom indices of each fragment's real atoms (attachment points excluded), the
/// fragments placed on disjoint atoms in order (a repeated fragment takes the next free copy).
/// Also places the fragments of a stitched child (whose unused attachment points were capped).
/// A fragment that cannot be placed gets an empty list.
pub fn fragment_atoms(
    parent: &Molecule,
    fragments: &[Fragment],
) -> Result<Vec<Vec<usize>>, ChemError> {
    let mut taken = vec![false; parent.num_atoms()];
    let mut placed = Vec::with_capacity(fragments.len());
    for fragment in fragments {
        let frag = Molecule::from_smiles(&fragment.smiles)?;
        let real: Vec<bool> = frag
            .graph()?
            .atoms
            .iter()
            .map(|a| a.atomic_num != 0)
            .collect();
        let place = |query: &str, real: &[bool]| -> Result<Option<Vec<usize>>, ChemError> {
            let query = Pattern::from_smarts(query)?;
            Ok(parent.matches(&query, 1000)?.into_iter().find_map(|m| {
                let atoms: Vec<usize> = m
                    .iter()
                    .zip(real)
                    .filter(|&(_, &is_real)| is_real)
                    .map(|(&i, _)| i)
                    .collect();
                atoms.iter().all(|&i| !taken[i]).then_some(atoms)
            }))
        };
        // Attachment points as wildcards anchor the fragment where it was cut; in a stitched
        // child the unused ones were capped with hydrogen, so the fragment alone is tried next.
        let atoms = match place(&fragment_query(&fragment.smiles), &real)? {
            Some(atoms) => atoms,
            None => {
                let bare = without_attachments(&frag)?;
                let bare_real = vec![true; Molecule::from_smiles(&bare)?.num_atoms()];
                place(&bare, &bare_real)?.unwrap_or_default()
            }
        };
        for &i in &atoms {
            taken[i] = true;
        }
        placed.push(atoms);
    }
    Ok(placed)
}

/// The dummy atoms of `fragment`, in atom order.
pub fn attachment_points(fragment: &Molecule) -> Result<Vec<Attachment>, ChemError> {
    Ok(fragment
        .graph()?
        .atoms
        .iter()
        .enumerate()
        .filter(|(_, a)| a.atomic_num == 0)
        .map(|(atom_index, a)| Attachment {
            atom_index,
            label: a.isotope,
        })
        .collect())
}

/// Stitches two fragments at their first BRICS-compatible pair of attachment points (first in
/// `a`'s atom order, then in `b`'s), then caps the remaining attachment points with hydrogen.
/// Errors when either has no attachment point or no pair is compatible.
pub fn stitch(a: &Molecule, b: &Molecule) -> Result<Molecule, ChemError> {
    let (pa, pb) = (attachment_points(a)?, attachment_points(b)?);
    let fail = |reason: &str| -> Result<ChemError, ChemError> {
        Ok(ChemError::Stitch {
            a: a.canonical_smiles()?,
            b: b.canonical_smiles()?,
            reason: reason.to_owned(),
        })
    };
    if pa.is_empty() || pb.is_empty() {
        return Err(fail("a fragment has no attachment point")?);
    }
    let pair = pa.iter().find_map(|x| {
        pb.iter()
            .find(|y| compatible(x.label, y.label))
            .map(|y| (*x, *y))
    });
    match pair {
        Some((x, y)) => zip_at(a, x.atom_index, b, y.atom_index),
        None => Err(fail("no pair of attachment points is BRICS-compatible")?),
    }
}

/// Stitches `a` and `b` at the given dummy atoms (indices from [`attachment_points`]), which
/// must carry BRICS-compatible labels; remaining attachment points are capped with hydrogen.
pub fn stitch_at(
    a: &Molecule,
    a_atom: usize,
    b: &Molecule,
    b_atom: usize,
) -> Result<Molecule, ChemError> {
    let find = |m: &Molecule, i: usize| -> Result<Option<Attachment>, ChemError> {
        Ok(attachment_points(m)?
            .into_iter()
            .find(|p| p.atom_index == i))
    };
    let (x, y) = (find(a, a_atom)?, find(b, b_atom)?);
    let reason = match (x, y) {
        (Some(x), Some(y)) if compatible(x.label, y.label) => return zip_at(a, a_atom, b, b_atom),
        (Some(x), Some(y)) => format!(
            "labels {} and {} are not BRICS-compatible",
            x.label, y.label
        ),
        _ => format!(
            "atom {a_atom} of the first or atom {b_atom} of the second is not an attachment point"
        ),
    };
    Err(ChemError::Stitch {
        a: a.canonical_smiles()?,
        b: b.canonical_smiles()?,
        reason,
    })
}

/// Joins the two dummies through `molzip` (shared atom-map number 1; every other atom's map is
/// cleared) and caps the leftovers.
fn zip_at(a: &Molecule, a_atom: usize, b: &Molecule, b_atom: usize) -> Result<Molecule, ChemError> {
    let relabel = |m: &Molecule, chosen: usize| {
        let n = m.num_atoms();
        let indices: Vec<u32> = (0..n).map(|i| i as u32).collect();
        let maps: Vec<u32> = (0..n).map(|i| u32::from(i == chosen)).collect();
        m.with_atom_maps(&indices, &maps)
    };
    let (a1, b1) = (relabel(a, a_atom)?, relabel(b, b_atom)?);
    let zipped = ffi::zip_pair(a1.raw(), b1.raw()).map_err(|e| ChemError::rdkit("molzip", &e))?;
    let zipped = Molecule::from_raw(zipped, "molzip")?;
    let capped = ffi::cap_dummies(zipped.raw())
        .map_err(|e| ChemError::rdkit("cap attachment points", &e))?;
    let capped = Molecule::from_raw(capped, "cap attachment points")?;
    // Round-trip through SMILES so the result is a freshly sanitised molecule.
    Molecule::from_smiles(&capped.canonical_smiles()?)
}

/// Canonical SMILES of `fragment` with every attachment point (dummy atom) replaced by hydrogen.
/// A double-bonded point (BRICS type 7) leaves its atom saturated: `[7*]=CC` gives `CC`.
pub fn without_attachments(fragment: &Molecule) -> Result<String, ChemError> {
    let capped = ffi::cap_dummies(fragment.raw())
        .map_err(|e| ChemError::rdkit("remove attachment points", &e))?;
    let capped = Molecule::from_raw(capped, "remove attachment points")?;
    // Round-trip so the string is RDKit's canonical form of a freshly parsed molecule.
    Molecule::from_smiles(&capped.canonical_smiles()?)?.canonical_smiles()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragment_query_turns_labelled_dummies_into_wildcards() {
        assert_eq!(fragment_query("[16*]c1ccc([16*])cc1"), "*c1ccc(*)cc1");
        assert_eq!(
            fragment_query("[1*]C(=O)[C@@H](N)[NH3+]"),
            "*C(=O)[C@@H](N)[NH3+]"
        );
    }

    #[test]
    fn fragments_cover_the_parent_atoms_exactly_once() {
        for smiles in [
            "CC(=O)Oc1ccccc1C(=O)O",
            "COc1ccc(CNC(=O)c2ccccc2)cc1",
            "c1ccc(-c2ccccc2)cc1",
            "CCN(CC)C(=O)c1ccc(OC)cc1",
        ] {
            let parent = Molecule::from_smiles(smiles).unwrap();
            let fragments = brics_fragments(&parent).unwrap();
            let placed = fragment_atoms(&parent, &fragments).unwrap();
            let mut all: Vec<usize> = placed.iter().flatten().copied().collect();
            all.sort_unstable();
            assert_eq!(
                all,
                (0..parent.num_atoms()).collect::<Vec<_>>(),
                "{smiles}: {placed:?}"
            );
        }
    }

    fn mol(s: &str) -> Molecule {
        Molecule::from_smiles(s).unwrap()
    }

    fn canon(m: &Molecule) -> String {
        m.canonical_smiles().unwrap()
    }

    #[test]
    fn aspirin_fragments_carry_rdkit_environment_labels() {
        let frags = brics_fragments(&mol("CC(=O)Oc1ccccc1C(=O)O")).unwrap();
        let mut smiles: Vec<&str> = frags.iter().map(|f| f.smiles.as_str()).collect();
        smiles.sort_unstable();
        // Python: [Chem.MolToSmiles(f) for f in GetMolFrags(BRICS.BreakBRICSBonds(m), asMols=True)]
        assert_eq!(
            smiles,
            [
                "[1*]C(C)=O",
                "[16*]c1ccccc1[16*]",
                "[3*]O[3*]",
                "[6*]C(=O)O"
            ]
        );
        let ring = frags
            .iter()
            .find(|f| f.smiles == "[16*]c1ccccc1[16*]")
            .unwrap();
        assert_eq!(ring.labels, [16, 16]);
    }

    #[test]
    fn molecule_without_brics_bonds_is_one_fragment() {
        let frags = brics_fragments(&mol("c1ccccc1")).unwrap();
        assert_eq!(
            frags,
            [Fragment {
                smiles: "c1ccccc1".to_owned(),
                labels: vec![]
            }]
        );
    }

    #[test]
    fn compatibility_table_is_symmetric_and_matches_rules() {
        assert!(compatible(1, 3) && compatible(3, 1));
        assert!(compatible(7, 7) && compatible(16, 16) && compatible(6, 16));
        assert!(
            !compatible(1, 16) && !compatible(1, 1) && !compatible(12, 12) && !compatible(2, 3)
        );
        let n = (1..=16)
            .flat_map(|a| (a..=16).map(move |b| (a, b)))
            .filter(|&(a, b)| compatible(a, b))
            .count();
        assert_eq!(n, COMPATIBLE_PAIRS.len());
    }

    #[test]
    fn stitching_aspirin_fragments() {
        // [6*] carboxylic acid onto the [16*] aromatic ring: benzoic acid (other [16*] capped).
        let acid = stitch(&mol("[6*]C(=O)O"), &mol("[16*]c1ccccc1[16*]")).unwrap();
        assert_eq!(canon(&acid), "O=C(O)c1ccccc1");
        // [1*] acyl onto the [3*] ether oxygen: acetic acid.
        let acetic = stitch(&mol("[1*]C(C)=O"), &mol("[3*]O[3*]")).unwrap();
        assert_eq!(canon(&acetic), "CC(=O)O");
    }

    #[test]
    fn stitching_the_two_fragments_of_a_molecule_rebuilds_it() {
        for smiles in [
            "CN1CCN(c2ccccc2)CC1",
            "c1ccc(-c2ccccn2)cc1",
            "Cc1ccc(-c2ccccc2)cc1",
        ] {
            let m = mol(smiles);
            let frags = brics_fragments(&m).unwrap();
            assert_eq!(frags.len(), 2, "{smiles}: {frags:?}");
            let child = stitch(&mol(&frags[0].smiles), &mol(&frags[1].smiles)).unwrap();
            assert_eq!(canon(&child), canon(&m), "{smiles}");
        }
        let piperazine = stitch(&mol("[5*]N1CCN(C)CC1"), &mol("[16*]c1ccccc1")).unwrap();
        assert_eq!(canon(&piperazine), "CN1CCN(c2ccccc2)CC1");
        let isobutylbenzene = stitch(&mol("[8*]CC(C)C"), &mol("[16*]c1ccc([16*])cc1")).unwrap();
        assert_eq!(canon(&isobutylbenzene), "CC(C)Cc1ccccc1");
    }

    #[test]
    fn label_7_joins_with_a_double_bond() {
        let butene = stitch(&mol("[7*]=CC[8*]"), &mol("[7*]=CC[8*]")).unwrap();
        assert_eq!(canon(&butene), "CC=CC");
    }

    #[test]
    fn incompatible_fragments_are_an_error() {
        let err = stitch(&mol("[1*]C(C)=O"), &mol("[16*]c1ccccc1[16*]")).unwrap_err();
        assert!(matches!(err, ChemError::Stitch { .. }), "{err}");
        assert!(matches!(
            stitch(&mol("CCO"), &mol("[16*]c1ccccc1")),
            Err(ChemError::Stitch { .. })
        ));
        let ring = mol("[16*]c1ccccc1[16*]");
        let points = attachment_points(&ring).unwrap();
        assert_eq!(points.len(), 2);
        assert!(matches!(
            stitch_at(&mol("[1*]C(C)=O"), 0, &ring, points[0].atom_index),
            Err(ChemError::Stitch { .. })
        ));
        assert!(matches!(
            stitch_at(&mol("[1*]C(C)=O"), 1, &ring, points[0].atom_index),
            Err(ChemError::Stitch { .. })
        ));
    }

    #[test]
    fn stitch_at_uses_the_chosen_points() {
        let ring = mol("[16*]c1ccc([14*])cc1");
        let points = attachment_points(&ring).unwrap();
        let p14 = points.iter().find(|p| p.label == 14).unwrap();
        // [3*] ether oxygen joins label 14 (and 16); choosing 14 puts OMe para to the capped 16.
        let child = stitch_at(&mol("[3*]OC"), 0, &ring, p14.atom_index).unwrap();
        assert_eq!(canon(&child), "COc1ccccc1");
    }
}
