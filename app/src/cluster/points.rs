//! The points table (`points.csv`) and the per-point result files (`results/p<point>.ron`).
//!
//! Numbers are written with Rust's shortest round-trip formatting and read back with the
//! standard parser, so a coordinate or an output read from a file is the same `f64`, bit for
//! bit, as the one written (NaN and infinities included, in RON).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;
use benchtop_kit::project::write_atomic;

use super::untrusted;
use benchtop_kit::sweep::SweepPoint;
use serde::{Deserialize, Serialize};

/// One row of the points table.
#[derive(Clone, Debug, PartialEq)]
pub struct TablePoint {
    /// The point's number in this job (0-based; names its result file).
    pub point: usize,
    /// The array task that computes it.
    pub task: usize,
    /// The repeat (0-based).
    pub repeat: u32,
    /// The seed the sweep derives for the repeat (checked by the task).
    pub seed: u64,
    /// The grid values, one per axis.
    pub coords: Vec<f64>,
}

/// Writes the table: header `point,task,repeat,seed,<axis keys>`.
pub fn write_table(path: &Path, axes: &[String], points: &[TablePoint]) -> anyhow::Result<()> {
    let mut text = format!("point,task,repeat,seed,{}\n", axes.join(","));
    for p in points {
        let coords: Vec<String> = p.coords.iter().map(f64::to_string).collect();
        text.push_str(&format!(
            "{},{},{},{},{}\n",
            p.point,
            p.task,
            p.repeat,
            p.seed,
            coords.join(",")
        ));
    }
    write_atomic(path, text.as_bytes()).with_context(|| format!("{}: cannot write", path.display()))
}

/// Reads the table written by [`write_table`] for `axes` axes; errors name the file and line.
pub fn read_table(path: &Path, axes: usize) -> anyhow::Result<Vec<TablePoint>> {
    let text = untrusted::read_text(path, untrusted::MAX_POINTS_BYTES)
        .with_context(|| format!("{}: cannot read the points table", path.display()))?
        .ok_or_else(|| anyhow::anyhow!("{}: no points table", path.display()))?;
    let mut points = Vec::new();
    for (index, line) in text.lines().enumerate().skip(1) {
        let at = || format!("{}:{}", path.display(), index + 1);
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != 4 + axes {
            anyhow::bail!(
                "{}: expected {} fields (point, task, repeat, seed and {axes} coordinates), found {}",
                at(),
                4 + axes,
                fields.len()
            );
        }
        let whole = |i: usize, name: &str| -> anyhow::Result<u64> {
            fields[i]
                .trim()
                .parse()
                .with_context(|| format!("{}: `{name}` is not a whole number", at()))
        };
        let coords = fields[4..]
            .iter()
            .map(|f| {
                f.trim()
                    .parse::<f64>()
                    .with_context(|| format!("{}: coordinate `{f}` is not a number", at()))
            })
            .collect::<anyhow::Result<Vec<f64>>>()?;
        points.push(TablePoint {
            point: usize::try_from(whole(0, "point")?)?,
            task: usize::try_from(whole(1, "task")?)?,
            repeat: u32::try_from(whole(2, "repeat")?)
                .with_context(|| format!("{}: repeat too large", at()))?,
            seed: whole(3, "seed")?,
            coords,
        });
    }
    Ok(points)
}

/// Where and how a point was computed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// `benchtop <version> (<commit>)`.
    pub binary: String,
    /// The binary's version.
    pub version: String,
    /// The binary's git commit.
    pub git_commit: String,
    /// The host that computed it.
    pub host: String,
    /// Seconds the evaluation took.
    pub seconds: f64,
    /// `SLURM_ARRAY_JOB_ID_SLURM_ARRAY_TASK_ID`, when run by Slurm.
    pub slurm_task: Option<String>,
    /// Seconds since the Unix epoch when it finished.
    pub finished_unix: u64,
}

/// One result file: the point, what it computed (or why it failed) and its provenance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointRecord {
    /// The point's number in the job.
    pub point: usize,
    /// The array task that computed it.
    pub task: usize,
    /// The computed point, as a local run records it.
    pub result: SweepPoint,
    /// Where and how.
    pub provenance: Provenance,
}

/// Writes a result file atomically: a reader sees no file or the whole record.
pub fn write_record(path: &Path, record: &PointRecord) -> anyhow::Result<()> {
    let text = ron::ser::to_string_pretty(record, ron::ser::PrettyConfig::default())
        .context("cannot encode the result")?;
    write_atomic(path, text.as_bytes()).with_context(|| format!("{}: cannot write", path.display()))
}

/// Reads a result file; `Ok(None)` when it does not exist.
pub fn read_record(path: &Path) -> anyhow::Result<Option<PointRecord>> {
    let Some(text) = untrusted::read_text(path, untrusted::MAX_RECORD_BYTES)? else {
        return Ok(None);
    };
    let record = ron::from_str(&text)
        .map_err(|error| anyhow::anyhow!("{}: not a result file: {error}", path.display()))?;
    Ok(Some(record))
}

/// Outputs by key, for the JSON reports (non-finite values as `null`).
pub fn outputs_json(outputs: &BTreeMap<String, f64>) -> serde_json::Value {
    outputs
        .iter()
        .map(|(key, value)| (key.clone(), serde_json::json!(value)))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_and_records_round_trip_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let awkward = [
            0.1 + 0.2,
            1.0 / 3.0,
            4.0 * (128.0_f64 / 4.0).ln().exp() / 7.0,
            1e-300,
        ];
        let points: Vec<TablePoint> = awkward
            .iter()
            .enumerate()
            .map(|(i, &x)| TablePoint {
                point: i,
                task: i / 2,
                repeat: 1,
                seed: u64::MAX - i as u64,
                coords: vec![x, -x],
            })
            .collect();
        let axes = vec!["mc.beta".to_owned(), "mc.size".to_owned()];
        let path = dir.path().join("points.csv");
        write_table(&path, &axes, &points).unwrap();
        assert_eq!(read_table(&path, 2).unwrap(), points);
        assert!(
            read_table(&path, 1)
                .unwrap_err()
                .to_string()
                .contains("points.csv:2")
        );

        let record = PointRecord {
            point: 3,
            task: 1,
            result: SweepPoint {
                coords: vec![awkward[0], awkward[2]],
                repeat: 0,
                seed: 7,
                outputs: BTreeMap::from([
                    ("a".to_owned(), awkward[1]),
                    ("nan".to_owned(), f64::NAN),
                    ("inf".to_owned(), f64::NEG_INFINITY),
                ]),
                error: None,
            },
            provenance: Provenance {
                binary: "benchtop".into(),
                version: "0".into(),
                git_commit: "x".into(),
                host: "h".into(),
                seconds: 0.5,
                slurm_task: None,
                finished_unix: 1,
            },
        };
        let file = dir.path().join("p.ron");
        write_record(&file, &record).unwrap();
        let back = read_record(&file).unwrap().unwrap();
        assert_eq!(back.result.coords, record.result.coords);
        assert_eq!(back.result.outputs["a"].to_bits(), awkward[1].to_bits());
        assert!(back.result.outputs["nan"].is_nan());
        assert_eq!(back.result.outputs["inf"], f64::NEG_INFINITY);
        assert!(read_record(&dir.path().join("none.ron")).unwrap().is_none());
    }
}
