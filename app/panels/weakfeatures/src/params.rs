//! The panel's numeric parameters, each declared once: widget, range check, sweeps, undo
//! steps and `benchtop params weakfeatures` come from here.

use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param, grouped};

use super::WeakfeaturesParams as P;

impl Declare for P {
    /// Every numeric parameter of the panel.
    fn declare() -> Vec<Param<P>> {
        let mut params = grouped(
            "Data",
            vec![
                Param::new("data.n_train", "Training rows n", field!(P, data.n_train))
                    .range(10.0, 1e6)
                    .log()
                    .slider()
                    .tooltip("Training rows n (a table uses at most the rows left after its test split). The excess risk of every learned model falls with n towards its closed form."),
                Param::new("data.n_test", "Test rows", field!(P, data.n_test))
                    .range(10.0, 1e6)
                    .log()
                    .tooltip("Test rows drawn from the generator (a table holds out its test share instead). More rows make the measured excess risk more precise."),
                Param::new("data.test_fraction", "Test share of a table", field!(P, data.test_fraction))
                    .range(0.05, 0.9)
                    .tooltip("Share of a table's rows held out for testing (breast-cancer table or CSV)."),
                Param::new("data.gaussian.d_observed", "Observed features d_o", field!(P, data.gaussian.d_observed))
                    .range(1.0, 128.0)
                    .tooltip("Generator: number of observed features x_o (unit variance, equal correlations)."),
                Param::new("data.gaussian.d_weak", "Weak features d_w", field!(P, data.gaussian.d_weak))
                    .range(1.0, 128.0)
                    .tooltip("Generator: number of weak features x_w (unit variance), missing together on a row."),
                Param::new("data.gaussian.corr_observed", "Correlation of x_o, c", field!(P, data.gaussian.corr_observed))
                    .range(0.0, 0.95)
                    .slider()
                    .tooltip("Generator: correlation c between any two observed features."),
                Param::new("data.gaussian.r_squared", "Predictable share of x_w, R²", field!(P, data.gaussian.r_squared))
                    .range(0.0, 0.99)
                    .slider()
                    .tooltip("Generator: share R² of each weak feature's variance explained by x_o, so Var(x_w | x_o) = 1 − R². R² = 0: x_w independent of x_o (the attenuation Var(x_w)/(Var(x_w) + ε) holds exactly)."),
                Param::new("data.gaussian.beta_observed", "Coefficient β_o", field!(P, data.gaussian.beta_observed))
                    .range(-100.0, 100.0)
                    .tooltip("Generator: every coefficient of the observed features in y = β_oᵀx_o + β_wᵀx_w + σξ (target units per feature SD)."),
                Param::new("data.gaussian.beta_weak", "Coefficient β_w", field!(P, data.gaussian.beta_weak))
                    .range(-100.0, 100.0)
                    .tooltip("Generator: every coefficient of the weak features (target units per feature SD). The plug-in excess risk is β_wᵀ Var(x_w | x_o) β_w per estimated row."),
                Param::new("data.gaussian.noise_sd", "Target noise σ", field!(P, data.gaussian.noise_sd))
                    .range(0.0, 100.0)
                    .tooltip("Generator: standard deviation σ of the target's noise (target units); σ² is the Bayes risk."),
            ],
        );
        params.extend(grouped(
            "Missingness",
            vec![
                Param::new("missing.rate", "Missing rate ρ", field!(P, missing.rate))
                    .range(0.0, 1.0)
                    .slider()
                    .tooltip("Expected share ρ of rows (training and test) whose weak features are missing and must be estimated by f."),
                Param::new("missing.strength", "Mechanism slope s", field!(P, missing.strength))
                    .range(0.0, 20.0)
                    .tooltip("MAR and MNAR: P(missing) = σ(α + s·score), score the standardised mean of x_o (MAR) or of x_w itself (MNAR); α keeps the mean at ρ."),
            ],
        ));
        params.extend(grouped(
            "Estimator f",
            vec![
                Param::new("estimator.mse", "Estimation MSE ε", field!(P, estimator.mse))
                    .range(0.0, 100.0)
                    .slider()
                    .tooltip("Per-feature MSE ε of the oracle-plus-noise estimator x̂_w = x_w + e, e ~ N(0, εI) (the paper's est_error_mse), in squared feature SDs; marked on the estimation-error curve."),
                Param::new("estimator.ridge", "Ridge of f, λ_f", field!(P, estimator.ridge))
                    .range(0.0, 1000.0)
                    .tooltip("Ridge penalty λ_f of the linear estimator and of the iterative scheme's linear correction (per row, on standardised features)."),
                Param::new("estimator.mlp.hidden", "f: hidden units", field!(P, estimator.mlp.hidden))
                    .range(1.0, 512.0)
                    .tooltip("MLP estimator: hidden ReLU units."),
                Param::new("estimator.mlp.epochs", "f: Adam steps", field!(P, estimator.mlp.epochs))
                    .range(1.0, 100_000.0)
                    .tooltip("MLP estimator: full-batch Adam steps of the sequential fit."),
                Param::new("estimator.mlp.learning_rate", "f: learning rate", field!(P, estimator.mlp.learning_rate))
                    .range(1e-6, 1.0)
                    .log()
                    .tooltip("MLP estimator: Adam's step size."),
            ],
        ));
        params.extend(grouped(
            "Label model h",
            vec![
                Param::new("label.lipschitz_cap", "Lipschitz cap L", field!(P, label.lipschitz_cap))
                    .range(0.0, 100.0)
                    .slider()
                    .tooltip("MLP label model: after every Adam step each layer is scaled so that its spectral norm is at most √L, which makes h at most L-Lipschitz (0: no cap). A small L limits how much h amplifies f's errors, at the price of fit."),
                Param::new("label.ridge", "Ridge of h, λ_h", field!(P, label.ridge))
                    .range(0.0, 1000.0)
                    .tooltip("Ridge penalty λ_h of the ridge label model (per row). 0 is ordinary least squares."),
                Param::new("label.mlp.hidden", "h: hidden units", field!(P, label.mlp.hidden))
                    .range(1.0, 512.0)
                    .tooltip("MLP label model: hidden ReLU units."),
                Param::new("label.mlp.epochs", "h: Adam steps", field!(P, label.mlp.epochs))
                    .range(1.0, 100_000.0)
                    .tooltip("MLP label model: full-batch Adam steps of a fit from scratch."),
                Param::new("label.mlp.learning_rate", "h: learning rate", field!(P, label.mlp.learning_rate))
                    .range(1e-6, 1.0)
                    .log()
                    .tooltip("MLP label model: Adam's step size."),
            ],
        ));
        params.extend(grouped(
            "Iterative",
            vec![
                Param::new("iterative.rounds", "Rounds R", field!(P, iterative.rounds))
                    .range(1.0, 200.0)
                    .tooltip("Rounds of the iterative scheme after its sequential start: each updates f with h fixed, then refits h on the new estimates."),
                Param::new("iterative.label_weight", "Label weight γ", field!(P, iterative.label_weight))
                    .range(0.0, 10_000.0)
                    .tooltip("Weight γ of the label loss in f's objective: mean ‖x_w − f‖²/d_w on rows with x_w plus γ·mean (y − h(x_o, f))² on rows without. γ = 0: f ignores y."),
                Param::new("iterative.steps_per_round", "Steps per round", field!(P, iterative.steps_per_round))
                    .range(1.0, 100_000.0)
                    .tooltip("Adam steps per round for the parts trained by gradient (an MLP f or h; a linear f under an MLP h). A linear f under a ridge h is solved exactly."),
                Param::new("iterative.learning_rate", "Step size per round", field!(P, iterative.learning_rate))
                    .range(1e-6, 1.0)
                    .log()
                    .tooltip("Adam's step size in the iterative rounds."),
            ],
        ));
        params.extend(grouped(
            "Curves",
            vec![
                Param::new("curves.mse_max", "Largest ε of the curve", field!(P, curves.mse_max))
                    .range(1e-3, 100.0)
                    .log()
                    .tooltip("The estimation-error curve runs from ε = 0 to this MSE (squared feature SDs), oracle-plus-noise estimator."),
                Param::new("curves.mse_points", "Points in ε", field!(P, curves.mse_points))
                    .range(0.0, 100.0)
                    .tooltip("Points of the estimation-error curve (0: not computed)."),
                Param::new("curves.n_points", "Points in n", field!(P, curves.n_points))
                    .range(0.0, 50.0)
                    .tooltip("Training sizes of the sample-size curve, from its smallest size to n on a log grid (0: not computed)."),
                Param::new("curves.n_min", "Smallest n of the curve", field!(P, curves.n_min))
                    .range(10.0, 1e6)
                    .log()
                    .tooltip("Smallest training size of the sample-size curve (at least 2·(d + 2))."),
                Param::new("seed", "Seed", field!(P, seed))
                    .seed()
                    .tooltip("Seed of the data, the missingness, the injected noise and the networks' initialisations (a whole number)."),
            ],
        ));
        params
    }
}
