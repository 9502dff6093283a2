//! `benchtop chem props INPUT --out OUT.csv`: RDKit properties of every molecule of a file
//! (the table itself is [`benchtop_chem::smiles_file`]'s).
//!
//! INPUT is a `.smi` file (one SMILES per line, optionally followed by a name; blank lines and
//! `#` comments skipped; a first line `smiles` is a header) or a CSV with a `smiles` column
//! (any case). OUT has one row per input molecule, in input order, with the columns
//! `smiles,mw,logp,tpsa,qed,sa,error`: `smiles` is the input as written, `error` is empty unless
//! that SMILES is invalid (then the numeric columns are empty). A SMILES longer than
//! [`benchtop_chem::MAX_SMILES_CHARS`] characters or holding a control character is refused
//! before RDKit sees it, as that row's error (so one absurd row cannot stall the file).
//!
//! OUT is written atomically (a temporary file renamed over it: a failed write leaves any
//! previous OUT intact), and OUT naming INPUT itself is refused before anything is computed. A
//! report goes to stderr: the counts, then the first invalid rows as `row N: why` (N counts the
//! molecules from 1, as the rows of OUT after its header).

use std::path::{Path, PathBuf};

use benchtop_chem::ChemError;
use benchtop_chem::props::score_all_parallel;
use benchtop_chem::smiles_file::{props_csv, read_smiles};
use benchtop_kit::cli::{CommandEntry, refuse_output_over_input, run_command, write_output};

/// The panel's own subcommand.
pub const COMMANDS: &[CommandEntry] = &[CommandEntry {
    name: "chem",
    about: "Chemistry utilities (RDKit): `chem props INPUT --out OUT.csv`",
    run: |args| run_command("chem", args, command),
}];

/// Options of `benchtop chem`.
#[derive(Debug, clap::Parser)]
#[command(name = "benchtop chem", about = "Chemistry utilities (RDKit)")]
pub struct ChemArgs {
    /// What to compute.
    #[command(subcommand)]
    pub command: ChemCommand,
}

/// The `benchtop chem` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum ChemCommand {
    /// MW, Crippen logP, TPSA, QED and SA of every molecule, as CSV
    /// (`smiles,mw,logp,tpsa,qed,sa,error`; `error` is empty unless the SMILES is invalid).
    Props {
        /// A `.smi` file, or a CSV with a `smiles` column.
        input: PathBuf,
        /// Where to write the CSV.
        #[arg(long)]
        out: PathBuf,
    },
}

/// Runs `benchtop chem` with `args`.
pub fn command(args: &ChemArgs) -> anyhow::Result<()> {
    match &args.command {
        ChemCommand::Props { input, out } => props(input, out),
    }
}

/// How many invalid rows the stderr report names (the `error` column has them all).
const REPORTED_ERRORS: usize = 5;

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
    benchtop_kit::note!(
        "{}: {} molecules, {} invalid; written to {}",
        input.display(),
        smiles.len(),
        invalid.len(),
        out.display()
    );
    for (row, error) in invalid.iter().take(REPORTED_ERRORS) {
        benchtop_kit::note!("row {row}: {error}");
    }
    if invalid.len() > REPORTED_ERRORS {
        benchtop_kit::note!(
            "… and {} more invalid rows (see the `error` column)",
            invalid.len() - REPORTED_ERRORS
        );
    }
    Ok(())
}
