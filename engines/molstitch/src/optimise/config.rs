//! Settings of an optimisation run ([`OptimiseConfig`]) and their validation.

use benchtop_compute::ComputeError;
use serde::{Deserialize, Serialize};

use super::stitch::StitchOperator;
use crate::objectives::ObjectiveSpec;
use crate::prior::PriorConfig;
use crate::stitchnet::StitchConfig;

/// Reference drug of the default similarity objective: celecoxib.
pub const DEFAULT_REFERENCE_SMILES: &str = "Cc1ccc(-c2cc(C(F)(F)F)nn2-c2ccc(S(N)(=O)=O)cc2)cc1";

/// Seeds a comparison runs by default: the fewest at which the two-sided sign test can reject
/// "no difference" at 5 % (p = 2/2⁶ = 0.031 when one method wins on all six).
pub const DEFAULT_SEEDS: usize = 6;

/// Every setting of a MolStitch run. Defaults are CPU-scale (the release example finishes in a
/// few minutes on two cores); the paper's values are quoted on each field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct OptimiseConfig {
    /// The objectives, each in [0, 1] and maximised (default QED, SA', similarity to
    /// celecoxib).
    pub objectives: Vec<ObjectiveSpec>,
    /// Weights of the scalar reward r(x) = Σ wᵢ fᵢ(x), one per objective (≥ 0, not all 0;
    /// the paper: uniform). Normalised to sum 1 before use.
    pub weights: Vec<f64>,
    /// How many of the offline SMILES to use (the first ones; paper: 5 000).
    pub offline_size: usize,
    /// The GRU prior's size and training settings (paper: 128 / 3×512).
    pub prior: PriorConfig,
    /// Epochs of maximum-likelihood pretraining of the prior on the offline SMILES (the paper
    /// ships a ZINC-pretrained prior instead).
    pub prior_epochs: usize,
    /// Epochs of trajectory-balance fine-tuning of the agent on the offline set (paper: 2).
    pub tb_epochs: usize,
    /// Experience-replay rounds after the TB epochs, one TB step each (paper: 8; 0 turns
    /// replay off).
    pub replay_rounds: usize,
    /// Molecules drawn per replay round, p ∝ 1/(0.01·N + rank) (paper: 100).
    pub replay_batch: usize,
    /// Size N of the replay buffer: the top offline molecules by reward (paper: 1 000).
    pub replay_buffer: usize,
    /// Learning rate of the agent's TB and IPO steps and of log Z (paper: 5e-4).
    pub agent_learning_rate: f64,
    /// Number of rank proxies M (paper: 4).
    pub n_proxies: usize,
    /// Training rounds of the proxies (paper: 20 per step).
    pub proxy_rounds: usize,
    /// Molecules paired per proxy round (paper: 200).
    pub proxy_pairs_per_round: usize,
    /// Hidden units of each proxy MLP.
    pub proxy_hidden_units: usize,
    /// Learning rate of the proxies (paper: 5e-4, weight decay 1e-4).
    pub proxy_learning_rate: f64,
    /// The operator of the stitch rounds: StitchNet (default, the paper's) or the rule-based
    /// BRICS stitch (for comparison).
    pub stitch_operator: StitchOperator,
    /// StitchNet's size and training settings (paper: the prior's 128 / 3×512, Adam 1e-3).
    pub stitchnet: StitchConfig,
    /// BRICS crossover pairs of the offline set StitchNet is pretrained on (paper: ZINC pairs).
    pub stitch_pairs: usize,
    /// Epochs of StitchNet pretraining (paper: 10).
    pub stitch_epochs: usize,
    /// Sampling temperature of StitchNet's decoder in the stitch rounds.
    pub stitch_temperature: f64,
    /// Concentration α of the preference draws Dir(α·1) of priority sampling (paper: 1).
    pub dirichlet_alpha: f64,
    /// Stitch + IPO rounds (paper: 16 per step).
    pub stitch_rounds: usize,
    /// Stitch attempts per round (paper: 250 decoded molecules per round).
    pub stitched_per_round: usize,
    /// Gradient steps of IPO per stitch round.
    pub ipo_steps_per_round: usize,
    /// Size of the top pool parents are drawn from (paper: 1 000).
    pub pool_size: usize,
    /// IPO strength β (paper: 0.2, a target margin of 1/(2β) = 2.5 nats).
    pub beta: f64,
    /// Reward scale σ of the trajectory-balance loss (paper: 500; see the module docs).
    pub sigma: f64,
    /// Oracle calls each method gets at evaluation (paper: 5 000).
    pub eval_budget: usize,
    /// Sampling temperature of the agents at evaluation.
    pub temperature: f64,
    /// Seed of every random draw of the run.
    pub seed: u64,
    /// Seeds compared by [`crate::optimise::run_seeds`]: whole runs at `seed`, `seed + 1`, …,
    /// each with its own prior, StitchNet and samples (1 to 100; [`crate::optimise::run`] is
    /// always the one seed `seed`). One seed proves little: the methods differ by a few
    /// thousandths of hypervolume, about the spread between seeds.
    pub seeds: usize,
}

impl Default for OptimiseConfig {
    fn default() -> Self {
        Self {
            objectives: vec![
                ObjectiveSpec::Qed,
                ObjectiveSpec::Sa,
                ObjectiveSpec::Similarity {
                    reference: DEFAULT_REFERENCE_SMILES.to_owned(),
                },
            ],
            weights: vec![1.0, 1.0, 1.0],
            offline_size: 2000,
            prior: PriorConfig {
                embedding_dim: 32,
                hidden_units: 128,
                layers: 1,
                learning_rate: 5e-3,
                batch_size: 64,
                max_length_tokens: 100,
            },
            prior_epochs: 12,
            tb_epochs: 2,
            replay_rounds: 8,
            replay_batch: 100,
            replay_buffer: 1000,
            agent_learning_rate: 1e-3,
            n_proxies: 4,
            proxy_rounds: 20,
            proxy_pairs_per_round: 200,
            proxy_hidden_units: 64,
            proxy_learning_rate: 1e-3,
            stitch_operator: StitchOperator::StitchNet,
            stitchnet: StitchConfig {
                embedding_dim: 32,
                hidden_units: 128,
                learning_rate: 3e-3,
                batch_size: 64,
                max_length_tokens: 100,
            },
            stitch_pairs: 2000,
            stitch_epochs: 4,
            stitch_temperature: 1.0,
            dirichlet_alpha: 1.0,
            stitch_rounds: 16,
            stitched_per_round: 128,
            ipo_steps_per_round: 2,
            pool_size: 500,
            beta: 0.2,
            sigma: 50.0,
            eval_budget: 500,
            temperature: 0.8,
            seed: 0,
            seeds: DEFAULT_SEEDS,
        }
    }
}

fn positive(name: &str, x: f64) -> Result<(), ComputeError> {
    if x.is_finite() && x > 0.0 {
        Ok(())
    } else {
        Err(ComputeError::invalid(
            name,
            format!("{x} must be a positive finite number"),
        ))
    }
}

fn at_least(name: &str, x: usize, min: usize) -> Result<(), ComputeError> {
    if x >= min {
        Ok(())
    } else {
        Err(ComputeError::invalid(
            name,
            format!("{x} must be at least {min}"),
        ))
    }
}

impl OptimiseConfig {
    /// Checks every field; the error names the offending key (`prior.<field>` for the prior's).
    pub fn validate(&self) -> Result<(), ComputeError> {
        if self.objectives.is_empty() {
            return Err(ComputeError::invalid("objectives", "need at least one"));
        }
        for spec in &self.objectives {
            spec.validate()
                .map_err(|e| ComputeError::invalid("objectives", e.to_string()))?;
        }
        if self.weights.len() != self.objectives.len() {
            return Err(ComputeError::invalid(
                "weights",
                format!(
                    "{} weights for {} objectives",
                    self.weights.len(),
                    self.objectives.len()
                ),
            ));
        }
        if self.weights.iter().any(|w| !(w.is_finite() && *w >= 0.0))
            || self.weights.iter().sum::<f64>() <= 0.0
        {
            return Err(ComputeError::invalid(
                "weights",
                "every weight must be finite and >= 0, and their sum > 0",
            ));
        }
        at_least("offline_size", self.offline_size, 8)?;
        self.prior.validate().map_err(|e| match e {
            ComputeError::InvalidParameter { name, reason } => {
                ComputeError::invalid(format!("prior.{name}"), reason)
            }
            other => other,
        })?;
        at_least("replay_batch", self.replay_batch, 1)?;
        at_least("replay_buffer", self.replay_buffer, 1)?;
        at_least("n_proxies", self.n_proxies, 1)?;
        at_least("proxy_pairs_per_round", self.proxy_pairs_per_round, 2)?;
        at_least("proxy_hidden_units", self.proxy_hidden_units, 1)?;
        positive("proxy_learning_rate", self.proxy_learning_rate)?;
        positive("agent_learning_rate", self.agent_learning_rate)?;
        self.stitchnet.validate().map_err(|e| match e {
            ComputeError::InvalidParameter { name, reason } => {
                ComputeError::invalid(format!("stitchnet.{name}"), reason)
            }
            other => other,
        })?;
        at_least("stitch_pairs", self.stitch_pairs, 1)?;
        positive("stitch_temperature", self.stitch_temperature)?;
        positive("dirichlet_alpha", self.dirichlet_alpha)?;
        at_least("stitched_per_round", self.stitched_per_round, 2)?;
        at_least("pool_size", self.pool_size, 2)?;
        positive("beta", self.beta)?;
        if !(self.sigma.is_finite() && self.sigma >= 0.0) {
            return Err(ComputeError::invalid(
                "sigma",
                format!("{} must be finite and >= 0", self.sigma),
            ));
        }
        at_least("eval_budget", self.eval_budget, 1)?;
        positive("temperature", self.temperature)?;
        if !(1..=100).contains(&self.seeds) {
            return Err(ComputeError::invalid(
                "seeds",
                format!("{} must be 1 to 100", self.seeds),
            ));
        }
        Ok(())
    }

    /// The weights normalised to sum 1.
    pub fn normalised_weights(&self) -> Vec<f64> {
        let total: f64 = self.weights.iter().sum();
        self.weights.iter().map(|w| w / total).collect()
    }
}
