//! The panel's numeric parameters, each declared once (widget, range check, sweeps, undo and
//! `benchtop params` come from here).

use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param, grouped};

use super::RcgpPanelParams as P;

impl Declare for P {
    fn declare() -> Vec<Param<P>> {
        let mut params = grouped(
            "Data",
            vec![
                Param::new("data.outlier_rate", "Outlier rate", field!(P, run.data.outlier_rate))
                    .range(0.0, 0.5)
                    .slider()
                    .tooltip("Fraction of observations given an outlier (chosen at random)."),
                Param::new("data.outlier_size", "Outlier size", field!(P, run.data.outlier_size))
                    .range(0.0, 50.0)
                    .slider()
                    .tooltip("Outliers shift an observation by ±U[size, size+2]; in data units for the Figure-1 field (paper: 6 → [6, 8]), in robust SDs of the series for real data."),
                Param::new("data.grid", "Grid side", field!(P, run.data.grid))
                    .range(1.0, 30.0)
                    .tooltip("Figure-1 field: points per side of the spatial grid on [−1, 1]² (n_s = side²; the stacked state has n_s·d entries)."),
                Param::new("data.n_times", "Times T", field!(P, run.data.n_times))
                    .range(2.0, 100_000.0)
                    .tooltip("Figure-1 field: equally spaced times in [0, 1]; the cost grows linearly with T."),
                Param::new("data.noise_sd", "Noise SD", field!(P, run.data.noise_sd))
                    .range(0.0, 100.0)
                    .tooltip("Figure-1 field: standard deviation of the Gaussian observation noise."),
                Param::new("data.csv_column", "CSV value column", field!(P, run.data.csv_column))
                    .range(0.0, 10_000.0)
                    .no_sweep()
                    .tooltip("CSV in wide layout: which value column (1 = the first after time); 0 takes all value columns as points on a line."),
            ],
        );
        params.extend(grouped(
            "Kernel",
            vec![
                Param::new("hyper.time_length", "Time length scale ℓ_t", field!(P, run.hyper.time_length))
                    .range(1e-6, 1e6)
                    .log()
                    .tooltip("Temporal Matérn length scale (time units of the data); the fit's start when fitting."),
                Param::new("hyper.space_length", "Space length scale ℓ_s", field!(P, run.hyper.space_length))
                    .range(1e-6, 1e6)
                    .log()
                    .tooltip("Spatial kernel length scale (grid coordinate units); unused for a single series."),
                Param::new("hyper.variance", "Signal variance v", field!(P, run.hyper.variance))
                    .range(1e-8, 1e8)
                    .log()
                    .tooltip("Prior variance of the field, in standardised units (data minus median, over robust SD)."),
                Param::new("hyper.noise", "Noise variance σ²", field!(P, run.hyper.noise))
                    .range(1e-10, 1e6)
                    .log()
                    .tooltip("Observation noise variance in standardised units; sets β = √(σ²/2) and R_eff."),
                Param::new("fit_iterations", "Fit iterations", field!(P, run.fit_iterations))
                    .range(1.0, 500.0)
                    .tooltip("Most L-BFGS iterations of each hyperparameter fit, from each start."),
                Param::new("fit_starts", "Fit starts", field!(P, run.fit_starts))
                    .range(1.0, 64.0)
                    .tooltip("Starting points of each hyperparameter fit (both methods alike): the values above and the rest spread over decades of the length scales, variance and noise; the best is kept. 1 fits from the values above only."),
            ],
        ));
        params.extend(grouped(
            "Robust",
            vec![
                Param::new("robust.c", "Fixed scale c", field!(P, run.robust.c))
                    .range(1e-6, 1e6)
                    .log()
                    .tooltip("IMQ scale c in standardised units, used when the adaptive scale is off: residuals much larger than c are down-weighted."),
                Param::new("robust.c_factor", "Adaptive scale factor", field!(P, run.robust.c_factor))
                    .range(1e-3, 1e3)
                    .log()
                    .tooltip("Adaptive scale c = √(factor·(s² + σ²)) from the one-step predictive variance s² (paper code: 2)."),
                Param::new("robust.beta_scale", "β / √(σ²/2)", field!(P, run.robust.beta_scale))
                    .range(1e-3, 1e3)
                    .log()
                    .slider()
                    .tooltip("The IMQ weight's height β relative to the paper's default √(σ²/2); 1 makes an inlier's R_eff equal σ²."),
                Param::new("seed", "Seed", field!(P, run.seed))
                    .seed()
                    .tooltip("Seed of the noise and of where the outliers fall."),
            ],
        ));
        params.extend(grouped(
            "Sweep",
            vec![
                Param::new(
                    "sweep.max_rate",
                    "Largest outlier rate",
                    field!(P, sweep.max_rate),
                )
                .range(0.0, 0.5)
                .no_sweep()
                .tooltip("The sweep runs both methods at outlier rates from 0 to this."),
                Param::new("sweep.points", "Sweep points", field!(P, sweep.points))
                    .range(2.0, 50.0)
                    .no_sweep()
                    .tooltip("Number of outlier rates in the sweep."),
            ],
        ));
        params
    }
}
