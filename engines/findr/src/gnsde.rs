//! The gated neural SDE (gnSDE) prior of FINDR, in candle.
//!
//! Drift: g = sigmoid(z U_z + u U_u + c_g), a = silu(z W_z + u W_u + c),
//! F(z, u) = g ⊙ (−z + tanh(a W_o + c_o)), in units of 1/τ.
//! Euler–Maruyama with α = Δt/τ: z' = z + α F(z, u) + √α σ ⊙ ε, σ = noise_level · sigmoid(ℓ).
//!
//! Two one-step transitions from the same z that share the covariance ασ² differ only in their
//! drifts, and their KL divergence is (α/2) Σ_d (μ_θ,d − μ_φ,d)²/σ_d² ([`transition_kl`]).
//!
//! Shapes: z `[batch, D]`, u `[batch, U]`; tensors are f32.

use candle_core::{D, Device, Tensor, Var};
use serde::{Deserialize, Serialize};

use benchtop_compute::ComputeError;
use benchtop_compute::rng::{derive_seed, seeded};

use crate::init::{bias, kernel};

/// Variance scale of the kernels acting on the latent state.
pub const STATE_KERNEL_SCALE: f64 = 1.414;
/// Variance scale of the kernels acting on the inputs.
pub const INPUT_KERNEL_SCALE: f64 = 1.0;

/// Sizes and constants of the gnSDE prior.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GnsdeConfig {
    /// Latent dimension D.
    pub latent_dim: usize,
    /// Input dimension U (2 for left and right clicks).
    pub input_dim: usize,
    /// Width H of the flow's hidden layer.
    pub flow_width: usize,
    /// α = Δt/τ.
    pub alpha: f64,
    /// The scale of σ = noise_level · sigmoid(ℓ).
    pub noise_level: f64,
}

impl Default for GnsdeConfig {
    fn default() -> Self {
        Self {
            latent_dim: 2,
            input_dim: 2,
            flow_width: 30,
            alpha: 0.1,
            noise_level: 1.0,
        }
    }
}

impl GnsdeConfig {
    /// Checks every parameter; errors name the key.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(1..=64).contains(&self.latent_dim) {
            return Err(ComputeError::invalid("latent_dim", "choose 1 to 64"));
        }
        if self.input_dim > 64 {
            return Err(ComputeError::invalid("input_dim", "choose 0 to 64"));
        }
        if !(1..=4096).contains(&self.flow_width) {
            return Err(ComputeError::invalid("flow_width", "choose 1 to 4096"));
        }
        if !(self.alpha.is_finite() && self.alpha > 0.0 && self.alpha <= 1.0) {
            return Err(ComputeError::invalid("alpha", "choose α = Δt/τ in (0, 1]"));
        }
        if !(self.noise_level.is_finite() && self.noise_level > 0.0) {
            return Err(ComputeError::invalid("noise_level", "must be positive"));
        }
        Ok(())
    }
}

/// The gated flow F(z, u) with its parameters.
#[derive(Clone, Debug)]
pub struct GatedFlow {
    /// Gate kernel on the state, U_z `[D, D]`.
    pub gate_state: Var,
    /// Gate kernel on the input, U_u `[U, D]`.
    pub gate_input: Var,
    /// Gate bias c_g `[D]`.
    pub gate_bias: Var,
    /// Hidden kernel on the state, W_z `[D, H]`.
    pub hidden_state: Var,
    /// Hidden kernel on the input, W_u `[U, H]`.
    pub hidden_input: Var,
    /// Hidden bias c `[H]`.
    pub hidden_bias: Var,
    /// Output kernel W_o `[H, D]`.
    pub output: Var,
    /// Output bias c_o `[D]`.
    pub output_bias: Var,
}

impl GatedFlow {
    /// A freshly initialised flow for `config`, seeded.
    pub fn new(config: &GnsdeConfig, seed: u64, device: &Device) -> Result<Self, ComputeError> {
        config.validate()?;
        let (d, u, h) = (config.latent_dim, config.input_dim, config.flow_width);
        let mut rng = seeded(seed);
        Ok(Self {
            gate_state: kernel(&mut rng, d, d, STATE_KERNEL_SCALE, device)?,
            gate_input: kernel(&mut rng, u, d, INPUT_KERNEL_SCALE, device)?,
            gate_bias: bias(&mut rng, d, device)?,
            hidden_state: kernel(&mut rng, d, h, STATE_KERNEL_SCALE, device)?,
            hidden_input: kernel(&mut rng, u, h, INPUT_KERNEL_SCALE, device)?,
            hidden_bias: bias(&mut rng, h, device)?,
            output: kernel(&mut rng, h, d, STATE_KERNEL_SCALE, device)?,
            output_bias: bias(&mut rng, d, device)?,
        })
    }

    /// Every trainable parameter.
    pub fn vars(&self) -> Vec<Var> {
        vec![
            self.gate_state.clone(),
            self.gate_input.clone(),
            self.gate_bias.clone(),
            self.hidden_state.clone(),
            self.hidden_input.clone(),
            self.hidden_bias.clone(),
            self.output.clone(),
            self.output_bias.clone(),
        ]
    }

    /// The gate g(z, u) `[batch, D]`.
    pub fn gate(&self, z: &Tensor, u: &Tensor) -> Result<Tensor, ComputeError> {
        let pre = z
            .matmul(self.gate_state.as_tensor())?
            .add(&u.matmul(self.gate_input.as_tensor())?)?
            .broadcast_add(self.gate_bias.as_tensor())?;
        Ok(candle_nn::ops::sigmoid(&pre)?)
    }

    /// The drift F(z, u) `[batch, D]`, units of 1/τ.
    pub fn drift(&self, z: &Tensor, u: &Tensor) -> Result<Tensor, ComputeError> {
        self.kernels()?.drift(
            z,
            &[u],
            self.output.as_tensor(),
            self.output_bias.as_tensor(),
        )
    }

    /// The gate and hidden kernels side by side, built once per sequence.
    pub fn kernels(&self) -> Result<DriveKernels, ComputeError> {
        DriveKernels::new(
            (&self.gate_state, &self.hidden_state),
            &[(&self.gate_input, &self.hidden_input)],
            (&self.gate_bias, &self.hidden_bias),
        )
    }
}

/// The gate and hidden layer's kernels side by side (columns: D gate units, then H hidden
/// units): on the state z, on each extra input (the click input, the encoder output), and the
/// biases. One matrix product per input covers both layers.
#[derive(Clone, Debug)]
pub struct DriveKernels {
    /// On the state, `[D, D + H]`.
    pub state: Tensor,
    /// On each extra input, `[width, D + H]`, in the order the drift receives the inputs.
    pub inputs: Vec<Tensor>,
    /// Biases `[D + H]`.
    pub bias: Tensor,
}

impl DriveKernels {
    /// Joins (gate, hidden) kernel pairs.
    pub fn new(
        state: (&Var, &Var),
        inputs: &[(&Var, &Var)],
        bias: (&Var, &Var),
    ) -> Result<Self, ComputeError> {
        let join =
            |(g, h): (&Var, &Var), dim: usize| Tensor::cat(&[g.as_tensor(), h.as_tensor()], dim);
        Ok(Self {
            state: join(state, 1)?,
            inputs: inputs
                .iter()
                .map(|&pair| join(pair, 1))
                .collect::<Result<_, _>>()?,
            bias: join(bias, 0)?,
        })
    }

    /// The gated drift at z `[B, D]` with the extra inputs `[B, width]` (as many as kernels).
    pub fn drift(
        &self,
        z: &Tensor,
        inputs: &[&Tensor],
        output: &Tensor,
        output_bias: &Tensor,
    ) -> Result<Tensor, ComputeError> {
        let mut drive = z.matmul(&self.state)?.broadcast_add(&self.bias)?;
        for (x, kernel) in inputs.iter().zip(&self.inputs) {
            drive = drive.add(&x.matmul(kernel)?)?;
        }
        gated_drift(z, &drive, output, output_bias)
    }
}

/// The gated drift g ⊙ (tanh(silu(a_h) W_o + c_o) − z) from the pre-activations
/// [a_g, a_h] = `pre` and g = sigmoid(a_g): the shared form of the prior and posterior cells.
fn gated_drift(
    z: &Tensor,
    pre: &Tensor,
    output: &Tensor,
    output_bias: &Tensor,
) -> Result<Tensor, ComputeError> {
    let d = z.dim(1)?;
    let width = pre.dim(1)? - d;
    let gate = candle_nn::ops::sigmoid(&pre.narrow(1, 0, d)?)?;
    let target = pre
        .narrow(1, d, width)?
        .silu()?
        .matmul(output)?
        .broadcast_add(output_bias)?
        .tanh()?;
    Ok(gate.mul(&target.sub(z)?)?)
}

/// One step of the prior: the drift and the mean of the next state.
#[derive(Clone, Debug)]
pub struct PriorStep {
    /// The drift F(z, u), `[batch, D]`.
    pub drift: Tensor,
    /// The mean z + αF of the next state, `[batch, D]`.
    pub mean: Tensor,
}

/// The gnSDE prior: a gated flow and the learned noise.
#[derive(Clone, Debug)]
pub struct GnsdePrior {
    config: GnsdeConfig,
    flow: GatedFlow,
    /// The noise logit ℓ `[D]`; σ = noise_level · sigmoid(ℓ). Starts at 0.
    pub noise_logit: Var,
}

impl GnsdePrior {
    /// A freshly initialised prior, seeded.
    pub fn new(config: &GnsdeConfig, seed: u64, device: &Device) -> Result<Self, ComputeError> {
        let flow = GatedFlow::new(config, derive_seed(seed, 0), device)?;
        let noise_logit = Var::zeros(config.latent_dim, candle_core::DType::F32, device)?;
        Ok(Self {
            config: config.clone(),
            flow,
            noise_logit,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &GnsdeConfig {
        &self.config
    }

    /// The gated flow.
    pub fn flow(&self) -> &GatedFlow {
        &self.flow
    }

    /// Every trainable parameter (the flow's and ℓ).
    pub fn vars(&self) -> Vec<Var> {
        let mut vars = self.flow.vars();
        vars.push(self.noise_logit.clone());
        vars
    }

    /// σ = noise_level · sigmoid(ℓ), `[D]`.
    pub fn sigma(&self) -> Result<Tensor, ComputeError> {
        Ok(candle_nn::ops::sigmoid(self.noise_logit.as_tensor())?
            .affine(self.config.noise_level, 0.0)?)
    }

    /// The drift and the noiseless Euler–Maruyama mean z + αF(z, u).
    pub fn mean_step(&self, z: &Tensor, u: &Tensor) -> Result<PriorStep, ComputeError> {
        let drift = self.flow.drift(z, u)?;
        let mean = z.add(&drift.affine(self.config.alpha, 0.0)?)?;
        Ok(PriorStep { drift, mean })
    }

    /// One Euler–Maruyama step z + αF(z, u) + √α σ ⊙ ε, with ε `[batch, D]` standard normal.
    pub fn step(&self, z: &Tensor, u: &Tensor, noise: &Tensor) -> Result<Tensor, ComputeError> {
        let mean = self.mean_step(z, u)?.mean;
        let scaled = noise
            .broadcast_mul(&self.sigma()?)?
            .affine(self.config.alpha.sqrt(), 0.0)?;
        Ok(mean.add(&scaled)?)
    }
}

/// KL divergence between two one-step Gaussian transitions from the same state that share the
/// covariance α diag(σ²): (α/2) Σ_d (μ_θ,d − μ_φ,d)²/σ_d², per batch row `[batch]`.
pub fn transition_kl(
    drift_prior: &Tensor,
    drift_posterior: &Tensor,
    sigma: &Tensor,
    alpha: f64,
) -> Result<Tensor, ComputeError> {
    let diff = drift_prior.sub(drift_posterior)?;
    let ratio = diff.broadcast_div(sigma)?.sqr()?;
    Ok(ratio.sum(D::Minus1)?.affine(0.5 * alpha, 0.0)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::init::standard_normal;
    use benchtop_compute::rng::seeded;

    fn cpu() -> Device {
        Device::Cpu
    }

    fn silu(x: f64) -> f64 {
        x / (1.0 + (-x).exp())
    }

    fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    fn matrix(var: &Var) -> Vec<Vec<f64>> {
        var.as_tensor()
            .to_dtype(candle_core::DType::F64)
            .unwrap()
            .to_vec2()
            .unwrap()
    }

    fn vector(var: &Var) -> Vec<f64> {
        var.as_tensor()
            .to_dtype(candle_core::DType::F64)
            .unwrap()
            .to_vec1()
            .unwrap()
    }

    #[test]
    fn drift_is_the_gated_form() {
        let config = GnsdeConfig {
            flow_width: 7,
            ..GnsdeConfig::default()
        };
        let prior = GnsdePrior::new(&config, 3, &cpu()).unwrap();
        let flow = prior.flow();
        let z = Tensor::new(&[[0.3f32, -0.7], [1.2, 0.1]], &cpu()).unwrap();
        let u = Tensor::new(&[[0.0f32, 1.0], [0.5, 0.0]], &cpu()).unwrap();
        let got: Vec<Vec<f32>> = flow.drift(&z, &u).unwrap().to_vec2().unwrap();
        let (uz, uu, cg) = (
            matrix(&flow.gate_state),
            matrix(&flow.gate_input),
            vector(&flow.gate_bias),
        );
        let (wz, wu, c) = (
            matrix(&flow.hidden_state),
            matrix(&flow.hidden_input),
            vector(&flow.hidden_bias),
        );
        let (wo, co) = (matrix(&flow.output), vector(&flow.output_bias));
        let zs = [[0.3, -0.7], [1.2, 0.1]];
        let us = [[0.0, 1.0], [0.5, 0.0]];
        for b in 0..2 {
            let hidden: Vec<f64> = (0..7)
                .map(|h| {
                    silu(
                        (0..2)
                            .map(|i| zs[b][i] * wz[i][h] + us[b][i] * wu[i][h])
                            .sum::<f64>()
                            + c[h],
                    )
                })
                .collect();
            for d in 0..2 {
                let gate = sigmoid(
                    (0..2)
                        .map(|i| zs[b][i] * uz[i][d] + us[b][i] * uu[i][d])
                        .sum::<f64>()
                        + cg[d],
                );
                let target = ((0..7).map(|h| hidden[h] * wo[h][d]).sum::<f64>() + co[d]).tanh();
                let expected = gate * (-zs[b][d] + target);
                assert!(
                    (f64::from(got[b][d]) - expected).abs() < 1e-5,
                    "[{b}][{d}]: {} vs {expected}",
                    got[b][d]
                );
            }
        }
    }

    /// Sets the flow to F = −g z with a constant gate g = sigmoid(gate_bias) and σ = `sigma`.
    fn ou_prior(gate_bias: f32, sigma: f64) -> GnsdePrior {
        let config = GnsdeConfig {
            flow_width: 4,
            ..GnsdeConfig::default()
        };
        let prior = GnsdePrior::new(&config, 9, &cpu()).unwrap();
        let flow = prior.flow();
        for var in [
            &flow.gate_state,
            &flow.gate_input,
            &flow.output,
            &flow.output_bias,
        ] {
            var.set(&var.as_tensor().zeros_like().unwrap()).unwrap();
        }
        flow.gate_bias
            .set(&Tensor::new(&[gate_bias, gate_bias], &cpu()).unwrap())
            .unwrap();
        let logit = (sigma / (1.0 - sigma)).ln() as f32;
        prior
            .noise_logit
            .set(&Tensor::new(&[logit, logit], &cpu()).unwrap())
            .unwrap();
        prior
    }

    /// The sample variance of `chains` chains (both dimensions) at 10 snapshots after burn-in.
    fn stationary_variance(prior: &GnsdePrior, chains: usize) -> f64 {
        let mut rng = seeded(17);
        let mut z = Tensor::zeros((chains, 2), candle_core::DType::F32, &cpu()).unwrap();
        let u = Tensor::zeros((chains, 2), candle_core::DType::F32, &cpu()).unwrap();
        let (mut sum2, mut count) = (0.0, 0.0);
        for step in 1..=400 {
            let noise = standard_normal(&mut rng, chains, 2, &cpu()).unwrap();
            z = prior.step(&z, &u, &noise).unwrap();
            if step > 100 && step % 30 == 0 {
                let values: Vec<f32> = z.flatten_all().unwrap().to_vec1().unwrap();
                sum2 += values.iter().map(|v| f64::from(*v).powi(2)).sum::<f64>();
                count += values.len() as f64;
            }
        }
        sum2 / count
    }

    #[test]
    fn ou_chain_has_the_discrete_stationary_variance() {
        // F = −z (gate saturated at 1): var = σ²/(2 − α).
        let prior = ou_prior(40.0, 0.6);
        let sigma = f64::from(prior.sigma().unwrap().to_vec1::<f32>().unwrap()[0]);
        assert!((sigma - 0.6).abs() < 1e-6);
        let alpha = prior.config().alpha;
        let expected = sigma * sigma / (2.0 - alpha);
        let var = stationary_variance(&prior, 2000);
        assert!((var / expected - 1.0).abs() < 0.04, "{var} vs {expected}");
        // F = −g z with g = 1/2 (gate bias 0): var = σ²/(g(2 − αg)), twice as large and more.
        let prior = ou_prior(0.0, 0.6);
        let g = 0.5;
        let expected_half = sigma * sigma / (g * (2.0 - alpha * g));
        let var_half = stationary_variance(&prior, 2000);
        assert!(
            (var_half / expected_half - 1.0).abs() < 0.04,
            "{var_half} vs {expected_half}"
        );
    }

    #[test]
    fn transition_kl_is_the_closed_form_gaussian_kl() {
        let mut rng = seeded(5);
        let (batch, alpha) = (6, 0.1);
        let drift_p = standard_normal(&mut rng, batch, 2, &cpu()).unwrap();
        let drift_q = standard_normal(&mut rng, batch, 2, &cpu()).unwrap();
        let z = standard_normal(&mut rng, batch, 2, &cpu()).unwrap();
        let sigma = Tensor::new(&[0.3f32, 0.8], &cpu()).unwrap();
        let kl: Vec<f32> = transition_kl(&drift_p, &drift_q, &sigma, alpha)
            .unwrap()
            .to_vec1()
            .unwrap();
        let rows = |t: &Tensor| -> Vec<Vec<f32>> { t.to_vec2().unwrap() };
        let (p, q, z0) = (rows(&drift_p), rows(&drift_q), rows(&z));
        let s = [0.3f64, 0.8];
        for b in 0..batch {
            // KL(N(m_q, v) ‖ N(m_p, v)) for diagonal Gaussians with means z + αμ, variances ασ².
            let mut general = 0.0;
            for d in 0..2 {
                let m_p = f64::from(z0[b][d]) + alpha * f64::from(p[b][d]);
                let m_q = f64::from(z0[b][d]) + alpha * f64::from(q[b][d]);
                let (v_p, v_q) = (alpha * s[d] * s[d], alpha * s[d] * s[d]);
                general += 0.5 * ((v_p / v_q).ln() + (v_q + (m_q - m_p).powi(2)) / v_p - 1.0);
            }
            assert!(
                (f64::from(kl[b]) - general).abs() < 1e-4 * (1.0 + general),
                "{} vs {general}",
                kl[b]
            );
        }
        let same: Vec<f32> = transition_kl(&drift_p, &drift_p, &sigma, alpha)
            .unwrap()
            .to_vec1()
            .unwrap();
        assert!(same.iter().all(|k| *k == 0.0));
    }

    #[test]
    fn every_parameter_gets_a_gradient_and_same_seed_same_bits() {
        let config = GnsdeConfig::default();
        let prior = GnsdePrior::new(&config, 11, &cpu()).unwrap();
        let mut rng = seeded(2);
        let z = standard_normal(&mut rng, 5, 2, &cpu()).unwrap();
        let u = standard_normal(&mut rng, 5, 2, &cpu()).unwrap();
        let noise = standard_normal(&mut rng, 5, 2, &cpu()).unwrap();
        let next = prior.step(&z, &u, &noise).unwrap();
        let loss = next.sqr().unwrap().sum_all().unwrap();
        let grads = loss.backward().unwrap();
        for var in prior.vars() {
            let grad = grads.get(var.as_tensor()).expect("gradient");
            let norm: f32 = grad.sqr().unwrap().sum_all().unwrap().to_scalar().unwrap();
            assert!(norm > 0.0 && norm.is_finite());
        }
        let again = GnsdePrior::new(&config, 11, &cpu()).unwrap();
        let next_again = again.step(&z, &u, &noise).unwrap();
        let bits = |t: &Tensor| -> Vec<u32> {
            t.flatten_all()
                .unwrap()
                .to_vec1::<f32>()
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect()
        };
        assert_eq!(bits(&next), bits(&next_again));
        let other = GnsdePrior::new(&config, 12, &cpu()).unwrap();
        assert_ne!(bits(&next), bits(&other.step(&z, &u, &noise).unwrap()));
    }

    #[test]
    fn validate_names_the_bad_key() {
        let bad = GnsdeConfig {
            alpha: 1.5,
            ..GnsdeConfig::default()
        };
        assert!(
            matches!(bad.validate(), Err(ComputeError::InvalidParameter { name, .. }) if name == "alpha")
        );
    }
}
