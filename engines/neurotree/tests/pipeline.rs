//! Cohort → static FC → brain tree → trunks, end to end on a small synthetic cohort.

use benchtop_neurotree::cohort::{CohortParams, YEO7_NETWORKS, generate_cohort};
use benchtop_neurotree::connectivity::{pearson, static_fc};
use benchtop_neurotree::graph_tree::brain_tree;
use benchtop_neurotree::trunk::{TrunkParams, extract_trunks};

#[test]
fn cohort_tree_and_trunks_fit_together() {
    let params = CohortParams {
        subjects: 2,
        rois: 21,
        time_points: 200,
        seed: 4,
        ..CohortParams::default()
    };
    let cohort = generate_cohort(&params).unwrap();
    let subject = &cohort.subjects[0];
    let tree = brain_tree(&pearson(&subject.series).unwrap()).unwrap();
    assert_eq!(tree.edges.len(), 20);
    // Node strength from |r| as both the node score and the fc strength.
    let fc = static_fc(&subject.series).unwrap();
    let strength: Vec<f64> = (0..21)
        .map(|i| fc.row(i).iter().sum::<f64>() / 21.0)
        .collect();
    let trunks = extract_trunks(&tree, &strength, &strength, TrunkParams::default()).unwrap();
    let adj = tree.adjacency();
    assert!(!trunks.trunks.is_empty());
    assert_eq!(trunks.trunks[0].level, 1);
    for t in &trunks.trunks {
        assert!(t.nodes.len() >= 2);
        // Consecutive trunk nodes are tree neighbours.
        for w in t.nodes.windows(2) {
            assert!(adj[w[0]].contains(&w[1]));
        }
    }
    // Level-1 starts at the strongest node of the (connected) tree.
    let strongest = (0..21)
        .max_by(|&a, &b| strength[a].total_cmp(&strength[b]).then(b.cmp(&a)))
        .unwrap();
    assert_eq!(trunks.trunks[0].nodes[0], strongest);
    let counts = trunks
        .membership_by_network(&cohort.network_of_roi, YEO7_NETWORKS.len(), 3)
        .unwrap();
    for (level, row) in counts.iter().enumerate() {
        assert_eq!(
            row.iter().sum::<usize>(),
            trunks.level_nodes(level + 1).len()
        );
    }
}
