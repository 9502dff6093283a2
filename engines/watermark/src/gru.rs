//! A word-level GRU language model trained in candle, with fast plain-Rust inference.
//!
//! Architecture: token embedding (E) → one GRU layer (H hidden units) → linear head to the V
//! vocabulary logits. The weights are named as PyTorch names them (`embedding.weight`,
//! `gru.weight_ih_l0` …, `head.weight`, `head.bias`), with PyTorch's gate order (reset, update,
//! new), so an `nn.Embedding` + `nn.GRU` + `nn.Linear` model exported with `safetensors` loads
//! as is.
//!
//! Training ([`train`]): the training stream is cut into windows of `seq_len + 1` tokens from a
//! random offset each epoch; every window starts from a zero hidden state (truncated
//! backpropagation through time); shuffled batches; cross-entropy; AdamW. Weights start from
//! the caller's seed and everything runs on one thread, so the same stream, configuration and
//! seed give the same bits.
//!
//! Inference ([`GruModel`] as a [`LanguageModel`]): the next-token distribution of a context is
//! the GRU run from a zero state over its last `window` tokens, in plain Rust on `f32` (the input
//! projection `W_ih·e_v + b_ih` of every token is precomputed; the loops, exponentials
//! included, are compiled for the machine's widest vector unit through `pulp`'s dispatch), with
//! the softmax normalised in `f64`. This is the same function as the candle forward
//! ([`GruModel::next_probs_candle`]); a test holds the two together. A window no longer than `seq_len` sees contexts of the lengths training saw.
//!
//! Files ([`GruModel::save`], [`GruModel::load`]): safetensors with the seven weight tensors, a
//! `config` tensor (u32: vocabulary, embedding, hidden, window) and the training loss per epoch
//! (`train.loss_history`, f64); `config` and the loss are optional when loading a user's file.
//! [`trained_or_cached`] keys a cache file by a hash of the training tokens, the vocabulary,
//! the training configuration and the seed, so a model is trained once and then loaded. The
//! window is an inference setting ([`GruModel::with_window`]): changing it retrains nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use benchtop_compute::cache;
use benchtop_compute::rng::{derive_seed, seeded};
use benchtop_compute::threads::single_threaded;
use benchtop_compute::{CancelToken, ComputeError, Progress};
use benchtop_learn::nn::{TokenGru, TokenGruSizes};
use candle_core::{DType, Device, Tensor, Var};
use candle_nn::{AdamW, Optimizer as _, ParamsAdamW, VarBuilder};
use pulp::{Simd, WithSimd};
use rand::Rng as _;
use rand::seq::SliceRandom as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::model::LanguageModel;

/// Name of the thread the candle work runs on.
const THREAD_NAME: &str = "watermark-gru";

/// Tensor of the token embedding, (V, E).
pub const EMBEDDING: &str = "embedding.weight";
/// Tensor of the GRU input weights, (3H, E), gates reset, update, new.
pub const W_IH: &str = "gru.weight_ih_l0";
/// Tensor of the GRU recurrent weights, (3H, H).
pub const W_HH: &str = "gru.weight_hh_l0";
/// Tensor of the GRU input bias, (3H).
pub const B_IH: &str = "gru.bias_ih_l0";
/// Tensor of the GRU recurrent bias, (3H).
pub const B_HH: &str = "gru.bias_hh_l0";
/// Tensor of the output head weights, (V, H).
pub const HEAD_W: &str = "head.weight";
/// Tensor of the output head bias, (V).
pub const HEAD_B: &str = "head.bias";
/// Optional u32 tensor (4): vocabulary, embedding, hidden, window.
pub const CONFIG: &str = "config";
/// Optional f64 tensor: mean training loss (nats per token) of each epoch.
pub const LOSS_HISTORY: &str = "train.loss_history";

/// Index of each weight tensor in [`GruModel`]'s arrays (the order of [`weight_shapes`]).
const I_EMB: usize = 0;
const I_W_IH: usize = 1;
const I_W_HH: usize = 2;
const I_B_IH: usize = 3;
const I_B_HH: usize = 4;
const I_HEAD_W: usize = 5;
const I_HEAD_B: usize = 6;

/// Longest inference window accepted.
pub const MAX_WINDOW: usize = 64;

/// The largest weights file read (bytes).
pub const MAX_WEIGHTS_BYTES: u64 = 256 * 1024 * 1024;

/// Window of a file that does not say (no `config` tensor).
pub const DEFAULT_WINDOW: usize = 16;

/// Sizes of a GRU language model and the inference window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct GruArch {
    /// Vocabulary size V.
    pub vocab: usize,
    /// Embedding width E.
    pub embedding: usize,
    /// Hidden units H.
    pub hidden: usize,
    /// Tokens of context the inference reads (the last `window`).
    pub window: usize,
}

/// The seven weight tensors with their shapes for `arch`, in file order.
pub fn weight_shapes(arch: &GruArch) -> [(&'static str, Vec<usize>); 7] {
    let (v, e, h) = (arch.vocab, arch.embedding, arch.hidden);
    [
        (EMBEDDING, vec![v, e]),
        (W_IH, vec![3 * h, e]),
        (W_HH, vec![3 * h, h]),
        (B_IH, vec![3 * h]),
        (B_HH, vec![3 * h]),
        (HEAD_W, vec![v, h]),
        (HEAD_B, vec![v]),
    ]
}

/// Size and training settings of the GRU models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GruConfig {
    /// Embedding width E.
    pub embedding: usize,
    /// Hidden units H.
    pub hidden: usize,
    /// Tokens of context inference reads (at most `seq_len`, at most [`MAX_WINDOW`]).
    pub window: usize,
    /// Tokens per training window (truncated backpropagation length).
    pub seq_len: usize,
    /// Windows per batch.
    pub batch: usize,
    /// Passes over the training stream.
    pub epochs: usize,
    /// AdamW learning rate.
    pub learning_rate: f64,
    /// AdamW decoupled weight decay.
    pub weight_decay: f64,
    /// Seed of the first model's weights and batches (the second model derives its own).
    pub seed: u64,
}

impl Default for GruConfig {
    fn default() -> Self {
        Self {
            embedding: 64,
            hidden: 128,
            window: DEFAULT_WINDOW,
            seq_len: 32,
            batch: 32,
            epochs: 8,
            learning_rate: 3e-3,
            weight_decay: 0.01,
            seed: 1,
        }
    }
}

impl GruConfig {
    /// Checks every field; the error names the offending one (keys as in a project file,
    /// under `gru`).
    pub fn validate(&self) -> Result<(), ComputeError> {
        let bad = |n: &str, r: &str| Err(ComputeError::invalid(format!("gru.{n}"), r));
        if !(1..=1024).contains(&self.embedding) {
            return bad("embedding", "must be 1 to 1024");
        }
        if !(1..=1024).contains(&self.hidden) {
            return bad("hidden", "must be 1 to 1024");
        }
        if !(2..=512).contains(&self.seq_len) {
            return bad("seq_len", "must be 2 to 512");
        }
        if self.window == 0 || self.window > self.seq_len.min(MAX_WINDOW) {
            return bad(
                "window",
                "must be at least 1 and at most the training length and 64",
            );
        }
        if self.batch == 0 {
            return bad("batch", "must be at least 1");
        }
        if !(1..=1000).contains(&self.epochs) {
            return bad("epochs", "must be 1 to 1000");
        }
        if !(self.learning_rate.is_finite() && self.learning_rate > 0.0) {
            return bad("learning_rate", "must be positive");
        }
        if !(self.weight_decay.is_finite() && self.weight_decay >= 0.0) {
            return bad("weight_decay", "must be non-negative");
        }
        Ok(())
    }

    /// The architecture for a `vocab`-token vocabulary.
    pub fn arch(&self, vocab: usize) -> GruArch {
        GruArch {
            vocab,
            embedding: self.embedding,
            hidden: self.hidden,
            window: self.window,
        }
    }
}

/// The candle network over a set of named tensors (trainable variables or fixed weights).
struct CandleNet(TokenGru);

impl CandleNet {
    /// The network over `tensors` (named as in [`weight_shapes`], shapes checked).
    fn new(tensors: HashMap<String, Tensor>, arch: &GruArch) -> Result<Self, ComputeError> {
        if let Some((name, _)) = weight_shapes(arch)
            .iter()
            .find(|(name, _)| !tensors.contains_key(*name))
        {
            return Err(ComputeError::Numerical(format!(
                "tensor `{name}` is missing"
            )));
        }
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &Device::Cpu);
        let sizes = TokenGruSizes {
            vocab: arch.vocab,
            embedding: arch.embedding,
            hidden: arch.hidden,
            layers: 1,
        };
        Ok(Self(TokenGru::new(&vb, sizes, |_| "gru".to_owned())?))
    }

    /// Logits (B·T, V) of every position of a (B, T) u32 batch, each row run from a zero state.
    fn logits(&self, inputs: &Tensor) -> Result<Tensor, ComputeError> {
        self.0.logits(inputs)
    }
}

/// A trained (or loaded) GRU language model with the token strings for display.
#[derive(Clone)]
pub struct GruModel {
    arch: GruArch,
    /// The seven weight arrays (row-major f32) in the order of [`weight_shapes`].
    weights: Vec<Vec<f32>>,
    /// `W_ih·e_v + b_ih` for every token v, (V, 3H).
    input_proj: Vec<f32>,
    /// `W_hhᵀ`, (H, 3H), and the head's `Wᵀ`, (H, V), for column-wise products.
    w_hh_t: Vec<f32>,
    head_t: Vec<f32>,
    loss_history: Vec<f64>,
    words: Arc<Vec<String>>,
    /// The vector instruction set inference runs with (detected once).
    simd: pulp::Arch,
}

impl std::fmt::Debug for GruModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GruModel")
            .field("arch", &self.arch)
            .field("loss_history", &self.loss_history)
            .finish_non_exhaustive()
    }
}

/// `out = bias + Σ_k x_k · mat_t[k, :]` for a row-major `mat_t` of `x.len()` rows (the
/// transpose of the usual weight matrix): every step is a contiguous multiply-add over `out`,
/// which vectorises with no horizontal sums; the order of the sum over k is fixed, so every
/// instruction set gives the same bits.
#[inline(always)]
fn matvec_t(out: &mut [f32], bias: &[f32], mat_t: &[f32], x: &[f32]) {
    out.copy_from_slice(bias);
    for (row, &xk) in mat_t.chunks_exact(out.len()).zip(x) {
        for (o, w) in out.iter_mut().zip(row) {
            *o += xk * w;
        }
    }
}

/// The transpose of a row-major (rows, cols) matrix.
fn transpose(m: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut t = vec![0.0; m.len()];
    for (r, row) in m.chunks_exact(cols).enumerate() {
        for (c, &x) in row.iter().enumerate() {
            t[c * rows + r] = x;
        }
    }
    t
}

/// e^x in f32 with no libm call or saturating cast, so that loops over it vectorise:
/// x = n·ln 2 + r (n rounded to nearest by the 1.5·2²³ shift, which also leaves n in the low
/// mantissa bits; Cody–Waite ln 2), e^r by Cephes' degree-6 polynomial, 2^n from the exponent
/// bits. Relative error about 1e-7; inputs are clamped to [−87, 88] (normal results).
#[inline(always)]
fn exp_f32(x: f32) -> f32 {
    const SHIFT: f32 = 12_582_912.0;
    // max then min, not clamp: a NaN input gives a finite bound instead of NaN.
    #[allow(clippy::manual_clamp)]
    let x = x.max(-87.0).min(88.0);
    let t = x * std::f32::consts::LOG2_E + SHIFT;
    let n = t - SHIFT;
    let r = x - n * 0.693_359_4 - n * -2.121_944_4e-4;
    let p = ((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r
        + 1.666_666_5e-1)
        * r
        + 0.5;
    let e = p * r * r + r + 1.0;
    let pow2 = f32::from_bits(t.to_bits().wrapping_sub(SHIFT.to_bits()).wrapping_add(127) << 23);
    e * pow2
}

#[inline(always)]
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + exp_f32(-x))
}

#[inline(always)]
fn tanh_f32(x: f32) -> f32 {
    2.0 * sigmoid(2.0 * x) - 1.0
}

/// Softmax of f32 logits into f64 probabilities (the exponentials in f32, the sum in f64).
#[inline(always)]
fn softmax_into(logits: &[f32], out: &mut [f64]) {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for (o, &l) in out.iter_mut().zip(logits) {
        *o = f64::from(exp_f32(l - max));
    }
    let s: f64 = out.iter().sum();
    out.iter_mut().for_each(|x| *x /= s);
}

impl GruModel {
    /// A model from its architecture and the seven weight arrays (checked against the shapes).
    fn from_weights(
        arch: GruArch,
        weights: Vec<Vec<f32>>,
        loss_history: Vec<f64>,
        words: Arc<Vec<String>>,
    ) -> Result<Self, ComputeError> {
        let shapes = weight_shapes(&arch);
        if weights.len() != shapes.len()
            || weights
                .iter()
                .zip(&shapes)
                .any(|(w, (_, s))| w.len() != s.iter().product::<usize>())
        {
            return Err(ComputeError::Numerical(
                "GRU weights do not match the architecture".into(),
            ));
        }
        if words.len() != arch.vocab {
            return Err(ComputeError::invalid(
                "vocab",
                format!(
                    "the model has {} tokens, the vocabulary {}",
                    arch.vocab,
                    words.len()
                ),
            ));
        }
        let (e, h, h3) = (arch.embedding, arch.hidden, 3 * arch.hidden);
        let w_ih_t = transpose(&weights[I_W_IH], h3, e);
        let mut input_proj = vec![0.0; arch.vocab * h3];
        for (row, x) in input_proj
            .chunks_exact_mut(h3)
            .zip(weights[I_EMB].chunks_exact(e))
        {
            matvec_t(row, &weights[I_B_IH], &w_ih_t, x);
        }
        let w_hh_t = transpose(&weights[I_W_HH], h3, h);
        let head_t = transpose(&weights[I_HEAD_W], arch.vocab, h);
        Ok(Self {
            arch,
            weights,
            input_proj,
            w_hh_t,
            head_t,
            loss_history,
            words,
            simd: pulp::Arch::new(),
        })
    }

    /// Seeded initial weights: embedding ~ U(−√3, √3) (unit variance), every other weight and
    /// bias ~ U(−1/√H, 1/√H) (PyTorch's GRU and, for the head, its fan-in bound), each tensor
    /// from its own stream of `seed`.
    fn initial_weights(arch: &GruArch, seed: u64) -> Vec<Vec<f32>> {
        let bound = 1.0 / (arch.hidden as f32).sqrt();
        weight_shapes(arch)
            .iter()
            .enumerate()
            .map(|(i, (name, shape))| {
                let b = if *name == EMBEDDING {
                    3.0_f32.sqrt()
                } else {
                    bound
                };
                let mut rng = seeded(derive_seed(seed, i as u64));
                (0..shape.iter().product::<usize>())
                    .map(|_| rng.random_range(-b..=b))
                    .collect()
            })
            .collect()
    }

    /// The architecture (sizes and window).
    pub fn arch(&self) -> GruArch {
        self.arch
    }

    /// The same model reading the last `window` tokens (1 to [`MAX_WINDOW`]).
    pub fn with_window(mut self, window: usize) -> Result<Self, ComputeError> {
        if window == 0 || window > MAX_WINDOW {
            return Err(ComputeError::invalid("gru.window", "must be 1 to 64"));
        }
        self.arch.window = window;
        Ok(self)
    }

    /// Mean training loss (nats per token) of each epoch; empty for a user's file without it.
    pub fn loss_history(&self) -> &[f64] {
        &self.loss_history
    }

    /// The hidden state after the last `window` tokens of `context`, from a zero state.
    #[inline(always)]
    fn hidden_after(&self, context: &[u32]) -> Vec<f32> {
        let h = self.arch.hidden;
        let b_hh = &self.weights[I_B_HH];
        let mut state = vec![0.0_f32; h];
        let mut hh = vec![0.0_f32; 3 * h];
        let tail = &context[context.len().saturating_sub(self.arch.window)..];
        for &t in tail {
            // Ids outside the vocabulary read as <unk> (id 0).
            let t = if (t as usize) < self.arch.vocab {
                t as usize
            } else {
                0
            };
            let xp = &self.input_proj[t * 3 * h..(t + 1) * 3 * h];
            matvec_t(&mut hh, b_hh, &self.w_hh_t, &state);
            let (xr, xzn) = xp.split_at(h);
            let (xz, xn) = xzn.split_at(h);
            let (hr, hzn) = hh.split_at(h);
            let (hz, hn) = hzn.split_at(h);
            let gates = xr.iter().zip(xz).zip(xn).zip(hr.iter().zip(hz).zip(hn));
            for (s, (((xr, xz), xn), ((hr, hz), hn))) in state.iter_mut().zip(gates) {
                let r = sigmoid(xr + hr);
                let z = sigmoid(xz + hz);
                let n = tanh_f32(xn + r * hn);
                *s = (1.0 - z) * n + z * *s;
            }
        }
        state
    }

    /// The seven weights as candle tensors, named as in the file.
    fn tensors(&self) -> Result<HashMap<String, Tensor>, ComputeError> {
        weight_shapes(&self.arch)
            .into_iter()
            .zip(&self.weights)
            .map(|((name, shape), w)| {
                Ok((
                    name.to_owned(),
                    Tensor::from_slice(w, shape.as_slice(), &Device::Cpu)?,
                ))
            })
            .collect()
    }

    /// P(next | context) computed by the candle modules training uses (the reference the
    /// plain-Rust [`LanguageModel::next_probs`] is held to).
    pub fn next_probs_candle(&self, context: &[u32]) -> Result<Vec<f64>, ComputeError> {
        let tail = &context[context.len().saturating_sub(self.arch.window)..];
        let net = CandleNet::new(self.tensors()?, &self.arch)?;
        let logits = if tail.is_empty() {
            let zero = Tensor::zeros((1, self.arch.hidden), DType::F32, &Device::Cpu)?;
            net.0.head_logits(&zero)?
        } else {
            let ids = Tensor::from_slice(tail, (1, tail.len()), &Device::Cpu)?;
            net.logits(&ids)?
        };
        let last = logits.get(logits.dim(0)? - 1)?.to_vec1::<f32>()?;
        let mut out = vec![0.0; self.arch.vocab];
        softmax_into(&last, &mut out);
        Ok(out)
    }

    /// Writes the weights, the `config` tensor and the loss history to `path` (safetensors),
    /// through a temporary file renamed into place.
    pub fn save(&self, path: &Path) -> Result<(), ComputeError> {
        let mut tensors = self.tensors()?;
        let a = &self.arch;
        let config = [a.vocab, a.embedding, a.hidden, a.window].map(|x| x as u32);
        tensors.insert(
            CONFIG.to_owned(),
            Tensor::from_slice(&config, 4, &Device::Cpu)?,
        );
        if !self.loss_history.is_empty() {
            tensors.insert(
                LOSS_HISTORY.to_owned(),
                Tensor::from_slice(&self.loss_history, self.loss_history.len(), &Device::Cpu)?,
            );
        }
        let partial = path.with_extension("safetensors.partial");
        candle_core::safetensors::save(&tensors, &partial)?;
        std::fs::rename(&partial, path).map_err(|e| {
            ComputeError::invalid(
                "weights_file",
                format!("{}: cannot write ({e})", path.display()),
            )
        })
    }

    /// Reads a model from a safetensors file with the seven weight tensors of [`weight_shapes`]
    /// (f32, f16, bf16 or f64; `config` and the loss history optional). The vocabulary is
    /// `words`; the window is the file's `config` entry, else [`DEFAULT_WINDOW`]. Errors name
    /// the file and the tensor (missing, wrong shape, non-finite values, a vocabulary of another
    /// size).
    pub fn load(path: &Path, words: Arc<Vec<String>>) -> Result<Self, ComputeError> {
        let bad = |what: String| {
            ComputeError::invalid("weights_file", format!("{}: {what}", path.display()))
        };
        // A regular file of a bounded size (a FIFO or a huge file is refused before reading).
        benchtop_compute::files::open_regular(path, MAX_WEIGHTS_BYTES)
            .map_err(|e| ComputeError::invalid("weights_file", e.to_string()))?;
        let tensors = candle_core::safetensors::load(path, &Device::Cpu)
            .map_err(|e| bad(format!("cannot read it as safetensors ({e})")))?;
        // Weights are floating point: an integer tensor is refused by name.
        if let Some((name, t)) = tensors
            .iter()
            .find(|(name, t)| name.as_str() != CONFIG && !t.dtype().is_float())
        {
            return Err(bad(format!(
                "tensor `{name}` is {:?}; weights must be f32, f16, bf16 or f64",
                t.dtype()
            )));
        }
        let get = |name: &str| {
            tensors.get(name).ok_or_else(|| {
                bad(format!(
                    "tensor `{name}` is missing (a GRU model has {})",
                    weight_shapes(&GruArch {
                        vocab: 0,
                        embedding: 0,
                        hidden: 0,
                        window: 0,
                    })
                    .map(|(n, _)| format!("`{n}`"))
                    .join(", ")
                ))
            })
        };
        let (vocab, embedding) = match get(EMBEDDING)?.dims() {
            &[v, e] => (v, e),
            d => {
                return Err(bad(format!(
                    "tensor `{EMBEDDING}` has shape {d:?}, expected [vocabulary, embedding]"
                )));
            }
        };
        if vocab != words.len() {
            // The panel's vocabulary is a multiple of 16 (equal colour lists): advise only a
            // size it accepts.
            let advice = if vocab % 16 == 0 && vocab >= 16 {
                format!("set the vocabulary to {vocab}")
            } else {
                "these weights cannot be used here: the vocabulary must be a multiple of 16"
                    .to_owned()
            };
            return Err(bad(format!(
                "tensor `{EMBEDDING}` has {vocab} rows but the vocabulary has {} tokens ({advice})",
                words.len()
            )));
        }
        let hidden = match get(W_HH)?.dims() {
            &[h3, h] if h3 == 3 * h => h,
            d => {
                return Err(bad(format!(
                    "tensor `{W_HH}` has shape {d:?}, expected [3·hidden, hidden]"
                )));
            }
        };
        // The sizes training accepts: a larger model would take minutes per word.
        if !(1..=1024).contains(&embedding) || !(1..=1024).contains(&hidden) {
            return Err(bad(format!(
                "embedding {embedding} and hidden {hidden}: each must be 1 to 1024"
            )));
        }
        let mut arch = GruArch {
            vocab,
            embedding,
            hidden,
            window: DEFAULT_WINDOW,
        };
        if let Some(c) = tensors.get(CONFIG) {
            let c = c
                .to_dtype(DType::U32)
                .and_then(|c| c.flatten_all())
                .and_then(|c| c.to_vec1::<u32>())
                .map_err(|e| bad(format!("tensor `{CONFIG}` is unreadable ({e})")))?;
            let want = [vocab, embedding, hidden];
            if c.len() != 4 || c[..3].iter().zip(want).any(|(&x, y)| x as usize != y) {
                return Err(bad(format!(
                    "tensor `{CONFIG}` is {c:?}, but the weights have vocabulary {vocab}, embedding {embedding}, hidden {hidden}"
                )));
            }
            arch.window = c[3] as usize;
        }
        if arch.window == 0 || arch.window > MAX_WINDOW {
            return Err(bad(format!(
                "window {} is outside 1 to {MAX_WINDOW}",
                arch.window
            )));
        }
        let mut weights = Vec::with_capacity(7);
        for (name, shape) in weight_shapes(&arch) {
            let t = get(name)?;
            if t.dims() != shape.as_slice() {
                return Err(bad(format!(
                    "tensor `{name}` has shape {:?}, expected {shape:?}",
                    t.dims()
                )));
            }
            let values = t
                .to_dtype(DType::F32)
                .and_then(|t| t.flatten_all())
                .and_then(|t| t.to_vec1::<f32>())
                .map_err(|e| bad(format!("tensor `{name}` is unreadable ({e})")))?;
            if values.iter().any(|x| !x.is_finite()) {
                return Err(bad(format!("tensor `{name}` holds non-finite values")));
            }
            weights.push(values);
        }
        let loss_history = match tensors.get(LOSS_HISTORY) {
            Some(t) => t
                .to_dtype(DType::F64)
                .and_then(|t| t.flatten_all())
                .and_then(|t| t.to_vec1::<f64>())
                .map_err(|e| bad(format!("tensor `{LOSS_HISTORY}` is unreadable ({e})")))?,
            None => Vec::new(),
        };
        Self::from_weights(arch, weights, loss_history, words)
    }
}

/// The plain-Rust forward pass of one context, compiled inside `pulp`'s dispatch so that LLVM
/// vectorises its loops for the instruction set found at run time.
struct Forward<'a> {
    model: &'a GruModel,
    context: &'a [u32],
    out: &'a mut [f64],
}

impl WithSimd for Forward<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, _simd: S) {
        let m = self.model;
        let state = m.hidden_after(self.context);
        let mut logits = vec![0.0_f32; m.arch.vocab];
        matvec_t(&mut logits, &m.weights[I_HEAD_B], &m.head_t, &state);
        softmax_into(&logits, self.out);
    }
}

impl LanguageModel for GruModel {
    fn vocab_size(&self) -> usize {
        self.arch.vocab
    }

    fn next_probs(&self, context: &[u32], out: &mut [f64]) {
        self.simd.dispatch(Forward {
            model: self,
            context,
            out,
        });
    }

    fn token_text(&self, token: u32) -> String {
        self.words
            .get(token as usize)
            .cloned()
            .unwrap_or_else(|| "<unk>".into())
    }
}

/// Trains a GRU language model on the token stream `stream` over the vocabulary `words` (see
/// the module notes). Progress is the fraction of batches done, with the epoch's loss in the
/// message; `cancel` is checked before every batch.
pub fn train(
    stream: &[u32],
    words: Arc<Vec<String>>,
    config: &GruConfig,
    seed: u64,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<GruModel, ComputeError> {
    config.validate()?;
    let arch = config.arch(words.len());
    let t = config.seq_len;
    if stream.len() < t + 2 {
        return Err(ComputeError::invalid(
            "gru.seq_len",
            format!(
                "the training text has {} tokens, fewer than one window",
                stream.len()
            ),
        ));
    }
    let vocab = arch.vocab as u32;
    let stream: Vec<u32> = stream
        .iter()
        .map(|&x| if x < vocab { x } else { 0 })
        .collect();
    let (weights, history) = single_threaded(THREAD_NAME, || {
        let device = Device::Cpu;
        let init = GruModel::initial_weights(&arch, seed);
        let mut named = HashMap::new();
        let mut vars = Vec::with_capacity(init.len());
        for ((name, shape), w) in weight_shapes(&arch).into_iter().zip(init) {
            let var = Var::from_vec(w, shape.as_slice(), &device)?;
            named.insert(name.to_owned(), var.as_tensor().clone());
            vars.push(var);
        }
        let net = CandleNet::new(named, &arch)?;
        let mut adam = AdamW::new(
            vars.clone(),
            ParamsAdamW {
                lr: config.learning_rate,
                weight_decay: config.weight_decay,
                ..ParamsAdamW::default()
            },
        )?;
        let mut rng = seeded(derive_seed(seed, 1_000));
        let per_epoch = (stream.len() - 1) / t;
        let batches_per_epoch = per_epoch.div_ceil(config.batch).max(1);
        let mut history = Vec::with_capacity(config.epochs);
        for epoch in 0..config.epochs {
            let offset = rng.random_range(0..t);
            let mut starts: Vec<usize> = (offset..stream.len() - t).step_by(t).collect();
            starts.shuffle(&mut rng);
            let (mut sum, mut count) = (0.0, 0usize);
            for (bi, batch) in starts.chunks(config.batch).enumerate() {
                cancel.check()?;
                let mut inputs = Vec::with_capacity(batch.len() * t);
                let mut targets = Vec::with_capacity(batch.len() * t);
                for &s in batch {
                    inputs.extend_from_slice(&stream[s..s + t]);
                    targets.extend_from_slice(&stream[s + 1..s + t + 1]);
                }
                let x = Tensor::from_vec(inputs, (batch.len(), t), &device)?;
                let y = Tensor::from_vec(targets, batch.len() * t, &device)?;
                let loss = candle_nn::loss::cross_entropy(&net.logits(&x)?, &y)?;
                let value = f64::from(loss.to_scalar::<f32>()?);
                if !value.is_finite() {
                    return Err(ComputeError::Numerical(format!(
                        "GRU training loss is {value} in epoch {}",
                        epoch + 1
                    )));
                }
                adam.backward_step(&loss)?;
                sum += value * batch.len() as f64;
                count += batch.len();
                progress.set_fraction(
                    (epoch as f64 + (bi + 1) as f64 / batches_per_epoch as f64)
                        / config.epochs as f64,
                );
            }
            let mean = sum / count.max(1) as f64;
            history.push(mean);
            progress.set_message(format!(
                "training the GRU: epoch {}/{}, loss {mean:.3} nats/token",
                epoch + 1,
                config.epochs
            ));
        }
        let weights = vars
            .iter()
            .map(|v| v.as_tensor().flatten_all()?.to_vec1::<f32>())
            .collect::<Result<Vec<_>, _>>()?;
        Ok((weights, history))
    })?;
    GruModel::from_weights(arch, weights, history, words)
}

/// Version of the cache key: bump when training changes what the same inputs produce.
const CACHE_FORMAT: &str = "benchtop-watermark-gru-v1";

/// The cache file of a model trained on `stream` with a `vocab`-token vocabulary, `config` and
/// `seed`: `gru-<first 16 hex digits of a SHA-256 of all four>.safetensors` in `dir`. The
/// window (inference only) is not part of the key.
pub fn cache_path(
    dir: &Path,
    stream: &[u32],
    vocab: usize,
    config: &GruConfig,
    seed: u64,
) -> PathBuf {
    let training = GruConfig {
        window: 0,
        ..config.clone()
    };
    let mut h = Sha256::new();
    h.update(format!("{CACHE_FORMAT}|{vocab}|{training:?}|{seed}|").as_bytes());
    let bytes: Vec<u8> = stream.iter().flat_map(|t| t.to_le_bytes()).collect();
    h.update(&bytes);
    let digest = h.finalize();
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    dir.join(format!("gru-{hex}.safetensors"))
}

/// How a model was obtained.
#[derive(Debug, Clone, PartialEq)]
pub enum GruSource {
    /// Trained now; `saved` is the cache file written, if any.
    Trained {
        /// The cache file written (None: no cache folder, or it could not be written).
        saved: Option<PathBuf>,
    },
    /// Read from this cache file.
    Loaded(PathBuf),
}

impl GruSource {
    /// The cache file read or written.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Self::Trained { saved } => saved.as_deref(),
            Self::Loaded(p) => Some(p),
        }
    }
}

/// The model for `stream`, `words`, `config` and `seed`: loaded from `cache_dir` when a file
/// for the same inputs is there and verified (a regular file with the hash its writer
/// recorded), otherwise trained ([`train`]) and saved there; it reads
/// `config.window` tokens. A cache file that cannot be written is not an error (the source says
/// `saved: None`); one that cannot be read is trained again.
pub fn trained_or_cached(
    stream: &[u32],
    words: Arc<Vec<String>>,
    config: &GruConfig,
    seed: u64,
    cache_dir: Option<&Path>,
    progress: &Progress,
    cancel: &CancelToken,
) -> Result<(GruModel, GruSource), ComputeError> {
    config.validate()?;
    let arch = config.arch(words.len());
    let path = cache_dir.map(|d| cache_path(d, stream, words.len(), config, seed));
    // Only a file this user's own run wrote and sealed is used (see `benchtop_compute::cache`).
    if let Some(p) = path.as_ref().filter(|p| cache::verified(p))
        && let Ok(model) = GruModel::load(p, Arc::clone(&words))
        && let Ok(model) = model.with_window(config.window)
        && model.arch == arch
    {
        progress.set_fraction(1.0);
        return Ok((model, GruSource::Loaded(p.clone())));
    }
    let model = train(stream, words, config, seed, progress, cancel)?;
    let saved = path.filter(|p| {
        p.parent()
            .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
            && model.save(p).is_ok()
            && cache::seal(p).is_ok()
    });
    Ok((model, GruSource::Trained { saved }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{KJV_TEXT, Tokenizer};
    use crate::ngram::mean_nll;

    /// A tiny configuration that trains in well under a second.
    fn tiny() -> GruConfig {
        GruConfig {
            embedding: 16,
            hidden: 32,
            window: 8,
            seq_len: 16,
            batch: 32,
            epochs: 3,
            learning_rate: 1e-2,
            weight_decay: 0.0,
            seed: 7,
        }
    }

    /// The first 12 000 tokens of the even verses (training) and 2 000 of the tenth ones
    /// (held out), on a 64-token vocabulary.
    fn data() -> (Vec<u32>, Vec<u32>, Arc<Vec<String>>) {
        let tok = Tokenizer::build(KJV_TEXT, 64);
        let verses: Vec<Vec<u32>> = KJV_TEXT.lines().map(|l| tok.encode(l)).collect();
        let pick = |f: &dyn Fn(usize) -> bool, n: usize| -> Vec<u32> {
            let mut s: Vec<u32> = verses
                .iter()
                .enumerate()
                .filter(|(i, _)| f(*i))
                .flat_map(|(_, v)| v.iter().copied())
                .collect();
            s.truncate(n);
            s
        };
        let train = pick(&|i| i % 10 != 9 && i % 2 == 0, 12_000);
        let held = pick(&|i| i % 10 == 9, 2_000);
        let words = Arc::new((0..64).map(|i| tok.word(i).to_owned()).collect());
        (train, held, words)
    }

    fn trained() -> (GruModel, Vec<u32>, Vec<u32>) {
        let (train_s, held, words) = data();
        let m = train(
            &train_s,
            words,
            &tiny(),
            3,
            &Progress::new(),
            &CancelToken::new(),
        )
        .unwrap();
        (m, train_s, held)
    }

    #[test]
    fn gru_loss_falls_and_held_out_perplexity_beats_the_unigram() {
        let (m, train_s, held) = trained();
        let h = m.loss_history();
        assert_eq!(h.len(), 3);
        assert!(h[2] < h[0] - 0.1, "loss history {h:?}");
        // Unigram with add-one counts of the training stream.
        let mut counts = vec![1.0; 64];
        train_s.iter().for_each(|&t| counts[t as usize] += 1.0);
        let total: f64 = counts.iter().sum();
        let uni = held
            .iter()
            .map(|&t| -(counts[t as usize] / total).ln())
            .sum::<f64>()
            / held.len() as f64;
        let gru = mean_nll(&m, &held[..4], &held[4..]);
        assert!(
            gru < uni - 0.1,
            "GRU held-out NLL {gru} nats vs unigram {uni}"
        );
    }

    #[test]
    fn same_seed_same_weights_other_seed_other_weights() {
        let (train_s, _, words) = data();
        let run = |seed| {
            let cfg = GruConfig {
                epochs: 1,
                ..tiny()
            };
            let s = &train_s[..3_000];
            train(
                s,
                Arc::clone(&words),
                &cfg,
                seed,
                &Progress::new(),
                &CancelToken::new(),
            )
            .unwrap()
        };
        let (a, b, c) = (run(5), run(5), run(6));
        assert_eq!(a.weights, b.weights);
        assert_eq!(a.loss_history, b.loss_history);
        assert_ne!(a.weights, c.weights);
    }

    #[test]
    fn plain_rust_inference_equals_the_candle_forward() {
        let (m, _, held) = trained();
        let mut p = vec![0.0; 64];
        for ctx in [&[][..], &held[..1], &held[..5], &held[..40]] {
            m.next_probs(ctx, &mut p);
            let q = m.next_probs_candle(ctx).unwrap();
            let diff = p
                .iter()
                .zip(&q)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f64::max);
            // f32 sums in another order: a few ulps of the logits, ~1e-6 in probability.
            assert!(diff < 1e-5, "context {}: max |Δp| = {diff:e}", ctx.len());
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn save_load_round_trip_gives_identical_probabilities() {
        let (m, _, held) = trained();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.safetensors");
        m.save(&path).unwrap();
        let back = GruModel::load(&path, Arc::clone(&m.words)).unwrap();
        assert_eq!(back.arch, m.arch, "the window comes from the file");
        assert_eq!(back.loss_history, m.loss_history);
        let (mut p, mut q) = (vec![0.0; 64], vec![0.0; 64]);
        for n in [0, 3, 20] {
            m.next_probs(&held[..n], &mut p);
            back.next_probs(&held[..n], &mut q);
            assert_eq!(p, q);
        }
    }

    #[test]
    fn bad_files_name_the_file_and_the_tensor() {
        let (m, _, _) = trained();
        let dir = tempfile::tempdir().unwrap();
        let words = Arc::clone(&m.words);
        let write = |name: &str, edit: &dyn Fn(&mut HashMap<String, Tensor>)| {
            let mut t = m.tensors().unwrap();
            edit(&mut t);
            let path = dir.path().join(name);
            candle_core::safetensors::save(&t, &path).unwrap();
            path
        };
        let err = |path: &Path| {
            GruModel::load(path, Arc::clone(&words))
                .unwrap_err()
                .to_string()
        };
        let missing = write("missing.safetensors", &|t| {
            t.remove(W_HH);
        });
        let e = err(&missing);
        assert!(
            e.contains("missing.safetensors") && e.contains(W_HH) && e.contains("missing"),
            "{e}"
        );
        let shape = write("shape.safetensors", &|t| {
            t.insert(
                HEAD_B.to_owned(),
                Tensor::zeros(63, DType::F32, &Device::Cpu).unwrap(),
            );
        });
        let e = err(&shape);
        assert!(
            e.contains("shape.safetensors") && e.contains(HEAD_B) && e.contains("[64]"),
            "{e}"
        );
        let vocab = write("vocab.safetensors", &|t| {
            t.insert(
                EMBEDDING.to_owned(),
                Tensor::zeros((128, 16), DType::F32, &Device::Cpu).unwrap(),
            );
        });
        let e = err(&vocab);
        assert!(e.contains(EMBEDDING) && e.contains("128"), "{e}");
        let junk = dir.path().join("junk.safetensors");
        std::fs::write(&junk, b"not a tensor file").unwrap();
        assert!(err(&junk).contains("junk.safetensors"));
        // A file without `config` reads the default window; the weights load in f64 too.
        let f64s = write("f64.safetensors", &|t| {
            for v in t.values_mut() {
                *v = v.to_dtype(DType::F64).unwrap();
            }
        });
        let back = GruModel::load(&f64s, Arc::clone(&words)).unwrap();
        assert_eq!(back.arch.window, DEFAULT_WINDOW);
        assert_eq!(back.weights, m.weights);
        assert_eq!(back.with_window(3).unwrap().arch.window, 3);
    }

    #[test]
    fn the_cache_trains_once_then_loads() {
        let (train_s, _, words) = data();
        let dir = tempfile::tempdir().unwrap();
        let cfg = GruConfig {
            epochs: 1,
            ..tiny()
        };
        let s = &train_s[..2_000];
        let go = || {
            trained_or_cached(
                s,
                Arc::clone(&words),
                &cfg,
                9,
                Some(dir.path()),
                &Progress::new(),
                &CancelToken::new(),
            )
            .unwrap()
        };
        let (a, first) = go();
        let (b, second) = go();
        assert!(matches!(first, GruSource::Trained { saved: Some(_) }));
        assert_eq!(
            second,
            GruSource::Loaded(first.file().unwrap().to_path_buf())
        );
        assert_eq!(a.weights, b.weights);
        assert_eq!(a.loss_history, b.loss_history);
        let other = cache_path(dir.path(), s, 64, &cfg, 10);
        assert_ne!(other, first.file().unwrap(), "the seed is in the key");
        let wider = GruConfig {
            window: 4,
            ..cfg.clone()
        };
        assert_eq!(
            cache_path(dir.path(), s, 64, &wider, 9),
            first.file().unwrap(),
            "the window is not"
        );
    }

    #[test]
    fn planted_weights_in_the_cache_are_not_used() {
        let (train_s, _, words) = data();
        let dir = tempfile::tempdir().unwrap();
        let cfg = GruConfig {
            epochs: 1,
            ..tiny()
        };
        let s = &train_s[..2_000];
        let go = |seed| {
            trained_or_cached(
                s,
                Arc::clone(&words),
                &cfg,
                seed,
                Some(dir.path()),
                &Progress::new(),
                &CancelToken::new(),
            )
            .unwrap()
        };
        // Another model's weights copied over seed 9's cache file (without its recorded hash):
        // seed 9 is trained again, not loaded.
        let (_, other) = go(10);
        let planted = cache_path(dir.path(), s, 64, &cfg, 9);
        std::fs::copy(other.file().unwrap(), &planted).unwrap();
        let (_, source) = go(9);
        assert!(matches!(source, GruSource::Trained { .. }), "{source:?}");
        // A link planted at the name is replaced, its target never written.
        let target = dir.path().join("target");
        std::fs::write(&target, b"not a model").unwrap();
        let seed_11 = cache_path(dir.path(), s, 64, &cfg, 11);
        std::os::unix::fs::symlink(&target, &seed_11).unwrap();
        let (_, source) = go(11);
        assert!(
            matches!(source, GruSource::Trained { saved: Some(_) }),
            "{source:?}"
        );
        assert_eq!(std::fs::read(&target).unwrap(), b"not a model");
    }

    #[test]
    fn training_stops_when_cancelled() {
        let (train_s, _, words) = data();
        let cancel = CancelToken::new();
        cancel.cancel();
        let r = train(&train_s, words, &tiny(), 1, &Progress::new(), &cancel);
        assert!(matches!(r, Err(ComputeError::Cancelled)));
    }
}
