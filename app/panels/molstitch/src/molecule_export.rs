//! Exporting molecules: CSV (SMILES, group, objective values), SDF (RDKit mol blocks with the
//! group and objectives as data items) and a grid of RDKit depictions (a figure, so SVG, PNG
//! or PDF).

use benchtop_chem::{ChemError, Molecule};

use super::mol_draw;
use benchtop_kit::figure::Figure;

/// Size (px) of each molecule's depiction in the grid (a 2.2 in square cell under its caption).
const CELL_PX: mol_draw::PicturePx = (300, 260);

/// One molecule to export.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportRow {
    /// SMILES.
    pub smiles: String,
    /// Which set it belongs to (`offline`, a method's name, `gallery`).
    pub group: String,
    /// Objective values, in the order of the labels.
    pub objectives: Vec<f64>,
}

/// CSV text with the columns `smiles,group,<objective labels…>`.
pub fn to_csv(labels: &[String], rows: &[ExportRow]) -> anyhow::Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["smiles".to_owned(), "group".to_owned()];
    header.extend(labels.iter().cloned());
    writer.write_record(&header)?;
    for row in rows {
        let mut record = vec![row.smiles.clone(), row.group.clone()];
        record.extend(row.objectives.iter().map(|v| format!("{v:.6}")));
        writer.write_record(&record)?;
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}

/// SDF text: one record per molecule (title = SMILES), with `group` and each objective as
/// data items. A molecule RDKit cannot read is an error naming it.
pub fn to_sdf(labels: &[String], rows: &[ExportRow]) -> Result<String, ChemError> {
    let mut out = String::new();
    for row in rows {
        let block = Molecule::from_smiles(&row.smiles)?.molblock()?;
        // The first line of a mol block is its title.
        let body = block
            .split_once('\n')
            .map_or(block.as_str(), |(_, rest)| rest);
        out.push_str(&row.smiles);
        out.push('\n');
        out.push_str(body);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("> <group>\n{}\n\n", row.group));
        for (label, value) in labels.iter().zip(&row.objectives) {
            out.push_str(&format!("> <{label}>\n{value:.6}\n\n"));
        }
        out.push_str("$$$$\n");
    }
    Ok(out)
}

/// A grid of drawings (at most `max` molecules, `columns` per row), each titled with its
/// group and objective values.
pub fn grid_figure(
    title: &str,
    rows: &[ExportRow],
    columns: usize,
    max: usize,
) -> Result<Figure, ChemError> {
    let shown = &rows[..rows.len().min(max)];
    let columns = columns.clamp(1, shown.len().max(1));
    let grid_rows = shown.len().div_ceil(columns).max(1);
    let mut figure = Figure::new(title)
        .grid(grid_rows, columns)
        .size_in(2.2 * columns as f64, 2.2 * grid_rows as f64);
    for row in shown {
        let drawing = Molecule::from_smiles(&row.smiles)?.drawing()?;
        let values: Vec<String> = row.objectives.iter().map(|v| format!("{v:.2}")).collect();
        let caption = format!("{} ({})", row.group, values.join(", "));
        figure = figure.subplot(mol_draw::subplot(&caption, &drawing, &[], CELL_PX));
    }
    Ok(figure)
}
