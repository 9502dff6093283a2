//! Atomic file writes: a temporary file in the same folder, synced, then renamed over the target.

use std::io::Write as _;
use std::path::Path;

/// Writes `bytes` to `path` so that readers see either the old file or the whole new one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_fails_cleanly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.ron");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        // Writing into a folder that does not exist fails and leaves nothing behind.
        assert!(write_atomic(&dir.path().join("missing/p.ron"), b"x").is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
