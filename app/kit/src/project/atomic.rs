//! Atomic file writes: a temporary file in the same folder, synced, then renamed over the target.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The name prefix of the temporary files [`write_atomic`] makes; files with it that are left
/// behind (a killed save) are removed by [`remove_stale_temporaries`].
pub const TEMPORARY_PREFIX: &str = ".benchtop-tmp-";

/// Writes `bytes` to `path` so that readers see either the old file or the whole new one.
///
/// A symbolic link is written through (its target is replaced, the link stays), and an existing
/// file keeps its permissions.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let target = resolve_links(path)?;
    let dir = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let existing = std::fs::metadata(&target)
        .ok()
        .map(|meta| meta.permissions());
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMPORARY_PREFIX);
    if existing.is_none() {
        new_file_permissions(&mut builder);
    }
    let mut file = builder.tempfile_in(dir)?;
    if let Some(permissions) = existing {
        // Set after creation: the umask must not narrow the file's own mode.
        file.as_file().set_permissions(permissions)?;
    }
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(&target).map_err(|error| error.error)?;
    sync_dir(dir);
    Ok(())
}

/// Removes temporary files of interrupted writes from `dir` (not recursively); returns how
/// many were removed.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|name| name.starts_with(TEMPORARY_PREFIX))
        })
        .filter(|entry| std::fs::remove_file(entry.path()).is_ok())
        .count()
}

/// `path` with symbolic links followed (up to 32), so that writing replaces the link's target.
pub(crate) fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..32 {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// What a plain `create` gives a new file: 0666 less the umask (not a temporary file's 0600).
#[cfg(unix)]
fn new_file_permissions(builder: &mut tempfile::Builder<'_, '_>) {
    use std::os::unix::fs::PermissionsExt as _;
    builder.permissions(std::fs::Permissions::from_mode(0o666));
}

#[cfg(not(unix))]
fn new_file_permissions(_builder: &mut tempfile::Builder<'_, '_>) {}

/// Makes the rename durable (best effort: not every platform can sync a folder).
fn sync_dir(dir: &Path) {
    if let Ok(handle) = std::fs::File::open(dir) {
        let _ = handle.sync_all();
    }
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

    #[cfg(unix)]
    #[test]
    fn keeps_the_mode_and_writes_through_links() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.ron");
        std::fs::write(&real, b"old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.ron");
        std::os::unix::fs::symlink("real.ron", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        let fresh = dir.path().join("fresh.ron");
        write_atomic(&fresh, b"x").unwrap();
        let plain = dir.path().join("plain.ron");
        std::fs::write(&plain, b"x").unwrap();
        let mode = |path: &Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(
            mode(&fresh),
            mode(&plain),
            "a new file gets what `create` gives"
        );
    }

    #[test]
    fn stale_temporaries_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(format!("{TEMPORARY_PREFIX}abc")), b"x").unwrap();
        std::fs::write(dir.path().join("keep.ron"), b"x").unwrap();
        assert_eq!(remove_stale_temporaries(dir.path()), 1);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
