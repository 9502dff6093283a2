//! What this binary is: version and git commit.

/// The app's version (from Cargo.toml).
pub const APP_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The git commit the binary was built from, with `-dirty` for uncommitted changes.
pub const GIT_COMMIT: &str = env!("BENCHTOP_GIT_COMMIT");

/// `benchtop 0.1.0 (abc123def456)`.
pub fn version_line() -> String {
    format!("benchtop {APP_VERSION} ({GIT_COMMIT})")
}

/// Version and commit, as the kit's export and provenance take them.
pub const BUILD: benchtop_kit::export::BuildInfo = benchtop_kit::export::BuildInfo {
    app_version: APP_VERSION,
    git_commit: GIT_COMMIT,
};
