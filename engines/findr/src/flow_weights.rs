//! A plain f64 copy of a gated flow's weights, for analysis off the tensor graph: fixed points,
//! Jacobians by finite differences and field grids need many cheap, precise evaluations.

use candle_core::{DType, Var};

use benchtop_compute::ComputeError;

use crate::gnsde::GatedFlow;

/// The gated flow's weights in f64, row-major `[fan_in, fan_out]` like the tensors.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowWeights {
    /// Latent dimension D.
    pub latent_dim: usize,
    /// Input dimension U.
    pub input_dim: usize,
    /// Hidden width H.
    pub flow_width: usize,
    gate_state: Vec<f64>,
    gate_input: Vec<f64>,
    gate_bias: Vec<f64>,
    hidden_state: Vec<f64>,
    hidden_input: Vec<f64>,
    hidden_bias: Vec<f64>,
    output: Vec<f64>,
    output_bias: Vec<f64>,
}

fn flat(var: &Var) -> Result<Vec<f64>, ComputeError> {
    Ok(var
        .as_tensor()
        .to_dtype(DType::F64)?
        .flatten_all()?
        .to_vec1()?)
}

/// x W + b for x `[fan_in]`, W `[fan_in, fan_out]`, b `[fan_out]`.
fn affine(x: &[f64], w: &[f64], fan_out: usize, out: &mut [f64]) {
    for (i, xi) in x.iter().enumerate() {
        for (o, value) in out.iter_mut().enumerate().take(fan_out) {
            *value += xi * w[i * fan_out + o];
        }
    }
}

impl FlowWeights {
    /// Copies the weights of `flow`.
    pub fn from_flow(flow: &GatedFlow) -> Result<Self, ComputeError> {
        let dims = flow.hidden_state.as_tensor().dims2()?;
        let input_dim = flow.hidden_input.as_tensor().dims2()?.0;
        Ok(Self {
            latent_dim: dims.0,
            input_dim,
            flow_width: dims.1,
            gate_state: flat(&flow.gate_state)?,
            gate_input: flat(&flow.gate_input)?,
            gate_bias: flat(&flow.gate_bias)?,
            hidden_state: flat(&flow.hidden_state)?,
            hidden_input: flat(&flow.hidden_input)?,
            hidden_bias: flat(&flow.hidden_bias)?,
            output: flat(&flow.output)?,
            output_bias: flat(&flow.output_bias)?,
        })
    }

    /// The drift F(z, u) in f64 (units of 1/τ); `z` has D entries, `u` has U.
    pub fn drift(&self, z: &[f64], u: &[f64]) -> Vec<f64> {
        let (d, h) = (self.latent_dim, self.flow_width);
        let mut gate = self.gate_bias.clone();
        affine(z, &self.gate_state, d, &mut gate);
        affine(u, &self.gate_input, d, &mut gate);
        let mut hidden = self.hidden_bias.clone();
        affine(z, &self.hidden_state, h, &mut hidden);
        affine(u, &self.hidden_input, h, &mut hidden);
        for a in &mut hidden {
            *a /= 1.0 + (-*a).exp();
        }
        let mut target = self.output_bias.clone();
        affine(&hidden, &self.output, d, &mut target);
        (0..d)
            .map(|k| {
                let g = 1.0 / (1.0 + (-gate[k]).exp());
                g * (target[k].tanh() - z[k])
            })
            .collect()
    }

    /// The autonomous drift F(z, 0) of a 2-D flow.
    pub fn autonomous_2d(&self, z: [f64; 2]) -> [f64; 2] {
        let f = self.drift(&z, &vec![0.0; self.input_dim]);
        [f[0], f.get(1).copied().unwrap_or(0.0)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gnsde::{GnsdeConfig, GnsdePrior};
    use candle_core::{Device, Tensor};

    #[test]
    fn f64_drift_matches_the_tensor_drift() {
        let config = GnsdeConfig {
            flow_width: 13,
            ..GnsdeConfig::default()
        };
        let prior = GnsdePrior::new(&config, 21, &Device::Cpu).unwrap();
        let weights = FlowWeights::from_flow(prior.flow()).unwrap();
        assert_eq!(
            (weights.latent_dim, weights.input_dim, weights.flow_width),
            (2, 2, 13)
        );
        let zs = [[0.4f32, -1.1], [2.0, 0.3], [-0.2, 0.0]];
        let us = [[0.0f32, 0.0], [1.0, 0.0], [0.0, 0.7]];
        let z = Tensor::new(&zs, &Device::Cpu).unwrap();
        let u = Tensor::new(&us, &Device::Cpu).unwrap();
        let tensor: Vec<Vec<f32>> = prior.flow().drift(&z, &u).unwrap().to_vec2().unwrap();
        for b in 0..3 {
            let zf: Vec<f64> = zs[b].iter().map(|v| f64::from(*v)).collect();
            let uf: Vec<f64> = us[b].iter().map(|v| f64::from(*v)).collect();
            let f = weights.drift(&zf, &uf);
            for d in 0..2 {
                assert!((f[d] - f64::from(tensor[b][d])).abs() < 1e-5, "[{b}][{d}]");
            }
        }
        let auto = weights.autonomous_2d([0.4, -1.1]);
        let full = weights.drift(&[0.4, -1.1], &[0.0, 0.0]);
        assert_eq!(auto, [full[0], full[1]]);
    }
}
