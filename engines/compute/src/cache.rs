//! Caches of computed files (trained weights) that belong to the user alone.
//!
//! A cache lives under the user's cache folder (`$XDG_CACHE_HOME/benchtop/<name>`, else
//! `~/.cache/benchtop/<name>`), never in the temporary folder every user shares: the folders
//! are created private (mode 0700) and a cache folder that is a symbolic link, or that others
//! may write to, is refused. Each file is written with the SHA-256 of its bytes beside it
//! (`<file>.sha256`) and is used only when it is a regular file whose bytes still give that
//! hash ([`verified`]); files are written to a temporary name and renamed into place, so a
//! link planted at the name is replaced, never written through ([`write_verified`]).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::ComputeError;

/// The user's cache folder for `name`, created private to the user when missing. Errors when
/// there is no home folder, when a folder on the way is a link, or when others may write to it.
pub fn user_cache_dir(name: &str) -> Result<PathBuf, ComputeError> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .ok_or_else(|| ComputeError::Numerical("no home folder for the cache".to_owned()))?;
    let dir = base.join("benchtop").join(name);
    for folder in [base.join("benchtop"), dir.clone()] {
        private_folder(&folder)?;
    }
    Ok(dir)
}

/// Creates `folder` with mode 0700 when missing; refuses a link or a folder others may write to.
fn private_folder(folder: &Path) -> Result<(), ComputeError> {
    let refuse = |why: &str| {
        Err(ComputeError::Numerical(format!(
            "cache folder {}: {why}; not used",
            folder.display()
        )))
    };
    match std::fs::symlink_metadata(folder) {
        Ok(meta) if meta.file_type().is_symlink() => return refuse("a symbolic link"),
        Ok(meta) if !meta.is_dir() => return refuse("not a folder"),
        Ok(meta) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt as _;
                if meta.permissions().mode() & 0o022 != 0 {
                    return refuse("others may write to it");
                }
            }
            #[cfg(not(unix))]
            let _ = meta;
        }
        Err(_) => {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::DirBuilderExt as _;
                builder.mode(0o700);
            }
            builder.create(folder).map_err(|e| {
                ComputeError::Numerical(format!("cache folder {}: {e}", folder.display()))
            })?;
        }
    }
    Ok(())
}

/// The file that records the hash of `file`.
fn hash_file(file: &Path) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(".sha256");
    file.with_file_name(name)
}

/// SHA-256 of `bytes` in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether `file` is a regular file (not a link) whose bytes have the hash recorded beside it.
pub fn verified(file: &Path) -> bool {
    let regular = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file());
    let record = hash_file(file);
    if !(regular(file) && regular(&record)) {
        return false;
    }
    let (Ok(bytes), Ok(recorded)) = (std::fs::read(file), std::fs::read_to_string(&record)) else {
        return false;
    };
    sha256_hex(&bytes) == recorded.trim()
}

/// Writes `data` to `path` through a new temporary file renamed into place (a link at `path`
/// is replaced, not written through).
fn replace(path: &Path, data: &[u8]) -> std::io::Result<()> {
    let mut temporary = path.as_os_str().to_os_string();
    temporary.push(format!(".tmp{}", std::process::id()));
    let temporary = PathBuf::from(temporary);
    let _ = std::fs::remove_file(&temporary);
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temporary)?;
    out.write_all(data)?;
    out.sync_all()?;
    std::fs::rename(&temporary, path)
}

/// Writes `bytes` to `file` (in a cache folder) through a temporary file renamed into place,
/// then records their hash beside it.
pub fn write_verified(file: &Path, bytes: &[u8]) -> Result<(), ComputeError> {
    let fail = |e: std::io::Error| ComputeError::Numerical(format!("{}: {e}", file.display()));
    replace(file, bytes).map_err(fail)?;
    replace(&hash_file(file), sha256_hex(bytes).as_bytes()).map_err(fail)
}

/// Records the hash of `file`, which its writer has just written (a regular file), so that
/// [`verified`] accepts it.
pub fn seal(file: &Path) -> Result<(), ComputeError> {
    let fail = |e: std::io::Error| ComputeError::Numerical(format!("{}: {e}", file.display()));
    if !std::fs::symlink_metadata(file).is_ok_and(|m| m.is_file()) {
        return Err(ComputeError::Numerical(format!(
            "{}: not a regular file; not sealed",
            file.display()
        )));
    }
    let bytes = std::fs::read(file).map_err(fail)?;
    replace(&hash_file(file), sha256_hex(&bytes).as_bytes()).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verified_files_are_regular_and_match_their_hash() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("w.bin");
        write_verified(&file, b"weights").unwrap();
        assert!(verified(&file));
        std::fs::write(&file, b"planted").unwrap();
        assert!(!verified(&file), "changed bytes are not used");
        write_verified(&file, b"weights").unwrap();
        #[cfg(unix)]
        {
            let other = dir.path().join("other.bin");
            std::fs::write(&other, b"weights").unwrap();
            std::fs::remove_file(&file).unwrap();
            std::os::unix::fs::symlink(&other, &file).unwrap();
            assert!(!verified(&file), "a link is not used");
            // Writing replaces the link; the link's target is untouched.
            std::fs::write(&other, b"target").unwrap();
            write_verified(&file, b"fresh").unwrap();
            assert_eq!(std::fs::read(&other).unwrap(), b"target");
            assert!(verified(&file));
        }
    }

    #[test]
    #[cfg(unix)]
    fn cache_folders_are_private_and_shared_ones_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("cache/benchtop/w");
        private_folder(&folder).unwrap();
        let mode = std::fs::metadata(&folder).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let shared = dir.path().join("shared");
        std::fs::create_dir(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(private_folder(&shared).is_err());
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&folder, &link).unwrap();
        assert!(private_folder(&link).is_err());
    }
}
