//! The MolStitch panel's numeric parameters, each declared once: its widget, range check,
//! sweeps, undo steps and `benchtop params` all come from here.
//!
//! They are the optimisation's settings. The keys of those sweeps offered before the panel kit
//! (`optimise.beta`, `optimise.dirichlet_alpha`, `optimise.n_proxies`, `optimise.stitch_rounds`,
//! `optimise.sigma`, `optimise.seed`) are kept, since saved sweeps name them. Ranges accept
//! everything the engine's own validation accepts at realistic sizes (the engine still refuses,
//! e.g., fewer than 8 offline molecules). The objectives, their reward weights, the molecule file
//! and the parents are edited by hand-written widgets.

use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param};

use super::MolStitchParams as P;

impl Declare for P {
    /// Every numeric parameter of the panel.
    fn declare() -> Vec<Param<P>> {
        vec![
        Param::new(
            "optimise.offline_size",
            "Offline molecules used",
            field!(P, optimise.offline_size),
        )
        .range(1.0, 1e7)
        .tooltip("The first molecules of the set the run learns from (the paper: 5,000)."),
        Param::new(
            "optimise.prior_epochs",
            "Prior epochs",
            field!(P, optimise.prior_epochs),
        )
        .range(0.0, 1e5)
        .tooltip(
            "Epochs of maximum-likelihood pretraining of the SMILES prior on the offline set.",
        ),
        Param::new(
            "optimise.n_proxies",
            "Proxies M",
            field!(P, optimise.n_proxies),
        )
        .range(1.0, 1024.0)
        .tooltip("Number of rank proxies (the paper: 4)."),
        Param::new(
            "optimise.proxy_rounds",
            "Proxy rounds",
            field!(P, optimise.proxy_rounds),
        )
        .range(0.0, 1e5)
        .tooltip("Training rounds of the rank proxies (the paper: 20 per step)."),
        Param::new(
            "optimise.stitch_rounds",
            "Stitch rounds",
            field!(P, optimise.stitch_rounds),
        )
        .range(0.0, 1e5)
        .tooltip("Stitch + IPO rounds (the paper: 16 per step)."),
        Param::new(
            "optimise.stitched_per_round",
            "Stitches per round",
            field!(P, optimise.stitched_per_round),
        )
        .range(1.0, 1e6)
        .tooltip("Stitch attempts per round (the paper: 250)."),
        Param::new(
            "optimise.pool_size",
            "Parent pool",
            field!(P, optimise.pool_size),
        )
        .range(1.0, 1e7)
        .tooltip("Size of the top pool parents are drawn from (the paper: 1,000)."),
        Param::new(
            "optimise.eval_budget",
            "Oracle budget per method",
            field!(P, optimise.eval_budget),
        )
        .range(1.0, 1e7)
        .tooltip("Oracle calls each method gets at evaluation (the paper: 5,000)."),
        Param::new("optimise.beta", "IPO β", field!(P, optimise.beta))
            .range(1e-6, 1e6)
            .speed(0.01)
            .tooltip("IPO strength β (the paper: 0.2, a target margin of 1/(2β) = 2.5 nats)."),
        Param::new(
            "optimise.dirichlet_alpha",
            "Dirichlet α",
            field!(P, optimise.dirichlet_alpha),
        )
        .range(1e-6, 1e6)
        .speed(0.05)
        .tooltip(
            "Concentration α of the preference draws Dir(α·1) of priority sampling (the paper: 1).",
        ),
        Param::new(
            "optimise.sigma",
            "TB reward scale σ",
            field!(P, optimise.sigma),
        )
        .range(0.0, 1e6)
        .speed(1.0)
        .tooltip("Reward scale σ of the trajectory-balance loss (the paper: 500)."),
        Param::new(
            "optimise.seeds",
            "Seeds compared",
            field!(P, optimise.seeds),
        )
        .range(1.0, 100.0)
        .no_sweep()
        .tooltip(
            "Whole runs compared, at the seed and the next ones: each method's metrics with \
             their mean ± SD, and MolStitch paired with each baseline (wins, exact sign test). \
             Each seed is a full run (about 1 min in release on two cores; weights are cached \
             per seed). At 5 seeds or fewer the sign test cannot reach p < 0.05.",
        ),
        // Kept sweepable: a sweep of the seed shows the spread of a run.
        Param::new("optimise.seed", "Seed", field!(P, optimise.seed))
            .tooltip("Seed of every random draw of the run.")
            .seed(),
    ]
    }
}
