//! A user's graphs from one edge-list CSV. The header is `graph,source,target,label`; each row
//! is one of
//!
//! - an edge: `g1,0,1,` (graph id, two node ids from 0, label empty),
//! - a node label: `g1,4,,0.5` (target empty): a scalar model input for node 4,
//! - a graph label: `g1,,,3.0` (source and target empty): the value to predict.
//!
//! A graph's node count is its largest node id + 1. Either every graph has one graph label or
//! none does (then each graph is labelled with a substructure count). Errors name the file and
//! the line.

use std::collections::BTreeMap;
use std::path::Path;

use crate::counts::Substructure;
use crate::generate::GraphSet;
use crate::graph::Graph;

/// The most nodes one graph may have (the CSE and the drawings hold dense node × node arrays).
pub const MAX_NODES: usize = 2_000;

/// The most nodes a file may hold over all its graphs.
pub const MAX_TOTAL_NODES: usize = 200_000;

/// The largest edge-list file read: 64 MiB.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

#[derive(Default)]
struct Pending {
    first_line: u64,
    edges: Vec<(usize, usize)>,
    node_labels: Vec<(usize, f64)>,
    label: Option<f64>,
}

/// Reads `path`; graphs without labels are labelled with `fallback`'s count.
pub fn load_edge_list(path: &Path, fallback: Substructure) -> Result<GraphSet, String> {
    let file = path.display();
    let text =
        benchtop_compute::files::read_text(path, MAX_FILE_BYTES).map_err(|e| e.to_string())?;
    parse_edge_list(&text, &file.to_string(), fallback)
}

/// Parses CSV text; `name` is the file name used in messages.
pub fn parse_edge_list(text: &str, name: &str, fallback: Substructure) -> Result<GraphSet, String> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| format!("{name}: line 1: {e}"))?
        .iter()
        .map(|h| h.to_ascii_lowercase())
        .collect();
    if header != ["graph", "source", "target", "label"] {
        return Err(format!(
            "{name}: line 1: the header must be `graph,source,target,label`, found `{}`",
            header.join(",")
        ));
    }
    let mut graphs: BTreeMap<String, Pending> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            format!("{name}: line {line}: {e}")
        })?;
        let line = record.position().map_or(0, |p| p.line());
        let at = |col: &str, msg: String| format!("{name}: line {line}, column `{col}`: {msg}");
        let id = record[0].to_string();
        if id.is_empty() {
            return Err(at("graph", "empty graph id".into()));
        }
        let node = |col: usize, label: &str| -> Result<Option<usize>, String> {
            let s = &record[col];
            if s.is_empty() {
                return Ok(None);
            }
            match s.parse::<usize>() {
                Ok(v) if v < MAX_NODES => Ok(Some(v)),
                Ok(_) => Err(at(
                    label,
                    format!(
                        "node id {s}: a graph has at most {MAX_NODES} nodes (ids 0 to {})",
                        MAX_NODES - 1
                    ),
                )),
                Err(_) => Err(at(label, format!("`{s}` is not a node id (0, 1, 2, …)"))),
            }
        };
        let (source, target) = (node(1, "source")?, node(2, "target")?);
        let label = match &record[3] {
            "" => None,
            s => Some(
                s.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| at("label", format!("`{s}` is not a finite number")))?,
            ),
        };
        let pending = graphs.entry(id.clone()).or_insert_with(|| {
            order.push(id.clone());
            Pending {
                first_line: line,
                ..Pending::default()
            }
        });
        match (source, target, label) {
            (Some(a), Some(b), None) if a == b => {
                return Err(at(
                    "target",
                    format!("a self-loop on node {a}; the graphs are simple"),
                ));
            }
            (Some(a), Some(b), None) => pending.edges.push((a, b)),
            (Some(_), Some(_), Some(_)) => {
                return Err(at("label", "an edge row leaves the label empty".into()));
            }
            (Some(v), None, Some(x)) => pending.node_labels.push((v, x)),
            (None, None, Some(x)) => {
                if pending.label.replace(x).is_some() {
                    return Err(at(
                        "label",
                        format!("graph `{id}` has a second graph label"),
                    ));
                }
            }
            (None, Some(_), _) => return Err(at("source", "a target without a source".into())),
            (Some(_), None, None) => {
                return Err(at(
                    "target",
                    "a node row needs a label (or a target for an edge)".into(),
                ));
            }
            (None, None, None) => return Err(at("label", "an empty row".into())),
        }
    }
    if order.is_empty() {
        return Err(format!("{name}: no graphs"));
    }
    let labelled = graphs.values().filter(|p| p.label.is_some()).count();
    if labelled != 0 && labelled != order.len() {
        let missing = order
            .iter()
            .find(|id| graphs[*id].label.is_none())
            .expect("one lacks");
        return Err(format!(
            "{name}: line {}: graph `{missing}` has no graph label (`{missing},,,value`), but others do",
            graphs[missing].first_line
        ));
    }
    let mut set = GraphSet {
        graphs: Vec::with_capacity(order.len()),
        targets: Vec::with_capacity(order.len()),
        target_name: if labelled > 0 {
            "graph label".to_owned()
        } else {
            fallback.label().to_owned()
        },
    };
    let mut total_nodes = 0usize;
    for id in &order {
        let p = &graphs[id];
        let n = p
            .edges
            .iter()
            .flat_map(|&(a, b)| [a, b])
            .chain(p.node_labels.iter().map(|&(v, _)| v))
            .max()
            .map_or(0, |m| m + 1);
        total_nodes += n;
        if total_nodes > MAX_TOTAL_NODES {
            return Err(format!(
                "{name}: graph `{id}` (from line {}) brings the file past {MAX_TOTAL_NODES} nodes in all",
                p.first_line
            ));
        }
        let mut seen = vec![false; n];
        for v in p
            .edges
            .iter()
            .flat_map(|&(a, b)| [a, b])
            .chain(p.node_labels.iter().map(|&(v, _)| v))
        {
            seen[v] = true;
        }
        if let Some(gap) = seen.iter().position(|&s| !s) {
            return Err(format!(
                "{name}: graph `{id}` (from line {}): node {gap} appears in no row, but node {} does; node ids run 0, 1, 2, … without gaps (give an isolated node a row `{id},{gap},,0`)",
                p.first_line,
                n - 1
            ));
        }
        let mut g = Graph::new(n, &p.edges)
            .map_err(|e| format!("{name}: graph `{id}` (from line {}): {e}", p.first_line))?;
        for &(v, x) in &p.node_labels {
            g.node_labels[v] = x;
        }
        set.targets
            .push(p.label.unwrap_or_else(|| fallback.count(&g) as f64));
        set.graphs.push(g);
    }
    Ok(set)
}

#[cfg(test)]
mod hymn_load_tests {
    use super::*;

    #[test]
    fn reads_graphs_labels_and_counts() {
        let text = "graph,source,target,label\n# two graphs\na,0,1,\na,1,2,\na,2,0,\na,3,,0.5\na,,,7\nb,0,1,\nb,,,2.5\n";
        let set = parse_edge_list(text, "x.csv", Substructure::Triangle).unwrap();
        assert_eq!(set.graphs.len(), 2);
        assert_eq!(set.graphs[0].n, 4);
        assert_eq!(set.graphs[0].node_labels[3], 0.5);
        assert_eq!(set.targets, vec![7.0, 2.5]);
        let unlabelled = "graph,source,target,label\na,0,1,\na,1,2,\na,2,0,\n";
        let set = parse_edge_list(unlabelled, "x.csv", Substructure::Triangle).unwrap();
        assert_eq!(set.targets, vec![1.0]);
        assert_eq!(set.target_name, "triangles");
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let cases = [
            ("graph,src,dst,label\n", "line 1"),
            (
                "graph,source,target,label\na,0,x,\n",
                "line 2, column `target`",
            ),
            (
                "graph,source,target,label\na,0,1,\na,1,1,\n",
                "line 3, column `target`: a self-loop on node 1",
            ),
            (
                "graph,source,target,label\na,0,1,\na,1,4,\n",
                "node 2 appears in no row, but node 4 does",
            ),
            (
                "graph,source,target,label\na,0,18446744073709551615,\n",
                "line 2, column `target`: node id 18446744073709551615",
            ),
            (
                "graph,source,target,label\na,0,9999,\n",
                "at most 2000 nodes",
            ),
            (
                "graph,source,target,label\na,0,1,\na,,,1\nb,0,1,\n",
                "line 4: graph `b` has no graph label",
            ),
            (
                "graph,source,target,label\na,0,1,\na,,,nan\n",
                "line 3, column `label`",
            ),
            ("graph,source,target,label\na,0,1\n", "line 2"),
        ];
        for (text, want) in cases {
            let err = parse_edge_list(text, "mine.csv", Substructure::Triangle).unwrap_err();
            assert!(err.starts_with("mine.csv"), "{err}");
            assert!(err.contains(want), "{err} lacks {want}");
        }
        let missing = load_edge_list(Path::new("/nonexistent/g.csv"), Substructure::Triangle);
        assert!(missing.unwrap_err().contains("/nonexistent/g.csv"));
    }
}
