//! What the NeuroTree panel offers to sweeps: the trunk weight α and the number of levels,
//! against trunk sizes and the default-mode share of the level-1 trunk nodes.

use std::collections::BTreeMap;
use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_neurotree::cohort::DEFAULT_MODE;
use benchtop_neurotree::trunk::TrunkParams;

use super::explore::Pick;
use super::tree_tab::tree_base;
use super::{LoadedData, NeuroTreePanelParams};
use crate::sweep::{SweepEvaluator, SweepOutput, SweepParam, SweepSupport, as_count};

/// The sweep support for the current parameters and data.
pub(super) fn support(
    params: &NeuroTreePanelParams,
    data: Option<Arc<LoadedData>>,
) -> SweepSupport {
    #[allow(clippy::cast_precision_loss)]
    let params_list = vec![
        SweepParam::new(
            "trunk.alpha",
            "Trunk weight α",
            params.trunk.alpha,
            0.0,
            1.0,
            false,
        ),
        SweepParam::new(
            "trunk.max_path_order",
            "S (longest path counted)",
            params.trunk.max_path_order as f64,
            1.0,
            10.0,
            true,
        ),
    ];
    let outputs = vec![
        SweepOutput::new("trunk.level1_nodes", "Level-1 trunk nodes (all subjects)"),
        SweepOutput::new(
            "trunk.level1_dmn_fraction",
            "Default-mode share of level-1 trunk nodes",
        ),
    ];
    let fingerprint = format!("{:?}", (&params.data, params.trunk.levels));
    SweepSupport {
        params: params_list,
        outputs,
        evaluator: Arc::new(NeuroTreeEvaluator {
            trunk: params.trunk,
            data,
        }),
        fingerprint,
        references: Arc::new(|_, _, _, _| None),
    }
}

/// Re-runs the trunk search on the all-subjects tree for one sweep point.
struct NeuroTreeEvaluator {
    trunk: TrunkParams,
    data: Option<Arc<LoadedData>>,
}

impl NeuroTreeEvaluator {
    fn assign(&self, assignment: &BTreeMap<String, f64>) -> Result<TrunkParams, ComputeError> {
        let mut trunk = self.trunk;
        for (key, &value) in assignment {
            match key.as_str() {
                "trunk.alpha" => trunk.alpha = value,
                "trunk.max_path_order" => trunk.max_path_order = as_count(value),
                other => {
                    return Err(ComputeError::invalid(
                        other,
                        "not a parameter of the NeuroTree panel",
                    ));
                }
            }
        }
        Ok(trunk)
    }
}

impl SweepEvaluator for NeuroTreeEvaluator {
    fn evaluate(
        &self,
        assignment: &BTreeMap<String, f64>,
        _outputs: &[String],
        _seed: u64,
        _progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError> {
        let trunk = self.assign(assignment)?;
        let data = self.data.as_ref().ok_or_else(|| {
            ComputeError::invalid("data", "generate or load subjects before sweeping")
        })?;
        cancel.check()?;
        let d = &data.dataset;
        let explored = tree_base(d, Pick::AllSubjects)?.explore(trunk)?;
        let nodes = explored.trunks.level_nodes(1);
        let dmn = d
            .network_names
            .iter()
            .position(|n| n.to_lowercase().contains("default"))
            .unwrap_or(DEFAULT_MODE);
        let in_dmn = nodes
            .iter()
            .filter(|&&i| d.network_of_roi.get(i) == Some(&dmn))
            .count();
        #[allow(clippy::cast_precision_loss)]
        let values = BTreeMap::from([
            ("trunk.level1_nodes".to_owned(), nodes.len() as f64),
            (
                "trunk.level1_dmn_fraction".to_owned(),
                in_dmn as f64 / nodes.len().max(1) as f64,
            ),
        ]);
        Ok(values)
    }
}
