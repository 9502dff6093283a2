//! Seeded parameter initialisation and noise for the candle models.
//!
//! Kernels use variance scaling with fan-in and a normal truncated at two standard deviations,
//! rescaled so the kept values have variance `scale / fan_in` (the state kernels of the gated
//! cells use scale 1.414, input kernels scale 1, as in the paper's code); biases are
//! N(0, (1e-3)²).

use candle_core::{Device, Tensor, Var};
use rand::Rng;
use rand_distr::{Distribution as _, StandardNormal};

use benchtop_compute::ComputeError;

/// Standard deviation of a unit normal truncated to [−2, 2].
pub const TRUNCATED_NORMAL_STD: f64 = 0.879_625_661_034_239_8;

/// Standard deviation of the bias initialisation.
pub const BIAS_STD: f64 = 1e-3;

fn truncated_normal(rng: &mut impl Rng) -> f64 {
    loop {
        let x: f64 = StandardNormal.sample(rng);
        if x.abs() <= 2.0 {
            return x;
        }
    }
}

/// A kernel `[fan_in, fan_out]` (applied as `x · W`) with variance `scale / fan_in`.
pub fn kernel(
    rng: &mut impl Rng,
    fan_in: usize,
    fan_out: usize,
    scale: f64,
    device: &Device,
) -> Result<Var, ComputeError> {
    let std = (scale / fan_in.max(1) as f64).sqrt() / TRUNCATED_NORMAL_STD;
    let values: Vec<f32> = (0..fan_in * fan_out)
        .map(|_| (std * truncated_normal(rng)) as f32)
        .collect();
    Ok(Var::from_vec(values, (fan_in, fan_out), device)?)
}

/// A bias of `size` entries drawn from N(0, BIAS_STD²).
pub fn bias(rng: &mut impl Rng, size: usize, device: &Device) -> Result<Var, ComputeError> {
    let values: Vec<f32> = (0..size)
        .map(|_| {
            let x: f64 = StandardNormal.sample(rng);
            (BIAS_STD * x) as f32
        })
        .collect();
    Ok(Var::from_vec(values, size, device)?)
}

/// A tensor of standard normal noise of shape `[rows, cols]` (f32).
pub fn standard_normal(
    rng: &mut impl Rng,
    rows: usize,
    cols: usize,
    device: &Device,
) -> Result<Tensor, ComputeError> {
    let values: Vec<f32> = (0..rows * cols)
        .map(|_| {
            let x: f64 = StandardNormal.sample(rng);
            x as f32
        })
        .collect();
    Ok(Tensor::from_vec(values, (rows, cols), device)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use benchtop_compute::rng::seeded;

    #[test]
    fn kernel_has_the_variance_scaling_spread_and_bound() {
        let fan_in = 50;
        let w = kernel(&mut seeded(1), fan_in, 400, 1.414, &Device::Cpu).unwrap();
        let values: Vec<f32> = w.as_tensor().flatten_all().unwrap().to_vec1().unwrap();
        let n = values.len() as f64;
        let mean = values.iter().map(|v| f64::from(*v)).sum::<f64>() / n;
        let var = values
            .iter()
            .map(|v| (f64::from(*v) - mean).powi(2))
            .sum::<f64>()
            / n;
        let target = 1.414 / 50.0;
        // 20000 draws: the sample variance is within a few percent.
        assert!((var / target - 1.0).abs() < 0.05, "{var} vs {target}");
        let bound = 2.0 * (target.sqrt() / TRUNCATED_NORMAL_STD) + 1e-6;
        assert!(values.iter().all(|v| f64::from(v.abs()) <= bound));
        let again = kernel(&mut seeded(1), fan_in, 400, 1.414, &Device::Cpu).unwrap();
        let again: Vec<f32> = again.as_tensor().flatten_all().unwrap().to_vec1().unwrap();
        assert_eq!(values, again);
    }
}

/// An orthogonal `[n, n]` kernel: Gram–Schmidt on a standard normal matrix (rows orthonormal).
pub fn orthogonal(rng: &mut impl Rng, n: usize, device: &Device) -> Result<Var, ComputeError> {
    let mut rows: Vec<Vec<f64>> = Vec::with_capacity(n);
    while rows.len() < n {
        let mut v: Vec<f64> = (0..n).map(|_| StandardNormal.sample(rng)).collect();
        for _ in 0..2 {
            for row in &rows {
                let dot: f64 = row.iter().zip(&v).map(|(a, b)| a * b).sum();
                for (x, r) in v.iter_mut().zip(row) {
                    *x -= dot * r;
                }
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm > 1e-6 {
            rows.push(v.into_iter().map(|x| x / norm).collect());
        }
    }
    let values: Vec<f32> = rows.into_iter().flatten().map(|x| x as f32).collect();
    Ok(Var::from_vec(values, (n, n), device)?)
}

#[cfg(test)]
mod orthogonal_tests {
    use super::*;
    use benchtop_compute::rng::seeded;

    #[test]
    fn orthogonal_kernel_is_orthogonal() {
        let n = 9;
        let w = orthogonal(&mut seeded(2), n, &Device::Cpu).unwrap();
        let m: Vec<Vec<f32>> = w.as_tensor().to_vec2().unwrap();
        for i in 0..n {
            for j in 0..n {
                let dot: f64 = (0..n)
                    .map(|k| f64::from(m[i][k]) * f64::from(m[j][k]))
                    .sum();
                let expected = if i == j { 1.0 } else { 0.0 };
                assert!((dot - expected).abs() < 1e-5, "[{i}][{j}] = {dot}");
            }
        }
    }
}
