//! Text placement shared by both renderers, and the record of what a renderer placed: every
//! text's box, every legend's box and every plot area, in the renderer's own units. The figure
//! check ([`super::check`]) reads the record; titles are fitted to their width here.

use super::fonts::text_width;
use super::rich;

/// An axis-aligned rectangle (y down), in a renderer's units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    pub fn width(&self) -> f64 {
        self.x1 - self.x0
    }

    pub fn height(&self) -> f64 {
        self.y1 - self.y0
    }

    /// The rectangle shrunk by `d` on every side (grown when `d` is negative).
    pub fn inset(&self, d: f64) -> Self {
        Self {
            x0: self.x0 + d,
            y0: self.y0 + d,
            x1: self.x1 - d,
            y1: self.y1 - d,
        }
    }

    /// Whether `other` lies inside this rectangle, `slack` allowed on every side.
    pub fn contains_rect(&self, other: &Self, slack: f64) -> bool {
        other.x0 >= self.x0 - slack
            && other.y0 >= self.y0 - slack
            && other.x1 <= self.x1 + slack
            && other.y1 <= self.y1 + slack
    }

    /// Whether the point lies inside.
    pub fn contains(&self, (x, y): (f64, f64)) -> bool {
        x >= self.x0 && x <= self.x1 && y >= self.y0 && y <= self.y1
    }
}

/// What a piece of figure text is, for the figure check's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TextRole {
    /// The figure's title.
    FigureTitle,
    /// A subplot's title.
    SubplotTitle,
    /// An axis or colorbar label.
    AxisLabel,
    /// A tick label of an axis or colorbar.
    TickLabel,
    /// A legend entry.
    Legend,
    /// Text the panel placed in the data (annotations, reference-line labels, node labels).
    Annotation,
    /// Any text the screen renderer painted (egui_plot does not say which kind).
    OnScreen,
}

/// One placed text: its role, its characters as shown and its box.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TextBox {
    pub role: TextRole,
    pub text: String,
    pub rect: Rect,
}

/// One placed legend: its subplot, its box and how many of the subplot's sampled data points
/// (see [`super::prepare::SubplotView::normalized_samples`]) fall inside it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LegendBox {
    pub subplot: usize,
    pub rect: Rect,
    pub covered: usize,
    pub total: usize,
}

/// One plot area as placed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PlotBox {
    pub subplot: usize,
    pub rect: Rect,
}

/// Everything a renderer placed on one canvas, in its units (`units_per_pt` of them a point).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LayoutRecord {
    pub canvas: (f64, f64),
    pub units_per_pt: f64,
    pub texts: Vec<TextBox>,
    pub legends: Vec<LegendBox>,
    pub plots: Vec<PlotBox>,
    /// Texts cut by the rectangle they are clipped to (the screen clips to plots and cells).
    pub clipped: Vec<TextBox>,
}

/// Height of a line of text relative to its font size (ascent plus descent of the font).
pub(crate) const LINE_HEIGHT: f64 = 1.17;

/// The box of `text` set at `size` with its anchor at `at`: `h` and `v` in −1 (left, top),
/// 0 (centre), 1 (right, bottom) of the text's own frame; `rotated` turns it a quarter to
/// read upwards (y-axis labels).
pub(crate) fn text_box(
    text: &str,
    at: (f64, f64),
    size: f64,
    (h, v): (i8, i8),
    rotated: bool,
) -> Rect {
    let w = text_width(&rich::plain(text), size);
    let ht = size * LINE_HEIGHT;
    // Along the text (a) and across it (b), relative to the anchor.
    let a0 = -w * (f64::from(h) + 1.0) / 2.0;
    let b0 = -ht * (f64::from(v) + 1.0) / 2.0;
    let (a1, b1) = (a0 + w, b0 + ht);
    if rotated {
        // Reading upwards: along the text is −y, across it (downwards in its frame) is +x.
        Rect {
            x0: at.0 + b0,
            y0: at.1 - a1,
            x1: at.0 + b1,
            y1: at.1 - a0,
        }
    } else {
        Rect {
            x0: at.0 + a0,
            y0: at.1 + b0,
            x1: at.0 + a1,
            y1: at.1 + b1,
        }
    }
}

/// Smallest size a title is shrunk to before it wraps, relative to its own size.
const MIN_TITLE_SCALE: f64 = 0.8;
/// Most lines a title wraps into.
const MAX_TITLE_LINES: usize = 3;

/// Fits a title into `max_width` (same unit as `size`): the size shrinks down to 80 %, then the
/// text wraps at spaces into at most three lines; a word longer than the width stays whole (the
/// figure check reports it). Returns the lines and the size.
pub(crate) fn fit_title(text: &str, size: f64, max_width: f64) -> (Vec<String>, f64) {
    let width = |s: &str, size: f64| text_width(&rich::plain(s), size);
    if width(text, size) <= max_width {
        return (vec![text.to_owned()], size);
    }
    let smallest = size * MIN_TITLE_SCALE;
    let scaled = size * max_width / width(text, size);
    if scaled >= smallest {
        return (vec![text.to_owned()], scaled);
    }
    let words = split_words(text);
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for word in words {
        let candidate = if current.is_empty() {
            word.clone()
        } else {
            format!("{current} {word}")
        };
        if current.is_empty() || width(&candidate, smallest) <= max_width {
            current = candidate;
        } else {
            lines.push(std::mem::replace(&mut current, word));
        }
    }
    if !current.is_empty() {
        lines.push(current);
    }
    if lines.len() > MAX_TITLE_LINES {
        let rest = lines.split_off(MAX_TITLE_LINES - 1).join(" ");
        lines.push(rest);
    }
    (lines, smallest)
}

/// Words of `text` split at spaces outside `{…}` subscript groups.
fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if c == ' ' && depth == 0 {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_shrink_then_wrap_and_never_split_a_subscript_group() {
        let text = "Held-out error of R_{per bin} against the number of labelled structures";
        let full = text_width(&rich::plain(text), 10.0);
        let (lines, size) = fit_title(text, 10.0, full * 1.01);
        assert_eq!((lines.len(), size), (1, 10.0));
        let (lines, size) = fit_title(text, 10.0, full * 0.9);
        assert_eq!(lines.len(), 1);
        assert!((size - 9.0).abs() < 0.2, "{size}");
        let (lines, size) = fit_title(text, 10.0, full * 0.45);
        assert_eq!(size, 8.0);
        assert!(lines.len() >= 2 && lines.len() <= 3, "{lines:?}");
        assert!(
            lines
                .iter()
                .all(|l| text_width(&rich::plain(l), 8.0) <= full * 0.45)
        );
        assert!(lines.iter().any(|l| l.contains("R_{per bin}")), "{lines:?}");
    }

    #[test]
    fn text_boxes_follow_the_anchor_and_the_rotation() {
        let r = text_box("abc", (100.0, 50.0), 10.0, (-1, -1), false);
        assert_eq!((r.x0, r.y0), (100.0, 50.0));
        assert!(r.x1 > 100.0 && (r.height() - 11.7).abs() < 1e-9);
        let c = text_box("abc", (100.0, 50.0), 10.0, (0, 0), true);
        assert!((c.width() - 11.7).abs() < 1e-9);
        assert!((c.height() - r.width()).abs() < 1e-9);
        assert!(((c.y0 + c.y1) / 2.0 - 50.0).abs() < 1e-9);
        let a = Rect {
            x0: 0.0,
            y0: 0.0,
            x1: 2.0,
            y1: 2.0,
        };
        let b = Rect {
            x0: 1.0,
            y0: 1.0,
            x1: 3.0,
            y1: 3.0,
        };
        assert!(a.contains_rect(&a.inset(0.5), 0.0) && !a.contains_rect(&b, 0.5));
    }
}
