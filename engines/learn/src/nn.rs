//! Small networks on candle that several engines build: a multilayer perceptron and a token
//! GRU (an embedding, stacked GRU layers and a linear head over a vocabulary: the language
//! models of MolStitch's SMILES prior and StealthInk's word model).

use benchtop_compute::ComputeError;
use candle_core::{Module as _, Tensor};
use candle_nn::rnn::{GRU, GRUConfig, GRUState, RNN as _};
use candle_nn::{Embedding, Linear, VarBuilder};

/// Sizes of a [`TokenGru`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenGruSizes {
    /// Vocabulary size V (inputs and outputs).
    pub vocab: usize,
    /// Embedding width E.
    pub embedding: usize,
    /// Hidden units H of every GRU layer.
    pub hidden: usize,
    /// GRU layers (at least 1).
    pub layers: usize,
}

/// A token sequence model: embedding (V × E) → `layers` GRUs of H units → linear head (H → V).
/// Its variables are named `embedding.weight`, `<layer prefix>.weight_ih_l0` … (PyTorch's
/// names under the prefix) and `head.weight`, `head.bias`.
#[derive(Clone, Debug)]
pub struct TokenGru {
    embedding: Embedding,
    grus: Vec<GRU>,
    head: Linear,
}

impl TokenGru {
    /// The network over `vb` (a var map to train, or tensors read from a file); `layer_prefix`
    /// names layer `i`'s variables (e.g. `gru` for a one-layer model, `gru{i}` for a stack).
    pub fn new(
        vb: &VarBuilder<'_>,
        sizes: TokenGruSizes,
        layer_prefix: impl Fn(usize) -> String,
    ) -> Result<Self, ComputeError> {
        if sizes.layers == 0 {
            return Err(ComputeError::invalid(
                "layers",
                "a GRU needs at least 1 layer",
            ));
        }
        let embedding = candle_nn::embedding(sizes.vocab, sizes.embedding, vb.pp("embedding"))?;
        let mut grus = Vec::with_capacity(sizes.layers);
        for layer in 0..sizes.layers {
            let input = if layer == 0 {
                sizes.embedding
            } else {
                sizes.hidden
            };
            grus.push(candle_nn::rnn::gru(
                input,
                sizes.hidden,
                GRUConfig::default(),
                vb.pp(layer_prefix(layer)),
            )?);
        }
        let head = candle_nn::linear(sizes.hidden, sizes.vocab, vb.pp("head"))?;
        Ok(Self {
            embedding,
            grus,
            head,
        })
    }

    /// Zero states of every layer for a batch of `batch` sequences.
    pub fn zero_states(&self, batch: usize) -> Result<Vec<GRUState>, ComputeError> {
        self.grus
            .iter()
            .map(|g| g.zero_state(batch).map_err(ComputeError::from))
            .collect()
    }

    /// One step for a batch: `tokens` (B,) u32 → logits (B, V) and every layer's new state.
    pub fn step(
        &self,
        tokens: &Tensor,
        states: &[GRUState],
    ) -> Result<(Tensor, Vec<GRUState>), ComputeError> {
        let mut x = self.embedding.forward(tokens)?;
        let mut next = Vec::with_capacity(states.len());
        for (gru, state) in self.grus.iter().zip(states) {
            let s = gru.step(&x, state)?;
            x = s.h().clone();
            next.push(s);
        }
        Ok((self.head.forward(&x)?, next))
    }

    /// The head's logits (B, V) for hidden states `hidden` (B, H) (e.g. zero: no context).
    pub fn head_logits(&self, hidden: &Tensor) -> Result<Tensor, ComputeError> {
        Ok(self.head.forward(hidden)?)
    }

    /// Logits (B·T, V) of every position of a (B, T) u32 batch, each row run from zero states.
    pub fn logits(&self, tokens: &Tensor) -> Result<Tensor, ComputeError> {
        let mut x = self.embedding.forward(tokens)?;
        for gru in &self.grus {
            let states = gru.seq(&x)?;
            let hs: Vec<Tensor> = states.iter().map(|s| s.h().clone()).collect();
            x = Tensor::stack(&hs, 1)?;
        }
        let (b, t, h) = x.dims3()?;
        Ok(self.head.forward(&x.reshape((b * t, h))?)?)
    }
}

/// The nonlinearity between the layers of an [`Mlp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// max(0, x).
    Relu,
    /// tanh x.
    Tanh,
    /// x·Φ(x) (the tanh approximation).
    Gelu,
}

impl Activation {
    fn apply(self, x: &Tensor) -> candle_core::Result<Tensor> {
        match self {
            Self::Relu => x.relu(),
            Self::Tanh => x.tanh(),
            Self::Gelu => x.gelu(),
        }
    }
}

/// A multilayer perceptron: linear layers of the given widths with `activation` between them
/// (none after the last). Variables `layer{i}.weight`, `layer{i}.bias`.
#[derive(Clone, Debug)]
pub struct Mlp {
    layers: Vec<Linear>,
    activation: Activation,
}

impl Mlp {
    /// Widths `[inputs, hidden…, outputs]` (at least two) over `vb`.
    pub fn new(
        vb: &VarBuilder<'_>,
        widths: &[usize],
        activation: Activation,
    ) -> Result<Self, ComputeError> {
        if widths.len() < 2 || widths.contains(&0) {
            return Err(ComputeError::invalid(
                "widths",
                format!("an MLP needs at least an input and an output width, none 0: {widths:?}"),
            ));
        }
        let layers = widths
            .windows(2)
            .enumerate()
            .map(|(i, w)| candle_nn::linear(w[0], w[1], vb.pp(format!("layer{i}"))))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { layers, activation })
    }

    /// The output for `x` (…, inputs).
    pub fn forward(&self, x: &Tensor) -> Result<Tensor, ComputeError> {
        let mut h = x.clone();
        for (i, layer) in self.layers.iter().enumerate() {
            h = layer.forward(&h)?;
            if i + 1 < self.layers.len() {
                h = self.activation.apply(&h)?;
            }
        }
        Ok(h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{DType, Device};
    use candle_nn::VarMap;

    #[test]
    fn the_step_by_step_pass_equals_the_whole_sequence() {
        let device = Device::Cpu;
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &device);
        let sizes = TokenGruSizes {
            vocab: 7,
            embedding: 4,
            hidden: 5,
            layers: 2,
        };
        let net = TokenGru::new(&vb, sizes, |i| format!("gru{i}")).unwrap();
        let tokens = Tensor::new(&[[1u32, 4, 2], [6, 0, 3]], &device).unwrap();
        let whole = net.logits(&tokens).unwrap().to_vec2::<f32>().unwrap();
        let mut states = net.zero_states(2).unwrap();
        for t in 0..3 {
            let column = tokens.narrow(1, t, 1).unwrap().squeeze(1).unwrap();
            let (logits, next) = net.step(&column, &states).unwrap();
            states = next;
            let logits = logits.to_vec2::<f32>().unwrap();
            for b in 0..2 {
                for (a, w) in logits[b].iter().zip(&whole[b * 3 + t]) {
                    assert!((a - w).abs() < 1e-5, "t {t} b {b}");
                }
            }
        }
        assert_eq!(varmap.all_vars().len(), 2 + 2 * 4 + 1);
    }

    #[test]
    fn an_mlp_has_the_declared_shape_and_refuses_a_zero_width() {
        let device = Device::Cpu;
        let varmap = VarMap::new();
        let vb = VarBuilder::from_varmap(&varmap, DType::F32, &device);
        let mlp = Mlp::new(&vb, &[3, 8, 2], Activation::Relu).unwrap();
        let x = Tensor::zeros((5, 3), DType::F32, &device).unwrap();
        assert_eq!(mlp.forward(&x).unwrap().dims(), &[5, 2]);
        assert!(Mlp::new(&vb, &[3, 0, 2], Activation::Tanh).is_err());
        assert!(Mlp::new(&vb, &[3], Activation::Tanh).is_err());
    }
}
