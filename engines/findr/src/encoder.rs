//! The bidirectional GRU encoder of FINDR's posterior, in candle.
//!
//! Each direction is a GRU cell with separate input kernels for spikes and for click inputs:
//! r = σ(y W_ry + u W_ru + h W_rh + b_r), k = σ(y W_ky + u W_ku + h W_kh + b_k),
//! n = tanh(y W_ny + u W_nu + r ⊙ (h W_nh + b_n)), h' = (1 − k) ⊙ n + k ⊙ h, from h = 0.
//! The backward direction runs over each trial's valid bins in reverse, so padding never
//! reaches it: it runs from the last padded bin down, and its state is zeroed in every bin past a
//! trial's length, so each trial's backward pass starts from h = 0 at its own last bin. Output
//! e_t = [→h_t, ←h_t] per bin.
//!
//! The sequence is processed bin by bin from constant slices of the data, never by slicing a
//! tracked `[B, T, …]` tensor: the gradient of each such slice is a zero-padded copy of the whole
//! tensor, which would make the backward pass quadratic in T.
//!
//! Input kernels use variance scaling 1 (fan-in, truncated normal), recurrent kernels are
//! orthogonal, biases N(0, (1e-3)²).

use candle_core::{D, Device, Tensor, Var};
use serde::{Deserialize, Serialize};

use benchtop_compute::ComputeError;
use benchtop_compute::rng::{derive_seed, seeded};

use crate::init::{bias, kernel, orthogonal};

/// Sizes of the encoder.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EncoderConfig {
    /// Neurons N (spike input width).
    pub n_neurons: usize,
    /// Click input width U.
    pub input_dim: usize,
    /// Hidden units E per direction.
    pub hidden: usize,
}

impl Default for EncoderConfig {
    fn default() -> Self {
        Self {
            n_neurons: 50,
            input_dim: 2,
            hidden: 50,
        }
    }
}

impl EncoderConfig {
    /// Checks every parameter; errors name the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(1..=100_000).contains(&self.n_neurons) {
            return Err(ComputeError::invalid("n_neurons", "choose 1 to 100000"));
        }
        if self.input_dim > 64 {
            return Err(ComputeError::invalid("input_dim", "choose 0 to 64"));
        }
        if !(1..=4096).contains(&self.hidden) {
            return Err(ComputeError::invalid("encoder_hidden", "choose 1 to 4096"));
        }
        Ok(())
    }
}

/// One GRU direction. Gate blocks are stacked along the output axis in the order r, k, n.
#[derive(Clone, Debug)]
pub struct GruCell {
    /// Spike kernel `[N, 3E]`.
    pub spike_kernel: Var,
    /// Click-input kernel `[U, 3E]`.
    pub input_kernel: Var,
    /// Recurrent kernels `[E, E]` for r, k and n.
    pub recurrent: [Var; 3],
    /// Biases `[E]` for r, k and n (the n bias sits inside the reset product).
    pub biases: [Var; 3],
    hidden: usize,
}

impl GruCell {
    /// A freshly initialised cell, seeded.
    pub fn new(config: &EncoderConfig, seed: u64, device: &Device) -> Result<Self, ComputeError> {
        config.validate()?;
        let (n, u, e) = (config.n_neurons, config.input_dim, config.hidden);
        let mut rng = seeded(seed);
        Ok(Self {
            spike_kernel: kernel(&mut rng, n, 3 * e, 1.0, device)?,
            input_kernel: kernel(&mut rng, u, 3 * e, 1.0, device)?,
            recurrent: [
                orthogonal(&mut rng, e, device)?,
                orthogonal(&mut rng, e, device)?,
                orthogonal(&mut rng, e, device)?,
            ],
            biases: [
                bias(&mut rng, e, device)?,
                bias(&mut rng, e, device)?,
                bias(&mut rng, e, device)?,
            ],
            hidden: e,
        })
    }

    /// Every trainable parameter.
    pub fn vars(&self) -> Vec<Var> {
        let mut vars = vec![self.spike_kernel.clone(), self.input_kernel.clone()];
        vars.extend(self.recurrent.iter().cloned());
        vars.extend(self.biases.iter().cloned());
        vars
    }

    /// The spike and input kernels stacked `[N + U, 3E]`, for rows of [spikes, inputs].
    fn input_kernels(&self) -> Result<Tensor, ComputeError> {
        Ok(Tensor::cat(
            &[self.spike_kernel.as_tensor(), self.input_kernel.as_tensor()],
            0,
        )?)
    }

    /// The recurrent kernels side by side `[E, 3E]` and the biases `[3E]`, in the order r, k, n.
    fn fused(&self) -> Result<(Tensor, Tensor), ComputeError> {
        let kernels: Vec<&Tensor> = self.recurrent.iter().map(Var::as_tensor).collect();
        let biases: Vec<&Tensor> = self.biases.iter().map(Var::as_tensor).collect();
        Ok((Tensor::cat(&kernels, 1)?, Tensor::cat(&biases, 0)?))
    }

    /// One step from `h` `[B, E]` given the projected input `x` `[B, 3E]`.
    pub fn step(&self, h: &Tensor, x: &Tensor) -> Result<Tensor, ComputeError> {
        let (kernel, bias) = self.fused()?;
        self.fused_step(h, x, &kernel, &bias)
    }

    /// One step with the fused recurrent kernel and bias (one matrix product for all gates).
    fn fused_step(
        &self,
        h: &Tensor,
        x: &Tensor,
        kernel: &Tensor,
        bias: &Tensor,
    ) -> Result<Tensor, ComputeError> {
        let e = self.hidden;
        let recurrent = h.matmul(kernel)?.broadcast_add(bias)?;
        let gates = candle_nn::ops::sigmoid(&x.narrow(1, 0, 2 * e)?.add(&recurrent.narrow(
            1,
            0,
            2 * e,
        )?)?)?;
        let reset = gates.narrow(1, 0, e)?;
        let keep = gates.narrow(1, e, e)?;
        let candidate = x
            .narrow(1, 2 * e, e)?
            .add(&reset.mul(&recurrent.narrow(1, 2 * e, e)?)?)?
            .tanh()?;
        // h' = (1 − k) ⊙ n + k ⊙ h = n + k ⊙ (h − n).
        Ok(candidate.add(&keep.mul(&h.sub(&candidate)?)?)?)
    }

    /// Runs over `bins` (bin indices in processing order) of the data `x` `[B, T, N + U]` from
    /// h = 0, zeroing the state where `mask` (per bin, `[B, 1]`) is given; returns the state
    /// after each processed bin, in processing order.
    fn run(
        &self,
        x: &Tensor,
        bins: impl Iterator<Item = usize>,
        masks: &[Option<Tensor>],
    ) -> Result<Vec<Tensor>, ComputeError> {
        let (b, t, _) = x.dims3()?;
        let input_kernel = self.input_kernels()?;
        let (kernel, bias) = self.fused()?;
        let mut h = Tensor::zeros((b, self.hidden), x.dtype(), x.device())?;
        let mut states = Vec::with_capacity(t);
        for bin in bins {
            let projected = x.narrow(1, bin, 1)?.squeeze(1)?.matmul(&input_kernel)?;
            h = self.fused_step(&h, &projected, &kernel, &bias)?;
            if let Some(mask) = &masks[bin] {
                h = h.broadcast_mul(mask)?;
            }
            states.push(h.clone());
        }
        Ok(states)
    }
}

/// The bidirectional encoder.
#[derive(Clone, Debug)]
pub struct Encoder {
    /// The forward direction.
    pub forward: GruCell,
    /// The backward direction.
    pub backward: GruCell,
}

impl Encoder {
    /// A freshly initialised encoder, seeded.
    pub fn new(config: &EncoderConfig, seed: u64, device: &Device) -> Result<Self, ComputeError> {
        Ok(Self {
            forward: GruCell::new(config, derive_seed(seed, 0), device)?,
            backward: GruCell::new(config, derive_seed(seed, 1), device)?,
        })
    }

    /// Every trainable parameter.
    pub fn vars(&self) -> Vec<Var> {
        let mut vars = self.forward.vars();
        vars.extend(self.backward.vars());
        vars
    }

    /// Encodes spikes `[B, T, N]` and inputs `[B, T, U]` with valid `lengths` into one
    /// e_t = [→h_t, ←h_t] `[B, 2E]` per bin.
    pub fn encode_bins(
        &self,
        spikes: &Tensor,
        inputs: &Tensor,
        lengths: &[usize],
    ) -> Result<Vec<Tensor>, ComputeError> {
        let (b, t, _) = spikes.dims3()?;
        if lengths.len() != b || lengths.iter().any(|&l| l > t) {
            return Err(ComputeError::invalid(
                "lengths",
                format!("expected {b} lengths of at most {t} bins"),
            ));
        }
        let x = Tensor::cat(&[spikes, inputs], 2)?.detach();
        let forward = self.forward.run(&x, 0..t, &vec![None; t])?;
        // Bins at or past some trial's length get a mask that zeroes those trials' state.
        let masks = (0..t)
            .map(|bin| {
                if lengths.iter().all(|&l| bin < l) {
                    return Ok(None);
                }
                let keep: Vec<f32> = lengths
                    .iter()
                    .map(|&l| f32::from(u8::from(bin < l)))
                    .collect();
                Ok(Some(Tensor::from_vec(keep, (b, 1), spikes.device())?))
            })
            .collect::<Result<Vec<_>, ComputeError>>()?;
        let mut backward = self.backward.run(&x, (0..t).rev(), &masks)?;
        backward.reverse();
        forward
            .iter()
            .zip(&backward)
            .map(|(f, r)| Ok(Tensor::cat(&[f, r], D::Minus1)?))
            .collect()
    }

    /// [`Self::encode_bins`] stacked into e `[B, T, 2E]`.
    pub fn encode(
        &self,
        spikes: &Tensor,
        inputs: &Tensor,
        lengths: &[usize],
    ) -> Result<Tensor, ComputeError> {
        Ok(Tensor::stack(
            &self.encode_bins(spikes, inputs, lengths)?,
            1,
        )?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::init::standard_normal;
    use benchtop_compute::rng::seeded;

    fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    fn small() -> EncoderConfig {
        EncoderConfig {
            n_neurons: 4,
            input_dim: 2,
            hidden: 3,
        }
    }

    #[test]
    fn gru_step_matches_the_equations() {
        let cell = GruCell::new(&small(), 5, &Device::Cpu).unwrap();
        let mut rng = seeded(1);
        let h = standard_normal(&mut rng, 2, 3, &Device::Cpu).unwrap();
        let x = standard_normal(&mut rng, 2, 9, &Device::Cpu).unwrap();
        let got: Vec<Vec<f32>> = cell.step(&h, &x).unwrap().to_vec2().unwrap();
        let hv: Vec<Vec<f32>> = h.to_vec2().unwrap();
        let xv: Vec<Vec<f32>> = x.to_vec2().unwrap();
        let w: Vec<Vec<Vec<f32>>> = cell
            .recurrent
            .iter()
            .map(|v| v.as_tensor().to_vec2().unwrap())
            .collect();
        let bias: Vec<Vec<f32>> = cell
            .biases
            .iter()
            .map(|v| v.as_tensor().to_vec1().unwrap())
            .collect();
        for b in 0..2 {
            let rec = |k: usize, j: usize| -> f64 {
                (0..3)
                    .map(|i| f64::from(hv[b][i]) * f64::from(w[k][i][j]))
                    .sum::<f64>()
                    + f64::from(bias[k][j])
            };
            for j in 0..3 {
                let r = sigmoid(f64::from(xv[b][j]) + rec(0, j));
                let k = sigmoid(f64::from(xv[b][3 + j]) + rec(1, j));
                let n = (f64::from(xv[b][6 + j]) + r * rec(2, j)).tanh();
                let expected = (1.0 - k) * n + k * f64::from(hv[b][j]);
                assert!((f64::from(got[b][j]) - expected).abs() < 1e-5, "[{b}][{j}]");
            }
        }
    }

    #[test]
    fn directions_see_the_past_and_the_future_and_never_padding() {
        let (b, t, n) = (2, 6, 4);
        let lengths = [6, 4];
        let encoder = Encoder::new(&small(), 8, &Device::Cpu).unwrap();
        let mut rng = seeded(3);
        let spikes = standard_normal(&mut rng, b * t, n, &Device::Cpu)
            .unwrap()
            .reshape((b, t, n))
            .unwrap();
        let inputs = Tensor::zeros((b, t, 2), candle_core::DType::F32, &Device::Cpu).unwrap();
        let base: Vec<Vec<Vec<f32>>> = encoder
            .encode(&spikes, &inputs, &lengths)
            .unwrap()
            .to_vec3()
            .unwrap();
        assert_eq!((base.len(), base[0].len(), base[0][0].len()), (2, 6, 6));
        // Change bin 3 of trial 0 and the padding (bins 4, 5) of trial 1.
        let mut values: Vec<f32> = spikes.flatten_all().unwrap().to_vec1().unwrap();
        for k in 0..n {
            values[3 * n + k] += 1.0;
            values[(t + 4) * n + k] += 5.0;
            values[(t + 5) * n + k] -= 5.0;
        }
        let changed = Tensor::from_vec(values, (b, t, n), &Device::Cpu).unwrap();
        let after: Vec<Vec<Vec<f32>>> = encoder
            .encode(&changed, &inputs, &lengths)
            .unwrap()
            .to_vec3()
            .unwrap();
        for step in 0..t {
            let (fwd_same, bwd_same) = (
                base[0][step][..3] == after[0][step][..3],
                base[0][step][3..] == after[0][step][3..],
            );
            // Forward states change from bin 3 on, backward states up to bin 3.
            assert_eq!(fwd_same, step < 3, "forward at {step}");
            assert_eq!(bwd_same, step > 3, "backward at {step}");
        }
        for step in 0..4 {
            assert_eq!(base[1][step], after[1][step], "trial 1 valid bin {step}");
        }
    }
}
