//! End-to-end tests of the file renderers and export: SVG snapshot, PNG pixels and chunks,
//! PDF structure, bad data, determinism and atomic export.

use std::io::Cursor;
use std::path::PathBuf;

use super::*;

/// The figure of the SVG snapshot: a line, error bars, a reference line and text on the left,
/// a small heatmap with a colorbar on the right.
fn snapshot_figure() -> Figure {
    let xs: Vec<f64> = (0..=20).map(|i| f64::from(i) * 0.25).collect();
    let ys: Vec<f64> = xs.iter().map(|x| (-x / 2.0).exp()).collect();
    let left = Subplot::new("Decay")
        .x_label("Time (s)")
        .y_label("Signal (a.u.)")
        .line("Model", xs, ys)
        .error_bars(
            "Measured",
            [0.5, 1.5, 2.5, 3.5],
            [0.8, 0.45, 0.3, 0.17],
            [0.05, 0.04, 0.05, 0.03],
        )
        .hline(0.5, "Half")
        .text(1.0, 0.2, "τ = 2 s")
        .legend(true);
    let values: Vec<f64> = (0..12).map(f64::from).collect();
    let right = Subplot::new("Field")
        .x_label("x (mm)")
        .y_label("y (mm)")
        .heatmap(
            Heatmap::new("Intensity", (0.0, 4.0), (0.0, 3.0), 4, 3, values)
                .colormap(Colormap::Magma)
                .colorbar_label("Counts"),
        );
    Figure::new("Snapshot figure")
        .grid(1, 2)
        .size_in(6.0, 3.0)
        .subplot(left)
        .subplot(right)
}

fn snapshot_provenance() -> Provenance {
    let mut p = Provenance::new("tests", "snapshot")
        .engine("benchtop-test", "0.0.0")
        .params(serde_json::json!({"tau_s": 2.0}))
        .seed(42);
    // Fixed, so the snapshot does not depend on the build.
    p.app_version = "0.0.0-test".to_owned();
    p.git_commit = None;
    p
}

fn snapshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("snapshots")
        .join(name)
}

/// Compares text with a committed snapshot; writes it when UPDATE_SNAPSHOTS is set.
fn assert_snapshot(name: &str, actual: &str) {
    let path = snapshot_path(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().expect("snapshot dir")).expect("create snapshot dir");
        std::fs::write(&path, actual).expect("write snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "missing snapshot {} ({e}); run `UPDATE_SNAPSHOTS=1 cargo test -p benchtop --lib figure` and commit it",
            path.display()
        )
    });
    if expected != actual {
        let new_path = path.with_extension("new.svg");
        std::fs::write(&new_path, actual).expect("write new snapshot");
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "SVG differs from snapshot {} from line {} on:\n  expected: {:?}\n  actual:   {:?}\nThe new output is in {}; \
             if the change is intended, run `UPDATE_SNAPSHOTS=1 cargo test -p benchtop --lib figure` and commit it.",
            path.display(),
            line + 1,
            expected.lines().nth(line),
            actual.lines().nth(line),
            new_path.display()
        );
    }
}

#[test]
fn svg_matches_snapshot_and_carries_metadata_and_labels() {
    let figure = snapshot_figure();
    let options = ExportOptions::new(ExportFormat::Svg);
    let svg = render_svg_with_provenance(&figure, &options, &snapshot_provenance()).expect("svg");
    assert!(
        svg.starts_with("<svg width=\"6in\" height=\"3in\" viewBox=\"0 0 1728 864\""),
        "{}",
        &svg[..200]
    );
    assert!(svg.contains("<title>Snapshot figure</title>"));
    assert!(svg.contains("<desc>Benchtop 0.0.0-test; panel tests, figure snapshot; engine benchtop-test 0.0.0; seed 42; params {&quot;tau_s&quot;:2.0}</desc>"));
    assert!(svg.contains("<metadata id=\"benchtop-provenance\">"));
    assert!(svg.contains("&quot;seed&quot;: 42"));
    for label in [
        "Time (s)",
        "Signal (a.u.)",
        "x (mm)",
        "y (mm)",
        "Counts",
        "τ = 2 s",
        "Model",
        "Measured",
        "Half",
    ] {
        assert!(
            svg.contains(&format!(">\n{label}\n</text>")),
            "label {label:?} missing"
        );
    }
    assert!(svg.contains(&format!("font-family=\"{FONT_FAMILY}\"")));
    // Heatmap and colorbar as two embedded images; every plot area clipped.
    assert_eq!(svg.matches("<image ").count(), 2);
    assert_eq!(svg.matches("<clipPath ").count(), 2);
    assert!(!svg.contains("#FE01FD"), "a placeholder was left in");
    assert_snapshot("figure_basic.svg", &svg);
    // The plain SVG has no provenance.
    let plain = render_svg(&figure, &options).expect("svg");
    assert!(!plain.contains("<metadata") && !plain.contains("<desc>"));
}

fn decode_png(bytes: &[u8]) -> (png::Info<'static>, Vec<u8>) {
    let decoder = png::Decoder::new(Cursor::new(bytes.to_vec()));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("buffer size")];
    let frame = reader.next_frame(&mut buf).expect("png data");
    assert_eq!(frame.color_type, png::ColorType::Rgb);
    buf.truncate(frame.buffer_size());
    (reader.info().clone(), buf)
}

fn text_chunk(info: &png::Info<'_>, keyword: &str) -> Option<String> {
    info.uncompressed_latin1_text
        .iter()
        .find(|c| c.keyword == keyword)
        .map(|c| c.text.clone())
}

#[test]
fn png_has_size_dpi_text_chunks_and_ink() {
    let figure = Figure::new("Line plot").size_in(2.0, 1.5).subplot(
        Subplot::new("").x_label("x").y_label("y").line(
            "y = x²",
            [0.0, 1.0, 2.0, 3.0],
            [0.0, 1.0, 4.0, 9.0],
        ),
    );
    let provenance = Provenance::new("tests", "line").seed(3);
    let bytes = render_png(&figure, &ExportOptions::default(), &provenance).expect("png");
    let (info, rgb) = decode_png(&bytes);
    assert_eq!((info.width, info.height), (600, 450));
    let dims = info.pixel_dims.expect("pHYs chunk");
    assert_eq!(dims.unit, png::Unit::Meter);
    assert_eq!((dims.xppu, dims.yppu), (11811, 11811)); // 300 DPI
    assert_eq!(text_chunk(&info, "Title").as_deref(), Some("Line plot"));
    assert_eq!(text_chunk(&info, "Description"), Some(provenance.summary()));
    assert_eq!(
        text_chunk(&info, "Software"),
        Some(format!("Benchtop {APP_VERSION}"))
    );
    let pixels = rgb.len() / 3;
    let dark = rgb
        .chunks_exact(3)
        .filter(|p| p.iter().all(|&c| c < 100))
        .count();
    let white = rgb
        .chunks_exact(3)
        .filter(|p| p.iter().all(|&c| c == 255))
        .count();
    assert!(dark > 500, "only {dark} dark pixels: nothing drawn?");
    assert!(white > pixels * 7 / 10, "only {white} of {pixels} white");
    // The line is drawn in the first cycle colour.
    let blue = Rgba::cycle(0);
    let line_pixels = rgb
        .chunks_exact(3)
        .filter(|p| p == &[blue.r, blue.g, blue.b])
        .count();
    assert!(line_pixels > 50, "{line_pixels} line pixels");
}

/// The rectangle of the first `<image>` of an SVG, in SVG units.
fn first_image_rect(svg: &str) -> (f64, f64, f64, f64) {
    let start = svg.find("<image ").expect("an image");
    let tag = &svg[start..start + 200];
    let attr = |name: &str| -> f64 {
        let key = format!(" {name}=\"");
        let at = tag.find(&key).expect("attribute") + key.len();
        let end = tag[at..].find('"').expect("quote") + at;
        tag[at..end].parse().expect("number")
    };
    (attr("x"), attr("y"), attr("width"), attr("height"))
}

#[test]
fn png_heatmap_pixels_have_the_colormap_colours() {
    // Two cells: 0 on the left, 10 on the right, plus a NaN row above (transparent).
    let heatmap = Heatmap::new(
        "h",
        (0.0, 2.0),
        (0.0, 2.0),
        2,
        2,
        [0.0, 10.0, f64::NAN, f64::NAN],
    )
    .colormap(Colormap::Viridis)
    .value_range(0.0, 10.0);
    let figure = Figure::new("Heatmap")
        .size_in(3.0, 2.0)
        .subplot(Subplot::new("").heatmap(heatmap));
    assert_eq!(figure.warnings().len(), 1, "{:?}", figure.warnings());
    let dpi = 100;
    let options = ExportOptions::default().dpi(dpi);
    let svg = render_svg(&figure, &options).expect("svg");
    let (x, y, w, h) = first_image_rect(&svg);
    let bytes = render_png(&figure, &options, &Provenance::default()).expect("png");
    let (info, rgb) = decode_png(&bytes);
    assert_eq!((info.width, info.height), (300, 200));
    let scale = f64::from(dpi) / 288.0;
    let pixel = |fx: f64, fy: f64| {
        let px = ((x + fx * w) * scale) as usize;
        let py = ((y + fy * h) * scale) as usize;
        let i = (py * info.width as usize + px) * 3;
        Rgba::rgb(rgb[i], rgb[i + 1], rgb[i + 2])
    };
    // Bottom row: left cell low end, right cell high end; top row transparent (white).
    assert_eq!(pixel(0.25, 0.75), Colormap::Viridis.color_at(0.0));
    assert_eq!(pixel(0.75, 0.75), Colormap::Viridis.color_at(1.0));
    assert_eq!(pixel(0.25, 0.25), Rgba::WHITE);
}

fn count_pages(pdf: &[u8]) -> usize {
    let text = String::from_utf8_lossy(pdf);
    text.match_indices("/Type /Page")
        .filter(|(i, _)| !text[i + 11..].starts_with('s'))
        .count()
}

#[test]
fn pdf_is_a_one_page_vector_document_with_info() {
    let figure = Figure::new("Vector line plot").subplot(
        Subplot::new("Spectrum")
            .x_label("Frequency (Hz)")
            .y_label("Power")
            .line("power", [1.0, 2.0, 3.0], [3.0, 1.0, 2.0]),
    );
    let provenance = Provenance::new("tests", "pdf").seed(9);
    let pdf =
        render_pdf(&figure, &ExportOptions::new(ExportFormat::Pdf), &provenance).expect("pdf");
    assert!(pdf.starts_with(b"%PDF-"));
    assert!(pdf.trim_ascii_end().ends_with(b"%%EOF"));
    let text = String::from_utf8_lossy(&pdf);
    assert_eq!(count_pages(&pdf), 1);
    assert!(
        text.contains("/Title (Vector line plot)"),
        "no title in the info dictionary"
    );
    assert!(text.contains("/Creator (Benchtop"));
    assert!(text.contains("/Subject (Benchtop"));
    assert!(text.contains("/MediaBox [0 0 460.8 345.6]"), "page size");
    assert!(text.contains("/Info "), "trailer has no info");
    assert!(
        text.contains("/FontFile2"),
        "text is not embedded as a font"
    );
    // Vector: no raster image anywhere for a line plot.
    assert!(!text.contains("/Subtype /Image"));
    // A heatmap does bring its image.
    let with_heatmap = Figure::new("Heatmap").subplot(Subplot::new("").heatmap(Heatmap::new(
        "h",
        (0.0, 1.0),
        (0.0, 1.0),
        2,
        2,
        [1.0, 2.0, 3.0, 4.0],
    )));
    let pdf = render_pdf(
        &with_heatmap,
        &ExportOptions::new(ExportFormat::Pdf),
        &provenance,
    )
    .expect("pdf");
    assert!(String::from_utf8_lossy(&pdf).contains("/Subtype /Image"));
}

#[test]
fn log_axes_with_bad_values_render_and_warn() {
    let figure = Figure::new("Bad data").subplot(
        Subplot::new("Power spectrum")
            .x_scale(Scale::Log10)
            .y_scale(Scale::Log10)
            .x_label("Frequency (Hz)")
            .line(
                "psd",
                [0.0, 1.0, 10.0, 100.0, f64::NAN, 1000.0],
                [5.0, 1.0, 0.1, -1.0, 1.0, 1e-3],
            )
            .scatter("peaks", [10.0, -3.0], [0.1, f64::INFINITY])
            .vline(0.0, "zero")
            .with(Bars::categories("none", Vec::new(), Vec::new())),
    );
    let warnings = figure.warnings();
    assert_eq!(warnings.len(), 4, "{warnings:#?}");
    assert!(
        warnings[0].contains("3 of 6 points skipped"),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[1].contains("1 of 2 points skipped"),
        "{}",
        warnings[1]
    );
    assert!(warnings[2].contains("vertical line"), "{}", warnings[2]);
    assert!(warnings[3].contains("empty series"), "{}", warnings[3]);
    for format in [ExportFormat::Svg, ExportFormat::Png, ExportFormat::Pdf] {
        let options = ExportOptions::new(format).dpi(72);
        render_bytes(&figure, &options, &Provenance::default()).expect("renders despite bad data");
    }
    let svg = render_svg(&figure, &ExportOptions::default()).expect("svg");
    assert!(
        svg.contains(">\n10⁰\n</text>") && svg.contains(">\n10²\n</text>"),
        "decade labels"
    );
}

/// A figure using every item kind, for smoke tests.
fn every_item_figure() -> Figure {
    let n = 9;
    let grid: Vec<f64> = (0..n)
        .map(|i| -1.0 + 2.0 * f64::from(i) / f64::from(n - 1))
        .collect();
    let mut u = Vec::new();
    let mut v = Vec::new();
    for &y in &grid {
        for &x in &grid {
            u.push(-y);
            v.push(x);
        }
    }
    let field =
        VectorField::new("Flow", grid.clone(), grid, u, v).with_streamlines(&StreamlineOptions {
            seeds_x: 3,
            seeds_y: 3,
            ..StreamlineOptions::default()
        });
    let tree = Graph::new(
        "tree",
        vec![
            GraphNode::new(0.0, 2.0, "root"),
            GraphNode::new(-1.0, 1.0, "a").color(Rgba::cycle(1)),
            GraphNode::new(1.0, 1.0, "b").color(Rgba::cycle(2)),
        ],
        vec![GraphEdge::new(0, 1), GraphEdge::new(0, 2).width_pt(2.0)],
    );
    Figure::new("Everything")
        .grid(2, 2)
        .subplot(Subplot::new("Flow").equal_aspect(true).with(field))
        .subplot(Subplot::new("Tree").with(tree))
        .subplot(
            Subplot::new("Bars")
                .bars(
                    "Weight",
                    vec!["alpha".to_owned(), "beta".to_owned(), "gamma".to_owned()],
                    [0.2, 0.5, 0.3],
                )
                .legend(true),
        )
        .subplot(
            Subplot::new("Markers")
                .with(Scatter::new("sq", [0.0, 1.0], [0.0, 1.0]).marker(Marker::Square))
                .with(
                    Scatter::new("tri", [0.0, 1.0], [1.0, 0.0])
                        .marker(Marker::Triangle)
                        .colors(vec![Rgba::BLACK, Rgba::cycle(3)]),
                )
                .with(Scatter::new("x", [0.5], [0.5]).marker(Marker::Cross))
                .with(Line::new("dots", [0.0, 1.0], [0.5, 0.6]).dash(Dash::Dotted))
                .with(ErrorBars::new("xy", [0.3], [0.3], [0.1]).x_err([0.1]))
                .vline(0.25, "v")
                .legend(true),
        )
}

#[test]
fn every_item_kind_renders_in_all_formats_deterministically() {
    let figure = every_item_figure();
    assert!(figure.warnings().is_empty(), "{:?}", figure.warnings());
    for format in [ExportFormat::Svg, ExportFormat::Png, ExportFormat::Pdf] {
        let options = ExportOptions::new(format).dpi(60);
        let provenance = Provenance::new("tests", "every");
        let a = render_bytes(&figure, &options, &provenance).expect("render");
        for _ in 0..3 {
            let b = render_bytes(&figure, &options, &provenance).expect("render");
            assert!(a == b, "{format:?} export is not deterministic");
        }
    }
    let svg = render_svg(&figure, &ExportOptions::default()).expect("svg");
    for label in ["alpha", "beta", "gamma", "root"] {
        assert!(svg.contains(&format!(">\n{label}\n</text>")), "{label}");
    }
}

#[test]
fn large_heatmaps_are_one_embedded_image() {
    let n = 2048;
    let values: Vec<f64> = (0..n * n).map(|i| ((i % n) + i / n) as f64).collect();
    let figure =
        Figure::new("Large")
            .size_in(3.0, 3.0)
            .subplot(Subplot::new("").heatmap(Heatmap::new(
                "big",
                (0.0, 1.0),
                (0.0, 1.0),
                n,
                n,
                values,
            )));
    let svg = render_svg(&figure, &ExportOptions::default()).expect("svg");
    assert_eq!(svg.matches("<image ").count(), 2);
    assert!(svg.matches("<rect").count() < 20);
    // Rasterises, too.
    let png = render_png(
        &figure,
        &ExportOptions::default().dpi(50),
        &Provenance::default(),
    )
    .expect("png");
    let (info, _) = decode_png(&png);
    assert_eq!((info.width, info.height), (150, 150));
}

#[test]
fn export_writes_the_file_and_its_provenance_atomically() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("decay.svg");
    let provenance = snapshot_provenance();
    let written = export_figure(
        &snapshot_figure(),
        &ExportOptions::new(ExportFormat::Svg),
        &provenance,
        &path,
    )
    .expect("export");
    let sidecar = dir.path().join("decay.provenance.json");
    assert_eq!(written, vec![path.clone(), sidecar.clone()]);
    let svg = std::fs::read_to_string(&path).expect("read svg");
    assert!(svg.contains("<metadata"));
    let back: Provenance =
        serde_json::from_str(&std::fs::read_to_string(&sidecar).expect("read json")).expect("json");
    assert_eq!(back, provenance);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(
            mode & 0o777,
            0o644,
            "exports are not private temporary files"
        );
    }
    // Only the two files: no temporary files left behind.
    assert_eq!(std::fs::read_dir(dir.path()).expect("list").count(), 2);

    // Overwriting works; a failed export names the path and leaves the old file intact.
    export_figure(
        &snapshot_figure(),
        &ExportOptions::new(ExportFormat::Png).dpi(30),
        &provenance,
        &path,
    )
    .expect("overwrite");
    assert!(std::fs::read(&path).expect("read").starts_with(b"\x89PNG"));
    let bad = ExportOptions::new(ExportFormat::Png).dpi(0);
    let err = export_figure(&snapshot_figure(), &bad, &provenance, &path).expect_err("dpi 0");
    assert!(err.to_string().contains("decay.svg"), "{err}");
    assert!(std::fs::read(&path).expect("read").starts_with(b"\x89PNG"));
    let missing = dir.path().join("no/such/dir/fig.pdf");
    let err = export_figure(
        &snapshot_figure(),
        &ExportOptions::new(ExportFormat::Pdf),
        &provenance,
        &missing,
    )
    .expect_err("missing dir");
    assert!(err.to_string().contains("no/such/dir/fig.pdf"), "{err}");
}

#[test]
fn export_options_validate_sizes() {
    let figure = Figure::new("").size_in(4.0, 3.0);
    assert_eq!(
        ExportOptions::default()
            .effective_size_in(&figure)
            .expect("size"),
        (4.0, 3.0)
    );
    assert_eq!(
        ExportOptions::default()
            .size_in(2.0, 1.0)
            .effective_size_in(&figure)
            .expect("size"),
        (2.0, 1.0)
    );
    assert!(
        ExportOptions::default()
            .size_in(-2.0, 1.0)
            .effective_size_in(&figure)
            .is_err()
    );
    let broken = Figure::new("").size_in(f64::NAN, 3.0);
    assert_eq!(
        ExportOptions::default()
            .effective_size_in(&broken)
            .expect("size"),
        Figure::DEFAULT_SIZE_IN
    );
    assert!(png_size_px((100.0, 100.0), 1_000_000).is_err());
    assert_eq!(ExportFormat::from_extension("PDF"), Some(ExportFormat::Pdf));
    assert_eq!(
        provenance_path(std::path::Path::new("a/b.c.png")),
        PathBuf::from("a/b.c.provenance.json")
    );
}

#[test]
fn named_ticks_label_a_heatmaps_rows_and_columns_on_export_and_screen() {
    let names: Vec<String> = ["canary", "salmon", "oak", "rose"]
        .iter()
        .map(|n| (*n).to_owned())
        .collect();
    let values: Vec<f64> = (0..16).map(f64::from).collect();
    let heatmap = Heatmap::new("RSM", (0.5, 4.5), (0.5, 4.5), 4, 4, values);
    let figure = Figure::new("Named items").size_in(4.0, 4.0).subplot(
        Subplot::new("")
            .x_range(0.5, 4.5)
            .y_range(0.5, 4.5)
            .x_tick_names(1.0, names.clone())
            .y_tick_names(1.0, names.clone())
            .heatmap(heatmap),
    );
    let svg = render_svg(&figure, &ExportOptions::default()).expect("svg");
    for name in &names {
        assert_eq!(
            svg.matches(&format!("\n{name}\n")).count(),
            2,
            "{name} labels one row and one column"
        );
    }
    assert!(!svg.contains("\n2.5\n"), "no numbers between the names");
    let options = ExportOptions::default();
    assert_eq!(
        check_figure(&figure, &options).expect("check"),
        Vec::<String>::new()
    );
    assert_eq!(check_figure_on_screen(&figure), Vec::<String>::new());
}
