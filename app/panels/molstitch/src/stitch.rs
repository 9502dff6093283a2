//! The stitching viewer's computation (run in a job): two parents, their BRICS fragments and
//! where those lie in each parent, the child of a chosen fragment pair, and the gallery of every
//! BRICS-compatible pair's child, each scored on the panel's objectives.

use benchtop_molstitch::brics::{self, Fragment};
use benchtop_molstitch::{ChemError, Drawing, Molecule, ObjectiveSpec, Objectives};

/// Most children kept in the gallery (best mean objective first).
pub const GALLERY_MAX: usize = 48;

/// What to analyse.
#[derive(Clone, Debug, PartialEq)]
pub struct StitchRequest {
    /// Parent A (SMILES as typed or picked).
    pub parent_a: String,
    /// Parent B.
    pub parent_b: String,
    /// Chosen fragment of A (index into its fragments).
    pub fragment_a: Option<usize>,
    /// Chosen fragment of B.
    pub fragment_b: Option<usize>,
    /// The objectives the molecules are scored on.
    pub objectives: Vec<ObjectiveSpec>,
}

/// One parent with its fragments.
#[derive(Clone, Debug, PartialEq)]
pub struct ParentView {
    /// Canonical SMILES.
    pub smiles: String,
    /// Atoms and bonds with 2D coordinates.
    pub drawing: Drawing,
    /// BRICS fragments (labelled attachment points).
    pub fragments: Vec<Fragment>,
    /// The parent's atom indices of each fragment.
    pub fragment_atoms: Vec<Vec<usize>>,
    /// Objective values.
    pub objectives: Vec<f64>,
}

/// One stitched child.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildView {
    /// Canonical SMILES.
    pub smiles: String,
    /// Atoms and bonds with 2D coordinates.
    pub drawing: Drawing,
    /// Which fragment of A and of B it joins.
    pub fragments: (usize, usize),
    /// The child's atoms that came from A's fragment and from B's.
    pub atoms_from: (Vec<usize>, Vec<usize>),
    /// Objective values.
    pub objectives: Vec<f64>,
}

impl ChildView {
    /// Mean of the objective values (the gallery's order).
    pub fn mean_objective(&self) -> f64 {
        mean(&self.objectives)
    }
}

/// The result shown by the viewer.
#[derive(Clone, Debug, PartialEq)]
pub struct StitchView {
    /// Parent A.
    pub a: ParentView,
    /// Parent B.
    pub b: ParentView,
    /// The chosen pair's child, or why it cannot be made (`None` until both are chosen).
    pub child: Option<Result<ChildView, String>>,
    /// Children of every compatible fragment pair, distinct, best mean objective first.
    pub gallery: Vec<ChildView>,
    /// Compatible fragment pairs found (before removing duplicates and capping).
    pub compatible_pairs: usize,
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / values.len() as f64
    }
}

/// Parses, fragments, places and scores one parent; `which` names it in errors.
fn parent(smiles: &str, which: &str, objectives: &Objectives) -> Result<ParentView, String> {
    let fail = |e: ChemError| format!("parent {which}: {e}");
    if smiles.trim().is_empty() {
        return Err(format!("parent {which}: type a SMILES or pick a molecule"));
    }
    let mol = Molecule::from_smiles(smiles.trim()).map_err(fail)?;
    let fragments = brics::brics_fragments(&mol).map_err(fail)?;
    let fragment_atoms = brics::fragment_atoms(&mol, &fragments).map_err(fail)?;
    Ok(ParentView {
        smiles: mol.canonical_smiles().map_err(fail)?,
        drawing: mol.drawing().map_err(fail)?,
        objectives: objectives.score(&mol).map_err(fail)?,
        fragments,
        fragment_atoms,
    })
}

/// Whether some attachment label of `a` is BRICS-compatible with one of `b`.
pub fn fragments_compatible(a: &Fragment, b: &Fragment) -> bool {
    a.labels
        .iter()
        .any(|&x| b.labels.iter().any(|&y| brics::compatible(x, y)))
}

/// Stitches fragment `i` of `a` with fragment `j` of `b` and scores the child.
fn child(
    a: &ParentView,
    b: &ParentView,
    (i, j): (usize, usize),
    objectives: &Objectives,
) -> Result<ChildView, ChemError> {
    let (fa, fb) = (&a.fragments[i], &b.fragments[j]);
    let mol = brics::stitch(
        &Molecule::from_smiles(&fa.smiles)?,
        &Molecule::from_smiles(&fb.smiles)?,
    )?;
    let placed = brics::fragment_atoms(&mol, &[fa.clone(), fb.clone()])?;
    let mut placed = placed.into_iter();
    Ok(ChildView {
        smiles: mol.canonical_smiles()?,
        drawing: mol.drawing()?,
        fragments: (i, j),
        atoms_from: (
            placed.next().unwrap_or_default(),
            placed.next().unwrap_or_default(),
        ),
        objectives: objectives.score(&mol)?,
    })
}

/// Runs the whole analysis. Errors name the parent or the objective at fault.
pub fn analyse(request: &StitchRequest) -> Result<StitchView, String> {
    let objectives = Objectives::new(&request.objectives).map_err(|e| e.to_string())?;
    let a = parent(&request.parent_a, "A", &objectives)?;
    let b = parent(&request.parent_b, "B", &objectives)?;
    let chosen = match (request.fragment_a, request.fragment_b) {
        (Some(i), Some(j)) if i < a.fragments.len() && j < b.fragments.len() => {
            Some(if fragments_compatible(&a.fragments[i], &b.fragments[j]) {
                child(&a, &b, (i, j), &objectives).map_err(|e| e.to_string())
            } else {
                Err(format!(
                    "fragments A{} {} and B{} {} have no BRICS-compatible attachment points",
                    i + 1,
                    a.fragments[i].smiles,
                    j + 1,
                    b.fragments[j].smiles
                ))
            })
        }
        _ => None,
    };
    let mut gallery: Vec<ChildView> = Vec::new();
    let mut compatible_pairs = 0;
    for (i, fa) in a.fragments.iter().enumerate() {
        for (j, fb) in b.fragments.iter().enumerate() {
            if !fragments_compatible(fa, fb) {
                continue;
            }
            compatible_pairs += 1;
            // A pair RDKit refuses (e.g. a valence clash) is left out of the gallery.
            if let Ok(c) = child(&a, &b, (i, j), &objectives)
                && !gallery.iter().any(|g| g.smiles == c.smiles)
            {
                gallery.push(c);
            }
        }
    }
    gallery.sort_by(|x, y| y.mean_objective().total_cmp(&x.mean_objective()));
    gallery.truncate(GALLERY_MAX);
    Ok(StitchView {
        a,
        b,
        child: chosen,
        gallery,
        compatible_pairs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(a: &str, b: &str, fa: Option<usize>, fb: Option<usize>) -> StitchRequest {
        StitchRequest {
            parent_a: a.to_owned(),
            parent_b: b.to_owned(),
            fragment_a: fa,
            fragment_b: fb,
            objectives: vec![ObjectiveSpec::Qed, ObjectiveSpec::Sa],
        }
    }

    const A: &str = "COc1ccc(CNC(=O)c2ccccc2)cc1";
    const B: &str = "CCN(CC)C(=O)c1ccc(OC)cc1";

    #[test]
    fn child_joins_the_chosen_fragments_and_is_scored() {
        let view = analyse(&request(A, B, None, None)).unwrap();
        assert!(view.child.is_none());
        assert!(view.a.fragments.len() >= 2 && view.b.fragments.len() >= 2);
        // Every parent atom belongs to exactly one fragment.
        let covered: usize = view.a.fragment_atoms.iter().map(Vec::len).sum();
        assert_eq!(covered, view.a.drawing.atoms.len());
        let (i, j) = view.gallery[0].fragments;
        let chosen = analyse(&request(A, B, Some(i), Some(j))).unwrap();
        let child = chosen.child.unwrap().unwrap();
        assert_eq!(child.smiles, view.gallery[0].smiles);
        // The child's atoms are the two fragments' real atoms, all placed.
        let real = |f: &Fragment| {
            Molecule::from_smiles(&f.smiles)
                .unwrap()
                .graph()
                .unwrap()
                .atoms
                .iter()
                .filter(|x| x.atomic_num != 0)
                .count()
        };
        let expected = real(&chosen.a.fragments[i]) + real(&chosen.b.fragments[j]);
        assert_eq!(child.drawing.atoms.len(), expected);
        assert_eq!(
            child.atoms_from.0.len() + child.atoms_from.1.len(),
            expected
        );
        assert_eq!(child.objectives.len(), 2);
        assert!(child.objectives.iter().all(|v| (0.0..=1.0).contains(v)));
    }

    #[test]
    fn gallery_is_distinct_sorted_and_every_child_parses() {
        let view = analyse(&request(A, B, None, None)).unwrap();
        assert!(!view.gallery.is_empty() && view.compatible_pairs >= view.gallery.len());
        for pair in view.gallery.windows(2) {
            assert!(pair[0].mean_objective() >= pair[1].mean_objective());
            assert_ne!(pair[0].smiles, pair[1].smiles);
        }
        for c in &view.gallery {
            assert!(Molecule::from_smiles(&c.smiles).is_ok(), "{}", c.smiles);
        }
    }

    #[test]
    fn bad_input_names_the_parent_and_incompatible_fragments_are_explained() {
        let err = analyse(&request("C1CC(", B, None, None)).unwrap_err();
        assert!(err.contains("parent A") && err.contains("C1CC("), "{err}");
        let err = analyse(&request(A, "", None, None)).unwrap_err();
        assert!(err.contains("parent B"), "{err}");
        let view = analyse(&request(A, B, None, None)).unwrap();
        let incompatible = (0..view.a.fragments.len())
            .flat_map(|i| (0..view.b.fragments.len()).map(move |j| (i, j)))
            .find(|&(i, j)| !fragments_compatible(&view.a.fragments[i], &view.b.fragments[j]));
        if let Some((i, j)) = incompatible {
            let v = analyse(&request(A, B, Some(i), Some(j))).unwrap();
            let message = v.child.unwrap().unwrap_err();
            assert!(message.contains("no BRICS-compatible"), "{message}");
        }
    }
}
