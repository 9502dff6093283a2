//! The run's per-observation arrays in the sidecar (NPY, exact), the rest in the project file.

use std::path::Path;

use benchtop_rcgp::RunResult;

/// The arrays stored, in row order, each of length T·n_s.
const ROWS: usize = 9;

/// The run without its per-observation arrays, the array shape and the arrays (row-major).
pub fn split_arrays(run: &RunResult) -> (RunResult, Vec<usize>, Vec<f64>) {
    let n = run.data.y.len();
    let outlier: Vec<f64> = run
        .data
        .outlier
        .iter()
        .map(|&o| if o { 1.0 } else { 0.0 })
        .collect();
    let mut arrays = Vec::with_capacity(ROWS * n);
    for row in [
        &run.data.y,
        &run.data.clean,
        &outlier,
        &run.stgp.mean,
        &run.stgp.var,
        &run.stgp.weight,
        &run.rcgp.mean,
        &run.rcgp.var,
        &run.rcgp.weight,
    ] {
        arrays.extend_from_slice(row);
    }
    let mut meta = run.clone();
    for v in [
        &mut meta.data.y,
        &mut meta.data.clean,
        &mut meta.stgp.mean,
        &mut meta.stgp.var,
        &mut meta.stgp.weight,
        &mut meta.rcgp.mean,
        &mut meta.rcgp.var,
        &mut meta.rcgp.weight,
    ] {
        v.clear();
    }
    meta.data.outlier.clear();
    (meta, vec![ROWS, n], arrays)
}

/// `meta` with the arrays read back from `path`.
pub fn with_arrays(meta: &RunResult, path: &Path) -> anyhow::Result<RunResult> {
    let (shape, values) = benchtop_compute::npy::read_npy_f64_file(path)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let n = meta.data.times.len() * meta.data.locations.len();
    anyhow::ensure!(
        shape == [ROWS, n],
        "{}: shape {shape:?}, expected [{ROWS}, {n}] for this run",
        path.display()
    );
    let row = |k: usize| values[k * n..(k + 1) * n].to_vec();
    let mut run = meta.clone();
    run.data.y = row(0);
    run.data.clean = row(1);
    run.data.outlier = row(2).iter().map(|&v| v > 0.5).collect();
    run.stgp.mean = row(3);
    run.stgp.var = row(4);
    run.stgp.weight = row(5);
    run.rcgp.mean = row(6);
    run.rcgp.var = row(7);
    run.rcgp.weight = row(8);
    Ok(run)
}
