//! HyMN (Southern et al., ICML 2025, "Balancing Efficiency and Expressiveness: Subgraph GNNs
//! with Walk-Based Centrality"): subgraph GNNs that mark the nodes of highest walk-based
//! centrality.
//!
//! - [`graph`]: a small undirected graph.
//! - [`generate`]: seeded Erdős–Rényi and random regular graph sets labelled with a count.
//! - [`counts`]: exact substructure counts (triangles, tailed triangles, 4-cycles, 3-stars,
//!   chordal cycles).
//! - [`centrality`]: the CSE (A^k)_vv/k!, subgraph centrality [exp A]_vv, walk counts.
//! - [`load`]: a user's graphs from an edge-list CSV.
//! - [`molecules`]: molecular graphs from the MolStitch offline set with RDKit-computed targets.
//! - [`sampling`]: the compared methods and the nodes each marks.
//! - [`model`]: the GIN over marked copies, in candle.
//! - [`train`]: the experiment: every method and T trained with Adam, test MAE, seconds per epoch.
//! - [`perturbation`]: output change when each node is marked against its walk counts.
//! - [`bench`]: timing of one training step for `benchtop bench hymn`.

pub mod centrality;
pub mod counts;
pub mod generate;
pub mod graph;
pub mod model;
pub mod sampling;

pub use graph::Graph;
pub mod bench;
pub mod load;
pub mod molecules;
pub mod perturbation;
pub mod train;
