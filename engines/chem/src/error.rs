//! The error type of the chemistry layer.

use thiserror::Error;

/// Everything that can go wrong in the chemistry layer. Invalid input is a value, never a crash.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChemError {
    /// A SMILES string RDKit cannot parse or sanitise; carries the input.
    #[error("invalid SMILES {smiles:?}: {reason}")]
    InvalidSmiles {
        /// The offending input.
        smiles: String,
        /// RDKit's message.
        reason: String,
    },
    /// A SMARTS pattern RDKit cannot parse; carries the input.
    #[error("invalid SMARTS {smarts:?}: {reason}")]
    InvalidSmarts {
        /// The offending pattern.
        smarts: String,
        /// RDKit's message.
        reason: String,
    },
    /// An RDKit operation failed on a parsed molecule.
    #[error("RDKit failed in {operation}: {reason}")]
    Rdkit {
        /// What was being computed.
        operation: &'static str,
        /// RDKit's message.
        reason: String,
    },
    /// Two fragments cannot be stitched (no BRICS-compatible attachment points).
    #[error("cannot stitch {a:?} and {b:?}: {reason}")]
    Stitch {
        /// First fragment (SMILES).
        a: String,
        /// Second fragment (SMILES).
        b: String,
        /// Why not.
        reason: String,
    },
    /// A problem with the shipped data (the SA fragment-score table).
    #[error("chemistry data: {0}")]
    Data(String),
    /// A SMILES refused before it reaches RDKit because it is longer than
    /// [`crate::mol::MAX_SMILES_CHARS`] (RDKit's parse time grows about cubically with length).
    #[error(
        "the SMILES is {} characters long; Benchtop reads SMILES up to {} characters",
        grouped(*.chars),
        grouped(crate::mol::MAX_SMILES_CHARS)
    )]
    SmilesTooLong {
        /// Its length in characters.
        chars: usize,
    },
    /// Input refused before it reaches RDKit because it holds a control character (a NUL would
    /// silently cut the text short in C++).
    #[error(
        "the {what} has a control character ({}) at {place}; Benchtop reads {what} as \
         printable text",
        control_name(*.character)
    )]
    ControlCharacter {
        /// `SMILES`, `SMARTS` or `mol block`.
        what: &'static str,
        /// The character.
        character: char,
        /// Where: `character 3` (1-based) or `line 5` of a mol block.
        place: String,
    },
    /// A mol block (SDF record) refused before it reaches RDKit because it declares more than
    /// [`crate::mol::MAX_MOLBLOCK_ATOMS`] atoms.
    #[error(
        "the mol block declares {} atoms; Benchtop reads molecules of up to {} atoms",
        grouped(*.atoms),
        grouped(crate::mol::MAX_MOLBLOCK_ATOMS)
    )]
    TooManyAtoms {
        /// The atom count of the block's counts line.
        atoms: usize,
    },
}

/// `n` with thousands separators: `10002` → `10,002`.
pub(crate) fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A control character as `NUL, U+0000` (its usual abbreviation where it has one) or `U+001F`.
fn control_name(c: char) -> String {
    let name = match c {
        '\0' => "NUL, ",
        '\t' => "TAB, ",
        '\n' => "LF, ",
        '\r' => "CR, ",
        '\u{1b}' => "ESC, ",
        '\u{7f}' => "DEL, ",
        _ => "",
    };
    format!("{name}U+{:04X}", u32::from(c))
}

impl ChemError {
    /// Wraps a C++ exception from the bridge as an [`ChemError::Rdkit`] error.
    pub(crate) fn rdkit(operation: &'static str, e: &cxx::Exception) -> Self {
        Self::Rdkit {
            operation,
            reason: e.what().to_owned(),
        }
    }
}
