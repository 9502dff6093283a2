//! Data sets for the networks: Saxe-style hierarchical item × feature data, random Gaussian
//! (teacher) tasks, and a user's CSV of inputs and targets. Items are columns: `x` is
//! `n_in × P`, `y` is `n_out × P`.

use benchtop_compute::files;
use std::path::{Path, PathBuf};

use benchtop_compute::ComputeError;
use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use crate::linalg::gaussian;

/// Inputs and targets, one column per item.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    /// Inputs, `n_in × P`.
    pub x: DMatrix<f64>,
    /// Targets, `n_out × P`.
    pub y: DMatrix<f64>,
    /// One name per item (column), for figure axes.
    pub item_names: Vec<String>,
}

impl Dataset {
    /// Number of items P.
    pub fn items(&self) -> usize {
        self.x.ncols()
    }

    /// Input dimension.
    pub fn n_in(&self) -> usize {
        self.x.nrows()
    }

    /// Output dimension.
    pub fn n_out(&self) -> usize {
        self.y.nrows()
    }
}

/// Where the data come from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum DataSource {
    /// Items are the leaves of a tree; each target feature is one tree node (1 if the node is
    /// the item's ancestor, 0 otherwise), as in Saxe, McClelland and Ganguli (2019).
    Hierarchy {
        /// Levels below the root (items = branching^depth).
        depth: usize,
        /// Children per node.
        branching: usize,
        /// Inputs are `I + m·ZZᵀ/P` (Z standard normal, P × P): 0 gives one-hot (whitened)
        /// inputs, for which the solution families coincide; larger values correlate the items'
        /// inputs (condition number up to about 1 + 4m) and separate the families.
        input_mixing: f64,
    },
    /// Gaussian inputs and a random low-rank linear teacher plus target noise.
    Gaussian {
        /// Input dimension.
        n_in: usize,
        /// Output dimension.
        n_out: usize,
        /// Number of items P.
        items: usize,
        /// Rank of the teacher map.
        rank: usize,
        /// Standard deviation of the noise added to the targets.
        target_noise: f64,
    },
    /// A CSV file: one row per item; columns whose header starts with `x` are inputs, `y`
    /// targets.
    Csv {
        /// The file (relative paths are resolved by the caller).
        path: PathBuf,
    },
}

impl Default for DataSource {
    fn default() -> Self {
        Self::Hierarchy {
            depth: 3,
            branching: 2,
            input_mixing: 1.0,
        }
    }
}

/// Largest number of items or dimensions a generated data set may have.
const MAX_SIZE: usize = 4096;

impl DataSource {
    /// Checks sizes and ranges; the error names the parameter (`key` is the prefix, e.g.
    /// `data`).
    pub fn validate(&self, key: &str) -> Result<(), ComputeError> {
        let bad =
            |name: &str, reason: String| ComputeError::invalid(format!("{key}.{name}"), reason);
        match self {
            Self::Hierarchy {
                depth,
                branching,
                input_mixing,
            } => {
                if *depth < 1 || *branching < 2 {
                    return Err(bad(
                        "depth",
                        format!(
                            "a tree needs depth ≥ 1 and branching ≥ 2 (got {depth}, {branching})"
                        ),
                    ));
                }
                let items = u32::try_from(*depth)
                    .ok()
                    .and_then(|d| branching.checked_pow(d))
                    .filter(|n| *n <= MAX_SIZE);
                if items.is_none() {
                    return Err(bad(
                        "depth",
                        format!("branching^depth items must be at most {MAX_SIZE}"),
                    ));
                }
                if !(0.0..=10.0).contains(input_mixing) {
                    return Err(bad(
                        "input_mixing",
                        format!("must be in [0, 10], got {input_mixing}"),
                    ));
                }
            }
            Self::Gaussian {
                n_in,
                n_out,
                items,
                rank,
                target_noise,
            } => {
                for (name, value) in [("n_in", n_in), ("n_out", n_out), ("items", items)] {
                    if !(1..=MAX_SIZE).contains(value) {
                        return Err(bad(name, format!("must be 1 … {MAX_SIZE}, got {value}")));
                    }
                }
                if *rank < 1 || *rank > (*n_in).min(*n_out) {
                    return Err(bad(
                        "rank",
                        format!(
                            "must be 1 … min(n_in, n_out) = {}, got {rank}",
                            n_in.min(n_out)
                        ),
                    ));
                }
                if !target_noise.is_finite() || *target_noise < 0.0 {
                    return Err(bad(
                        "target_noise",
                        format!("must be ≥ 0, got {target_noise}"),
                    ));
                }
            }
            Self::Csv { .. } => {}
        }
        Ok(())
    }

    /// Makes or reads the data set (`seed` draws the random parts).
    pub fn load(&self, seed: u64) -> Result<Dataset, ComputeError> {
        self.validate("data")?;
        match self {
            Self::Hierarchy {
                depth,
                branching,
                input_mixing,
            } => Ok(hierarchy(*depth, *branching, *input_mixing, seed)),
            Self::Gaussian {
                n_in,
                n_out,
                items,
                rank,
                target_noise,
            } => Ok(gaussian_task(
                *n_in,
                *n_out,
                *items,
                *rank,
                *target_noise,
                seed,
            )),
            Self::Csv { path } => read_csv(path),
        }
    }
}

/// The hierarchical data set: `branching^depth` items, one target feature per tree node
/// (root included), inputs `I + m·ZZᵀ/P` (one-hot at `m = 0`).
pub fn hierarchy(depth: usize, branching: usize, input_mixing: f64, seed: u64) -> Dataset {
    let depth_u32 = u32::try_from(depth).unwrap_or(u32::MAX);
    let items = branching.pow(depth_u32);
    // Nodes at level ℓ: branching^ℓ, the ancestor of item i at level ℓ is i / branching^(depth−ℓ).
    let mut rows: Vec<Vec<f64>> = Vec::new();
    for level in 0..=depth_u32 {
        let nodes = branching.pow(level);
        let block = branching.pow(depth_u32 - level);
        for node in 0..nodes {
            rows.push(
                (0..items)
                    .map(|i| if i / block == node { 1.0 } else { 0.0 })
                    .collect(),
            );
        }
    }
    let y = DMatrix::from_fn(rows.len(), items, |r, c| rows[r][c]);
    let z = gaussian(items, items, seed);
    let mixing = &z * z.transpose() / items as f64;
    let x = DMatrix::<f64>::identity(items, items) + mixing * input_mixing;
    let item_names = (0..items).map(|i| format!("item {}", i + 1)).collect();
    Dataset { x, y, item_names }
}

/// A random task: `x` standard normal (`n_in × P`), `y = T x + noise` with a rank-`rank`
/// teacher `T = A B / √(n_in·rank)`.
pub fn gaussian_task(
    n_in: usize,
    n_out: usize,
    items: usize,
    rank: usize,
    target_noise: f64,
    seed: u64,
) -> Dataset {
    use benchtop_compute::rng::derive_seed;
    let x = gaussian(n_in, items, derive_seed(seed, 0));
    let scale = 1.0 / ((n_in * rank) as f64).sqrt();
    let teacher = gaussian(n_out, rank, derive_seed(seed, 1))
        * gaussian(rank, n_in, derive_seed(seed, 2))
        * scale;
    let y = &teacher * &x + gaussian(n_out, items, derive_seed(seed, 3)) * target_noise;
    let item_names = (0..items).map(|i| format!("item {}", i + 1)).collect();
    Dataset { x, y, item_names }
}

/// Reads a CSV of items: a header row, then one row per item; columns named `x…` are inputs and
/// `y…` targets (any order); an optional first column `item` names the rows. Errors name the
/// file, line and column.
pub fn read_csv(path: &Path) -> Result<Dataset, ComputeError> {
    let shown = path.display();
    let bad = |reason: String| ComputeError::invalid("data.file", format!("{shown}: {reason}"));
    let mut reader =
        csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_reader(std::io::Cursor::new(
                files::read_bytes(path, files::MAX_DATA_BYTES)
                    .map_err(|e| ComputeError::invalid("data.file", e.to_string()))?,
            ));
    let headers = reader
        .headers()
        .map_err(|e| bad(format!("line 1: {e}")))?
        .clone();
    #[derive(Clone, Copy, PartialEq)]
    enum Role {
        Name,
        Input,
        Target,
    }
    let mut roles = Vec::new();
    for (index, header) in headers.iter().enumerate() {
        let lower = header.to_ascii_lowercase();
        let role = if index == 0 && lower == "item" {
            Role::Name
        } else if lower.starts_with('x') {
            Role::Input
        } else if lower.starts_with('y') {
            Role::Target
        } else {
            return Err(bad(format!(
                "line 1, column {}: header `{header}` is neither an input (x…) nor a target (y…)",
                index + 1
            )));
        };
        roles.push(role);
    }
    let n_in = roles.iter().filter(|r| **r == Role::Input).count();
    let n_out = roles.iter().filter(|r| **r == Role::Target).count();
    if n_in == 0 || n_out == 0 {
        return Err(bad(format!(
            "line 1: needs at least one input column (x…) and one target column (y…); found {n_in} and {n_out}"
        )));
    }
    let (mut inputs, mut targets, mut names) = (Vec::new(), Vec::new(), Vec::new());
    for (row_index, record) in reader.records().enumerate() {
        let line = row_index + 2;
        let record = record.map_err(|e| bad(format!("line {line}: {e}")))?;
        if record.len() != roles.len() {
            return Err(bad(format!(
                "line {line}: {} fields, the header has {}",
                record.len(),
                roles.len()
            )));
        }
        let mut name = format!("item {}", row_index + 1);
        for (column, (field, role)) in record.iter().zip(&roles).enumerate() {
            if *role == Role::Name {
                field.clone_into(&mut name);
                continue;
            }
            let value: f64 = field.parse().map_err(|_| {
                bad(format!(
                    "line {line}, column {} (`{}`): `{field}` is not a number",
                    column + 1,
                    &headers[column]
                ))
            })?;
            if !value.is_finite() {
                return Err(bad(format!(
                    "line {line}, column {} (`{}`): {value} is not finite",
                    column + 1,
                    &headers[column]
                )));
            }
            if *role == Role::Input {
                inputs.push(value);
            } else {
                targets.push(value);
            }
        }
        names.push(name);
    }
    let items = names.len();
    if items < 2 {
        return Err(bad(format!("needs at least 2 item rows, found {items}")));
    }
    // Row-major per item → columns are items.
    let x = DMatrix::from_column_slice(n_in, items, &inputs);
    let y = DMatrix::from_column_slice(n_out, items, &targets);
    Ok(Dataset {
        x,
        y,
        item_names: names,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[test]
    fn linnet_hierarchy_has_one_feature_per_node() {
        let data = hierarchy(3, 2, 0.0, 1);
        assert_eq!((data.items(), data.n_out(), data.n_in()), (8, 15, 8));
        // Every item has exactly one active node per level (4 levels).
        for column in data.y.column_iter() {
            assert!((column.sum() - 4.0).abs() < 1e-12);
        }
        // Items 0 and 1 share the parent, 0 and 7 only the root.
        let shared = |a: usize, b: usize| data.y.column(a).dot(&data.y.column(b));
        assert!((shared(0, 1) - 3.0).abs() < 1e-12);
        assert!((shared(0, 7) - 1.0).abs() < 1e-12);
        assert_eq!(data.x, DMatrix::identity(8, 8));
        let three = hierarchy(2, 3, 0.5, 1);
        assert_eq!((three.items(), three.n_out()), (9, 13));
    }

    #[test]
    fn linnet_csv_reads_items_and_names_bad_cells() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let good = dir.path().join("good.csv");
        let mut f = std::fs::File::create(&good).expect("file");
        writeln!(f, "item,x1,x2,y1\ncat,1,0,2\ndog,0,1,3\nfox,1,1,5").expect("write");
        let data = read_csv(&good).expect("reads");
        assert_eq!((data.items(), data.n_in(), data.n_out()), (3, 2, 1));
        assert_eq!(data.item_names[1], "dog");
        assert!((data.y[(0, 2)] - 5.0).abs() < 1e-12);
        assert!((data.x[(1, 1)] - 1.0).abs() < 1e-12);

        let bad = dir.path().join("bad.csv");
        let mut f = std::fs::File::create(&bad).expect("file");
        writeln!(f, "x1,y1\n1,2\n3,oops").expect("write");
        let message = read_csv(&bad).expect_err("refused").to_string();
        assert!(
            message.contains("bad.csv") && message.contains("line 3, column 2"),
            "{message}"
        );
        let header = dir.path().join("header.csv");
        std::fs::write(&header, "x1,z\n1,2\n").expect("write");
        let message = read_csv(&header).expect_err("refused").to_string();
        assert!(
            message.contains("column 2") && message.contains("`z`"),
            "{message}"
        );
    }
}
