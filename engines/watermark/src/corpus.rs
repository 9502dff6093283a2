//! The bundled public-domain text and the word-level tokenizer.
//!
//! The text is Genesis and Matthew of the King James Version (public domain), one verse a line,
//! from the Debian package `bible-kjv-text` (see assets/SOURCES.md). The tokenizer lowercases,
//! splits into words (letters and inner apostrophes) and the punctuation marks `. , ; : ? !`, keeps
//! the most frequent words and maps the rest to `<unk>` (id 0).

use std::collections::HashMap;

/// The bundled corpus, one verse per line.
pub const KJV_TEXT: &str = include_str!("../../../assets/watermark/kjv-genesis-matthew.txt");

/// Id of the unknown-word token.
pub const UNK: u32 = 0;

/// Splits text into lowercase word and punctuation pieces.
pub fn pieces(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<String>| {
        let w = word.trim_matches('\'');
        if !w.is_empty() {
            out.push(w.to_owned());
        }
        word.clear();
    };
    for ch in text.chars() {
        if ch.is_alphabetic() || (ch == '\'' && !word.is_empty()) {
            word.extend(ch.to_lowercase());
        } else {
            flush(&mut word, &mut out);
            if ".,;:?!".contains(ch) {
                out.push(ch.to_string());
            }
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A word-level vocabulary: `<unk>` and the most frequent pieces of a training text.
#[derive(Debug, Clone, PartialEq)]
pub struct Tokenizer {
    words: Vec<String>,
    index: HashMap<String, u32>,
}

impl Tokenizer {
    /// The `size`-token vocabulary (≥ 2) of `text`: `<unk>` then the `size − 1` most frequent
    /// pieces (ties alphabetical).
    pub fn build(text: &str, size: usize) -> Self {
        let mut freq: HashMap<String, usize> = HashMap::new();
        for p in pieces(text) {
            *freq.entry(p).or_default() += 1;
        }
        let mut ranked: Vec<(String, usize)> = freq.into_iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let mut words = vec!["<unk>".to_owned()];
        words.extend(ranked.into_iter().take(size.max(2) - 1).map(|(w, _)| w));
        // Pad so that every vocabulary size asked for is met (small texts).
        while words.len() < size.max(2) {
            words.push(format!("<pad{}>", words.len()));
        }
        let index = words
            .iter()
            .enumerate()
            .map(|(i, w)| (w.clone(), i as u32))
            .collect();
        Self { words, index }
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the vocabulary is empty (never: `<unk>` is always there).
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Token ids of `text`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        pieces(text)
            .into_iter()
            .map(|p| self.index.get(&p).copied().unwrap_or(UNK))
            .collect()
    }

    /// The piece of a token id.
    pub fn word(&self, id: u32) -> &str {
        self.words.get(id as usize).map_or("<unk>", String::as_str)
    }

    /// Joins tokens into readable text (no space before punctuation).
    pub fn decode(&self, ids: &[u32]) -> String {
        let mut out = String::new();
        for &id in ids {
            let w = self.word(id);
            if !out.is_empty() && !".,;:?!".contains(w) {
                out.push(' ');
            }
            out.push_str(w);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_split_words_and_punctuation() {
        assert_eq!(
            pieces("And God said, Let there be light: Pharaoh's."),
            [
                "and",
                "god",
                "said",
                ",",
                "let",
                "there",
                "be",
                "light",
                ":",
                "pharaoh's",
                "."
            ]
        );
    }

    #[test]
    fn the_vocabulary_round_trips_known_words() {
        let tok = Tokenizer::build(KJV_TEXT, 512);
        assert_eq!(tok.len(), 512);
        let ids = tok.encode("And God said, Let there be light.");
        assert!(ids.iter().all(|&i| i != UNK));
        assert_eq!(tok.decode(&ids), "and god said, let there be light.");
        assert_eq!(tok.encode("zyzzyva"), [UNK]);
    }
}
