//! Tick positions and labels shared by both renderers: "nice" linear ticks and decade ticks
//! for log10 axes (which are drawn in log10 units).

use super::model::Scale;
use super::prepare::AxisView;

/// About one x-axis tick label per this many points of axis length.
pub(crate) const X_TICK_SPACING_PT: f64 = 36.0;
/// About one y-axis tick label per this many points of axis length.
pub(crate) const Y_TICK_SPACING_PT: f64 = 22.0;

/// A tick: position in view units (log10 of the value on a log axis) and its label.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    /// Position in view units.
    pub position: f64,
    /// Label text (may be empty for minor ticks).
    pub label: String,
}

/// A "nice" step (1, 2 or 5 × 10^k) giving about `target` intervals over `span`.
pub fn nice_step(span: f64, target: usize) -> f64 {
    let raw = span.abs() / target.max(1) as f64;
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let magnitude = 10f64.powf(raw.log10().floor());
    let residual = raw / magnitude;
    let factor = if residual <= 1.0 {
        1.0
    } else if residual <= 2.0 {
        2.0
    } else if residual <= 5.0 {
        5.0
    } else {
        10.0
    };
    factor * magnitude
}

/// Multiples of a nice step inside `lo..=hi` (about `target` of them), labelled.
pub fn linear_ticks(lo: f64, hi: f64, target: usize) -> Vec<Tick> {
    ticks_with_step(lo, hi, nice_step(hi - lo, target))
}

/// Like [`linear_ticks`], with whole-number steps (1, 2, 5, 10, …) for axes of counts.
pub fn integer_ticks(lo: f64, hi: f64, target: usize) -> Vec<Tick> {
    ticks_with_step(lo, hi, nice_step(hi - lo, target).max(1.0))
}

/// Multiples of `step` inside `lo..=hi`, labelled (none for an empty or non-finite range).
fn ticks_with_step(lo: f64, hi: f64, step: f64) -> Vec<Tick> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return Vec::new();
    }
    let first = (lo / step).ceil();
    let last = (hi / step).floor();
    if !(first.is_finite() && last.is_finite()) || last - first > 1000.0 {
        return Vec::new();
    }
    let count = (last - first) as i64;
    (0..=count)
        .map(|k| {
            let position = (first + k as f64) * step;
            Tick {
                position,
                label: format_number(position, step),
            }
        })
        .collect()
}

/// Formats a tick value with as many decimals as the step needs; scientific notation for very
/// large or very small magnitudes.
pub fn format_number(value: f64, step: f64) -> String {
    // Round-off residue (and −0) print as zero.
    let value = if value.abs() < step.abs() * 1e-9 {
        0.0
    } else {
        value
    };
    let magnitude = value.abs().max(step.abs());
    if !(1e-4..1e6).contains(&magnitude) {
        if value == 0.0 {
            return "0".to_owned();
        }
        let digits = ((magnitude / step.abs()).log10().ceil().max(0.0) as usize).min(6);
        return format!("{value:.digits$e}");
    }
    let decimals = (-step.abs().log10().floor()).max(0.0) as usize;
    format!("{value:.decimals$}")
}

/// "10" followed by the exponent in Unicode superscript digits, e.g. "10⁻³".
pub fn power_of_ten_label(exponent: i64) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut label = String::from("10");
    if exponent < 0 {
        label.push('⁻');
    }
    for c in exponent.unsigned_abs().to_string().chars() {
        let digit = c.to_digit(10).unwrap_or(0) as usize;
        label.push(DIGITS[digit]);
    }
    label
}

/// Ticks for a log10 axis spanning `lo..=hi` in log10 units: labelled decades (every n-th when
/// there are many), or, when fewer than two decades are inside, labelled 1–9 × 10^k values.
pub fn log_ticks(lo: f64, hi: f64, target: usize) -> Vec<Tick> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo || hi - lo > 600.0 {
        return Vec::new();
    }
    let first = lo.ceil() as i64;
    let last = hi.floor() as i64;
    if last - first >= 1 {
        let stride = ((last - first) as f64 / target.max(1) as f64)
            .ceil()
            .max(1.0) as i64;
        return (first..=last)
            .filter(|k| k.rem_euclid(stride) == 0)
            .map(|k| Tick {
                position: k as f64,
                label: power_of_ten_label(k),
            })
            .collect();
    }
    // Less than two decades: label the 1–9 multiples (only 1, 2 and 5 when those would crowd
    // the axis: the multiples bunch up towards each decade), or fall back to linear ticks.
    let all_multiples = (lo.floor() as i64..=hi.ceil() as i64)
        .flat_map(|k| (1..10).map(move |m| (m as f64 * 10f64.powi(k as i32)).log10()))
        .filter(|&p| p >= lo && p <= hi)
        .count();
    let multiples: &[i32] = if all_multiples > target.max(1) {
        &[1, 2, 5]
    } else {
        &[1, 2, 3, 4, 5, 6, 7, 8, 9]
    };
    let mut ticks = Vec::new();
    for k in (lo.floor() as i64)..=(hi.ceil() as i64) {
        for &m in multiples {
            let value = f64::from(m) * 10f64.powi(k as i32);
            let position = value.log10();
            if position >= lo && position <= hi {
                ticks.push(Tick {
                    position,
                    label: format_number(value, 10f64.powi(k as i32)),
                });
            }
        }
    }
    if ticks.len() > 2 * target.max(1) {
        let stride = ticks.len().div_ceil(target.max(1));
        ticks = ticks.into_iter().step_by(stride).collect();
    }
    if ticks.len() < 2 {
        let (a, b) = (10f64.powf(lo), 10f64.powf(hi));
        return linear_ticks(a, b, target)
            .into_iter()
            .filter(|t| t.position > 0.0)
            .map(|t| Tick {
                position: t.position.log10(),
                label: t.label,
            })
            .collect();
    }
    ticks
}

/// Ticks of an axis for a plot `length_pt` long, about one label per `spacing_pt`: category
/// names, 1–2–5 steps or decades. Both renderers label exactly these (the screen recomputes
/// them for the range and length shown).
pub(crate) fn axis_ticks(
    axis: &AxisView,
    range: (f64, f64),
    length_pt: f64,
    spacing_pt: f64,
) -> Vec<Tick> {
    let target = ((length_pt / spacing_pt).floor() as usize).clamp(3, 12);
    if let Some(named) = &axis.categories {
        // Every name while they fit about two to a label's usual room, else every k-th; an
        // empty name leaves its position unlabelled.
        let labelled: Vec<(usize, &String)> = named
            .names
            .iter()
            .enumerate()
            .filter(|(_, name)| !name.is_empty())
            .collect();
        let stride = labelled.len().div_ceil(2 * target).max(1);
        return labelled
            .into_iter()
            .step_by(stride)
            .map(|(i, name)| Tick {
                position: named.first + i as f64,
                label: name.clone(),
            })
            .filter(|t| t.position >= range.0 && t.position <= range.1)
            .collect();
    }
    match axis.scale {
        Scale::Linear if axis.integer => integer_ticks(range.0, range.1, target),
        Scale::Linear => linear_ticks(range.0, range.1, target),
        Scale::Log10 => log_ticks(range.0, range.1, target),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps_are_1_2_5_multiples() {
        assert_eq!(nice_step(10.0, 5), 2.0);
        assert_eq!(nice_step(1.0, 4), 0.5);
        assert_eq!(nice_step(700.0, 7), 100.0);
        assert_eq!(nice_step(0.0, 5), 1.0);
    }

    #[test]
    fn linear_ticks_cover_the_range_with_clean_labels() {
        let ticks = linear_ticks(-0.05, 1.05, 6);
        let labels: Vec<&str> = ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]);
        assert!(linear_ticks(1.0, 1.0, 5).is_empty());
        assert!(linear_ticks(f64::NAN, 1.0, 5).is_empty());
        assert_eq!(format_number(2.5e-7, 1e-7), "2.5e-7");
        assert_eq!(format_number(-0.0, 0.1), "0.0");
        assert_eq!(format_number(1e-18, 0.5), "0.0");
    }

    #[test]
    fn integer_ticks_never_step_below_one() {
        let labels: Vec<String> = integer_ticks(-0.2, 3.2, 8)
            .into_iter()
            .map(|t| t.label)
            .collect();
        assert_eq!(labels, ["0", "1", "2", "3"]);
        let wide: Vec<String> = integer_ticks(0.0, 100.0, 5)
            .into_iter()
            .map(|t| t.label)
            .collect();
        assert_eq!(wide, ["0", "20", "40", "60", "80", "100"]);
    }

    #[test]
    fn log_ticks_label_decades_with_superscripts() {
        let ticks = log_ticks(-2.2, 1.5, 6);
        let labels: Vec<&str> = ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, ["10⁻²", "10⁻¹", "10⁰", "10¹"]);
        assert_eq!(ticks[0].position, -2.0);
        // Under two decades: 1–9 multiples.
        let narrow = log_ticks(0.0, 0.5, 6);
        assert_eq!(narrow[0].label, "1");
        assert_eq!(narrow.last().map(|t| t.label.as_str()), Some("3"));
        assert_eq!(power_of_ten_label(12), "10¹²");
    }
}
