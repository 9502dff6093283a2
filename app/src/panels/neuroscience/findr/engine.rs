//! The FINDR engine API the panel uses, gathered in one place.
//!
//! TEMPORARY for the loader: reading and writing trial files (`load.rs`) is being written on
//! branch `findr-load`. Until it is merged, `load_trials` and `save_npz` here report that the
//! loader is missing (nothing is made up); after the merge they become re-exports.

use std::path::Path;

use benchtop_compute::ComputeError;
use benchtop_findr::trials::TrialSet;

pub use benchtop_findr::model::ModelConfig;
pub use benchtop_findr::pipeline::{AnalysisParams, FindrParams, fit};
pub use benchtop_findr::train::TrainParams;

/// Reads trials from an NPZ (FINDR layout) or CSV file.
pub fn load_trials(path: &Path, bin_s: f64) -> Result<TrialSet, ComputeError> {
    let _ = bin_s;
    Err(ComputeError::invalid(
        "file",
        format!(
            "{}: reading trial files is not in this build yet (loader pending)",
            path.display()
        ),
    ))
}

/// Writes trials in FINDR's NPZ layout.
pub fn save_npz(data: &TrialSet, path: &Path) -> Result<(), ComputeError> {
    let _ = data;
    Err(ComputeError::invalid(
        "file",
        format!(
            "{}: writing NPZ files is not in this build yet (loader pending)",
            path.display()
        ),
    ))
}
