//! The cxx bridge to the project's C++ shim (`cpp/shim.{h,cc}`) over the system RDKit.
//!
//! Every fallible call returns `Result`: the shim turns RDKit's C++ exceptions (and null
//! results) into `std::runtime_error`, which cxx turns into [`cxx::Exception`]. Use the safe
//! wrapper in [`crate::mol`] instead of these functions.

#[cxx::bridge(namespace = "benchtop_rd")]
pub(crate) mod ffi {
    /// One atom as read from RDKit (coordinates are zero unless 2D layout was requested).
    #[derive(Debug, Clone, Copy, PartialEq)]
    struct AtomInfo {
        /// 2D x coordinate (RDKit depiction units, about 1.5 per bond).
        x: f64,
        /// 2D y coordinate.
        y: f64,
        /// Atomic number; 0 for a dummy (attachment point).
        atomic_num: u32,
        /// Isotope label; on BRICS dummies it is the environment type.
        isotope: u32,
        /// Formal charge.
        formal_charge: i32,
        /// Atom-map number (0 when unset).
        map_num: u32,
        /// Whether RDKit perceives the atom as aromatic.
        aromatic: bool,
        /// Total hydrogens on the atom (implicit and explicit).
        total_hs: u32,
    }

    /// One bond as read from RDKit.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct BondInfo {
        /// Index of the first atom.
        begin: u32,
        /// Index of the second atom.
        end: u32,
        /// 1 single, 2 double, 3 triple, 4 aromatic, 0 other.
        kind: u8,
    }

    /// The picture a depiction is drawn on.
    #[derive(Debug, Clone, Copy, PartialEq)]
    struct Canvas {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// White (else transparent) background.
        white_background: bool,
        /// Longest bond in pixels; not positive: the molecule fills the picture.
        bond_length_px: f64,
    }

    unsafe extern "C++" {
        include!("benchtop-chem/cpp/shim.h");

        /// RDKit's read-only molecule.
        #[namespace = "RDKit"]
        type ROMol;

        fn silence_logs();
        fn prefer_coordgen();
        fn parse_smiles(smiles: &str) -> Result<UniquePtr<ROMol>>;
        fn parse_smarts(smarts: &str) -> Result<UniquePtr<ROMol>>;
        fn parse_molblock(block: &str, remove_hs: bool) -> Result<UniquePtr<ROMol>>;
        fn to_smiles(mol: &ROMol) -> Result<String>;
        fn to_molblock(mol: &ROMol) -> Result<String>;
        fn num_atoms(mol: &ROMol) -> u32;
        fn amw(mol: &ROMol) -> Result<f64>;
        fn clogp(mol: &ROMol) -> Result<f64>;
        fn tpsa(mol: &ROMol) -> Result<f64>;
        fn num_hbd(mol: &ROMol) -> Result<u32>;
        fn num_rotatable_strict(mol: &ROMol) -> Result<u32>;
        fn num_spiro(mol: &ROMol) -> Result<u32>;
        fn num_bridgehead(mol: &ROMol) -> Result<u32>;
        fn num_macrocycles(mol: &ROMol) -> Result<u32>;
        fn num_chiral_centres(mol: &ROMol) -> Result<u32>;
        fn remove_hs(mol: &ROMol) -> Result<UniquePtr<ROMol>>;
        fn match_count(mol: &ROMol, query: &ROMol, max_matches: u32) -> Result<u32>;
        fn match_atoms(
            mol: &ROMol,
            query: &ROMol,
            max_matches: u32,
            atoms: &mut Vec<u32>,
        ) -> Result<()>;
        fn sssr_after_delete(mol: &ROMol, query: &ROMol) -> Result<u32>;
        fn morgan_counts(
            mol: &ROMol,
            radius: u32,
            ids: &mut Vec<u32>,
            counts: &mut Vec<u32>,
        ) -> Result<()>;
        fn morgan_bits(mol: &ROMol, radius: u32, n_bits: u32, on_bits: &mut Vec<u32>)
        -> Result<()>;
        fn atoms_and_bonds(
            mol: &ROMol,
            compute_2d: bool,
            atoms: &mut Vec<AtomInfo>,
            bonds: &mut Vec<BondInfo>,
        ) -> Result<String>;
        fn depict_svg(
            mol: &ROMol,
            compute_2d: bool,
            canvas: &Canvas,
            atoms: &[u32],
            colours: &[u32],
        ) -> Result<String>;
        fn brics_fragments(mol: &ROMol) -> Result<Vec<String>>;
        fn with_atom_maps(mol: &ROMol, indices: &[u32], maps: &[u32]) -> Result<UniquePtr<ROMol>>;
        fn zip_pair(a: &ROMol, b: &ROMol) -> Result<UniquePtr<ROMol>>;
        fn cap_dummies(mol: &ROMol) -> Result<UniquePtr<ROMol>>;
    }
}
