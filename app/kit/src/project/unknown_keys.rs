//! Unknown keys in a project file: where they are, and the known key they were probably meant
//! to be.

use std::path::Path;

use serde::Serialize;

use super::ProjectError;

/// One step of the path to an ignored key.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// A struct field or map key.
    Key(String),
    /// A list element.
    Index(usize),
    /// Into the value of an enum variant (the panel kind of a `state:`).
    Variant,
}

/// The steps from the document's root to `path`.
pub fn steps(path: &serde_ignored::Path<'_>) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut current = path;
    loop {
        current = match current {
            serde_ignored::Path::Root => break,
            serde_ignored::Path::Seq { parent, index } => {
                steps.push(Step::Index(*index));
                parent
            }
            serde_ignored::Path::Map { parent, key } => {
                steps.push(Step::Key(key.clone()));
                parent
            }
            serde_ignored::Path::NewtypeVariant { parent } => {
                steps.push(Step::Variant);
                parent
            }
            serde_ignored::Path::Some { parent }
            | serde_ignored::Path::NewtypeStruct { parent } => parent,
        };
    }
    steps.reverse();
    steps
}

/// The error for the unknown key at `steps` in `doc` (parsed from `text`): its path, its line,
/// and the closest key that the same place knows.
pub fn error(path: &Path, text: &str, steps: &[Step], doc: &impl Serialize) -> ProjectError {
    let key = display(steps);
    let name = match steps.last() {
        Some(Step::Key(name)) => name.clone(),
        _ => String::new(),
    };
    let known = serde_json::to_value(doc)
        .ok()
        .and_then(|root| parent_keys(&root, &steps[..steps.len().saturating_sub(1)]));
    let closest = known.and_then(|keys| {
        crate::suggest::closest(&name, keys.iter().map(String::as_str)).map(str::to_owned)
    });
    ProjectError::UnknownKey {
        path: path.to_path_buf(),
        line: line_of(text, &name),
        key,
        closest,
    }
}

/// `panels[0].state.params.szie`.
fn display(steps: &[Step]) -> String {
    let mut shown = String::new();
    for step in steps {
        match step {
            Step::Key(name) => {
                if !shown.is_empty() {
                    shown.push('.');
                }
                shown.push_str(name);
            }
            Step::Index(index) => shown.push_str(&format!("[{index}]")),
            Step::Variant => {}
        }
    }
    shown
}

/// The keys of the object at `steps` in the serialised document.
fn parent_keys(root: &serde_json::Value, steps: &[Step]) -> Option<Vec<String>> {
    let mut current = root;
    for step in steps {
        current = match step {
            Step::Key(name) => current.get(name)?,
            Step::Index(index) => current.get(index)?,
            Step::Variant => current.as_object()?.values().next()?,
        };
    }
    Some(current.as_object()?.keys().cloned().collect())
}

/// The 1-based line where `name` first appears as a key (`name:`), or 1.
fn line_of(text: &str, name: &str) -> usize {
    if name.is_empty() {
        return 1;
    }
    text.lines()
        .position(|line| {
            line.match_indices(name).any(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + name.len()..].trim_start();
                !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                    && (after.starts_with(':') || after.starts_with("\":"))
            })
        })
        .map_or(1, |index| index + 1)
}
