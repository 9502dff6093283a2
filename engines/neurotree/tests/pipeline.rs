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

#[cfg(test)]
mod run {
    use benchtop_compute::{CancelToken, Progress};
    use benchtop_neurotree::cohort::{CohortParams, Group, generate_cohort};
    use benchtop_neurotree::dataset::Dataset;
    use benchtop_neurotree::pipeline::{NeuroTreeParams, RunEvent, run};
    use benchtop_neurotree::result::{METHOD_AGE_GCN, METHOD_GCN, METHOD_LOGISTIC};
    use benchtop_neurotree::train::TrainParams;

    fn planted(subjects: usize, dmn_group_effect: f64, seed: u64) -> Dataset {
        Dataset::from_cohort(
            &generate_cohort(&CohortParams {
                subjects,
                rois: 28,
                time_points: 120,
                dmn_group_effect,
                seed,
                ..CohortParams::default()
            })
            .unwrap(),
        )
    }

    fn quick() -> NeuroTreeParams {
        NeuroTreeParams {
            folds: 5,
            train: TrainParams {
                epochs: 30,
                ..TrainParams::default()
            },
            ..NeuroTreeParams::default()
        }
    }

    fn auc_of(data: &Dataset, params: &NeuroTreeParams, method: &str) -> f64 {
        let mut epochs = 0;
        let result = run(
            data,
            params,
            &Progress::new(),
            &CancelToken::new(),
            &mut |e| {
                if matches!(e, RunEvent::Epoch { .. }) {
                    epochs += 1;
                }
            },
        )
        .unwrap();
        assert!(epochs > 0);
        eprintln!(
            "{:?}",
            result
                .evaluations
                .iter()
                .map(|e| (e.method.clone(), e.mean.auc))
                .collect::<Vec<_>>()
        );
        result.evaluation(method).unwrap().mean.auc
    }

    #[test]
    fn a_planted_default_mode_effect_is_found() {
        let data = planted(40, 0.8, 11);
        let auc = auc_of(&data, &quick(), METHOD_AGE_GCN);
        assert!(auc > 0.8, "AGE-GCN AUC {auc}");
    }

    #[test]
    fn shuffled_labels_give_chance_auc() {
        let mut data = planted(40, 0.8, 11);
        // Reassign groups by a fixed pattern unrelated to the planted ones.
        let mut rng = benchtop_compute::rng::seeded(5);
        let mut groups: Vec<Group> = data.subjects.iter().map(|s| s.group).collect();
        rand::seq::SliceRandom::shuffle(groups.as_mut_slice(), &mut rng);
        for (s, g) in data.subjects.iter_mut().zip(groups) {
            s.group = g;
        }
        let params = quick();
        let auc = auc_of(&data, &params, METHOD_LOGISTIC);
        assert!((auc - 0.5).abs() < 0.25, "logistic AUC {auc}");
        let _ = METHOD_GCN;
    }
}
