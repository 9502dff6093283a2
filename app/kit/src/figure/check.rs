//! The figure check: lays a figure out as the export does and reports what a reviewer would
//! send back: text that overlaps other text or leaves the canvas, a legend over the data,
//! internal keys or raw markup shown as text, bars on a log axis, equal aspect between axes of
//! different units, plots squashed below a legible size. `benchtop run --check-figures` runs it
//! on every figure of a project, and the example tests run that on every example.

use super::egui_view::screen_layout;
use super::error::FigureError;
use super::export::ExportOptions;
use super::layout::{LayoutRecord, TextBox, TextRole};
use super::model::{Figure, Item, Scale};
use super::rich;
use super::svg::export_layout;

/// Overlap (in points, both ways) two texts may share before the check reports them: the
/// boxes are a little larger than the ink.
const OVERLAP_SLACK_PT: f64 = 1.0;
/// How far (points) a text may reach beyond the canvas.
const CANVAS_SLACK_PT: f64 = 1.0;
/// Largest fraction of a subplot's data points its legend may cover.
const LEGEND_COVER_LIMIT: f64 = 0.05;
/// Smallest legible plot area side, in points.
const MIN_PLOT_SIDE_PT: f64 = 40.0;
/// File extensions whose names may show underscores and dots in figure text.
const FILE_EXTENSIONS: &[&str] = &[
    "nc", "csv", "tsv", "npz", "npy", "ron", "json", "txt", "xyz", "smi", "edges", "h5", "png",
];

/// Window areas (egui points) a figure is checked at on screen: a small laptop window's figure
/// area and a large monitor's.
pub const SCREEN_SIZES: [(f32, f32); 2] = [(640.0, 460.0), (1200.0, 800.0)];

/// What is wrong with `figure` laid out at the export size of `options`, one sentence each
/// naming the text or subplot; empty when the figure is clean.
pub fn check_figure(figure: &Figure, options: &ExportOptions) -> Result<Vec<String>, FigureError> {
    let record = export_layout(figure, options)?;
    let mut problems = check_record(&record);
    problems.extend(check_model(figure));
    Ok(problems)
}

/// What is wrong with `figure` drawn on screen at each of [`SCREEN_SIZES`] (the text rules:
/// overlaps, text cut off or outside the area, internal keys), each sentence saying at which
/// size.
pub fn check_figure_on_screen(figure: &Figure) -> Vec<String> {
    let mut problems = Vec::new();
    for size in SCREEN_SIZES {
        for problem in check_record(&screen_layout(figure, size)) {
            let problem = format!("on screen at {}×{}: {problem}", size.0, size.1);
            if !problems.contains(&problem) {
                problems.push(problem);
            }
        }
    }
    problems
}

/// The rules that read the placed boxes.
fn check_record(record: &LayoutRecord) -> Vec<String> {
    let mut problems = Vec::new();
    let pt = record.units_per_pt;
    let canvas = super::layout::Rect {
        x0: 0.0,
        y0: 0.0,
        x1: record.canvas.0,
        y1: record.canvas.1,
    };
    for text in &record.clipped {
        problems.push(format!("{} is cut off", describe(text)));
    }
    for text in &record.texts {
        if !canvas.contains_rect(&text.rect, CANVAS_SLACK_PT * pt) {
            problems.push(format!("{} runs outside the canvas", describe(text)));
        }
        if let Some(why) = raw_text(&text.text) {
            problems.push(format!("{} shows {why}", describe(text)));
        }
    }
    for (i, a) in record.texts.iter().enumerate() {
        for b in &record.texts[i + 1..] {
            let w = a.rect.x1.min(b.rect.x1) - a.rect.x0.max(b.rect.x0);
            let h = a.rect.y1.min(b.rect.y1) - a.rect.y0.max(b.rect.y0);
            if w > OVERLAP_SLACK_PT * pt && h > OVERLAP_SLACK_PT * pt {
                problems.push(format!("{} overlaps {}", describe(a), describe(b)));
            }
        }
    }
    for legend in &record.legends {
        if legend.total > 0 && legend.covered as f64 > LEGEND_COVER_LIMIT * legend.total as f64 {
            problems.push(format!(
                "subplot {}: the legend covers {:.0} % of the data",
                legend.subplot + 1,
                100.0 * legend.covered as f64 / legend.total as f64
            ));
        }
    }
    for plot in &record.plots {
        let (w, h) = (plot.rect.width() / pt, plot.rect.height() / pt);
        if w < MIN_PLOT_SIDE_PT || h < MIN_PLOT_SIDE_PT {
            problems.push(format!(
                "subplot {}: the plot area is squashed to {w:.0} × {h:.0} pt",
                plot.subplot + 1
            ));
        }
    }
    problems
}

/// The rules that read the figure model.
fn check_model(figure: &Figure) -> Vec<String> {
    let mut problems = Vec::new();
    for (i, subplot) in figure.subplots.iter().enumerate() {
        let name = if subplot.title.is_empty() {
            format!("subplot {}", i + 1)
        } else {
            format!("subplot {} ({})", i + 1, subplot.title)
        };
        let has_bars = subplot
            .items
            .iter()
            .any(|item| matches!(item, Item::Bars(_)));
        if has_bars && subplot.y.scale == Scale::Log10 {
            problems.push(format!(
                "{name}: bars on a log axis (their length has no meaning there)"
            ));
        }
        if subplot.equal_aspect
            && let (Some(x), Some(y)) = (unit_of(&subplot.x.label), unit_of(&subplot.y.label))
            && x != y
        {
            problems.push(format!(
                "{name}: equal aspect between axes of different units ({x}, {y})"
            ));
        }
    }
    problems
}

/// The unit in an axis label's last parentheses, e.g. `K` in "Temperature (K)".
fn unit_of(label: &str) -> Option<&str> {
    let open = label.rfind('(')?;
    let close = label[open..].find(')')? + open;
    let unit = label[open + 1..close].trim();
    (!unit.is_empty()).then_some(unit)
}

/// Why `text` would read as a leak of internals: a parameter key (`mc.beta`), an underscore
/// left over from an identifier or unparsed subscript markup; `None` when it reads as text.
fn raw_text(text: &str) -> Option<String> {
    let shown = rich::plain(text);
    for token in shown.split(|c: char| c.is_whitespace() || "()[],;:=".contains(c)) {
        // Quoted names (a CSV column, a file) are the user's, shown as they are.
        if token.starts_with(['‘', '“', '`']) {
            continue;
        }
        let token = token.trim_matches(|c: char| c == '.' || c == '\'' || c == '"');
        if token.is_empty() || is_file_name(token) || token.contains('/') {
            continue;
        }
        if token.contains('{') || token.contains('}') {
            return Some(format!("raw markup `{token}`"));
        }
        if token.contains('_') {
            return Some(format!("an identifier `{token}`"));
        }
        if is_key(token) {
            return Some(format!("an internal key `{token}`"));
        }
    }
    None
}

/// `name.ext` with a known data-file extension.
fn is_file_name(token: &str) -> bool {
    token
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && FILE_EXTENSIONS.contains(&ext))
}

/// `word.word` of lowercase letters, digits and underscores (a parameter key).
fn is_key(token: &str) -> bool {
    let mut parts = token.split('.');
    let ident = |p: &str| {
        p.chars().next().is_some_and(|c| c.is_ascii_lowercase())
            && p.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    let (Some(first), Some(second)) = (parts.next(), parts.next()) else {
        return false;
    };
    ident(first) && ident(second) && parts.all(ident)
}

/// "subplot title `…`" and the like, for the messages.
fn describe(text: &TextBox) -> String {
    let role = match text.role {
        TextRole::FigureTitle => "the title",
        TextRole::SubplotTitle => "the subplot title",
        TextRole::AxisLabel => "the axis label",
        TextRole::TickLabel => "the tick label",
        TextRole::Legend => "the legend entry",
        TextRole::Annotation => "the annotation",
        TextRole::OnScreen => "the text",
    };
    format!("{role} `{}`", text.text)
}

#[cfg(test)]
mod tests {
    use super::super::model::{Bars, Line, Scatter, Subplot};
    use super::*;

    fn line(name: &str, n: usize) -> Item {
        let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let y: Vec<f64> = x.iter().map(|v| v * v).collect();
        Item::Line(Line::new(name, x, y))
    }

    fn options() -> ExportOptions {
        ExportOptions::default()
    }

    #[test]
    fn a_clean_figure_passes() {
        let figure = Figure::new("Loss against epoch").subplot(
            Subplot::new("Training")
                .x_label("Epoch")
                .y_label("Loss (nats)")
                .with(line("train", 20))
                .with(line("held out", 20))
                .legend(true),
        );
        assert_eq!(
            check_figure(&figure, &options()).expect("lays out"),
            Vec::<String>::new()
        );
        assert_eq!(check_figure_on_screen(&figure), Vec::<String>::new());
    }

    #[test]
    fn a_title_too_long_for_the_canvas_is_reported() {
        let long = "Anextremelylongtitlewithoutanyspacesthatcannotwrapanywhereatallwhatsoeverandkeepsgoing";
        let figure = Figure::new(long).subplot(Subplot::new("").with(line("a", 5)));
        let problems = check_figure(&figure, &options()).expect("lays out");
        assert!(
            problems
                .iter()
                .any(|p| p.contains("the title") && p.contains("outside the canvas")),
            "{problems:?}"
        );
    }

    #[test]
    fn long_titles_wrap_instead_of_overlapping_their_neighbours() {
        let title = "Held-out force error against the number of labelled structures, per seed";
        let figure = Figure::new("Two panels side by side")
            .grid(1, 2)
            .size_in(6.4, 3.0)
            .subplot(Subplot::new(title).with(line("a", 5)))
            .subplot(Subplot::new(title).with(line("b", 5)));
        assert_eq!(
            check_figure(&figure, &options()).expect("lays out"),
            Vec::<String>::new()
        );
        assert_eq!(check_figure_on_screen(&figure), Vec::<String>::new());
    }

    #[test]
    fn keys_identifiers_bars_on_log_axes_and_mixed_unit_aspect_are_reported() {
        let figure = Figure::new("Sweep")
            .grid(1, 2)
            .subplot(
                Subplot::new("")
                    .with(line("duality.dual_beta", 5))
                    .legend(true),
            )
            .subplot(
                Subplot::new("Times")
                    .x_label("Site (m)")
                    .y_label("Time (s)")
                    .y_scale(Scale::Log10)
                    .equal_aspect(true)
                    .with(Bars::categories(
                        "time",
                        vec!["a".into(), "b".into()],
                        vec![1.0, 10.0],
                    )),
            );
        let problems = check_figure(&figure, &options())
            .expect("lays out")
            .join("\n");
        assert!(
            problems.contains("an identifier `duality.dual_beta`"),
            "{problems}"
        );
        assert!(problems.contains("bars on a log axis"), "{problems}");
        assert!(problems.contains("different units (m, s)"), "{problems}");
        assert_eq!(
            raw_text("mc.beta"),
            Some("an internal key `mc.beta`".to_owned())
        );
        assert_eq!(raw_text("era5_200hPa.nc, 2.5 K"), None);
        assert_eq!(raw_text("assets/a_b.csv.gz and column ‘temp_max’"), None);
        assert_eq!(raw_text("ρ_k² at k_c"), None);
    }

    #[test]
    fn a_legend_over_dense_data_moves_outside_the_plot() {
        // Six series over the whole plot: no corner is free, so the legend goes to the right.
        let mut subplot = Subplot::new("Grid").legend(true);
        for k in 0..6 {
            let (mut xs, mut ys) = (Vec::new(), Vec::new());
            for i in 0..30 {
                for j in 0..30 {
                    xs.push(f64::from(i) + 0.1 * f64::from(k));
                    ys.push(f64::from(j));
                }
            }
            subplot = subplot.with(Scatter::new(format!("series {k}"), xs, ys));
        }
        let figure = Figure::new("").subplot(subplot);
        let record = export_layout(&figure, &options()).expect("lays out");
        let legend = &record.legends[0];
        assert_eq!(legend.covered, 0, "{legend:?}");
        assert!(legend.rect.x0 > record.plots[0].rect.x1);
        assert_eq!(
            check_figure(&figure, &options()).expect("lays out"),
            Vec::<String>::new()
        );
        // A line through one corner only: the legend takes another corner, inside.
        let figure = Figure::new("").subplot(
            Subplot::new("Decay")
                .with(Line::new(
                    "exp(−t)",
                    vec![0.0, 0.5, 1.0, 2.0, 4.0],
                    vec![1.0, 0.61, 0.37, 0.14, 0.02],
                ))
                .legend(true),
        );
        let record = export_layout(&figure, &options()).expect("lays out");
        assert!(record.legends[0].rect.x1 < record.plots[0].rect.x1);
        // Three plots a row with long entries: no room beside, so below in columns.
        let mut figure = Figure::new("").grid(1, 3).size_in(9.0, 3.2);
        for _ in 0..3 {
            let mut subplot = Subplot::new("Dense").legend(true);
            for k in 0..4 {
                let xs: Vec<f64> = (0..200).map(f64::from).collect();
                let ys: Vec<f64> = xs.iter().map(|x| (x * 0.05 + f64::from(k)).sin()).collect();
                subplot = subplot.with(Line::new(format!("a long series name number {k}"), xs, ys));
            }
            figure = figure.subplot(subplot);
        }
        let record = export_layout(&figure, &options()).expect("lays out");
        for (legend, plot) in record.legends.iter().zip(&record.plots) {
            assert!(legend.rect.y0 > plot.rect.y1, "{legend:?} {plot:?}");
            assert_eq!(legend.covered, 0);
        }
        assert_eq!(
            check_figure(&figure, &options()).expect("lays out"),
            Vec::<String>::new()
        );
        assert_eq!(record.legends[0].covered, 0);
    }
}
