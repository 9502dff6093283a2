//! Reading and writing trials in FINDR's layout: NumPy `.npz` archives and a CSV layout.
//!
//! **NPZ** (FINDR's own layout, as written by `np.savez`), with B trials, T bins and N neurons:
//!
//! | array            | shape       | contents                                                 |
//! |------------------|-------------|----------------------------------------------------------|
//! | `spikes`         | `[B, T, N]` | spike counts per bin (any integer or float dtype)        |
//! | `externalinputs` | `[B, T, 2]` | left and right clicks per bin                            |
//! | `lengths`        | `[B]`       | valid bins of each trial, 1 ≤ length ≤ T (int or float)  |
//! | `times`          | `[B]`       | start time of each trial in the session, s               |
//! | `choices`        | `[B]`       | optional: the animal's choice, 0/1 or bool (1 = right)   |
//!
//! Archives written by `np.savez` (stored) and `np.savez_compressed` (deflate) are both read.
//!
//! **CSV**: a header row, then one row per valid (trial, bin):
//!
//! ```text
//! trial,bin,time_s,left,right,n0,n1,n2,choice
//! 0,0,0.0,1,0,0,2,1,1
//! 0,1,0.0,0,0,1,0,0,1
//! 1,0,6.0,0,1,0,0,3,0
//! ```
//!
//! - The first five columns are `trial`, `bin`, `time_s`, `left`, `right`, in this order.
//! - Every later column is one neuron's spike count, in column order, whatever its name,
//!   except a column named `choice` (0/1 or true/false, 1 = right), which is optional.
//! - `trial` is a non-negative integer; trials are ordered by it (the numbers need not be
//!   contiguous). `bin` counts from 0; each trial's bins must run 0, 1, …, L−1 (any row order)
//!   and L is the trial's length. `time_s` (the trial's start time in the session, s) and
//!   `choice` repeat on every row of a trial and must agree.
//!
//! Every check reports the file and the place: the array and its expected shape, or the
//! (trial, bin, neuron) of a bad value, or the CSV line and column. Bins past a trial's length
//! are zeroed on reading.

use benchtop_compute::files;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use ndarray::{Array1, Array3};
use ndarray_npy::NpzWriter;

use benchtop_compute::ComputeError;
use benchtop_compute::npy::{self, NpyError, Npz};

use crate::trials::TrialSet;

/// Names of the arrays in FINDR's NPZ layout.
const SPIKES: &str = "spikes";
const INPUTS: &str = "externalinputs";
const LENGTHS: &str = "lengths";
const TIMES: &str = "times";
const CHOICES: &str = "choices";

/// The first five CSV columns, in order.
const CSV_FIXED_COLUMNS: [&str; 5] = ["trial", "bin", "time_s", "left", "right"];
/// The optional CSV choice column.
const CSV_CHOICE_COLUMN: &str = "choice";

/// Reads trials from `path`, a FINDR `.npz` archive or a `.csv` file (see the module docs for
/// both layouts), with bin width `bin_s` seconds.
pub fn load_trials(path: &Path, bin_s: f64) -> Result<TrialSet, ComputeError> {
    if !(bin_s.is_finite() && bin_s > 0.0) {
        return Err(ComputeError::invalid(
            "bin_s",
            "the bin width must be a positive number of seconds",
        ));
    }
    match extension(path).as_deref() {
        Some("npz") => load_npz(path, bin_s),
        Some("csv") => load_csv(path, bin_s),
        _ => Err(file_error(
            path,
            "unsupported file type: trials are read from FINDR's NumPy layout (.npz) or CSV (.csv)",
        )),
    }
}

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// An error about the whole file, keyed `file`, whose message starts with the path.
fn file_error(path: &Path, why: impl AsRef<str>) -> ComputeError {
    ComputeError::invalid("file", format!("{}: {}", path.display(), why.as_ref()))
}

/// An error about one array of an NPZ archive.
fn array_error(path: &Path, array: &str, why: impl AsRef<str>) -> ComputeError {
    file_error(path, format!("array `{array}` {}", why.as_ref()))
}

// ---------------------------------------------------------------------------------------------
// NPZ.

/// An array of any real, integer or boolean dtype, as f64.
struct Numbers {
    shape: Vec<usize>,
    values: Vec<f64>,
}

/// Reads array `name` of any numeric or boolean dtype, stored or deflate-compressed.
fn read_numbers(archive: &Npz<'_>, path: &Path, name: &str) -> Result<Numbers, ComputeError> {
    match archive.read_f64(name) {
        Ok((shape, values)) => Ok(Numbers { shape, values }),
        Err(NpyError::UnsupportedDtype(dtype)) => Err(array_error(
            path,
            name,
            format!("has an unsupported dtype {dtype}: use a float, integer or bool array"),
        )),
        Err(error @ NpyError::ObjectArray) => Err(array_error(
            path,
            name,
            format!("has an unsupported dtype: {error}; use a float, integer or bool array"),
        )),
        Err(error) => Err(array_error(
            path,
            name,
            format!("could not be read: {error}"),
        )),
    }
}

fn shape_text(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(ToString::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// Checks that `numbers` has exactly `expected` as its shape; `meaning` names the axes.
fn check_shape(
    path: &Path,
    name: &str,
    numbers: &Numbers,
    expected: &[usize],
    meaning: &str,
) -> Result<(), ComputeError> {
    if numbers.shape == expected {
        return Ok(());
    }
    Err(array_error(
        path,
        name,
        format!(
            "has shape {}, expected {} ({meaning})",
            shape_text(&numbers.shape),
            shape_text(expected)
        ),
    ))
}

/// A valid bin count from a float: a whole number in 1..=max_bins.
fn length_of(
    path: &Path,
    trial: usize,
    value: f64,
    max_bins: usize,
) -> Result<usize, ComputeError> {
    let max = max_bins as f64;
    if !(value.is_finite() && value.fract() == 0.0 && (1.0..=max).contains(&value)) {
        return Err(array_error(
            path,
            LENGTHS,
            format!(
                "has {value} for trial {trial}: a length must be a whole number of bins from 1 to \
                 T = {max_bins} (the bins axis of `spikes`)"
            ),
        ));
    }
    Ok(value as usize)
}

/// A choice from 0/1 (or a bool read as 0/1).
fn choice_of(value: f64) -> Option<bool> {
    if value == 0.0 {
        Some(false)
    } else if value == 1.0 {
        Some(true)
    } else {
        None
    }
}

/// Reads a FINDR `.npz` archive (see the module docs).
pub fn load_npz(path: &Path, bin_s: f64) -> Result<TrialSet, ComputeError> {
    let bytes = npy::read_file(path).map_err(|e| file_error(path, e.to_string()))?;
    let archive = Npz::parse(&bytes).map_err(|e| file_error(path, e.to_string()))?;
    let names = archive.names();
    let required = [SPIKES, INPUTS, LENGTHS, TIMES];
    for name in required {
        if !names.iter().any(|n| n == name) {
            let found = if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            };
            return Err(array_error(
                path,
                name,
                format!(
                    "is missing (found: {found}); FINDR's layout needs spikes [trials, bins, \
                     neurons], externalinputs [trials, bins, 2], lengths [trials], times [trials] \
                     and optionally choices [trials]"
                ),
            ));
        }
    }

    let spikes = read_numbers(&archive, path, SPIKES)?;
    let &[n_trials, max_bins, n_neurons] = spikes.shape.as_slice() else {
        return Err(array_error(
            path,
            SPIKES,
            format!(
                "has shape {}, expected 3 axes [trials, bins, neurons]",
                shape_text(&spikes.shape)
            ),
        ));
    };
    if n_trials == 0 || max_bins == 0 || n_neurons == 0 {
        return Err(array_error(
            path,
            SPIKES,
            format!(
                "has shape {}: it needs at least one trial, one bin and one neuron",
                shape_text(&spikes.shape)
            ),
        ));
    }
    let inputs = read_numbers(&archive, path, INPUTS)?;
    check_shape(
        path,
        INPUTS,
        &inputs,
        &[n_trials, max_bins, 2],
        "trials × bins × 2",
    )?;
    let lengths = read_numbers(&archive, path, LENGTHS)?;
    check_shape(path, LENGTHS, &lengths, &[n_trials], "one per trial")?;
    let times = read_numbers(&archive, path, TIMES)?;
    check_shape(path, TIMES, &times, &[n_trials], "one per trial")?;
    let choices = if names.iter().any(|n| n == CHOICES) {
        let choices = read_numbers(&archive, path, CHOICES)?;
        check_shape(path, CHOICES, &choices, &[n_trials], "one per trial")?;
        Some(choices)
    } else {
        None
    };

    let lengths = lengths
        .values
        .iter()
        .enumerate()
        .map(|(trial, &v)| length_of(path, trial, v, max_bins))
        .collect::<Result<Vec<_>, _>>()?;
    for (trial, &t) in times.values.iter().enumerate() {
        if !t.is_finite() {
            return Err(array_error(
                path,
                TIMES,
                format!("has {t} for trial {trial}: start times must be finite seconds"),
            ));
        }
    }
    let choices = match choices {
        None => None,
        Some(choices) => Some(
            choices
                .values
                .iter()
                .enumerate()
                .map(|(trial, &v)| {
                    choice_of(v).ok_or_else(|| {
                        array_error(
                            path,
                            CHOICES,
                            format!("has {v} for trial {trial}: a choice is 0 (left) or 1 (right)"),
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };

    let mut spike_counts = vec![0.0f32; n_trials * max_bins * n_neurons];
    let mut clicks = vec![0.0f32; n_trials * max_bins * 2];
    for (trial, &length) in lengths.iter().enumerate() {
        for bin in 0..max_bins {
            let cell = trial * max_bins + bin;
            let padding = bin >= length;
            for neuron in 0..n_neurons {
                let i = cell * n_neurons + neuron;
                let y = spikes.values[i];
                let place = || format!("trial {trial}, bin {bin}, neuron {neuron}");
                if y.is_nan() {
                    return Err(array_error(path, SPIKES, format!("has NaN at {}", place())));
                }
                if padding {
                    continue;
                }
                if !(y.is_finite() && y >= 0.0 && y.fract() == 0.0) {
                    return Err(array_error(
                        path,
                        SPIKES,
                        format!("has {y} at {}: counts must be whole numbers ≥ 0", place()),
                    ));
                }
                spike_counts[i] = y as f32;
            }
            for side in 0..2 {
                let v = inputs.values[2 * cell + side];
                let label = ["left", "right"][side];
                let place = || format!("trial {trial}, bin {bin}, {label}");
                if v.is_nan() {
                    return Err(array_error(path, INPUTS, format!("has NaN at {}", place())));
                }
                if padding {
                    continue;
                }
                if !(v.is_finite() && v >= 0.0) {
                    return Err(array_error(
                        path,
                        INPUTS,
                        format!("has {v} at {}: inputs must be finite and ≥ 0", place()),
                    ));
                }
                clicks[2 * cell + side] = v as f32;
            }
        }
    }

    Ok(TrialSet {
        n_trials,
        max_bins,
        n_neurons,
        bin_s,
        spikes: spike_counts,
        inputs: clicks,
        lengths,
        times_s: times.values,
        choices,
    })
}

/// Writes `data` as a FINDR `.npz` archive (uncompressed, as `np.savez` does): `spikes` and
/// `externalinputs` as float32, `lengths` as int64, `times` as float64 and, when known,
/// `choices` as int64 0/1.
pub fn save_npz(data: &TrialSet, path: &Path) -> Result<(), ComputeError> {
    check_consistent(data)?;
    let (b, t, n) = (data.n_trials, data.max_bins, data.n_neurons);
    let write_error = |e: &dyn std::fmt::Display| file_error(path, format!("cannot write: {e}"));
    let spikes =
        Array3::from_shape_vec((b, t, n), data.spikes.clone()).map_err(|e| write_error(&e))?;
    let inputs =
        Array3::from_shape_vec((b, t, 2), data.inputs.clone()).map_err(|e| write_error(&e))?;
    let lengths = data
        .lengths
        .iter()
        .map(|&l| i64::try_from(l).map_err(|e| write_error(&e)))
        .collect::<Result<Array1<i64>, _>>()?;
    let times = Array1::from(data.times_s.clone());
    let file = File::create(path).map_err(|e| write_error(&e))?;
    let mut writer = NpzWriter::new(BufWriter::new(file));
    writer
        .add_array(SPIKES, &spikes)
        .map_err(|e| write_error(&e))?;
    writer
        .add_array(INPUTS, &inputs)
        .map_err(|e| write_error(&e))?;
    writer
        .add_array(LENGTHS, &lengths)
        .map_err(|e| write_error(&e))?;
    writer
        .add_array(TIMES, &times)
        .map_err(|e| write_error(&e))?;
    if let Some(choices) = &data.choices {
        let choices: Array1<i64> = choices.iter().map(|&c| i64::from(c)).collect();
        writer
            .add_array(CHOICES, &choices)
            .map_err(|e| write_error(&e))?;
    }
    writer.finish().map_err(|e| write_error(&e))?;
    Ok(())
}

/// Checks that the arrays of `data` have the sizes its counts imply.
fn check_consistent(data: &TrialSet) -> Result<(), ComputeError> {
    let (b, t, n) = (data.n_trials, data.max_bins, data.n_neurons);
    let ok = data.spikes.len() == b * t * n
        && data.inputs.len() == b * t * 2
        && data.lengths.len() == b
        && data.times_s.len() == b
        && data.choices.as_ref().is_none_or(|c| c.len() == b)
        && data.lengths.iter().all(|&l| l <= t);
    if ok {
        Ok(())
    } else {
        Err(ComputeError::invalid(
            "trials",
            "the trial arrays do not match their stated sizes",
        ))
    }
}

// ---------------------------------------------------------------------------------------------
// CSV.

/// One trial gathered from CSV rows.
#[derive(Default)]
struct CsvTrial {
    /// Bin → (line, counts, [left, right]).
    bins: BTreeMap<usize, (u64, Vec<f32>, [f32; 2])>,
    /// (line of first appearance, value).
    time_s: Option<(u64, f64)>,
    choice: Option<(u64, bool)>,
}

/// Reads trials from the CSV layout of the module docs.
pub fn load_csv(path: &Path, bin_s: f64) -> Result<TrialSet, ComputeError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(std::io::Cursor::new(files::read_bytes(
            path,
            files::MAX_DATA_BYTES,
        )?));
    let header = reader
        .headers()
        .map_err(|e| file_error(path, format!("cannot read the header: {e}")))?
        .clone();
    let columns: Vec<String> = header.iter().map(str::to_owned).collect();
    for (i, expected) in CSV_FIXED_COLUMNS.iter().enumerate() {
        if columns.get(i).map(String::as_str) != Some(*expected) {
            return Err(file_error(
                path,
                format!(
                    "line 1: column {} must be `{expected}`; the header starts \
                     trial,bin,time_s,left,right and continues with one count column per \
                     neuron (and optionally `choice`), found `{}`",
                    i + 1,
                    header.iter().collect::<Vec<_>>().join(",")
                ),
            ));
        }
    }
    let choice_column = columns
        .iter()
        .enumerate()
        .skip(CSV_FIXED_COLUMNS.len())
        .find(|(_, c)| c.as_str() == CSV_CHOICE_COLUMN)
        .map(|(i, _)| i);
    let neuron_columns: Vec<usize> = (CSV_FIXED_COLUMNS.len()..columns.len())
        .filter(|&i| Some(i) != choice_column)
        .collect();
    if neuron_columns.is_empty() {
        return Err(file_error(
            path,
            "line 1: no neuron columns after `right` (one spike-count column per neuron)",
        ));
    }

    let mut trials: BTreeMap<u64, CsvTrial> = BTreeMap::new();
    for record in reader.records() {
        let record = record.map_err(|e| csv_error(path, &e))?;
        let line = record.position().map_or(0, csv::Position::line);
        let cell = |i: usize| -> Result<f64, ComputeError> {
            let text = record.get(i).unwrap_or("");
            text.parse::<f64>().map_err(|_| {
                file_error(
                    path,
                    format!(
                        "line {line}, column `{}`: `{text}` is not a number",
                        columns[i]
                    ),
                )
            })
        };
        let bad = |i: usize, why: &str| {
            file_error(path, format!("line {line}, column `{}`: {why}", columns[i]))
        };
        let whole = |i: usize, what: &str| -> Result<u64, ComputeError> {
            let v = cell(i)?;
            if v.is_finite() && v >= 0.0 && v.fract() == 0.0 && v < 9.0e15 {
                Ok(v as u64)
            } else {
                Err(bad(i, &format!("{v} is not a {what} (a whole number ≥ 0)")))
            }
        };
        let trial_id = whole(0, "trial number")?;
        let bin = usize::try_from(whole(1, "bin number")?)
            .map_err(|_| bad(1, "the bin number is too large"))?;
        if bin >= 1_000_000 {
            return Err(bad(1, "the bin number is too large (at most 999999)"));
        }
        let time_s = cell(2)?;
        if !time_s.is_finite() {
            return Err(bad(2, "the trial start time must be finite"));
        }
        let mut clicks = [0.0f32; 2];
        for (side, slot) in clicks.iter_mut().enumerate() {
            let v = cell(3 + side)?;
            if !(v.is_finite() && v >= 0.0) {
                return Err(bad(
                    3 + side,
                    &format!("{v}: inputs must be finite and ≥ 0"),
                ));
            }
            *slot = v as f32;
        }
        let mut counts = Vec::with_capacity(neuron_columns.len());
        for &i in &neuron_columns {
            let y = cell(i)?;
            if !(y.is_finite() && y >= 0.0 && y.fract() == 0.0) {
                return Err(bad(i, &format!("{y}: counts must be whole numbers ≥ 0")));
            }
            counts.push(y as f32);
        }
        let choice = match choice_column {
            None => None,
            Some(i) => {
                let text = record.get(i).unwrap_or("");
                let value = match text.to_ascii_lowercase().as_str() {
                    "1" | "1.0" | "true" => true,
                    "0" | "0.0" | "false" => false,
                    _ => {
                        return Err(bad(
                            i,
                            &format!("`{text}` is not a choice (0 or 1, false or true)"),
                        ));
                    }
                };
                Some(value)
            }
        };

        let trial = trials.entry(trial_id).or_default();
        match trial.time_s {
            None => trial.time_s = Some((line, time_s)),
            Some((first, t)) if t.to_bits() != time_s.to_bits() => {
                return Err(bad(
                    2,
                    &format!(
                        "trial {trial_id} starts at {t} s on line {first} but {time_s} s here \
                         (time_s is the trial's start time, the same on all its rows)"
                    ),
                ));
            }
            Some(_) => {}
        }
        if let (Some(i), Some(value)) = (choice_column, choice) {
            match trial.choice {
                None => trial.choice = Some((line, value)),
                Some((first, c)) if c != value => {
                    return Err(bad(
                        i,
                        &format!(
                            "trial {trial_id} has choice {} on line {first} but {} here",
                            u8::from(c),
                            u8::from(value)
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        if let Some((first, _, _)) = trial.bins.get(&bin) {
            return Err(bad(
                1,
                &format!("trial {trial_id}, bin {bin} already appears on line {first}"),
            ));
        }
        trial.bins.insert(bin, (line, counts, clicks));
    }

    if trials.is_empty() {
        return Err(file_error(path, "no data rows after the header"));
    }
    let n_trials = trials.len();
    let n_neurons = neuron_columns.len();
    let mut lengths = Vec::with_capacity(n_trials);
    for (&id, trial) in &trials {
        let length = trial.bins.len();
        if let Some((&last, _)) = trial.bins.last_key_value()
            && last + 1 != length
        {
            let missing = (0..=last)
                .find(|b| !trial.bins.contains_key(b))
                .unwrap_or(0);
            return Err(file_error(
                path,
                format!(
                    "trial {id} has no row for bin {missing}: each trial's bins run 0, 1, …, \
                     length − 1 (its last bin is {last})"
                ),
            ));
        }
        lengths.push(length);
    }
    let max_bins = lengths.iter().copied().max().unwrap_or(0);
    let mut spikes = vec![0.0f32; n_trials * max_bins * n_neurons];
    let mut inputs = vec![0.0f32; n_trials * max_bins * 2];
    let mut times_s = Vec::with_capacity(n_trials);
    let mut choices = Vec::with_capacity(n_trials);
    for (index, trial) in trials.values().enumerate() {
        for (&bin, (_, counts, clicks)) in &trial.bins {
            let cell = index * max_bins + bin;
            spikes[cell * n_neurons..(cell + 1) * n_neurons].copy_from_slice(counts);
            inputs[2 * cell..2 * cell + 2].copy_from_slice(clicks);
        }
        times_s.push(trial.time_s.map_or(0.0, |(_, t)| t));
        choices.push(trial.choice.is_some_and(|(_, c)| c));
    }

    Ok(TrialSet {
        n_trials,
        max_bins,
        n_neurons,
        bin_s,
        spikes,
        inputs,
        lengths,
        times_s,
        choices: choice_column.map(|_| choices),
    })
}

/// A CSV reading error with its line.
fn csv_error(path: &Path, error: &csv::Error) -> ComputeError {
    match error.kind() {
        csv::ErrorKind::UnequalLengths {
            pos: Some(pos),
            expected_len,
            len,
        } => file_error(
            path,
            format!(
                "line {}: the row has {len} fields, the header has {expected_len}",
                pos.line()
            ),
        ),
        _ => file_error(path, error.to_string()),
    }
}

/// Writes `data` in the CSV layout of the module docs: one row per valid (trial, bin), neuron
/// columns `n0`, `n1`, …, and a `choice` column last when choices are known.
pub fn save_csv(data: &TrialSet, path: &Path) -> Result<(), ComputeError> {
    check_consistent(data)?;
    let write_error = |e: &dyn std::fmt::Display| file_error(path, format!("cannot write: {e}"));
    let mut writer = csv::Writer::from_path(path).map_err(|e| write_error(&e))?;
    let mut header: Vec<String> = CSV_FIXED_COLUMNS.iter().map(|c| (*c).to_owned()).collect();
    header.extend((0..data.n_neurons).map(|n| format!("n{n}")));
    if data.choices.is_some() {
        header.push(CSV_CHOICE_COLUMN.to_owned());
    }
    writer.write_record(&header).map_err(|e| write_error(&e))?;
    let mut row: Vec<String> = Vec::with_capacity(header.len());
    for trial in 0..data.n_trials {
        for bin in 0..data.lengths[trial] {
            row.clear();
            row.push(trial.to_string());
            row.push(bin.to_string());
            row.push(data.times_s[trial].to_string());
            let [left, right] = data.input(trial, bin);
            row.push(left.to_string());
            row.push(right.to_string());
            for neuron in 0..data.n_neurons {
                row.push(data.spike(trial, bin, neuron).to_string());
            }
            if let Some(choices) = &data.choices {
                row.push(u8::from(choices[trial]).to_string());
            }
            writer.write_record(&row).map_err(|e| write_error(&e))?;
        }
    }
    writer.flush().map_err(|e| write_error(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{SyntheticParams, generate};
    use benchtop_compute::{CancelToken, Progress};
    use ndarray::{Array2, array};

    fn synthetic() -> TrialSet {
        let params = SyntheticParams {
            n_trials: 9,
            n_neurons: 6,
            min_bins: 5,
            max_bins: 12,
            ..SyntheticParams::default()
        };
        generate(&params, 21, &Progress::new(), &CancelToken::new())
            .unwrap()
            .trials
    }

    /// `data` re-padded to its longest trial (CSV stores only the valid bins).
    fn padded_to_longest(data: &TrialSet) -> TrialSet {
        let t = data.lengths.iter().copied().max().unwrap();
        let (b, n) = (data.n_trials, data.n_neurons);
        let mut spikes = Vec::with_capacity(b * t * n);
        let mut inputs = Vec::with_capacity(b * t * 2);
        for trial in 0..b {
            for bin in 0..t {
                spikes.extend((0..n).map(|neuron| data.spike(trial, bin, neuron)));
                inputs.extend(data.input(trial, bin));
            }
        }
        TrialSet {
            max_bins: t,
            spikes,
            inputs,
            ..data.clone()
        }
    }

    /// The message of an error, as a user would see it.
    fn message(result: Result<TrialSet, ComputeError>) -> String {
        result.unwrap_err().to_string()
    }

    /// A small FINDR archive with 3 trials, 4 bins and 2 neurons; spikes are int64,
    /// lengths float64 and choices bool, to exercise the dtype handling.
    struct Archive {
        spikes: Array3<i64>,
        inputs: Array3<f64>,
        lengths: Array1<f64>,
        times: Array1<f64>,
        choices: Option<Array1<bool>>,
    }

    impl Archive {
        fn new() -> Self {
            let spikes = Array3::from_shape_fn((3, 4, 2), |(b, t, n)| (b + 2 * t + n) as i64 % 3);
            let inputs = Array3::from_shape_fn((3, 4, 2), |(b, t, u)| ((b + t + u) % 2) as f64);
            Self {
                spikes,
                inputs,
                lengths: array![4.0, 2.0, 3.0],
                times: array![0.0, 6.0, 12.5],
                choices: Some(array![true, false, true]),
            }
        }

        fn write(&self, path: &Path, skip: Option<&str>) {
            let mut w = NpzWriter::new(File::create(path).unwrap());
            if skip != Some(SPIKES) {
                w.add_array(SPIKES, &self.spikes).unwrap();
            }
            if skip != Some(INPUTS) {
                w.add_array(INPUTS, &self.inputs).unwrap();
            }
            if skip != Some(LENGTHS) {
                w.add_array(LENGTHS, &self.lengths).unwrap();
            }
            if skip != Some(TIMES) {
                w.add_array(TIMES, &self.times).unwrap();
            }
            if let Some(c) = &self.choices {
                w.add_array(CHOICES, c).unwrap();
            }
            w.finish().unwrap();
        }
    }

    #[test]
    fn npz_round_trip_gives_the_synthetic_trials_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("synthetic.npz");
        let data = synthetic();
        assert!(data.lengths.iter().any(|&l| l < data.max_bins));
        save_npz(&data, &path).unwrap();
        let back = load_trials(&path, data.bin_s).unwrap();
        assert_eq!(back, data);

        let without = TrialSet {
            choices: None,
            ..data
        };
        save_npz(&without, &path).unwrap();
        assert_eq!(load_trials(&path, without.bin_s).unwrap(), without);
    }

    #[test]
    fn npz_written_by_ndarray_npy_reads_with_any_dtype_and_zeroes_padding() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.NPZ");
        let mut archive = Archive::new();
        // Garbage past the lengths: it must be zeroed, not rejected.
        archive.spikes[[1, 3, 0]] = 7;
        archive.inputs[[1, 2, 1]] = -4.0;
        archive.write(&path, None);
        let t = load_trials(&path, 0.01).unwrap();
        assert_eq!((t.n_trials, t.max_bins, t.n_neurons), (3, 4, 2));
        assert_eq!(t.lengths, vec![4, 2, 3]);
        assert_eq!(t.times_s, vec![0.0, 6.0, 12.5]);
        assert_eq!(t.choices, Some(vec![true, false, true]));
        assert!((t.bin_s - 0.01).abs() < f64::EPSILON);
        for b in 0..3 {
            for bin in 0..4 {
                let valid = bin < t.lengths[b];
                for n in 0..2 {
                    let expected = if valid {
                        archive.spikes[[b, bin, n]] as f32
                    } else {
                        0.0
                    };
                    assert_eq!(t.spike(b, bin, n), expected, "spike {b} {bin} {n}");
                }
                let expected = if valid {
                    [
                        archive.inputs[[b, bin, 0]] as f32,
                        archive.inputs[[b, bin, 1]] as f32,
                    ]
                } else {
                    [0.0, 0.0]
                };
                assert_eq!(t.input(b, bin), expected, "input {b} {bin}");
            }
        }
        assert_eq!(t.valid_bins(), 9);

        // Choices are optional; 0/1 integers work as well as bools.
        archive.choices = None;
        archive.write(&path, None);
        assert_eq!(load_trials(&path, 0.01).unwrap().choices, None);
        let mut w = NpzWriter::new(File::create(&path).unwrap());
        w.add_array(SPIKES, &archive.spikes.mapv(|v| v as f32))
            .unwrap();
        w.add_array(INPUTS, &archive.inputs).unwrap();
        w.add_array(LENGTHS, &array![4i32, 2, 3]).unwrap();
        w.add_array(TIMES, &archive.times).unwrap();
        w.add_array(CHOICES, &array![0u8, 1, 1]).unwrap();
        w.finish().unwrap();
        let t = load_trials(&path, 0.01).unwrap();
        assert_eq!(t.lengths, vec![4, 2, 3]);
        assert_eq!(t.choices, Some(vec![false, true, true]));
    }

    #[test]
    fn npz_wrong_shape_names_the_array_and_the_expected_shape() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.npz");
        let mut archive = Archive::new();
        archive.inputs = Array3::zeros((3, 4, 3));
        archive.write(&path, None);
        let m = message(load_trials(&path, 0.01));
        assert!(
            m.contains(
                "data.npz: array `externalinputs` has shape [3, 4, 3], expected [3, 4, 2] \
                        (trials × bins × 2)"
            ),
            "{m}"
        );

        let mut archive = Archive::new();
        archive.times = array![0.0, 1.0];
        archive.write(&path, None);
        let m = message(load_trials(&path, 0.01));
        assert!(
            m.contains("array `times` has shape [2], expected [3]"),
            "{m}"
        );

        // spikes with two axes.
        let mut w = NpzWriter::new(File::create(&path).unwrap());
        w.add_array(SPIKES, &Array2::<f64>::zeros((3, 4))).unwrap();
        w.add_array(INPUTS, &archive.inputs).unwrap();
        w.add_array(LENGTHS, &archive.lengths).unwrap();
        w.add_array(TIMES, &archive.times).unwrap();
        w.finish().unwrap();
        let m = message(load_trials(&path, 0.01));
        assert!(
            m.contains("array `spikes` has shape [3, 4], expected 3 axes [trials, bins, neurons]"),
            "{m}"
        );
    }

    #[test]
    fn npz_nan_names_the_array_and_the_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.npz");
        let archive = Archive::new();
        let mut w = NpzWriter::new(File::create(&path).unwrap());
        let mut spikes = archive.spikes.mapv(|v| v as f64);
        spikes[[2, 1, 1]] = f64::NAN;
        w.add_array(SPIKES, &spikes).unwrap();
        w.add_array(INPUTS, &archive.inputs).unwrap();
        w.add_array(LENGTHS, &archive.lengths).unwrap();
        w.add_array(TIMES, &archive.times).unwrap();
        w.finish().unwrap();
        let m = message(load_trials(&path, 0.01));
        assert!(
            m.contains("array `spikes` has NaN at trial 2, bin 1, neuron 1"),
            "{m}"
        );

        let mut archive = Archive::new();
        archive.inputs[[0, 3, 0]] = f64::NAN;
        archive.write(&path, None);
        let m = message(load_trials(&path, 0.01));
        assert!(
            m.contains("array `externalinputs` has NaN at trial 0, bin 3, left"),
            "{m}"
        );
    }

    #[test]
    fn npz_bad_values_name_the_array() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.npz");

        let mut archive = Archive::new();
        archive.lengths = array![4.0, 5.0, 3.0];
        archive.write(&path, None);
        let m = message(load_trials(&path, 0.01));
        assert!(m.contains("array `lengths` has 5 for trial 1"), "{m}");
        assert!(m.contains("T = 4"), "{m}");

        let mut archive = Archive::new();
        archive.lengths = array![4.0, 0.0, 3.0];
        archive.write(&path, None);
        let m = message(load_trials(&path, 0.01));
        assert!(m.contains("array `lengths` has 0 for trial 1"), "{m}");

        let mut archive = Archive::new();
        archive.spikes[[0, 1, 0]] = -1;
        archive.write(&path, None);
        let m = message(load_trials(&path, 0.01));
        assert!(
            m.contains("array `spikes` has -1 at trial 0, bin 1, neuron 0"),
            "{m}"
        );

        let archive = Archive::new();
        let mut w = NpzWriter::new(File::create(&path).unwrap());
        let mut spikes = archive.spikes.mapv(|v| v as f32);
        spikes[[1, 0, 1]] = 1.5;
        w.add_array(SPIKES, &spikes).unwrap();
        w.add_array(INPUTS, &archive.inputs).unwrap();
        w.add_array(LENGTHS, &archive.lengths).unwrap();
        w.add_array(TIMES, &archive.times).unwrap();
        w.finish().unwrap();
        let m = message(load_trials(&path, 0.01));
        assert!(
            m.contains("array `spikes` has 1.5 at trial 1, bin 0, neuron 1"),
            "{m}"
        );

        let mut archive = Archive::new();
        archive.inputs[[2, 0, 1]] = -0.5;
        archive.write(&path, None);
        let m = message(load_trials(&path, 0.01));
        assert!(
            m.contains("array `externalinputs` has -0.5 at trial 2, bin 0, right"),
            "{m}"
        );

        let archive = Archive::new();
        let mut w = NpzWriter::new(File::create(&path).unwrap());
        w.add_array(SPIKES, &archive.spikes).unwrap();
        w.add_array(INPUTS, &archive.inputs).unwrap();
        w.add_array(LENGTHS, &archive.lengths).unwrap();
        w.add_array(TIMES, &archive.times).unwrap();
        w.add_array(CHOICES, &array![0i64, 2, 1]).unwrap();
        w.finish().unwrap();
        let m = message(load_trials(&path, 0.01));
        assert!(m.contains("array `choices` has 2 for trial 1"), "{m}");
    }

    #[test]
    fn npz_missing_array_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.npz");
        for missing in [SPIKES, INPUTS, LENGTHS, TIMES] {
            Archive::new().write(&path, Some(missing));
            let m = message(load_trials(&path, 0.01));
            assert!(m.contains(&format!("array `{missing}` is missing")), "{m}");
        }
    }

    /// `members` (name, NPY bytes) as a zip archive with every member deflated, laid out as
    /// `np.savez_compressed` writes it.
    fn deflated_zip(members: &[(String, Vec<u8>)]) -> Vec<u8> {
        use std::io::Write as _;
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, npy) in members {
            let mut encoder =
                flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
            encoder.write_all(npy).unwrap();
            let packed = encoder.finish().unwrap();
            let mut crc = flate2::Crc::new();
            crc.update(npy);
            let offset = u32::try_from(out.len()).unwrap();
            let name = format!("{name}.npy");
            let sizes = [
                crc.sum(),
                u32::try_from(packed.len()).unwrap(),
                u32::try_from(npy.len()).unwrap(),
            ];
            let name_len = u16::try_from(name.len()).unwrap();
            // Local header: signature, version 20, flags 0, method 8 (deflate), time, date,
            // CRC, sizes, name length, no extra field.
            out.extend(0x0403_4b50_u32.to_le_bytes());
            out.extend([20, 0, 0, 0, 8, 0, 0, 0, 0, 0]);
            sizes.iter().for_each(|v| out.extend(v.to_le_bytes()));
            out.extend(name_len.to_le_bytes());
            out.extend([0, 0]);
            out.extend(name.as_bytes());
            out.extend(&packed);
            // Central entry: the same, plus extra and comment lengths, disk, attributes and
            // the local header's offset.
            central.extend(0x0201_4b50_u32.to_le_bytes());
            central.extend([20, 0, 20, 0, 0, 0, 8, 0, 0, 0, 0, 0]);
            sizes.iter().for_each(|v| central.extend(v.to_le_bytes()));
            central.extend(name_len.to_le_bytes());
            central.extend([0; 12]);
            central.extend(offset.to_le_bytes());
            central.extend(name.as_bytes());
        }
        let count = u16::try_from(members.len()).unwrap();
        let cd_offset = u32::try_from(out.len()).unwrap();
        out.extend(&central);
        out.extend(0x0605_4b50_u32.to_le_bytes());
        out.extend([0; 4]);
        out.extend(count.to_le_bytes());
        out.extend(count.to_le_bytes());
        out.extend(u32::try_from(central.len()).unwrap().to_le_bytes());
        out.extend(cd_offset.to_le_bytes());
        out.extend([0, 0]);
        out
    }

    /// The members of the (stored) archive at `path`: name and NPY bytes.
    fn members_of(path: &Path) -> Vec<(String, Vec<u8>)> {
        let bytes = std::fs::read(path).unwrap();
        let archive = Npz::parse(&bytes).unwrap();
        archive
            .names()
            .into_iter()
            .map(|name| {
                let npy = archive.npy_bytes(&name).unwrap().into_owned();
                (name, npy)
            })
            .collect()
    }

    #[test]
    fn compressed_npz_loads_like_the_stored_one() {
        let dir = tempfile::tempdir().unwrap();
        let stored = dir.path().join("stored.npz");
        let data = synthetic();
        save_npz(&data, &stored).unwrap();
        let compressed = dir.path().join("compressed.npz");
        let zipped = deflated_zip(&members_of(&stored));
        assert!(zipped.len() < std::fs::metadata(&stored).unwrap().len() as usize);
        std::fs::write(&compressed, zipped).unwrap();
        assert_eq!(load_trials(&compressed, data.bin_s).unwrap(), data);

        // The hand-made archive with mixed dtypes, compressed.
        let path = dir.path().join("mixed.npz");
        Archive::new().write(&path, None);
        let expected = load_trials(&path, 0.01).unwrap();
        std::fs::write(&path, deflated_zip(&members_of(&path))).unwrap();
        assert_eq!(load_trials(&path, 0.01).unwrap(), expected);
    }

    #[test]
    fn npz_with_a_huge_claimed_shape_or_a_zip_bomb_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.npz");
        Archive::new().write(&path, None);
        let mut members = members_of(&path);
        // `times` claims 1e8 × 1e8 float64 values over its 24 bytes of data.
        let (_, times) = members.iter_mut().find(|(n, _)| n == TIMES).unwrap();
        let header_len = usize::from(u16::from_le_bytes([times[8], times[9]]));
        let header = "{'descr': '<f8', 'fortran_order': False, 'shape': (100000000, 100000000), }";
        let mut text = header.to_owned();
        text.extend(std::iter::repeat_n(' ', header_len - header.len() - 1));
        text.push('\n');
        times[10..10 + header_len].copy_from_slice(text.as_bytes());
        std::fs::write(&path, deflated_zip(&members)).unwrap();
        let m = message(load_trials(&path, 0.01));
        assert!(
            m.contains("data.npz: array `times` could not be read"),
            "{m}"
        );
        assert!(m.contains("(100000000, 100000000)"), "{m}");

        // A member that inflates to more than it declares.
        Archive::new().write(&path, None);
        let mut zipped = deflated_zip(&members_of(&path));
        let central = zipped.len() - 22;
        let cd_size = u32::from_le_bytes(zipped[central + 12..central + 16].try_into().unwrap());
        let first = central - cd_size as usize;
        let declared = u32::from_le_bytes(zipped[first + 24..first + 28].try_into().unwrap());
        zipped[first + 24..first + 28].copy_from_slice(&(declared - 8).to_le_bytes());
        std::fs::write(&path, zipped).unwrap();
        let m = message(load_trials(&path, 0.01));
        assert!(
            m.contains("data.npz: array `spikes`") && m.contains("declares"),
            "{m}"
        );
    }

    #[test]
    fn other_files_are_refused_with_the_supported_formats() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.mat");
        std::fs::write(&path, b"x").unwrap();
        let m = message(load_trials(&path, 0.01));
        assert!(m.contains("data.mat"), "{m}");
        assert!(m.contains(".npz") && m.contains(".csv"), "{m}");

        let path = dir.path().join("broken.npz");
        std::fs::write(&path, b"not a zip").unwrap();
        let m = message(load_trials(&path, 0.01));
        assert!(m.contains("broken.npz: not a NumPy .npz archive"), "{m}");

        let m = message(load_trials(&path, 0.0));
        assert!(m.contains("bin_s"), "{m}");
    }

    #[test]
    fn csv_round_trip_gives_the_synthetic_trials_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("synthetic.csv");
        let data = synthetic();
        let expected = padded_to_longest(&data);
        save_csv(&data, &path).unwrap();
        assert_eq!(load_trials(&path, data.bin_s).unwrap(), expected);
        // Writing the re-padded set gives the same file contents back.
        save_csv(&expected, &path).unwrap();
        assert_eq!(load_trials(&path, data.bin_s).unwrap(), expected);

        let without = TrialSet {
            choices: None,
            ..expected
        };
        save_csv(&without, &path).unwrap();
        assert_eq!(load_trials(&path, without.bin_s).unwrap(), without);
    }

    #[test]
    fn csv_layout_reads_as_documented() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.csv");
        // Rows out of order, trials numbered 3 and 7, choice between neuron columns.
        let text = "trial, bin, time_s, left, right, unit_a, choice, unit_b\n\
                    7,1,6.5,0,1,2,false,0\n\
                    3,0,0,1,0,0,1,4\n\
                    7,0,6.5,1,1,1,0,1\n\
                    3,1,0,0,0,3,true,0\n\
                    3,2,0,0,2,1,1,1\n";
        std::fs::write(&path, text).unwrap();
        let t = load_trials(&path, 0.01).unwrap();
        assert_eq!((t.n_trials, t.max_bins, t.n_neurons), (2, 3, 2));
        assert_eq!(t.lengths, vec![3, 2]);
        assert_eq!(t.times_s, vec![0.0, 6.5]);
        assert_eq!(t.choices, Some(vec![true, false]));
        assert_eq!(t.spike(0, 1, 0), 3.0);
        assert_eq!(t.spike(0, 0, 1), 4.0);
        assert_eq!(t.spike(1, 0, 0), 1.0);
        assert_eq!(t.spike(1, 2, 0), 0.0);
        assert_eq!(t.input(0, 2), [0.0, 2.0]);
        assert_eq!(t.input(1, 0), [1.0, 1.0]);
        assert_eq!(t.input(1, 2), [0.0, 0.0]);
    }

    #[test]
    fn csv_errors_name_the_line_and_the_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.csv");
        let header = "trial,bin,time_s,left,right,n0,n1\n";
        let cases = [
            (
                "0,0,0,0,0,1,2\n0,1,0,0,0,x1,2\n",
                "line 3, column `n0`: `x1` is not a number",
            ),
            (
                "0,0,0,0,0,1,2\n0,1,0,0,-1,1,2\n",
                "line 3, column `right`: -1: inputs must be finite and ≥ 0",
            ),
            (
                "0,0,0,0,0,1,2.5\n",
                "line 2, column `n1`: 2.5: counts must be whole numbers ≥ 0",
            ),
            (
                "0,0,0,0,0,1,2\n0,1,1,0,0,1,2\n",
                "line 3, column `time_s`: trial 0 starts at 0 s on line 2",
            ),
            (
                "0,0,0,0,0,1,2\n0,0,0,0,0,1,2\n",
                "line 3, column `bin`: trial 0, bin 0 already appears on line 2",
            ),
            (
                "0,0,0,0,0,1,2\n0,2,0,0,0,1,2\n",
                "trial 0 has no row for bin 1",
            ),
            (
                "-1,0,0,0,0,1,2\n",
                "line 2, column `trial`: -1 is not a trial number",
            ),
            ("", "no data rows"),
        ];
        for (rows, expected) in cases {
            std::fs::write(&path, format!("{header}{rows}")).unwrap();
            let m = message(load_trials(&path, 0.01));
            assert!(m.contains("data.csv"), "{m}");
            assert!(m.contains(expected), "{m}");
        }

        std::fs::write(&path, "trial,bin,left,right,n0\n0,0,0,0,1\n").unwrap();
        let m = message(load_trials(&path, 0.01));
        assert!(m.contains("line 1: column 3 must be `time_s`"), "{m}");

        std::fs::write(&path, "trial,bin,time_s,left,right,choice\n0,0,0,0,0,1\n").unwrap();
        let m = message(load_trials(&path, 0.01));
        assert!(m.contains("no neuron columns"), "{m}");

        std::fs::write(&path, format!("{header}0,0,0,0,0,1\n")).unwrap();
        let m = message(load_trials(&path, 0.01));
        assert!(
            m.contains("data.csv: line 2: the row has 6 fields, the header has 7"),
            "{m}"
        );
    }
}
