//! SMILES tokens and the token vocabulary of the language models.
//!
//! A token is one of: a bracket atom `[...]` (kept whole), the two-letter organic-subset atoms
//! `Cl` and `Br`, a two-digit ring-bond label `%nn`, or any other single character (one-letter
//! atoms, aromatic atoms, ring-bond digits, bonds `- = # $ : / \`, branches `( )`, the dot).
//! A [`Vocabulary`] maps the tokens of a corpus to ids, after three special tokens: padding,
//! beginning of sequence and end of sequence.

use std::collections::HashMap;

use benchtop_compute::ComputeError;
use thiserror::Error;

/// Id of the padding token (never a training target).
pub const PAD_ID: u32 = 0;
/// Id of the beginning-of-sequence token (the first input of every sequence).
pub const BOS_ID: u32 = 1;
/// Id of the end-of-sequence token (the last target of every sequence).
pub const EOS_ID: u32 = 2;
/// Spellings of the special tokens, in id order. They contain characters that never occur in
/// SMILES tokens, so they cannot collide with a corpus token.
pub const SPECIAL_TOKENS: [&str; 3] = ["<pad>", "<bos>", "<eos>"];

/// What can go wrong while tokenising, encoding or decoding.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VocabError {
    /// A `[` without its closing `]`.
    #[error("unclosed bracket atom at byte {position} of SMILES {smiles:?}")]
    UnclosedBracket {
        /// The SMILES being tokenised.
        smiles: String,
        /// Byte offset of the opening bracket.
        position: usize,
    },
    /// A `%` not followed by two digits.
    #[error("`%` must be followed by two digits at byte {position} of SMILES {smiles:?}")]
    BadRingLabel {
        /// The SMILES being tokenised.
        smiles: String,
        /// Byte offset of the `%`.
        position: usize,
    },
    /// A token that is not in the vocabulary.
    #[error("unknown token {token:?} in SMILES {smiles:?}")]
    UnknownToken {
        /// The token.
        token: String,
        /// The SMILES it came from.
        smiles: String,
    },
    /// An id outside the vocabulary, or a special token in the middle of a sequence.
    #[error("token id {id} at position {position} cannot be decoded: {reason}")]
    BadId {
        /// The id.
        id: u32,
        /// Its position in the sequence.
        position: usize,
        /// Why.
        reason: &'static str,
    },
    /// An empty SMILES string (it has no tokens).
    #[error("empty SMILES")]
    Empty,
}

impl From<VocabError> for ComputeError {
    fn from(e: VocabError) -> Self {
        ComputeError::invalid("smiles", e.to_string())
    }
}

/// Splits a SMILES string into tokens (see the module docs for the token kinds).
pub fn tokenize(smiles: &str) -> Result<Vec<&str>, VocabError> {
    let bytes = smiles.as_bytes();
    let mut tokens = Vec::with_capacity(smiles.len());
    let mut i = 0;
    while i < bytes.len() {
        let len = match bytes[i] {
            b'[' => match smiles[i..].find(']') {
                Some(close) => close + 1,
                None => {
                    return Err(VocabError::UnclosedBracket {
                        smiles: smiles.to_owned(),
                        position: i,
                    });
                }
            },
            b'%' => {
                let two_digits = bytes.len() >= i + 3
                    && bytes[i + 1].is_ascii_digit()
                    && bytes[i + 2].is_ascii_digit();
                if !two_digits {
                    return Err(VocabError::BadRingLabel {
                        smiles: smiles.to_owned(),
                        position: i,
                    });
                }
                3
            }
            b'C' if bytes.get(i + 1) == Some(&b'l') => 2,
            b'B' if bytes.get(i + 1) == Some(&b'r') => 2,
            _ => smiles[i..].chars().next().map_or(1, char::len_utf8),
        };
        tokens.push(&smiles[i..i + len]);
        i += len;
    }
    Ok(tokens)
}

/// The token ↔ id map of a language model: the three special tokens (ids 0, 1, 2), then the
/// corpus tokens in sorted order (so the same corpus gives the same ids whatever its order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vocabulary {
    tokens: Vec<String>,
    ids: HashMap<String, u32>,
}

impl Vocabulary {
    /// Builds the vocabulary of every token in `corpus`. Fails on a SMILES that cannot be
    /// tokenised (naming it).
    pub fn from_corpus<S: AsRef<str>>(corpus: &[S]) -> Result<Self, VocabError> {
        let mut seen = std::collections::BTreeSet::new();
        for smiles in corpus {
            for token in tokenize(smiles.as_ref())? {
                seen.insert(token.to_owned());
            }
        }
        Ok(Self::from_tokens(seen))
    }

    /// Builds a vocabulary from an explicit token list (special tokens are added in front;
    /// duplicates and special spellings in `tokens` are ignored).
    pub fn from_tokens<I: IntoIterator<Item = String>>(tokens: I) -> Self {
        let mut all: Vec<String> = SPECIAL_TOKENS.iter().map(|s| (*s).to_owned()).collect();
        let mut ids: HashMap<String, u32> = all
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i as u32))
            .collect();
        for token in tokens {
            if !ids.contains_key(&token) {
                ids.insert(token.clone(), all.len() as u32);
                all.push(token);
            }
        }
        Self { tokens: all, ids }
    }

    /// Number of tokens, special tokens included.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Never true: the special tokens are always present.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// All token spellings, in id order.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The id of `token`, if it is in the vocabulary.
    pub fn id(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    /// The spelling of token `id`, if it exists.
    pub fn token(&self, id: u32) -> Option<&str> {
        self.tokens.get(id as usize).map(String::as_str)
    }

    /// Encodes `smiles` as `[BOS, tokens…, EOS]`. An unknown token is an error naming it.
    pub fn encode(&self, smiles: &str) -> Result<Vec<u32>, VocabError> {
        let tokens = tokenize(smiles)?;
        if tokens.is_empty() {
            return Err(VocabError::Empty);
        }
        let mut ids = Vec::with_capacity(tokens.len() + 2);
        ids.push(BOS_ID);
        for token in tokens {
            let id = self.id(token).ok_or_else(|| VocabError::UnknownToken {
                token: token.to_owned(),
                smiles: smiles.to_owned(),
            })?;
            ids.push(id);
        }
        ids.push(EOS_ID);
        Ok(ids)
    }

    /// Decodes ids back to SMILES: a leading BOS is skipped, decoding stops at the first EOS
    /// (or the end of `ids`). PAD, a later BOS or an id outside the vocabulary is an error.
    pub fn decode(&self, ids: &[u32]) -> Result<String, VocabError> {
        let start = usize::from(ids.first() == Some(&BOS_ID));
        let mut smiles = String::new();
        for (position, &id) in ids.iter().enumerate().skip(start) {
            match id {
                EOS_ID => break,
                PAD_ID | BOS_ID => {
                    return Err(VocabError::BadId {
                        id,
                        position,
                        reason: "special token inside a sequence",
                    });
                }
                _ => match self.token(id) {
                    Some(token) => smiles.push_str(token),
                    None => {
                        return Err(VocabError::BadId {
                            id,
                            position,
                            reason: "outside the vocabulary",
                        });
                    }
                },
            }
        }
        Ok(smiles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use benchtop_chem::offline::offline_smiles;

    #[test]
    fn tokenizer_keeps_multi_character_tokens_whole() {
        let tokens = tokenize("Clc1ccc(Br)cc1[C@@H](N)C%12=O.[nH+]1%12").unwrap();
        assert_eq!(
            tokens,
            vec![
                "Cl", "c", "1", "c", "c", "c", "(", "Br", ")", "c", "c", "1", "[C@@H]", "(", "N",
                ")", "C", "%12", "=", "O", ".", "[nH+]", "1", "%12"
            ]
        );
        assert_eq!(tokenize("CB").unwrap(), vec!["C", "B"]);
        assert_eq!(tokenize("CC#N/C=C\\C").unwrap().len(), 10);
        assert!(matches!(
            tokenize("C[NH"),
            Err(VocabError::UnclosedBracket { position: 1, .. })
        ));
        assert!(matches!(
            tokenize("C%1C"),
            Err(VocabError::BadRingLabel { position: 1, .. })
        ));
    }

    #[test]
    fn offline_smiles_round_trip() {
        let smiles = offline_smiles().unwrap();
        let first: Vec<String> = smiles.into_iter().take(500).collect();
        let vocab = Vocabulary::from_corpus(&first).unwrap();
        assert_eq!(&vocab.tokens()[..3], &SPECIAL_TOKENS.map(str::to_owned));
        for s in &first {
            let ids = vocab.encode(s).unwrap();
            assert_eq!(ids[0], BOS_ID);
            assert_eq!(*ids.last().unwrap(), EOS_ID);
            assert!(ids[1..ids.len() - 1].iter().all(|&id| id > EOS_ID));
            assert_eq!(&vocab.decode(&ids).unwrap(), s);
        }
        // Same corpus, other order: same ids.
        let mut reversed = first.clone();
        reversed.reverse();
        assert_eq!(Vocabulary::from_corpus(&reversed).unwrap(), vocab);
    }

    #[test]
    fn unknown_token_is_an_error_naming_it() {
        let vocab = Vocabulary::from_corpus(&["CCO", "c1ccccc1"]).unwrap();
        let err = vocab.encode("CCBr").unwrap_err();
        assert_eq!(
            err,
            VocabError::UnknownToken {
                token: "Br".into(),
                smiles: "CCBr".into()
            }
        );
        assert!(err.to_string().contains("\"Br\""));
        assert_eq!(vocab.encode(""), Err(VocabError::Empty));
    }

    #[test]
    fn decode_rejects_bad_ids() {
        let vocab = Vocabulary::from_corpus(&["CCO"]).unwrap();
        let c = vocab.id("C").unwrap();
        assert_eq!(vocab.decode(&[BOS_ID, c, EOS_ID, c]).unwrap(), "C");
        assert!(matches!(
            vocab.decode(&[BOS_ID, c, PAD_ID]),
            Err(VocabError::BadId { position: 2, .. })
        ));
        assert!(matches!(
            vocab.decode(&[c, 99]),
            Err(VocabError::BadId { id: 99, .. })
        ));
    }
}
