//! Progress events a run reports while it works.

/// One event of a run, in order of occurrence.
#[derive(Debug, Clone, PartialEq)]
pub enum OptimiseEvent {
    /// A stage begins ("score offline", "prior", "stitchnet", "fine-tune", "proxies", "stitch", "evaluate").
    Stage {
        /// Stage name.
        name: String,
    },
    /// An epoch of prior pretraining finished.
    PriorEpoch {
        /// Epoch, from 1.
        epoch: usize,
        /// Epochs requested.
        epochs: usize,
        /// Mean per-sequence NLL of the epoch (nats).
        nll: f64,
    },
    /// The prior's weights were read from the cache instead of trained.
    PriorLoaded {
        /// The cache file.
        path: String,
    },
    /// An epoch of StitchNet pretraining on crossover pairs finished.
    StitchNetEpoch {
        /// Epoch, from 1.
        epoch: usize,
        /// Epochs requested.
        epochs: usize,
        /// Mean per-pair NLL of the child in the epoch (nats).
        nll: f64,
    },
    /// StitchNet's weights were read from the cache instead of trained.
    StitchNetLoaded {
        /// The cache file.
        path: String,
    },
    /// An epoch of trajectory-balance fine-tuning finished.
    TbEpoch {
        /// Epoch, from 1.
        epoch: usize,
        /// Mean TB loss of the epoch.
        loss: f64,
        /// log Z after the epoch.
        log_z: f64,
    },
    /// A proxy training round finished.
    ProxyRound {
        /// Round, from 1.
        round: usize,
        /// Mean held-out pair accuracy of the proxies.
        pair_accuracy: f64,
    },
    /// A stitch + IPO round finished.
    StitchRound {
        /// Round, from 1.
        round: usize,
        /// Fraction of stitch attempts that gave a valid, encodable molecule.
        valid_fraction: f64,
        /// Mean IPO loss of the round's steps (NaN when the round had fewer than 2 molecules).
        ipo_loss: f64,
    },
    /// A method was evaluated.
    Evaluated {
        /// Method name.
        method: String,
        /// Its hypervolume (offline ∪ method).
        hypervolume: f64,
    },
}
