//! The embedded message: a user ID and a timestamp become bits, the bits become symbols of c bits.

/// FNV-1a over the bytes of a string (stable across platforms and versions).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The `bits` message bits for a user and a timestamp: the first half (rounded up) are the low
/// bits of the FNV-1a hash of the user ID, the rest the low bits of the timestamp (seconds),
/// most significant first within each part. `bits` is at most 128.
pub fn message_bits(user_id: &str, timestamp: u64, bits: usize) -> Vec<u8> {
    let bits = bits.min(128);
    let user_bits = bits.div_ceil(2);
    let time_bits = bits - user_bits;
    let take = |value: u64, n: usize| -> Vec<u8> {
        (0..n)
            .rev()
            .map(|i| if i < 64 { ((value >> i) & 1) as u8 } else { 0 })
            .collect()
    };
    let mut out = take(fnv1a(user_id.trim()), user_bits);
    out.extend(take(timestamp, time_bits));
    out
}

/// Groups bits into symbols of `c` bits (most significant first); the last symbol is padded with
/// zeros. There are `ceil(len / c)` symbols, each in `0..2^c`.
pub fn to_symbols(bits: &[u8], c: usize) -> Vec<usize> {
    bits.chunks(c.max(1))
        .map(|chunk| {
            (0..c).fold(0, |acc, i| {
                (acc << 1) | usize::from(chunk.get(i).copied().unwrap_or(0))
            })
        })
        .collect()
}

/// The bits of `symbols` (c bits each), cut to `bits` bits: the inverse of [`to_symbols`].
pub fn to_bits(symbols: &[usize], c: usize, bits: usize) -> Vec<u8> {
    let mut out: Vec<u8> = symbols
        .iter()
        .flat_map(|&s| (0..c).rev().map(move |i| ((s >> i) & 1) as u8))
        .collect();
    out.truncate(bits);
    out
}

/// Bits as a string of `0` and `1`.
pub fn bit_string(bits: &[u8]) -> String {
    bits.iter()
        .map(|&b| if b == 1 { '1' } else { '0' })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_round_trip_for_every_width() {
        let bits = message_bits("alice@example.org", 1_733_000_000, 24);
        assert_eq!(bits.len(), 24);
        for c in 1..=5 {
            let symbols = to_symbols(&bits, c);
            assert_eq!(symbols.len(), 24_usize.div_ceil(c));
            assert!(symbols.iter().all(|&s| s < 1 << c));
            assert_eq!(to_bits(&symbols, c, 24), bits);
        }
    }

    #[test]
    fn the_timestamp_fills_the_low_half() {
        let bits = message_bits("u", 0b1011, 8);
        assert_eq!(&bits[4..], &[1, 0, 1, 1]);
        assert_ne!(message_bits("u", 5, 24), message_bits("v", 5, 24));
    }
}
