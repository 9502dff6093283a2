//! Molecule datasets: the shipped offline set (a fixed subsample of the MOSES training set) and
//! loaders for user files (CSV, SMI, SDF).
//!
//! Every loader parses each molecule with RDKit and keeps the rows it cannot parse as
//! [`RowError`]s in [`Dataset::errors`] (file and line named), never failing the whole file for
//! one bad molecule. A file-level problem (unreadable file, no `smiles` column, a CSV row with
//! the wrong number of fields) is a [`LoadError`] naming the file and, where there is one, the
//! line.
//!
//! SDF files are split into records by this module (`$$$$` separators, `> <name>` data items);
//! each record's mol block goes to RDKit's `MolBlockToMol` through the project's shim, so V2000
//! and V3000 blocks are read exactly as RDKit reads them.
//!
//! Before RDKit sees a molecule it is bounded ([`crate::mol::check_smiles`],
//! [`crate::mol::check_molblock`]): a SMILES longer than [`crate::mol::MAX_SMILES_CHARS`]
//! characters, an SDF record declaring more than [`crate::mol::MAX_MOLBLOCK_ATOMS`] atoms, and
//! any control character (NUL included) make that row a [`RowError`], so one absurd row cannot
//! stall a file of thousands.

use benchtop_compute::files;
use std::collections::HashSet;
use std::fmt;
use std::io::Read as _;
use std::path::Path;

use flate2::read::GzDecoder;
use thiserror::Error;

use crate::mol::Molecule;

/// The shipped offline dataset: 5,000 SMILES of the MOSES training set (MIT), one `smiles`
/// column, gzipped (see `assets/SOURCES.md` and `scripts/make_molstitch_offline.py`).
static OFFLINE_CSV_GZ: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../assets/molstitch/moses_offline.csv.gz"
));

/// Name of the shipped offline dataset as it appears in reports and errors.
pub const OFFLINE_SOURCE: &str = "assets/molstitch/moses_offline.csv.gz";

/// Number of molecules in the shipped offline dataset.
pub const OFFLINE_SIZE: usize = 5000;

/// A problem with a whole file (as opposed to one invalid molecule, which is a [`RowError`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LoadError {
    /// The file could not be read or decompressed.
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// The system's message.
        reason: String,
    },
    /// The file's structure is wrong at the given line (1-based).
    #[error("{path}:{line}: {reason}")]
    Format {
        /// The file.
        path: String,
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        reason: String,
    },
    /// The file's extension is not one the loaders know.
    #[error("{path}: unknown dataset format (expected .csv, .smi or .sdf, optionally .gz)")]
    UnknownFormat {
        /// The file.
        path: String,
    },
}

/// One row or record that was skipped because RDKit could not read its molecule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowError {
    /// The file.
    pub path: String,
    /// 1-based line number of the row (of the record's first line in an SDF).
    pub line: u64,
    /// The input text: the SMILES, or the record title of an SDF record.
    pub input: String,
    /// RDKit's or the loader's message.
    pub reason: String,
}

/// Inputs longer than this many characters are shortened in [`RowError`]'s display.
const SHOWN_INPUT_CHARS: usize = 60;

impl fmt::Display for RowError {
    /// `file:line: "input": reason`, with an input longer than 60 characters shortened to its
    /// start and its length (a refused 10,000-character SMILES is not repeated in full).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ", self.path, self.line)?;
        let chars = self.input.chars().count();
        if chars > SHOWN_INPUT_CHARS {
            let start: String = self.input.chars().take(SHOWN_INPUT_CHARS / 2).collect();
            write!(
                f,
                "{:?} ({} characters)",
                format!("{start}…"),
                crate::error::grouped(chars)
            )?;
        } else {
            write!(f, "{:?}", self.input)?;
        }
        write!(f, ": {}", self.reason)
    }
}

/// One molecule read from a dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// 1-based line number of the row (of the record's first line in an SDF).
    pub line: u64,
    /// RDKit canonical SMILES.
    pub smiles: String,
    /// The SMILES as written in the file (for an SDF, the canonical SMILES again).
    pub input: String,
    /// Optional name: a `name`/`id`/`title` column in a CSV, the second field in a SMI, the
    /// title line of an SDF record.
    pub name: Option<String>,
    /// Values of [`Dataset::property_names`], in that order; `None` where the cell is empty,
    /// `NA` or `nan`.
    pub values: Vec<Option<f64>>,
}

/// A dataset read from one file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dataset {
    /// Where it came from (a path, or [`OFFLINE_SOURCE`]).
    pub source: String,
    /// Numeric property columns (CSV) or data items (SDF), in file order.
    pub property_names: Vec<String>,
    /// Columns or data items that were present but not numeric, so not read as properties.
    pub ignored_columns: Vec<String>,
    /// The molecules RDKit could read, in file order.
    pub records: Vec<Record>,
    /// The rows RDKit could not read, in file order.
    pub errors: Vec<RowError>,
}

impl Dataset {
    /// Canonical SMILES of every record, in order.
    pub fn smiles(&self) -> Vec<String> {
        self.records.iter().map(|r| r.smiles.clone()).collect()
    }

    /// The set of canonical SMILES (for novelty checks).
    pub fn canonical_set(&self) -> HashSet<String> {
        self.records.iter().map(|r| r.smiles.clone()).collect()
    }

    /// Values of one property column, or `None` if there is no such column.
    pub fn property(&self, name: &str) -> Option<Vec<Option<f64>>> {
        let k = self.property_names.iter().position(|n| n == name)?;
        Some(
            self.records
                .iter()
                .map(|r| r.values.get(k).copied().flatten())
                .collect(),
        )
    }

    /// A human-readable report: counts, then one line per skipped row naming file and line.
    pub fn report(&self) -> String {
        let mut out = format!(
            "{}: {} molecules read, {} rows skipped",
            self.source,
            self.records.len(),
            self.errors.len()
        );
        if !self.property_names.is_empty() {
            out.push_str(&format!("; properties: {}", self.property_names.join(", ")));
        }
        for e in &self.errors {
            out.push('\n');
            out.push_str(&e.to_string());
        }
        out
    }
}

/// The SMILES of the shipped offline dataset, as written in the file (5,000 of them).
pub fn offline_smiles() -> Result<Vec<String>, LoadError> {
    let text = gunzip(OFFLINE_CSV_GZ, OFFLINE_SOURCE)?;
    let mut lines = text.lines();
    match lines.next() {
        Some("smiles") => {}
        other => {
            return Err(LoadError::Format {
                path: OFFLINE_SOURCE.to_owned(),
                line: 1,
                reason: format!("expected the header `smiles`, found {other:?}"),
            });
        }
    }
    Ok(lines.filter(|l| !l.is_empty()).map(str::to_owned).collect())
}

/// The shipped offline dataset parsed by RDKit (canonical SMILES, no properties: score them
/// with [`crate::props`] or [`crate::objectives`]).
pub fn offline_dataset() -> Result<Dataset, LoadError> {
    let text = gunzip(OFFLINE_CSV_GZ, OFFLINE_SOURCE)?;
    read_csv(&text, OFFLINE_SOURCE)
}

/// Loads a user dataset, choosing the reader by extension: `.csv`, `.smi` (also `.smiles`,
/// `.txt`) or `.sdf` (also `.sd`), each optionally gzipped (`.gz`).
pub fn load(path: &Path) -> Result<Dataset, LoadError> {
    let name = path.display().to_string();
    let bytes = files::read_bytes(path, files::MAX_DATA_BYTES).map_err(|e| LoadError::Io {
        path: name.clone(),
        reason: e.to_string(),
    })?;
    let lower = name.to_ascii_lowercase();
    let (stem, text) = match lower.strip_suffix(".gz") {
        Some(stem) => (stem.to_owned(), gunzip(&bytes, &name)?),
        None => (
            lower.clone(),
            String::from_utf8(bytes).map_err(|e| LoadError::Io {
                path: name.clone(),
                reason: format!("not UTF-8 text: {e}"),
            })?,
        ),
    };
    if stem.ends_with(".csv") {
        read_csv(&text, &name)
    } else if stem.ends_with(".smi") || stem.ends_with(".smiles") || stem.ends_with(".txt") {
        Ok(read_smi(&text, &name))
    } else if stem.ends_with(".sdf") || stem.ends_with(".sd") {
        Ok(read_sdf(&text, &name))
    } else {
        Err(LoadError::UnknownFormat { path: name })
    }
}

fn gunzip(bytes: &[u8], path: &str) -> Result<String, LoadError> {
    let mut text = String::new();
    GzDecoder::new(bytes)
        .read_to_string(&mut text)
        .map_err(|e| LoadError::Io {
            path: path.to_owned(),
            reason: format!("gzip: {e}"),
        })?;
    Ok(text)
}

/// Parses a cell as a property value: empty, `NA`, `N/A` and `nan` are missing.
fn parse_value(cell: &str) -> Result<Option<f64>, ()> {
    let t = cell.trim();
    if t.is_empty() || ["na", "n/a", "nan", "none"].contains(&t.to_ascii_lowercase().as_str()) {
        return Ok(None);
    }
    t.parse::<f64>().map(Some).map_err(|_| ())
}

fn is_name_column(header: &str) -> bool {
    ["name", "id", "title", "mol_id", "molecule_id"].contains(&header.to_ascii_lowercase().as_str())
}

/// Parses `input` with RDKit: the record, or the row error.
fn parse_row(
    input: &str,
    path: &str,
    line: u64,
    name: Option<String>,
    values: Vec<Option<f64>>,
) -> Result<Record, RowError> {
    let err = |reason: String| RowError {
        path: path.to_owned(),
        line,
        input: input.to_owned(),
        reason,
    };
    if input.trim().is_empty() {
        return Err(err("empty SMILES".to_owned()));
    }
    let mol = Molecule::from_smiles(input.trim()).map_err(|e| err(e.to_string()))?;
    let smiles = mol.canonical_smiles().map_err(|e| err(e.to_string()))?;
    Ok(Record {
        line,
        smiles,
        input: input.to_owned(),
        name,
        values,
    })
}

/// Reads CSV text with a header row containing a `smiles` column (any case). A `name`, `id` or
/// `title` column gives [`Record::name`]; every other column whose non-missing cells all parse
/// as numbers is a property column, the rest are listed in [`Dataset::ignored_columns`].
/// `path` names the source in errors.
pub fn read_csv(text: &str, path: &str) -> Result<Dataset, LoadError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text.as_bytes());
    let format = |line: u64, reason: String| LoadError::Format {
        path: path.to_owned(),
        line,
        reason,
    };
    let headers = reader
        .headers()
        .map_err(|e| format(1, format!("cannot read the header: {e}")))?
        .clone();
    let smiles_col = headers
        .iter()
        .position(|h| h.trim().eq_ignore_ascii_case("smiles"))
        .ok_or_else(|| {
            format(
                1,
                format!(
                    "no `smiles` column (columns: {})",
                    headers.iter().collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
    let name_col = headers
        .iter()
        .enumerate()
        .find(|(i, h)| *i != smiles_col && is_name_column(h.trim()))
        .map(|(i, _)| i);
    let mut rows = Vec::new();
    for result in reader.records() {
        let record = result.map_err(|e| {
            let line = e.position().map_or(0, csv::Position::line);
            format(line, e.to_string())
        })?;
        let line = record.position().map_or(0, csv::Position::line);
        rows.push((line, record));
    }
    let other: Vec<usize> = (0..headers.len())
        .filter(|&i| i != smiles_col && Some(i) != name_col)
        .collect();
    let (numeric, ignored): (Vec<usize>, Vec<usize>) = other
        .into_iter()
        .partition(|&i| rows.iter().all(|(_, r)| parse_value(&r[i]).is_ok()));
    let mut data = Dataset {
        source: path.to_owned(),
        property_names: numeric
            .iter()
            .map(|&i| headers[i].trim().to_owned())
            .collect(),
        ignored_columns: ignored
            .iter()
            .map(|&i| headers[i].trim().to_owned())
            .collect(),
        ..Dataset::default()
    };
    for (line, r) in &rows {
        let name = name_col
            .map(|i| r[i].trim().to_owned())
            .filter(|s| !s.is_empty());
        let values = numeric
            .iter()
            .map(|&i| parse_value(&r[i]).ok().flatten())
            .collect();
        match parse_row(&r[smiles_col], path, *line, name, values) {
            Ok(rec) => data.records.push(rec),
            Err(e) => data.errors.push(e),
        }
    }
    Ok(data)
}

/// Reads SMI text: one SMILES per line, optionally followed by whitespace and a name. Blank
/// lines and lines starting with `#` are skipped; a first line whose first field is `smiles`
/// (any case) is a header. `path` names the source in errors.
pub fn read_smi(text: &str, path: &str) -> Dataset {
    let mut data = Dataset {
        source: path.to_owned(),
        ..Dataset::default()
    };
    for (i, raw) in text.lines().enumerate() {
        let line = i as u64 + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let mut fields = trimmed.splitn(2, char::is_whitespace);
        let smiles = fields.next().unwrap_or_default();
        if i == 0 && smiles.eq_ignore_ascii_case("smiles") {
            continue;
        }
        let name = fields
            .next()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty());
        match parse_row(smiles, path, line, name, Vec::new()) {
            Ok(rec) => data.records.push(rec),
            Err(e) => data.errors.push(e),
        }
    }
    data
}

/// One SDF record split into its parts.
struct SdfRecord<'a> {
    first_line: u64,
    title: &'a str,
    block: String,
    items: Vec<(String, String)>,
}

fn split_sdf(text: &str) -> Vec<SdfRecord<'_>> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut start = 0;
    while start < lines.len() {
        let end = (start..lines.len())
            .find(|&k| lines[k].trim_end() == "$$$$")
            .unwrap_or(lines.len());
        let rec = &lines[start..end];
        if rec.iter().any(|l| !l.trim().is_empty()) {
            let m_end = rec.iter().position(|l| l.trim_end() == "M  END");
            let block_len = m_end.map_or(rec.len(), |k| k + 1);
            let mut block = rec[..block_len].join("\n");
            block.push('\n');
            let mut items = Vec::new();
            let mut k = block_len;
            while k < rec.len() {
                let l = rec[k];
                if l.starts_with('>') {
                    let name = match (l.find('<'), l.rfind('>')) {
                        (Some(a), Some(b)) if b > a => l[a + 1..b].to_owned(),
                        _ => String::new(),
                    };
                    let mut value = Vec::new();
                    k += 1;
                    while k < rec.len() && !rec[k].trim().is_empty() {
                        value.push(rec[k].trim_end());
                        k += 1;
                    }
                    if !name.is_empty() {
                        items.push((name, value.join("\n")));
                    }
                }
                k += 1;
            }
            out.push(SdfRecord {
                first_line: start as u64 + 1,
                title: rec.first().map_or("", |t| t.trim()),
                block,
                items,
            });
        }
        start = end + 1;
    }
    out
}

/// Reads SDF text (mol blocks separated by `$$$$`, data items `> <name>`). Each mol block is
/// parsed by RDKit (`MolBlockToMol`); data items whose values all parse as numbers become
/// property columns (missing in a record: `None`). The record title is [`Record::name`].
/// `path` names the source in errors.
pub fn read_sdf(text: &str, path: &str) -> Dataset {
    let records = split_sdf(text);
    let mut names: Vec<String> = Vec::new();
    for r in &records {
        for (n, _) in &r.items {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    let (numeric, ignored): (Vec<String>, Vec<String>) = names.into_iter().partition(|n| {
        records.iter().all(|r| {
            r.items
                .iter()
                .filter(|(k, _)| k == n)
                .all(|(_, v)| parse_value(v).is_ok())
        })
    });
    let mut data = Dataset {
        source: path.to_owned(),
        property_names: numeric.clone(),
        ignored_columns: ignored,
        ..Dataset::default()
    };
    for r in records {
        let values = numeric
            .iter()
            .map(|n| {
                r.items
                    .iter()
                    .find(|(k, _)| k == n)
                    .and_then(|(_, v)| parse_value(v).ok().flatten())
            })
            .collect();
        let name = Some(r.title.to_owned()).filter(|s| !s.is_empty());
        let parsed = Molecule::from_molblock(&r.block).and_then(|m| m.canonical_smiles());
        match parsed {
            Ok(smiles) => data.records.push(Record {
                line: r.first_line,
                input: smiles.clone(),
                smiles,
                name,
                values,
            }),
            Err(e) => data.errors.push(RowError {
                path: path.to_owned(),
                line: r.first_line,
                input: r.title.to_owned(),
                reason: e.to_string(),
            }),
        }
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offline_set_has_5000_smiles_in_file_order() {
        let smiles = offline_smiles().unwrap();
        assert_eq!(smiles.len(), OFFLINE_SIZE);
        // First and last rows as written by scripts/make_molstitch_offline.py.
        assert_eq!(smiles[0], "CCN(CC)C(=O)c1ccccc1C(=O)N(CC)CC");
        assert_eq!(smiles[1], "CC(C)Nc1nc(NC(C)C)nc(N(C)C(N)=O)n1");
        let distinct: HashSet<&String> = smiles.iter().collect();
        assert_eq!(distinct.len(), OFFLINE_SIZE);
    }

    #[test]
    fn offline_dataset_parses_every_molecule() {
        let data = offline_dataset().unwrap();
        assert_eq!(data.records.len(), OFFLINE_SIZE, "{}", data.report());
        assert!(data.errors.is_empty());
        assert!(data.property_names.is_empty());
        assert_eq!(data.records[0].line, 2);
        assert_eq!(data.records[4999].line, 5001);
        // MOSES stores RDKit canonical SMILES already.
        let same = data.records.iter().filter(|r| r.smiles == r.input).count();
        assert!(same > 4900, "{same}");
    }

    #[test]
    fn offline_property_sums_equal_python_rdkit() {
        // `python3 scripts/make_molstitch_offline.py --sums 300` (RDKit 2026.09.1 in Python).
        let want = [
            91_217.816_999_999_98,
            776.365_600_000_000_4,
            19_814.32,
            237.178_340_605_146_56,
            664.786_603_142_295_7,
        ];
        let smiles = offline_smiles().unwrap();
        let mut got = [0.0; 5];
        for s in &smiles[..300] {
            let p = crate::props::Properties::from_smiles(s).unwrap();
            for (g, v) in got.iter_mut().zip([p.mw, p.logp, p.tpsa, p.qed, p.sa]) {
                *g += v;
            }
        }
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-8 * w.abs(), "{got:?} vs {want:?}");
        }
    }

    #[test]
    fn csv_reads_properties_names_and_reports_bad_rows_by_line() {
        let text = "id,SMILES,pIC50,note\n\
                    a,CCO,5.5,x\n\
                    b,C1CC(,6,y\n\
                    c,c1ccccc1,,z\n\
                    d,,7,w\n";
        let data = read_csv(text, "user.csv").unwrap();
        assert_eq!(data.property_names, ["pIC50"]);
        assert_eq!(data.ignored_columns, ["note"]);
        assert_eq!(data.records.len(), 2);
        assert_eq!(data.records[0].smiles, "CCO");
        assert_eq!(data.records[0].name.as_deref(), Some("a"));
        assert_eq!(data.records[0].values, [Some(5.5)]);
        assert_eq!(data.records[1].values, [None]);
        assert_eq!(data.records[1].line, 4);
        assert_eq!(data.errors.len(), 2);
        assert_eq!(data.errors[0].line, 3);
        assert_eq!(data.errors[0].input, "C1CC(");
        assert!(
            data.errors[0]
                .to_string()
                .starts_with("user.csv:3: \"C1CC(\"")
        );
        assert_eq!(data.errors[1].line, 5);
        assert_eq!(data.errors[1].reason, "empty SMILES");
        assert_eq!(data.property("pIC50").unwrap(), [Some(5.5), None]);
        assert!(data.property("note").is_none());
        assert!(data.report().contains("user.csv:5:"));
    }

    #[test]
    fn csv_structure_errors_name_file_and_line() {
        match read_csv("name,value\na,1\n", "x.csv") {
            Err(LoadError::Format { path, line, reason }) => {
                assert_eq!((path.as_str(), line), ("x.csv", 1));
                assert!(reason.contains("smiles"));
            }
            other => panic!("{other:?}"),
        }
        let err = read_csv("smiles,v\nCCO,1\nCCC,2,3\n", "y.csv").unwrap_err();
        assert!(matches!(err, LoadError::Format { line: 3, .. }), "{err:?}");
        assert!(err.to_string().starts_with("y.csv:3:"));
    }

    #[test]
    fn smi_reads_names_skips_header_comments_and_keeps_errors() {
        let text =
            "SMILES Name\nCCO ethanol\n\n# comment\nnot_a_smiles junk\nc1ccccc1\tbenzene ring\n";
        let data = read_smi(text, "u.smi");
        assert_eq!(data.records.len(), 2);
        assert_eq!(data.records[0].name.as_deref(), Some("ethanol"));
        assert_eq!(data.records[0].line, 2);
        assert_eq!(data.records[1].name.as_deref(), Some("benzene ring"));
        assert_eq!(data.records[1].line, 6);
        assert_eq!(data.errors.len(), 1);
        assert_eq!(data.errors[0].line, 5);
        assert_eq!(data.errors[0].input, "not_a_smiles");
    }

    const ETHANOL_BLOCK: &str = "ethanol
  handmade

  3  2  0  0  0  0  0  0  0  0999 V2000
    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0
    1.2990    0.7500    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0
    2.5981   -0.0000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0
  1  2  1  0
  2  3  1  0
M  END
";

    #[test]
    fn sdf_reads_blocks_data_items_and_keeps_bad_records() {
        // Record 2 has a carbon with five bonds declared (valence error).
        let bad = "bad
  handmade

  6  5  0  0  0  0  0  0  0  0999 V2000
    0.0000    0.0000    0.0000 C   0  0
    1.0000    0.0000    0.0000 C   0  0
   -1.0000    0.0000    0.0000 C   0  0
    0.0000    1.0000    0.0000 C   0  0
    0.0000   -1.0000    0.0000 C   0  0
    0.5000    0.5000    0.0000 C   0  0
  1  2  1  0
  1  3  1  0
  1  4  1  0
  1  5  1  0
  1  6  1  0
M  END
";
        let text = format!(
            "{ETHANOL_BLOCK}> <logS>\n1.10\n\n> <source>\nlab A\n\n$$$$\n{bad}> <logS>\n2\n\n$$$$\n{ETHANOL_BLOCK}$$$$\n"
        );
        let data = read_sdf(&text, "s.sdf");
        assert_eq!(data.property_names, ["logS"]);
        assert_eq!(data.ignored_columns, ["source"]);
        assert_eq!(data.records.len(), 2, "{}", data.report());
        assert_eq!(data.records[0].smiles, "CCO");
        assert_eq!(data.records[0].name.as_deref(), Some("ethanol"));
        assert_eq!(data.records[0].values, [Some(1.1)]);
        assert_eq!(data.records[0].line, 1);
        assert_eq!(data.records[1].values, [None]);
        assert_eq!(data.errors.len(), 1);
        assert_eq!(data.errors[0].input, "bad");
        assert_eq!(data.errors[0].line, 18);
        assert!(data.errors[0].to_string().starts_with("s.sdf:18:"));
    }

    #[test]
    fn load_picks_the_reader_by_extension() {
        let dir = std::env::temp_dir().join(format!("molstitch-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let smi = dir.join("a.smi");
        std::fs::write(&smi, "CCO x\nC1CC( y\n").unwrap();
        let d = load(&smi).unwrap();
        assert_eq!((d.records.len(), d.errors.len()), (1, 1));
        let gz = dir.join("a.csv.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut enc, b"smiles,qed\nCCO,0.4\n").unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        let d = load(&gz).unwrap();
        assert_eq!(d.records[0].values, [Some(0.4)]);
        let sdf = dir.join("a.sdf");
        std::fs::write(&sdf, format!("{ETHANOL_BLOCK}$$$$\n")).unwrap();
        assert_eq!(load(&sdf).unwrap().records[0].smiles, "CCO");
        assert!(matches!(
            load(&dir.join("a.xyz")),
            Err(LoadError::Io { .. })
        ));
        std::fs::write(dir.join("a.xyz"), "").unwrap();
        assert!(matches!(
            load(&dir.join("a.xyz")),
            Err(LoadError::UnknownFormat { .. })
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn robust_every_loader_refuses_overlong_and_control_character_rows_by_line() {
        let long = "C".repeat(10_002);
        let text = format!("smiles,id\nCCO,a\n{long},b\nCC\0O,c\n");
        let data = read_csv(&text, "big.csv").unwrap();
        assert_eq!(data.records.len(), 1, "{}", data.report());
        assert_eq!(data.errors.len(), 2);
        assert_eq!(data.errors[0].line, 3);
        assert_eq!(
            data.errors[0].reason,
            "the SMILES is 10,002 characters long; Benchtop reads SMILES up to 1,000 characters"
        );
        // The report does not repeat the 10,002 characters.
        let shown = data.errors[0].to_string();
        assert!(
            shown.starts_with(
                "big.csv:3: \"CCCCCCCCCCCCCCCCCCCCCCCCCCCCCC…\" (10,002 characters): the SMILES is"
            ),
            "{shown}"
        );
        assert_eq!(data.errors[1].line, 4);
        assert!(
            data.errors[1]
                .reason
                .contains("control character (NUL, U+0000) at character 3"),
            "{}",
            data.errors[1].reason
        );
        let data = read_smi(&format!("CCO\n{long} big\nCC\0O nul\n"), "big.smi");
        assert_eq!((data.records.len(), data.errors.len()), (1, 2));
        assert_eq!((data.errors[0].line, data.errors[1].line), (2, 3));
        let v3000 = "big\n  handmade\n\n  0  0  0     0  0            999 V3000\n\
                     M  V30 BEGIN CTAB\nM  V30 COUNTS 12000 11999 0 0 0\nM  V30 END CTAB\nM  END\n";
        let data = read_sdf(&format!("{ETHANOL_BLOCK}$$$$\n{v3000}$$$$\n"), "big.sdf");
        assert_eq!((data.records.len(), data.errors.len()), (1, 1));
        assert_eq!(data.errors[0].line, 12);
        assert_eq!(
            data.errors[0].reason,
            "the mol block declares 12,000 atoms; Benchtop reads molecules of up to 1,000 atoms"
        );
    }
}
