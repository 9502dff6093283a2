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
