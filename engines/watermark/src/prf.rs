//! The keyed pseudo-random functions every scheme shares: the context seed of the last H tokens,
//! the message position of a seed, and the seed's vocabulary permutation chunked into colour
//! lists (equal chunks of the permuted order, their names cyclically shifted by the seed).
//!
//! Everything is SplitMix64 arithmetic on `u64` (wrapping), so a NumPy peer can replay it exactly
//! (`scripts/bench_watermark_peer.py`). The permutation is the order of the per-token keys
//! `key(seed, v)` (ties broken by token id), so the colour of ONE token is its rank among the keys,
//! an O(V) count that needs no sort; generation, which needs the whole order, sorts.
//!
//! The decoder's keyed coin ([`coin_seed`], [`coin`]) settles a message position whose colour
//! counts do not name one symbol (no scored token, or a tie): a fair draw among the tied colours,
//! from the key, the text and the position, so decoding stays deterministic given the key and
//! carries no preference for any symbol.

use benchtop_compute::rng::splitmix64;

/// Salt that separates the position stream from the token keys.
const POSITION_SALT: u64 = 0xa5a5_5a5a_c3c3_3c3c;
/// Salt of the colour shift.
const SHIFT_SALT: u64 = 0x3c6e_f372_fe94_f82b;
/// Multiplier of the token index in its key (the 64-bit golden ratio).
const TOKEN_STRIDE: u64 = 0x9e37_79b9_7f4a_7c15;
/// Salt of the decoder's coin.
const COIN_SALT: u64 = 0xd1b5_4a32_d192_ed03;

/// The seed of a generation step: the additive PRF of the notes, `mix(key × (1 + Σ ids))` over
/// the last `h` tokens of `context` (all of it when shorter).
pub fn context_seed(key: u64, context: &[u32]) -> u64 {
    let sum: u64 = context.iter().map(|&t| u64::from(t)).sum();
    splitmix64(key.wrapping_mul(sum.wrapping_add(1)))
}

/// The message position `b ∈ [0, positions)` a seed carries.
pub fn position(seed: u64, positions: usize) -> usize {
    (splitmix64(seed ^ POSITION_SALT) % positions.max(1) as u64) as usize
}

/// The key of token `v` under `seed`; the permutation sorts tokens by it.
#[inline]
pub fn token_key(seed: u64, v: u32) -> u64 {
    splitmix64(seed.wrapping_add(u64::from(v).wrapping_add(1).wrapping_mul(TOKEN_STRIDE)))
}

/// Rank of token `v` in the permutation of a `vocab`-token vocabulary under `seed` (0-based).
pub fn rank(seed: u64, v: u32, vocab: usize) -> usize {
    let kv = token_key(seed, v);
    (0..vocab as u32)
        .filter(|&u| {
            let ku = token_key(seed, u);
            ku < kv || (ku == kv && u < v)
        })
        .count()
}

/// Colour list (0..2^c) of the token at permuted rank `rank`: the permuted order cut into
/// `colours` equal chunks (exactly equal when `colours` divides `vocab`).
#[inline]
pub fn colour_of_rank(rank: usize, vocab: usize, colours: usize) -> usize {
    rank * colours / vocab
}

/// The cyclic shift of colour names over chunks under `seed`: chunk j of the permuted order is
/// colour list (j + shift) mod 2^c. [ours] With it the red list's chunk is uniform over the
/// chunks whatever the message symbol, which is what makes the StealthInk reweighting
/// distribution-preserving for c ≥ 2 (for c = 1 the mirror of one chunk is the other anyway).
pub fn colour_shift(seed: u64, colours: usize) -> usize {
    (splitmix64(seed ^ SHIFT_SALT) % colours.max(1) as u64) as usize
}

/// The chunk of the permuted order that holds colour list `colour` under `seed`.
pub fn chunk_of_colour(seed: u64, colour: usize, colours: usize) -> usize {
    (colour + colours - colour_shift(seed, colours)) % colours
}

/// Colour list of token `v` under `seed`.
pub fn colour(seed: u64, v: u32, vocab: usize, colours: usize) -> usize {
    (colour_of_rank(rank(seed, v, vocab), vocab, colours) + colour_shift(seed, colours)) % colours
}

/// The seed of the decoder's coin for `text` under `key`: SplitMix64 chained over the token ids,
/// so every text draws its own coins (a coin of the key alone would favour the same symbols in
/// every text) and the same key and text always draw the same ones.
pub fn coin_seed(key: u64, text: &[u32]) -> u64 {
    text.iter().fold(splitmix64(key ^ COIN_SALT), |h, &t| {
        splitmix64(h ^ u64::from(t).wrapping_add(1).wrapping_mul(TOKEN_STRIDE))
    })
}

/// The keyed coin at message position `position`: an index in `0..choices`, uniform (up to a
/// 2^−60 modulo bias for `choices` ≤ 16), from a [`coin_seed`].
pub fn coin(coin_seed: u64, position: usize, choices: usize) -> usize {
    let stream = (position as u64).wrapping_add(1).wrapping_mul(TOKEN_STRIDE);
    (splitmix64(coin_seed ^ splitmix64(stream)) % choices.max(1) as u64) as usize
}

/// The whole permutation under `seed`: token ids in permuted order (`order[r]` has rank `r`).
pub fn permutation(seed: u64, vocab: usize, order: &mut Vec<u32>) {
    let mut keyed: Vec<(u64, u32)> = (0..vocab as u32).map(|v| (token_key(seed, v), v)).collect();
    keyed.sort_unstable();
    order.clear();
    order.extend(keyed.into_iter().map(|(_, v)| v));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_agrees_with_the_sorted_permutation() {
        let mut order = Vec::new();
        for seed in [1_u64, 77, 123_456_789] {
            permutation(seed, 50, &mut order);
            for (r, &v) in order.iter().enumerate() {
                assert_eq!(rank(seed, v, 50), r);
            }
        }
    }

    #[test]
    fn colours_are_equal_chunks_when_they_divide_the_vocabulary() {
        let counts = (0..64).fold([0_usize; 4], |mut c, r| {
            c[colour_of_rank(r, 64, 4)] += 1;
            c
        });
        assert_eq!(counts, [16; 4]);
    }

    #[test]
    fn the_coin_is_fair_and_depends_on_key_text_and_position() {
        assert_eq!(coin_seed(3, &[1, 2]), coin_seed(3, &[1, 2]));
        assert_ne!(coin_seed(3, &[1, 2]), coin_seed(4, &[1, 2]));
        assert_ne!(coin_seed(3, &[1, 2]), coin_seed(3, &[2, 1]));
        // Over 40,000 texts × 4 positions the three faces of a three-way tie come up equally
        // often (each within 4 standard errors of 1/3).
        let mut faces = [0_usize; 3];
        for t in 0..40_000_u32 {
            let s = coin_seed(9, &[t, t / 7]);
            for b in 0..4 {
                faces[coin(s, b, 3)] += 1;
            }
        }
        let n: f64 = 160_000.0;
        let se = (n * (1.0 / 3.0) * (2.0 / 3.0)).sqrt();
        for f in faces {
            assert!((f as f64 - n / 3.0).abs() < 4.0 * se, "{faces:?}");
        }
    }

    #[test]
    fn the_context_seed_depends_on_the_key_and_the_sum() {
        assert_eq!(context_seed(5, &[1, 2, 3]), context_seed(5, &[3, 2, 1]));
        assert_ne!(context_seed(5, &[1, 2, 3]), context_seed(6, &[1, 2, 3]));
        assert_ne!(context_seed(5, &[1, 2, 3]), context_seed(5, &[1, 2, 4]));
    }
}
