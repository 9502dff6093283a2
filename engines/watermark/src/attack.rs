//! Edits an adversary makes to a watermarked text, each at a rate in [0, 1].

use rand::Rng;
use serde::{Deserialize, Serialize};

/// An attack on a token sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Attack {
    /// Each token is replaced by a uniformly random token with probability `rate`.
    Substitution,
    /// Each token is removed with probability `rate`.
    Deletion,
    /// After each token a uniformly random token is inserted with probability `rate`.
    Insertion,
    /// A fraction `rate` of the text is replaced by unwatermarked text (half before, half after
    /// the watermarked middle), length unchanged.
    CopyPaste,
}

impl Attack {
    /// All attacks in display order.
    pub const ALL: [Attack; 4] = [
        Attack::Substitution,
        Attack::Deletion,
        Attack::Insertion,
        Attack::CopyPaste,
    ];

    /// Display name.
    pub fn name(self) -> &'static str {
        match self {
            Attack::Substitution => "substitution",
            Attack::Deletion => "deletion",
            Attack::Insertion => "insertion",
            Attack::CopyPaste => "copy-paste",
        }
    }
}

/// Applies `attack` at `rate` to `text`; `plain` supplies the unwatermarked text copy-paste uses
/// and `vocab` the range of random tokens.
pub fn apply(
    attack: Attack,
    rate: f64,
    text: &[u32],
    plain: &[u32],
    vocab: usize,
    rng: &mut impl Rng,
) -> Vec<u32> {
    let rate = rate.clamp(0.0, 1.0);
    let random_token = |rng: &mut _| -> u32 { Rng::random_range(rng, 0..vocab as u32) };
    match attack {
        Attack::Substitution => text
            .iter()
            .map(|&t| {
                if rng.random::<f64>() < rate {
                    random_token(rng)
                } else {
                    t
                }
            })
            .collect(),
        Attack::Deletion => text
            .iter()
            .copied()
            .filter(|_| rng.random::<f64>() >= rate)
            .collect(),
        Attack::Insertion => {
            let mut out = Vec::with_capacity(text.len() * 2);
            for &t in text {
                out.push(t);
                if rng.random::<f64>() < rate {
                    out.push(random_token(rng));
                }
            }
            out
        }
        Attack::CopyPaste => {
            let n = text.len();
            let pasted = ((rate * n as f64).round() as usize).min(n);
            let before = pasted / 2;
            let after = pasted - before;
            let filler = |i: usize| plain.get(i % plain.len().max(1)).copied().unwrap_or(0);
            (0..n)
                .map(|i| {
                    if i < before {
                        filler(i)
                    } else if i >= n - after {
                        filler(i + before)
                    } else {
                        text[i]
                    }
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use benchtop_compute::rng::seeded;

    #[test]
    fn rates_zero_and_one_are_identity_and_total() {
        let text: Vec<u32> = (0..200).collect();
        let plain = vec![999; 200];
        let mut rng = seeded(1);
        for a in Attack::ALL {
            assert_eq!(apply(a, 0.0, &text, &plain, 1000, &mut rng), text, "{a:?}");
        }
        assert!(apply(Attack::Deletion, 1.0, &text, &plain, 1000, &mut rng).is_empty());
        assert_eq!(
            apply(Attack::Insertion, 1.0, &text, &plain, 1000, &mut rng).len(),
            400
        );
        let cp = apply(Attack::CopyPaste, 0.5, &text, &plain, 1000, &mut rng);
        assert_eq!(cp.iter().filter(|&&t| t == 999).count(), 100);
        assert_eq!(&cp[50..150], &text[50..150]);
    }
}
