//! Layouts of a brain tree for drawing: radial (the root at the centre, each depth on its own
//! ring, every subtree in an angular wedge proportional to its leaves) and force-directed
//! (Fruchterman–Reingold from the radial layout, a fixed number of cooling steps, so the same
//! tree always gives the same picture).

use std::collections::VecDeque;
use std::f64::consts::TAU;

/// Positions of `n_nodes` nodes, one `[x, y]` each.
pub type Positions = Vec<[f64; 2]>;

/// Neighbour lists of an undirected graph.
fn adjacency(n_nodes: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); n_nodes];
    for &(a, b) in edges {
        if a < n_nodes && b < n_nodes && a != b {
            adj[a].push(b);
            adj[b].push(a);
        }
    }
    for list in &mut adj {
        list.sort_unstable();
        list.dedup();
    }
    adj
}

/// The radial layout of a tree (or forest) rooted at `root`: depth d on the circle of radius d,
/// children inside their parent's wedge in node order. Nodes not reached from `root` (another
/// component) are rooted in turn and placed on rings beyond the deepest one.
pub fn radial(n_nodes: usize, edges: &[(usize, usize)], root: usize) -> Positions {
    let mut positions = vec![[0.0, 0.0]; n_nodes];
    if n_nodes == 0 {
        return positions;
    }
    let adj = adjacency(n_nodes, edges);
    let mut depth = vec![usize::MAX; n_nodes];
    let mut parent = vec![usize::MAX; n_nodes];
    let mut order = Vec::with_capacity(n_nodes);
    let mut offset = 0;
    let roots = std::iter::once(root.min(n_nodes - 1)).chain(0..n_nodes);
    let mut component_roots = Vec::new();
    for start in roots {
        if depth[start] != usize::MAX {
            continue;
        }
        component_roots.push(start);
        depth[start] = offset;
        let mut queue = VecDeque::from([start]);
        let mut deepest = offset;
        while let Some(node) = queue.pop_front() {
            order.push(node);
            deepest = deepest.max(depth[node]);
            for &next in &adj[node] {
                if depth[next] == usize::MAX {
                    depth[next] = depth[node] + 1;
                    parent[next] = node;
                    queue.push_back(next);
                }
            }
        }
        offset = deepest + 1;
    }
    // Leaves below each node (a node without children counts as one).
    let mut leaves = vec![0usize; n_nodes];
    for &node in order.iter().rev() {
        leaves[node] = leaves[node].max(1);
        if parent[node] != usize::MAX {
            leaves[parent[node]] += leaves[node];
        }
    }
    // Each component shares the full circle by its leaves.
    let total: usize = component_roots.iter().map(|&r| leaves[r]).sum();
    let mut wedge = vec![(0.0, 0.0); n_nodes];
    let mut start = 0.0;
    for &r in &component_roots {
        let span = TAU * leaves[r] as f64 / total.max(1) as f64;
        wedge[r] = (start, start + span);
        start += span;
    }
    for &node in &order {
        let (low, high) = wedge[node];
        let radius = depth[node] as f64;
        let angle = 0.5 * (low + high);
        positions[node] = [radius * angle.cos(), radius * angle.sin()];
        let mut from = low;
        let children: Vec<usize> = adj[node]
            .iter()
            .copied()
            .filter(|&c| parent[c] == node)
            .collect();
        for child in children {
            let span = (high - low) * leaves[child] as f64 / (leaves[node].max(1)) as f64;
            wedge[child] = (from, from + span);
            from += span;
        }
    }
    positions
}

/// Scales `positions` about the origin so that the farthest node lies on the unit circle (the
/// radial layout keeps its root at the centre).
pub fn fit_unit_disc(mut positions: Positions) -> Positions {
    let radius = positions
        .iter()
        .map(|p| p[0].hypot(p[1]))
        .fold(0.0, f64::max);
    if radius > 0.0 {
        for p in &mut positions {
            *p = [p[0] / radius, p[1] / radius];
        }
    }
    positions
}

/// Cooling steps of the force-directed layout.
pub const FORCE_STEPS: usize = 300;

/// A force-directed layout (Fruchterman–Reingold): edges pull as d²/k, all pairs push as k²/d,
/// moves are capped by a temperature that cools linearly over [`FORCE_STEPS`] steps. It starts
/// from the radial layout around `root`, so it is deterministic; coincident nodes are pushed
/// apart along a fixed direction. The result is scaled to fit the unit disc.
pub fn force_directed(n_nodes: usize, edges: &[(usize, usize)], root: usize) -> Positions {
    let mut positions = radial(n_nodes, edges, root);
    if n_nodes < 2 {
        return positions;
    }
    normalise(&mut positions);
    let adj = adjacency(n_nodes, edges);
    let k = (std::f64::consts::PI / n_nodes as f64).sqrt();
    let mut temperature = 0.1;
    let cooling = temperature / FORCE_STEPS as f64;
    let mut shift = vec![[0.0f64; 2]; n_nodes];
    for _ in 0..FORCE_STEPS {
        shift.fill([0.0, 0.0]);
        for i in 0..n_nodes {
            for j in (i + 1)..n_nodes {
                let (dx, dy, d) = separation(positions[i], positions[j], i, j);
                let push = k * k / d;
                shift[i][0] += dx / d * push;
                shift[i][1] += dy / d * push;
                shift[j][0] -= dx / d * push;
                shift[j][1] -= dy / d * push;
            }
        }
        for (i, neighbours) in adj.iter().enumerate() {
            for &j in neighbours.iter().filter(|&&j| j > i) {
                let (dx, dy, d) = separation(positions[i], positions[j], i, j);
                let pull = d * d / k;
                shift[i][0] -= dx / d * pull;
                shift[i][1] -= dy / d * pull;
                shift[j][0] += dx / d * pull;
                shift[j][1] += dy / d * pull;
            }
        }
        for (p, s) in positions.iter_mut().zip(&shift) {
            let length = s[0].hypot(s[1]);
            if length > 0.0 && length.is_finite() {
                let step = length.min(temperature);
                p[0] += s[0] / length * step;
                p[1] += s[1] / length * step;
            }
        }
        temperature -= cooling;
    }
    normalise(&mut positions);
    positions
}

/// The vector from `b` to `a` and its length (at least a small floor; coincident nodes get a
/// fixed direction that depends on their indices).
fn separation(a: [f64; 2], b: [f64; 2], i: usize, j: usize) -> (f64, f64, f64) {
    const FLOOR: f64 = 1e-6;
    let (mut dx, mut dy) = (a[0] - b[0], a[1] - b[1]);
    let mut d = dx.hypot(dy);
    if d < FLOOR {
        let angle = (i * 31 + j * 17) as f64;
        dx = FLOOR * angle.cos();
        dy = FLOOR * angle.sin();
        d = FLOOR;
    }
    (dx, dy, d)
}

/// Centres `positions` on their mean and scales them into the unit disc.
fn normalise(positions: &mut Positions) {
    let n = positions.len().max(1) as f64;
    let cx = positions.iter().map(|p| p[0]).sum::<f64>() / n;
    let cy = positions.iter().map(|p| p[1]).sum::<f64>() / n;
    let radius = positions
        .iter()
        .map(|p| (p[0] - cx).hypot(p[1] - cy))
        .fold(0.0, f64::max);
    let scale = if radius > 0.0 { 1.0 / radius } else { 1.0 };
    for p in positions.iter_mut() {
        *p = [(p[0] - cx) * scale, (p[1] - cy) * scale];
    }
}
