//! Running a sweep: the missing points, one after another, on the calling (worker) thread.

use std::collections::BTreeMap;

use benchtop_compute::rng::derive_seed;
use benchtop_compute::{CancelToken, ComputeError, Progress};

use super::{SweepDoc, SweepEvaluator, SweepPoint};

/// The (coords, repeat) pairs of the grid that have no result yet, in grid order.
pub fn missing_points(doc: &SweepDoc) -> Result<Vec<(Vec<f64>, u32)>, String> {
    let axes: Vec<Vec<f64>> = doc
        .axes
        .iter()
        .map(|axis| axis.grid.values())
        .collect::<Result<_, _>>()?;
    let mut grid: Vec<Vec<f64>> = vec![Vec::new()];
    for values in &axes {
        grid = grid
            .into_iter()
            .flat_map(|prefix| {
                values.iter().map(move |&v| {
                    let mut coords = prefix.clone();
                    coords.push(v);
                    coords
                })
            })
            .collect();
    }
    let mut missing = Vec::new();
    for coords in grid {
        for repeat in 0..doc.repeats {
            let done = doc.results.iter().any(|point| {
                point.repeat == repeat
                    && point.error.is_none()
                    && same_coords(&point.coords, &coords)
            });
            if !done {
                missing.push((coords.clone(), repeat));
            }
        }
    }
    Ok(missing)
}

fn same_coords(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0))
}

/// Computes one point of `doc`: the grid values `coords` (one per axis) and repeat `repeat`,
/// with the seed `derive_seed(doc.base_seed, repeat)`. A failed evaluation is a point with its
/// error; only cancellation is an `Err`. [`run_sweep`] and the cluster tasks
/// (`benchtop sweep run-task`) both compute points through it, so both give the same results.
pub fn evaluate_point(
    doc: &SweepDoc,
    evaluator: &dyn SweepEvaluator,
    coords: Vec<f64>,
    repeat: u32,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<SweepPoint, ComputeError> {
    let assignment: BTreeMap<String, f64> = doc
        .axes
        .iter()
        .zip(&coords)
        .map(|(axis, &value)| (axis.param.clone(), value))
        .collect();
    let seed = derive_seed(doc.base_seed, u64::from(repeat));
    match evaluator.evaluate(&assignment, &doc.outputs, seed, progress, cancel) {
        Ok(outputs) => Ok(SweepPoint {
            coords,
            repeat,
            seed,
            outputs: outputs
                .into_iter()
                .filter(|(key, _)| doc.outputs.contains(key))
                .collect(),
            error: None,
        }),
        Err(ComputeError::Cancelled) => Err(ComputeError::Cancelled),
        Err(error) => Ok(SweepPoint {
            coords,
            repeat,
            seed,
            outputs: BTreeMap::new(),
            error: Some(error.to_string()),
        }),
    }
}

/// Computes the missing points of `doc`, handing each to `on_point` as it completes.
///
/// A point that fails is recorded with its error and the sweep goes on; cancellation stops it
/// with `Err(Cancelled)` after the points already delivered.
pub fn run_sweep(
    doc: &SweepDoc,
    evaluator: &dyn SweepEvaluator,
    progress: &Progress,
    cancel: &CancelToken,
    mut on_point: impl FnMut(SweepPoint),
) -> Result<(), ComputeError> {
    let missing = missing_points(doc).map_err(|reason| ComputeError::invalid("sweep", reason))?;
    let total = missing.len();
    for (index, (coords, repeat)) in missing.into_iter().enumerate() {
        cancel.check()?;
        let (start, width) = (index as f64 / total as f64, 1.0 / total as f64);
        let point_progress = Progress::new();
        progress.set(start, format!("point {} of {total}", index + 1));
        let done = std::sync::atomic::AtomicBool::new(false);
        let point = std::thread::scope(|scope| {
            let watcher = scope.spawn(|| {
                while !done.load(std::sync::atomic::Ordering::Relaxed) {
                    progress.set_fraction(start + width * point_progress.fraction());
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
            });
            let point = evaluate_point(doc, evaluator, coords, repeat, &point_progress, cancel);
            done.store(true, std::sync::atomic::Ordering::Relaxed);
            // The watcher only loops on the flag; joining cannot fail unless it panicked.
            let _ = watcher.join();
            point
        })?;
        on_point(point);
    }
    progress.set(1.0, "done");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::{GridSpec, Spacing, SweepAxis};

    struct Square;
    impl SweepEvaluator for Square {
        fn evaluate(
            &self,
            assignment: &BTreeMap<String, f64>,
            _: &[String],
            _: u64,
            _: &Progress,
            _: &CancelToken,
        ) -> Result<BTreeMap<String, f64>, ComputeError> {
            let x = assignment["x"];
            if x < 0.0 {
                return Err(ComputeError::invalid("x", "negative"));
            }
            Ok(BTreeMap::from([
                ("y".to_owned(), x * x),
                ("z".to_owned(), 1.0),
            ]))
        }
    }

    fn doc() -> SweepDoc {
        SweepDoc {
            axes: vec![SweepAxis {
                param: "x".into(),
                grid: GridSpec::Range {
                    start: -1.0,
                    end: 2.0,
                    count: 4,
                    spacing: Spacing::Linear,
                },
            }],
            repeats: 2,
            outputs: vec!["y".into()],
            ..SweepDoc::default()
        }
    }

    #[test]
    fn computes_missing_points_only_and_records_failures() {
        let mut doc = doc();
        let mut points = Vec::new();
        run_sweep(
            &doc,
            &Square,
            &Progress::new(),
            &CancelToken::new(),
            |point| {
                points.push(point);
            },
        )
        .unwrap();
        assert_eq!(points.len(), 8);
        doc.results = points;
        let failed: Vec<_> = doc.results.iter().filter(|p| p.error.is_some()).collect();
        assert_eq!(failed.len(), 2, "x = -1 fails for both repeats");
        assert!(
            doc.results.iter().all(|p| !p.outputs.contains_key("z")),
            "only chosen outputs"
        );
        let two = doc.results.iter().find(|p| p.coords == vec![2.0]).unwrap();
        assert!((two.outputs["y"] - 4.0).abs() < 1e-12);
        // A second run retries only the failed points.
        assert_eq!(missing_points(&doc).unwrap().len(), 2);
        assert_ne!(
            doc.results[0].seed, doc.results[1].seed,
            "repeats get distinct seeds"
        );
    }

    #[test]
    fn cancellation_stops_the_sweep() {
        let doc = doc();
        let cancel = CancelToken::new();
        cancel.cancel();
        let mut calls = 0;
        let result = run_sweep(&doc, &Square, &Progress::new(), &cancel, |_| calls += 1);
        assert!(matches!(result, Err(ComputeError::Cancelled)));
        assert_eq!(calls, 0);
    }
}
