//! The panel's numeric parameters, each declared once (widget, range check, sweeps, undo and
//! `benchtop params` come from here).

use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param, grouped};

use super::AssimilationParams as P;

impl Declare for P {
    fn declare() -> Vec<Param<P>> {
        let mut params = grouped(
            "System",
            vec![
                Param::new("run.dim", "Size D", field!(P, run.dim))
                    .range(4.0, 400.0)
                    .slider()
                    .tooltip("Lorenz-96 variables (the paper: 40 and 80) or Kuramoto–Sivashinsky grid points (even; the paper: 128 and 256)."),
                Param::new("run.forcing", "Forcing F", field!(P, run.forcing))
                    .range(0.0, 40.0)
                    .slider()
                    .tooltip("Lorenz-96 forcing; 8 is the classic chaotic regime (the paper's script uses 10)."),
                Param::new("run.domain_length", "Domain length L", field!(P, run.domain_length))
                    .range(4.0, 200.0)
                    .tooltip("Kuramoto–Sivashinsky periodic domain length (22 is chaotic with a few unstable modes; larger L is more turbulent)."),
                Param::new("run.train_steps", "Training states", field!(P, run.train_steps))
                    .range(50.0, 100_000.0)
                    .tooltip("States (one per observation time) Tensor-Var learns its operators from; also the climatology of 3D-/4D-Var's B."),
                Param::new("seed", "Seed", field!(P, seed))
                    .seed()
                    .tooltip("Seed of the initial state, the observed components, the noise and the random features."),
            ],
        );
        params.extend(grouped(
            "Observations",
            vec![
                Param::new("run.obs_fraction", "Observed fraction", field!(P, run.obs_fraction))
                    .range(0.01, 1.0)
                    .slider()
                    .tooltip("Fraction of the components observed (chosen at random), each as 5·arctan(0.1x) + noise (the paper: 20 %)."),
                Param::new("run.obs_noise", "Noise σ", field!(P, run.obs_noise))
                    .range(0.0, 5.0)
                    .slider()
                    .tooltip("Standard deviation of the observation noise (the paper: 0.1)."),
                Param::new("run.window", "Window length T", field!(P, run.window))
                    .range(1.0, 20.0)
                    .slider()
                    .tooltip("Observation times per assimilation window (spacing 0.1 on Lorenz-96, 1.0 on Kuramoto–Sivashinsky; the paper: 3–5)."),
                Param::new("run.windows", "Windows", field!(P, run.windows))
                    .range(1.0, 10_000.0)
                    .tooltip("Consecutive windows assimilated on held-out truth."),
                Param::new("run.background_noise", "Initial background error σ_b", field!(P, run.background_noise))
                    .range(0.0, 20.0)
                    .tooltip("Every method starts from the truth plus N(0, σ_b²) noise."),
            ],
        ));
        params.extend(grouped(
            "Tensor-Var",
            vec![
                Param::new("run.tensor_var.components", "Feature dimension k", field!(P, run.tensor_var.components))
                    .range(1.0, 2000.0)
                    .slider()
                    .tooltip("Principal components of the random features kept as the state feature z (the paper: 80)."),
                Param::new("run.tensor_var.features", "Random features m", field!(P, run.tensor_var.features))
                    .range(1.0, 5000.0)
                    .tooltip("Random Fourier features of the Gaussian kernel before PCA (at least k)."),
                Param::new("run.tensor_var.ridge", "Ridge λ", field!(P, run.tensor_var.ridge))
                    .range(1e-12, 10.0)
                    .log()
                    .slider()
                    .tooltip("Ridge of the forward CME operator, per sample (the paper: 1e-3 to 1e-2)."),
                Param::new("run.tensor_var.obs_ridge", "Observation ridge", field!(P, run.tensor_var.obs_ridge))
                    .range(1e-12, 10.0)
                    .log()
                    .tooltip("Ridge of the observation/history CME that maps φ_H ⊗ φ_O to ẑ."),
                Param::new("run.tensor_var.length_scale", "Kernel length / median", field!(P, run.tensor_var.length_scale))
                    .range(0.01, 100.0)
                    .log()
                    .tooltip("Gaussian kernel length as a multiple of the median distance between training states."),
                Param::new("run.tensor_var.history", "History h", field!(P, run.tensor_var.history))
                    .range(0.0, 50.0)
                    .tooltip("Past observation times in the history features φ_H."),
                Param::new("run.tensor_var.history_components", "History components", field!(P, run.tensor_var.history_components))
                    .range(0.0, 500.0)
                    .tooltip("Principal components of the stacked history kept in φ_H (bounds the Khatri–Rao width)."),
                Param::new("run.tensor_var.preimage_centres", "Pre-image centres", field!(P, run.tensor_var.preimage_centres))
                    .range(1.0, 20_000.0)
                    .tooltip("Training points used as centres of the kernel ridge pre-image."),
                Param::new("run.tensor_var.last_weight", "Last dynamics weight", field!(P, run.tensor_var.last_weight))
                    .range(0.0, 1.0)
                    .tooltip("The dynamics weights p_t fall linearly from 1 to this over the window (the paper: 0.1)."),
            ],
        ));
        params.extend(grouped(
            "4D-Var",
            vec![
                Param::new("run.background_scale", "B / climatology", field!(P, run.background_scale))
                    .range(1e-4, 100.0)
                    .log()
                    .tooltip("3D-/4D-Var background covariance as a multiple of the climatological covariance of the training states; used when Tuning windows is 0 (else chosen on training windows)."),
                Param::new("run.background_jitter", "B jitter", field!(P, run.background_jitter))
                    .range(1e-12, 10.0)
                    .log()
                    .tooltip("Added to B's diagonal (relative to its mean variance) before inverting it: bounds B⁻¹ where the training states hardly vary, e.g. the damped small scales of Kuramoto–Sivashinsky, which otherwise stalls L-BFGS."),
                Param::new("run.max_iterations", "L-BFGS iterations", field!(P, run.max_iterations))
                    .range(1.0, 10_000.0)
                    .tooltip("Most L-BFGS iterations per window (4D-Var) or time (3D-Var)."),
                Param::new("run.tune_windows", "Tuning windows", field!(P, run.tune_windows))
                    .range(0.0, 1000.0)
                    .tooltip("Windows at the end of the training trajectory on which 3D-/4D-Var's B / climatology (0.03 to 3) and the EnKF's localisation (0.05 to 0.4 × D) and inflation (1 to 1.2) are chosen, by the smallest mean analysis RMSE. 0 uses B / climatology and the EnKF's settings as given."),
            ],
        ));
        params.extend(grouped(
            "EnKF",
            vec![
                Param::new("run.enkf.members", "Members N", field!(P, run.enkf.members))
                    .range(2.0, 1000.0)
                    .tooltip("Ensemble members of the stochastic EnKF (perturbed observations) on the true model; more members are more accurate and cost more."),
                Param::new("run.enkf.localisation", "Localisation c", field!(P, run.enkf.localisation))
                    .range(0.1, 10_000.0)
                    .log()
                    .tooltip("Gaspari–Cohn half-width in grid points on the ring (covariances vanish beyond 2c); used when Tuning windows is 0."),
                Param::new("run.enkf.inflation", "Inflation λ", field!(P, run.enkf.inflation))
                    .range(1.0, 3.0)
                    .tooltip("Multiplicative inflation of the forecast ensemble about its mean at every analysis; used when Tuning windows is 0."),
            ],
        ));
        params
    }
}
