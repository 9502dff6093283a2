//! A small tanh multilayer perceptron with a hand-written forward-over-reverse pass.
//!
//! The force loss needs the gradient, with respect to the weights, of a directional
//! derivative of the network (F = −∂E/∂R contracted with an adjoint). The forward pass
//! therefore carries a tangent (dual numbers: value and derivative along one input
//! direction), and the backward pass differentiates both the value and the tangent with
//! respect to every weight. This is exact, cheap for the scalar pair model, and checked
//! against finite differences in the tests.

use rand::Rng;
use rand_distr::{Distribution, Normal};

/// Layer sizes: input, hidden…, output. Hidden layers use tanh, the last is linear.
/// Parameters live in one flat slice: for each layer its weights (row-major, out × in)
/// then its biases.
#[derive(Clone, Debug, PartialEq)]
pub struct Mlp {
    /// Input, hidden and output widths.
    pub sizes: Vec<usize>,
}

/// Activations and tangents of one forward pass, kept for the backward pass.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Layer inputs/outputs: `a[0]` is the input, `a[last]` the output.
    a: Vec<Vec<f64>>,
    /// Tangents of `a` along the input direction.
    ad: Vec<Vec<f64>>,
    /// Tangents of the pre-activations.
    zd: Vec<Vec<f64>>,
}

impl Trace {
    /// The network's output.
    pub fn output(&self) -> &[f64] {
        &self.a[self.a.len() - 1]
    }

    /// The output's derivative along the input tangent.
    pub fn output_tangent(&self) -> &[f64] {
        &self.ad[self.ad.len() - 1]
    }
}

impl Mlp {
    /// A network with these widths.
    pub fn new(sizes: Vec<usize>) -> Self {
        Self { sizes }
    }

    /// Number of parameters.
    pub fn n_params(&self) -> usize {
        self.sizes.windows(2).map(|w| w[1] * w[0] + w[1]).sum()
    }

    /// Glorot-normal weights, zero biases; the last layer is scaled by `last_gain`.
    pub fn init(&self, rng: &mut impl Rng, last_gain: f64) -> Vec<f64> {
        let mut p = Vec::with_capacity(self.n_params());
        let layers = self.sizes.len() - 1;
        for (l, w) in self.sizes.windows(2).enumerate() {
            let sd =
                (2.0 / (w[0] + w[1]) as f64).sqrt() * if l + 1 == layers { last_gain } else { 1.0 };
            let normal = Normal::new(0.0, sd).expect("finite sd");
            p.extend((0..w[0] * w[1]).map(|_| normal.sample(rng)));
            p.extend(std::iter::repeat_n(0.0, w[1]));
        }
        p
    }

    /// Forward pass of input `x` with input tangent `xd` (same length).
    pub fn forward(&self, p: &[f64], x: &[f64], xd: &[f64]) -> Trace {
        let layers = self.sizes.len() - 1;
        let mut a = vec![x.to_vec()];
        let mut ad = vec![xd.to_vec()];
        let mut zd = Vec::with_capacity(layers);
        let mut off = 0;
        for l in 0..layers {
            let (n_in, n_out) = (self.sizes[l], self.sizes[l + 1]);
            let w = &p[off..off + n_in * n_out];
            let b = &p[off + n_in * n_out..off + n_in * n_out + n_out];
            off += n_in * n_out + n_out;
            let (ai, adi) = (&a[l], &ad[l]);
            let mut z = b.to_vec();
            let mut zdl = vec![0.0; n_out];
            for o in 0..n_out {
                let row = &w[o * n_in..(o + 1) * n_in];
                let (mut s, mut sd) = (0.0, 0.0);
                for i in 0..n_in {
                    s += row[i] * ai[i];
                    sd += row[i] * adi[i];
                }
                z[o] += s;
                zdl[o] = sd;
            }
            if l + 1 < layers {
                let t: Vec<f64> = z.iter().map(|v| v.tanh()).collect();
                let tdot = t.iter().zip(&zdl).map(|(t, d)| (1.0 - t * t) * d).collect();
                a.push(t);
                ad.push(tdot);
            } else {
                a.push(z);
                ad.push(zdl.clone());
            }
            zd.push(zdl);
        }
        Trace { a, ad, zd }
    }

    /// Backward pass: adds to `grad` the weight gradient of `ybar·y + ydbar·ẏ` and returns
    /// the adjoints of the input and of the input tangent.
    pub fn backward(
        &self,
        p: &[f64],
        tr: &Trace,
        ybar: &[f64],
        ydbar: &[f64],
        grad: &mut [f64],
    ) -> (Vec<f64>, Vec<f64>) {
        let layers = self.sizes.len() - 1;
        let mut offsets = Vec::with_capacity(layers);
        let mut off = 0;
        for l in 0..layers {
            offsets.push(off);
            off += self.sizes[l] * self.sizes[l + 1] + self.sizes[l + 1];
        }
        let mut abar = ybar.to_vec();
        let mut adbar = ydbar.to_vec();
        for l in (0..layers).rev() {
            let (n_in, n_out) = (self.sizes[l], self.sizes[l + 1]);
            let off = offsets[l];
            let (zbar, zdbar): (Vec<f64>, Vec<f64>) = if l + 1 < layers {
                (0..n_out)
                    .map(|o| {
                        let t = tr.a[l + 1][o];
                        let s1 = 1.0 - t * t;
                        let s2 = -2.0 * t * s1;
                        (abar[o] * s1 + adbar[o] * s2 * tr.zd[l][o], adbar[o] * s1)
                    })
                    .unzip()
            } else {
                (abar.clone(), adbar.clone())
            };
            let (ai, adi) = (&tr.a[l], &tr.ad[l]);
            let mut ain = vec![0.0; n_in];
            let mut adin = vec![0.0; n_in];
            for o in 0..n_out {
                let (zb, zdb) = (zbar[o], zdbar[o]);
                let row = off + o * n_in;
                for i in 0..n_in {
                    grad[row + i] += zb * ai[i] + zdb * adi[i];
                    let w = p[row + i];
                    ain[i] += w * zb;
                    adin[i] += w * zdb;
                }
                grad[off + n_in * n_out + o] += zb;
            }
            abar = ain;
            adbar = adin;
        }
        (abar, adbar)
    }
}
