//! `benchtop bench ENGINE [--option value …]`: one JSON object on stdout.
//!
//! Each panel owns its entries ([`benchtop_kit::cli::BenchEntry`], collected by the catalog);
//! this module finds the one named and prints its report with the app's version line and the
//! entry's name added, so every object says what produced it. The numbers come from the
//! engine's real code path (the same code the panels use), with the run's own observables so a
//! fast but wrong result is visible.

use std::io::Write as _;

use benchtop_kit::cli::BenchEntry;

use crate::catalog;

/// The entry named `name`, or an error listing the names there are.
fn entry(name: &str) -> anyhow::Result<&'static BenchEntry> {
    let entries = catalog::benches();
    entries
        .iter()
        .find(|entry| entry.name == name)
        .copied()
        .ok_or_else(|| {
            let names: Vec<&str> = entries.iter().map(|entry| entry.name).collect();
            anyhow::anyhow!("unknown engine `{name}`; available: {}", names.join(", "))
        })
}

/// The list of benchmarks, one per line (`benchtop bench --help`).
pub fn listing() -> String {
    catalog::benches()
        .iter()
        .map(|entry| format!("  {:<14}{}\n", entry.name, entry.about))
        .collect()
}

/// Adds the entry's name (unless the report has one) and the app's version line to `value`.
fn stamped(mut value: serde_json::Value, name: &str) -> serde_json::Value {
    if let Some(object) = value.as_object_mut() {
        object
            .entry("engine")
            .or_insert_with(|| serde_json::Value::from(name));
        object.insert("app".into(), crate::build_info::version_line().into());
    }
    value
}

/// Runs the benchmark `name` with `options` and prints one JSON object.
pub fn bench(name: &str, options: &[String]) -> anyhow::Result<()> {
    let entry = entry(name)?;
    let Some(value) = (entry.run)(options)? else {
        return Ok(());
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", serde_json::to_string(&stamped(value, name))?)?;
    Ok(())
}
