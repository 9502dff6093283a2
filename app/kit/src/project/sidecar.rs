//! The sidecar folder next to a project file, for arrays too large for the text file (NPY).

use std::path::{Path, PathBuf};

use ndarray::{ArrayD, IxDyn};
use ndarray_npy::WriteNpyExt as _;

/// Reads and writes named arrays in a project's sidecar folder.
///
/// Each panel gets the sidecar [`scoped`](Sidecar::scoped) to its pane: the names it writes get
/// the pane's prefix (`3-ising-series.npy`), so two panels of one kind never overwrite each
/// other's arrays. Files are read by the names that writing returned (relative to the folder),
/// so projects saved before names were scoped still open.
#[derive(Clone, Debug)]
pub struct Sidecar {
    dir: PathBuf,
    prefix: String,
}

impl Sidecar {
    /// The sidecar at `dir` (created on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            prefix: String::new(),
        }
    }

    /// The same folder, with the names written through it prefixed by `prefix` (e.g. `3-`).
    pub fn scoped(&self, prefix: &str) -> Self {
        Self {
            dir: self.dir.clone(),
            prefix: format!("{}{prefix}", self.prefix),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where an entry `name` of this scope lives (e.g. a folder of weights the panel writes
    /// itself): `<dir>/<prefix><name>`.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{}{name}", self.prefix))
    }

    /// The entry `name` of this scope if it exists, else the unprefixed `name` of a project
    /// saved before names were scoped, if that exists.
    pub fn existing(&self, name: &str) -> Option<PathBuf> {
        [self.path(name), self.dir.join(name)]
            .into_iter()
            .find(|path| path.exists())
    }

    /// Writes `data` with `shape` as `name.npy` (atomically) and returns the file name.
    pub fn write_f64(&self, name: &str, shape: &[usize], data: &[f64]) -> anyhow::Result<String> {
        let array = ArrayD::from_shape_vec(IxDyn(shape), data.to_vec())?;
        self.write(name, |buffer| {
            array.write_npy(buffer).map_err(anyhow::Error::from)
        })
    }

    /// Writes `data` (e.g. spins) with `shape` as `name.npy` and returns the file name.
    pub fn write_i8(&self, name: &str, shape: &[usize], data: &[i8]) -> anyhow::Result<String> {
        let array = ArrayD::from_shape_vec(IxDyn(shape), data.to_vec())?;
        self.write(name, |buffer| {
            array.write_npy(buffer).map_err(anyhow::Error::from)
        })
    }

    /// Writes `text` as the file `file_name` (e.g. `result.json`, atomically) and returns the
    /// file name.
    pub fn write_text(&self, file_name: &str, text: &str) -> anyhow::Result<String> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|error| anyhow::anyhow!("{}: {error}", self.dir.display()))?;
        let file = format!("{}{file_name}", self.prefix);
        let path = self.dir.join(&file);
        super::write_atomic(&path, text.as_bytes())
            .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
        Ok(file)
    }

    /// The path of the entry `file` (a name read from a project file), refused unless it is one
    /// plain name inside the folder: no separators, no `..`, not absolute.
    pub fn entry(&self, file: &str) -> anyhow::Result<PathBuf> {
        let mut parts = Path::new(file).components();
        let plain = matches!(
            (parts.next(), parts.next()),
            (Some(std::path::Component::Normal(_)), None)
        ) && !file.contains(['/', '\\', '\0']);
        anyhow::ensure!(
            plain,
            "`{file}` is not a file name inside the sidecar folder {}",
            self.dir.display()
        );
        let path = self.dir.join(file);
        // An entry that is a link could read another project's (or any) file.
        anyhow::ensure!(
            !std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()),
            "{}: a symbolic link in the sidecar folder is refused",
            path.display()
        );
        Ok(path)
    }

    /// Reads the text file `file`.
    pub fn read_text(&self, file: &str) -> anyhow::Result<String> {
        let path = self.entry(file)?;
        Ok(benchtop_compute::files::read_text(
            &path,
            benchtop_compute::files::MAX_DATA_BYTES,
        )?)
    }

    fn write(
        &self,
        name: &str,
        encode: impl FnOnce(&mut Vec<u8>) -> anyhow::Result<()>,
    ) -> anyhow::Result<String> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|error| anyhow::anyhow!("{}: {error}", self.dir.display()))?;
        let file = format!("{}{name}.npy", self.prefix);
        let mut bytes = Vec::new();
        encode(&mut bytes)?;
        let path = self.dir.join(&file);
        super::write_atomic(&path, &bytes)
            .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
        Ok(file)
    }

    /// Writes equal-sized `layers` (each of shape `shape`) as one `name.npy` array of shape
    /// `[layers, ..shape]`, empties them (their values now live in the sidecar) and returns the
    /// file name.
    pub fn write_layers(
        &self,
        name: &str,
        shape: &[usize],
        layers: &mut [&mut Vec<f64>],
    ) -> anyhow::Result<String> {
        let stacked: Vec<f64> = layers
            .iter()
            .flat_map(|layer| layer.iter().copied())
            .collect();
        let mut full = vec![layers.len()];
        full.extend_from_slice(shape);
        let file = self.write_f64(name, &full, &stacked)?;
        for layer in layers.iter_mut() {
            layer.clear();
        }
        Ok(file)
    }

    /// Reads `file`, written by [`Sidecar::write_layers`] with `layers.len()` layers of shape
    /// `shape`, back into `layers`; refuses an array of another shape, naming the file.
    pub fn read_layers(
        &self,
        file: &str,
        shape: &[usize],
        layers: &mut [&mut Vec<f64>],
    ) -> anyhow::Result<()> {
        let (found, values) = self.read_f64(file)?;
        let mut expected = vec![layers.len()];
        expected.extend_from_slice(shape);
        anyhow::ensure!(
            found == expected,
            "{file}: expected an array of shape {expected:?}, found {found:?}"
        );
        let size: usize = shape.iter().product();
        for (layer, chunk) in layers.iter_mut().zip(values.chunks_exact(size.max(1))) {
            **layer = chunk.to_vec();
        }
        Ok(())
    }

    /// Reads `file` as f64 values with its shape.
    pub fn read_f64(&self, file: &str) -> anyhow::Result<(Vec<usize>, Vec<f64>)> {
        let path = self.entry(file)?;
        benchtop_compute::npy::read_npy_f64_file(&path)
            .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))
    }

    /// Reads `file` as i8 values with its shape.
    pub fn read_i8(&self, file: &str) -> anyhow::Result<(Vec<usize>, Vec<i8>)> {
        let path = self.entry(file)?;
        benchtop_compute::npy::read_npy_i8_file(&path)
            .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let sidecar = Sidecar::new(dir.path().join("p.data"));
        let file = sidecar
            .write_f64("trace", &[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
            .unwrap();
        assert_eq!(
            sidecar.read_f64(&file).unwrap(),
            (vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        );
        let file = sidecar.write_i8("spins", &[2, 2], &[1, -1, -1, 1]).unwrap();
        assert_eq!(sidecar.read_i8(&file).unwrap().1, vec![1, -1, -1, 1]);
        let missing = sidecar.read_f64("nope.npy").unwrap_err().to_string();
        assert!(missing.contains("nope.npy"), "{missing}");
    }

    #[test]
    fn names_outside_the_folder_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("secret"), b"x").unwrap();
        let sidecar = Sidecar::new(dir.path().join("p.data"));
        for bad in ["../secret", "/etc/passwd", "a/b.npy", "..", "", "."] {
            let error = sidecar.read_text(bad).unwrap_err().to_string();
            assert!(error.contains("not a file name"), "{bad}: {error}");
            assert!(sidecar.read_f64(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn layers_round_trip_and_a_wrong_shape_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let sidecar = Sidecar::new(dir.path().join("p.data"));
        let (mut a, mut b) = (vec![1.0, 2.0], vec![3.0, 4.0]);
        let file = sidecar
            .write_layers("maps", &[1, 2], &mut [&mut a, &mut b])
            .unwrap();
        assert!(a.is_empty() && b.is_empty());
        assert_eq!(sidecar.read_f64(&file).unwrap().0, [2, 1, 2]);
        sidecar
            .read_layers(&file, &[1, 2], &mut [&mut a, &mut b])
            .unwrap();
        assert_eq!((a, b), (vec![1.0, 2.0], vec![3.0, 4.0]));
        let mut c = Vec::new();
        let err = sidecar
            .read_layers(&file, &[2, 2], &mut [&mut c])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("maps.npy") && err.contains("[1, 2, 2]"),
            "{err}"
        );
    }

    #[test]
    fn scoped_names_do_not_collide_and_old_names_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = Sidecar::new(dir.path().join("p.data"));
        let (one, two) = (root.scoped("1-"), root.scoped("2-"));
        let first = one.write_f64("series", &[1], &[1.0]).unwrap();
        let second = two.write_f64("series", &[1], &[2.0]).unwrap();
        assert_eq!(
            (first.as_str(), second.as_str()),
            ("1-series.npy", "2-series.npy")
        );
        assert_eq!(root.read_f64(&first).unwrap().1, [1.0]);
        assert_eq!(root.read_f64(&second).unwrap().1, [2.0]);
        assert_eq!(one.write_text("r.ron", "()").unwrap(), "1-r.ron");
        // An entry written before scoping (no prefix) is still found.
        std::fs::create_dir_all(root.dir().join("weights")).unwrap();
        assert_eq!(two.existing("weights"), Some(root.dir().join("weights")));
        std::fs::create_dir_all(two.path("weights")).unwrap();
        assert_eq!(two.existing("weights"), Some(root.dir().join("2-weights")));
        assert_eq!(one.existing("nothing"), None);
    }
}
