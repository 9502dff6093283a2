//! PDF export: the figure's SVG converted to vector PDF with svg2pdf (text embedded in the
//! bundled font), placed on one page of the figure's size, with the document information
//! (title, subject = provenance summary, keywords, creator) filled in.

use std::collections::BTreeMap;

use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, TextStr};

use super::error::FigureError;
use super::export::ExportOptions;
use super::model::Figure;
use super::provenance::{APP_VERSION, Provenance};
use super::raster::parse_svg;
use super::svg::render_svg;

/// Renders a figure to a one-page vector PDF.
pub fn render_pdf(
    figure: &Figure,
    options: &ExportOptions,
    provenance: &Provenance,
) -> Result<Vec<u8>, FigureError> {
    let (width_in, height_in) = options.effective_size_in(figure)?;
    let svg = render_svg(figure, options)?;
    let tree = parse_svg(&svg)?;
    let (chunk, svg_ref) = svg2pdf::to_chunk(&tree, svg2pdf::ConversionOptions::default())
        .map_err(|e| FigureError::Pdf(e.to_string()))?;

    let mut alloc = Ref::new(1);
    let catalog_id = alloc.bump();
    let page_tree_id = alloc.bump();
    let page_id = alloc.bump();
    let content_id = alloc.bump();
    let info_id = alloc.bump();
    let mut renumbered = BTreeMap::new();
    let chunk = chunk.renumber(|old| *renumbered.entry(old).or_insert_with(|| alloc.bump()));
    let svg_id = *renumbered
        .get(&svg_ref)
        .ok_or_else(|| FigureError::Pdf("the converted figure has no root object".to_owned()))?;

    let (width_pt, height_pt) = ((width_in * 72.0) as f32, (height_in * 72.0) as f32);
    let svg_name = Name(b"Figure");
    let mut pdf = Pdf::new();
    pdf.catalog(catalog_id).pages(page_tree_id);
    pdf.pages(page_tree_id).kids([page_id]).count(1);
    let mut page = pdf.page(page_id);
    page.media_box(Rect::new(0.0, 0.0, width_pt, height_pt));
    page.parent(page_tree_id);
    page.contents(content_id);
    page.resources().x_objects().pair(svg_name, svg_id);
    page.finish();

    let mut content = Content::new();
    content.save_state();
    content.transform([width_pt, 0.0, 0.0, height_pt, 0.0, 0.0]);
    content.x_object(svg_name);
    content.restore_state();
    pdf.stream(content_id, &content.finish());
    pdf.extend(&chunk);

    let summary = provenance.summary();
    let keywords = format!("Benchtop, {}, {}", provenance.panel, provenance.figure);
    let creator = format!("Benchtop {APP_VERSION}");
    let mut info = pdf.document_info(info_id);
    info.title(TextStr(&figure.title));
    info.subject(TextStr(&summary));
    info.keywords(TextStr(&keywords));
    info.creator(TextStr(&creator));
    info.producer(TextStr("svg2pdf"));
    info.finish();
    Ok(canonical_dictionary_order(&pdf.finish()))
}

/// Whether a line is a dictionary entry `/Name <n> 0 R` (as pdf-writer writes them).
fn is_reference_entry(line: &[u8]) -> bool {
    let text = line.trim_ascii_start();
    let Some(rest) = text.strip_prefix(b"/") else {
        return false;
    };
    let mut parts = rest.split(|&b| b == b' ');
    let (Some(name), Some(number), Some(generation), Some(r), None) = (
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
        parts.next(),
    ) else {
        return false;
    };
    !name.is_empty()
        && name.iter().all(u8::is_ascii_alphanumeric)
        && !number.is_empty()
        && number.iter().all(u8::is_ascii_digit)
        && generation == b"0"
        && r == b"R"
}

/// svg2pdf writes resource dictionaries in hash-map order, which changes from run to run. This
/// sorts every run of consecutive `/Name <n> 0 R` lines (one dictionary's entries) outside
/// streams. Entry order does not matter in PDF dictionaries, and the lines only move within
/// their run, so every byte offset (and the cross-reference table) stays valid.
fn canonical_dictionary_order(pdf: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(pdf.len());
    let mut rest = pdf;
    let mut run: Vec<&[u8]> = Vec::new();
    let flush = |run: &mut Vec<&[u8]>, out: &mut Vec<u8>| {
        run.sort_unstable();
        for line in run.drain(..) {
            out.extend_from_slice(line);
        }
    };
    while !rest.is_empty() {
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |i| i + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        let content = line.strip_suffix(b"\n").unwrap_or(line);
        if line.ends_with(b"\n") && is_reference_entry(content) {
            run.push(line);
            continue;
        }
        flush(&mut run, &mut out);
        out.extend_from_slice(line);
        if content == b"stream" || content.ends_with(b">>stream") {
            // Copy the stream's bytes untouched, up to its end marker.
            let stop = rest
                .windows(10)
                .position(|w| w == b"\nendstream")
                .map_or(rest.len(), |i| i + 1);
            out.extend_from_slice(&rest[..stop]);
            rest = &rest[stop..];
        }
    }
    flush(&mut run, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dictionary_entries_are_sorted_without_moving_anything_else() {
        let input = b"1 0 obj\n<<\n  /xo2 11 0 R\n  /xo1 10 0 R\n  /Type /Page\n  /b 3 0 R\n  /a 2 0 R\n>>\nstream\n/z 9 0 R\n/y 8 0 R\nendstream\n".to_vec();
        let out = canonical_dictionary_order(&input);
        let expected = b"1 0 obj\n<<\n  /xo1 10 0 R\n  /xo2 11 0 R\n  /Type /Page\n  /a 2 0 R\n  /b 3 0 R\n>>\nstream\n/z 9 0 R\n/y 8 0 R\nendstream\n";
        assert_eq!(out, expected.to_vec());
        assert_eq!(out.len(), input.len());
        assert!(!is_reference_entry(b"  /Length 75"));
        assert!(!is_reference_entry(b"  /cs0 [/ICCBased 8 0 R]"));
    }
}
