//! Poisson observations on top of the per-neuron baseline, in candle:
//! λ = softplus(z C + b) + 1e-5 Hz (C has no bias) and the Poisson negative log-likelihood
//! Σ_n [λΔt − y log(λΔt) + log y!], averaged over valid bins.
//!
//! Shapes: rows are (trial, bin) pairs flattened: z `[rows, D]`, b and y `[rows, N]`,
//! the validity mask `[rows]` (1 valid, 0 padding).

use candle_core::{D, Tensor};

use benchtop_compute::ComputeError;

use crate::synthetic::RATE_FLOOR_HZ;

/// softplus(x) = max(x, 0) + ln(1 + e^{−|x|}), elementwise and without overflow.
pub fn softplus(x: &Tensor) -> Result<Tensor, ComputeError> {
    let tail = x.abs()?.neg()?.exp()?.affine(1.0, 1.0)?.log()?;
    Ok(x.relu()?.add(&tail)?)
}

/// Rates λ = softplus(z C + b) + 1e-5 Hz, `[rows, N]`, for latents `[rows, D]`, readout C
/// `[D, N]` (Hz per latent unit) and baseline b `[rows, N]`.
pub fn rates_hz(z: &Tensor, readout: &Tensor, baseline: &Tensor) -> Result<Tensor, ComputeError> {
    let drive = z.matmul(readout)?.add(baseline)?;
    Ok(softplus(&drive)?.affine(1.0, RATE_FLOOR_HZ)?)
}

/// ln(y!) of each count (counts are non-negative integers stored as f32).
pub fn log_factorials(counts: &[f32]) -> Vec<f32> {
    let mut table: Vec<f64> = vec![0.0];
    counts
        .iter()
        .map(|&y| {
            let k = y.max(0.0).round() as usize;
            while table.len() <= k {
                let next = table[table.len() - 1] + (table.len() as f64).ln();
                table.push(next);
            }

            table[k] as f32
        })
        .collect()
}

/// The Poisson negative log-likelihood Σ_n [λΔt − y ln(λΔt) + ln y!] summed over neurons and
/// averaged over the valid rows (a scalar tensor). `log_factorial` is [`log_factorials`] of the
/// counts, same shape.
pub fn poisson_nll(
    rates_hz: &Tensor,
    counts: &Tensor,
    log_factorial: &Tensor,
    mask: &Tensor,
    bin_s: f64,
) -> Result<Tensor, ComputeError> {
    let mean = rates_hz.affine(bin_s, 0.0)?;
    let per_bin = mean
        .sub(&counts.mul(&mean.log()?)?)?
        .add(log_factorial)?
        .sum(D::Minus1)?;
    let valid = mask.sum_all()?;
    let total = per_bin.mul(mask)?.sum_all()?;
    Ok(total.div(&valid.maximum(1.0)?)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use benchtop_compute::rng::seeded;
    use candle_core::Device;
    use rand_distr::{Distribution as _, Poisson};

    #[test]
    fn softplus_matches_the_scalar_formula() {
        let xs = [-50.0f32, -3.0, 0.0, 0.7, 40.0];
        let t = Tensor::new(&xs, &Device::Cpu).unwrap();
        let got: Vec<f32> = softplus(&t).unwrap().to_vec1().unwrap();
        for (x, y) in xs.iter().zip(got) {
            let expected = crate::softplus::softplus(f64::from(*x));
            assert!(
                (f64::from(y) - expected).abs() < 1e-5 * (1.0 + expected),
                "{x}"
            );
        }
    }

    #[test]
    fn log_factorials_are_exact_for_small_counts() {
        let got = log_factorials(&[0.0, 1.0, 2.0, 5.0, 3.0]);
        let expected = [0.0f32, 0.0, 2f32.ln(), 120f32.ln(), 6f32.ln()];
        for (g, e) in got.iter().zip(expected) {
            assert!((g - e).abs() < 1e-5);
        }
    }

    /// Poisson counts for fixed rates, with the NLL at the true rates and at scaled ones.
    #[test]
    fn nll_is_lowest_at_the_true_rates() {
        let (rows, neurons, bin_s) = (4000, 3, 0.01);
        let true_hz = [5.0f32, 20.0, 60.0];
        let mut rng = seeded(4);
        let mut counts = Vec::with_capacity(rows * neurons);
        for _ in 0..rows {
            for hz in true_hz {
                let draw: f64 = Poisson::new(f64::from(hz) * bin_s)
                    .unwrap()
                    .sample(&mut rng);
                counts.push(draw as f32);
            }
        }
        let dev = Device::Cpu;
        let log_fact = Tensor::from_vec(log_factorials(&counts), (rows, neurons), &dev).unwrap();
        let counts_t = Tensor::from_vec(counts.clone(), (rows, neurons), &dev).unwrap();
        let mask = Tensor::ones(rows, candle_core::DType::F32, &dev).unwrap();
        let nll_at = |scale: [f32; 3]| -> f32 {
            let rates: Vec<f32> = (0..rows)
                .flat_map(|_| (0..3).map(|n| true_hz[n] * scale[n]))
                .collect();
            let rates = Tensor::from_vec(rates, (rows, neurons), &dev).unwrap();
            poisson_nll(&rates, &counts_t, &log_fact, &mask, bin_s)
                .unwrap()
                .to_scalar()
                .unwrap()
        };
        let at_truth = nll_at([1.0; 3]);
        for scale in [
            [1.3, 1.0, 1.0],
            [1.0, 0.7, 1.0],
            [1.0, 1.0, 1.2],
            [0.8, 1.2, 0.9],
        ] {
            assert!(nll_at(scale) > at_truth, "{scale:?}");
        }
        // The value itself: the direct sum in f64.
        let mut direct = 0.0;
        for row in 0..rows {
            for n in 0..3 {
                let y = f64::from(counts[row * 3 + n]);
                let m = f64::from(true_hz[n]) * bin_s;
                let ln_fact: f64 = (1..=(y as u32)).map(|k| f64::from(k).ln()).sum();
                direct += m - y * m.ln() + ln_fact;
            }
        }
        direct /= rows as f64;
        assert!(
            (f64::from(at_truth) - direct).abs() < 1e-4 * direct,
            "{at_truth} vs {direct}"
        );
    }

    #[test]
    fn masked_rows_do_not_count_and_rates_add_the_floor() {
        let dev = Device::Cpu;
        let z = Tensor::new(&[[1.0f32, 0.0], [0.0, -2.0]], &dev).unwrap();
        let readout = Tensor::new(&[[2.0f32], [1.0]], &dev).unwrap();
        let baseline = Tensor::new(&[[0.5f32], [-30.0]], &dev).unwrap();
        let rates: Vec<Vec<f32>> = rates_hz(&z, &readout, &baseline)
            .unwrap()
            .to_vec2()
            .unwrap();
        let expected0 = crate::softplus::softplus(2.5) + RATE_FLOOR_HZ;
        assert!((f64::from(rates[0][0]) - expected0).abs() < 1e-5);
        assert!(rates[1][0] > 0.0 && f64::from(rates[1][0]) < 2.0 * RATE_FLOOR_HZ);
        let rates_t = rates_hz(&z, &readout, &baseline).unwrap();
        let counts = Tensor::new(&[[1.0f32], [7.0]], &dev).unwrap();
        let log_fact = Tensor::from_vec(log_factorials(&[1.0, 7.0]), (2, 1), &dev).unwrap();
        let only_first = Tensor::new(&[1.0f32, 0.0], &dev).unwrap();
        let nll: f32 = poisson_nll(&rates_t, &counts, &log_fact, &only_first, 0.01)
            .unwrap()
            .to_scalar()
            .unwrap();
        let m = f64::from(rates[0][0]) * 0.01;
        assert!((f64::from(nll) - (m - m.ln())).abs() < 1e-4);
    }
}
