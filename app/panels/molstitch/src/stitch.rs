//! The stitching viewer's computation (run in a task): two parents, their BRICS fragments and
//! where those lie in each parent, the child of a chosen fragment pair, and the gallery of every
//! BRICS-compatible pair's child, each scored on the panel's objectives.

use benchtop_chem::brics::{self, Fragment};
use benchtop_chem::{ChemError, Drawing, Molecule};
use benchtop_molstitch::{ObjectiveSpec, Objectives};

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

/// Runs the analysis; when `request` chooses no fragment of either parent, chooses the
/// gallery's best pair (so a new panel shows a child at once) and analyses that. Returns the
/// request answered (with the pair chosen) and its view.
pub fn analyse_choosing(request: &StitchRequest) -> Result<(StitchRequest, StitchView), String> {
    let view = analyse(request)?;
    let mut answered = request.clone();
    match (request.fragment_a, request.fragment_b, view.gallery.first()) {
        (None, None, Some(best)) => {
            answered.fragment_a = Some(best.fragments.0);
            answered.fragment_b = Some(best.fragments.1);
            let chosen = analyse(&answered)?;
            Ok((answered, chosen))
        }
        _ => Ok((answered, view)),
    }
}
