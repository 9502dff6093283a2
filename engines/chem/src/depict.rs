//! Molecule depictions as chemists draw them, by RDKit's own renderer (`MolDraw2DSVG`): 2D
//! layout by CoordGen, double and triple bonds as parallel lines, aromatic rings in their
//! Kekulé form, heteroatom labels with their implicit hydrogens and charges, stereo wedges,
//! and optional coloured atom highlights (e.g. which fragment each atom came from). The result
//! is an SVG document whose text is drawn as outlines, so it renders the same without fonts.

use crate::error::ChemError;
use crate::mol::{Drawing, Molecule};
use crate::rdkit_ffi::ffi;

/// What lies behind the molecule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Background {
    /// Nothing: the picture shows whatever it is drawn over.
    #[default]
    Transparent,
    /// An opaque white rectangle.
    White,
}

/// One highlighted atom: its index (RDKit's atom order, as [`Drawing::atoms`]) and colour.
/// A bond between two atoms of the same colour is highlighted in that colour too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AtomHighlight {
    /// Atom index.
    pub atom: usize,
    /// Colour as red, green, blue.
    pub rgb: [u8; 3],
}

/// How to depict a molecule: the picture's size, its background and highlighted atoms.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DepictOptions {
    /// Width of the SVG document (its `viewBox`), in pixels.
    pub width_px: u32,
    /// Height in pixels.
    pub height_px: u32,
    /// Transparent (default) or white.
    pub background: Background,
    /// Atoms to highlight; an atom listed twice takes its last colour.
    pub highlights: Vec<AtomHighlight>,
    /// Longest bond length in pixels (`None`: the molecule fills the picture). Several
    /// molecules drawn with the same value share one scale unless one is too big to fit.
    pub bond_length_px: Option<u32>,
}

impl DepictOptions {
    /// A `width_px × height_px` transparent picture without highlights.
    pub fn new(width_px: u32, height_px: u32) -> Self {
        Self {
            width_px,
            height_px,
            background: Background::Transparent,
            highlights: Vec::new(),
            bond_length_px: None,
        }
    }

    /// Draws bonds at most `px` long (see [`DepictOptions::bond_length_px`]).
    #[must_use]
    pub fn bond_length_px(mut self, px: u32) -> Self {
        self.bond_length_px = Some(px);
        self
    }

    /// Sets the background.
    #[must_use]
    pub fn background(mut self, background: Background) -> Self {
        self.background = background;
        self
    }

    /// Highlights every atom of `atoms` in `rgb`.
    #[must_use]
    pub fn highlight(mut self, atoms: impl IntoIterator<Item = usize>, rgb: [u8; 3]) -> Self {
        self.highlights
            .extend(atoms.into_iter().map(|atom| AtomHighlight { atom, rgb }));
        self
    }
}

/// The depiction of a SMILES (laid out afresh) as an SVG document. An invalid SMILES is
/// [`ChemError::InvalidSmiles`] naming it, as everywhere in the engine.
pub fn depict_smiles(smiles: &str, options: &DepictOptions) -> Result<String, ChemError> {
    Molecule::from_smiles(smiles)?.depict_svg(options)
}

/// Draws `mol` with RDKit, after a fresh 2D layout when `compute_2d` (else in its own).
fn draw(mol: &ffi::ROMol, compute_2d: bool, options: &DepictOptions) -> Result<String, ChemError> {
    let failed = |reason: String| ChemError::Rdkit {
        operation: "depiction",
        reason,
    };
    if options.width_px == 0 || options.height_px == 0 {
        return Err(failed(format!(
            "the picture is {} × {} px; both sides must be at least 1 px",
            options.width_px, options.height_px
        )));
    }
    let mut atoms = Vec::with_capacity(options.highlights.len());
    let mut colours = Vec::with_capacity(options.highlights.len());
    for h in &options.highlights {
        let atom = u32::try_from(h.atom)
            .map_err(|_| failed(format!("highlighted atom {} is out of range", h.atom)))?;
        let [r, g, b] = h.rgb.map(u32::from);
        atoms.push(atom);
        colours.push(r << 16 | g << 8 | b);
    }
    let canvas = ffi::Canvas {
        width: options.width_px,
        height: options.height_px,
        white_background: options.background == Background::White,
        bond_length_px: options.bond_length_px.map_or(-1.0, f64::from),
    };
    ffi::depict_svg(mol, compute_2d, &canvas, &atoms, &colours)
        .map_err(|e| failed(e.what().to_owned()))
}

impl Molecule {
    /// This molecule drawn by RDKit (laid out afresh by CoordGen) as an SVG document. A
    /// highlighted atom outside the molecule is a [`ChemError::Rdkit`] naming it.
    pub fn depict_svg(&self, options: &DepictOptions) -> Result<String, ChemError> {
        draw(self.raw(), true, options)
    }
}

impl Drawing {
    /// This drawing's molecule drawn by RDKit in this drawing's layout (the coordinates of
    /// [`Drawing::atoms`]), so highlight indices are those of `atoms`. A drawing without a
    /// layout ([`Molecule::graph`], or the empty default) is a [`ChemError::Rdkit`].
    pub fn depict_svg(&self, options: &DepictOptions) -> Result<String, ChemError> {
        if self.molblock.is_empty() {
            return Err(ChemError::Rdkit {
                operation: "depiction",
                reason: "this drawing has no 2D layout (make it with Molecule::drawing)".to_owned(),
            });
        }
        // Hydrogens kept as they are, so that the atoms keep their indices.
        let raw = ffi::parse_molblock(&self.molblock, false)
            .map_err(|e| ChemError::rdkit("depiction", &e))?;
        let mol = Molecule::from_raw(raw, "depiction")?;
        if mol.num_atoms() != self.atoms.len() {
            return Err(ChemError::Rdkit {
                operation: "depiction",
                reason: format!(
                    "the layout has {} atoms, the drawing {}",
                    mol.num_atoms(),
                    self.atoms.len()
                ),
            });
        }
        draw(mol.raw(), false, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The elements of `svg` that start with `<path class='{class}'` (exactly that class).
    fn paths_of_class<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
        let open = format!("<path class='{class}'");
        svg.match_indices(&open)
            .map(|(i, _)| {
                let rest = &svg[i..];
                &rest[..rest.find("/>").map_or(rest.len(), |e| e + 2)]
            })
            .collect()
    }

    /// Glyph outlines of atom `i`'s label (paths of class `atom-i` alone, filled).
    fn glyphs(svg: &str, i: usize) -> Vec<&str> {
        paths_of_class(svg, &format!("atom-{i}"))
            .into_iter()
            .filter(|p| p.contains(" fill='#"))
            .collect()
    }

    fn parses_as_svg(svg: &str, size: (f32, f32)) {
        let tree = resvg::usvg::Tree::from_str(svg, &resvg::usvg::Options::default())
            .unwrap_or_else(|e| panic!("usvg refuses the depiction: {e}\n{svg}"));
        assert_eq!((tree.size().width(), tree.size().height()), size);
    }

    #[test]
    fn depict_benzene_is_kekule_with_alternating_inner_double_bonds() {
        let svg = depict_smiles("c1ccccc1", &DepictOptions::new(300, 300)).unwrap();
        assert!(
            svg.contains("xmlns:rdkit='http://www.rdkit.org/xml'"),
            "{svg}"
        );
        parses_as_svg(&svg, (300.0, 300.0));
        // Ring bonds 0..5 in order: a Kekulé ring draws every other one with a second line.
        let lines: Vec<usize> = (0..6)
            .map(|k| svg.matches(&format!("<path class='bond-{k} atom-")).count())
            .collect();
        let doubles: Vec<usize> = (0..6).filter(|&k| lines[k] == 2).collect();
        assert!(
            doubles == [0, 2, 4] || doubles == [1, 3, 5],
            "lines per bond {lines:?}"
        );
        assert!(lines.iter().all(|&n| n == 1 || n == 2), "{lines:?}");
        // No labels on ring carbons.
        assert!((0..6).all(|i| glyphs(&svg, i).is_empty()));
    }

    #[test]
    fn depict_ethanol_labels_its_oxygen_oh_in_red() {
        let svg = depict_smiles("CCO", &DepictOptions::new(300, 200)).unwrap();
        parses_as_svg(&svg, (300.0, 200.0));
        // O and H as two red outlines; the carbons have no label.
        let oh = glyphs(&svg, 2);
        assert_eq!(oh.len(), 2, "{svg}");
        assert!(oh.iter().all(|g| g.contains("fill='#FF0000'")), "{oh:?}");
        assert!(glyphs(&svg, 0).is_empty() && glyphs(&svg, 1).is_empty());
        // An ether oxygen has no hydrogen: one outline.
        let ether = depict_smiles("CCOCC", &DepictOptions::new(300, 200)).unwrap();
        assert_eq!(glyphs(&ether, 2).len(), 1);
        // A triple bond is three lines.
        let nitrile = depict_smiles("CC#N", &DepictOptions::new(300, 200)).unwrap();
        assert_eq!(
            paths_of_class(&nitrile, "bond-1 atom-1 atom-2").len(),
            // Each line is split where the colour changes from carbon to nitrogen.
            6,
            "{nitrile}"
        );
    }

    #[test]
    fn depict_highlight_colours_atoms_and_the_bonds_between_them() {
        let blue = [31, 119, 180];
        let red = [214, 39, 40];
        let plain = depict_smiles("CCO", &DepictOptions::new(300, 200)).unwrap();
        assert!(!plain.contains("#1F77B4") && !plain.contains("#D62728"));
        let options = DepictOptions::new(300, 200)
            .highlight([0, 1], blue)
            .highlight([2], red);
        let svg = depict_smiles("CCO", &options).unwrap();
        parses_as_svg(&svg, (300.0, 200.0));
        let filled = |class: &str, colour: &str| {
            svg.lines()
                .any(|l| l.contains(&format!("class='{class}'")) && l.contains(colour))
        };
        assert!(filled("atom-0", "#1F77B4") && filled("atom-1", "#1F77B4"));
        assert!(filled("atom-2", "#D62728"));
        // Bond C–C joins two blue atoms; C–O joins blue to red and is not highlighted.
        assert!(filled("bond-0 atom-0 atom-1", "fill:#1F77B4"), "{svg}");
        assert!(!filled("bond-1 atom-1 atom-2", "fill:#"), "{svg}");
    }

    /// Length of bond 0's first line in `svg` (`M x,y L x,y`).
    fn first_bond_length(svg: &str) -> f64 {
        let path = paths_of_class(svg, "bond-0 atom-0 atom-1")[0];
        let d = &path[path.find("d='M ").unwrap() + 5..];
        let d = &d[..d.find('\'').unwrap()];
        let v: Vec<f64> = d
            .split([' ', ',', 'L'])
            .filter(|t| !t.is_empty())
            .map(|t| t.parse().unwrap())
            .collect();
        ((v[2] - v[0]).powi(2) + (v[3] - v[1]).powi(2)).sqrt()
    }

    #[test]
    fn depict_bond_length_caps_the_scale_so_molecules_share_it() {
        // Unbounded, ethane fills the picture; capped, its bond is the given length.
        let free = depict_smiles("CC", &DepictOptions::new(300, 300)).unwrap();
        let capped = depict_smiles("CC", &DepictOptions::new(300, 300).bond_length_px(30)).unwrap();
        assert!(
            first_bond_length(&free) > 100.0,
            "{}",
            first_bond_length(&free)
        );
        assert!((first_bond_length(&capped) - 30.0).abs() < 1.0, "{capped}");
    }

    #[test]
    fn depict_background_is_transparent_unless_white_is_asked() {
        let clear = depict_smiles("CCO", &DepictOptions::new(120, 90)).unwrap();
        assert!(!clear.contains("<rect"), "{clear}");
        let white = depict_smiles(
            "CCO",
            &DepictOptions::new(120, 90).background(Background::White),
        )
        .unwrap();
        assert!(
            white.contains("<rect") && white.contains("fill:#FFFFFF"),
            "{white}"
        );
        parses_as_svg(&white, (120.0, 90.0));
    }

    #[test]
    fn depict_drawing_keeps_the_atom_order_of_the_drawing() {
        // Canonical SMILES would reorder (OCC → CCO); the drawing's own order is kept, so
        // atom 0 (the oxygen) carries the OH label.
        let drawing = Molecule::from_smiles("OCC").unwrap().drawing().unwrap();
        assert_eq!(drawing.atoms[0].atomic_num, 8);
        let svg = drawing
            .depict_svg(&DepictOptions::new(200, 150).highlight([0], [255, 200, 0]))
            .unwrap();
        assert_eq!(glyphs(&svg, 0).len(), 2, "{svg}");
        assert!(svg.contains("#FFC800"));
        // Explicit hydrogens keep their place too.
        let with_h = Molecule::from_smiles("[2H]OC").unwrap().drawing().unwrap();
        assert_eq!(with_h.atoms.len(), 3);
        assert!(with_h.depict_svg(&DepictOptions::new(100, 100)).is_ok());
    }

    #[test]
    fn depict_errors_name_the_input() {
        match depict_smiles("C1CC(", &DepictOptions::new(100, 100)) {
            Err(ChemError::InvalidSmiles { smiles, .. }) => assert_eq!(smiles, "C1CC("),
            other => panic!("{other:?}"),
        }
        let m = Molecule::from_smiles("CCO").unwrap();
        let err = m
            .depict_svg(&DepictOptions::new(100, 100).highlight([7], [0, 0, 0]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("highlighted atom 7 is out of range (the molecule has 3 atoms)"),
            "{err}"
        );
        let err = m.depict_svg(&DepictOptions::new(0, 100)).unwrap_err();
        assert!(err.to_string().contains("0 × 100 px"), "{err}");
        let err = m.graph().unwrap().depict_svg(&DepictOptions::new(100, 100));
        assert!(
            err.unwrap_err().to_string().contains("no 2D layout"),
            "graph drawings have no layout"
        );
    }
}
