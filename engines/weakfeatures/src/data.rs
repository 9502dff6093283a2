//! The data: a jointly Gaussian generator `(x_o, x_w)` with `y = βᵀx + ε` (population moments
//! known, so every closed form is exact), the bundled breast-cancer table, and a user's CSV with
//! named observed, weak and target columns. Real tables are standardised column by column (the
//! target is left as it is) and split into training and test rows.

use std::path::{Path, PathBuf};

use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::{ComputeError, files};
use nalgebra::{DMatrix, DVector};
use rand::seq::SliceRandom as _;
use rand_distr::{Distribution as _, StandardNormal};
use serde::{Deserialize, Serialize};

/// The bundled table: the Wisconsin diagnostic breast-cancer data (569 rows, 30 features and
/// `malignant`), from scikit-learn's datasets folder (assets/SOURCES.md).
pub const BREAST_CANCER_CSV: &str = include_str!("../../../assets/weakfeatures/breast_cancer.csv");

/// The bundled table's file name, for messages.
pub const BREAST_CANCER_NAME: &str = "assets/weakfeatures/breast_cancer.csv";

/// Largest number of rows or columns a table may have (checked before allocating).
pub const MAX_ROWS: usize = 1_000_000;

/// Largest number of observed plus weak features.
pub const MAX_FEATURES: usize = 256;

/// Where the rows come from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// The jointly Gaussian generator (closed forms exact).
    #[default]
    Gaussian,
    /// The bundled breast-cancer table.
    BreastCancer,
    /// A CSV file with a header row.
    Csv,
}

/// The Gaussian generator: `x_o ~ N(0, Σ_oo)` (unit variances, equal correlations),
/// `x_w = B x_o + √(1 − R²)·z` with each weak feature of unit variance and a share R² of it
/// explained by `x_o`, and `y = β_oᵀx_o + β_wᵀx_w + σ·ξ`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GaussianParams {
    /// Observed features d_o.
    pub d_observed: usize,
    /// Weak features d_w.
    pub d_weak: usize,
    /// Correlation between any two observed features.
    pub corr_observed: f64,
    /// Share R² of each weak feature's variance explained by the observed features.
    pub r_squared: f64,
    /// Every coefficient of β_o.
    pub beta_observed: f64,
    /// Every coefficient of β_w.
    pub beta_weak: f64,
    /// Noise standard deviation σ of the target.
    pub noise_sd: f64,
}

impl Default for GaussianParams {
    fn default() -> Self {
        Self {
            d_observed: 8,
            d_weak: 2,
            corr_observed: 0.2,
            r_squared: 0.5,
            beta_observed: 0.5,
            beta_weak: 1.0,
            noise_sd: 0.5,
        }
    }
}

impl GaussianParams {
    /// Range checks; errors name the key under `prefix` (e.g. `data.gaussian`).
    pub fn validate(&self, prefix: &str) -> Result<(), ComputeError> {
        let key = |k: &str| format!("{prefix}.{k}");
        benchtop_learn::settings::whole_in(&key("d_observed"), self.d_observed, 1..=128)?;
        benchtop_learn::settings::whole_in(&key("d_weak"), self.d_weak, 1..=128)?;
        if !(0.0..=0.95).contains(&self.corr_observed) {
            return Err(ComputeError::invalid(
                key("corr_observed"),
                "choose 0 to 0.95",
            ));
        }
        if !(0.0..=0.99).contains(&self.r_squared) {
            return Err(ComputeError::invalid(key("r_squared"), "choose 0 to 0.99"));
        }
        for (k, v) in [
            ("beta_observed", self.beta_observed),
            ("beta_weak", self.beta_weak),
        ] {
            if !(v.is_finite() && v.abs() <= 100.0) {
                return Err(ComputeError::invalid(key(k), "choose −100 to 100"));
            }
        }
        benchtop_learn::settings::non_negative(&key("noise_sd"), self.noise_sd)
    }
}

/// Which columns of a table are observed features, weak features and the target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Columns {
    /// Observed feature columns, comma-separated.
    pub observed: String,
    /// Weak feature columns, comma-separated.
    pub weak: String,
    /// The target column.
    pub target: String,
}

impl Default for Columns {
    /// The breast-cancer table's default split: the ten standard-error features observed, three
    /// "worst" features weak, the diagnosis (1 = malignant) as target.
    fn default() -> Self {
        Self {
            observed: "se_radius, se_texture, se_perimeter, se_area, se_smoothness, \
                       se_compactness, se_concavity, se_concave_points, se_symmetry, \
                       se_fractal_dimension"
                .to_owned(),
            weak: "worst_radius, worst_texture, worst_concave_points".to_owned(),
            target: "malignant".to_owned(),
        }
    }
}

/// The data settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DataParams {
    /// Where the rows come from.
    pub source: Source,
    /// The generator's settings.
    pub gaussian: GaussianParams,
    /// The CSV file (source `Csv`).
    pub path: PathBuf,
    /// The column roles of a table (bundled or CSV).
    pub columns: Columns,
    /// Training rows n (a table uses at most the rows left after the test split).
    pub n_train: usize,
    /// Test rows of the generator.
    pub n_test: usize,
    /// Share of a table's rows held out for testing.
    pub test_fraction: f64,
}

impl Default for DataParams {
    fn default() -> Self {
        Self {
            source: Source::Gaussian,
            gaussian: GaussianParams::default(),
            path: PathBuf::new(),
            columns: Columns::default(),
            n_train: 2000,
            n_test: 20_000,
            test_fraction: 0.3,
        }
    }
}

impl DataParams {
    /// Range checks (the file itself is checked when it is read).
    pub fn validate(&self) -> Result<(), ComputeError> {
        self.gaussian.validate("data.gaussian")?;
        benchtop_learn::settings::whole_in("data.n_train", self.n_train, 10..=MAX_ROWS)?;
        benchtop_learn::settings::whole_in("data.n_test", self.n_test, 10..=MAX_ROWS)?;
        if !(0.05..=0.9).contains(&self.test_fraction) {
            return Err(ComputeError::invalid(
                "data.test_fraction",
                "choose 0.05 to 0.9",
            ));
        }
        Ok(())
    }
}

/// Rows of one split: observed features, the weak features' true values (hidden from every
/// method where the mask says missing), the target and, for the generator, the Bayes
/// predictor `βᵀx` of every row.
#[derive(Clone, Debug, PartialEq)]
pub struct Rows {
    /// Observed features, n × d_o.
    pub x_o: DMatrix<f64>,
    /// Weak features' true values, n × d_w.
    pub x_w: DMatrix<f64>,
    /// Target.
    pub y: DVector<f64>,
    /// `E[y | x]` of every row when it is known (the generator).
    pub bayes: Option<DVector<f64>>,
}

impl Rows {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    /// The first `n` rows.
    pub fn head(&self, n: usize) -> Rows {
        let n = n.min(self.len());
        Rows {
            x_o: self.x_o.rows(0, n).into_owned(),
            x_w: self.x_w.rows(0, n).into_owned(),
            y: self.y.rows(0, n).into_owned(),
            bayes: self.bayes.as_ref().map(|b| b.rows(0, n).into_owned()),
        }
    }
}

/// Second moments of `(x_o, x_w, y)`: exact for the generator, estimated from every row for a
/// table (a Gaussian-linear approximation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Population {
    /// Covariance Σ of `(x_o, x_w)`, observed block first.
    pub sigma: DMatrix<f64>,
    /// Coefficients β of the best linear predictor of y from `(x_o, x_w)`.
    pub beta: DVector<f64>,
    /// Variance of y around `βᵀx` (the Bayes risk of the linear model).
    pub noise_var: f64,
    /// Observed features d_o (the first block).
    pub d_observed: usize,
    /// Whether the moments are the generator's exact ones.
    pub exact: bool,
}

impl Population {
    /// Weak features d_w.
    pub fn d_weak(&self) -> usize {
        self.beta.len() - self.d_observed
    }

    /// `E[x_w | x_o] = M x_o`: the map M (d_w × d_o).
    pub fn conditional_mean_map(&self) -> Result<DMatrix<f64>, ComputeError> {
        let (d_o, d_w) = (self.d_observed, self.d_weak());
        let s_oo = self.sigma.view((0, 0), (d_o, d_o)).into_owned();
        let s_wo = self.sigma.view((d_o, 0), (d_w, d_o)).into_owned();
        let inverse = s_oo.try_inverse().ok_or_else(|| {
            ComputeError::Numerical("the observed features' covariance is singular".into())
        })?;
        Ok(s_wo * inverse)
    }

    /// `Var(x_w | x_o)` (d_w × d_w).
    pub fn conditional_covariance(&self) -> Result<DMatrix<f64>, ComputeError> {
        let (d_o, d_w) = (self.d_observed, self.d_weak());
        let map = self.conditional_mean_map()?;
        let s_ww = self.sigma.view((d_o, d_o), (d_w, d_w)).into_owned();
        let s_ow = self.sigma.view((0, d_o), (d_o, d_w)).into_owned();
        Ok(s_ww - map * s_ow)
    }

    /// β_w, the weak block of β.
    pub fn beta_weak(&self) -> DVector<f64> {
        self.beta.rows(self.d_observed, self.d_weak()).into_owned()
    }
}

/// A problem: training and test rows, their moments, and the columns' names.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Training rows.
    pub train: Rows,
    /// Test rows.
    pub test: Rows,
    /// Moments (exact for the generator).
    pub population: Population,
    /// Names of the observed features.
    pub observed_names: Vec<String>,
    /// Names of the weak features.
    pub weak_names: Vec<String>,
    /// Name of the target.
    pub target_name: String,
    /// Where the rows came from, in words.
    pub source_label: String,
}

/// The problem `params` describes: generated, or read and split with `seed`.
pub fn problem(params: &DataParams, seed: u64) -> Result<Problem, ComputeError> {
    params.validate()?;
    match params.source {
        Source::Gaussian => Ok(gaussian_problem(
            &params.gaussian,
            params.n_train,
            params.n_test,
            seed,
        )),
        Source::BreastCancer => {
            let table = parse_table(BREAST_CANCER_CSV, BREAST_CANCER_NAME)?;
            table_problem(&table, params, seed, "breast-cancer table (569 rows)")
        }
        Source::Csv => {
            if params.path.as_os_str().is_empty() {
                return Err(ComputeError::invalid(
                    "data.path",
                    "choose a CSV file (a header row, then one row per sample)",
                ));
            }
            let text = files::read_text(&params.path, files::MAX_DATA_BYTES)
                .map_err(|e| ComputeError::invalid("data.path", e.to_string()))?;
            let shown = params.path.display().to_string();
            let table = parse_table(&text, &shown)?;
            let label = format!("{shown} ({} rows)", table.rows);
            table_problem(&table, params, seed, &label)
        }
    }
}

/// The generator's population moments and its weak-feature map B, from `seed`'s directions.
fn gaussian_moments(g: &GaussianParams, seed: u64) -> (Population, DMatrix<f64>) {
    let (d_o, d_w) = (g.d_observed, g.d_weak);
    let c = g.corr_observed;
    let s_oo = DMatrix::from_fn(d_o, d_o, |i, j| if i == j { 1.0 } else { c });
    // Seeded directions u_k, scaled so that u_kᵀ Σ_oo u_k = 1; row k of B is √R²·u_kᵀ.
    let mut rng = seeded(derive_seed(seed, 1));
    let mut b = DMatrix::zeros(d_w, d_o);
    for k in 0..d_w {
        let u = DVector::from_fn(d_o, |_, _| StandardNormal.sample(&mut rng));
        let norm = (u.transpose() * &s_oo * &u)[(0, 0)].sqrt().max(1e-300);
        for j in 0..d_o {
            b[(k, j)] = g.r_squared.sqrt() * u[j] / norm;
        }
    }
    let s_ow = &s_oo * b.transpose();
    let residual = DMatrix::identity(d_w, d_w) * (1.0 - g.r_squared);
    let s_ww = &b * &s_oo * b.transpose() + residual;
    let d = d_o + d_w;
    let mut sigma = DMatrix::zeros(d, d);
    sigma.view_mut((0, 0), (d_o, d_o)).copy_from(&s_oo);
    sigma.view_mut((0, d_o), (d_o, d_w)).copy_from(&s_ow);
    sigma
        .view_mut((d_o, 0), (d_w, d_o))
        .copy_from(&s_ow.transpose());
    sigma.view_mut((d_o, d_o), (d_w, d_w)).copy_from(&s_ww);
    let beta = DVector::from_fn(d, |i, _| {
        if i < d_o {
            g.beta_observed
        } else {
            g.beta_weak
        }
    });
    let population = Population {
        sigma,
        beta,
        noise_var: g.noise_sd * g.noise_sd,
        d_observed: d_o,
        exact: true,
    };
    (population, b)
}

/// `n` generated rows from stream `stream` of `seed`.
fn gaussian_rows(
    g: &GaussianParams,
    population: &Population,
    b: &DMatrix<f64>,
    n: usize,
    seed: u64,
) -> Rows {
    let (d_o, d_w) = (g.d_observed, g.d_weak);
    let s_oo = population.sigma.view((0, 0), (d_o, d_o)).into_owned();
    // Σ_oo = (1 − c)I + c·11ᵀ is positive definite for 0 ≤ c < 1.
    let chol = s_oo
        .cholesky()
        .map(|c| c.l())
        .unwrap_or_else(|| DMatrix::identity(d_o, d_o));
    let mut rng = seeded(seed);
    let mut normal = || -> f64 { StandardNormal.sample(&mut rng) };
    let mut x_o = DMatrix::zeros(n, d_o);
    let mut x_w = DMatrix::zeros(n, d_w);
    let mut y = DVector::zeros(n);
    let mut bayes = DVector::zeros(n);
    let residual_sd = (1.0 - g.r_squared).sqrt();
    let mut z = DVector::zeros(d_o);
    for i in 0..n {
        for value in z.iter_mut() {
            *value = normal();
        }
        let xo = &chol * &z;
        let mut mean = 0.0;
        for j in 0..d_o {
            x_o[(i, j)] = xo[j];
            mean += population.beta[j] * xo[j];
        }
        let xw = b * &xo;
        for k in 0..d_w {
            let v = xw[k] + residual_sd * normal();
            x_w[(i, k)] = v;
            mean += population.beta[d_o + k] * v;
        }
        bayes[i] = mean;
        y[i] = mean + g.noise_sd * normal();
    }
    Rows {
        x_o,
        x_w,
        y,
        bayes: Some(bayes),
    }
}

/// The generator's problem: `n_train` and `n_test` rows from separate streams of `seed`.
pub fn gaussian_problem(g: &GaussianParams, n_train: usize, n_test: usize, seed: u64) -> Problem {
    let (population, b) = gaussian_moments(g, seed);
    let train = gaussian_rows(g, &population, &b, n_train, derive_seed(seed, 2));
    let test = gaussian_rows(g, &population, &b, n_test, derive_seed(seed, 3));
    Problem {
        train,
        test,
        population,
        observed_names: (1..=g.d_observed).map(|j| format!("x_o{j}")).collect(),
        weak_names: (1..=g.d_weak).map(|k| format!("x_w{k}")).collect(),
        target_name: "y".to_owned(),
        source_label: format!(
            "Gaussian: d_o = {}, d_w = {}, R² = {}",
            g.d_observed, g.d_weak, g.r_squared
        ),
    }
}

/// A numeric table: named columns, values column by column.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Column names from the header row.
    pub names: Vec<String>,
    /// Values, `columns[c][r]`.
    pub columns: Vec<Vec<f64>>,
    /// Number of rows.
    pub rows: usize,
    /// The file's name, for messages.
    pub file: String,
}

impl Table {
    /// Index of the column `name` (trimmed, exact), or an error listing the header.
    fn column(&self, name: &str, role: &str, key: &str) -> Result<usize, ComputeError> {
        self.names.iter().position(|n| n == name).ok_or_else(|| {
            ComputeError::invalid(
                key,
                format!(
                    "{}: line 1: no column `{name}` (the {role} column); the header has {}",
                    self.file,
                    self.names.join(", ")
                ),
            )
        })
    }
}

/// Parses CSV text with a header row into numeric columns. Errors name `file`, the line and
/// the column (1-based) of the first bad cell.
pub fn parse_table(text: &str, file: &str) -> Result<Table, ComputeError> {
    let bad = |why: String| ComputeError::invalid("data.path", format!("{file}: {why}"));
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes());
    let names: Vec<String> = reader
        .headers()
        .map_err(|e| bad(format!("line 1: {e}")))?
        .iter()
        .map(str::to_owned)
        .collect();
    if names.is_empty() || names.iter().all(String::is_empty) {
        return Err(bad("line 1: no header row".into()));
    }
    if names.len() > MAX_FEATURES + 1_000 {
        return Err(bad(format!(
            "line 1: {} columns; at most 1256",
            names.len()
        )));
    }
    let mut columns: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let mut rows = 0;
    for (index, record) in reader.records().enumerate() {
        let line = index + 2;
        let record = record.map_err(|e| bad(format!("line {line}: {e}")))?;
        if record.len() != names.len() {
            return Err(bad(format!(
                "line {line}: {} fields, the header has {}",
                record.len(),
                names.len()
            )));
        }
        if rows >= MAX_ROWS {
            return Err(bad(format!("more than {MAX_ROWS} rows")));
        }
        for (column, field) in record.iter().enumerate() {
            let value: f64 = field.parse().map_err(|_| {
                let what = if field.is_empty() {
                    "an empty cell (the panel injects missing values itself: give every value)"
                        .to_owned()
                } else {
                    format!("`{field}` is not a number")
                };
                bad(format!(
                    "line {line}, column {} (`{}`): {what}",
                    column + 1,
                    names[column]
                ))
            })?;
            if !value.is_finite() {
                return Err(bad(format!(
                    "line {line}, column {} (`{}`): {value} is not finite",
                    column + 1,
                    names[column]
                )));
            }
            columns[column].push(value);
        }
        rows += 1;
    }
    Ok(Table {
        names,
        columns,
        rows,
        file: file.to_owned(),
    })
}

/// The names of a comma-separated column list (empty entries dropped).
pub fn column_list(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A table's problem: columns chosen by name, features standardised over all rows, rows
/// shuffled with `seed` and split into test (`test_fraction`) and training rows (at most
/// `n_train`).
pub fn table_problem(
    table: &Table,
    params: &DataParams,
    seed: u64,
    label: &str,
) -> Result<Problem, ComputeError> {
    let observed = column_list(&params.columns.observed);
    let weak = column_list(&params.columns.weak);
    let target = params.columns.target.trim().to_owned();
    if observed.is_empty() {
        return Err(ComputeError::invalid(
            "data.columns.observed",
            "name at least one observed feature column",
        ));
    }
    if weak.is_empty() {
        return Err(ComputeError::invalid(
            "data.columns.weak",
            "name at least one weak feature column",
        ));
    }
    if observed.len() + weak.len() > MAX_FEATURES {
        return Err(ComputeError::invalid(
            "data.columns.weak",
            format!("at most {MAX_FEATURES} features in all"),
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for name in observed.iter().chain(&weak).chain(std::iter::once(&target)) {
        if !seen.insert(name.as_str()) {
            return Err(ComputeError::invalid(
                "data.columns",
                format!("column `{name}` is named twice (each column has one role)"),
            ));
        }
    }
    let o_idx = observed
        .iter()
        .map(|n| table.column(n, "observed", "data.columns.observed"))
        .collect::<Result<Vec<_>, _>>()?;
    let w_idx = weak
        .iter()
        .map(|n| table.column(n, "weak", "data.columns.weak"))
        .collect::<Result<Vec<_>, _>>()?;
    let t_idx = table.column(&target, "target", "data.columns.target")?;
    let n = table.rows;
    let n_test = ((n as f64) * params.test_fraction).round() as usize;
    let n_train = (n - n_test).min(params.n_train);
    if n_test < 5 || n_train < 10 {
        return Err(ComputeError::invalid(
            "data.path",
            format!(
                "{}: {n} rows give {n_train} training and {n_test} test rows; at least 10 and 5 \
                 are needed",
                table.file
            ),
        ));
    }
    let standardised = |c: usize| -> Vec<f64> {
        let values = &table.columns[c];
        let mean = values.iter().sum::<f64>() / n as f64;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n as f64;
        let sd = if var > 0.0 { var.sqrt() } else { 1.0 };
        values.iter().map(|v| (v - mean) / sd).collect()
    };
    let o_cols: Vec<Vec<f64>> = o_idx.iter().map(|&c| standardised(c)).collect();
    let w_cols: Vec<Vec<f64>> = w_idx.iter().map(|&c| standardised(c)).collect();
    let y_all = &table.columns[t_idx];
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut seeded(derive_seed(seed, 4)));
    let take = |rows: &[usize]| Rows {
        x_o: DMatrix::from_fn(rows.len(), o_cols.len(), |i, j| o_cols[j][rows[i]]),
        x_w: DMatrix::from_fn(rows.len(), w_cols.len(), |i, k| w_cols[k][rows[i]]),
        y: DVector::from_fn(rows.len(), |i, _| y_all[rows[i]]),
        bayes: None,
    };
    let test = take(&order[..n_test]);
    let train = take(&order[n_test..n_test + n_train]);
    let all = take(&order);
    let population = estimated_population(&all)?;
    Ok(Problem {
        train,
        test,
        population,
        observed_names: observed,
        weak_names: weak,
        target_name: target,
        source_label: label.to_owned(),
    })
}

/// Moments estimated from every row of a table: the covariance of the features, the
/// least-squares coefficients (with an intercept) and the residual variance.
pub fn estimated_population(rows: &Rows) -> Result<Population, ComputeError> {
    let n = rows.len();
    let (d_o, d_w) = (rows.x_o.ncols(), rows.x_w.ncols());
    let d = d_o + d_w;
    let mut x = DMatrix::zeros(n, d);
    x.view_mut((0, 0), (n, d_o)).copy_from(&rows.x_o);
    x.view_mut((0, d_o), (n, d_w)).copy_from(&rows.x_w);
    let means = DVector::from_fn(d, |j, _| x.column(j).mean());
    for j in 0..d {
        let m = means[j];
        x.column_mut(j).add_scalar_mut(-m);
    }
    let sigma = x.transpose() * &x / n as f64;
    let y_mean = rows.y.mean();
    let yc = rows.y.add_scalar(-y_mean);
    let gram = sigma.clone() * n as f64;
    let rhs = x.transpose() * &yc;
    let beta = gram
        .clone()
        .cholesky()
        .map(|c| c.solve(&rhs))
        .or_else(|| gram.svd(true, true).solve(&rhs, 1e-12).ok())
        .ok_or_else(|| ComputeError::Numerical("the table's features are degenerate".into()))?;
    let residual = yc - &x * &beta;
    let noise_var = residual.norm_squared() / n as f64;
    Ok(Population {
        sigma,
        beta,
        noise_var,
        d_observed: d_o,
        exact: false,
    })
}

/// Path shown for a data file in messages (the file name when it has one).
pub fn shown(path: &Path) -> String {
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wf_generator_matches_its_moments() {
        let g = GaussianParams {
            d_observed: 3,
            d_weak: 2,
            corr_observed: 0.4,
            r_squared: 0.6,
            ..GaussianParams::default()
        };
        let p = gaussian_problem(&g, 40_000, 10, 7);
        let est = estimated_population(&p.train).unwrap();
        let diff = (&est.sigma - &p.population.sigma).abs().max();
        assert!(diff < 0.03, "covariance off by {diff}");
        let v = p.population.conditional_covariance().unwrap();
        assert!(
            (v[(0, 0)] - 0.4).abs() < 1e-12 && v[(0, 1)].abs() < 1e-12,
            "{v}"
        );
        assert!((est.beta - &p.population.beta).abs().max() < 0.02);
        assert!((est.noise_var - 0.25).abs() < 0.01, "{}", est.noise_var);
    }

    #[test]
    fn wf_bundled_table_reads_and_bad_cells_are_named() {
        let table = parse_table(BREAST_CANCER_CSV, BREAST_CANCER_NAME).unwrap();
        assert_eq!(table.rows, 569);
        assert_eq!(table.names.len(), 31);
        let malignant = table.columns[30].iter().filter(|v| **v == 1.0).count();
        assert_eq!(malignant, 212);
        let error = parse_table("a,b,c\n1,2,3\n4,x,6\n", "bad.csv")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("bad.csv")
                && error.contains("line 3, column 2")
                && error.contains("`b`"),
            "{error}"
        );
        let error = parse_table("a,b\n1,2\n3\n", "short.csv")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("short.csv") && error.contains("line 3"),
            "{error}"
        );
        let error = parse_table("a,b\n1,\n", "empty.csv")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("line 2, column 2") && error.contains("empty"),
            "{error}"
        );
    }

    #[test]
    fn wf_table_columns_are_checked_by_name() {
        let params = DataParams {
            source: Source::BreastCancer,
            columns: Columns {
                observed: "mean_radius, nope".into(),
                ..Columns::default()
            },
            ..DataParams::default()
        };
        let error = problem(&params, 1).unwrap_err().to_string();
        assert!(error.contains("no column `nope`"), "{error}");
        let params = DataParams {
            source: Source::BreastCancer,
            ..DataParams::default()
        };
        let p = problem(&params, 1).unwrap();
        assert_eq!(p.test.len(), 171);
        assert_eq!(p.train.len(), 398);
        assert_eq!((p.train.x_o.ncols(), p.train.x_w.ncols()), (10, 3));
    }
}
