//! UI preferences kept in eframe's storage, never in a project: theme, recent files, catalog.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How many recent files are remembered.
pub const MAX_RECENT: usize = 10;

/// Preferences that survive restarts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Prefs {
    /// Dark theme (else light).
    pub dark: bool,
    /// Recently opened or saved projects, newest first.
    pub recent: Vec<PathBuf>,
    /// Whether the catalog side panel is shown.
    pub show_catalog: bool,
}

impl Default for Prefs {
    fn default() -> Self {
        Self {
            dark: true,
            recent: Vec::new(),
            show_catalog: true,
        }
    }
}

impl Prefs {
    /// Puts `path` first in the recent list.
    pub fn remember(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        self.recent.retain(|p| p != &path);
        self.recent.insert(0, path);
        self.recent.truncate(MAX_RECENT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_files_are_unique_newest_first_and_capped() {
        let mut prefs = Prefs::default();
        for i in 0..15 {
            prefs.remember(Path::new(&format!("/nonexistent/p{i}.ron")));
        }
        prefs.remember(Path::new("/nonexistent/p3.ron"));
        assert_eq!(prefs.recent.len(), MAX_RECENT);
        assert_eq!(prefs.recent[0], PathBuf::from("/nonexistent/p3.ron"));
        assert_eq!(
            prefs
                .recent
                .iter()
                .filter(|p| p.ends_with("p3.ron"))
                .count(),
            1
        );
    }
}
