//! Representational and functional similarity: the representational similarity matrix
//! RSM = HᵀH, RSA (correlation of two RSMs), linear CKA, and a functional distance between two
//! networks' outputs.

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

/// The representational similarity matrix `HᵀH` of a hidden representation `H` (`hidden × P`).
pub fn rsm(hidden: &DMatrix<f64>) -> DMatrix<f64> {
    hidden.transpose() * hidden
}

/// `C K C` with `C = I − 11ᵀ/P`: the Gram matrix of the representation centred over items.
fn centred(k: &DMatrix<f64>) -> DMatrix<f64> {
    let p = k.nrows();
    let inv = 1.0 / p.max(1) as f64;
    let row_means: Vec<f64> = (0..p).map(|i| k.row(i).sum() * inv).collect();
    let col_means: Vec<f64> = (0..p).map(|j| k.column(j).sum() * inv).collect();
    let mean = row_means.iter().sum::<f64>() * inv;
    DMatrix::from_fn(p, p, |i, j| k[(i, j)] - row_means[i] - col_means[j] + mean)
}

/// Linear CKA between two representations given by their RSMs (`HᵀH`, items × items):
/// `⟨K̃₁, K̃₂⟩ / (‖K̃₁‖ ‖K̃₂‖)` with `K̃ = CKC` centred over items. 1 for representations equal
/// up to rotation and scale; NaN when one is constant over items.
pub fn linear_cka(rsm_a: &DMatrix<f64>, rsm_b: &DMatrix<f64>) -> f64 {
    let (a, b) = (centred(rsm_a), centred(rsm_b));
    let denominator = a.norm() * b.norm();
    if denominator > 0.0 {
        a.dot(&b) / denominator
    } else {
        f64::NAN
    }
}

/// RSA: the Pearson correlation of the strictly upper-triangular entries of two RSMs (NaN if
/// either is constant there).
pub fn rsa(rsm_a: &DMatrix<f64>, rsm_b: &DMatrix<f64>) -> f64 {
    let p = rsm_a.nrows();
    let upper = |m: &DMatrix<f64>| -> Vec<f64> {
        (0..p)
            .flat_map(|i| ((i + 1)..p).map(move |j| (i, j)))
            .map(|(i, j)| m[(i, j)])
            .collect()
    };
    pearson(&upper(rsm_a), &upper(rsm_b))
}

fn pearson(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    if a.is_empty() {
        return f64::NAN;
    }
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    if saa > 0.0 && sbb > 0.0 {
        sab / (saa * sbb).sqrt()
    } else {
        f64::NAN
    }
}

/// Functional distance between two networks: `‖Ŷ₁ − Ŷ₂‖_F / ‖Y‖_F`, their outputs on the data's
/// items relative to the size of the targets `y`.
pub fn function_distance(out_a: &DMatrix<f64>, out_b: &DMatrix<f64>, y: &DMatrix<f64>) -> f64 {
    let scale = y.norm();
    let distance = (out_a - out_b).norm();
    if scale > 0.0 {
        distance / scale
    } else {
        distance
    }
}

/// Similarities of one pair of networks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairSimilarity {
    /// Index of the first network.
    pub a: usize,
    /// Index of the second network.
    pub b: usize,
    /// Linear CKA of their hidden representations.
    pub cka: f64,
    /// RSA (correlation of RSMs).
    pub rsa: f64,
    /// Functional distance ([`function_distance`]).
    pub function_distance: f64,
}

/// All pairs `a < b` of networks given by RSMs and outputs.
pub fn pairwise(
    rsms: &[&DMatrix<f64>],
    outputs: &[&DMatrix<f64>],
    y: &DMatrix<f64>,
) -> Vec<PairSimilarity> {
    let n = rsms.len().min(outputs.len());
    (0..n)
        .flat_map(|a| ((a + 1)..n).map(move |b| (a, b)))
        .map(|(a, b)| PairSimilarity {
            a,
            b,
            cka: linear_cka(rsms[a], rsms[b]),
            rsa: rsa(rsms[a], rsms[b]),
            function_distance: function_distance(outputs[a], outputs[b], y),
        })
        .collect()
}

/// The mean of finite values (NaN if there are none).
pub fn finite_mean(values: impl IntoIterator<Item = f64>) -> f64 {
    let (sum, count) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((0.0, 0_usize), |(s, c), v| (s + v, c + 1));
    if count > 0 {
        sum / count as f64
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linalg::{cayley, gaussian, random_antisymmetric};

    #[test]
    fn linnet_cka_is_one_under_rotation_and_scale_and_rsa_is_symmetric() {
        let h = gaussian(6, 9, 1);
        let q = cayley(&random_antisymmetric(6, 2));
        let rotated = &q * &h * 3.0;
        assert!((linear_cka(&rsm(&h), &rsm(&rotated)) - 1.0).abs() < 1e-12);
        assert!((rsa(&rsm(&h), &rsm(&rotated)) - 1.0).abs() < 1e-12);
        let other = gaussian(6, 9, 3);
        let (c1, c2) = (
            linear_cka(&rsm(&h), &rsm(&other)),
            linear_cka(&rsm(&other), &rsm(&h)),
        );
        assert!((c1 - c2).abs() < 1e-14 && c1 < 0.99 && c1 > 0.0);
        // CKA ignores a shift common to all items (the centring).
        let c = gaussian(6, 1, 4);
        let shifted = DMatrix::from_fn(6, 9, |i, j| h[(i, j)] + c[(i, 0)]);
        assert!((linear_cka(&rsm(&h), &rsm(&shifted)) - 1.0).abs() < 1e-12);
        let pairs = pairwise(
            &[&rsm(&h), &rsm(&rotated), &rsm(&other)],
            &[&h, &h, &other],
            &h,
        );
        assert_eq!(pairs.len(), 3);
        assert!(pairs[0].function_distance.abs() < 1e-15);
        assert!(pairs[1].function_distance > 0.5);
    }
}
