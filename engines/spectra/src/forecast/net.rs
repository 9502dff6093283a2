//! A small convolutional forecaster on a latitude–longitude grid.
//!
//! `layers` 3×3 convolutions (SiLU between them) map the input channels to `channels` hidden
//! channels and finally to one output channel, the increment of the normalised vorticity
//! over one lead time (a residual forecaster: `ζ(t+τ) = ζ(t) + net(features)`).
//!
//! Padding respects the sphere: longitudes wrap around, and the row beyond a pole is the
//! first row on the other side of that pole (the same ring, rotated by 180° of longitude).
//! Weights are drawn from the engine's seeded generator (He-normal; the last layer scaled by
//! 0.1 so that the untrained forecaster is close to persistence), so the same seed gives the
//! same network.

use benchtop_compute::ComputeError;
use benchtop_compute::rng::EngineRng;
use candle_core::{Device, Tensor, Var};
use rand_distr::{Distribution as _, StandardNormal};

/// A convolutional forecaster.
#[derive(Debug, Clone)]
pub struct ConvNet {
    /// (weight OIHW, bias O) per layer.
    layers: Vec<(Var, Var)>,
}

impl ConvNet {
    /// A network with `inputs` input channels, `hidden` hidden channels and `layers` 3×3
    /// convolutions (≥ 2), initialised from `rng`.
    pub fn new(
        inputs: usize,
        hidden: usize,
        layers: usize,
        rng: &mut EngineRng,
        device: &Device,
    ) -> Result<Self, ComputeError> {
        if layers < 2 || hidden == 0 || inputs == 0 {
            return Err(ComputeError::invalid(
                "layers",
                "the forecaster needs at least 2 layers and 1 hidden channel",
            ));
        }
        let mut out = Vec::with_capacity(layers);
        for layer in 0..layers {
            let fan_in_channels = if layer == 0 { inputs } else { hidden };
            let outputs = if layer + 1 == layers { 1 } else { hidden };
            let mut std = (2.0 / (9 * fan_in_channels) as f64).sqrt();
            if layer + 1 == layers {
                std *= 0.1;
            }
            let count = outputs * fan_in_channels * 9;
            let weights: Vec<f32> = (0..count)
                .map(|_| {
                    let z: f64 = StandardNormal.sample(rng);

                    (z * std) as f32
                })
                .collect();
            let weight = Var::from_tensor(&Tensor::from_vec(
                weights,
                (outputs, fan_in_channels, 3, 3),
                device,
            )?)?;
            let bias = Var::from_tensor(&Tensor::zeros(outputs, candle_core::DType::F32, device)?)?;
            out.push((weight, bias));
        }
        Ok(Self { layers: out })
    }

    /// All trainable variables.
    pub fn vars(&self) -> Vec<Var> {
        self.layers
            .iter()
            .flat_map(|(w, b)| [w.clone(), b.clone()])
            .collect()
    }

    /// Number of trainable parameters.
    pub fn parameter_count(&self) -> usize {
        self.layers
            .iter()
            .map(|(w, b)| w.elem_count() + b.elem_count())
            .sum()
    }

    /// Copies the weights (for a second network that starts from the same point).
    pub fn duplicate(&self) -> Result<Self, ComputeError> {
        let layers = self
            .layers
            .iter()
            .map(|(w, b)| {
                Ok((
                    Var::from_tensor(&w.as_tensor().copy()?)?,
                    Var::from_tensor(&b.as_tensor().copy()?)?,
                ))
            })
            .collect::<Result<Vec<_>, ComputeError>>()?;
        Ok(Self { layers })
    }

    /// The output (B × 1 × H × W) for input features (B × C × H × W).
    pub fn forward(&self, features: &Tensor) -> Result<Tensor, ComputeError> {
        let mut x = features.clone();
        let last = self.layers.len() - 1;
        for (index, (weight, bias)) in self.layers.iter().enumerate() {
            let padded = pad_sphere(&x)?;
            let y = padded.conv2d(weight.as_tensor(), 0, 1, 1, 1)?;
            let y = y.broadcast_add(&bias.as_tensor().reshape((1, bias.elem_count(), 1, 1))?)?;
            x = if index == last { y } else { y.silu()? };
        }
        Ok(x)
    }
}

/// Rotates the last dimension (longitude) by half its length.
fn half_turn(x: &Tensor) -> Result<Tensor, ComputeError> {
    let width = x.dim(3)?;
    let half = width / 2;
    Ok(Tensor::cat(
        &[x.narrow(3, half, width - half)?, x.narrow(3, 0, half)?],
        3,
    )?)
}

/// Pads (B × C × H × W) by one row and column: across the poles and around the circle.
pub fn pad_sphere(x: &Tensor) -> Result<Tensor, ComputeError> {
    let (height, width) = (x.dim(2)?, x.dim(3)?);
    let top = half_turn(&x.narrow(2, 0, 1)?)?;
    let bottom = half_turn(&x.narrow(2, height - 1, 1)?)?;
    let tall = Tensor::cat(&[&top, x, &bottom], 2)?;
    Ok(Tensor::cat(
        &[
            tall.narrow(3, width - 1, 1)?,
            tall.clone(),
            tall.narrow(3, 0, 1)?,
        ],
        3,
    )?)
}
