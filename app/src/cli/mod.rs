//! The command line: the same binary opens the window or works headless.
//!
//! - `benchtop` opens the window (last project, or the welcome tour);
//! - `benchtop open FILE` opens a project in the window;
//! - `benchtop run FILE --out DIR` computes every panel and sweep of a project and writes figures,
//!   CSV data, provenance and `summary.json`;
//! - `benchtop bench ENGINE [--option value …]` prints one JSON object of throughput and the
//!   correctness observables of that run (each panel owns its entries; [`bench`] dispatches);
//! - the panels' own subcommands, found through the catalog ([`panel_command`]): `benchtop
//!   spectra`, `benchtop reflect`, `benchtop chem props`;
//! - `benchtop sweep submit|run-task|collect|status|cancel` runs a sweep's points on a Slurm
//!   cluster and merges them back (`benchtop run FILE --slurm` / `--collect` does so for a whole
//!   run);
//! - `benchtop params [KIND]` lists the declared parameters of the panel kinds;
//! - `benchtop doctor` lists the compute backends and system libraries in use.

pub mod bench;
pub mod doctor;
pub mod params;
pub mod run;
pub mod sweep;

use std::path::PathBuf;

use std::fmt::Write as _;

use clap::{Parser, Subcommand};

/// Benchtop: small, real reproductions of ICML 2025 methods you can steer.
#[derive(Debug, Parser)]
#[command(name = "benchtop", version = crate::build_info::APP_VERSION, about)]
pub struct Cli {
    /// What to do (default: open the window).
    #[command(subcommand)]
    pub command: Option<CliCommand>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum CliCommand {
    /// Open a project file in the window.
    Open {
        /// The project file (`.ron`).
        file: PathBuf,
    },
    /// Compute every panel and sweep of a project without a window and export the results.
    Run {
        /// The project file (`.ron`).
        file: PathBuf,
        /// Folder for figures, CSV, provenance and summary.json (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// Figure formats, comma-separated: svg, png, pdf.
        #[arg(long, default_value = "svg,png,pdf", value_delimiter = ',')]
        format: Vec<String>,
        /// Resolution of PNG figures in dots per inch.
        #[arg(long, default_value_t = 300)]
        dpi: u32,
        /// Save the computed results back into the project file.
        #[arg(long)]
        save: bool,
        /// Apply the project's preset NAME first (e.g. `test`, the size the test suite runs).
        #[arg(long)]
        preset: Option<String>,
        /// Check every figure's layout as it is exported (overlapping or clipped text, legends
        /// over the data, internal keys shown, bars on log axes, squashed plots); fails listing
        /// what it found.
        #[arg(long)]
        check_figures: bool,
        /// Set a declared parameter first: `PANE:KEY=VALUE`, e.g. `1:mc.beta=0.3` (repeatable;
        /// `benchtop params` lists the keys).
        #[arg(
            long = "set",
            value_name = "PANE:KEY=VALUE",
            allow_hyphen_values = true
        )]
        set: Vec<String>,
        /// Submit the run to Slurm as one job instead of computing here (see `benchtop sweep`);
        /// `--collect` brings its outputs into `--out` when it has finished.
        #[arg(long)]
        slurm: bool,
        /// Copy the outputs of the newest finished `--slurm` run into `--out` (with `--save`,
        /// its results into the project, unless the project changed since it was submitted).
        #[arg(long)]
        collect: bool,
        /// Slurm settings for `--slurm`.
        #[command(flatten)]
        cluster: sweep::SlurmArgs,
    },
    /// Sweeps on a Slurm cluster: submit a sweep's points as an array job, check on it, collect
    /// its results into the project.
    Sweep {
        /// What to do.
        #[command(subcommand)]
        command: sweep::SweepCommand,
    },
    /// List the declared parameters of every panel kind (or of KIND): key, label, unit,
    /// accepted range, whether it is a whole number and sweepable, and its default.
    Params {
        /// A panel kind id, e.g. `ising` (default: every kind).
        kind: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Benchmark an engine; prints exactly one JSON object on stdout.
    Bench {
        /// The engine (`benchtop --help` lists them): `ising`, `sht`, `findr`, `hymn`, ….
        engine: String,
        /// Engine options, e.g. `--size 1024 --beta 0.44 --sweeps 200 --backend cpu`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        options: Vec<String>,
    },
    /// List the compute backends found and the system libraries in use.
    Doctor {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// A panel's own subcommand (`benchtop --help` lists them): the name and its arguments.
    #[command(external_subcommand)]
    Panel(Vec<String>),
}

/// Runs a panel's own subcommand: `words[0]` names it, the rest are its arguments.
pub fn panel_command(words: &[String]) -> anyhow::Result<()> {
    let (name, args) = words
        .split_first()
        .ok_or_else(|| anyhow::anyhow!("no subcommand given"))?;
    let commands = crate::catalog::commands();
    let command = commands
        .iter()
        .find(|command| command.name == name.as_str())
        .ok_or_else(|| {
            let mut names = vec!["open", "run", "sweep", "params", "bench", "doctor"];
            names.extend(commands.iter().map(|command| command.name));
            anyhow::anyhow!(
                "unknown subcommand `{name}`; available: {}",
                names.join(", ")
            )
        })?;
    (command.run)(args)
}

/// The panels' own subcommands and the benchmarks, for the end of `benchtop --help`.
pub fn panel_help() -> String {
    let mut text = String::from("Panel commands:\n");
    for command in crate::catalog::commands() {
        let _ = writeln!(text, "  {:<14}{}", command.name, command.about);
    }
    text.push_str("\nBenchmarks (`benchtop bench NAME --help` for the options):\n");
    text.push_str(&bench::listing());
    text
}
