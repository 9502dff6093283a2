//! The NeuroTree engine calls the panel uses for reading data, gathered in one place.

use std::path::Path;

use benchtop_compute::ComputeError;
use benchtop_neurotree::dataset::Dataset;

use super::SeriesTime;

/// Reads every series file of `dir` (with its demographics and networks files).
pub fn load_folder(dir: &Path, time: SeriesTime) -> Result<Dataset, ComputeError> {
    let _ = (dir, time);
    Err(ComputeError::invalid(
        "folder",
        "reading folders needs the NeuroTree loaders, which are not in this build yet",
    ))
}

/// The bundled real resting-state sample.
pub fn real_sample() -> Result<Dataset, ComputeError> {
    Err(ComputeError::invalid(
        "source",
        "the real sample needs the NeuroTree loaders, which are not in this build yet",
    ))
}
