//! The networks, in candle on the CPU: a GIN (sum aggregation, h ← MLP(h + Σ_neighbours h))
//! shared by every copy of a graph. A copy is the original graph or the graph with one node
//! marked (an extra input channel that is 1 on that node). Node inputs are `[1, label, mark]`,
//! followed by the CSE when the method uses it. Node embeddings are mean-pooled over a graph's
//! copies, summed over its nodes, and a two-layer head gives one number per graph. With no
//! marked copy this is the plain MPNN.
//!
//! As in the paper's GIN, each layer's first linear map is batch-normalised over the copy-nodes,
//! and the graph readout over the graphs, before its ReLU (without a learned scale and shift:
//! the next linear map absorbs them). Training uses the batch's statistics; after training,
//! [`Gin::calibrate`] sets the statistics prediction uses to those of the whole training set, so
//! a prediction does not depend on how graphs are batched. Without the readout normalisation the sum over nodes carries a large part
//! common to every graph and properties that differ little between graphs (e.g. molecular
//! weight in a narrow weight band) are not learned.

use std::sync::Mutex;

use candle_core::{DType, Device, Tensor, Var};
use serde::{Deserialize, Serialize};

use benchtop_compute::ComputeError;
use benchtop_compute::rng::seeded;

use crate::graph::Graph;

/// Network shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelConfig {
    /// Width of every hidden layer.
    pub hidden: usize,
    /// GIN layers.
    pub layers: usize,
}

impl Default for ModelConfig {
    fn default() -> Self {
        Self {
            hidden: 32,
            layers: 3,
        }
    }
}

impl ModelConfig {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), ComputeError> {
        if !(1..=1024).contains(&self.hidden) {
            return Err(ComputeError::invalid("hidden", "choose 1 to 1024"));
        }
        if !(1..=16).contains(&self.layers) {
            return Err(ComputeError::invalid("layers", "choose 1 to 16"));
        }
        Ok(())
    }
}

/// One graph as the model sees it: the graph, its CSE rows (empty when unused) and the nodes
/// that get a marked copy (the unmarked original is always a copy too).
#[derive(Debug, Clone, Copy)]
pub struct GraphInput<'a> {
    /// The graph.
    pub graph: &'a Graph,
    /// CSE row per node; empty slices when the model has no CSE input.
    pub cse: &'a [Vec<f64>],
    /// Marked nodes, one copy each.
    pub marks: &'a [usize],
}

/// A batch of graphs with all their copies flattened into one disjoint graph.
#[derive(Debug)]
pub struct Batch {
    x: Tensor,
    src: Tensor,
    dst: Tensor,
    copy_to_node: Tensor,
    node_weight: Tensor,
    node_to_graph: Tensor,
    n_nodes: usize,
    n_graphs: usize,
}

impl Batch {
    /// Flattens `inputs`; `cse_dims` is the CSE width the model expects (0 for none).
    pub fn new(inputs: &[GraphInput<'_>], cse_dims: usize) -> Result<Self, ComputeError> {
        let width = 3 + cse_dims;
        let (mut x, mut src, mut dst) = (Vec::new(), Vec::new(), Vec::new());
        let (mut copy_to_node, mut node_weight, mut node_to_graph) =
            (Vec::new(), Vec::new(), Vec::new());
        let (mut rows, mut node_offset) = (0u32, 0u32);
        for (gi, input) in inputs.iter().enumerate() {
            let g = input.graph;
            if cse_dims > 0
                && (input.cse.len() != g.n || input.cse.iter().any(|r| r.len() < cse_dims))
            {
                return Err(ComputeError::invalid(
                    "cse",
                    "one CSE row of K terms per node",
                ));
            }
            let copies = 1 + input.marks.len();
            for copy in 0..copies {
                let mark = copy.checked_sub(1).map(|i| input.marks[i]);
                for v in 0..g.n {
                    x.push(1.0f32);
                    x.push(g.node_labels[v] as f32);
                    x.push(if mark == Some(v) { 1.0 } else { 0.0 });
                    if cse_dims > 0 {
                        x.extend(input.cse[v][..cse_dims].iter().map(|&c| c as f32));
                    }
                    copy_to_node.push(node_offset + v as u32);
                }
                for &(a, b) in &g.edges {
                    src.extend([rows + a as u32, rows + b as u32]);
                    dst.extend([rows + b as u32, rows + a as u32]);
                }
                rows += g.n as u32;
            }
            for _ in 0..g.n {
                node_weight.push(1.0 / copies as f32);
                node_to_graph.push(gi as u32);
            }
            node_offset += g.n as u32;
        }
        let dev = Device::Cpu;
        let rows = rows as usize;
        Ok(Self {
            x: Tensor::from_vec(x, (rows, width), &dev)?,
            src: Tensor::new(src, &dev)?,
            dst: Tensor::new(dst, &dev)?,
            copy_to_node: Tensor::new(copy_to_node, &dev)?,
            node_weight: Tensor::from_vec(node_weight, (node_offset as usize, 1), &dev)?,
            node_to_graph: Tensor::new(node_to_graph, &dev)?,
            n_nodes: node_offset as usize,
            n_graphs: inputs.len(),
        })
    }

    /// Number of graphs.
    pub fn graphs(&self) -> usize {
        self.n_graphs
    }
}

/// Batch normalisation without a learned scale and shift: each feature standardised over the
/// rows, by the batch's statistics in training and by their running averages in prediction.
#[derive(Debug)]
struct Norm {
    /// Running mean and (biased) variance, each `(1, width)`.
    running: Mutex<(Tensor, Tensor)>,
}

/// Weight of the newest batch in the running statistics during training.
const NORM_MOMENTUM: f64 = 0.1;
/// Added to the variance before the square root.
const NORM_EPS: f64 = 1e-5;

impl Norm {
    fn new(width: usize) -> candle_core::Result<Self> {
        let dev = Device::Cpu;
        Ok(Self {
            running: Mutex::new((
                Tensor::zeros((1, width), DType::F32, &dev)?,
                Tensor::ones((1, width), DType::F32, &dev)?,
            )),
        })
    }

    fn running(&self) -> candle_core::Result<std::sync::MutexGuard<'_, (Tensor, Tensor)>> {
        self.running
            .lock()
            .map_err(|_| candle_core::Error::Msg("normalisation statistics lock poisoned".into()))
    }

    /// Standardises by the batch's statistics and moves the running averages towards them by
    /// `momentum` (1: replaces them).
    fn train(&self, x: &Tensor, momentum: f64) -> candle_core::Result<Tensor> {
        let mean = x.mean_keepdim(0)?;
        let centred = x.broadcast_sub(&mean)?;
        let var = centred.sqr()?.mean_keepdim(0)?;
        {
            let mut running = self.running()?;
            let keep = 1.0 - momentum;
            running.0 = ((&running.0 * keep)? + (mean.detach() * momentum)?)?;
            running.1 = ((&running.1 * keep)? + (var.detach() * momentum)?)?;
        }
        centred.broadcast_div(&(var + NORM_EPS)?.sqrt()?)
    }

    /// Standardises by the running averages.
    fn eval(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let running = self.running()?;
        x.broadcast_sub(&running.0)?
            .broadcast_div(&(&running.1 + NORM_EPS)?.sqrt()?)
    }

    /// Training (`Some(momentum)`) or prediction (`None`).
    fn apply(&self, x: &Tensor, momentum: Option<f64>) -> candle_core::Result<Tensor> {
        match momentum {
            Some(m) => self.train(x, m),
            None => self.eval(x),
        }
    }
}

/// A dense layer y = x Wᵀ + b with its own seeded initialisation.
#[derive(Debug)]
struct Dense {
    w: Var,
    b: Var,
}

impl Dense {
    fn new(inputs: usize, outputs: usize, rng: &mut impl rand::Rng) -> Result<Self, ComputeError> {
        // PyTorch's default: U(−1/√in, 1/√in) for weights and biases.
        let bound = 1.0 / (inputs as f32).sqrt();
        let mut draw =
            |k: usize| -> Vec<f32> { (0..k).map(|_| rng.random_range(-bound..bound)).collect() };
        let w = Tensor::from_vec(draw(inputs * outputs), (outputs, inputs), &Device::Cpu)?;
        let b = Tensor::from_vec(draw(outputs), outputs, &Device::Cpu)?;
        Ok(Self {
            w: Var::from_tensor(&w)?,
            b: Var::from_tensor(&b)?,
        })
    }

    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        x.matmul(&self.w.as_tensor().t()?)?
            .broadcast_add(self.b.as_tensor())
    }
}

/// The GIN (optionally over marked copies).
#[derive(Debug)]
pub struct Gin {
    embed: Dense,
    layers: Vec<(Dense, Dense)>,
    /// One normalisation per layer (after its first linear map) and one for the readout.
    norms: Vec<Norm>,
    head: (Dense, Dense),
    cse_dims: usize,
}

impl Gin {
    /// A freshly initialised network with `cse_dims` CSE inputs (0 for none).
    pub fn new(config: &ModelConfig, cse_dims: usize, seed: u64) -> Result<Self, ComputeError> {
        config.validate()?;
        let mut rng = seeded(seed);
        let h = config.hidden;
        let embed = Dense::new(3 + cse_dims, h, &mut rng)?;
        let layers = (0..config.layers)
            .map(|_| Ok((Dense::new(h, h, &mut rng)?, Dense::new(h, h, &mut rng)?)))
            .collect::<Result<_, ComputeError>>()?;
        let head = (Dense::new(h, h, &mut rng)?, Dense::new(h, 1, &mut rng)?);
        let norms = (0..=config.layers)
            .map(|_| Norm::new(h))
            .collect::<candle_core::Result<_>>()?;
        Ok(Self {
            embed,
            layers,
            norms,
            head,
            cse_dims,
        })
    }

    /// The CSE width this network takes.
    pub fn cse_dims(&self) -> usize {
        self.cse_dims
    }

    /// Every trainable tensor.
    pub fn vars(&self) -> Vec<Var> {
        let mut v = vec![self.embed.w.clone(), self.embed.b.clone()];
        for (a, b) in self.layers.iter().chain(std::iter::once(&self.head)) {
            v.extend([a.w.clone(), a.b.clone(), b.w.clone(), b.b.clone()]);
        }
        v
    }

    /// One output per graph, shape `(graphs,)`, as in training: normalised by the batch's
    /// statistics, which this call also folds into the running averages.
    pub fn forward_train(&self, batch: &Batch) -> candle_core::Result<Tensor> {
        self.forward_with(batch, Some(NORM_MOMENTUM))
    }

    /// Sets the statistics prediction uses to those of `batch` (the whole training set), layer
    /// by layer in one pass; call it after training.
    pub fn calibrate(&self, batch: &Batch) -> candle_core::Result<()> {
        self.forward_with(batch, Some(1.0)).map(|_| ())
    }

    /// One output per graph, shape `(graphs,)`, as in prediction: normalised by the running
    /// averages (the model is not changed).
    pub fn forward(&self, batch: &Batch) -> candle_core::Result<Tensor> {
        self.forward_with(batch, None)
    }

    fn forward_with(&self, batch: &Batch, momentum: Option<f64>) -> candle_core::Result<Tensor> {
        let mut h = self.embed.forward(&batch.x)?;
        let hidden = h.dim(1)?;
        for ((a, b), norm) in self.layers.iter().zip(&self.norms) {
            let messages = h.index_select(&batch.src, 0)?;
            let agg = h.zeros_like()?.index_add(&batch.dst, &messages, 0)?;
            let z = norm.apply(&a.forward(&(h + agg)?)?, momentum)?;
            h = b.forward(&z.relu()?)?.relu()?;
        }
        let nodes = Tensor::zeros((batch.n_nodes, hidden), DType::F32, h.device())?
            .index_add(&batch.copy_to_node, &h, 0)?
            .broadcast_mul(&batch.node_weight)?;
        let graphs = Tensor::zeros((batch.n_graphs, hidden), DType::F32, h.device())?.index_add(
            &batch.node_to_graph,
            &nodes,
            0,
        )?;
        let readout = self.norms[self.layers.len()].apply(&graphs, momentum)?;
        self.head
            .1
            .forward(&self.head.0.forward(&readout)?.relu()?)?
            .squeeze(1)
    }

    /// Outputs as plain numbers.
    pub fn predict(&self, batch: &Batch) -> Result<Vec<f64>, ComputeError> {
        let y = self.forward(batch)?.to_vec1::<f32>()?;
        Ok(y.into_iter().map(f64::from).collect())
    }
}

#[cfg(test)]
mod hymn_model_tests {
    use super::*;
    use crate::centrality::cse;

    fn out(model: &Gin, g: &Graph, marks: &[usize], k: usize) -> f64 {
        let rows = if k > 0 { cse(g, k) } else { Vec::new() };
        let input = GraphInput {
            graph: g,
            cse: &rows,
            marks,
        };
        model.predict(&Batch::new(&[input], k).unwrap()).unwrap()[0]
    }

    #[test]
    fn mpnn_cannot_separate_c6_from_two_triangles_but_marks_and_cse_do() {
        let c6 = Graph::cycle(6);
        let two = Graph::cycle(3).disjoint_union(&Graph::cycle(3));
        for seed in [1, 2, 3] {
            let config = ModelConfig {
                hidden: 16,
                layers: 2,
            };
            let mpnn = Gin::new(&config, 0, seed).unwrap();
            let (a, b) = (out(&mpnn, &c6, &[], 0), out(&mpnn, &two, &[], 0));
            assert!(
                (a - b).abs() <= 1e-6 * a.abs().max(1.0),
                "seed {seed}: {a} vs {b}"
            );
            // One marked copy (node 0; every node ties in centrality) separates them.
            let (a, b) = (out(&mpnn, &c6, &[0], 0), out(&mpnn, &two, &[0], 0));
            assert!((a - b).abs() > 1e-4, "seed {seed}: marked {a} vs {b}");
            // The full bag too.
            let all: Vec<usize> = (0..6).collect();
            let (a, b) = (out(&mpnn, &c6, &all, 0), out(&mpnn, &two, &all, 0));
            assert!((a - b).abs() > 1e-4, "seed {seed}: full bag {a} vs {b}");
            // The CSE as input, no marks.
            let with_cse = Gin::new(&config, 4, seed).unwrap();
            let (a, b) = (out(&with_cse, &c6, &[], 4), out(&with_cse, &two, &[], 4));
            assert!((a - b).abs() > 1e-4, "seed {seed}: CSE {a} vs {b}");
        }
    }

    /// MPNN+CSE sees exactly what the marking methods see, without the marked copies: its rows
    /// are each graph's unmarked copy in a centrality+CSE (or random+CSE) batch, and every
    /// marked copy differs from them only in the mark channel, on the marked node.
    #[test]
    fn mpnn_cse_sees_the_marked_methods_inputs_without_marks() {
        use crate::generate::{GraphSetParams, generate};
        use crate::sampling::Method;
        use crate::train::{Prepared, batch_for};
        let set = generate(
            &GraphSetParams {
                graphs: 12,
                min_nodes: 6,
                max_nodes: 9,
                ..GraphSetParams::default()
            },
            2,
        )
        .unwrap();
        let k = 8;
        let prep = Prepared::new(&set, k);
        let ids: Vec<usize> = (0..set.graphs.len()).collect();
        let mut rng = seeded(1);
        let plain = batch_for(&set, &prep, &ids, Method::MpnnCse, 2, k, &mut rng).unwrap();
        let rows = |b: &Batch| b.x.to_vec2::<f32>().unwrap();
        let p = rows(&plain);
        assert_eq!(p[0].len(), 3 + k);
        assert!(p.iter().all(|r| r[2] == 0.0), "no marks");
        for marked_method in [Method::CentralityCse, Method::RandomCse] {
            let t = 2;
            let marked = batch_for(&set, &prep, &ids, marked_method, t, k, &mut rng).unwrap();
            let m = rows(&marked);
            assert_eq!(m.len(), p.len() * (1 + t));
            let (mut at_p, mut at_m) = (0, 0);
            for g in &set.graphs {
                let unmarked = &p[at_p..at_p + g.n];
                assert_eq!(&m[at_m..at_m + g.n], unmarked, "{marked_method:?}");
                for copy in 1..=t {
                    let rows = &m[at_m + copy * g.n..at_m + (copy + 1) * g.n];
                    let marks: Vec<usize> = (0..g.n).filter(|&v| rows[v][2] == 1.0).collect();
                    assert_eq!(marks.len(), 1);
                    for (v, (a, b)) in rows.iter().zip(unmarked).enumerate() {
                        assert_eq!(a[..2], b[..2]);
                        assert_eq!(a[3..], b[3..]);
                        assert_eq!(a[2] == 1.0, v == marks[0]);
                    }
                }
                at_p += g.n;
                at_m += g.n * (1 + t);
            }
        }
        // Without the CSE the same holds for the plain MPNN against centrality marking.
        let plain = batch_for(&set, &prep, &ids, Method::Mpnn, 2, k, &mut rng).unwrap();
        let marked = batch_for(&set, &prep, &ids, Method::Centrality, 2, k, &mut rng).unwrap();
        let (p, m) = (rows(&plain), rows(&marked));
        assert_eq!(p[0].len(), 3);
        let n0 = set.graphs[0].n;
        assert_eq!(m[..n0], p[..n0]);
        // And the CSE columns of MPNN+CSE are the CSE itself.
        let with_cse = batch_for(&set, &prep, &ids, Method::MpnnCse, 0, k, &mut rng).unwrap();
        let w = rows(&with_cse);
        for (row, cse) in w.iter().zip(&prep.cse[0]).take(n0) {
            for j in 0..k {
                assert_eq!(row[3 + j], cse[j] as f32);
            }
        }
    }

    #[test]
    fn outputs_do_not_depend_on_node_order_or_batch_mates() {
        let g = Graph::new(5, &[(0, 1), (1, 2), (2, 0), (2, 3), (3, 4)]).unwrap();
        // The same graph with nodes relabelled v -> 4 - v.
        let h = Graph::new(5, &[(4, 3), (3, 2), (2, 4), (2, 1), (1, 0)]).unwrap();
        let model = Gin::new(&ModelConfig::default(), 0, 9).unwrap();
        assert!((out(&model, &g, &[2], 0) - out(&model, &h, &[2], 0)).abs() < 1e-5);
        let single = out(&model, &g, &[0, 3], 0);
        let other = Graph::cycle(4);
        let inputs = [
            GraphInput {
                graph: &other,
                cse: &[],
                marks: &[1],
            },
            GraphInput {
                graph: &g,
                cse: &[],
                marks: &[0, 3],
            },
        ];
        let both = model.predict(&Batch::new(&inputs, 0).unwrap()).unwrap();
        assert!((both[1] - single).abs() < 1e-5);
    }
}
