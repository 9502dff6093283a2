//! Seeded BRICS crossover: the (fragment A, fragment B, child) triples StitchNet is pretrained
//! on.
//!
//! One crossover takes a BRICS fragment of parent A and a BRICS-compatible fragment of parent
//! B and stitches them at one compatible pair of attachment points ([`benchtop_chem::brics::stitch_at`];
//! every other attachment point is capped with hydrogen). The paper pretrains StitchNet on the
//! offspring of Jensen's graph-GA crossover (a ring or acyclic-bond cut of each parent, rejoined
//! by reaction SMARTS, Appendix L.3); here the cut is RDKit's BRICS fragmentation, the same
//! chemistry the stitching viewer uses, so the pairs and the rule-based baseline agree.
//!
//! Fragment strings carry no dummy atoms, as in the paper ("dummy atoms are removed from
//! fragment SMILES"): every attachment point is replaced by hydrogen and the fragment is
//! re-canonicalised by RDKit, so a fragment is an ordinary molecule in the same token
//! vocabulary as the children (a double-bonded type 7 point, `[7*]=CC`, becomes the saturated
//! `CC`: the atom gets back the hydrogens of the bond). Removal never broke parsing on the
//! offline set; a fragment whose dummy-free form RDKit rejected would simply not be used, so
//! fragment strings never contain dummy tokens.
//!
//! Children keep the paper's lower size filter (more than 5 heavy atoms). The child's heavy
//! atoms are exactly fragment A's plus fragment B's: stitching joins the two fragments through
//! one bond and caps the other attachment points, which is what removing them did.

use std::collections::HashMap;

use benchtop_compute::rng::{EngineRng, seeded};
use rand::Rng as _;

use benchtop_chem::brics::{
    Attachment, attachment_points, brics_fragments, compatible, stitch_at, without_attachments,
};
use benchtop_chem::{ChemError, Molecule};

/// The paper's child filter: a child needs more than this many heavy atoms.
pub const MIN_CHILD_HEAVY_ATOMS_EXCLUSIVE: usize = 5;

/// Attempts per requested pair before [`crossover_pairs`] gives up on a corpus (most attempts
/// succeed; a corpus without BRICS bonds makes every attempt fail).
const ATTEMPTS_PER_PAIR: usize = 20;

/// One crossover: two fragments (canonical SMILES without dummy atoms) and their stitched child
/// (canonical SMILES, RDKit-valid).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CrossoverPair {
    /// Fragment of parent A, attachment points removed.
    pub fragment_a: String,
    /// Fragment of parent B, attachment points removed.
    pub fragment_b: String,
    /// The stitched child, canonical SMILES.
    pub child: String,
}

/// A BRICS fragment ready for crossover: the labelled molecule, its attachment points and its
/// dummy-free canonical SMILES.
struct Piece {
    labelled: Molecule,
    points: Vec<Attachment>,
    plain: String,
}

/// The fragments of `smiles` that can take part in a crossover: those with at least one
/// attachment point whose dummy-free form RDKit accepts. Empty for a molecule without BRICS
/// bonds or a SMILES RDKit rejects.
fn pieces(smiles: &str) -> Vec<Piece> {
    let Ok(mol) = Molecule::from_smiles(smiles) else {
        return Vec::new();
    };
    let Ok(fragments) = brics_fragments(&mol) else {
        return Vec::new();
    };
    fragments
        .into_iter()
        .filter(|f| !f.labels.is_empty())
        .filter_map(|f| {
            let labelled = Molecule::from_smiles(&f.smiles).ok()?;
            let points = attachment_points(&labelled).ok()?;
            let plain = without_attachments(&labelled).ok()?;
            Some(Piece {
                labelled,
                points,
                plain,
            })
        })
        .collect()
}

/// One crossover between two fragment lists: a uniformly chosen fragment of A, then a uniformly
/// chosen (fragment of B, attachment point of A, attachment point of B) among the compatible
/// ones. `None` when A has no fragment, no fragment of B fits, or the child fails the filter.
fn cross(a: &[Piece], b: &[Piece], rng: &mut EngineRng) -> Option<CrossoverPair> {
    if a.is_empty() {
        return None;
    }
    let fa = &a[rng.random_range(0..a.len())];
    let mut options = Vec::new();
    for (j, fb) in b.iter().enumerate() {
        for pa in &fa.points {
            for pb in &fb.points {
                if compatible(pa.label, pb.label) {
                    options.push((j, pa.atom_index, pb.atom_index));
                }
            }
        }
    }
    if options.is_empty() {
        return None;
    }
    let (j, atom_a, atom_b) = options[rng.random_range(0..options.len())];
    let fb = &b[j];
    let child = stitch_at(&fa.labelled, atom_a, &fb.labelled, atom_b).ok()?;
    if child.num_atoms() <= MIN_CHILD_HEAVY_ATOMS_EXCLUSIVE {
        return None;
    }
    Some(CrossoverPair {
        fragment_a: fa.plain.clone(),
        fragment_b: fb.plain.clone(),
        child: child.canonical_smiles().ok()?,
    })
}

/// One seeded crossover of `parent_a` with `parent_b` (which may be the same molecule, as in
/// StitchNet's self-augmentation): `Ok(None)` when no crossover exists (no BRICS bond, no
/// compatible fragment, or a child with 5 heavy atoms or fewer). An invalid parent is an error
/// naming it.
pub fn crossover(
    parent_a: &str,
    parent_b: &str,
    rng: &mut EngineRng,
) -> Result<Option<CrossoverPair>, ChemError> {
    Molecule::from_smiles(parent_a)?;
    Molecule::from_smiles(parent_b)?;
    Ok(cross(&pieces(parent_a), &pieces(parent_b), rng))
}

/// Seeded BRICS crossover over a corpus: up to `n_pairs` pairs, each from two distinct parents
/// drawn uniformly (a fragment of parent A and a compatible fragment of parent B; the child is
/// their stitch, RDKit-valid and canonical; fragment strings without dummies). Parents without
/// BRICS bonds and SMILES RDKit rejects are skipped. Fewer than `n_pairs` come back only when
/// the corpus has too few usable parents (after 20 attempts per requested pair); fewer than two
/// SMILES give none. The same corpus and seed give the same pairs.
pub fn crossover_pairs(smiles: &[String], n_pairs: usize, seed: u64) -> Vec<CrossoverPair> {
    let mut out = Vec::with_capacity(n_pairs);
    if smiles.len() < 2 {
        return out;
    }
    let mut rng = seeded(seed);
    let mut cache: HashMap<usize, Vec<Piece>> = HashMap::new();
    let mut attempts = 0;
    while out.len() < n_pairs && attempts < n_pairs.saturating_mul(ATTEMPTS_PER_PAIR) {
        attempts += 1;
        let i = rng.random_range(0..smiles.len());
        // A second, different parent: shift by 1..len so j ≠ i, uniformly.
        let j = (i + rng.random_range(1..smiles.len())) % smiles.len();
        for k in [i, j] {
            cache.entry(k).or_insert_with(|| pieces(&smiles[k]));
        }
        if let Some(pair) = cross(&cache[&i], &cache[&j], &mut rng) {
            out.push(pair);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use benchtop_chem::offline::offline_smiles;

    fn corpus(n: usize) -> Vec<String> {
        offline_smiles().unwrap().into_iter().take(n).collect()
    }

    fn heavy_atoms(smiles: &str) -> usize {
        Molecule::from_smiles(smiles).unwrap().num_atoms()
    }

    #[test]
    fn children_are_canonical_stitches_of_their_fragments() {
        let pairs = crossover_pairs(&corpus(120), 40, 1);
        assert_eq!(pairs.len(), 40);
        for p in &pairs {
            for s in [&p.fragment_a, &p.fragment_b, &p.child] {
                assert!(!s.contains('*'), "{p:?}");
                // Parses, and is already RDKit's canonical form.
                let canon = Molecule::from_smiles(s)
                    .unwrap()
                    .canonical_smiles()
                    .unwrap();
                assert_eq!(&canon, s, "{p:?}");
            }
            let (a, b, c) = (
                heavy_atoms(&p.fragment_a),
                heavy_atoms(&p.fragment_b),
                heavy_atoms(&p.child),
            );
            assert_eq!(c, a + b, "{p:?}");
            assert!(c > MIN_CHILD_HEAVY_ATOMS_EXCLUSIVE);
        }
        // Not one pair repeated forty times.
        let distinct: std::collections::HashSet<&str> =
            pairs.iter().map(|p| p.child.as_str()).collect();
        assert!(distinct.len() > 20, "{} distinct children", distinct.len());
    }

    #[test]
    fn same_seed_same_pairs() {
        let smiles = corpus(60);
        let a = crossover_pairs(&smiles, 15, 7);
        assert_eq!(a, crossover_pairs(&smiles, 15, 7));
        assert_ne!(a, crossover_pairs(&smiles, 15, 8));
    }

    #[test]
    fn parents_without_brics_bonds_are_skipped() {
        let no_bonds: Vec<String> = ["c1ccccc1", "C1CCCCC1", "CCCC", "not a smiles"]
            .map(str::to_owned)
            .to_vec();
        assert!(crossover_pairs(&no_bonds, 5, 1).is_empty());
        assert!(crossover_pairs(&no_bonds[..1], 5, 1).is_empty());
        // Mixed in, they never contribute a fragment: only the two usable parents do.
        let mut mixed = no_bonds.clone();
        mixed.push("CN1CCN(c2ccccc2)CC1".to_owned());
        mixed.push("Cc1ccc(-c2ccccc2)cc1".to_owned());
        let pairs = crossover_pairs(&mixed, 10, 3);
        assert!(!pairs.is_empty());
        let allowed = ["CN1CCNCC1", "c1ccccc1", "Cc1ccccc1"];
        for p in &pairs {
            assert!(allowed.contains(&p.fragment_a.as_str()), "{p:?}");
            assert!(allowed.contains(&p.fragment_b.as_str()), "{p:?}");
        }
    }

    #[test]
    fn attachments_are_removed_and_self_crossover_works() {
        let ring = Molecule::from_smiles("[16*]c1ccc([14*])cc1").unwrap();
        assert_eq!(without_attachments(&ring).unwrap(), "c1ccccc1");
        let amine = Molecule::from_smiles("[5*]N1CCN(C)CC1").unwrap();
        assert_eq!(without_attachments(&amine).unwrap(), "CN1CCNCC1");
        let alkene = Molecule::from_smiles("[7*]=CC").unwrap();
        assert_eq!(without_attachments(&alkene).unwrap(), "CC");
        // Self-crossover of one molecule (the self-augmentation case).
        let mut rng = seeded(2);
        let pair = crossover("CN1CCN(c2ccccc2)CC1", "CN1CCN(c2ccccc2)CC1", &mut rng)
            .unwrap()
            .unwrap();
        // Either the molecule itself or phenyl on phenyl (labels 16 and 16 are compatible).
        assert!(
            ["CN1CCN(c2ccccc2)CC1", "c1ccc(-c2ccccc2)cc1"].contains(&pair.child.as_str()),
            "{pair:?}"
        );
        assert!(crossover("C1CC(", "CCO", &mut rng).is_err());
    }

    /// Removing attachment points never fails on the offline set (run with `--ignored`; a few
    /// seconds). Measured: every fragment of the 5,000 molecules has a dummy-free form.
    #[test]
    #[ignore = "fragments all 5,000 offline molecules"]
    fn every_offline_fragment_loses_its_dummies() {
        let mut counts = (0, 0);
        for s in offline_smiles().unwrap() {
            let mol = Molecule::from_smiles(&s).unwrap();
            for f in brics_fragments(&mol).unwrap() {
                let frag = Molecule::from_smiles(&f.smiles).unwrap();
                counts.0 += 1;
                if without_attachments(&frag).is_err() {
                    counts.1 += 1;
                    eprintln!("{s}: {}", f.smiles);
                }
            }
        }
        eprintln!("{} fragments, {} failures", counts.0, counts.1);
        assert_eq!(counts.1, 0);
    }
}
