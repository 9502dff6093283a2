//! Sidecar generations: each save writes the project's arrays into a new folder inside
//! `<stem>.data/`, then switches the project file to it with one atomic rename. A save
//! interrupted at any point (a crash, a kill, a full disk) leaves the previous project file and
//! the arrays it names whole; what the interrupted save left behind is removed by [`tidy`] when
//! the project is next opened.

use std::path::{Path, PathBuf};

use super::atomic::{remove_stale_temporaries, write_atomic};
use super::{Sidecar, sidecar_dir};

/// The name prefix of generation folders inside `<stem>.data/`.
pub const GENERATION_PREFIX: &str = "g-";

/// Checks a generation folder name read from a project file: one plain name with the
/// generation prefix, so that nothing read from a file can point outside the sidecar folder.
pub fn check_generation_name(name: &str) -> Result<(), String> {
    let plain = name
        .strip_prefix(GENERATION_PREFIX)
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric()));
    if plain {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a sidecar folder name (`{GENERATION_PREFIX}` followed by letters and \
             digits)"
        ))
    }
}

/// The sidecar of the project at `project_path` whose arrays are in generation `generation`
/// (`None`: directly in `<stem>.data/`, as projects saved before generations have them).
/// The name must have passed [`check_generation_name`].
pub fn sidecar_of(project_path: &Path, generation: Option<&str>) -> Sidecar {
    let data = sidecar_dir(project_path);
    Sidecar::new(generation.map_or_else(|| data.clone(), |name| data.join(name)))
}

/// One save in progress: a new generation folder that the project file does not name yet.
/// Dropped without [`commit`](SidecarSave::commit), it removes its folder.
pub struct SidecarSave {
    data_dir: PathBuf,
    name: String,
    folder: PathBuf,
    carried_loose: Vec<PathBuf>,
    committed: bool,
}

impl SidecarSave {
    /// Starts saving the project at `project_path`: makes a new generation folder and copies
    /// into it the entries of `previous` (the sidecar the open project was read from) whose
    /// names `keep` accepts, so that results the panels do not rewrite (e.g. ones that could
    /// not be restored) stay with the project.
    pub fn begin(
        project_path: &Path,
        previous: Option<&Sidecar>,
        keep: impl Fn(&str) -> bool,
    ) -> std::io::Result<Self> {
        let data_dir = sidecar_dir(project_path);
        std::fs::create_dir_all(&data_dir).map_err(|error| named(&data_dir, &error))?;
        let (name, folder) = new_generation(&data_dir)?;
        let mut save = Self {
            data_dir: data_dir.clone(),
            name,
            folder,
            carried_loose: Vec::new(),
            committed: false,
        };
        if let Some(previous) = previous {
            let loose = previous.dir() == data_dir.as_path();
            for entry in std::fs::read_dir(previous.dir())
                .into_iter()
                .flatten()
                .flatten()
            {
                let Some(file_name) = entry.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                if is_generation(&file_name)
                    || file_name.starts_with(super::atomic::TEMPORARY_PREFIX)
                    || !keep(&file_name)
                {
                    continue;
                }
                copy_entry(&entry.path(), &save.folder.join(&file_name))?;
                if loose {
                    save.carried_loose.push(entry.path());
                }
            }
        }
        Ok(save)
    }

    /// The sidecar the panels write into.
    pub fn sidecar(&self) -> Sidecar {
        Sidecar::new(&self.folder)
    }

    /// The generation's name, which the project file records.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Writes the project file (`text`, atomically: this is the switch to the new generation),
    /// then removes the other generations and the loose entries of an older layout that were
    /// carried into this one.
    pub fn commit(mut self, project_path: &Path, text: &[u8]) -> std::io::Result<()> {
        sync_tree(&self.folder);
        write_atomic(project_path, text).map_err(|error| named(project_path, &error))?;
        self.committed = true;
        remove_other_generations(&self.data_dir, Some(&self.name));
        for path in &self.carried_loose {
            remove_entry(path);
        }
        Ok(())
    }
}

impl Drop for SidecarSave {
    fn drop(&mut self) {
        if !self.committed {
            remove_entry(&self.folder);
        }
    }
}

/// Removes what interrupted saves left next to the project at `project_path` whose file names
/// generation `current`: temporary files, and generation folders the file does not name.
pub fn tidy(project_path: &Path, current: Option<&str>) {
    let folder = project_path.parent().filter(|p| !p.as_os_str().is_empty());
    remove_stale_temporaries(folder.unwrap_or(Path::new(".")));
    let data_dir = sidecar_dir(project_path);
    remove_stale_temporaries(&data_dir);
    if let Some(name) = current {
        remove_stale_temporaries(&data_dir.join(name));
    }
    remove_other_generations(&data_dir, current);
}

fn is_generation(name: &str) -> bool {
    check_generation_name(name).is_ok()
}

fn new_generation(data_dir: &Path) -> std::io::Result<(String, PathBuf)> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    for attempt in 0..1000_u32 {
        let name = format!(
            "{GENERATION_PREFIX}{nanos:x}{:x}{attempt}",
            std::process::id()
        );
        let folder = data_dir.join(&name);
        match std::fs::create_dir(&folder) {
            Ok(()) => return Ok((name, folder)),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(named(&folder, &error)),
        }
    }
    Err(std::io::Error::other(format!(
        "{}: could not make a new sidecar folder",
        data_dir.display()
    )))
}

fn remove_other_generations(data_dir: &Path, keep: Option<&str>) {
    for entry in std::fs::read_dir(data_dir).into_iter().flatten().flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if is_generation(name) && Some(name) != keep {
            remove_entry(&entry.path());
        }
    }
}

/// Copies a file, or a folder recursively; symbolic links are not followed (nothing outside
/// the sidecar is copied into it).
fn copy_entry(from: &Path, to: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(from).map_err(|error| named(from, &error))?;
    if meta.is_dir() {
        std::fs::create_dir_all(to).map_err(|error| named(to, &error))?;
        for entry in std::fs::read_dir(from).map_err(|error| named(from, &error))? {
            let entry = entry.map_err(|error| named(from, &error))?;
            copy_entry(&entry.path(), &to.join(entry.file_name()))?;
        }
    } else if meta.is_file() {
        std::fs::copy(from, to).map_err(|error| named(from, &error))?;
    }
    Ok(())
}

fn remove_entry(path: &Path) {
    let removed = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(_) => Ok(()),
    };
    if let Err(error) = removed {
        log::warn!("could not remove {}: {error}", path.display());
    }
}

/// Flushes the generation's files to disk before the project file names them.
fn sync_tree(folder: &Path) {
    for entry in std::fs::read_dir(folder).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sync_tree(&path);
        } else if let Ok(file) = std::fs::File::open(&path) {
            let _ = file.sync_all();
        }
    }
    if let Ok(dir) = std::fs::File::open(folder) {
        let _ = dir.sync_all();
    }
}

fn named(path: &Path, error: &std::io::Error) -> std::io::Error {
    std::io::Error::new(error.kind(), format!("{}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn generation_names_are_confined() {
        assert!(check_generation_name("g-1a2b").is_ok());
        for bad in [
            "../g-1",
            "g-",
            "g-1/x",
            "/tmp",
            "g-1.",
            "x-1",
            "g-1/../../etc",
        ] {
            assert!(check_generation_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_save_switches_generations_and_carries_what_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p.ron");
        // A project of the older layout: arrays loose in p.data.
        let legacy = sidecar_of(&project, None);
        legacy.write_f64("1-kept", &[1], &[1.0]).unwrap();
        legacy.write_f64("2-closed", &[1], &[2.0]).unwrap();
        std::fs::create_dir_all(legacy.path("1-weights")).unwrap();
        std::fs::write(legacy.path("1-weights").join("w.bin"), b"w").unwrap();
        std::fs::write(dir.path().join("p.ron"), b"old").unwrap();

        let save =
            SidecarSave::begin(&project, Some(&legacy), |name| !name.starts_with("2-")).unwrap();
        let name = save.name().to_owned();
        save.sidecar().write_f64("1-new", &[1], &[3.0]).unwrap();
        save.commit(&project, b"new").unwrap();
        assert_eq!(std::fs::read(&project).unwrap(), b"new");
        assert_eq!(
            names(&sidecar_dir(&project)),
            vec!["2-closed.npy", name.as_str()]
        );
        let current = sidecar_of(&project, Some(&name));
        assert_eq!(
            names(current.dir()),
            vec!["1-kept.npy", "1-new.npy", "1-weights"]
        );
        assert_eq!(
            std::fs::read(current.path("1-weights").join("w.bin")).unwrap(),
            b"w"
        );

        // The next save replaces this generation; an abandoned one removes itself.
        let abandoned = SidecarSave::begin(&project, Some(&current), |_| true).unwrap();
        let abandoned_dir = abandoned.sidecar().dir().to_path_buf();
        drop(abandoned);
        assert!(!abandoned_dir.exists());
        let next = SidecarSave::begin(&project, Some(&current), |_| true).unwrap();
        let next_name = next.name().to_owned();
        next.commit(&project, b"newer").unwrap();
        assert_eq!(
            names(&sidecar_dir(&project)),
            vec!["2-closed.npy", next_name.as_str()]
        );
    }

    #[test]
    fn tidy_removes_what_a_killed_save_left() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p.ron");
        let data = sidecar_dir(&project);
        std::fs::create_dir_all(data.join("g-live")).unwrap();
        std::fs::create_dir_all(data.join("g-half")).unwrap();
        std::fs::write(data.join("g-live/.benchtop-tmp-x"), b"").unwrap();
        std::fs::write(dir.path().join(".benchtop-tmp-y"), b"").unwrap();
        std::fs::write(dir.path().join("p.ron"), b"").unwrap();
        tidy(&project, Some("g-live"));
        assert_eq!(names(&data), vec!["g-live"]);
        assert!(names(&data.join("g-live")).is_empty());
        assert_eq!(names(dir.path()), vec!["p.data", "p.ron"]);
    }
}
