//! The SMILES of a file a user hands over, and the properties table of `benchtop chem props`.
//!
//! A file is a `.smi` (one SMILES per line, optionally followed by a name; blank lines and `#`
//! comments skipped; a first line `smiles` is a header) or a CSV with a `smiles` column (any
//! case). The table has one row per input molecule, in input order, with the columns
//! [`PROPS_COLUMNS`]: `smiles` is the input as written, `error` is empty unless that SMILES is
//! invalid (then the numeric columns are empty).

use benchtop_compute::files;
use std::path::Path;

use thiserror::Error;

use crate::error::ChemError;
use crate::props::Properties;

/// The header of the properties CSV (an interface other tools parse: keep it stable).
pub const PROPS_COLUMNS: [&str; 7] = ["smiles", "mw", "logp", "tpsa", "qed", "sa", "error"];

/// Why the SMILES of a file could not be read; each names the file (and the line).
#[derive(Debug, Error)]
pub enum SmilesFileError {
    /// The file could not be read as text (the message names it).
    #[error("{0}")]
    Read(String),
    /// The CSV header could not be read.
    #[error("{file}: cannot read the CSV header: {source}")]
    Header {
        /// The file.
        file: String,
        /// Why.
        source: csv::Error,
    },
    /// The CSV has no `smiles` column.
    #[error("{file}: no `smiles` column (the header has: {header})")]
    NoColumn {
        /// The file.
        file: String,
        /// The header's columns, comma-separated.
        header: String,
    },
    /// A CSV row could not be read.
    #[error("{file}: line {line}: {source}")]
    Row {
        /// The file.
        file: String,
        /// The line, counting the header as line 1.
        line: usize,
        /// Why.
        source: csv::Error,
    },
    /// The table could not be written.
    #[error("writing the properties table: {0}")]
    Write(String),
}

/// Reads the SMILES of `input` in order: SMI text, or a CSV's `smiles` column.
pub fn read_smiles(input: &Path) -> Result<Vec<String>, SmilesFileError> {
    let text = files::read_text(input, files::MAX_DATA_BYTES)
        .map_err(|error| SmilesFileError::Read(error.to_string()))?;
    let is_csv = input
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    if is_csv {
        smiles_column(&text, &input.display().to_string())
    } else {
        Ok(smi_lines(&text))
    }
}

/// The first whitespace-separated field of each SMI line (see the module docs).
pub fn smi_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let first = trimmed.split_whitespace().next().unwrap_or_default();
        if i == 0 && first.eq_ignore_ascii_case("smiles") {
            continue;
        }
        out.push(first.to_owned());
    }
    out
}

/// The `smiles` column of CSV `text`; `source` names the file in errors.
pub fn smiles_column(text: &str, source: &str) -> Result<Vec<String>, SmilesFileError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|error| SmilesFileError::Header {
            file: source.to_owned(),
            source: error,
        })?
        .clone();
    let column = headers
        .iter()
        .position(|h| h.eq_ignore_ascii_case("smiles"))
        .ok_or_else(|| SmilesFileError::NoColumn {
            file: source.to_owned(),
            header: headers.iter().collect::<Vec<_>>().join(", "),
        })?;
    let mut out = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|error| SmilesFileError::Row {
            file: source.to_owned(),
            // Line 1 is the header.
            line: i + 2,
            source: error,
        })?;
        out.push(record.get(column).unwrap_or_default().to_owned());
    }
    Ok(out)
}

/// The properties CSV text for `smiles` and their scores (same length, same order).
pub fn props_csv(
    smiles: &[String],
    scored: &[Result<Properties, ChemError>],
) -> Result<String, SmilesFileError> {
    let write = |error: &dyn std::fmt::Display| SmilesFileError::Write(error.to_string());
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(PROPS_COLUMNS).map_err(|e| write(&e))?;
    for (input, result) in smiles.iter().zip(scored) {
        let row = match result {
            Ok(p) => [
                input.clone(),
                format!("{:.4}", p.mw),
                format!("{:.4}", p.logp),
                format!("{:.4}", p.tpsa),
                format!("{:.6}", p.qed),
                format!("{:.6}", p.sa),
                String::new(),
            ],
            Err(e) => [
                input.clone(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                e.to_string(),
            ],
        };
        writer.write_record(&row).map_err(|e| write(&e))?;
    }
    let bytes = writer.into_inner().map_err(|e| write(&e))?;
    String::from_utf8(bytes).map_err(|e| write(&e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::props::score_all_parallel;

    #[test]
    fn smi_lines_skip_comments_headers_and_names() {
        let text = "smiles name\n# comment\nCCO ethanol\n\n  c1ccccc1  \nC1CC(\n";
        assert_eq!(smi_lines(text), ["CCO", "c1ccccc1", "C1CC("]);
    }

    #[test]
    fn csv_column_is_found_in_any_case_and_missing_column_names_the_file() {
        let text = "id,SMILES,value\n1,CCO,2\n2,c1ccccc1,3\n";
        assert_eq!(smiles_column(text, "a.csv").unwrap(), ["CCO", "c1ccccc1"]);
        let err = smiles_column("id,value\n1,2\n", "b.csv").unwrap_err();
        let message = err.to_string();
        assert!(
            message.contains("b.csv") && message.contains("smiles"),
            "{message}"
        );
    }

    #[test]
    fn props_rows_keep_order_and_mark_invalid_smiles() {
        let smiles = vec!["CCO".to_owned(), "C1CC(".to_owned(), "c1ccccc1".to_owned()];
        let scored = score_all_parallel(&smiles, 2);
        let text = props_csv(&smiles, &scored).unwrap();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows[0], PROPS_COLUMNS.join(","));
        assert_eq!(rows.len(), 4);
        // Ethanol: MW 46.069, TPSA 20.23 (RDKit).
        assert!(rows[1].starts_with("CCO,46.0690,"), "{}", rows[1]);
        assert!(
            rows[1].contains(",20.2300,") && rows[1].ends_with(','),
            "{}",
            rows[1]
        );
        assert!(rows[2].starts_with("C1CC(,,,,,,"), "{}", rows[2]);
        assert!(rows[2].contains("invalid SMILES"), "{}", rows[2]);
        assert!(rows[3].starts_with("c1ccccc1,78.1140,"), "{}", rows[3]);
    }
}
