//! Subscripts in figure text, for both renderers: `PSD_k`, `ρ_k²`, `k_c`, `R_{KL}` draw the
//! letter after the underscore (or the braces' contents) as a subscript; `\_` is a literal
//! underscore. An underscore inside a word (`era5_200hPa`, `abs_magnetization`) stays literal:
//! only a single character after it, not followed by a letter or digit, is a subscript.

/// A run of figure text, drawn normally or as a subscript.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The characters.
    pub text: String,
    /// Whether they are a subscript.
    pub sub: bool,
}

/// Splits `text` into normal and subscript runs (empty runs left out).
pub fn spans(text: &str) -> Vec<Span> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<Span> = Vec::new();
    let push = |s: &str, sub: bool, out: &mut Vec<Span>| {
        if s.is_empty() {
            return;
        }
        match out.last_mut() {
            Some(last) if last.sub == sub => last.text.push_str(s),
            _ => out.push(Span {
                text: s.to_owned(),
                sub,
            }),
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && chars.get(i + 1) == Some(&'_') {
            push("_", false, &mut out);
            i += 2;
            continue;
        }
        let after_symbol = i > 0 && !chars[i - 1].is_whitespace() && chars[i - 1] != '_';
        if c == '_' && after_symbol {
            if chars.get(i + 1) == Some(&'{')
                && let Some(close) = chars[i + 2..].iter().position(|&c| c == '}')
            {
                let inner: String = chars[i + 2..i + 2 + close].iter().collect();
                push(&inner, true, &mut out);
                i += close + 3;
                continue;
            }
            if let Some(&next) = chars.get(i + 1)
                && next.is_alphanumeric()
                && !chars.get(i + 2).is_some_and(|&c| continues_word(c))
            {
                push(&next.to_string(), true, &mut out);
                i += 2;
                continue;
            }
        }
        push(&c.to_string(), false, &mut out);
        i += 1;
    }
    out
}

/// Whether `c` continues a word (a letter or digit; not a superscript such as the ² of `ρ_k²`).
fn continues_word(c: char) -> bool {
    c.is_alphanumeric() && !"⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉".contains(c)
}

/// The text without markup (what a reader sees, e.g. for widths and file names).
pub fn plain(text: &str) -> String {
    spans(text).into_iter().map(|s| s.text).collect()
}

/// Whether `text` has a subscript.
pub fn has_markup(text: &str) -> bool {
    spans(text).iter().any(|s| s.sub)
}

/// Size of a subscript relative to the text around it.
pub const SUBSCRIPT_SCALE: f64 = 0.7;

/// How far a subscript's baseline sits below the text's, in units of the text's size.
pub const SUBSCRIPT_DROP: f64 = 0.22;

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str) -> String {
        spans(text)
            .into_iter()
            .map(|s| {
                if s.sub {
                    format!("[{}]", s.text)
                } else {
                    s.text
                }
            })
            .collect()
    }

    #[test]
    fn subscripts_follow_a_symbol_and_words_stay_whole() {
        assert_eq!(shown("PSD_k (normalised)"), "PSD[k] (normalised)");
        assert_eq!(shown("Decorrelation k_c"), "Decorrelation k[c]");
        assert_eq!(shown("ρ_k² = 0.75"), "ρ[k]² = 0.75");
        assert_eq!(shown("wavelength 2πR_E/k"), "wavelength 2πR[E]/k");
        assert_eq!(shown("Σ s_i s_j / L²"), "Σ s[i] s[j] / L²");
        assert_eq!(shown("KL_{per bin}"), "KL[per bin]");
        assert_eq!(shown("era5_200hPa.nc"), "era5_200hPa.nc");
        assert_eq!(shown("abs_magnetization"), "abs_magnetization");
        assert_eq!(shown("a\\_b"), "a_b");
        assert_eq!(shown("_k at the start"), "_k at the start");
        assert_eq!(shown("x_{unclosed"), "x_{unclosed");
        assert_eq!(plain("R_k, Coh_k"), "Rk, Cohk");
        assert!(has_markup("g_k") && !has_markup("mc.size"));
    }
}
