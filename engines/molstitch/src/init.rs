//! Seeded weight initialisation shared by the GRU models (the prior and StitchNet).

use benchtop_compute::ComputeError;
use benchtop_compute::rng::{derive_seed, seeded};
use candle_core::{Device, Tensor};
use candle_nn::VarMap;
use rand_distr::{Distribution as _, Normal, Uniform};

/// Overwrites every variable of `varmap` with values drawn from `seed`, in name order:
/// embeddings (names starting `embedding`) ~ N(0, 1), everything else
/// ~ U(−1/√`hidden_units`, 1/√`hidden_units`). `model` names the model in errors.
pub(crate) fn reinitialise(
    varmap: &VarMap,
    hidden_units: usize,
    seed: u64,
    device: &Device,
    model: &str,
) -> Result<(), ComputeError> {
    let vars = varmap
        .data()
        .lock()
        .map_err(|_| ComputeError::Numerical(format!("{model} weights lock poisoned")))?;
    let mut names: Vec<&String> = vars.keys().collect();
    names.sort();
    let bound = 1.0 / (hidden_units as f32).sqrt();
    let uniform = Uniform::new_inclusive(-bound, bound)
        .map_err(|e| ComputeError::Numerical(format!("initialiser: {e}")))?;
    let normal = Normal::new(0.0f32, 1.0)
        .map_err(|e| ComputeError::Numerical(format!("initialiser: {e}")))?;
    for (stream, name) in names.into_iter().enumerate() {
        let var = &vars[name];
        let mut rng = seeded(derive_seed(seed, stream as u64));
        let count = var.elem_count();
        let values: Vec<f32> = if name.starts_with("embedding") {
            (0..count).map(|_| normal.sample(&mut rng)).collect()
        } else {
            (0..count).map(|_| uniform.sample(&mut rng)).collect()
        };
        var.set(&Tensor::from_vec(values, var.shape(), device)?)?;
    }
    Ok(())
}
