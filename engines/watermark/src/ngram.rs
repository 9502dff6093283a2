//! An interpolated trigram word model (absolute discounting, backing off to bigrams and an
//! add-one unigram), trained on token ids in one pass of counting.

use crate::model::LanguageModel;
use std::collections::HashMap;
use std::sync::Arc;

/// Absolute discount subtracted from every seen n-gram count.
const DISCOUNT: f64 = 0.75;

/// Followers of a context: (next token, count), and the context's total.
#[derive(Debug, Clone, Default)]
struct Followers {
    next: Vec<(u32, u32)>,
    total: u32,
}

impl Followers {
    fn add(&mut self, token: u32) {
        self.total += 1;
        match self.next.iter_mut().find(|(t, _)| *t == token) {
            Some((_, c)) => *c += 1,
            None => self.next.push((token, 1)),
        }
    }

    /// out ← backoff·out + discounted counts, with the backoff weight that keeps the sum at 1.
    fn interpolate(&self, out: &mut [f64]) {
        let total = f64::from(self.total);
        let backoff = DISCOUNT * self.next.len() as f64 / total;
        out.iter_mut().for_each(|x| *x *= backoff);
        for &(t, c) in &self.next {
            out[t as usize] += (f64::from(c) - DISCOUNT).max(0.0) / total;
        }
    }
}

/// A trigram model over a fixed vocabulary, with the token strings for display.
#[derive(Debug, Clone)]
pub struct TrigramModel {
    unigram: Vec<f64>,
    bigrams: HashMap<u32, Followers>,
    trigrams: HashMap<(u32, u32), Followers>,
    words: Arc<Vec<String>>,
}

impl TrigramModel {
    /// Counts the n-grams of `sequences` (each a separate stretch of text) over a `words.len()`
    /// vocabulary.
    pub fn train(sequences: &[Vec<u32>], words: Arc<Vec<String>>) -> Self {
        let vocab = words.len();
        let mut counts = vec![1.0; vocab];
        let mut bigrams: HashMap<u32, Followers> = HashMap::new();
        let mut trigrams: HashMap<(u32, u32), Followers> = HashMap::new();
        for s in sequences {
            for (i, &t) in s.iter().enumerate() {
                counts[t as usize] += 1.0;
                if i >= 1 {
                    bigrams.entry(s[i - 1]).or_default().add(t);
                }
                if i >= 2 {
                    trigrams.entry((s[i - 2], s[i - 1])).or_default().add(t);
                }
            }
        }
        let total: f64 = counts.iter().sum();
        Self {
            unigram: counts.into_iter().map(|c| c / total).collect(),
            bigrams,
            trigrams,
            words,
        }
    }

    /// Mean negative log-likelihood (nats per token) of `tokens` after `prompt`.
    pub fn mean_nll(&self, prompt: &[u32], tokens: &[u32]) -> f64 {
        mean_nll(self, prompt, tokens)
    }
}

/// Mean negative log-likelihood (nats per token) of `tokens` after `prompt` under any model.
pub fn mean_nll(model: &dyn LanguageModel, prompt: &[u32], tokens: &[u32]) -> f64 {
    let mut context = prompt.to_vec();
    let mut p = vec![0.0; model.vocab_size()];
    let mut sum = 0.0;
    for &t in tokens {
        model.next_probs(&context, &mut p);
        sum -= p[t as usize].max(1e-300).ln();
        context.push(t);
    }
    sum / tokens.len().max(1) as f64
}

impl LanguageModel for TrigramModel {
    fn vocab_size(&self) -> usize {
        self.unigram.len()
    }

    fn next_probs(&self, context: &[u32], out: &mut [f64]) {
        out.copy_from_slice(&self.unigram);
        let n = context.len();
        if n >= 1
            && let Some(f) = self.bigrams.get(&context[n - 1])
        {
            f.interpolate(out);
        }
        if n >= 2
            && let Some(f) = self.trigrams.get(&(context[n - 2], context[n - 1]))
        {
            f.interpolate(out);
        }
    }

    fn token_text(&self, token: u32) -> String {
        self.words
            .get(token as usize)
            .cloned()
            .unwrap_or_else(|| "<unk>".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_sum_to_one_and_follow_the_counts() {
        let words = Arc::new((0..5).map(|i| format!("w{i}")).collect::<Vec<_>>());
        let m = TrigramModel::train(&[vec![1, 2, 3, 1, 2, 3, 1, 2, 4]], words);
        let mut p = vec![0.0; 5];
        for ctx in [&[][..], &[1], &[1, 2], &[4, 4]] {
            m.next_probs(ctx, &mut p);
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{ctx:?}");
        }
        m.next_probs(&[1, 2], &mut p);
        assert!(p[3] > p[4] && p[4] > p[0], "{p:?}");
    }
}
