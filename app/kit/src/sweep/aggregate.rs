//! Mean and spread over repeats at each grid point.

use std::collections::BTreeMap;

use super::{ERROR_SUFFIX, SweepDoc, SweepPoint};

/// The repeats of one grid point summarised.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregatedPoint {
    /// The parameter values.
    pub coords: Vec<f64>,
    /// Per output: (mean, error bar, number of successful repeats). The error bar is the
    /// sample standard deviation over repeats, or with one repeat the point's own error
    /// estimate when the evaluator gave one (else 0).
    pub outputs: BTreeMap<String, (f64, f64, usize)>,
}

/// Groups the results of `doc` by grid point, in the order points first appear.
pub fn aggregate(doc: &SweepDoc) -> Vec<AggregatedPoint> {
    let mut groups: Vec<(Vec<f64>, Vec<&SweepPoint>)> = Vec::new();
    for point in doc.results.iter().filter(|p| p.error.is_none()) {
        match groups
            .iter_mut()
            .find(|(coords, _)| coords == &point.coords)
        {
            Some((_, members)) => members.push(point),
            None => groups.push((point.coords.clone(), vec![point])),
        }
    }
    groups
        .into_iter()
        .map(|(coords, members)| {
            let outputs = doc
                .outputs
                .iter()
                .filter_map(|key| {
                    let values: Vec<f64> = members
                        .iter()
                        .filter_map(|p| p.outputs.get(key))
                        .copied()
                        .filter(|v| v.is_finite())
                        .collect();
                    if values.is_empty() {
                        return None;
                    }
                    let (mean, std) = mean_std(&values);
                    let own_error = || {
                        let error_key = format!("{key}{ERROR_SUFFIX}");
                        members
                            .iter()
                            .find_map(|p| p.outputs.get(&error_key))
                            .copied()
                            .filter(|e| e.is_finite())
                    };
                    let error = if values.len() > 1 {
                        std
                    } else {
                        own_error().unwrap_or(0.0)
                    };
                    Some((key.clone(), (mean, error, values.len())))
                })
                .collect();
            AggregatedPoint { coords, outputs }
        })
        .collect()
}

fn mean_std(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let std = if values.len() > 1 {
        (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    (mean, std)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_and_sample_std_over_repeats() {
        let point = |x: f64, r: u32, y: f64| SweepPoint {
            coords: vec![x],
            repeat: r,
            outputs: BTreeMap::from([("y".to_owned(), y)]),
            ..SweepPoint::default()
        };
        let mut single = point(2.0, 0, 5.0);
        single.outputs.insert("y:error".to_owned(), 0.25);
        let doc = SweepDoc {
            outputs: vec!["y".to_owned()],
            results: vec![
                point(1.0, 0, 2.0),
                point(1.0, 1, 4.0),
                single,
                point(3.0, 0, 7.0),
            ],
            ..SweepDoc::default()
        };
        let summary = aggregate(&doc);
        assert_eq!(summary.len(), 3);
        let (mean, std, n) = summary[0].outputs["y"];
        assert!((mean - 3.0).abs() < 1e-12 && (std - 2f64.sqrt()).abs() < 1e-12 && n == 2);
        assert_eq!(
            summary[1].outputs["y"],
            (5.0, 0.25, 1),
            "one repeat: its own error"
        );
        assert_eq!(summary[2].outputs["y"], (7.0, 0.0, 1), "no error given");
    }
}
