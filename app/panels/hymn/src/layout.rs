//! Node positions for drawing one small graph: a seeded Fruchterman–Reingold spring layout
//! started on a circle, so the same graph is always drawn the same way.

use benchtop_hymn::Graph;

/// Positions in roughly [−1, 1]² for the nodes of `g`.
pub fn spring_layout(g: &Graph, iterations: usize) -> Vec<[f64; 2]> {
    let n = g.n;
    if n == 0 {
        return Vec::new();
    }
    let mut pos: Vec<[f64; 2]> = (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            [a.cos(), a.sin()]
        })
        .collect();
    let k = (4.0 / n as f64).sqrt();
    let mut temperature = 0.2;
    for _ in 0..iterations {
        let mut disp = vec![[0.0f64; 2]; n];
        for i in 0..n {
            for j in i + 1..n {
                let d = [pos[i][0] - pos[j][0], pos[i][1] - pos[j][1]];
                let dist = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1e-3);
                let f = k * k / dist;
                for c in 0..2 {
                    disp[i][c] += d[c] / dist * f;
                    disp[j][c] -= d[c] / dist * f;
                }
            }
        }
        for &(u, v) in &g.edges {
            let d = [pos[u][0] - pos[v][0], pos[u][1] - pos[v][1]];
            let dist = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1e-3);
            let f = dist * dist / k;
            for c in 0..2 {
                disp[u][c] -= d[c] / dist * f;
                disp[v][c] += d[c] / dist * f;
            }
        }
        for (p, d) in pos.iter_mut().zip(&disp) {
            let len = (d[0] * d[0] + d[1] * d[1]).sqrt().max(1e-9);
            let step = len.min(temperature);
            for c in 0..2 {
                // A weak pull to the centre keeps disconnected parts in view.
                p[c] += d[c] / len * step - 0.01 * p[c];
            }
        }
        temperature *= 0.97;
    }
    let scale = pos
        .iter()
        .flat_map(|p| [p[0].abs(), p[1].abs()])
        .fold(1e-9, f64::max);
    pos.iter().map(|p| [p[0] / scale, p[1] / scale]).collect()
}
