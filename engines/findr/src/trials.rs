//! Trials in the FINDR layout: spike counts `spikes[trial, bin, neuron]`, click inputs
//! `inputs[trial, bin, 2]` (left, right), valid lengths, trial start times and optional
//! choices. Bins past a trial's length are zero.

use serde::{Deserialize, Serialize};

/// A set of trials in the FINDR layout, stored row-major and zero-padded to `max_bins`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TrialSet {
    /// Number of trials.
    pub n_trials: usize,
    /// Bins per trial in the padded arrays (the longest trial).
    pub max_bins: usize,
    /// Number of neurons.
    pub n_neurons: usize,
    /// Bin width Δt, s.
    pub bin_s: f64,
    /// Spike counts, `[n_trials, max_bins, n_neurons]` row-major.
    pub spikes: Vec<f32>,
    /// Click inputs, `[n_trials, max_bins, 2]` row-major (left, right).
    pub inputs: Vec<f32>,
    /// Valid bins of each trial.
    pub lengths: Vec<usize>,
    /// Start time of each trial in the session, s (the across-session time of the baseline).
    pub times_s: Vec<f64>,
    /// The animal's choice per trial (true: right), when known.
    pub choices: Option<Vec<bool>>,
}

impl TrialSet {
    /// Index of `spikes[trial, bin, neuron]` in the flat array.
    pub fn spike_index(&self, trial: usize, bin: usize, neuron: usize) -> usize {
        (trial * self.max_bins + bin) * self.n_neurons + neuron
    }

    /// The spike count of `neuron` in `bin` of `trial`.
    pub fn spike(&self, trial: usize, bin: usize, neuron: usize) -> f32 {
        self.spikes[self.spike_index(trial, bin, neuron)]
    }

    /// The (left, right) input of `bin` of `trial`.
    pub fn input(&self, trial: usize, bin: usize) -> [f32; 2] {
        let i = 2 * (trial * self.max_bins + bin);
        [self.inputs[i], self.inputs[i + 1]]
    }

    /// Total number of valid bins over all trials.
    pub fn valid_bins(&self) -> usize {
        self.lengths.iter().sum()
    }
}
