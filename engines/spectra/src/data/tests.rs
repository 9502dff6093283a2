use super::*;

use std::path::PathBuf;

/// A smooth test function of position that tells every grid point apart.
fn truth(lat_deg: f64, lon_deg: f64) -> f64 {
    let lon = lon_deg.rem_euclid(360.0);
    1000.0 * lat_deg + lon
}

fn equiangular(nlat: usize) -> Vec<f64> {
    (0..nlat)
        .map(|i| 90.0 - 180.0 * i as f64 / (nlat - 1) as f64)
        .collect()
}

fn regular_longitudes(start: f64, step: f64, count: usize) -> Vec<f64> {
    (0..count).map(|j| start + step * j as f64).collect()
}

/// What a test NetCDF file looks like.
struct NcSpec {
    latitudes: Vec<f64>,
    longitudes: Vec<f64>,
    /// Names of the latitude and longitude dimensions and whether to write coordinates.
    lat_name: &'static str,
    lon_name: &'static str,
    coordinates: bool,
    /// Store (lon, lat) instead of (lat, lon).
    lon_first: bool,
    times: usize,
    levels: usize,
    /// The time coordinate's `units` and `calendar` (none when `None`).
    time_units: &'static str,
    calendar: Option<&'static str>,
}

impl NcSpec {
    fn new(latitudes: Vec<f64>, longitudes: Vec<f64>) -> Self {
        Self {
            latitudes,
            longitudes,
            lat_name: "latitude",
            lon_name: "longitude",
            coordinates: true,
            lon_first: false,
            times: 1,
            levels: 1,
            time_units: "hours since 2000-01-01",
            calendar: None,
        }
    }

    /// Value stored at (time t, level k, lat i, lon j).
    fn value(&self, t: usize, k: usize, i: usize, j: usize) -> f64 {
        truth(self.latitudes[i], self.longitudes[j]) + 1.0e6 * t as f64 + 1.0e7 * k as f64
    }

    /// Writes the file with a float64 variable `field` of dims (time, level, lat, lon).
    fn write(&self, path: &Path, edit: impl FnOnce(&mut netcdf::VariableMut<'_>, &mut Vec<f64>)) {
        let mut file = netcdf::create(path).unwrap();
        let (nlat, nlon) = (self.latitudes.len(), self.longitudes.len());
        file.add_unlimited_dimension("time").unwrap();
        file.add_dimension("level", self.levels).unwrap();
        file.add_dimension(self.lat_name, nlat).unwrap();
        file.add_dimension(self.lon_name, nlon).unwrap();
        if self.coordinates {
            let mut lat = file
                .add_variable::<f32>(self.lat_name, &[self.lat_name])
                .unwrap();
            lat.put_attribute("units", "degrees_north").unwrap();
            let lats: Vec<f32> = self.latitudes.iter().map(|v| *v as f32).collect();
            lat.put_values(&lats, ..).unwrap();
            let mut lon = file
                .add_variable::<f64>(self.lon_name, &[self.lon_name])
                .unwrap();
            lon.put_attribute("units", "degrees_east").unwrap();
            lon.put_values(&self.longitudes, ..).unwrap();
        }
        let mut time = file.add_variable::<f64>("time", &["time"]).unwrap();
        time.put_attribute("units", self.time_units).unwrap();
        if let Some(calendar) = self.calendar {
            time.put_attribute("calendar", calendar).unwrap();
        }
        let times: Vec<f64> = (0..self.times).map(|t| 6.0 * t as f64).collect();
        time.put_values(&times, ..).unwrap();
        let mut level = file.add_variable::<f64>("level", &["level"]).unwrap();
        level.put_attribute("units", "hPa").unwrap();
        let levels: Vec<f64> = (0..self.levels)
            .map(|k| 1000.0 - 100.0 * k as f64)
            .collect();
        level.put_values(&levels, ..).unwrap();
        let dims: [&str; 4] = if self.lon_first {
            ["time", "level", self.lon_name, self.lat_name]
        } else {
            ["time", "level", self.lat_name, self.lon_name]
        };
        let mut data = Vec::new();
        for t in 0..self.times {
            for k in 0..self.levels {
                if self.lon_first {
                    for j in 0..nlon {
                        for i in 0..nlat {
                            data.push(self.value(t, k, i, j));
                        }
                    }
                } else {
                    for i in 0..nlat {
                        for j in 0..nlon {
                            data.push(self.value(t, k, i, j));
                        }
                    }
                }
            }
        }
        let mut var = file.add_variable::<f64>("field", &dims).unwrap();
        var.put_attribute("units", "m s-1").unwrap();
        edit(&mut var, &mut data);
        var.put_values(&data, ..).unwrap();
    }
}

fn temp_path(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

/// Checks that `field` holds `truth + extra` at every engine grid point.
fn assert_matches_truth(field: &Field, extra: f64) {
    let lats = field.grid.latitudes_deg();
    let lons = field.grid.longitudes_deg();
    for (i, lat) in lats.iter().enumerate() {
        for (j, lon) in lons.iter().enumerate() {
            let got = field.values[i * field.grid.nlon + j];
            // Latitudes were stored as float32: compare against the float32 value.
            let want = truth(f64::from(*lat as f32), *lon) + extra;
            assert!(
                (got - want).abs() < 1e-6 * want.abs().max(1.0) + 1e-3,
                "({lat}, {lon}): got {got}, want {want}"
            );
        }
    }
}

#[test]
fn south_to_north_and_minus_180_longitudes_are_normalised() {
    let dir = tempfile::tempdir().unwrap();
    let path = temp_path(&dir, "flipped.nc");
    let mut lats = equiangular(19);
    lats.reverse();
    let spec = NcSpec::new(lats, regular_longitudes(-180.0, 10.0, 36));
    spec.write(&path, |_, _| {});
    let field = load_field(&path, &LoadOptions::default()).unwrap();
    assert_eq!(field.grid.kind, GridKind::Equiangular);
    assert_eq!((field.grid.nlat, field.grid.nlon), (19, 36));
    assert!(field.source.latitudes_flipped);
    assert_eq!(field.source.longitude_shift, 18);
    assert_eq!(field.source.variable, "field");
    assert_eq!(field.source.units, "m s-1");
    assert_matches_truth(&field, 0.0);
}

#[test]
fn westward_longitudes_with_cyclic_column_time_and_level_are_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let path = temp_path(&dir, "westward.nc");
    // 360, 350, ..., 0: westward with the cyclic column repeated.
    let mut spec = NcSpec::new(equiangular(13), regular_longitudes(360.0, -10.0, 37));
    spec.times = 3;
    spec.levels = 4;
    spec.write(&path, |_, _| {});
    let options = LoadOptions {
        variable: "field".to_owned(),
        time_index: 2,
        level_index: 1,
        grid: GridChoice::Equiangular,
    };
    let field = load_field(&path, &options).unwrap();
    assert_eq!((field.grid.nlat, field.grid.nlon), (13, 36));
    assert!(field.source.longitudes_reversed);
    assert!(field.source.cyclic_column_dropped);
    assert!(!field.source.latitudes_flipped);
    assert_eq!(field.source.time_index, Some(2));
    assert_eq!(field.source.time.as_ref().map(|t| t.0), Some(12.0));
    // 12 hours since 2000-01-01, no calendar attribute: standard.
    assert_eq!(field.source.time_calendar.as_deref(), Some(""));
    assert_eq!(
        field.source.time_text().as_deref(),
        Some("2000-01-01 12:00 (12 hours since 2000-01-01)")
    );
    assert!(field.source.time_warning().is_none());
    assert!(
        describe(&field).contains(", time 2000-01-01 12:00 (12 hours since 2000-01-01),"),
        "{}",
        describe(&field)
    );
    assert_eq!(field.source.level.as_ref().map(|l| l.0), Some(900.0));
    assert_matches_truth(&field, 2.0e6 + 1.0e7);

    let out_of_range = LoadOptions {
        time_index: 3,
        ..options
    };
    let error = load_field(&path, &out_of_range).unwrap_err().to_string();
    assert!(error.contains("westward.nc"), "{error}");
    assert!(
        error.contains("`field`") && error.contains("time index 3"),
        "{error}"
    );
}

#[test]
fn longitude_first_storage_and_gaussian_latitudes_are_detected() {
    let dir = tempfile::tempdir().unwrap();
    let path = temp_path(&dir, "gauss.nc");
    let gauss = Grid::new(GridKind::GaussLegendre, 16, 32)
        .unwrap()
        .latitudes_deg();
    let mut lats = gauss.clone();
    lats.reverse();
    let mut spec = NcSpec::new(lats, regular_longitudes(0.0, 11.25, 32));
    spec.lat_name = "lat";
    spec.lon_name = "lon";
    spec.lon_first = true;
    spec.write(&path, |_, _| {});
    let field = load_field(&path, &LoadOptions::default()).unwrap();
    assert_eq!(field.grid.kind, GridKind::GaussLegendre);
    assert!(field.source.latitudes_flipped);
    assert_matches_truth(&field, 0.0);
    // Asking for the wrong grid is an error that says what the file holds.
    let wrong = LoadOptions {
        grid: GridChoice::Equiangular,
        ..LoadOptions::default()
    };
    let error = load_field(&path, &wrong).unwrap_err().to_string();
    assert!(
        error.contains("gauss.nc") && error.contains("Gauss–Legendre"),
        "{error}"
    );
}

#[test]
fn unsupported_grids_are_rejected_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    // Equiangular without poles (cell centres), as in WeatherBench's 5.625° data.
    let path = temp_path(&dir, "centres.nc");
    let lats: Vec<f64> = (0..32).map(|i| 87.1875 - 5.625 * i as f64).collect();
    NcSpec::new(lats, regular_longitudes(0.0, 5.625, 64)).write(&path, |_, _| {});
    let error = load_field(&path, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("centres.nc") && error.contains("`field`"),
        "{error}"
    );
    assert!(error.contains("neither equiangular"), "{error}");
    // Longitudes offset by half a step from 0°.
    let path = temp_path(&dir, "offset.nc");
    NcSpec::new(equiangular(7), regular_longitudes(15.0, 30.0, 12)).write(&path, |_, _| {});
    let error = load_field(&path, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("offset.nc") && error.contains("column at 0°"),
        "{error}"
    );
    // A regional longitude range.
    let path = temp_path(&dir, "regional.nc");
    NcSpec::new(equiangular(7), regular_longitudes(0.0, 10.0, 12)).write(&path, |_, _| {});
    let error = load_field(&path, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(error.contains("not the whole circle"), "{error}");
}

#[test]
fn packed_values_are_unpacked_and_fill_values_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let path = temp_path(&dir, "packed.nc");
    let (nlat, nlon) = (7, 12);
    {
        let mut file = netcdf::create(&path).unwrap();
        file.add_dimension("lat", nlat).unwrap();
        file.add_dimension("lon", nlon).unwrap();
        let mut lat = file.add_variable::<f64>("lat", &["lat"]).unwrap();
        lat.put_attribute("standard_name", "latitude").unwrap();
        lat.put_values(&equiangular(nlat), ..).unwrap();
        let mut lon = file.add_variable::<f64>("lon", &["lon"]).unwrap();
        lon.put_attribute("axis", "X").unwrap();
        lon.put_attribute("units", "degrees").unwrap();
        lon.put_values(&regular_longitudes(0.0, 30.0, nlon), ..)
            .unwrap();
        let mut var = file.add_variable::<i16>("t", &["lat", "lon"]).unwrap();
        var.set_fill_value(-32767_i16).unwrap();
        var.put_attribute("scale_factor", 0.01_f64).unwrap();
        var.put_attribute("add_offset", 250.0_f64).unwrap();
        let packed: Vec<i16> = (0..nlat * nlon).map(|n| (n as i16) * 10 - 300).collect();
        var.put_values(&packed, ..).unwrap();
        let mut holes = file.add_variable::<i16>("holes", &["lat", "lon"]).unwrap();
        holes.set_fill_value(-32767_i16).unwrap();
        let mut with_holes = packed.clone();
        with_holes[5 * nlon + 3] = -32767;
        holes.put_values(&with_holes, ..).unwrap();
        let mut marked = file.add_variable::<f32>("marked", &["lat", "lon"]).unwrap();
        marked.put_attribute("missing_value", -999.0_f32).unwrap();
        let mut values: Vec<f32> = (0..nlat * nlon).map(|n| n as f32).collect();
        values[0] = -999.0;
        marked.put_values(&values, ..).unwrap();
    }
    // Several fields and no name: the error lists them.
    let error = load_field(&path, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("several fields") && error.contains("holes"),
        "{error}"
    );

    let load = |name: &str| {
        load_field(
            &path,
            &LoadOptions {
                variable: name.to_owned(),
                ..LoadOptions::default()
            },
        )
    };
    let field = load("t").unwrap();
    for (n, value) in field.values.iter().enumerate() {
        let want = f64::from((n as i16) * 10 - 300) * 0.01 + 250.0;
        assert!((value - want).abs() < 1e-12, "{n}: {value} vs {want}");
    }
    let error = load("holes").unwrap_err().to_string();
    assert!(
        error.contains("packed.nc") && error.contains("`holes`"),
        "{error}"
    );
    assert!(
        error.contains("1 of 84 values are missing") && error.contains("_FillValue"),
        "{error}"
    );
    assert!(
        error.contains("latitude -60.000°, longitude 90.000°"),
        "{error}"
    );
    let error = load("marked").unwrap_err().to_string();
    assert!(
        error.contains("`marked`") && error.contains("missing_value"),
        "{error}"
    );
    let error = load("nope").unwrap_err().to_string();
    assert!(
        error.contains("packed.nc") && error.contains("no such variable"),
        "{error}"
    );
}

#[test]
fn nan_is_rejected_naming_the_variable_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = temp_path(&dir, "nan.nc");
    NcSpec::new(equiangular(7), regular_longitudes(0.0, 30.0, 12)).write(&path, |_, data| {
        data[3] = f64::NAN;
    });
    let error = load_field(&path, &LoadOptions::default()).unwrap_err();
    assert!(matches!(&error, ComputeError::InvalidParameter { name, .. } if name == "variable"));
    let error = error.to_string();
    assert!(
        error.contains("nan.nc") && error.contains("`field`"),
        "{error}"
    );
    assert!(error.contains("NaN"), "{error}");
}

#[test]
fn missing_coordinates_are_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = temp_path(&dir, "nocoords.nc");
    let mut spec = NcSpec::new(equiangular(7), regular_longitudes(0.0, 30.0, 12));
    spec.lat_name = "lat";
    spec.lon_name = "lon";
    spec.coordinates = false;
    spec.write(&path, |_, _| {});
    let error = load_field(&path, &LoadOptions::default()).unwrap_err();
    assert!(matches!(&error, ComputeError::InvalidParameter { name, .. } if name == "file"));
    let error = error.to_string();
    assert!(
        error.contains("nocoords.nc") && error.contains("no variable has latitude"),
        "{error}"
    );
    let named = LoadOptions {
        variable: "field".to_owned(),
        ..LoadOptions::default()
    };
    let error = load_field(&path, &named).unwrap_err().to_string();
    assert!(
        error.contains("nocoords.nc") && error.contains("missing coordinates"),
        "{error}"
    );
}

#[test]
fn npy_with_a_huge_claimed_shape_or_bad_bytes_is_refused_with_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = temp_path(&dir, "huge.npy");
    std::fs::write(&path, benchtop_compute::npy::testing::huge_claim()).unwrap();
    let error = load_field(&path, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("huge.npy")
            && error.contains("(100000000, 100000000)")
            && error.contains("65 bytes are present"),
        "{error}"
    );
    let mut truncated = benchtop_compute::npy::testing::huge_claim();
    truncated.truncate(40);
    std::fs::write(&path, truncated).unwrap();
    let error = load_field(&path, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("huge.npy") && error.contains("header claims"),
        "{error}"
    );
    // Big-endian integers read too.
    let mut bytes = benchtop_compute::npy::testing::huge_claim();
    let header = "{'descr': '>i2', 'fortran_order': False, 'shape': (3, 2), }";
    bytes[10..10 + header.len()].copy_from_slice(header.as_bytes());
    for b in &mut bytes[10 + header.len()..128] {
        *b = b' ';
    }
    bytes[127] = b'\n';
    bytes.truncate(128);
    bytes.extend([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 255, 255]);
    std::fs::write(&path, bytes).unwrap();
    let field = load_field(&path, &LoadOptions::default()).unwrap();
    assert_eq!(field.values, vec![1.0, 2.0, 3.0, 4.0, 5.0, -1.0]);
}

#[test]
fn npy_arrays_load_in_any_float_dtype() {
    use ndarray::Array2;
    use ndarray_npy::WriteNpyExt as _;
    let dir = tempfile::tempdir().unwrap();
    let (nlat, nlon) = (9, 16);
    let grid = Grid::new(GridKind::Equiangular, nlat, nlon).unwrap();
    let lats = grid.latitudes_deg();
    let lons = grid.longitudes_deg();
    let array = Array2::from_shape_fn((nlat, nlon), |(i, j)| truth(lats[i], lons[j]));
    let path = temp_path(&dir, "z500.npy");
    array
        .write_npy(std::fs::File::create(&path).unwrap())
        .unwrap();
    let field = load_field(&path, &LoadOptions::default()).unwrap();
    assert_eq!(field.grid, grid);
    assert_eq!(field.values, array.iter().copied().collect::<Vec<_>>());
    assert_eq!(field.source.variable, "z500");

    let path32 = temp_path(&dir, "single.npy");
    array
        .mapv(|v| v as f32)
        .write_npy(std::fs::File::create(&path32).unwrap())
        .unwrap();
    let field = load_field(&path32, &LoadOptions::default()).unwrap();
    assert_eq!(field.values[5], f64::from(array[[0, 5]] as f32));

    // Even latitude count: the grid must be stated.
    let even = temp_path(&dir, "even.npy");
    Array2::<f64>::zeros((8, 16))
        .write_npy(std::fs::File::create(&even).unwrap())
        .unwrap();
    let error = load_field(&even, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("even.npy") && error.contains("state the grid"),
        "{error}"
    );
    let gauss = LoadOptions {
        grid: GridChoice::GaussLegendre,
        ..LoadOptions::default()
    };
    assert_eq!(
        load_field(&even, &gauss).unwrap().grid.kind,
        GridKind::GaussLegendre
    );

    // NaN: the error names the file and the array.
    let mut bad = array.clone();
    bad[[4, 7]] = f64::NAN;
    let nan = temp_path(&dir, "bad.npy");
    bad.write_npy(std::fs::File::create(&nan).unwrap()).unwrap();
    let error = load_field(&nan, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("bad.npy") && error.contains("`bad`") && error.contains("NaN"),
        "{error}"
    );
    assert!(
        error.contains("latitude 0.000°, longitude 157.500°"),
        "{error}"
    );

    // 3-D arrays are refused.
    let cube = temp_path(&dir, "cube.npy");
    ndarray::Array3::<f64>::zeros((2, 9, 16))
        .write_npy(std::fs::File::create(&cube).unwrap())
        .unwrap();
    let error = load_field(&cube, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("cube.npy") && error.contains("3 dimension"),
        "{error}"
    );
}

#[test]
fn the_bundled_reanalysis_sample_loads() {
    let path = crate::data::sample_wind_paths().0;
    let infos = list_variables(&path).unwrap();
    assert!(infos.iter().any(|v| v.name == "uwnd" && v.is_field));
    let field = load_field(
        &path,
        &LoadOptions {
            time_index: 0,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert_eq!(field.grid.kind, GridKind::Equiangular);
    assert_eq!((field.grid.nlat, field.grid.nlon), (73, 144));
    assert_eq!(field.source.variable, "uwnd");
    assert_eq!(field.source.units, "m/s");
    assert!(!field.source.latitudes_flipped);
    // The time axis is `days since 1970-01-01 00:00:0.0`, calendar `gregorian`.
    assert_eq!(field.source.time_calendar.as_deref(), Some("gregorian"));
    let text = describe(&field);
    assert!(
        text.contains(", time 1970-01-01 (0 days since 1970-01-01 00:00:0.0)"),
        "{text}"
    );
    // January 200 hPa zonal wind: westerly jets of tens of m/s, easterlies below 30 m/s.
    let max = field.values.iter().copied().fold(f64::MIN, f64::max);
    let min = field.values.iter().copied().fold(f64::MAX, f64::min);
    assert!((40.0..90.0).contains(&max), "max {max}");
    assert!((-30.0..0.0).contains(&min), "min {min}");
    let error = load_field(
        &path,
        &LoadOptions {
            time_index: 12,
            ..LoadOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("uwnd_mean.nc") && error.contains("`uwnd`"),
        "{error}"
    );
}

#[test]
fn time_is_decoded_with_the_calendar_of_the_time_coordinate() {
    let dir = tempfile::tempdir().unwrap();
    let load = |name: &str, units: &'static str, calendar: Option<&'static str>, index: usize| {
        let path = temp_path(&dir, name);
        let mut spec = NcSpec::new(equiangular(7), regular_longitudes(0.0, 30.0, 12));
        // Time values 0, 6, 12, ... (the spec's), here read as days.
        spec.times = 11;
        spec.time_units = units;
        spec.calendar = calendar;
        spec.write(&path, |_, _| {});
        let options = LoadOptions {
            time_index: index,
            ..LoadOptions::default()
        };
        load_field(&path, &options).unwrap().source
    };
    // 60 days after 2001-01-01: 2001-03-02 in noleap, 2001-03-01 in 360_day, 2001-03-02 standard.
    let source = load("noleap.nc", "days since 2001-01-01", Some("noleap"), 10);
    assert_eq!(
        source.time_text().as_deref(),
        Some("2001-03-02 (60 days since 2001-01-01, noleap calendar)")
    );
    let source = load("360.nc", "days since 2001-01-01", Some("360_day"), 10);
    assert_eq!(
        source.time_date().unwrap().unwrap().to_string(),
        "2001-03-01"
    );
    // 6 days before the Gregorian reform's first day, in the standard calendar.
    let source = load("reform.nc", "days since 1582-10-01", Some("Gregorian"), 1);
    assert_eq!(
        source.time_text().as_deref(),
        Some("1582-10-17 (6 days since 1582-10-01)")
    );

    // Months, an unknown calendar and a bad reference date: the raw value, labelled, and a
    // warning naming the file and the variable.
    for (name, units, calendar, says) in [
        (
            "months.nc",
            "months since 2000-01-01",
            None,
            "`months` are not a fixed length",
        ),
        (
            "bogus.nc",
            "days since 2000-01-01",
            Some("bogus"),
            "calendar `bogus`",
        ),
        (
            "leap.nc",
            "days since 2001-02-29",
            Some("noleap"),
            "day 29 does not exist",
        ),
    ] {
        let source = load(name, units, calendar, 1);
        let text = source.time_text().unwrap();
        assert!(
            text.starts_with(&format!("6 {units} (raw value, not decoded: "))
                && text.contains(says),
            "{text}"
        );
        let warning = source.time_warning().unwrap();
        assert!(
            warning.contains(name)
                && warning.contains("variable `field`")
                && warning.contains(says),
            "{warning}"
        );
    }
    // A huge time value is refused, not overflowed.
    let mut source = load("huge.nc", "days since 2000-01-01", None, 1);
    source.time = Some((1e300, "days since 2000-01-01".to_owned()));
    let text = source.time_text().unwrap();
    assert!(
        text.contains("raw value") && text.contains("1e300"),
        "{text}"
    );
}

#[test]
fn field_sources_saved_before_calendars_still_load_and_show_raw_time() {
    let saved = serde_json::json!({
        "file": "old.nc",
        "variable": "uwnd",
        "long_name": "",
        "units": "m/s",
        "time_index": 0,
        "time": [17067072.0, "hours since 1-1-1 00:00:0.0"],
        "level_index": null,
        "level": null,
        "latitudes_flipped": false,
        "longitudes_reversed": false,
        "longitude_shift": 0,
        "cyclic_column_dropped": false
    });
    let mut source: FieldSource = serde_json::from_value(saved).unwrap();
    assert_eq!(source.time_calendar, None);
    let text = source.time_text().unwrap();
    assert!(
        text.starts_with("17067072 hours since 1-1-1 00:00:0.0 (raw value, not decoded: "),
        "{text}"
    );
    source.time_calendar = Some(String::new());
    assert_eq!(
        source.time_text().as_deref(),
        Some("1948-01-01 (17067072 hours since 1-1-1 00:00:0.0)")
    );
    // And the new field survives a round trip.
    let back: FieldSource = serde_json::from_value(serde_json::to_value(&source).unwrap()).unwrap();
    assert_eq!(back, source);
}
