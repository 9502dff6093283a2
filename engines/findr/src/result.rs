//! What a FINDR fit produces, as plain data for plots, tables and `summary.json`.
//!
//! Every 2-D quantity is expressed in one display frame (see [`Frame`]); flows are F(z, u)/τ in
//! latent units per second, eigenvalues in 1/s.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

use crate::analysis::{FixedPoint, Stability};
use crate::confidence::{MissingAttractor, confirmed};
use crate::field::FlowGrid;
use crate::zone_shape::{ZoneEigenvalues, shape_disagreement};

/// One epoch of training.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpochRecord {
    /// Epoch number, from 1.
    pub epoch: usize,
    /// Learning rate of the epoch's last step.
    pub learning_rate: f64,
    /// KL weight β_KL·(1 − decay^epoch) of the epoch.
    pub kl_weight: f64,
    /// Mean Poisson NLL per valid bin on the training trials, nats.
    pub train_nll: f64,
    /// Mean transition KL per valid bin on the training trials, nats.
    pub train_kl: f64,
    /// Mean Poisson NLL per valid bin on the validation trials, nats.
    pub validation_nll: f64,
    /// Mean transition KL per valid bin on the validation trials, nats.
    pub validation_kl: f64,
    /// Held-out predictive NLL per predicted bin on the validation trials, nats (NaN in
    /// histories saved before it existed).
    #[serde(default = "not_a_number")]
    pub validation_predictive_nll: f64,
}

fn not_a_number() -> f64 {
    f64::NAN
}

fn one() -> usize {
    1
}

/// The coordinates plots are drawn in: display z' = A z + c from the model's latent z.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Frame {
    /// Orthogonalised readout (z̃ = S Vᵀ z from the SVD of the readout), rotated onto the
    /// principal axes of the noiseless trajectories: the paper's display frame.
    OrthogonalisedReadout,
    /// The least-squares affine map from the inferred latents onto the planted latents
    /// (synthetic data only), so recovered and planted flows share axes.
    AlignedToPlanted,
}

/// An affine map z' = A z + c between latent frames.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Affine2 {
    /// A, row-major.
    pub matrix: [[f64; 2]; 2],
    /// c.
    pub offset: [f64; 2],
}

/// Trial-averaged noiseless prior trajectories of one trial group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GroupTrajectory {
    /// Evidence strength γ of the group (synthetic data), or the group's mean net click count
    /// (right − left) per second for user data.
    pub gamma: f64,
    /// Trials in the group.
    pub trials: usize,
    /// Mean position per bin, display frame (bins where at least one trial is still running).
    pub path: Vec<[f64; 2]>,
}

/// Peri-stimulus time histograms of data and model, by trial group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Psths {
    /// The group values (as [`GroupTrajectory::gamma`]).
    pub gammas: Vec<f64>,
    /// Bins per PSTH.
    pub bins: usize,
    /// Neurons.
    pub neurons: usize,
    /// Bin width, s.
    pub bin_s: f64,
    /// Data rates, Hz, `[group, bin, neuron]` row-major (NaN where no trial covers the bin).
    pub data_hz: Vec<f64>,
    /// Model rates (posterior means through the readout and baseline), Hz, same layout.
    pub model_hz: Vec<f64>,
}

impl Psths {
    /// Index of `[group, bin, neuron]`.
    pub fn index(&self, group: usize, bin: usize, neuron: usize) -> usize {
        (group * self.bins + bin) * self.neurons + neuron
    }
}

/// The planted system next to the recovered one (synthetic data only), in the planted frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlantedComparison {
    /// The planted fixed points found on the planted autonomous flow /τ.
    pub planted_fixed_points: Vec<FixedPoint>,
    /// The planted point attractors ±f.
    pub planted_attractors: [[f64; 2]; 2],
    /// The planted eigenvalues at the attractors (along, across), 1/s.
    pub planted_attractor_eigenvalues: [f64; 2],
    /// The planted eigenvalues on the line away from the bumps (0 and across), 1/s.
    pub planted_line_eigenvalues: [f64; 2],
    /// For each planted attractor, the distance to the nearest recovered stable or marginal
    /// fixed point, latent units (infinite when none was found).
    pub attractor_errors: [f64; 2],
    /// The planted autonomous flow /τ on the same grid as the recovered one.
    pub planted_flow: FlowGrid,
    /// Fraction of planted-latent variance explained by the affine alignment (R²).
    pub alignment_r2: f64,
}

/// Everything a FINDR fit produces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FindrResult {
    /// Per-epoch training curves.
    pub history: Vec<EpochRecord>,
    /// The epoch whose weights were kept (lowest validation loss after the KL warm-up).
    pub best_epoch: usize,
    /// Whether training stopped early (patience ran out) rather than at the epoch limit.
    pub stopped_early: bool,
    /// Poisson NLL per valid bin on the held-out test fold (one posterior sample, as the
    /// validation curve), nats.
    pub test_nll: f64,
    /// Poisson NLL per valid bin of the baseline alone on the test fold, nats.
    pub test_nll_baseline_only: f64,
    /// Held-out predictive NLL per predicted bin on the test fold, nats: the encoder sees the
    /// first part of each trial, the learned prior predicts the rest (see
    /// [`crate::predictive`]). NaN for results saved before it existed.
    #[serde(default = "not_a_number")]
    pub heldout_predictive_nll: f64,
    /// The baseline alone on the same predicted bins, nats per bin.
    #[serde(default = "not_a_number")]
    pub heldout_predictive_nll_baseline_only: f64,
    /// Standard error of the predictive gain (baseline minus model, per bin) across test trials.
    #[serde(default = "not_a_number")]
    pub heldout_predictive_gain_se: f64,
    /// The display frame.
    pub frame: Frame,
    /// The map from the model's latent to the display frame.
    pub to_display: Affine2,
    /// For a frame aligned to known latents, the fraction of their variance the alignment
    /// explains (R²); NaN otherwise.
    #[serde(default = "not_a_number")]
    pub alignment_r2: f64,
    /// The learned noise σ per latent dimension.
    pub noise_sigma: Vec<f64>,
    /// The autonomous flow F(z, 0)/τ on the grid, latent units/s, display frame.
    pub flow: FlowGrid,
    /// The click-driven flows [F(z, e) − F(z, 0)]/τ for a left and a right click, weighted by
    /// the click probability at z (display frame).
    pub input_fields: [FlowGrid; 2],
    /// Trials whose noiseless trajectory visits each grid cell, `[j·nx + i]` as the flow grid.
    pub visits: Vec<usize>,
    /// Visits at or above which a cell belongs to the sample zone.
    pub sample_zone_min_visits: usize,
    /// Fixed points of the autonomous flow inside the sample zone (display frame, eigenvalues
    /// in 1/s). Points outside it sit where the data never go (often where the learned gate
    /// has closed and the flow vanishes) and say nothing about the data.
    pub fixed_points: Vec<FixedPoint>,
    /// Fixed points found outside the sample zone and left out of `fixed_points`.
    pub fixed_points_outside_sample_zone: usize,
    /// Fits trained with different seeds on the same trials and folds (1 when no restarts).
    #[serde(default = "one")]
    pub fits: usize,
    /// Which of them is reported, from 0: the one whose fixed points the others agree with
    /// most, the best validation score breaking ties.
    pub kept_fit: usize,
    /// For each of `fixed_points`, how many of the `fits` found a fixed point of the same
    /// stability nearby after mapping onto this fit's display frame (itself included; empty for
    /// results saved before restarts existed).
    #[serde(default)]
    pub fixed_point_support: Vec<usize>,
    /// Attractors inside the sample zone that other fits find and the reported fit lacks (in
    /// its display frame; empty for one fit).
    #[serde(default)]
    pub missing_attractors: Vec<MissingAttractor>,
    /// For each fit, how well the others agree with its attractors
    /// ([`crate::consensus::agreement`]) and with its zone's shape
    /// ([`crate::zone_shape::shape_agreement`]), from which `kept_fit` was chosen (empty for
    /// one fit).
    #[serde(default)]
    pub restart_agreement: Vec<i64>,
    /// For each fit, the median over its own sample zone of its flow's Jacobian eigenvalues
    /// (`None` where the zone has no inner grid node; empty for results saved before this
    /// existed). Fits that disagree on whether the zone has a slow direction do not confirm
    /// each other ([`crate::zone_shape::shape_disagreement`]).
    #[serde(default)]
    pub zone_eigenvalues_by_fit: Vec<Option<ZoneEigenvalues>>,
    /// Trial-averaged noiseless trajectories by group.
    pub trajectories: Vec<GroupTrajectory>,
    /// Data and model PSTHs by group.
    pub psths: Psths,
    /// The planted comparison, for synthetic data.
    pub planted: Option<PlantedComparison>,
}

/// Transition KL per bin (nats) at the kept epoch below which a result saved without the
/// held-out predictive score is taken to carry no information (posterior collapse: the
/// encoder's posterior has fallen back to the prior's flow). Collapsed fits seen on independent
/// data sit near 0.002; but so can fits whose prior predicts well, which is why the predictive
/// gain decides where it is known.
pub const COLLAPSED_KL_PER_BIN: f64 = 0.01;

/// Standard errors by which the held-out predictive gain over the baseline must exceed zero
/// for the latent to count as predicting unseen spikes.
pub const PREDICTIVE_GAIN_STANDARD_ERRORS: f64 = 2.0;

/// The held-out predictive NLLs of a fit, as [`unsupported_reasons`] reads them.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Predictive {
    nll: f64,
    baseline_nll: f64,
    gain_se: f64,
}

/// Why a fit with transition KL `kept_kl` at its kept epoch, held-out reconstruction NLLs
/// `test_nll` (with the latent) and `baseline_nll` (baseline alone), and held-out predictive
/// NLLs `predictive` does not support a latent flow.
fn unsupported_reasons(
    kept_kl: Option<f64>,
    test_nll: f64,
    baseline_nll: f64,
    predictive: Predictive,
) -> Vec<String> {
    let mut reasons = Vec::new();
    let Predictive {
        nll,
        baseline_nll: predictive_baseline,
        gain_se,
    } = predictive;
    let predictive_known = nll.is_finite() && predictive_baseline.is_finite();
    // A small transition KL alone is no proof of collapse: when the prior predicts the data as
    // well as the posterior, their drifts agree and the KL is small while the latent carries
    // everything (fits of a double well that predict unseen spikes 2.8 nats per bin better than
    // the baseline kept a KL below 0.01). The held-out predictive gain decides where it is
    // known; the KL decides only for results saved before it existed. A NaN KL fails the
    // comparison, so it counts as no information.
    if !predictive_known
        && let Some(kl) = kept_kl
        && kl
            .partial_cmp(&COLLAPSED_KL_PER_BIN)
            .is_none_or(Ordering::is_lt)
    {
        reasons.push(format!(
            "the latent carries almost no information: the transition KL at the kept epoch is \
             {kl:.4} nats per bin, below {COLLAPSED_KL_PER_BIN} (posterior collapse; try a \
             smaller β_KL or a slower KL warm-up)"
        ));
    }
    if test_nll.partial_cmp(&baseline_nll) != Some(Ordering::Less) {
        reasons.push(format!(
            "the latent does not predict held-out spikes better than the baseline alone (test \
             NLL {test_nll:.5} against {baseline_nll:.5} nats per bin)"
        ));
    }
    // Results saved before the predictive score existed have NaN there and are not judged on it.
    if predictive_known {
        let gain = predictive_baseline - nll;
        let margin = PREDICTIVE_GAIN_STANDARD_ERRORS * gain_se.max(0.0);
        if !(gain > 0.0 && gain > margin) {
            reasons.push(format!(
                "the learned flow does not predict unseen spikes better than the baseline alone \
                 (held-out predictive NLL {nll:.5} against {predictive_baseline:.5} nats per bin; \
                 gain {gain:.5} ± {gain_se:.5}; the latent carries no usable information, as \
                 after a posterior collapse: try a smaller β_KL or a slower KL warm-up)"
            ));
        }
    }
    reasons
}

/// The name of a stability class in sentences and `summary.json`.
pub fn stability_name(stability: Stability) -> &'static str {
    match stability {
        Stability::Stable => "stable",
        Stability::Unstable => "unstable",
        Stability::Saddle => "saddle",
        Stability::Marginal => "marginal",
    }
}

/// Why the fixed points `points` of the reported fit, found by `support[k]` of `fits` fits, with
/// the attractors `missing` that other fits find and it lacks, are not a confirmed structure.
fn unconfirmed_reasons(
    points: &[FixedPoint],
    support: &[usize],
    fits: usize,
    missing: &[MissingAttractor],
    shape_disagreement: Option<String>,
) -> Vec<String> {
    if fits <= 1 {
        return vec![
            "one fit: its fixed points are not checked against fits from other seeds (set \
             Restarts to 3 or more before reading them as findings)"
                .to_owned(),
        ];
    }
    let mut reasons = Vec::new();
    // The structure is its attractors; saddles sit where trials pass quickly, so the data place
    // them loosely and a saddle found by few fits is listed as unconfirmed without unsettling it.
    let attracting =
        |p: &FixedPoint| matches!(p.stability, Stability::Stable | Stability::Marginal);
    for (point, &count) in points.iter().zip(support) {
        if attracting(point) && !confirmed(count, fits) {
            reasons.push(format!(
                "the {} point at ({:.2}, {:.2}) is found by only {count} of {fits} fits",
                stability_name(point.stability),
                point.z[0],
                point.z[1]
            ));
        }
    }
    for attractor in missing.iter().filter(|m| 2 * m.found_by >= fits) {
        reasons.push(format!(
            "{} of the other {} fits find an attractor near ({:.2}, {:.2}) that the shown fit lacks",
            attractor.found_by,
            fits - 1,
            attractor.z[0],
            attractor.z[1]
        ));
    }
    reasons.extend(shape_disagreement);
    if !reasons.is_empty() {
        reasons.push(
            "the fits disagree on the flow's structure, so no fixed point is reported as a \
             finding (more data, more epochs or a model selection may settle it)"
                .to_owned(),
        );
    }
    reasons
}

impl FindrResult {
    /// Why this fit's attractors are not a structure that its restarts agree on, one sentence
    /// each; empty when more than half of the fits find every stable or marginal point, no
    /// attractor the shown fit lacks is found by half of them or more, and the fits do not
    /// disagree on whether the sample zone has a slow direction (saddles do not count:
    /// see [`FindrResult::points_confirmed`] for them). A single fit is never confirmed. Results
    /// saved before restarts existed (no support counts) are judged as one fit.
    pub fn unconfirmed_reasons(&self) -> Vec<String> {
        let fits = if self.fixed_point_support.len() == self.fixed_points.len() {
            self.fits
        } else {
            1
        };
        let shapes = if self.zone_eigenvalues_by_fit.len() == fits {
            shape_disagreement(&self.zone_eigenvalues_by_fit, self.kept_fit)
        } else {
            None
        };
        unconfirmed_reasons(
            &self.fixed_points,
            &self.fixed_point_support,
            fits,
            &self.missing_attractors,
            shapes,
        )
    }

    /// The median over the sample zone of the learned flow's Jacobian eigenvalues, slow then
    /// fast (1/s): whether the flow where the data go has a slow direction, which isolated fixed
    /// points cannot show (see [`crate::zone_shape`]).
    pub fn sample_zone_eigenvalues(&self) -> Option<ZoneEigenvalues> {
        ZoneEigenvalues::of(&self.flow, |cell| self.in_sample_zone(cell))
    }

    /// For each of `fixed_points`, whether most fits find it (never for one fit or for results
    /// saved before restarts existed).
    pub fn points_confirmed(&self) -> Vec<bool> {
        let known = self.fixed_point_support.len() == self.fixed_points.len();
        (0..self.fixed_points.len())
            .map(|k| known && confirmed(self.fixed_point_support[k], self.fits))
            .collect()
    }

    /// Whether the attractors are findings: the latent is supported and the restarts agree on
    /// them (see [`FindrResult::unconfirmed_reasons`]).
    pub fn structure_confirmed(&self) -> bool {
        self.unsupported_reasons().is_empty() && self.unconfirmed_reasons().is_empty()
    }

    /// Why this fit does not support a latent flow, one sentence each; empty when it does.
    /// A fit whose latent carries (almost) no information, or which predicts held-out spikes no
    /// better than the baseline alone, has fixed points that are not findings.
    pub fn unsupported_reasons(&self) -> Vec<String> {
        unsupported_reasons(
            self.kept_validation_kl(),
            self.test_nll,
            self.test_nll_baseline_only,
            Predictive {
                nll: self.heldout_predictive_nll,
                baseline_nll: self.heldout_predictive_nll_baseline_only,
                gain_se: self.heldout_predictive_gain_se,
            },
        )
    }

    /// The validation transition KL per bin (nats) at the kept epoch.
    pub fn kept_validation_kl(&self) -> Option<f64> {
        self.history
            .iter()
            .find(|r| r.epoch == self.best_epoch)
            .map(|r| r.validation_kl)
    }

    /// Whether a grid cell belongs to the sample zone.
    pub fn in_sample_zone(&self, cell: usize) -> bool {
        self.visits
            .get(cell)
            .is_some_and(|&v| v >= self.sample_zone_min_visits)
    }
}

#[cfg(test)]
mod support_tests {
    use super::*;
    use crate::analysis::test_point as point;

    #[test]
    fn a_structure_is_confirmed_only_when_most_fits_agree() {
        let points = [point(1.0, Stability::Stable), point(0.0, Stability::Saddle)];
        assert!(unconfirmed_reasons(&points, &[3, 2], 3, &[], None).is_empty());
        let one = unconfirmed_reasons(&points, &[1, 1], 1, &[], None);
        assert!(one.len() == 1 && one[0].starts_with("one fit"), "{one:?}");
        let minority = unconfirmed_reasons(&points, &[1, 3], 3, &[], None);
        assert!(
            minority.len() == 2 && minority[0].contains("stable point at (1.00, 0.00)"),
            "{minority:?}"
        );
        // A saddle few fits find is not the structure.
        assert!(unconfirmed_reasons(&points, &[3, 1], 3, &[], None).is_empty());
        // An attractor that half of the fits find and the shown fit lacks.
        let missing = [MissingAttractor {
            z: [-1.0, 0.0],
            found_by: 1,
        }];
        assert_eq!(
            unconfirmed_reasons(&points, &[2, 2], 2, &missing, None).len(),
            2
        );
        assert!(unconfirmed_reasons(&points, &[3, 3], 3, &missing, None).is_empty());
        // Fits that agree on the points but not on whether the zone has a slow direction.
        let shapes = unconfirmed_reasons(&points, &[3, 3], 3, &[], Some("a line".to_owned()));
        assert!(shapes.len() == 2 && shapes[0] == "a line", "{shapes:?}");
    }

    #[test]
    fn collapsed_or_uninformative_fits_are_named() {
        let gains = Predictive {
            nll: 1.0,
            baseline_nll: 1.1,
            gain_se: 0.01,
        };
        assert!(unsupported_reasons(Some(0.05), 1.0, 1.1, gains).is_empty());
        // A small KL with a clear predictive gain is a prior that predicts well, not a
        // collapse; without the predictive score (old results) the KL decides.
        assert!(unsupported_reasons(Some(0.002), 1.0, 1.1, gains).is_empty());
        let unknown = Predictive {
            nll: f64::NAN,
            ..gains
        };
        let collapsed = unsupported_reasons(Some(0.002), 1.0, 1.1, unknown);
        assert!(
            collapsed.len() == 1 && collapsed[0].contains("0.0020 nats per bin"),
            "{collapsed:?}"
        );
        let no_gain = unsupported_reasons(Some(0.05), 1.2, 1.1, gains);
        assert!(
            no_gain.len() == 1 && no_gain[0].contains("baseline alone"),
            "{no_gain:?}"
        );
        // A predictive gain within two standard errors of zero is no gain.
        let noisy = Predictive {
            gain_se: 0.06,
            ..gains
        };
        let unpredictive = unsupported_reasons(Some(0.05), 1.0, 1.1, noisy);
        assert!(
            unpredictive.len() == 1 && unpredictive[0].contains("unseen spikes"),
            "{unpredictive:?}"
        );
        let worse = Predictive { nll: 1.2, ..gains };
        assert_eq!(unsupported_reasons(Some(0.05), 1.0, 1.1, worse).len(), 1);
        // Results saved before the predictive score are not judged on it.
        assert!(unsupported_reasons(Some(0.05), 1.0, 1.1, unknown).is_empty());
        assert_eq!(
            unsupported_reasons(Some(f64::NAN), f64::NAN, 1.0, unknown).len(),
            2
        );
    }
}
