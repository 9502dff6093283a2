//! Where the API key may go, and keeping it out of everything written.
//!
//! The key (`BENCHTOP_LLM_API_KEY`) comes from the user's environment and is sent only to an
//! endpoint the user chose: one given in the environment (`BENCHTOP_LLM_ENDPOINT`) or typed on
//! the command line, or one whose `host:port` the user approved — in this session (the panel's
//! "Approve" button), in `BENCHTOP_LLM_APPROVED_HOSTS` (comma-separated `host:port`), or in the
//! user's approvals file ([`approvals_file`], one `host:port` a line, written by "Approve and
//! remember" and `benchtop reflect --approve URL`). An endpoint that a project file names is
//! shown and left unused until then: a shared project cannot send the key anywhere.
//!
//! [`redact`] replaces the key in any text (errors, replies, transcripts, saved results).

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

/// Origins approved in this session.
static SESSION: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// The largest approvals file read (bytes).
const MAX_APPROVALS_BYTES: u64 = 64 * 1024;

/// What replaces the key in text.
pub const REDACTED: &str = "[API key redacted]";

/// The user's approvals file: `$XDG_CONFIG_HOME/benchtop/approved-endpoints`, else
/// `~/.config/benchtop/approved-endpoints` (`None` without a home folder).
pub fn approvals_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("benchtop").join("approved-endpoints"))
}

/// The origins listed in the approvals file (none when it is missing, not a regular file or
/// larger than 64 KiB).
fn remembered() -> BTreeSet<String> {
    let Some(path) = approvals_file() else {
        return BTreeSet::new();
    };
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return BTreeSet::new();
    };
    if !meta.is_file() || meta.len() > MAX_APPROVALS_BYTES {
        return BTreeSet::new();
    }
    std::fs::read_to_string(&path)
        .map(|text| parse_list(&text, '\n'))
        .unwrap_or_default()
}

fn parse_list(text: &str, separator: char) -> BTreeSet<String> {
    text.split(separator)
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Whether the user approved `origin` (`host:port`) to receive the key.
pub fn is_approved(origin: &str) -> bool {
    let origin = origin.to_ascii_lowercase();
    if SESSION
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .contains(&origin)
    {
        return true;
    }
    if let Ok(list) = std::env::var("BENCHTOP_LLM_APPROVED_HOSTS")
        && parse_list(&list, ',').contains(&origin)
    {
        return true;
    }
    remembered().contains(&origin)
}

/// Approves `origin` for the rest of this session.
pub fn approve_for_session(origin: &str) {
    SESSION
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(origin.to_ascii_lowercase());
}

/// Approves `origin` in this session and adds it to the approvals file (created private to the
/// user; a symbolic link there is refused).
pub fn approve_and_remember(origin: &str) -> Result<PathBuf, String> {
    approve_for_session(origin);
    let path = approvals_file().ok_or("no home folder for the approvals file")?;
    if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
        return Err(format!(
            "{}: not a regular file (a link?); not written",
            path.display()
        ));
    }
    let mut origins = remembered();
    origins.insert(origin.to_ascii_lowercase());
    let folder = path.parent().ok_or("the approvals file has no folder")?;
    std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let mut text = String::from("# Endpoints (host:port) that may receive BENCHTOP_LLM_API_KEY.\n");
    for o in &origins {
        text.push_str(o);
        text.push('\n');
    }
    let temporary = folder.join(".approved-endpoints.tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options
        .open(&temporary)
        .map_err(|e| format!("{}: {e}", temporary.display()))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("{}: {e}", temporary.display()))?;
    std::fs::rename(&temporary, &path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// `text` with every occurrence of `key` replaced by [`REDACTED`] (unchanged for an empty or
/// very short key, which could not be told from ordinary text).
pub fn redact(text: &str, key: &str) -> String {
    if key.len() < 4 {
        return text.to_owned();
    }
    text.replace(key, REDACTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_removes_every_copy_of_the_key() {
        let key = "sk-secret-123";
        let text = format!("401 Unauthorized: Bearer {key} (header echoed: {key})");
        let clean = redact(&text, key);
        assert!(!clean.contains(key), "{clean}");
        assert_eq!(clean.matches(REDACTED).count(), 2);
        assert_eq!(redact("no key here", ""), "no key here");
    }

    #[test]
    fn session_approval_is_per_origin_and_case_blind() {
        assert!(!is_approved("never-approved.invalid:1"));
        approve_for_session("Approved-Here.invalid:8080");
        assert!(is_approved("approved-here.invalid:8080"));
        assert!(!is_approved("approved-here.invalid:8081"));
        assert_eq!(
            parse_list("a:1, b:2 ,,# c:3", ','),
            BTreeSet::from(["a:1".to_owned(), "b:2".to_owned()])
        );
    }
}
