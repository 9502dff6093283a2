//! Data: the paper's Figure-1 field, outlier injection, the vendored real series and a CSV
//! loader whose errors name the file, line and column.

use std::fmt;
use std::path::Path;

use rand::Rng as _;
use rand_distr::{Distribution, Normal};
use serde::{Deserialize, Serialize};

/// Observations of a field on a grid of locations at every time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    /// What the data are, for titles.
    pub name: String,
    /// The time axis' name and unit.
    pub time_label: String,
    /// Strictly increasing times.
    pub times: Vec<f64>,
    /// Locations (one for a plain time series).
    pub locations: Vec<[f64; 2]>,
    /// The reference values the methods are scored against, time-major (t · n_s + i): the
    /// noise-free field for synthetic data, a CSV's `truth` column when it has one, otherwise
    /// the observations before outliers were injected (which keep any outliers of their own).
    pub clean: Vec<f64>,
    /// Whether `clean` is a clean truth (the synthetic field, a CSV's truth column) or the
    /// observations themselves (real data without a truth).
    pub clean_is_latent: bool,
    /// The observations, time-major.
    pub y: Vec<f64>,
    /// Which observations had an outlier injected.
    pub outlier: Vec<bool>,
}

impl Dataset {
    /// Number of locations n_s.
    pub fn n_space(&self) -> usize {
        self.locations.len()
    }

    /// Number of times T.
    pub fn n_times(&self) -> usize {
        self.times.len()
    }

    /// What the scores are against: `"truth"` (a clean truth: the synthetic field or a CSV's
    /// truth column) or `"observations"` (the data before the injected outliers, with any
    /// outliers they have of their own).
    pub fn scored_against(&self) -> &'static str {
        if self.clean_is_latent {
            "truth"
        } else {
            "observations"
        }
    }
}

/// The paper's Figure-1 field f(s₁, s₂, t) = sin(2πt) s₁² + cos(2πt) s₂².
pub fn figure1_field(s: [f64; 2], t: f64) -> f64 {
    let w = 2.0 * std::f64::consts::PI * t;
    w.sin() * s[0] * s[0] + w.cos() * s[1] * s[1]
}

/// The Figure-1 field on a `grid`×`grid` grid over [−1, 1]² at `n_times` equally spaced times
/// in [0, 1], observed with Gaussian noise of standard deviation `noise_sd`.
pub fn figure1(grid: usize, n_times: usize, noise_sd: f64, seed: u64) -> Dataset {
    let axis = |k: usize, n: usize| {
        if n <= 1 {
            0.0
        } else {
            -1.0 + 2.0 * k as f64 / (n - 1) as f64
        }
    };
    let locations: Vec<[f64; 2]> = (0..grid * grid)
        .map(|k| [axis(k % grid, grid), axis(k / grid, grid)])
        .collect();
    let times: Vec<f64> = (0..n_times)
        .map(|k| {
            if n_times <= 1 {
                0.0
            } else {
                k as f64 / (n_times - 1) as f64
            }
        })
        .collect();
    let clean: Vec<f64> = times
        .iter()
        .flat_map(|&t| locations.iter().map(move |&s| figure1_field(s, t)))
        .collect();
    let mut rng = benchtop_compute::rng::seeded(seed);
    let normal = Normal::new(0.0, noise_sd.max(0.0)).unwrap_or_else(|_| {
        Normal::new(0.0, 0.0).unwrap_or_else(|_| unreachable!("σ = 0 is a valid normal"))
    });
    let y = clean.iter().map(|v| v + normal.sample(&mut rng)).collect();
    Dataset {
        name: format!("Figure-1 field, {grid}×{grid} grid × {n_times} times"),
        time_label: "t".to_owned(),
        outlier: vec![false; clean.len()],
        times,
        locations,
        clean,
        clean_is_latent: true,
        y,
    }
}

/// Adds outliers to round(`rate`·n) observations chosen at random: each is shifted by
/// ±U[size, size + 2]·`scale` (random sign), as in the paper's Figure 1 (size 6, scale 1:
/// shifts in [−8, −6] ∪ [6, 8]).
pub fn inject_outliers(data: &mut Dataset, rate: f64, size: f64, scale: f64, seed: u64) {
    let n = data.y.len();
    let count = ((rate.clamp(0.0, 1.0) * n as f64).round() as usize).min(n);
    let mut rng = benchtop_compute::rng::seeded(benchtop_compute::rng::derive_seed(seed, 17));
    let chosen = rand::seq::index::sample(&mut rng, n, count);
    for k in chosen {
        let magnitude = (size + 2.0 * rng.random::<f64>()) * scale;
        let sign = if rng.random::<bool>() { 1.0 } else { -1.0 };
        data.y[k] += sign * magnitude;
        data.outlier[k] = true;
    }
}

/// A data error that names where it is: file, line and column (1-based; 0 when not about one
/// cell).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataError {
    /// The file.
    pub file: String,
    /// The line (1-based), 0 for the whole file.
    pub line: usize,
    /// The column (1-based), 0 for the whole line.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}: {}", self.file, self.message),
            (line, 0) => write!(f, "{}: line {line}: {}", self.file, self.message),
            (line, column) => write!(
                f,
                "{}: line {line}, column {column}: {}",
                self.file, self.message
            ),
        }
    }
}

impl std::error::Error for DataError {}

/// A CSV table: header and rows of cells with their line numbers.
struct Table<'a> {
    file: &'a str,
    header_line: usize,
    header: Vec<String>,
    rows: Vec<(usize, Vec<&'a str>)>,
}

impl<'a> Table<'a> {
    fn parse(file: &'a str, text: &'a str) -> Result<Self, DataError> {
        // A byte-order mark is not part of the first column's name.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let err = |line, message: &str| DataError {
            file: file.to_owned(),
            line,
            column: 0,
            message: message.to_owned(),
        };
        let mut lines = text
            .lines()
            .enumerate()
            .map(|(k, l)| (k + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        let (header_line, header) = lines.next().ok_or_else(|| err(0, "the file is empty"))?;
        let header: Vec<String> = header.split(',').map(|c| c.trim().to_owned()).collect();
        let mut rows = Vec::new();
        for (line, l) in lines {
            let cells: Vec<&str> = l.split(',').map(str::trim).collect();
            if cells.len() != header.len() {
                return Err(err(
                    line,
                    &format!("{} cells, the header has {}", cells.len(), header.len()),
                ));
            }
            rows.push((line, cells));
        }
        if rows.is_empty() {
            return Err(err(0, "no data rows after the header"));
        }
        Ok(Self {
            file,
            header_line,
            header,
            rows,
        })
    }

    fn error(&self, line: usize, column: usize, message: String) -> DataError {
        DataError {
            file: self.file.to_owned(),
            line,
            column,
            message,
        }
    }

    fn column(&self, name: &str) -> Option<usize> {
        self.header
            .iter()
            .position(|h| h.eq_ignore_ascii_case(name))
    }

    fn number(&self, line: usize, column: usize, cell: &str) -> Result<f64, DataError> {
        let v: f64 = cell
            .parse()
            .map_err(|_| self.error(line, column + 1, format!("`{cell}` is not a number")))?;
        if !v.is_finite() {
            Err(self.error(line, column + 1, format!("value `{cell}` is not finite")))
        } else if v.abs() > MAX_MAGNITUDE {
            Err(self.error(
                line,
                column + 1,
                format!(
                    "value `{cell}` is too large for the filter's variances (at most \
                     {MAX_MAGNITUDE:e} in size; rescale the column)"
                ),
            ))
        } else {
            Ok(v)
        }
    }

    fn time(&self, line: usize, column: usize, cell: &str) -> Result<f64, DataError> {
        match parse_time(cell) {
            Some(t) if t.is_finite() => Ok(t),
            Some(_) => Err(self.error(line, column + 1, format!("time `{cell}` is not finite"))),
            None => Err(self.error(
                line,
                column + 1,
                format!(
                    "`{cell}` is not a time (a number, YYYY-MM-DD, YYYY/MM/DD or `Jan 1 2000`)"
                ),
            )),
        }
    }
}

/// A time cell: a number, or a date (YYYY-MM-DD, YYYY/MM/DD, `Mon D YYYY`) as a decimal year.
pub fn parse_time(cell: &str) -> Option<f64> {
    if let Ok(v) = cell.parse::<f64>() {
        return Some(v);
    }
    let parts: Vec<&str> = cell
        .split(['-', '/', ' '])
        .filter(|p| !p.is_empty())
        .collect();
    if parts.len() != 3 {
        return None;
    }
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let (year, month, day) = if let Some(m) = MONTHS
        .iter()
        .position(|m| parts[0].to_ascii_lowercase().starts_with(m))
    {
        (parts[2].parse().ok()?, m as i64 + 1, parts[1].parse().ok()?)
    } else {
        (
            parts[0].parse().ok()?,
            parts[1].parse().ok()?,
            parts[2].parse().ok()?,
        )
    };
    if !(1..=12).contains(&month) || !(1..=days_in_month(year, month)).contains(&day) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(1970.0 + days as f64 / 365.2425)
}

/// Days in `month` (1–12) of `year` in the proleptic Gregorian calendar.
fn days_in_month(year: i64, month: i64) -> i64 {
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The most locations a file may name: the filter's state has 2 entries per location and each
/// step costs the cube of that, so more would run for hours.
pub const MAX_LOCATIONS: usize = 400;

/// The largest value (in size) a file may hold: beyond it the filter's variances overflow.
pub const MAX_MAGNITUDE: f64 = 1e100;

/// The largest CSV file read: 64 MiB.
pub const MAX_CSV_BYTES: u64 = 64 << 20;

/// Refuses more than [`MAX_LOCATIONS`] locations, naming the file.
fn check_location_count(table: &Table<'_>, count: usize) -> Result<(), DataError> {
    if count > MAX_LOCATIONS {
        return Err(table.error(
            table.header_line,
            0,
            format!(
                "{count} locations: at most {MAX_LOCATIONS} (the filter's cost grows with the \
                 cube of the number of locations)"
            ),
        ));
    }
    Ok(())
}

/// Checks that the times increase strictly; the error names the line of the offending row.
fn check_increasing(
    table: &Table<'_>,
    times: &[(usize, f64)],
    column: usize,
) -> Result<(), DataError> {
    for w in times.windows(2) {
        if w[1].1.partial_cmp(&w[0].1) != Some(std::cmp::Ordering::Greater) {
            return Err(table.error(
                w[1].0,
                column + 1,
                format!("times must increase: {} follows {}", w[1].1, w[0].1),
            ));
        }
    }
    Ok(())
}

/// A series dataset from columns: scored against `truth` when given, else against the
/// observations themselves.
fn series(
    name: String,
    time_label: &str,
    times: Vec<f64>,
    locations: Vec<[f64; 2]>,
    y: Vec<f64>,
    truth: Option<Vec<f64>>,
) -> Dataset {
    Dataset {
        name,
        time_label: time_label.to_owned(),
        outlier: vec![false; y.len()],
        clean_is_latent: truth.is_some(),
        clean: truth.unwrap_or_else(|| y.clone()),
        times,
        locations,
        y,
    }
}

/// The suffix of a wide CSV's truth column: `temp_truth` is the clean truth of `temp`.
pub const TRUTH_SUFFIX: &str = "_truth";

/// The value column a wide CSV header names the truth of (`temp_truth` → `temp`), if any.
fn truth_of(name: &str) -> Option<&str> {
    let n = name.len().checked_sub(TRUTH_SUFFIX.len())?;
    (n > 0 && name.is_char_boundary(n) && name[n..].eq_ignore_ascii_case(TRUTH_SUFFIX))
        .then(|| &name[..n])
}

/// Parses a CSV text. Two layouts:
/// * long, with columns `time,x,y,value` and optionally `truth` (any order, case-insensitive):
///   every time must have the same set of locations (x, y);
/// * wide: the first column is time, the others values; a column named `<name>_truth` is the
///   clean truth of the value column `<name>` (every value column used needs one, or none
///   has). `column` 0 takes every value column as a location on a line (x = 0, 1, …); k ≥ 1
///   takes only the k-th value column (truth columns not counted).
///
/// With a truth the methods are scored against it (the truth is taken as the noise-free field,
/// like the Figure-1 field's f); without one, against the observations themselves.
/// Times are numbers or dates (decimal years) and must increase strictly.
pub fn parse_csv(file: &str, text: &str, column: usize) -> Result<Dataset, DataError> {
    let table = Table::parse(file, text)?;
    let long = ["time", "x", "y", "value"].map(|c| table.column(c));
    if let [Some(tc), Some(xc), Some(yc), Some(vc)] = long {
        return parse_long(&table, [tc, xc, yc, vc], table.column("truth"));
    }
    if table.header.len() < 2 {
        return Err(table.error(
            1,
            0,
            "need a time column and at least one value column".to_owned(),
        ));
    }
    let header_line = table.header_line;
    // Truth columns: each names a value column.
    let mut truth_column = vec![None; table.header.len()];
    for (c, name) in table.header.iter().enumerate().skip(1) {
        if let Some(of) = truth_of(name) {
            match table.column(of) {
                Some(v) if v > 0 && truth_of(&table.header[v]).is_none() => {
                    truth_column[v] = Some(c);
                }
                _ => {
                    return Err(table.error(
                        header_line,
                        c + 1,
                        format!("`{name}` is the truth of a column `{of}`, which the file lacks"),
                    ));
                }
            }
        }
    }
    let values: Vec<usize> = (1..table.header.len())
        .filter(|&c| truth_of(&table.header[c]).is_none())
        .collect();
    let value_columns: Vec<usize> = if column == 0 {
        values
    } else if let Some(&c) = values.get(column - 1) {
        vec![c]
    } else {
        return Err(table.error(
            header_line,
            0,
            format!(
                "value column {column} asked for, the file has {}",
                values.len()
            ),
        ));
    };
    if value_columns.is_empty() {
        return Err(table.error(
            header_line,
            0,
            "need at least one value column besides the truth columns".to_owned(),
        ));
    }
    let with_truth = value_columns.iter().any(|&c| truth_column[c].is_some());
    if with_truth && let Some(&c) = value_columns.iter().find(|&&c| truth_column[c].is_none()) {
        return Err(table.error(
            header_line,
            c + 1,
            format!(
                "`{}` has no truth column `{}{TRUTH_SUFFIX}` while another value column has \
                 one: give every value column its truth, or none",
                table.header[c], table.header[c]
            ),
        ));
    }
    check_location_count(&table, value_columns.len())?;
    let mut times = Vec::new();
    let mut y = Vec::new();
    let mut truth = Vec::new();
    for (line, cells) in &table.rows {
        times.push((*line, table.time(*line, 0, cells[0])?));
        for &c in &value_columns {
            y.push(table.number(*line, c, cells[c])?);
            if let Some(tc) = truth_column[c] {
                truth.push(table.number(*line, tc, cells[tc])?);
            }
        }
    }
    check_increasing(&table, &times, 0)?;
    let locations = (0..value_columns.len()).map(|k| [k as f64, 0.0]).collect();
    let names: Vec<&str> = value_columns
        .iter()
        .map(|&c| table.header[c].as_str())
        .collect();
    Ok(series(
        format!("{file} ({})", names.join(", ")),
        &table.header[0],
        times.into_iter().map(|(_, t)| t).collect(),
        locations,
        y,
        with_truth.then_some(truth),
    ))
}

fn parse_long(
    table: &Table<'_>,
    [tc, xc, yc, vc]: [usize; 4],
    truth_column: Option<usize>,
) -> Result<Dataset, DataError> {
    let mut times: Vec<(usize, f64)> = Vec::new();
    let mut locations: Vec<[f64; 2]> = Vec::new();
    let mut y = Vec::new();
    let mut truth = Vec::new();
    let mut at_time: Vec<[f64; 2]> = Vec::new();
    for (line, cells) in &table.rows {
        let t = table.time(*line, tc, cells[tc])?;
        let s = [
            table.number(*line, xc, cells[xc])?,
            table.number(*line, yc, cells[yc])?,
        ];
        let v = table.number(*line, vc, cells[vc])?;
        if let Some(c) = truth_column {
            truth.push(table.number(*line, c, cells[c])?);
        }
        if times.last().is_none_or(|&(_, last)| last != t) {
            if let Some(&(prev_line, _)) = times.last() {
                if times.len() == 1 {
                    locations.clone_from(&at_time);
                } else if at_time != locations {
                    return Err(table.error(
                        prev_line,
                        0,
                        format!(
                            "the time starting here has {} locations, the first time has {} (every time needs the same locations in the same order)",
                            at_time.len(),
                            locations.len()
                        ),
                    ));
                }
            }
            times.push((*line, t));
            at_time.clear();
        }
        at_time.push(s);
        check_location_count(table, at_time.len())?;
        y.push(v);
    }
    if times.len() == 1 {
        locations.clone_from(&at_time);
    } else if at_time != locations {
        return Err(table.error(
            table.rows.last().map_or(0, |r| r.0),
            0,
            "the last time has a different set of locations than the first".to_owned(),
        ));
    }
    check_increasing(table, &times, tc)?;
    Ok(series(
        format!("{} (long format)", table.file),
        "time",
        times.into_iter().map(|(_, t)| t).collect(),
        locations,
        y,
        truth_column.map(|_| truth),
    ))
}

/// Reads a CSV file (see [`parse_csv`]).
pub fn load_csv(path: &Path, column: usize) -> Result<Dataset, DataError> {
    let file = path.display().to_string();
    let text = benchtop_compute::files::read_text(path, MAX_CSV_BYTES).map_err(|e| DataError {
        file: file.clone(),
        line: 0,
        column: 0,
        message: e
            .to_string()
            .trim_start_matches(&format!("{file}: "))
            .to_owned(),
    })?;
    parse_csv(&file, &text, column)
}

/// The vendored `stocks.csv` of vega-datasets 0.9.0 (monthly prices 2000–2010).
const STOCKS: &str = include_str!("../../../assets/rcgp/stocks.csv");
/// The vendored `seattle-weather.csv` of vega-datasets 0.9.0 (daily, 2012–2015).
const SEATTLE: &str = include_str!("../../../assets/rcgp/seattle-weather.csv");

/// The tickers in the vendored stock series.
pub const STOCK_SYMBOLS: [&str; 5] = ["MSFT", "AMZN", "IBM", "GOOG", "AAPL"];
/// The numeric columns of the vendored Seattle weather series.
pub const WEATHER_COLUMNS: [&str; 4] = ["temp_max", "temp_min", "precipitation", "wind"];

/// One ticker's monthly closing price (US$) from the vendored stock series.
pub fn stocks(symbol: &str) -> Result<Dataset, DataError> {
    let file = "assets/rcgp/stocks.csv";
    let table = Table::parse(file, STOCKS)?;
    let (Some(sc), Some(dc), Some(pc)) = (
        table.column("symbol"),
        table.column("date"),
        table.column("price"),
    ) else {
        return Err(table.error(1, 0, "expected columns symbol,date,price".to_owned()));
    };
    let mut times = Vec::new();
    let mut y = Vec::new();
    for (line, cells) in table.rows.iter().filter(|(_, c)| c[sc] == symbol) {
        times.push((*line, table.time(*line, dc, cells[dc])?));
        y.push(table.number(*line, pc, cells[pc])?);
    }
    if y.is_empty() {
        return Err(table.error(
            0,
            0,
            format!(
                "no rows for symbol `{symbol}` (have {})",
                STOCK_SYMBOLS.join(", ")
            ),
        ));
    }
    check_increasing(&table, &times, dc)?;
    Ok(series(
        format!("{symbol} monthly closing price (US$), vega-datasets stocks"),
        "year",
        times.into_iter().map(|(_, t)| t).collect(),
        vec![[0.0, 0.0]],
        y,
        None,
    ))
}

/// One column of the vendored daily Seattle weather (2012–2015).
pub fn seattle_weather(column: &str) -> Result<Dataset, DataError> {
    let file = "assets/rcgp/seattle-weather.csv";
    let table = Table::parse(file, SEATTLE)?;
    let (Some(dc), Some(vc)) = (table.column("date"), table.column(column)) else {
        return Err(table.error(
            1,
            0,
            format!("no column `{column}` (have {})", WEATHER_COLUMNS.join(", ")),
        ));
    };
    let mut times = Vec::new();
    let mut y = Vec::new();
    for (line, cells) in &table.rows {
        times.push((*line, table.time(*line, dc, cells[dc])?));
        y.push(table.number(*line, vc, cells[vc])?);
    }
    check_increasing(&table, &times, dc)?;
    Ok(series(
        format!("Seattle daily ‘{column}’, vega-datasets seattle-weather"),
        "year",
        times.into_iter().map(|(_, t)| t).collect(),
        vec![[0.0, 0.0]],
        y,
        None,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rcgp_data_figure1_matches_the_formula_and_outliers_are_in_range() {
        let mut d = figure1(4, 9, 0.0, 3);
        assert_eq!(d.y, d.clean);
        assert!((d.clean[2 * 16 + 5] - figure1_field(d.locations[5], d.times[2])).abs() < 1e-15);
        inject_outliers(&mut d, 0.1, 6.0, 1.0, 3);
        let shifted: Vec<f64> = d.y.iter().zip(&d.clean).map(|(a, b)| a - b).collect();
        assert_eq!(d.outlier.iter().filter(|o| **o).count(), 14); // round(0.1 · 144)
        for (k, s) in shifted.iter().enumerate() {
            if d.outlier[k] {
                assert!((6.0..=8.0).contains(&s.abs()), "{s}");
            } else {
                assert_eq!(*s, 0.0);
            }
        }
    }

    #[test]
    fn rcgp_data_vendored_series_load() {
        let s = stocks("IBM").expect("IBM");
        assert_eq!(s.n_times(), 123);
        assert!((s.times[0] - 2000.0).abs() < 0.01);
        let w = seattle_weather("temp_max").expect("temp_max");
        assert_eq!(w.n_times(), 1461);
        assert!((w.y[0] - 12.8).abs() < 1e-12);
        assert!(stocks("XYZ").unwrap_err().message.contains("XYZ"));
    }

    #[test]
    fn rcgp_data_csv_layouts_parse() {
        let wide = parse_csv("w.csv", "t,a,b\n0,1,2\n0.5,3,4\n2,5,6\n", 0).expect("wide");
        assert_eq!((wide.n_times(), wide.n_space()), (3, 2));
        assert_eq!(wide.y, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let one = parse_csv("w.csv", "t,a,b\n0,1,2\n0.5,3,4\n", 2).expect("column 2");
        assert_eq!(one.y, vec![2.0, 4.0]);
        let long = parse_csv(
            "l.csv",
            "time,x,y,value\n0,0,0,1\n0,1,0,2\n1,0,0,3\n1,1,0,4\n",
            0,
        )
        .expect("long");
        assert_eq!((long.n_times(), long.n_space()), (2, 2));
        assert_eq!(long.locations[1], [1.0, 0.0]);
        let dates = parse_csv("d.csv", "date,v\n2012-01-01,1\n2012/01/02,2\n", 0).expect("dates");
        assert!((dates.times[1] - dates.times[0] - 1.0 / 365.2425).abs() < 1e-12);
    }

    /// A clean truth rides along: a `truth` column in the long layout, `<name>_truth` in the
    /// wide one; the scores are then against it, otherwise against the observations.
    #[test]
    fn rcgp_data_csv_truth_columns_are_the_reference() {
        let long = parse_csv(
            "l.csv",
            "time,x,y,value,truth\n0,0,0,9,1\n0,1,0,2,2\n1,0,0,3,3\n1,1,0,4,4.5\n",
            0,
        )
        .expect("long with truth");
        assert_eq!(long.y, vec![9.0, 2.0, 3.0, 4.0]);
        assert_eq!(long.clean, vec![1.0, 2.0, 3.0, 4.5]);
        assert_eq!(long.scored_against(), "truth");
        let wide = parse_csv(
            "w.csv",
            "t,a,b,a_truth,B_TRUTH\n0,1,2,1.5,2.5\n1,3,40,3.5,4.5\n",
            0,
        )
        .expect("wide with truth");
        assert_eq!((wide.n_times(), wide.n_space()), (2, 2));
        assert_eq!(wide.y, vec![1.0, 2.0, 3.0, 40.0]);
        assert_eq!(wide.clean, vec![1.5, 2.5, 3.5, 4.5]);
        assert_eq!(wide.scored_against(), "truth");
        // Column 2 is the second value column (truth columns are not counted).
        let b = parse_csv("w.csv", "t,a,a_truth,b\n0,1,1,2\n1,3,3,4\n", 2).expect("column 2");
        assert_eq!(
            (b.y.clone(), b.scored_against()),
            (vec![2.0, 4.0], "observations")
        );
        let plain = parse_csv("w.csv", "t,a\n0,1\n1,3\n", 0).expect("plain");
        assert_eq!(plain.clean, plain.y);
        assert_eq!(plain.scored_against(), "observations");
        let cases = [
            (
                "t,a,c_truth\n0,1,1\n",
                "e.csv: line 1, column 3: `c_truth` is the truth of a column `c`",
            ),
            (
                "# comment\nt,a,b,a_truth\n0,1,2,1\n",
                "e.csv: line 2, column 3: `b` has no truth column `b_truth`",
            ),
            (
                "t,a,a_truth\n0,1,1\n1,2,x\n",
                "e.csv: line 3, column 3: `x` is not a number",
            ),
            (
                "time,x,y,value,truth\n0,0,0,1,1\n1,0,0,2,inf\n",
                "e.csv: line 3, column 5: value `inf` is not finite",
            ),
            (
                "t,a_truth\n0,1\n",
                "line 1, column 2: `a_truth` is the truth of a column `a`",
            ),
        ];
        for (text, expected) in cases {
            let err = parse_csv("e.csv", text, 0).expect_err(text).to_string();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
    }

    /// Bad input gives an error that names the file, line and column.
    #[test]
    fn rcgp_data_bad_input_names_file_line_and_column() {
        let cases = [
            ("", "e.csv: the file is empty"),
            ("t,v\n", "no data rows"),
            (
                "t,v\n0,1\n1,NaN\n",
                "e.csv: line 3, column 2: value `NaN` is not finite",
            ),
            (
                "t,v\n0,1\n1,abc\n",
                "line 3, column 2: `abc` is not a number",
            ),
            (
                "t,v\n0,1\n2,1\n1,1\n",
                "line 4, column 1: times must increase",
            ),
            ("t,v\n0,1\n0,1\n", "line 3, column 1: times must increase"),
            ("t,v\n0,1,3\n", "line 2: 3 cells"),
            ("t,v\nnope,1\n", "line 2, column 1: `nope` is not a time"),
            (
                "time,x,y,value\n0,0,0,1\n0,1,0,2\n1,0,0,3\n2,0,0,1\n",
                "line 4: the time starting here has 1 locations",
            ),
            (
                "t,v\n2020-02-28,1\n2020-02-30,1\n",
                "line 3, column 1: `2020-02-30` is not a time",
            ),
            (
                "t,v\n0,1\n1,1e300\n",
                "line 3, column 2: value `1e300` is too large",
            ),
            (
                "t,v\n0,1\n1,-1e300\n",
                "line 3, column 2: value `-1e300` is too large",
            ),
        ];
        for (text, expected) in cases {
            let err = parse_csv("e.csv", text, 0).expect_err(text).to_string();
            assert!(err.contains(expected), "{text:?}: {err}");
        }
        // 401 value columns: more locations than the filter can afford.
        let wide = format!(
            "t,{}\n0,{}\n",
            (0..401)
                .map(|k| format!("v{k}"))
                .collect::<Vec<_>>()
                .join(","),
            vec!["1"; 401].join(",")
        );
        let err = parse_csv("e.csv", &wide, 0).unwrap_err().to_string();
        assert!(err.contains("401 locations: at most 400"), "{err}");
        // A byte-order mark before a long-format header keeps the long format (one location).
        let bom = "\u{feff}time,x,y,value\n0,0,0,1\n1,0,0,2\n2,0,0,3\n";
        let data = parse_csv("e.csv", bom, 0).expect("BOM");
        assert_eq!((data.n_space(), data.n_times()), (1, 3));
        // 29 February exists in leap years only.
        assert!(parse_time("2020-02-29").is_some() && parse_time("2021-02-29").is_none());
        let missing = load_csv(Path::new("/nonexistent/x.csv"), 0)
            .unwrap_err()
            .to_string();
        assert!(
            missing.starts_with("/nonexistent/x.csv: cannot open"),
            "{missing}"
        );
    }
}
