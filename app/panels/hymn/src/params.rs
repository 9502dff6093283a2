//! The panel's parameters and their declarations (labels, ranges, tooltips).

use benchtop_hymn::counts::Substructure;
use benchtop_hymn::generate::GraphSetParams;
use benchtop_hymn::molecules::MoleculeSetParams;
use benchtop_hymn::sampling::Method;
use benchtop_hymn::train::ExperimentParams;
use benchtop_kit::field;
use benchtop_kit::params::{Declare, Param, grouped};
use benchtop_kit::project::DataRef;
use serde::{Deserialize, Serialize};

/// Where the graphs come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// A seeded random set labelled with exact substructure counts.
    #[default]
    Generated,
    /// A user's edge-list CSV (see `benchtop_hymn::load`).
    File,
    /// Molecules from the MolStitch offline set with an RDKit property as the target.
    Molecules,
}

/// The graph set.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DataParams {
    /// Generated or from a file.
    pub source: Source,
    /// The generator's settings (its target also labels unlabelled file graphs).
    pub set: GraphSetParams,
    /// The edge-list CSV.
    pub file: DataRef,
    /// The molecular set's size and target.
    pub molecules: MoleculeSetParams,
}

/// What the graph view shows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ExploreParams {
    /// The graph drawn (index in the set).
    pub graph: usize,
    /// The sampling strategy whose marks are highlighted.
    pub strategy: Method,
}

impl Default for ExploreParams {
    fn default() -> Self {
        Self {
            graph: 0,
            strategy: Method::Centrality,
        }
    }
}

/// Everything a user edits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HymnParams {
    /// The graphs.
    pub data: DataParams,
    /// The training comparison.
    pub experiment: ExperimentParams,
    /// The single-graph view.
    pub explore: ExploreParams,
    /// Seed of the graphs, the split, the weights and the random marks.
    pub seed: u64,
}

impl Default for HymnParams {
    fn default() -> Self {
        Self {
            data: DataParams::default(),
            experiment: ExperimentParams::default(),
            explore: ExploreParams::default(),
            seed: 1,
        }
    }
}

/// The substructures offered as targets.
pub const TARGETS: [Substructure; 5] = Substructure::ALL;

type P = HymnParams;

impl Declare for HymnParams {
    fn declare() -> Vec<Param<Self>> {
        let mut params = grouped(
            "Graphs",
            vec![
                Param::new("data.set.graphs", "Graphs", field!(P, data.set.graphs))
                    .range(10.0, 100_000.0)
                    .log()
                    .tooltip("How many random graphs to generate (80 % train, 20 % test)."),
                Param::new("data.molecules.graphs", "Molecules", field!(P, data.molecules.graphs))
                    .range(10.0, 5000.0)
                    .log()
                    .tooltip("How many molecules to draw from the MolStitch offline set (80 % train, 20 % test)."),
                Param::new("data.set.min_nodes", "Fewest nodes", field!(P, data.set.min_nodes))
                    .range(3.0, 200.0)
                    .tooltip("Each graph's node count is uniform between the fewest and the most."),
                Param::new("data.set.max_nodes", "Most nodes", field!(P, data.set.max_nodes))
                    .range(3.0, 200.0)
                    .tooltip("Each graph's node count is uniform between the fewest and the most."),
                Param::new(
                    "data.set.edge_probability",
                    "Edge probability p",
                    field!(P, data.set.edge_probability),
                )
                .range(0.0, 1.0)
                .slider()
                .tooltip("Erdős–Rényi G(n, p): each pair of nodes is joined with probability p."),
                Param::new("data.set.degree", "Degree d", field!(P, data.set.degree))
                    .range(1.0, 199.0)
                    .tooltip("Degree of the random regular graphs (n·d must be even: odd n is raised by one) and the ring degree of Watts–Strogatz graphs (rounded down to even)."),
                Param::new(
                    "data.set.rewire_probability",
                    "Rewiring β",
                    field!(P, data.set.rewire_probability),
                )
                .range(0.0, 1.0)
                .slider()
                .tooltip("Watts–Strogatz: each ring edge is rewired to a random node with probability β."),
                Param::new("data.set.attach", "Attachment m", field!(P, data.set.attach))
                    .range(1.0, 199.0)
                    .tooltip("Barabási–Albert: each new node joins m earlier nodes, chosen in proportion to their degree."),
                Param::new("data.set.radius", "Radius r", field!(P, data.set.radius))
                    .range(0.01, 1.5)
                    .slider()
                    .tooltip("Random geometric graphs: nodes uniform in the unit square, joined within distance r."),
            ],
        );
        params.extend(grouped(
            "Model",
            vec![
                Param::new(
                    "experiment.max_subgraphs",
                    "Marked copies T",
                    field!(P, experiment.max_subgraphs),
                )
                .range(1.0, 64.0)
                .slider()
                .tooltip(
                    "Random and centrality marking are trained at every T from 1 to this; the \
                     graph view marks this many nodes.",
                ),
                Param::new(
                    "experiment.walk_terms",
                    "Walk terms K",
                    field!(P, experiment.walk_terms),
                )
                .range(2.0, 40.0)
                .slider()
                .tooltip(
                    "The CSE holds (A^k)_vv / k! for k = 1..K; centrality ranks nodes by their sum \
                         (the paper uses K = 16).",
                ),
                Param::new(
                    "experiment.model.hidden",
                    "Hidden width",
                    field!(P, experiment.model.hidden),
                )
                .range(1.0, 1024.0)
                .tooltip("Width of every GIN layer and of the head."),
                Param::new(
                    "experiment.model.layers",
                    "GIN layers L",
                    field!(P, experiment.model.layers),
                )
                .range(1.0, 16.0)
                .tooltip(
                    "Message-passing layers; the perturbation view counts walks up to this length.",
                ),
                Param::new("experiment.epochs", "Epochs", field!(P, experiment.epochs))
                    .range(1.0, 10_000.0)
                    .tooltip("Passes over the training graphs for every method."),
                Param::new(
                    "experiment.batch_size",
                    "Batch size",
                    field!(P, experiment.batch_size),
                )
                .range(1.0, 100_000.0)
                .tooltip("Graphs per Adam step."),
                Param::new(
                    "experiment.learning_rate",
                    "Learning rate",
                    field!(P, experiment.learning_rate),
                )
                .range(1e-5, 1.0)
                .log()
                .tooltip("Adam step size."),
            ],
        ));
        params.push(
            Param::new("explore.graph", "Graph shown", field!(P, explore.graph))
                .range(0.0, 100_000.0)
                .no_sweep()
                .tooltip("Index of the graph drawn in the graph view."),
        );
        params.push(
            Param::new("seed", "Seed", field!(P, seed))
                .seed()
                .tooltip("Seeds the graphs, the split, the weights and the random marks."),
        );
        params
    }
}
