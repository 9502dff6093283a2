//! What a panel adds to the command line: its `benchtop bench NAME …` entries and its own
//! subcommands (`benchtop NAME …`), declared in the panel crate and collected by the catalog,
//! so the binary only dispatches.
//!
//! A panel lists them in [`PanelModel::BENCHES`](crate::host::PanelModel::BENCHES) and
//! [`PanelModel::COMMANDS`](crate::host::PanelModel::COMMANDS):
//!
//! ```ignore
//! const BENCHES: &'static [BenchEntry] = &[BenchEntry {
//!     name: "ising",
//!     about: "Checkerboard Metropolis throughput and observables",
//!     run: |args| run_bench("ising", args, bench::ising),
//! }];
//! ```
//!
//! Options are parsed with clap inside the panel ([`parse_options`]); `--help` prints the
//! entry's help on stdout and succeeds.

use std::path::Path;

use anyhow::Context as _;

use crate::project::write_atomic;

/// `eprintln!` that never panics: a line for the user on stderr, where a closed stderr (a pipe
/// whose reader has gone, as in `benchtop run … 2>&1 | true`) is ignored, so that a message can
/// never cost a save or a result.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {{
        use ::std::io::Write as _;
        let _ = ::std::writeln!(::std::io::stderr(), $($arg)*);
    }};
}

/// One `benchtop bench NAME [--option value …]` entry: times the engine's real code path and
/// returns one JSON object (throughput and the run's own observables). The binary adds the
/// app's version line and the entry's name and prints it on one line.
#[derive(Clone, Copy, Debug)]
pub struct BenchEntry {
    /// The name after `benchtop bench` (an interface: keep it stable).
    pub name: &'static str,
    /// One line for the list of benchmarks.
    pub about: &'static str,
    /// Parses `args` (the options after the name) and runs the benchmark; `None` when only
    /// help was asked for (and printed).
    pub run: fn(&[String]) -> anyhow::Result<Option<serde_json::Value>>,
}

/// One `benchtop NAME …` subcommand a panel owns (e.g. `benchtop spectra`, `benchtop chem`).
#[derive(Clone, Copy, Debug)]
pub struct CommandEntry {
    /// The subcommand's name (an interface: keep it stable).
    pub name: &'static str,
    /// One line for `benchtop --help`.
    pub about: &'static str,
    /// Parses `args` (everything after the name) and runs the command.
    pub run: fn(&[String]) -> anyhow::Result<()>,
}

/// Parses `args` as the options of `command` (e.g. `benchtop bench ising`). `Ok(None)` when
/// `--help` or `--version` was asked for: the text is printed on stdout.
pub fn parse_options<T: clap::Parser>(command: &str, args: &[String]) -> anyhow::Result<Option<T>> {
    let words = std::iter::once(command.to_owned()).chain(args.iter().cloned());
    match T::try_parse_from(words) {
        Ok(options) => Ok(Some(options)),
        Err(error)
            if matches!(
                error.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            print_help(&error.render().to_string())?;
            Ok(None)
        }
        Err(error) => Err(anyhow::anyhow!("{}", error.render().to_string().trim_end())),
    }
}

/// Prints a help text on stdout (the one place the kit writes there).
#[allow(clippy::print_stdout, reason = "help asked for on the command line")]
fn print_help(text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// Parses the options of `benchtop bench NAME` and runs `bench` with them (for
/// [`BenchEntry::run`]).
pub fn run_bench<T: clap::Parser>(
    name: &str,
    args: &[String],
    bench: fn(&T) -> anyhow::Result<serde_json::Value>,
) -> anyhow::Result<Option<serde_json::Value>> {
    parse_options::<T>(&format!("benchtop bench {name}"), args)?
        .map(|options| bench(&options))
        .transpose()
}

/// Parses the arguments of `benchtop NAME` and runs `command` with them (for
/// [`CommandEntry::run`]).
pub fn run_command<T: clap::Parser>(
    name: &str,
    args: &[String],
    command: fn(&T) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    match parse_options::<T>(&format!("benchtop {name}"), args)? {
        Some(options) => command(&options),
        None => Ok(()),
    }
}

/// Checks a command-line option against its accepted range before anything is sized by it
/// (`flag` names the option in the error, e.g. `--sessions`).
pub fn within<T: PartialOrd + Copy + std::fmt::Display>(
    flag: &str,
    value: T,
    range: std::ops::RangeInclusive<T>,
) -> anyhow::Result<()> {
    if range.contains(&value) {
        Ok(())
    } else {
        anyhow::bail!(
            "{flag} {value}: choose {} to {}",
            range.start(),
            range.end()
        )
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Options of a test command.
    #[derive(Debug, clap::Parser)]
    struct Options {
        /// A size.
        #[arg(long, default_value_t = 3)]
        size: usize,
    }

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn options_parse_help_succeeds_and_a_wrong_option_names_itself() {
        let parsed: Option<Options> =
            parse_options("benchtop bench t", &words("--size 5")).unwrap();
        assert_eq!(parsed.map(|o| o.size), Some(5));
        assert!(
            parse_options::<Options>("benchtop bench t", &words("--help"))
                .unwrap()
                .is_none()
        );
        let error = parse_options::<Options>("benchtop bench t", &words("--sise 5")).unwrap_err();
        assert!(error.to_string().contains("--sise"), "{error}");
    }

    #[test]
    fn an_output_over_its_input_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("a.csv");
        std::fs::write(&input, "x").unwrap();
        assert!(refuse_output_over_input(&input, &input, "--out").is_err());
        assert!(refuse_output_over_input(&input, &dir.path().join("b.csv"), "--out").is_ok());
        write_output(&dir.path().join("new/b.csv"), b"y").unwrap();
        assert_eq!(std::fs::read(dir.path().join("new/b.csv")).unwrap(), b"y");
    }
}
