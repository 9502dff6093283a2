//! Exact substructure counts (non-induced subgraphs, as in the substructure-counting benchmark):
//! triangles, tailed triangles, 4-cycles, 3-stars and chordal cycles (a 4-cycle with one chord,
//! K4 minus an edge), each by a closed form over degrees and common neighbours.

use serde::{Deserialize, Serialize};

use crate::graph::Graph;

/// A substructure whose copies are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Substructure {
    /// K3.
    Triangle,
    /// A triangle with one pendant edge at one of its nodes.
    TailedTriangle,
    /// C4.
    FourCycle,
    /// K_{1,3}.
    ThreeStar,
    /// C4 plus one chord (K4 minus an edge).
    ChordalCycle,
}

impl Substructure {
    /// All five, in the order the panel lists them.
    pub const ALL: [Substructure; 5] = [
        Substructure::Triangle,
        Substructure::TailedTriangle,
        Substructure::FourCycle,
        Substructure::ThreeStar,
        Substructure::ChordalCycle,
    ];

    /// A short name for menus and files.
    pub fn label(self) -> &'static str {
        match self {
            Substructure::Triangle => "triangles",
            Substructure::TailedTriangle => "tailed triangles",
            Substructure::FourCycle => "4-cycles",
            Substructure::ThreeStar => "3-stars",
            Substructure::ChordalCycle => "chordal cycles",
        }
    }

    /// The number of copies of this substructure in `g`.
    pub fn count(self, g: &Graph) -> u64 {
        match self {
            Substructure::Triangle => triangles(g),
            Substructure::TailedTriangle => tailed_triangles(g),
            Substructure::FourCycle => four_cycles(g),
            Substructure::ThreeStar => three_stars(g),
            Substructure::ChordalCycle => chordal_cycles(g),
        }
    }
}

/// Number of common neighbours of `u` and `v` (sorted-list merge).
pub fn common_neighbours(g: &Graph, u: usize, v: usize) -> u64 {
    let (a, b) = (&g.adj[u], &g.adj[v]);
    let (mut i, mut j, mut c) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                c += 1;
                i += 1;
                j += 1;
            }
        }
    }
    c
}

fn choose2(x: u64) -> u64 {
    x * x.saturating_sub(1) / 2
}

/// Triangles through each node.
pub fn triangles_per_node(g: &Graph) -> Vec<u64> {
    let mut t = vec![0; g.n];
    for &(u, v) in &g.edges {
        let c = common_neighbours(g, u, v);
        t[u] += c;
        t[v] += c;
    }
    // Each triangle at u is seen from both of u's triangle edges.
    t.iter().map(|x| x / 2).collect()
}

/// Triangles: Σ over edges of common neighbours / 3.
pub fn triangles(g: &Graph) -> u64 {
    g.edges
        .iter()
        .map(|&(u, v)| common_neighbours(g, u, v))
        .sum::<u64>()
        / 3
}

/// Tailed triangles: Σ_v t(v)·(deg v − 2), a triangle at v and a tail to one of v's other neighbours.
pub fn tailed_triangles(g: &Graph) -> u64 {
    triangles_per_node(g)
        .iter()
        .enumerate()
        .map(|(v, &t)| t * (g.degree(v) as u64).saturating_sub(2))
        .sum()
}

/// 4-cycles: Σ over unordered node pairs of C(common neighbours, 2), halved (each cycle has two
/// diagonals).
pub fn four_cycles(g: &Graph) -> u64 {
    let mut s = 0;
    for u in 0..g.n {
        for v in u + 1..g.n {
            s += choose2(common_neighbours(g, u, v));
        }
    }
    s / 2
}

/// 3-stars: Σ_v C(deg v, 3).
pub fn three_stars(g: &Graph) -> u64 {
    (0..g.n)
        .map(|v| {
            let d = g.degree(v) as u64;
            d * d.saturating_sub(1) * d.saturating_sub(2) / 6
        })
        .sum()
}

/// Chordal cycles: Σ over edges (the chord) of C(common neighbours, 2).
pub fn chordal_cycles(g: &Graph) -> u64 {
    g.edges
        .iter()
        .map(|&(u, v)| choose2(common_neighbours(g, u, v)))
        .sum()
}

#[cfg(test)]
mod hymn_counts_tests {
    use super::*;
    use crate::generate::{
        barabasi_albert, erdos_renyi, random_geometric, random_regular, watts_strogatz,
    };
    use benchtop_compute::rng::seeded;

    /// Pattern edges on nodes 0..4 and the size of its automorphism group.
    fn pattern(s: Substructure) -> (usize, Vec<(usize, usize)>, u64) {
        match s {
            Substructure::Triangle => (3, vec![(0, 1), (1, 2), (0, 2)], 6),
            Substructure::TailedTriangle => (4, vec![(0, 1), (1, 2), (0, 2), (0, 3)], 2),
            Substructure::FourCycle => (4, vec![(0, 1), (1, 2), (2, 3), (3, 0)], 8),
            Substructure::ThreeStar => (4, vec![(0, 1), (0, 2), (0, 3)], 6),
            Substructure::ChordalCycle => (4, vec![(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)], 4),
        }
    }

    /// Injective maps of the pattern's nodes into g that keep its edges, over |Aut|.
    fn brute_force(g: &Graph, s: Substructure) -> u64 {
        let (k, edges, aut) = pattern(s);
        let mut count = 0;
        let mut map = vec![0usize; k];
        fn rec(
            g: &Graph,
            k: usize,
            edges: &[(usize, usize)],
            map: &mut Vec<usize>,
            depth: usize,
            count: &mut u64,
        ) {
            if depth == k {
                if edges.iter().all(|&(a, b)| g.has_edge(map[a], map[b])) {
                    *count += 1;
                }
                return;
            }
            for v in 0..g.n {
                if !map[..depth].contains(&v) {
                    map[depth] = v;
                    rec(g, k, edges, map, depth + 1, count);
                }
            }
        }
        rec(g, k, &edges, &mut map, 0, &mut count);
        assert_eq!(count % aut, 0, "{s:?}: maps not a multiple of |Aut|");
        count / aut
    }

    #[test]
    fn counts_equal_brute_force_on_random_graphs() {
        let mut rng = seeded(11);
        let mut graphs = vec![
            Graph::cycle(4),
            Graph::star(4, 0),
            Graph::new(4, &[(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3)]).unwrap(),
        ];
        for p in [0.2, 0.4, 0.6] {
            graphs.push(erdos_renyi(8, p, &mut rng));
        }
        for d in [3, 4] {
            graphs.push(random_regular(8, d, &mut rng).unwrap());
        }
        // The structured families (issue 34's graphs other than the example's).
        for beta in [0.0, 0.3] {
            graphs.push(watts_strogatz(8, 4, beta, &mut rng));
        }
        for m in [1, 2, 3] {
            graphs.push(barabasi_albert(8, m, &mut rng).unwrap());
        }
        for r in [0.4, 0.6] {
            graphs.push(random_geometric(8, r, &mut rng));
        }
        let mut nonzero = 0;
        for g in &graphs {
            for s in Substructure::ALL {
                let exact = s.count(g);
                assert_eq!(exact, brute_force(g, s), "{s:?} on {:?}", g.edges);
                nonzero += usize::from(exact > 0);
            }
        }
        assert!(nonzero > 20, "the graphs should contain most patterns");
    }

    #[test]
    fn hand_counts_on_k4() {
        let k4 = Graph::new(4, &[(0, 1), (1, 2), (2, 3), (3, 0), (0, 2), (1, 3)]).unwrap();
        assert_eq!(triangles(&k4), 4);
        assert_eq!(four_cycles(&k4), 3);
        assert_eq!(three_stars(&k4), 4);
        assert_eq!(chordal_cycles(&k4), 6);
        assert_eq!(tailed_triangles(&k4), 12);
    }
}
