//! Sweep results as CSV: one row per computed point.

use super::{ERROR_SUFFIX, SweepDoc};

/// The results of `doc` as CSV text: the parameters, repeat, seed, outputs and error columns.
pub fn to_csv(doc: &SweepDoc) -> anyhow::Result<String> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = doc.axes.iter().map(|axis| axis.param.clone()).collect();
    header.extend(["repeat".to_owned(), "seed".to_owned()]);
    for output in &doc.outputs {
        header.push(output.clone());
        header.push(format!("{output}{ERROR_SUFFIX}"));
    }
    header.push("error".to_owned());
    writer.write_record(&header)?;
    for point in &doc.results {
        let mut row: Vec<String> = point.coords.iter().map(|v| format!("{v}")).collect();
        row.push(point.repeat.to_string());
        row.push(point.seed.to_string());
        for output in &doc.outputs {
            for key in [output.clone(), format!("{output}{ERROR_SUFFIX}")] {
                row.push(
                    point
                        .outputs
                        .get(&key)
                        .map(|v| format!("{v}"))
                        .unwrap_or_default(),
                );
            }
        }
        row.push(point.error.clone().unwrap_or_default());
        writer.write_record(&row)?;
    }
    Ok(String::from_utf8(writer.into_inner()?)?)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::sweep::{GridSpec, SweepAxis, SweepPoint};

    #[test]
    fn header_and_rows() {
        let doc = SweepDoc {
            axes: vec![SweepAxis {
                param: "mc.beta".into(),
                grid: GridSpec::List(vec![0.4]),
            }],
            outputs: vec!["mc.binder".into()],
            results: vec![
                SweepPoint {
                    coords: vec![0.4],
                    repeat: 0,
                    seed: 9,
                    outputs: BTreeMap::from([
                        ("mc.binder".to_owned(), 0.61),
                        ("mc.binder:error".to_owned(), 0.02),
                    ]),
                    error: None,
                },
                SweepPoint {
                    coords: vec![0.4],
                    repeat: 1,
                    seed: 10,
                    error: Some("cancelled, twice".into()),
                    ..SweepPoint::default()
                },
            ],
            ..SweepDoc::default()
        };
        let text = to_csv(&doc).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "mc.beta,repeat,seed,mc.binder,mc.binder:error,error"
        );
        assert_eq!(lines[1], "0.4,0,9,0.61,0.02,");
        assert_eq!(lines[2], "0.4,1,10,,,\"cancelled, twice\"");
    }
}
