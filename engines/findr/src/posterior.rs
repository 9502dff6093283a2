//! The posterior SDE cell of FINDR, in candle: the prior's gated form with the encoder output
//! e_t as an extra input.
//!
//! g = sigmoid(z G_z + e G_e + u G_u + c_g), a = silu(z W_z + e W_e + u W_u + c),
//! μ_φ = g ⊙ (−z + tanh(a W_o + c_o)), and z' = z + α μ_φ + √α σ ⊙ ε with the prior's σ.
//! State kernels use variance scale 1.414 and carry the biases; the e and u kernels use scale 1
//! and no bias.

use candle_core::{Device, Tensor, Var};

use benchtop_compute::ComputeError;
use benchtop_compute::rng::seeded;

use crate::gnsde::{DriveKernels, GnsdeConfig, INPUT_KERNEL_SCALE, STATE_KERNEL_SCALE};
use crate::init::{bias, kernel};

/// The posterior drift's parameters.
#[derive(Clone, Debug)]
pub struct PosteriorCell {
    /// Gate kernels on z `[D, D]`, e `[C, D]`, u `[U, D]`.
    pub gate: [Var; 3],
    /// Gate bias `[D]`.
    pub gate_bias: Var,
    /// Hidden kernels on z `[D, H]`, e `[C, H]`, u `[U, H]`.
    pub hidden: [Var; 3],
    /// Hidden bias `[H]`.
    pub hidden_bias: Var,
    /// Output kernel `[H, D]`.
    pub output: Var,
    /// Output bias `[D]`.
    pub output_bias: Var,
    alpha: f64,
}

impl PosteriorCell {
    /// A freshly initialised cell for the prior's `config` and encoder output width
    /// `context_dim` (2E), seeded.
    pub fn new(
        config: &GnsdeConfig,
        context_dim: usize,
        seed: u64,
        device: &Device,
    ) -> Result<Self, ComputeError> {
        config.validate()?;
        if context_dim == 0 {
            return Err(ComputeError::invalid(
                "encoder_hidden",
                "the encoder output must have at least one unit",
            ));
        }
        let (d, c, u, h) = (
            config.latent_dim,
            context_dim,
            config.input_dim,
            config.flow_width,
        );
        let mut rng = seeded(seed);
        Ok(Self {
            gate: [
                kernel(&mut rng, d, d, STATE_KERNEL_SCALE, device)?,
                kernel(&mut rng, c, d, INPUT_KERNEL_SCALE, device)?,
                kernel(&mut rng, u, d, INPUT_KERNEL_SCALE, device)?,
            ],
            gate_bias: bias(&mut rng, d, device)?,
            hidden: [
                kernel(&mut rng, d, h, STATE_KERNEL_SCALE, device)?,
                kernel(&mut rng, c, h, INPUT_KERNEL_SCALE, device)?,
                kernel(&mut rng, u, h, INPUT_KERNEL_SCALE, device)?,
            ],
            hidden_bias: bias(&mut rng, h, device)?,
            output: kernel(&mut rng, h, d, STATE_KERNEL_SCALE, device)?,
            output_bias: bias(&mut rng, d, device)?,
            alpha: config.alpha,
        })
    }

    /// Every trainable parameter.
    pub fn vars(&self) -> Vec<Var> {
        let mut vars: Vec<Var> = self.gate.to_vec();
        vars.push(self.gate_bias.clone());
        vars.extend(self.hidden.iter().cloned());
        vars.push(self.hidden_bias.clone());
        vars.push(self.output.clone());
        vars.push(self.output_bias.clone());
        vars
    }

    /// The posterior drift μ_φ(z, e, u) `[batch, D]`, units of 1/τ.
    pub fn drift(&self, z: &Tensor, e: &Tensor, u: &Tensor) -> Result<Tensor, ComputeError> {
        self.drift_with(&self.kernels()?, z, e, u)
    }

    /// The gate and hidden kernels side by side (inputs: e, then u), built once per sequence.
    pub fn kernels(&self) -> Result<DriveKernels, ComputeError> {
        DriveKernels::new(
            (&self.gate[0], &self.hidden[0]),
            &[
                (&self.gate[1], &self.hidden[1]),
                (&self.gate[2], &self.hidden[2]),
            ],
            (&self.gate_bias, &self.hidden_bias),
        )
    }

    /// The drift with kernels from [`Self::kernels`].
    pub fn drift_with(
        &self,
        kernels: &DriveKernels,
        z: &Tensor,
        e: &Tensor,
        u: &Tensor,
    ) -> Result<Tensor, ComputeError> {
        kernels.drift(
            z,
            &[e, u],
            self.output.as_tensor(),
            self.output_bias.as_tensor(),
        )
    }

    /// One reparameterised step with kernels from [`Self::kernels`]; returns (drift, next state).
    pub fn step_with(
        &self,
        kernels: &DriveKernels,
        z: &Tensor,
        e: &Tensor,
        u: &Tensor,
        sigma: &Tensor,
        noise: &Tensor,
    ) -> Result<(Tensor, Tensor), ComputeError> {
        let drift = self.drift_with(kernels, z, e, u)?;
        let next = z
            .add(&drift.affine(self.alpha, 0.0)?)?
            .add(&noise.broadcast_mul(sigma)?.affine(self.alpha.sqrt(), 0.0)?)?;
        Ok((drift, next))
    }

    /// One reparameterised step z + α μ_φ + √α σ ⊙ ε; returns (drift, next state).
    pub fn step(
        &self,
        z: &Tensor,
        e: &Tensor,
        u: &Tensor,
        sigma: &Tensor,
        noise: &Tensor,
    ) -> Result<(Tensor, Tensor), ComputeError> {
        self.step_with(&self.kernels()?, z, e, u, sigma, noise)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::init::standard_normal;
    use benchtop_compute::rng::seeded;

    fn rows(t: &Tensor) -> Vec<Vec<f64>> {
        t.to_dtype(candle_core::DType::F64)
            .unwrap()
            .to_vec2()
            .unwrap()
    }

    fn vector(v: &Var) -> Vec<f64> {
        v.as_tensor()
            .to_dtype(candle_core::DType::F64)
            .unwrap()
            .to_vec1()
            .unwrap()
    }

    #[test]
    fn drift_and_step_follow_the_gated_form() {
        let config = GnsdeConfig {
            flow_width: 5,
            ..GnsdeConfig::default()
        };
        let cell = PosteriorCell::new(&config, 4, 6, &Device::Cpu).unwrap();
        let mut rng = seeded(9);
        let z = standard_normal(&mut rng, 3, 2, &Device::Cpu).unwrap();
        let e = standard_normal(&mut rng, 3, 4, &Device::Cpu).unwrap();
        let u = standard_normal(&mut rng, 3, 2, &Device::Cpu).unwrap();
        let noise = standard_normal(&mut rng, 3, 2, &Device::Cpu).unwrap();
        let sigma = Tensor::new(&[0.5f32, 0.25], &Device::Cpu).unwrap();
        let (drift, next) = cell.step(&z, &e, &u, &sigma, &noise).unwrap();
        let (zv, ev, uv, nv) = (rows(&z), rows(&e), rows(&u), rows(&noise));
        let g: Vec<Vec<Vec<f64>>> = cell.gate.iter().map(|v| rows(v.as_tensor())).collect();
        let w: Vec<Vec<Vec<f64>>> = cell.hidden.iter().map(|v| rows(v.as_tensor())).collect();
        let (gb, hb) = (vector(&cell.gate_bias), vector(&cell.hidden_bias));
        let (wo, ob) = (rows(cell.output.as_tensor()), vector(&cell.output_bias));
        let (drift, next) = (rows(&drift), rows(&next));
        let lin = |k: &[Vec<Vec<f64>>], bias: &[f64], b: usize, j: usize| -> f64 {
            let inputs = [&zv[b], &ev[b], &uv[b]];
            inputs
                .iter()
                .zip(k)
                .map(|(x, m)| x.iter().zip(m).map(|(xi, row)| xi * row[j]).sum::<f64>())
                .sum::<f64>()
                + bias[j]
        };
        for b in 0..3 {
            let hidden: Vec<f64> = (0..5)
                .map(|j| {
                    let a = lin(&w, &hb, b, j);
                    a / (1.0 + (-a).exp())
                })
                .collect();
            for d in 0..2 {
                let gate = 1.0 / (1.0 + (-lin(&g, &gb, b, d)).exp());
                let target = ((0..5).map(|j| hidden[j] * wo[j][d]).sum::<f64>() + ob[d]).tanh();
                let expected = gate * (target - zv[b][d]);
                assert!((drift[b][d] - expected).abs() < 1e-5, "drift [{b}][{d}]");
                let s = [0.5, 0.25][d];
                let step = zv[b][d] + 0.1 * expected + 0.1f64.sqrt() * s * nv[b][d];
                assert!((next[b][d] - step).abs() < 1e-5, "next [{b}][{d}]");
            }
        }
        assert_eq!(cell.vars().len(), 10);
    }
}
