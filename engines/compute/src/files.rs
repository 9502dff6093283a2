//! Reading a file a user (or someone else) named, safely: it must be a regular file (a FIFO, a
//! device or a folder is refused with a message instead of blocking or reading forever), no
//! larger than a stated bound (checked before anything is allocated), and the open itself never
//! blocks (a FIFO swapped in after the check is seen on the open handle).

use std::io::Read as _;
use std::path::Path;

use crate::ComputeError;

/// The default bound of a data file read whole (text tables, weights): 1 GiB.
pub const MAX_DATA_BYTES: u64 = 1 << 30;

/// Opens `path` for reading without blocking and checks that it is a regular file of at most
/// `max` bytes; returns the handle and its size. Errors name the file.
pub fn open_regular(path: &Path, max: u64) -> Result<(std::fs::File, u64), ComputeError> {
    let named = |why: String| ComputeError::File(format!("{}: {why}", path.display()));
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        // A FIFO would block the open until a writer appears.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options
        .open(path)
        .map_err(|e| named(format!("cannot open: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| named(format!("cannot read its size: {e}")))?;
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            "a folder"
        } else {
            "not a regular file (a FIFO, socket or device?)"
        };
        return Err(named(format!("{kind}; only regular files are read")));
    }
    if meta.len() > max {
        return Err(named(format!(
            "{} bytes, more than the {} this reader accepts; refused before reading",
            meta.len(),
            human(max)
        )));
    }
    Ok((file, meta.len()))
}

/// The bytes of the regular file `path`, at most `max` of them (see [`open_regular`]).
pub fn read_bytes(path: &Path, max: u64) -> Result<Vec<u8>, ComputeError> {
    let (file, len) = open_regular(path, max)?;
    let capacity = usize::try_from(len).map_err(|_| ComputeError::File("too large".into()))?;
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(capacity).map_err(|_| {
        ComputeError::File(format!(
            "{}: not enough memory for {len} bytes",
            path.display()
        ))
    })?;
    // The file may grow while it is read: never take more than the bound.
    file.take(max)
        .read_to_end(&mut bytes)
        .map_err(|e| ComputeError::File(format!("{}: cannot read: {e}", path.display())))?;
    Ok(bytes)
}

/// The text of the regular file `path` (UTF-8; a leading byte-order mark removed), at most
/// `max` bytes.
pub fn read_text(path: &Path, max: u64) -> Result<String, ComputeError> {
    let bytes = read_bytes(path, max)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        ComputeError::File(format!(
            "{}: not UTF-8 text (byte {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_owned(),
        None => text,
    })
}

/// `bytes` as `N GiB`, `N MiB` or `N bytes`.
fn human(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", bytes >> 30)
    } else if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_others_refused_with_their_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(&path, "\u{feff}a,b\n1,2\n").unwrap();
        assert_eq!(read_text(&path, 100).unwrap(), "a,b\n1,2\n");
        let error = read_text(&path, 4).unwrap_err().to_string();
        assert!(
            error.contains("t.csv") && error.contains("refused"),
            "{error}"
        );
        let error = read_text(dir.path(), 100).unwrap_err().to_string();
        assert!(error.contains("folder"), "{error}");
        std::fs::write(&path, [0xff, 0xfe, 0x00]).unwrap();
        assert!(
            read_text(&path, 100)
                .unwrap_err()
                .to_string()
                .contains("UTF-8")
        );
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                // Returns at once (no writer needed) with an error naming the FIFO.
                let error = read_text(&fifo, 100).unwrap_err().to_string();
                assert!(
                    error.contains("fifo") && error.contains("regular"),
                    "{error}"
                );
            }
        }
    }
}
