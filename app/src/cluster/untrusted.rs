//! A job folder is data, not instructions: it sits on a shared file system where others (or a
//! crafted copy) may have written anything. Everything read from it goes through here:
//! - files are read only when they are regular files (a symbolic link or a FIFO is refused,
//!   so nothing outside the folder is read) and no larger than a bound given per kind;
//! - the folder's subfolders must be real folders, not links that would send writes elsewhere;
//! - job ids are checked as Slurm ids before they reach `squeue`, `sacct` or `scancel`;
//! - counts (points, tasks) are bounded before anything is allocated or listed.

use std::io::Read as _;
use std::path::Path;

use anyhow::Context as _;

/// The largest `job.json` read.
pub const MAX_MANIFEST_BYTES: u64 = 1024 * 1024;
/// The largest `points.csv` read (about a million points).
pub const MAX_POINTS_BYTES: u64 = 64 * 1024 * 1024;
/// The largest per-point result file or task marker read.
pub const MAX_RECORD_BYTES: u64 = 1024 * 1024;
/// The most points a sweep job may hold.
pub const MAX_POINTS: usize = 1_000_000;
/// The most array tasks a job may have.
pub const MAX_TASKS: usize = 100_000;
/// The most bytes of a log's end shown.
pub const MAX_TAIL_BYTES: u64 = 64 * 1024;

/// The text of `path` when it is a regular file of at most `max` bytes (`Ok(None)` when it does
/// not exist); a link, a FIFO, a folder or a larger file is an error naming it.
pub fn read_text(path: &Path, max: u64) -> anyhow::Result<Option<String>> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error).with_context(|| format!("{}", path.display())),
    };
    if meta.file_type().is_symlink() {
        anyhow::bail!(
            "{}: a symbolic link in a job folder is refused (it could lead outside the folder)",
            path.display()
        );
    }
    if !meta.is_file() {
        anyhow::bail!("{}: not a regular file; refused", path.display());
    }
    if meta.len() > max {
        anyhow::bail!(
            "{}: {} bytes, more than the {max} a file of this kind may hold; refused",
            path.display(),
            meta.len()
        );
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(max).read_to_string(&mut text))
        .with_context(|| format!("{}: cannot read", path.display()))?;
    Ok(Some(text))
}

/// The last `max` bytes of the regular file `path` as text (empty when it is missing, a link
/// or not a regular file).
pub fn read_end(path: &Path, max: u64) -> String {
    use std::io::Seek as _;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return String::new();
    };
    if !meta.is_file() {
        return String::new();
    }
    let Ok(mut file) = std::fs::File::open(path) else {
        return String::new();
    };
    let start = meta.len().saturating_sub(max);
    if file.seek(std::io::SeekFrom::Start(start)).is_err() {
        return String::new();
    }
    let mut bytes = Vec::new();
    if file.take(max).read_to_end(&mut bytes).is_err() {
        return String::new();
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `path` must be a real folder (not a link to one) when it exists.
pub fn check_folder(path: &Path) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => anyhow::bail!(
            "{}: a symbolic link in a job folder is refused (writes would go outside it)",
            path.display()
        ),
        Ok(meta) if !meta.is_dir() => anyhow::bail!("{}: not a folder", path.display()),
        _ => Ok(()),
    }
}

/// A Slurm job id as `sbatch` prints it (`123`, or an array task `123_4`); anything else (an
/// option such as `--user=root`, spaces) is refused before it reaches a Slurm command.
pub fn check_slurm_job_id(id: &str) -> anyhow::Result<()> {
    let digits = |s: &str| !s.is_empty() && s.len() <= 12 && s.bytes().all(|b| b.is_ascii_digit());
    let valid = match id.split_once('_') {
        Some((job, task)) => digits(job) && digits(task),
        None => digits(id),
    };
    if valid {
        Ok(())
    } else {
        anyhow::bail!(
            "`{}` is not a Slurm job id (digits, or digits_digits for an array task); refused",
            id.escape_debug()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_ids_are_slurm_ids() {
        for good in ["1", "123456", "123_4"] {
            assert!(check_slurm_job_id(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "--user=root",
            "12 34",
            "1_",
            "_1",
            "1;rm",
            "1_2_3",
            "1234567890123",
        ] {
            assert!(check_slurm_job_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn links_fifos_and_large_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("a.txt");
        std::fs::write(&plain, "hello").unwrap();
        assert_eq!(read_text(&plain, 100).unwrap().as_deref(), Some("hello"));
        assert!(read_text(&plain, 3).is_err());
        assert!(
            read_text(&dir.path().join("missing"), 100)
                .unwrap()
                .is_none()
        );
        #[cfg(unix)]
        {
            let link = dir.path().join("link");
            std::os::unix::fs::symlink(&plain, &link).unwrap();
            assert!(
                read_text(&link, 100)
                    .unwrap_err()
                    .to_string()
                    .contains("link")
            );
            assert!(check_folder(&link).is_err());
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                assert!(
                    read_text(&fifo, 100)
                        .unwrap_err()
                        .to_string()
                        .contains("regular")
                );
            }
        }
        assert_eq!(read_end(&plain, 3), "llo");
    }
}
