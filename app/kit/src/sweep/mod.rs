//! Parameter sweeps: any numeric parameter of any panel over a 1-D or 2-D grid.
//!
//! A panel describes what can be swept ([`SweepSupport`]): its numeric parameters, its scalar
//! outputs and an evaluator that computes the outputs for one assignment of parameters and a
//! seed. The sweep ([`SweepDoc`]) is saved in the project with its results; running it again
//! computes only the points that are missing (or all of them if the panel's other parameters
//! changed since, which its fingerprint records).

mod aggregate;
mod csv_export;
mod grid;
mod remote;
mod run;
mod runs;
pub mod ui;

use std::collections::BTreeMap;
use std::sync::Arc;

use benchtop_compute::{CancelToken, ComputeError, Progress};
use serde::{Deserialize, Serialize};

pub use aggregate::{AggregatedPoint, aggregate};
pub use csv_export::to_csv;
pub use grid::{GridSpec, Spacing};
pub use remote::RemoteRunner;
pub use run::{evaluate_point, missing_points, run_sweep};
pub use runs::{SweepRun, start_sweep_run};

use crate::project::PaneId;

/// Suffix of an output's error estimate: an evaluator may return `"mc.binder_cumulant:error"`
/// next to `"mc.binder_cumulant"`; it is kept with the point and used as the error bar when a
/// sweep has one repeat (with several repeats, the spread over repeats is used).
pub const ERROR_SUFFIX: &str = ":error";

/// Computes a panel's scalar outputs for one grid point. Runs on a worker thread.
pub trait SweepEvaluator: Send + Sync {
    /// The `outputs` (by key) for the parameters `assignment` (key → value) and `seed`.
    /// Outputs not asked for may be omitted (so unneeded computations can be skipped).
    fn evaluate(
        &self,
        assignment: &BTreeMap<String, f64>,
        outputs: &[String],
        seed: u64,
        progress: &Progress,
        cancel: &CancelToken,
    ) -> Result<BTreeMap<String, f64>, ComputeError>;
}

/// A numeric parameter a sweep can vary.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepParam {
    /// The key, e.g. `mc.beta`.
    pub key: String,
    /// Sentence-case label, with units.
    pub label: String,
    /// The panel's current value (the default grid is centred on it).
    pub current: f64,
    /// Smallest value the panel accepts.
    pub min: f64,
    /// Largest value the panel accepts.
    pub max: f64,
    /// Whether only whole numbers make sense (lattice size, sample counts).
    pub integer: bool,
}

impl SweepParam {
    /// A parameter `key` shown as `label`, currently `current`, accepted in [`min`, `max`].
    pub fn new(key: &str, label: &str, current: f64, min: f64, max: f64, integer: bool) -> Self {
        Self {
            key: key.into(),
            label: label.into(),
            current,
            min,
            max,
            integer,
        }
    }
}

/// A swept value as a count (lattice sizes, steps): rounded, negative values as 0.
pub fn as_count(value: f64) -> usize {
    value.round().max(0.0) as usize
}

/// A scalar output a sweep can record.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepOutput {
    /// The key, e.g. `mc.binder_cumulant`.
    pub key: String,
    /// Sentence-case label.
    pub label: String,
}

impl SweepOutput {
    /// An output `key` shown as `label`.
    pub fn new(key: &str, label: &str) -> Self {
        Self {
            key: key.into(),
            label: label.into(),
        }
    }
}

/// An exact or analytic curve drawn with a sweep's results (e.g. Onsager's solution).
#[derive(Clone, Debug, PartialEq)]
pub struct ReferenceCurve {
    /// The swept parameter on the x axis.
    pub param: String,
    /// The output on the y axis.
    pub output: String,
    /// Legend label.
    pub label: String,
    /// The curve's points.
    pub points: Vec<(f64, f64)>,
}

impl ReferenceCurve {
    /// `f` sampled at 201 points over [`low`, `high`] (positive arguments and finite values
    /// only).
    pub fn sample(
        param: &str,
        output: &str,
        label: &str,
        low: f64,
        high: f64,
        f: &dyn Fn(f64) -> f64,
    ) -> Self {
        let points = (0..=200)
            .map(|i| low + (high - low) * f64::from(i) / 200.0)
            .filter(|&x| x > 0.0)
            .map(|x| (x, f(x)))
            .filter(|(_, y)| y.is_finite())
            .collect();
        Self {
            param: param.into(),
            output: output.into(),
            label: label.into(),
            points,
        }
    }
}

/// Gives the reference curve for (parameter, output) over [low, high], if there is one.
pub type ReferenceFn = Arc<dyn Fn(&str, &str, f64, f64) -> Option<ReferenceCurve> + Send + Sync>;

/// What a panel offers to the sweep machinery.
#[derive(Clone)]
pub struct SweepSupport {
    /// Parameters that can be swept.
    pub params: Vec<SweepParam>,
    /// Outputs that can be recorded.
    pub outputs: Vec<SweepOutput>,
    /// Computes outputs for one point from a snapshot of the panel's parameters.
    pub evaluator: Arc<dyn SweepEvaluator>,
    /// A digest of the panel parameters the sweep does not vary (results go stale when it
    /// changes).
    pub fingerprint: String,
    /// Curves to draw with the results, for the parameter range of the sweep.
    pub references: ReferenceFn,
}

impl std::fmt::Debug for SweepSupport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SweepSupport")
            .field("params", &self.params)
            .field("outputs", &self.outputs)
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

/// The most points (grid values × repeats) one sweep may have.
pub const MAX_POINTS: usize = 10_000;

/// One swept axis: a parameter key and its grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepAxis {
    /// The parameter key.
    pub param: String,
    /// The values.
    pub grid: GridSpec,
}

/// How a 2-D sweep is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TwoDimView {
    /// One line per value of the second parameter (e.g. one curve per lattice size).
    #[default]
    Lines,
    /// A heatmap over both parameters.
    Heatmap,
}

/// A computed point of a sweep.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SweepPoint {
    /// The parameter values, one per axis.
    pub coords: Vec<f64>,
    /// Which repeat (0-based).
    pub repeat: u32,
    /// The seed used.
    pub seed: u64,
    /// Output values by key.
    pub outputs: BTreeMap<String, f64>,
    /// Why the point failed, if it did.
    pub error: Option<String>,
}

/// A sweep as saved in a project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SweepDoc {
    /// A name for tables, files and the legend.
    pub name: String,
    /// The panel it belongs to.
    pub pane: PaneId,
    /// One or two axes.
    pub axes: Vec<SweepAxis>,
    /// Repeats per grid point, each with its own seed.
    pub repeats: u32,
    /// Seeds are derived from this one (repeat r uses `derive_seed(base_seed, r)`).
    pub base_seed: u64,
    /// Output keys to record.
    pub outputs: Vec<String>,
    /// The panel fingerprint the results were computed with.
    pub fingerprint: String,
    /// Computed points.
    pub results: Vec<SweepPoint>,
    /// How a 2-D sweep is drawn.
    pub view: TwoDimView,
}

impl Default for SweepDoc {
    fn default() -> Self {
        Self {
            name: "sweep".to_owned(),
            pane: PaneId(0),
            axes: Vec::new(),
            repeats: 1,
            base_seed: 1,
            outputs: Vec::new(),
            fingerprint: String::new(),
            results: Vec::new(),
            view: TwoDimView::Lines,
        }
    }
}

impl SweepDoc {
    /// Checks axes, repeats and outputs against what the panel supports.
    pub fn validate(&self, support: &SweepSupport) -> Result<(), String> {
        if self.axes.is_empty() || self.axes.len() > 2 {
            return Err(format!(
                "sweep `{}`: choose one or two parameters",
                self.name
            ));
        }
        if self.repeats == 0 || self.repeats > 1000 {
            return Err(format!(
                "sweep `{}`: repeats must be between 1 and 1000",
                self.name
            ));
        }
        if self.outputs.is_empty() {
            return Err(format!(
                "sweep `{}`: choose at least one output to record",
                self.name
            ));
        }
        // Counted before any grid is made, so that an absurd count is refused, not allocated.
        let points = self
            .axes
            .iter()
            .try_fold(self.repeats as usize, |n, axis| {
                n.checked_mul(axis.grid.len())
            })
            .unwrap_or(usize::MAX);
        if points > MAX_POINTS {
            return Err(format!(
                "sweep `{}` has {points} points; keep it under {MAX_POINTS}",
                self.name
            ));
        }
        if let [first, second] = self.axes.as_slice()
            && first.param == second.param
        {
            return Err(format!(
                "sweep `{}`: both axes vary `{}`; choose two different parameters",
                self.name, first.param
            ));
        }
        for axis in &self.axes {
            let Some(param) = support.params.iter().find(|p| p.key == axis.param) else {
                return Err(format!(
                    "sweep `{}`: unknown parameter `{}`",
                    self.name, axis.param
                ));
            };
            let values = axis
                .grid
                .values()
                .map_err(|e| format!("sweep `{}`, `{}`: {e}", self.name, axis.param))?;
            if let Some(bad) = values.iter().find(|&&v| v < param.min || v > param.max) {
                return Err(format!(
                    "sweep `{}`: `{}` = {bad} is outside [{}, {}]",
                    self.name, axis.param, param.min, param.max
                ));
            }
            // A whole-number parameter would compute with the value rounded while the table
            // reported it unrounded.
            if param.integer
                && let Some(bad) = values.iter().find(|v| v.fract() != 0.0)
            {
                return Err(format!(
                    "sweep `{}`: `{}` takes whole numbers, and {bad} is not one (list whole \
                     numbers, or choose a range whose points are whole)",
                    self.name, axis.param
                ));
            }
        }
        for output in &self.outputs {
            if !support.outputs.iter().any(|o| &o.key == output) {
                return Err(format!("sweep `{}`: unknown output `{output}`", self.name));
            }
        }
        Ok(())
    }

    /// Checks what a project file holds beyond the panel's support: every saved point has one
    /// finite coordinate per axis. On failure, the key (e.g. `results[3].coords`) and why.
    pub fn check_saved(&self) -> Result<(), (String, String)> {
        for (index, point) in self.results.iter().enumerate() {
            if point.coords.len() != self.axes.len() {
                return Err((
                    format!("results[{index}].coords"),
                    format!(
                        "the point has {} coordinates but the sweep has {} axes",
                        point.coords.len(),
                        self.axes.len()
                    ),
                ));
            }
            if point.coords.iter().any(|c| !c.is_finite()) {
                return Err((
                    format!("results[{index}].coords"),
                    "a coordinate is not a finite number".to_owned(),
                ));
            }
        }
        Ok(())
    }

    /// Whether the stored results were computed with the panel's current other parameters.
    pub fn is_current(&self, support: &SweepSupport) -> bool {
        self.fingerprint == support.fingerprint
    }
}
