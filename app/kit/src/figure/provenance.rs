//! The recipe of an exported figure: where it came from and how to make it again. Written as a
//! JSON sidecar next to every export and, in short, into the file itself. No timestamps: the
//! same inputs give byte-identical exports.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The application version recorded in provenance.
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Longest parameter text kept in [`Provenance::summary`], in characters.
const SUMMARY_PARAMS_CHARS: usize = 240;

/// Everything needed to reproduce a figure.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Provenance {
    /// The project file the figure belongs to, if saved.
    pub project_path: Option<PathBuf>,
    /// Panel that made the figure, e.g. "ising".
    pub panel: String,
    /// Figure name within the panel, e.g. "magnetisation".
    pub figure: String,
    /// The engine parameters as JSON.
    pub params: serde_json::Value,
    /// Random seed, if the computation used one.
    pub seed: Option<u64>,
    /// Engine crate name, e.g. "benchtop-ising".
    pub engine: String,
    /// Engine version.
    pub engine_version: String,
    /// Benchtop version.
    pub app_version: String,
    /// Source commit of the build, if known.
    pub git_commit: Option<String>,
    /// Input file name → hash (e.g. "sha256:…").
    pub input_hashes: BTreeMap<String, String>,
}

impl Provenance {
    /// Provenance for a panel's figure, with the app version and, when the build recorded it
    /// in `BENCHTOP_GIT_COMMIT`, the commit filled in.
    pub fn new(panel: impl Into<String>, figure: impl Into<String>) -> Self {
        Self {
            panel: panel.into(),
            figure: figure.into(),
            params: serde_json::Value::Null,
            app_version: APP_VERSION.to_owned(),
            git_commit: option_env!("BENCHTOP_GIT_COMMIT").map(str::to_owned),
            ..Self::default()
        }
    }

    /// Sets the engine name and version.
    #[must_use]
    pub fn engine(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.engine = name.into();
        self.engine_version = version.into();
        self
    }

    /// Sets the parameters.
    #[must_use]
    pub fn params(mut self, params: serde_json::Value) -> Self {
        self.params = params;
        self
    }

    /// Sets the seed.
    #[must_use]
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Sets the project path.
    #[must_use]
    pub fn project_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.project_path = Some(path.into());
        self
    }

    /// Records an input file's hash.
    #[must_use]
    pub fn input_hash(mut self, file: impl Into<String>, hash: impl Into<String>) -> Self {
        self.input_hashes.insert(file.into(), hash.into());
        self
    }

    /// One line for embedding in files (PNG text, PDF subject, SVG description): panel/figure,
    /// engine, app, seed, commit, inputs and the parameters (compact JSON, shortened).
    pub fn summary(&self) -> String {
        let mut parts = vec![format!("Benchtop {}", self.app_version)];
        if !self.panel.is_empty() || !self.figure.is_empty() {
            parts.push(format!("panel {}, figure {}", self.panel, self.figure));
        }
        if !self.engine.is_empty() {
            parts.push(format!("engine {} {}", self.engine, self.engine_version));
        }
        if let Some(seed) = self.seed {
            parts.push(format!("seed {seed}"));
        }
        if let Some(commit) = &self.git_commit {
            parts.push(format!("commit {commit}"));
        }
        if let Some(project) = &self.project_path {
            parts.push(format!("project {}", project.display()));
        }
        if !self.input_hashes.is_empty() {
            let inputs: Vec<String> = self
                .input_hashes
                .iter()
                .map(|(file, hash)| format!("{file} {}", shorten(hash, 20)))
                .collect();
            parts.push(format!("inputs {}", inputs.join(", ")));
        }
        if !self.params.is_null() {
            parts.push(format!(
                "params {}",
                shorten(&self.params.to_string(), SUMMARY_PARAMS_CHARS)
            ));
        }
        parts.join("; ")
    }

    /// Pretty JSON for the sidecar file.
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self)
    }
}

/// `text` cut to `max_chars` characters, with "…" when cut.
fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(max_chars.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_short_and_complete() {
        let p = Provenance::new("ising", "magnetisation")
            .engine("benchtop-ising", "0.1.0")
            .params(serde_json::json!({"beta": 0.44}))
            .seed(7)
            .input_hash("lattice.npy", "sha256:0123456789abcdef0123456789abcdef");
        let s = p.summary();
        assert!(
            s.starts_with(&format!(
                "Benchtop {APP_VERSION}; panel ising, figure magnetisation"
            )),
            "{s}"
        );
        assert!(s.contains("engine benchtop-ising 0.1.0"), "{s}");
        assert!(s.contains("seed 7"), "{s}");
        assert!(s.contains("lattice.npy sha256:0123456789ab…"), "{s}");
        assert!(s.ends_with(r#"params {"beta":0.44}"#), "{s}");
        let long = p.clone().params(serde_json::json!({"x": "y".repeat(1000)}));
        // Params are cut to SUMMARY_PARAMS_CHARS; the rest (version, engine, commit, seed) is short.
        assert!(long.summary().chars().count() < SUMMARY_PARAMS_CHARS + 200);
    }

    #[test]
    fn round_trips_through_json() {
        let p = Provenance::new("spectra", "psd")
            .seed(1)
            .project_path("a/b.benchtop");
        let json = p.to_json().expect("json");
        let back: Provenance = serde_json::from_str(&json).expect("parse");
        assert_eq!(back, p);
    }
}
