//! Sentence similarity for the oddball scorer: TF-IDF cosine, computed locally.
//!
//! The paper embeds each reply sentence with text-embedding-3-large and takes the cosine to a
//! fixed "this is surprising" sentence. Here the vectors are TF-IDF over content words (English
//! stop words removed; IDF from our oddball paragraphs plus the surprise sentence). Differences:
//! TF-IDF sees only shared words, so a paraphrase of surprise with no word in common scores 0,
//! and an unrelated comment scores exactly 0 (dense embeddings give every pair some 0.1–0.3).
//! Scores are therefore lower and more spread than the paper's and are comparable only within
//! this panel.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::data::{ODDBALL_PARAGRAPHS, SURPRISE, split_sentences};

const STOP: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "by",
    "from", "is", "are", "was", "were", "be", "been", "it", "its", "this", "that", "these",
    "those", "as", "we", "you", "i", "they", "he", "she", "my", "our", "your", "their", "do",
    "does", "about", "into", "than", "then", "so", "too", "very", "can", "will", "just", "also",
    "there", "has", "have", "had", "any", "all", "some", "s", "t",
];

/// Lower-case content words of `text` (letters and digits; apostrophes dropped).
pub fn tokens(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['\'', '’'], "")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !STOP.contains(w))
        .map(str::to_owned)
        .collect()
}

struct Idf {
    docs: f64,
    df: HashMap<String, f64>,
}

fn idf_table() -> &'static Idf {
    static IDF: OnceLock<Idf> = OnceLock::new();
    IDF.get_or_init(|| {
        let mut docs: Vec<String> = ODDBALL_PARAGRAPHS
            .iter()
            .flat_map(|(p, _)| split_sentences(p))
            .collect();
        docs.push(SURPRISE.to_owned());
        let mut df: HashMap<String, f64> = HashMap::new();
        for d in &docs {
            let mut seen: Vec<String> = tokens(d);
            seen.sort();
            seen.dedup();
            for w in seen {
                *df.entry(w).or_default() += 1.0;
            }
        }
        Idf {
            docs: docs.len() as f64,
            df,
        }
    })
}

fn vector(text: &str) -> HashMap<String, f64> {
    let idf = idf_table();
    let mut v: HashMap<String, f64> = HashMap::new();
    for w in tokens(text) {
        *v.entry(w).or_default() += 1.0;
    }
    for (w, x) in &mut v {
        let df = idf.df.get(w).copied().unwrap_or(0.0);
        *x *= ((1.0 + idf.docs) / (1.0 + df)).ln() + 1.0;
    }
    v
}

/// TF-IDF cosine similarity of two texts (0 when either has no content word).
pub fn cosine(a: &str, b: &str) -> f64 {
    let (va, vb) = (vector(a), vector(b));
    let dot: f64 = va
        .iter()
        .filter_map(|(w, x)| vb.get(w).map(|y| x * y))
        .sum();
    let na = va.values().map(|x| x * x).sum::<f64>().sqrt();
    let nb = vb.values().map(|x| x * x).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

/// The oddball trial score: the largest similarity of any sentence of `reply` to the surprise
/// sentence (0 for an empty reply).
pub fn surprise_similarity(reply: &str) -> f64 {
    split_sentences(reply)
        .iter()
        .map(|s| cosine(s, SURPRISE))
        .fold(0.0, f64::max)
}
