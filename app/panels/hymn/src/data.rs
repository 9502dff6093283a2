//! The graph set a run uses: generated from the parameters, read from the user's CSV, or drawn
//! from the MolStitch offline molecules.

use std::path::Path;

use benchtop_compute::ComputeError;
use benchtop_hymn::generate::{GraphSet, generate};
use benchtop_hymn::load::load_edge_list;
use benchtop_hymn::molecules::molecule_set;

use crate::params::{DataParams, Source};

/// Makes or reads the set (`project_dir` resolves a relative file path).
pub fn graph_set(
    data: &DataParams,
    seed: u64,
    project_dir: Option<&Path>,
) -> Result<GraphSet, ComputeError> {
    match data.source {
        Source::Generated => generate(&data.set, seed),
        Source::Molecules => molecule_set(&data.molecules, seed),
        Source::File => {
            if data.file.path.trim().is_empty() {
                return Err(ComputeError::invalid(
                    "data.file",
                    "choose an edge-list CSV (graph,source,target,label)",
                ));
            }
            load_edge_list(&data.file.resolve(project_dir), data.set.target)
                .map_err(|e| ComputeError::invalid("data.file", e))
        }
    }
}
