//! The whole FINDR fit: the per-neuron baseline, the VAE trained on one cross-validation split,
//! and the flow-field analysis of the learned prior in a display frame.

use candle_core::{DType, Device};
use serde::{Deserialize, Serialize};

use benchtop_compute::rng::derive_seed;
use benchtop_compute::{CancelToken, ComputeError, Progress};

use crate::analysis::{FixedPoint, FixedPointParams, Stability, find_fixed_points};
use crate::baseline::{self, BaselineParams};
use crate::confidence::MissingAttractor;
use crate::confidence::{missing_attractors, support_counts};
use crate::consensus;
use crate::field::{FlowGrid, flow_grid};
use crate::flow_weights::FlowWeights;
use crate::frame::{align, orthogonalised_readout, transformed_flow};
use crate::model::{Batch, FindrModel, ModelConfig};
use crate::predictive::predictive_score;
use crate::result::{Affine2, EpochRecord, FindrResult, Frame, PlantedComparison};
use crate::softplus::softplus;
use crate::synthetic::{PlantedTruth, RATE_FLOOR_HZ};
use crate::train::{Selection, Split, TrainOutcome, TrainParams, evaluate, split, train};
use crate::trajectories::{
    SampleZone, click_probability, group_means, noiseless_paths, psths, trial_groups, visits,
};
use crate::trials::TrialSet;
use crate::zone_shape::{ZoneEigenvalues, shape_agreement};
use benchtop_compute::threads::single_threaded;

/// Trial groups used for user data without γ (quantiles of the net click rate).
const FALLBACK_GROUPS: usize = 6;

/// Parameters of the analysis after training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AnalysisParams {
    /// Grid points per axis of the flow field.
    pub grid_size: usize,
    /// The fixed-point search (its box is replaced by the grid's extent; flows are in 1/s).
    pub fixed_points: FixedPointParams,
    /// A cell is in the sample zone when at least this fraction of trials visits it.
    pub sample_zone_min_fraction: f64,
    /// A restart's fixed point matches a reported one of the same stability within this
    /// fraction of the flow grid's diagonal (display frame).
    pub restart_match_fraction: f64,
}

impl Default for AnalysisParams {
    fn default() -> Self {
        Self {
            grid_size: 15,
            fixed_points: FixedPointParams {
                marginal_tolerance: 0.5,
                merge_radius: 0.02,
                ..FixedPointParams::default()
            },
            sample_zone_min_fraction: 0.01,
            restart_match_fraction: 0.05,
        }
    }
}

/// Fits per one-click fit: a single fit cannot tell a structure from a seed's accident (one
/// planted double well in six was fitted with one of its two attractors by the first seed and
/// not by the others; docs/benchmarks.md, "FINDR robustness across generators").
pub const DEFAULT_RESTARTS: usize = 3;

/// Everything a fit needs besides the data and the seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FindrParams {
    /// The baseline fit.
    pub baseline: BaselineParams,
    /// The model's sizes.
    pub model: ModelConfig,
    /// Training.
    pub train: TrainParams,
    /// The analysis.
    pub analysis: AnalysisParams,
    /// Fits trained on the same trials and folds with different seeds (default 3; 1: one
    /// fit). The one whose fixed points the others agree with most is reported, the best
    /// validation score breaking ties ([`consensus::choose`]); the others give each of its
    /// fixed points a confidence (how many fits found it), and only points most fits agree on
    /// are findings (see [`FindrResult::unconfirmed_reasons`]).
    pub restarts: usize,
}

impl Default for FindrParams {
    fn default() -> Self {
        Self {
            baseline: BaselineParams::default(),
            model: ModelConfig::default(),
            train: TrainParams::default(),
            analysis: AnalysisParams::default(),
            restarts: DEFAULT_RESTARTS,
        }
    }
}

impl FindrParams {
    /// Checks every parameter against the data's bin width; errors name the key.
    pub fn validate(&self, bin_s: f64) -> Result<(), ComputeError> {
        self.baseline.validate()?;
        self.model.validate(bin_s)?;
        self.train.validate()?;
        if !(3..=200).contains(&self.analysis.grid_size) {
            return Err(ComputeError::invalid("grid_size", "choose 3 to 200 points"));
        }
        if !(0.0..=1.0).contains(&self.analysis.sample_zone_min_fraction) {
            return Err(ComputeError::invalid(
                "sample_zone_min_fraction",
                "choose a fraction from 0 to 1",
            ));
        }
        if !(1..=100).contains(&self.restarts) {
            return Err(ComputeError::invalid("restarts", "choose 1 to 100 fits"));
        }
        if !(self.analysis.restart_match_fraction > 0.0
            && self.analysis.restart_match_fraction <= 1.0)
        {
            return Err(ComputeError::invalid(
                "restart_match_fraction",
                "choose a fraction in (0, 1]",
            ));
        }
        self.analysis.fixed_points.validate()
    }
}

fn check_data(data: &TrialSet) -> Result<(), ComputeError> {
    let cells = data.n_trials * data.max_bins;
    if data.spikes.len() != cells * data.n_neurons
        || data.inputs.len() != cells * 2
        || data.lengths.len() != data.n_trials
        || data.times_s.len() != data.n_trials
    {
        return Err(ComputeError::invalid(
            "data",
            "the arrays do not match the trial, bin and neuron counts",
        ));
    }
    if data.lengths.iter().any(|&l| l == 0 || l > data.max_bins) {
        return Err(ComputeError::invalid(
            "lengths",
            "every trial needs 1 to max_bins valid bins",
        ));
    }
    if data.spikes.iter().any(|y| !y.is_finite() || *y < 0.0) {
        return Err(ComputeError::invalid(
            "spikes",
            "spike counts must be finite and non-negative",
        ));
    }
    Ok(())
}

/// The data's mean firing rate, Hz (at least 1 Hz): the readout's scale.
fn mean_rate_hz(data: &TrialSet) -> f64 {
    let spikes: f64 = (0..data.n_trials)
        .flat_map(|t| (0..data.lengths[t]).map(move |b| (t, b)))
        .map(|(t, b)| {
            let start = data.spike_index(t, b, 0);
            data.spikes[start..start + data.n_neurons]
                .iter()
                .map(|&y| f64::from(y))
                .sum::<f64>()
        })
        .sum();
    let exposure = (data.valid_bins() * data.n_neurons) as f64 * data.bin_s;
    (spikes / exposure.max(f64::MIN_POSITIVE)).max(1.0)
}

/// Poisson NLL per valid bin of the baseline alone (z = 0) on `trials`.
fn baseline_only_nll(data: &TrialSet, cells: &[f64], trials: &[usize]) -> f64 {
    let (mut total, mut bins) = (0.0, 0.0);
    for &trial in trials {
        for bin in 0..data.lengths[trial] {
            for neuron in 0..data.n_neurons {
                let i = data.spike_index(trial, bin, neuron);
                let mean = (softplus(cells[i]) + RATE_FLOOR_HZ) * data.bin_s;
                let y = f64::from(data.spikes[i]);
                total += mean - y * mean.ln() + log_factorial(y);
            }
            bins += 1.0;
        }
    }
    total / f64::max(bins, 1.0)
}

fn log_factorial(y: f64) -> f64 {
    let k = y.round().max(0.0) as u64;
    (2..=k).map(|i| (i as f64).ln()).sum()
}

/// Posterior mean latents (noiseless posterior path) of every trial, one entry per valid bin.
fn posterior_means(
    model: &FindrModel,
    data: &TrialSet,
    cells: &[f64],
    device: &Device,
) -> Result<Vec<Vec<[f64; 2]>>, ComputeError> {
    const CHUNK: usize = 100;
    let trials: Vec<usize> = (0..data.n_trials).collect();
    let mut out = Vec::with_capacity(data.n_trials);
    for chunk in trials.chunks(CHUNK) {
        let batch = Batch::new(data, cells, chunk, device)?;
        let latents: Vec<Vec<Vec<f32>>> = model
            .posterior_path(&batch, None)?
            .latents
            .to_dtype(DType::F32)?
            .to_vec3()?;
        for (row, &trial) in chunk.iter().enumerate() {
            out.push(
                latents[row][..data.lengths[trial]]
                    .iter()
                    .map(|z| [f64::from(z[0]), f64::from(z[1])])
                    .collect(),
            );
        }
    }
    Ok(out)
}

/// The box around `points` padded by 15 % on each side (at least ±0.5 around a point).
fn padded_box(points: impl Iterator<Item = [f64; 2]>) -> ([f64; 2], [f64; 2]) {
    let mut lo = [f64::INFINITY; 2];
    let mut hi = [f64::NEG_INFINITY; 2];
    for p in points.filter(|p| p[0].is_finite() && p[1].is_finite()) {
        for d in 0..2 {
            lo[d] = lo[d].min(p[d]);
            hi[d] = hi[d].max(p[d]);
        }
    }
    for d in 0..2 {
        if !(lo[d].is_finite() && hi[d].is_finite()) {
            (lo[d], hi[d]) = (-1.0, 1.0);
        }
        let pad = (0.15 * (hi[d] - lo[d])).max(0.5);
        lo[d] -= pad;
        hi[d] += pad;
    }
    (lo, hi)
}

/// The distance from `target` to the nearest stable or marginal point in `found`.
fn nearest_attracting(found: &[FixedPoint], target: [f64; 2]) -> f64 {
    found
        .iter()
        .filter(|p| matches!(p.stability, Stability::Stable | Stability::Marginal))
        .map(|p| (p.z[0] - target[0]).hypot(p.z[1] - target[1]))
        .fold(f64::INFINITY, f64::min)
}

/// The fit seed of restart `restart` (restart 0 is the fit's own seed).
fn restart_seed(seed: u64, restart: usize) -> u64 {
    if restart == 0 {
        seed
    } else {
        derive_seed(seed, 1000 + restart as u64)
    }
}

/// Trains `params.restarts` models from the seeds [`restart_seed`] derives from `seed`, on as
/// many threads as the machine has cores (each single-threaded inside, so the fits are the same
/// however many run at once). Only the first fit streams its epochs to `on_epoch`; progress
/// counts finished epochs over all fits.
#[allow(clippy::too_many_arguments)]
fn train_restarts(
    data: &TrialSet,
    cells: &[f64],
    folds: &Split,
    params: &FindrParams,
    seed: u64,
    device: &Device,
    progress: &Progress,
    cancel: &CancelToken,
    on_epoch: &mut (dyn FnMut(&EpochRecord) + Send),
) -> Result<Vec<Trained>, ComputeError> {
    let fits = params.restarts;
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, fits.max(1));
    let share = |k: usize| 0.05 + 0.85 * k as f64 / fits as f64;
    if workers == 1 {
        let mut trained = Vec::with_capacity(fits);
        for restart in 0..fits {
            let mut quiet = |_: &EpochRecord| {};
            let sink: &mut dyn FnMut(&EpochRecord) =
                if restart == 0 { on_epoch } else { &mut quiet };
            trained.push(train_one(
                data,
                cells,
                folds,
                params,
                restart_seed(seed, restart),
                device,
                &progress.slice(share(restart), share(restart + 1)),
                cancel,
                sink,
            )?);
        }
        return Ok(trained);
    }
    // The workers take the next untrained fit until none is left; the first fit streams its
    // epochs. Each fit has its own progress; after every epoch the bar shows their mean.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let on_epoch = std::sync::Mutex::new(on_epoch);
    let each: Vec<Progress> = (0..fits).map(|_| Progress::new()).collect();
    let combined = |restart: usize, epoch: usize| {
        let mean = each.iter().map(Progress::fraction).sum::<f64>() / fits as f64;
        progress.set(
            0.05 + 0.85 * mean,
            format!(
                "training {fits} fits with different seeds, {workers} at a time (fit {}: epoch \
                 {epoch})",
                restart + 1
            ),
        );
    };
    let results: Vec<Result<Vec<(usize, Trained)>, ComputeError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let (next, on_epoch, each, combined) = (&next, &on_epoch, &each, &combined);
                scope.spawn(move || {
                    single_threaded("findr-restart", || {
                        let mut done = Vec::new();
                        loop {
                            let restart = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if restart >= fits {
                                return Ok(done);
                            }
                            let mut stream = |record: &EpochRecord| {
                                combined(restart, record.epoch);
                                if restart == 0
                                    && let Ok(mut sink) = on_epoch.lock()
                                {
                                    sink(record);
                                }
                            };
                            let model = train_one(
                                data,
                                cells,
                                folds,
                                params,
                                restart_seed(seed, restart),
                                device,
                                &each[restart],
                                cancel,
                                &mut stream,
                            );
                            match model {
                                Ok(model) => done.push((restart, model)),
                                Err(error) => {
                                    // Stop the other workers at their next epoch check.
                                    next.store(fits, std::sync::atomic::Ordering::Relaxed);
                                    return Err(error);
                                }
                            }
                        }
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(ComputeError::Numerical(
                        "a restart's thread panicked".to_owned(),
                    ))
                })
            })
            .collect()
    });
    let mut trained: Vec<(usize, Trained)> = Vec::with_capacity(fits);
    for result in results {
        trained.extend(result?);
    }
    trained.sort_by_key(|(restart, _)| *restart);
    Ok(trained.into_iter().map(|(_, model)| model).collect())
}

/// One trained model with its training record and its kept validation score.
struct Trained {
    model: FindrModel,
    outcome: TrainOutcome,
    /// The kept epoch's validation score under the selection rule (lower is better).
    score: f64,
}

/// Builds and trains one model from `seed` on the split `folds`.
#[allow(clippy::too_many_arguments)]
fn train_one(
    data: &TrialSet,
    cells: &[f64],
    folds: &Split,
    params: &FindrParams,
    seed: u64,
    device: &Device,
    progress: &Progress,
    cancel: &CancelToken,
    on_epoch: &mut dyn FnMut(&EpochRecord),
) -> Result<Trained, ComputeError> {
    let model = FindrModel::new(
        &params.model,
        data.n_neurons,
        data.bin_s,
        mean_rate_hz(data),
        derive_seed(seed, 11),
        device,
    )?;
    let outcome = train(
        &model,
        data,
        cells,
        folds,
        &params.train,
        derive_seed(seed, 12),
        progress,
        cancel,
        on_epoch,
    )?;
    let score = outcome
        .history
        .iter()
        .find(|r| r.epoch == outcome.best_epoch)
        .map_or(f64::INFINITY, |r| match params.train.select_by {
            Selection::HeldOutPredictive => r.validation_predictive_nll,
            Selection::Elbo => r.validation_nll + params.train.beta_kl * r.validation_kl,
        });
    Ok(Trained {
        model,
        outcome,
        score,
    })
}

/// The fixed points of `model`'s autonomous flow in another fit's display frame, found through
/// the affine map from `model`'s posterior means onto that fit's (`target`, display frame,
/// every valid bin in trial order). A restart whose latent has collapsed to a line has no map
/// and finds none.
fn restart_fixed_points(
    model: &FindrModel,
    data: &TrialSet,
    cells: &[f64],
    device: &Device,
    target: &[[f64; 2]],
    search: &FixedPointParams,
    cancel: &CancelToken,
) -> Result<Vec<FixedPoint>, ComputeError> {
    let source: Vec<[f64; 2]> = posterior_means(model, data, cells, device)?
        .into_iter()
        .flatten()
        .collect();
    let (map, _) = align(&source, target)?;
    let weights = FlowWeights::from_flow(model.prior.flow())?;
    let per_second = 1.0 / model.config().tau_s;
    let autonomous = match transformed_flow(|z| weights.autonomous_2d(z), map, per_second) {
        Ok(flow) => flow,
        Err(ComputeError::Numerical(_)) => return Ok(Vec::new()),
        Err(other) => return Err(other),
    };
    find_fixed_points(autonomous, search, cancel)
}

/// A flow's sample zone and its fixed points inside and outside it.
struct Zoned {
    zone: SampleZone,
    search: FixedPointParams,
    inside: Vec<FixedPoint>,
    outside: Vec<FixedPoint>,
}

/// The grid of `autonomous` over the box `lo`–`hi`, the visits of `paths` (in the same frame)
/// and the fixed points found in the box, split by the sample zone: one rule for the reported
/// fit and for choosing among restarts.
#[allow(clippy::too_many_arguments)]
fn zoned_fixed_points(
    autonomous: &impl Fn([f64; 2]) -> [f64; 2],
    paths: &[Vec<[f64; 2]>],
    lo: [f64; 2],
    hi: [f64; 2],
    params: &FindrParams,
    n_trials: usize,
    cancel: &CancelToken,
) -> Result<Zoned, ComputeError> {
    let grid = flow_grid(autonomous, lo, hi, params.analysis.grid_size)?;
    let visits = visits(&grid, paths);
    let min_visits =
        ((params.analysis.sample_zone_min_fraction * n_trials as f64).ceil() as usize).max(1);
    let search = FixedPointParams {
        box_min: lo,
        box_max: hi,
        ..params.analysis.fixed_points.clone()
    };
    let found = find_fixed_points(autonomous, &search, cancel)?;
    let zone = SampleZone {
        grid,
        visits,
        min_visits,
    };
    let (inside, outside) = found.into_iter().partition(|p| zone.contains(p.z));
    Ok(Zoned {
        zone,
        search,
        inside,
        outside,
    })
}

/// Fits FINDR to `data`: the baseline, then the VAE on fold `params.train.fold` (calling
/// `on_epoch` after every epoch), then the analysis in the display frame (aligned to the planted
/// latents when `truth` is given, the orthogonalised readout otherwise).
pub fn fit(
    data: &TrialSet,
    truth: Option<&PlantedTruth>,
    params: &FindrParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
    on_epoch: &mut (dyn FnMut(&EpochRecord) + Send),
) -> Result<FindrResult, ComputeError> {
    let reference = truth.map_or(Reference::None, Reference::Planted);
    single_threaded("findr-model", || {
        fit_here(data, reference, params, seed, progress, cancel, on_epoch)
    })
}

/// [`fit`] with the display frame aligned to known latents `[n_trials, max_bins, 2]` (from a
/// generator other than [`crate::synthetic`]); the result has no planted comparison.
pub fn fit_aligned(
    data: &TrialSet,
    latents: &[f64],
    params: &FindrParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
    on_epoch: &mut (dyn FnMut(&EpochRecord) + Send),
) -> Result<FindrResult, ComputeError> {
    if latents.len() != data.n_trials * data.max_bins * 2 {
        return Err(ComputeError::invalid(
            "latents",
            "expected two latents per trial and bin",
        ));
    }
    single_threaded("findr-model", || {
        fit_here(
            data,
            Reference::Latents(latents),
            params,
            seed,
            progress,
            cancel,
            on_epoch,
        )
    })
}

/// One fit's structure in its own display frame, with the other fits' fixed points mapped into
/// it: what the result reports when this fit is kept.
struct Structure {
    paths: Vec<Vec<[f64; 2]>>,
    means: Vec<Vec<[f64; 2]>>,
    frame: Frame,
    to_display: Affine2,
    alignment_r2: f64,
    display_paths: Vec<Vec<[f64; 2]>>,
    lo: [f64; 2],
    hi: [f64; 2],
    zoned: Zoned,
    /// For each point inside the zone, how many fits found it.
    support: Vec<usize>,
    missing: Vec<MissingAttractor>,
    /// The median Jacobian eigenvalues over this fit's own sample zone.
    zone_eigenvalues: Option<ZoneEigenvalues>,
}

/// The display frame, sample zone and fixed points of fit `k` of `trained`, and how the other
/// fits' fixed points (mapped through the posterior means, inside this fit's zone) support them.
#[allow(clippy::too_many_arguments)]
fn analyse_structure(
    k: usize,
    trained: &[Trained],
    data: &TrialSet,
    cells: &[f64],
    device: &Device,
    reference: Reference<'_>,
    params: &FindrParams,
    cancel: &CancelToken,
) -> Result<Structure, ComputeError> {
    let model = &trained[k].model;
    let weights = FlowWeights::from_flow(model.prior.flow())?;
    let alpha = model.alpha();
    let per_second = 1.0 / params.model.tau_s;
    let drift = |z: [f64; 2], u: [f64; 2]| {
        let f = weights.drift(&z, &u);
        [f[0], f[1]]
    };
    let paths = noiseless_paths(data, drift, alpha);
    let means = posterior_means(model, data, cells, device)?;
    cancel.check()?;

    // The display frame.
    let truth = reference.truth();
    let (frame, to_display, alignment_r2) = match reference.latents() {
        Some(latents) => {
            let mut source = Vec::with_capacity(data.valid_bins());
            let mut target = Vec::with_capacity(data.valid_bins());
            for (trial, path) in means.iter().enumerate() {
                for (bin, z) in path.iter().enumerate() {
                    let cell = trial * data.max_bins + bin;
                    source.push(*z);
                    target.push([latents[2 * cell], latents[2 * cell + 1]]);
                }
            }
            let (map, r2) = align(&source, &target)?;
            (Frame::AlignedToPlanted, map, r2)
        }
        None => {
            let readout: Vec<f32> = model.readout_hz()?.flatten_all()?.to_vec1()?;
            let readout: Vec<f64> = readout.into_iter().map(f64::from).collect();
            let points: Vec<[f64; 2]> = paths.iter().flatten().copied().collect();
            (
                Frame::OrthogonalisedReadout,
                orthogonalised_readout(&readout, &points),
                f64::NAN,
            )
        }
    };
    let display_paths: Vec<Vec<[f64; 2]>> = paths
        .iter()
        .map(|p| p.iter().map(|&z| to_display.apply(z)).collect())
        .collect();
    let autonomous = transformed_flow(|z| drift(z, [0.0, 0.0]), to_display, per_second)?;
    let mut extent: Vec<[f64; 2]> = display_paths.iter().flatten().copied().collect();
    extent.extend(means.iter().flatten().map(|&z| to_display.apply(z)));
    if let Some(truth) = truth {
        extent.extend(truth.flow.point_attractors());
    }
    let (lo, hi) = padded_box(extent.into_iter());
    let zoned = zoned_fixed_points(
        &autonomous,
        &display_paths,
        lo,
        hi,
        params,
        data.n_trials,
        cancel,
    )?;
    let display_means: Vec<[f64; 2]> = means
        .iter()
        .flatten()
        .map(|&z| to_display.apply(z))
        .collect();
    let mut others = Vec::with_capacity(trained.len().saturating_sub(1));
    for (j, other) in trained.iter().enumerate() {
        if j == k {
            continue;
        }
        let mut points = restart_fixed_points(
            &other.model,
            data,
            cells,
            device,
            &display_means,
            &zoned.search,
            cancel,
        )?;
        points.retain(|p| zoned.zone.contains(p.z));
        others.push(points);
    }
    let radius = params.analysis.restart_match_fraction * (hi[0] - lo[0]).hypot(hi[1] - lo[1]);
    let support = support_counts(&zoned.inside, &others, radius);
    let missing = missing_attractors(&zoned.inside, &others, radius);
    let zone = &zoned.zone;
    let zone_eigenvalues =
        ZoneEigenvalues::of(&zone.grid, |cell| zone.visits[cell] >= zone.min_visits);
    Ok(Structure {
        paths,
        means,
        frame,
        to_display,
        alignment_r2,
        display_paths,
        lo,
        hi,
        zoned,
        support,
        missing,
        zone_eigenvalues,
    })
}

/// What the display frame is aligned to.
#[derive(Clone, Copy)]
enum Reference<'a> {
    /// The planted system of [`crate::synthetic`] (also compared with the recovered flow).
    Planted(&'a PlantedTruth),
    /// Known latents `[n_trials, max_bins, 2]`.
    Latents(&'a [f64]),
    /// Nothing: the orthogonalised readout.
    None,
}

impl<'a> Reference<'a> {
    fn latents(self) -> Option<&'a [f64]> {
        match self {
            Self::Planted(truth) => Some(&truth.latents),
            Self::Latents(latents) => Some(latents),
            Self::None => None,
        }
    }

    fn truth(self) -> Option<&'a PlantedTruth> {
        match self {
            Self::Planted(truth) => Some(truth),
            Self::Latents(_) | Self::None => None,
        }
    }
}

/// [`fit`] on the calling thread's rayon pool.
#[allow(clippy::too_many_lines)]
fn fit_here(
    data: &TrialSet,
    reference: Reference<'_>,
    params: &FindrParams,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
    on_epoch: &mut (dyn FnMut(&EpochRecord) + Send),
) -> Result<FindrResult, ComputeError> {
    params.validate(data.bin_s)?;
    check_data(data)?;
    progress.set(0.0, "fitting the per-neuron baseline");
    let fitted = baseline::fit(data, &params.baseline, &progress.slice(0.0, 0.05), cancel)?;
    let cells = fitted.baseline(data);
    let folds = split(
        data.n_trials,
        params.train.folds,
        params.train.fold,
        derive_seed(seed, 10),
    )?;
    let device = Device::Cpu;
    let fits = params.restarts;
    let mut trained = train_restarts(
        data, &cells, &folds, params, seed, &device, progress, cancel, on_epoch,
    )?;
    if trained.len() > 1 {
        progress.set(0.9, "comparing the fits' fixed points");
    }
    let mut analyses = Vec::with_capacity(trained.len());
    for k in 0..trained.len() {
        analyses.push(analyse_structure(
            k, &trained, data, &cells, &device, reference, params, cancel,
        )?);
    }
    let zone_eigenvalues_by_fit: Vec<Option<ZoneEigenvalues>> =
        analyses.iter().map(|a| a.zone_eigenvalues).collect();
    let agreements: Vec<i64> = analyses
        .iter()
        .enumerate()
        .map(|(k, a)| {
            consensus::agreement(&a.zoned.inside, &a.support, &a.missing, fits)
                + shape_agreement(&zone_eigenvalues_by_fit, k)
        })
        .collect();
    let scores: Vec<f64> = trained.iter().map(|t| t.score).collect();
    let chosen = consensus::choose(&agreements, &scores);
    let restart_agreement = if fits > 1 { agreements } else { Vec::new() };
    let Structure {
        paths,
        means,
        frame,
        to_display,
        alignment_r2,
        display_paths,
        lo,
        hi,
        zoned,
        support: fixed_point_support,
        missing: missing_attractors,
        zone_eigenvalues: _,
    } = analyses.swap_remove(chosen);
    let Trained { model, outcome, .. } = trained.swap_remove(chosen);
    let truth = reference.truth();
    progress.set(0.9, "analysing the learned flow");
    // The same one-sample estimate as the validation curve, so the numbers compare.
    let test_nll = evaluate(
        &model,
        data,
        &cells,
        &folds.test,
        Some(derive_seed(seed, 13)),
    )?
    .0;
    let test_nll_baseline_only = baseline_only_nll(data, &cells, &folds.test);
    let predictive = predictive_score(
        &model,
        data,
        &cells,
        &folds.test,
        &params.train.predictive,
        params.train.predictive.test_samples,
        derive_seed(seed, 14),
    )?;

    let weights = FlowWeights::from_flow(model.prior.flow())?;
    let per_second = 1.0 / params.model.tau_s;
    let drift = |z: [f64; 2], u: [f64; 2]| {
        let f = weights.drift(&z, &u);
        [f[0], f[1]]
    };
    let autonomous = transformed_flow(|z| drift(z, [0.0, 0.0]), to_display, per_second)?;
    let n = params.analysis.grid_size;
    let flow = &zoned.zone.grid;

    // Input fields weighted by the click probability in each cell.
    let start = to_display.apply([0.0, 0.0]);
    let probability = click_probability(flow, data, &display_paths, start);
    let input_field = |side: usize| -> Result<FlowGrid, ComputeError> {
        let mut u = [0.0; 2];
        u[side] = 1.0;
        let clicked = transformed_flow(|z| drift(z, u), to_display, per_second)?;
        let mut grid = flow_grid(
            |z| {
                let (a, b) = (clicked(z), autonomous(z));
                [a[0] - b[0], a[1] - b[1]]
            },
            lo,
            hi,
            n,
        )?;
        for (k, v) in grid.vectors.iter_mut().enumerate() {
            *v = [v[0] * probability[side][k], v[1] * probability[side][k]];
        }
        grid.speed = grid.vectors.iter().map(|v| v[0].hypot(v[1])).collect();
        Ok(grid)
    };
    let input_fields = [input_field(0)?, input_field(1)?];
    let fixed_point_params = zoned.search.clone();
    let fixed_points = zoned.inside.clone();
    let fixed_points_outside_sample_zone = zoned.outside.len();

    let (values, group) = trial_groups(data, truth.map(|t| t.gammas.as_slice()), FALLBACK_GROUPS);
    let trajectories = group_means(&paths, &values, &group, |z| to_display.apply(z));
    let readout: Vec<f32> = model.readout_hz()?.flatten_all()?.to_vec1()?;
    let n_neurons = data.n_neurons;
    let model_psths = psths(data, &values, &group, |trial, bin, neuron| {
        let z = means[trial][bin];
        let drive = f64::from(readout[neuron]) * z[0]
            + f64::from(readout[n_neurons + neuron]) * z[1]
            + cells[data.spike_index(trial, bin, neuron)];
        softplus(drive) + RATE_FLOOR_HZ
    });

    let planted = match truth {
        Some(truth) => {
            let planted_per_second = 1.0 / truth.tau_s;
            let planted_flow = |z: [f64; 2]| {
                let f = truth.flow.autonomous(z);
                [f[0] * planted_per_second, f[1] * planted_per_second]
            };
            let planted_fixed_points =
                find_fixed_points(planted_flow, &fixed_point_params, cancel)?;
            let attractors = truth.flow.point_attractors();
            let along = truth.flow.attractor_eigenvalues();
            let line = truth.flow.line_eigenvalues();
            Some(PlantedComparison {
                planted_fixed_points,
                planted_attractors: attractors,
                planted_attractor_eigenvalues: along.map(|v| v * planted_per_second),
                planted_line_eigenvalues: line.map(|v| v * planted_per_second),
                attractor_errors: attractors.map(|a| nearest_attracting(&fixed_points, a)),
                planted_flow: flow_grid(planted_flow, lo, hi, n)?,
                alignment_r2,
            })
        }
        None => None,
    };
    progress.set(1.0, "done");
    Ok(FindrResult {
        history: outcome.history,
        best_epoch: outcome.best_epoch,
        stopped_early: outcome.stopped_early,
        test_nll,
        test_nll_baseline_only,
        heldout_predictive_nll: predictive.nll,
        heldout_predictive_nll_baseline_only: predictive.nll_baseline_only,
        heldout_predictive_gain_se: predictive.gain_standard_error,
        frame,
        to_display,
        alignment_r2,
        noise_sigma: model.noise_sigma()?,
        flow: zoned.zone.grid,
        input_fields,
        visits: zoned.zone.visits,
        sample_zone_min_visits: zoned.zone.min_visits,
        fixed_points,
        fixed_points_outside_sample_zone,
        fits,
        kept_fit: chosen,
        fixed_point_support,
        missing_attractors,
        restart_agreement,
        zone_eigenvalues_by_fit,
        trajectories,
        psths: model_psths,
        planted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{SyntheticParams, generate};

    #[test]
    fn a_short_fit_runs_end_to_end_and_reports_consistent_shapes() {
        let synthetic = SyntheticParams {
            n_trials: 30,
            n_neurons: 8,
            min_bins: 20,
            max_bins: 30,
            ..SyntheticParams::default()
        };
        let data = generate(&synthetic, 4, &Progress::new(), &CancelToken::new()).unwrap();
        let params = FindrParams {
            model: ModelConfig {
                flow_width: 8,
                encoder_hidden: 6,
                ..ModelConfig::default()
            },
            train: TrainParams {
                max_epochs: 3,
                batch_trials: 10,
                ..TrainParams::default()
            },
            analysis: AnalysisParams {
                grid_size: 7,
                ..AnalysisParams::default()
            },
            ..FindrParams::default()
        };
        let mut seen = Vec::new();
        let result = fit(
            &data.trials,
            Some(&data.truth),
            &params,
            1,
            &Progress::new(),
            &CancelToken::new(),
            &mut |r| seen.push(r.epoch),
        )
        .unwrap();
        assert_eq!(seen, vec![1, 2, 3]);
        assert_eq!(result.history.len(), 3);
        assert!((1..=3).contains(&result.best_epoch));
        assert_eq!(result.flow.vectors.len(), 49);
        assert_eq!(result.visits.len(), 49);
        assert_eq!(result.frame, Frame::AlignedToPlanted);
        assert!(result.test_nll.is_finite() && result.test_nll_baseline_only.is_finite());
        let planted = result.planted.as_ref().unwrap();
        // The planted flow has its attractors at ±(1, 0) with eigenvalues in 1/s.
        assert!(planted.planted_fixed_points.iter().any(|p| {
            p.stability == Stability::Stable && (p.z[0] - 1.0).abs() < 1e-6 && p.z[1].abs() < 1e-6
        }));
        assert_eq!(result.psths.gammas.len(), result.trajectories.len());
        // Without the truth the frame is the orthogonalised readout.
        let plain = fit(
            &data.trials,
            None,
            &params,
            1,
            &Progress::new(),
            &CancelToken::new(),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(plain.frame, Frame::OrthogonalisedReadout);
        assert!(plain.planted.is_none());
        // Same seed, same result.
        assert_eq!(plain.history, {
            let again = fit(
                &data.trials,
                None,
                &params,
                1,
                &Progress::new(),
                &CancelToken::new(),
                &mut |_| {},
            )
            .unwrap();
            again.history
        });
        let cancelled = CancelToken::new();
        cancelled.cancel();
        assert!(
            fit(
                &data.trials,
                None,
                &params,
                1,
                &Progress::new(),
                &cancelled,
                &mut |_| {}
            )
            .is_err()
        );
    }

    /// A cut-down example: the planted bistable flow (150 trials of 50–100 bins) read out by 60
    /// neurons, a small model trained for 20 epochs (`FINDR_TEST_*` variables override the
    /// sizes); `gain` is the readout gain (0: the latent leaves no trace).
    fn small_planted_fit(gain: f64, seed: u64, restarts: usize) -> FindrResult {
        let synthetic = SyntheticParams {
            n_trials: env_usize("FINDR_TEST_TRIALS", 150),
            n_neurons: env_usize("FINDR_TEST_NEURONS", 60),
            min_bins: env_usize("FINDR_TEST_MIN_BINS", 50),
            max_bins: env_usize("FINDR_TEST_MAX_BINS", 100),
            readout_gain_hz: gain,
            ..SyntheticParams::default()
        };
        let data = generate(&synthetic, seed, &Progress::new(), &CancelToken::new()).unwrap();
        let params = FindrParams {
            model: ModelConfig {
                flow_width: 16,
                encoder_hidden: 16,
                ..ModelConfig::default()
            },
            train: TrainParams {
                max_epochs: env_usize("FINDR_TEST_EPOCHS", 20),
                ..TrainParams::default()
            },
            analysis: AnalysisParams {
                grid_size: 9,
                ..AnalysisParams::default()
            },
            restarts,
            ..FindrParams::default()
        };
        let start = std::time::Instant::now();
        let result = fit(
            &data.trials,
            Some(&data.truth),
            &params,
            1,
            &Progress::new(),
            &CancelToken::new(),
            &mut |r| {
                if std::env::var("FINDR_TEST_VERBOSE").is_ok() {
                    println!(
                        "{:3} {:6.1}s train {:.4}/{:.4} validation {:.4}/{:.4} predictive {:.4}",
                        r.epoch,
                        start.elapsed().as_secs_f64(),
                        r.train_nll,
                        r.train_kl,
                        r.validation_nll,
                        r.validation_kl,
                        r.validation_predictive_nll
                    );
                }
            },
        )
        .unwrap();
        if std::env::var("FINDR_TEST_VERBOSE").is_ok() {
            println!(
                "gain {gain}: best epoch {}, predictive {:.5} vs {:.5} (± {:.5}), test {:.5} vs {:.5}, reasons {:?}",
                result.best_epoch,
                result.heldout_predictive_nll,
                result.heldout_predictive_nll_baseline_only,
                result.heldout_predictive_gain_se,
                result.test_nll,
                result.test_nll_baseline_only,
                result.unsupported_reasons()
            );
            for (p, n) in result.fixed_points.iter().zip(&result.fixed_point_support) {
                println!(
                    "{:?} {:?} {:?} found by {n} of {}",
                    p.z, p.eigenvalues, p.stability, result.fits
                );
            }
            println!(
                "kept fit {}, errors {:?}",
                result.kept_fit,
                result.planted.as_ref().map(|p| p.attractor_errors)
            );
        }
        result
    }

    /// Restarts give each reported fixed point a confidence: with three fits on the planted
    /// bistable flow, the kept fit's attractors near ±(1, 0) are found by at least two of them.
    #[test]
    fn findr_restarts_count_the_fits_that_find_each_fixed_point() {
        let result = small_planted_fit(20.0, 1, 3);
        assert_eq!(result.fits, 3);
        assert!(result.kept_fit < 3);
        assert_eq!(result.fixed_point_support.len(), result.fixed_points.len());
        assert!(
            result
                .fixed_point_support
                .iter()
                .all(|&n| (1..=3).contains(&n))
        );
        for sign in [1.0, -1.0] {
            let supported = result
                .fixed_points
                .iter()
                .zip(&result.fixed_point_support)
                .any(|(p, &n)| {
                    p.stability == Stability::Stable
                        && (p.z[0] - sign).hypot(p.z[1]) < 0.3
                        && n >= 2
                });
            assert!(
                supported,
                "no attractor near ({sign}, 0) found by two fits: {:?}",
                result.fixed_points
            );
        }
    }

    fn env_usize(key: &str, default: usize) -> usize {
        std::env::var(key)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    }

    /// The held-out predictive likelihood tells a latent that matters from one that does not:
    /// on the planted flow the learned prior predicts the unseen half of each test trial better
    /// than the baseline alone; with a zero readout gain there is nothing to predict, the model
    /// gains nothing and the fit says its latent is unsupported.
    #[test]
    fn findr_heldout_predictive_gain_tells_signal_from_none() {
        let planted = small_planted_fit(20.0, 1, 1);
        let gain = planted.heldout_predictive_nll_baseline_only - planted.heldout_predictive_nll;
        assert!(
            gain > 2.0 * planted.heldout_predictive_gain_se,
            "gain {gain} ± {}",
            planted.heldout_predictive_gain_se
        );
        assert!(
            planted.unsupported_reasons().is_empty(),
            "{:?}",
            planted.unsupported_reasons()
        );
        let none = small_planted_fit(0.0, 1, 1);
        let gain = none.heldout_predictive_nll_baseline_only - none.heldout_predictive_nll;
        assert!(
            gain <= 2.0 * none.heldout_predictive_gain_se,
            "gain {gain} ± {}",
            none.heldout_predictive_gain_se
        );
        assert!(!none.unsupported_reasons().is_empty());
    }

    /// The planted-system recovery on the example project's data and fit (200 trials, 100
    /// neurons read out at 20 Hz per latent unit, clicks in the first 0.4 s, bistable bumps of
    /// strength 2/τ at ±(1, 0); batches of 8 trials at learning rate 0.1): two attractors
    /// flanking a saddle, each within 0.1 latent units of the planted ±f after the alignment
    /// (fit seed 1; docs/benchmarks.md has seeds 1–4, whose worse error spans 0.08–0.17).
    /// Run in release:
    /// `cargo test --release -p benchtop-findr --lib planted_recovery -- --ignored --nocapture`
    /// (`EPOCHS`, `SEED` override the defaults 80 and 1).
    #[test]
    #[ignore = "minutes of training; run in release"]
    fn planted_recovery() {
        let env = |k: &str, d: usize| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(d)
        };
        let synthetic = SyntheticParams {
            n_trials: 200,
            n_neurons: 100,
            readout_gain_hz: 20.0,
            latent_noise: 0.1,
            stimulus_s: Some(0.4),
            flow: crate::planted::PlantedFlow {
                bump_strength: 2.0,
                bump_width: 0.2,
                input_gain: 0.5,
                ..crate::planted::PlantedFlow::default()
            },
            ..SyntheticParams::default()
        };
        let data = generate(&synthetic, 1, &Progress::new(), &CancelToken::new()).unwrap();
        let params = FindrParams {
            train: TrainParams {
                max_epochs: env("EPOCHS", 80),
                learning_rate: 0.1,
                batch_trials: 8,
                kl_warmup_decay: 0.95,
                ..TrainParams::default()
            },
            ..FindrParams::default()
        };
        let start = std::time::Instant::now();
        let result = fit(
            &data.trials,
            Some(&data.truth),
            &params,
            env("SEED", 1) as u64,
            &Progress::new(),
            &CancelToken::new(),
            &mut |r| {
                println!(
                    "{:4} {:7.1}s lr {:.4} β {:.3} train {:.4}/{:.4} validation {:.4}/{:.4}",
                    r.epoch,
                    start.elapsed().as_secs_f64(),
                    r.learning_rate,
                    r.kl_weight,
                    r.train_nll,
                    r.train_kl,
                    r.validation_nll,
                    r.validation_kl
                );
            },
        )
        .unwrap();
        let planted = result.planted.as_ref().unwrap();
        println!(
            "best epoch {}, test NLL {:.4} (baseline only {:.4}), alignment R² {:.3}, σ {:?}",
            result.best_epoch,
            result.test_nll,
            result.test_nll_baseline_only,
            planted.alignment_r2,
            result.noise_sigma
        );
        for p in &result.fixed_points {
            println!("{:?} {:?} {:?}", p.z, p.eigenvalues, p.stability);
        }
        println!("attractor errors {:?}", planted.attractor_errors);
        println!(
            "fits {}, kept {}, agreement {:?}, support {:?}, unconfirmed {:?}, {:.0} s",
            result.fits,
            result.kept_fit + 1,
            result.restart_agreement,
            result.fixed_point_support,
            result.unconfirmed_reasons(),
            start.elapsed().as_secs_f64()
        );
        assert!(result.test_nll < result.test_nll_baseline_only);
        assert!(planted.attractor_errors.iter().all(|e| *e < 0.1));
        let stable = |sign: f64| {
            result
                .fixed_points
                .iter()
                .any(|p| p.stability == Stability::Stable && p.z[0] * sign > 0.5)
        };
        assert!(stable(1.0) && stable(-1.0));
        assert!(
            result
                .fixed_points
                .iter()
                .any(|p| { p.stability == Stability::Saddle && p.z[0].abs() < 0.5 })
        );
    }
}
