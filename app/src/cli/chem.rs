//! `benchtop chem props INPUT --out OUT.csv`: RDKit properties of every molecule of a file.
//!
//! INPUT is a `.smi` file (one SMILES per line, optionally followed by a name; blank lines and
//! `#` comments skipped; a first line `smiles` is a header) or a CSV with a `smiles` column
//! (any case). OUT has one row per input molecule, in input order, with the columns
//! `smiles,mw,logp,tpsa,qed,sa,error`: `smiles` is the input as written, `error` is empty unless
//! that SMILES is invalid (then the numeric columns are empty). A SMILES longer than
//! [`benchtop_molstitch::MAX_SMILES_CHARS`] characters or holding a control character is refused
//! before RDKit sees it, as that row's error (so one absurd row cannot stall the file).
//!
//! OUT is written atomically (a temporary file renamed over it: a failed write leaves any
//! previous OUT intact), and OUT naming INPUT itself is refused before anything is computed. A
//! report goes to stderr: the counts, then the first invalid rows as `row N: why` (N counts the
//! molecules from 1, as the rows of OUT after its header).

use std::path::Path;

use anyhow::Context as _;
use benchtop_kit::project::write_atomic;
use benchtop_molstitch::ChemError;
use benchtop_molstitch::props::{Properties, score_all_parallel};

/// How many invalid rows the stderr report names (the `error` column has them all).
const REPORTED_ERRORS: usize = 5;

/// The header of the output CSV (an interface other tools parse: keep it stable).
pub const PROPS_COLUMNS: [&str; 7] = ["smiles", "mw", "logp", "tpsa", "qed", "sa", "error"];

/// Reads the SMILES of `input` in order: SMI text, or a CSV's `smiles` column.
pub fn read_smiles(input: &Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(input)
        .with_context(|| format!("cannot read {}", input.display()))?;
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
pub fn smiles_column(text: &str, source: &str) -> anyhow::Result<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .with_context(|| format!("{source}: cannot read the CSV header"))?
        .clone();
    let column = headers
        .iter()
        .position(|h| h.eq_ignore_ascii_case("smiles"))
        .with_context(|| {
            format!(
                "{source}: no `smiles` column (the header has: {})",
                headers.iter().collect::<Vec<_>>().join(", ")
            )
        })?;
    let mut out = Vec::new();
    for (i, record) in reader.records().enumerate() {
        // Line 1 is the header.
        let record = record.with_context(|| format!("{source}: line {}", i + 2))?;
        out.push(record.get(column).unwrap_or_default().to_owned());
    }
    Ok(out)
}

/// The output CSV text for `smiles` and their scores (same length, same order).
pub fn props_csv(
    smiles: &[String],
    scored: &[Result<Properties, ChemError>],
) -> anyhow::Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(PROPS_COLUMNS)?;
    for (input, result) in smiles.iter().zip(scored) {
        match result {
            Ok(p) => writer.write_record([
                input.clone(),
                format!("{:.4}", p.mw),
                format!("{:.4}", p.logp),
                format!("{:.4}", p.tpsa),
                format!("{:.6}", p.qed),
                format!("{:.6}", p.sa),
                String::new(),
            ])?,
            Err(e) => writer.write_record([input.as_str(), "", "", "", "", "", &e.to_string()])?,
        }
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}

/// Whether `a` and `b` are one existing file: the same path once symbolic links and `..` are
/// resolved, or (on Unix) two hard links to one inode. A path that does not exist is no file.
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(a), Ok(b)) = (std::fs::canonicalize(a), std::fs::canonicalize(b)) else {
        return false;
    };
    if a == b {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        if let (Ok(m), Ok(n)) = (std::fs::metadata(&a), std::fs::metadata(&b)) {
            return m.dev() == n.dev() && m.ino() == n.ino();
        }
    }
    false
}

/// Refuses an output path that is the input file itself (also through a symbolic or hard
/// link): writing it would replace the input. `flag` names the option (`--out`, `--csv`).
/// Call it before computing anything.
pub fn refuse_output_over_input(input: &Path, output: &Path, flag: &str) -> anyhow::Result<()> {
    if same_file(input, output) {
        anyhow::bail!(
            "{flag} {} is the input file {}: writing it would replace the input; choose \
             another output path",
            output.display(),
            input.display()
        );
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically, creating its folder first.
pub fn write_output(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    write_atomic(path, bytes).with_context(|| format!("cannot write {}", path.display()))
}

/// Scores `input` on every core and writes `out` atomically; reports the counts and the first
/// invalid rows on stderr. `out` naming the input file is refused before anything is read.
pub fn props(input: &Path, out: &Path) -> anyhow::Result<()> {
    refuse_output_over_input(input, out, "--out")?;
    let smiles = read_smiles(input)?;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let scored = score_all_parallel(&smiles, threads);
    let text = props_csv(&smiles, &scored)?;
    write_output(out, text.as_bytes())?;
    let invalid: Vec<(usize, &ChemError)> = scored
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().err().map(|e| (i + 1, e)))
        .collect();
    eprintln!(
        "{}: {} molecules, {} invalid; written to {}",
        input.display(),
        smiles.len(),
        invalid.len(),
        out.display()
    );
    for (row, error) in invalid.iter().take(REPORTED_ERRORS) {
        eprintln!("row {row}: {error}");
    }
    if invalid.len() > REPORTED_ERRORS {
        eprintln!(
            "… and {} more invalid rows (see the `error` column)",
            invalid.len() - REPORTED_ERRORS
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let message = format!("{err:#}");
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
