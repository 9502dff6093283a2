//! What the panel keeps of its trials and fit: small descriptions in the project file, arrays in
//! the sidecar (NPY), so reopening a project shows the same figures without regenerating or
//! retraining.

use benchtop_findr::clicks::Click;
use benchtop_findr::planted::PlantedFlow;
use benchtop_findr::result::{EpochRecord, FindrResult};
use benchtop_findr::synthetic::PlantedTruth;
use benchtop_findr::trials::TrialSet;
use serde::{Deserialize, Serialize};

use super::{LoadedData, SavedResults};
use benchtop_kit::data::StoredData;
use benchtop_kit::panel::{from_saved, to_saved};
use benchtop_kit::project::Sidecar;

/// Columns of the training-history table and its sidecar array.
pub(super) const HISTORY_COLUMNS: [&str; 8] = [
    "epoch",
    "learning_rate",
    "kl_weight",
    "train_nll",
    "train_kl",
    "validation_nll",
    "validation_kl",
    "validation_predictive_nll",
];

/// Columns of histories saved before the predictive NLL existed (read; its column is NaN).
const OLD_HISTORY_COLUMNS: usize = 7;

/// One epoch as a row of [`HISTORY_COLUMNS`].
pub(super) fn history_row(record: &EpochRecord) -> Vec<f64> {
    vec![
        record.epoch as f64,
        record.learning_rate,
        record.kl_weight,
        record.train_nll,
        record.train_kl,
        record.validation_nll,
        record.validation_kl,
        record.validation_predictive_nll,
    ]
}

fn history_record(row: &[f64]) -> EpochRecord {
    EpochRecord {
        epoch: row[0] as usize,
        learning_rate: row[1],
        kl_weight: row[2],
        train_nll: row[3],
        train_kl: row[4],
        validation_nll: row[5],
        validation_kl: row[6],
        validation_predictive_nll: row.get(7).copied().unwrap_or(f64::NAN),
    }
}

/// The description of the trials kept in the project file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct DataMeta {
    source: String,
    n_trials: usize,
    max_bins: usize,
    n_neurons: usize,
    bin_s: f64,
    has_choices: bool,
    /// The planted flow (synthetic data only).
    planted: Option<PlantedFlow>,
    /// The planted time constant τ, s (synthetic data only).
    planted_tau_s: Option<f64>,
}

fn widen(values: &[f32]) -> Vec<f64> {
    values.iter().map(|&v| f64::from(v)).collect()
}

fn narrow(values: &[f64]) -> Vec<f32> {
    values.iter().map(|&v| v as f32).collect()
}

/// Writes the trials (and the truth) to the sidecar and their description to `results`.
fn save_data(
    data: &LoadedData,
    results: &mut SavedResults,
    sidecar: Option<&Sidecar>,
) -> anyhow::Result<()> {
    let t = &data.trials;
    results.data = Some(to_saved(&DataMeta {
        source: data.source.clone(),
        n_trials: t.n_trials,
        max_bins: t.max_bins,
        n_neurons: t.n_neurons,
        bin_s: t.bin_s,
        has_choices: t.choices.is_some(),
        planted: data.truth.as_ref().map(|truth| truth.flow.clone()),
        planted_tau_s: data.truth.as_ref().map(|truth| truth.tau_s),
    })?);
    let Some(sidecar) = sidecar else {
        return Ok(());
    };
    let (n, b, m) = (t.n_trials, t.max_bins, t.n_neurons);
    let mut write = |name: &str, shape: &[usize], values: &[f64]| -> anyhow::Result<()> {
        let file = sidecar.write_f64(&format!("findr-{name}"), shape, values)?;
        results.data_files.insert(name.to_owned(), file);
        Ok(())
    };
    write("spikes", &[n, b, m], &widen(&t.spikes))?;
    write("inputs", &[n, b, 2], &widen(&t.inputs))?;
    let per_trial: Vec<f64> = (0..n)
        .flat_map(|i| {
            let choice = t
                .choices
                .as_ref()
                .map_or(f64::NAN, |c| if c[i] { 1.0 } else { 0.0 });
            [t.lengths[i] as f64, t.times_s[i], choice]
        })
        .collect();
    write("trials", &[n, 3], &per_trial)?;
    if let Some(truth) = &data.truth {
        write("truth-readout", &[m, 2], &truth.readout_hz)?;
        write("truth-baseline", &[n, b, m], &truth.baseline)?;
        write("truth-latents", &[n, b, 2], &truth.latents)?;
        write("truth-rates", &[n, b, m], &truth.rates_hz)?;
        write("truth-gammas", &[n], &truth.gammas)?;
        let clicks: Vec<f64> = truth
            .clicks
            .iter()
            .enumerate()
            .flat_map(|(trial, clicks)| {
                clicks.iter().flat_map(move |c| {
                    [
                        trial as f64,
                        c.time_s,
                        if c.right { 1.0 } else { 0.0 },
                        c.magnitude,
                    ]
                })
            })
            .collect();
        write("truth-clicks", &[clicks.len() / 4, 4], &clicks)?;
    }
    Ok(())
}

/// Reads the trials saved by [`save_data`]; `None` when nothing was saved.
fn restore_data(
    results: &SavedResults,
    sidecar: Option<&Sidecar>,
) -> anyhow::Result<Option<LoadedData>> {
    let (Some(value), Some(sidecar)) = (&results.data, sidecar) else {
        return Ok(None);
    };
    if results.data_files.is_empty() {
        return Ok(None);
    }
    let meta: DataMeta = from_saved(value)?;
    let (n, b, m) = (meta.n_trials, meta.max_bins, meta.n_neurons);
    let read = |name: &str, shape: &[usize]| -> anyhow::Result<Vec<f64>> {
        let file = results
            .data_files
            .get(name)
            .ok_or_else(|| anyhow::anyhow!("the sidecar array `{name}` is not listed"))?;
        let (found, values) = sidecar.read_f64(file)?;
        anyhow::ensure!(
            found == shape,
            "{file}: expected shape {shape:?}, found {found:?}"
        );
        Ok(values)
    };
    let per_trial = read("trials", &[n, 3])?;
    let lengths = per_trial.chunks_exact(3).map(|r| r[0] as usize).collect();
    let times_s = per_trial.chunks_exact(3).map(|r| r[1]).collect();
    let choices = meta
        .has_choices
        .then(|| per_trial.chunks_exact(3).map(|r| r[2] > 0.5).collect());
    let trials = TrialSet {
        n_trials: n,
        max_bins: b,
        n_neurons: m,
        bin_s: meta.bin_s,
        spikes: narrow(&read("spikes", &[n, b, m])?),
        inputs: narrow(&read("inputs", &[n, b, 2])?),
        lengths,
        times_s,
        choices,
    };
    let truth = match meta.planted {
        None => None,
        Some(flow) => {
            let flat = {
                let file = results.data_files.get("truth-clicks").ok_or_else(|| {
                    anyhow::anyhow!("the sidecar array `truth-clicks` is not listed")
                })?;
                sidecar.read_f64(file)?.1
            };
            let mut clicks: Vec<Vec<Click>> = vec![Vec::new(); n];
            for row in flat.chunks_exact(4) {
                let trial = row[0] as usize;
                anyhow::ensure!(trial < n, "a saved click names trial {trial} of {n}");
                clicks[trial].push(Click {
                    time_s: row[1],
                    right: row[2] > 0.5,
                    magnitude: row[3],
                });
            }
            Some(PlantedTruth {
                flow,
                tau_s: meta
                    .planted_tau_s
                    .ok_or_else(|| anyhow::anyhow!("the planted time constant is missing"))?,
                readout_hz: read("truth-readout", &[m, 2])?,
                baseline: read("truth-baseline", &[n, b, m])?,
                latents: read("truth-latents", &[n, b, 2])?,
                rates_hz: read("truth-rates", &[n, b, m])?,
                gammas: read("truth-gammas", &[n])?,
                clicks,
            })
        }
    };
    Ok(Some(LoadedData {
        trials,
        truth,
        source: meta.source,
    }))
}

/// Writes a fit: the result without history and PSTH arrays to `results`, those to the sidecar.
pub(super) fn save_fit(
    result: Option<&FindrResult>,
    history: &[EpochRecord],
    results: &mut SavedResults,
    sidecar: Option<&Sidecar>,
) -> anyhow::Result<()> {
    if let Some(sidecar) = sidecar
        && !history.is_empty()
    {
        let flat: Vec<f64> = history.iter().flat_map(history_row).collect();
        results.history_file = Some(sidecar.write_f64(
            "findr-history",
            &[history.len(), HISTORY_COLUMNS.len()],
            &flat,
        )?);
    }
    let Some(result) = result else {
        return Ok(());
    };
    let mut stored = result.clone();
    stored.history.clear();
    let psths = &mut stored.psths;
    if let Some(sidecar) = sidecar {
        let flat: Vec<f64> = psths
            .data_hz
            .iter()
            .chain(&psths.model_hz)
            .copied()
            .collect();
        results.psths_file = Some(sidecar.write_f64(
            "findr-psths",
            &[2, psths.gammas.len(), psths.bins, psths.neurons],
            &flat,
        )?);
    }
    psths.data_hz.clear();
    psths.model_hz.clear();
    results.fit = Some(to_saved(&stored)?);
    Ok(())
}

/// Reads a fit saved by [`save_fit`]: the history and the result (if any).
pub(super) fn restore_fit(
    results: &SavedResults,
    sidecar: Option<&Sidecar>,
) -> anyhow::Result<(Vec<EpochRecord>, Option<FindrResult>)> {
    let mut history = Vec::new();
    if let (Some(sidecar), Some(file)) = (sidecar, &results.history_file) {
        let (shape, values) = sidecar.read_f64(file)?;
        let columns = HISTORY_COLUMNS.len();
        anyhow::ensure!(
            shape.len() == 2 && (shape[1] == columns || shape[1] == OLD_HISTORY_COLUMNS),
            "{file}: expected {columns} columns, found shape {shape:?}"
        );
        let columns = shape[1];
        history = values.chunks_exact(columns).map(history_record).collect();
    }
    let Some(value) = &results.fit else {
        return Ok((history, None));
    };
    let mut result: FindrResult = from_saved(value)?;
    if let (Some(sidecar), Some(file)) = (sidecar, &results.psths_file) {
        let psths = &mut result.psths;
        let (shape, values) = sidecar.read_f64(file)?;
        let expected = [2, psths.gammas.len(), psths.bins, psths.neurons];
        anyhow::ensure!(
            shape == expected,
            "{file}: expected shape {expected:?}, found {shape:?}"
        );
        let half = values.len() / 2;
        psths.data_hz = values[..half].to_vec();
        psths.model_hz = values[half..].to_vec();
    }
    result.history.clone_from(&history);
    Ok((history, Some(result)))
}

impl StoredData<SavedResults> for LoadedData {
    fn save(&self, results: &mut SavedResults, sidecar: Option<&Sidecar>) -> anyhow::Result<()> {
        save_data(self, results, sidecar)
    }

    fn restore(results: &SavedResults, sidecar: Option<&Sidecar>) -> anyhow::Result<Option<Self>> {
        restore_data(results, sidecar)
    }
}
