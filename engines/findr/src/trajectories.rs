//! Trajectories of a learned flow: noiseless prior paths driven by each trial's clicks, trial
//! groups by evidence strength, trial averages per group, grid-cell visits (the sample zone) and
//! the click probability per cell, and peri-stimulus time histograms of data and model.

use crate::field::FlowGrid;
use crate::result::{GroupTrajectory, Psths};
use crate::trials::TrialSet;

/// The noiseless prior path of every trial: z₀ = 0, z_{t+1} = z_t + α F(z_t, u_t); entry t of a
/// trial's path is z_{t+1} (the latent of bin t), one entry per valid bin.
pub fn noiseless_paths(
    data: &TrialSet,
    drift: impl Fn([f64; 2], [f64; 2]) -> [f64; 2],
    alpha: f64,
) -> Vec<Vec<[f64; 2]>> {
    (0..data.n_trials)
        .map(|trial| {
            let mut z = [0.0; 2];
            (0..data.lengths[trial])
                .map(|bin| {
                    let u = data.input(trial, bin);
                    let f = drift(z, [f64::from(u[0]), f64::from(u[1])]);
                    z = [z[0] + alpha * f[0], z[1] + alpha * f[1]];
                    z
                })
                .collect()
        })
        .collect()
}

/// Trial groups: by γ when known (one group per distinct value, ascending), otherwise by the
/// net click rate (right − left clicks per second) cut into `fallback_groups` quantile groups.
/// Returns each group's value and each trial's group.
pub fn trial_groups(
    data: &TrialSet,
    gammas: Option<&[f64]>,
    fallback_groups: usize,
) -> (Vec<f64>, Vec<usize>) {
    if let Some(gammas) = gammas.filter(|g| g.len() == data.n_trials) {
        let mut values: Vec<f64> = gammas.to_vec();
        values.sort_by(f64::total_cmp);
        values.dedup();
        let group = gammas
            .iter()
            .map(|g| values.iter().position(|v| v == g).unwrap_or(0))
            .collect();
        return (values, group);
    }
    let net_rate: Vec<f64> = (0..data.n_trials)
        .map(|trial| {
            let (mut left, mut right) = (0.0, 0.0);
            for bin in 0..data.lengths[trial] {
                let u = data.input(trial, bin);
                left += f64::from(u[0]);
                right += f64::from(u[1]);
            }
            let duration = (data.lengths[trial].max(1)) as f64 * data.bin_s;
            (right - left) / duration
        })
        .collect();
    let groups = fallback_groups.clamp(1, data.n_trials.max(1));
    let mut order: Vec<usize> = (0..data.n_trials).collect();
    order.sort_by(|&a, &b| net_rate[a].total_cmp(&net_rate[b]));
    let mut group = vec![0; data.n_trials];
    let mut sums = vec![(0.0, 0usize); groups];
    for (rank, &trial) in order.iter().enumerate() {
        let g = rank * groups / data.n_trials.max(1);
        group[trial] = g;
        sums[g].0 += net_rate[trial];
        sums[g].1 += 1;
    }
    let values = sums
        .iter()
        .map(|&(sum, count)| if count > 0 { sum / count as f64 } else { 0.0 })
        .collect();
    (values, group)
}

/// The mean path of each group (bins where at least one of its trials is running), mapped by
/// `to_display`.
pub fn group_means(
    paths: &[Vec<[f64; 2]>],
    values: &[f64],
    group: &[usize],
    to_display: impl Fn([f64; 2]) -> [f64; 2],
) -> Vec<GroupTrajectory> {
    values
        .iter()
        .enumerate()
        .map(|(g, &gamma)| {
            let members: Vec<&Vec<[f64; 2]>> = paths
                .iter()
                .zip(group)
                .filter(|(_, k)| **k == g)
                .map(|(p, _)| p)
                .collect();
            let longest = members.iter().map(|p| p.len()).max().unwrap_or(0);
            let path = (0..longest)
                .map(|bin| {
                    let (mut sum, mut count) = ([0.0; 2], 0.0);
                    for p in members.iter().filter(|p| p.len() > bin) {
                        let z = to_display(p[bin]);
                        sum = [sum[0] + z[0], sum[1] + z[1]];
                        count += 1.0;
                    }
                    [sum[0] / count, sum[1] / count]
                })
                .collect();
            GroupTrajectory {
                gamma,
                trials: members.len(),
                path,
            }
        })
        .collect()
}

/// Index of the grid node nearest to `z` (`j·nx + i`), or `None` outside the grid's span.
pub fn nearest_node(grid: &FlowGrid, z: [f64; 2]) -> Option<usize> {
    let index = |axis: &[f64], x: f64| -> Option<usize> {
        let (lo, hi) = (axis[0], axis[axis.len() - 1]);
        let step = (hi - lo) / (axis.len() - 1) as f64;
        let k = ((x - lo) / step).round();
        let in_range = k >= 0.0 && k <= (axis.len() - 1) as f64;
        in_range.then_some(k as usize)
    };
    Some(index(&grid.ys, z[1])? * grid.xs.len() + index(&grid.xs, z[0])?)
}

/// The cells of a grid that enough trials visit: where a flow's fixed points say something
/// about the data.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleZone {
    /// The grid (its vectors are the flow on it).
    pub grid: FlowGrid,
    /// Trials whose path visits each cell, as [`visits`] counts them.
    pub visits: Vec<usize>,
    /// Visits at or above which a cell belongs to the zone.
    pub min_visits: usize,
}

impl SampleZone {
    /// Whether the grid node nearest `z` belongs to the zone (false outside the grid).
    pub fn contains(&self, z: [f64; 2]) -> bool {
        nearest_node(&self.grid, z).is_some_and(|cell| self.visits[cell] >= self.min_visits)
    }
}

/// How many trials visit each grid node's cell (each trial counted once per cell), for display
/// paths.
pub fn visits(grid: &FlowGrid, paths: &[Vec<[f64; 2]>]) -> Vec<usize> {
    let mut counts = vec![0; grid.xs.len() * grid.ys.len()];
    let mut seen = vec![usize::MAX; counts.len()];
    for (trial, path) in paths.iter().enumerate() {
        for &z in path {
            if let Some(cell) = nearest_node(grid, z)
                && seen[cell] != trial
            {
                seen[cell] = trial;
                counts[cell] += 1;
            }
        }
    }
    counts
}

/// The probability of a left and of a right click in a bin spent in each grid cell, from the
/// display paths (the state at which each bin's input arrives) and the trials' inputs.
pub fn click_probability(
    grid: &FlowGrid,
    data: &TrialSet,
    paths: &[Vec<[f64; 2]>],
    start: [f64; 2],
) -> [Vec<f64>; 2] {
    let cells = grid.xs.len() * grid.ys.len();
    let mut bins = vec![0.0f64; cells];
    let mut clicks = [vec![0.0f64; cells], vec![0.0f64; cells]];
    for (trial, path) in paths.iter().enumerate() {
        let mut z = start;
        for (bin, &next) in path.iter().enumerate() {
            if let Some(cell) = nearest_node(grid, z) {
                let u = data.input(trial, bin);
                bins[cell] += 1.0;
                for side in 0..2 {
                    if u[side] > 0.0 {
                        clicks[side][cell] += 1.0;
                    }
                }
            }
            z = next;
        }
    }
    clicks.map(|side| {
        side.iter()
            .zip(&bins)
            .map(|(c, b)| if *b > 0.0 { c / b } else { 0.0 })
            .collect()
    })
}

/// Data and model PSTHs by group: `model_rate(trial, bin, neuron)` gives the model's rate, Hz.
pub fn psths(
    data: &TrialSet,
    values: &[f64],
    group: &[usize],
    model_rate: impl Fn(usize, usize, usize) -> f64,
) -> Psths {
    let (groups, bins, neurons) = (values.len(), data.max_bins, data.n_neurons);
    let mut out = Psths {
        gammas: values.to_vec(),
        bins,
        neurons,
        bin_s: data.bin_s,
        data_hz: vec![0.0; groups * bins * neurons],
        model_hz: vec![0.0; groups * bins * neurons],
    };
    let mut counts = vec![0.0f64; groups * bins];
    for (trial, &g) in group.iter().enumerate().take(data.n_trials) {
        for bin in 0..data.lengths[trial] {
            counts[g * bins + bin] += 1.0;
            for neuron in 0..neurons {
                let i = out.index(g, bin, neuron);
                out.data_hz[i] += f64::from(data.spike(trial, bin, neuron)) / data.bin_s;
                out.model_hz[i] += model_rate(trial, bin, neuron);
            }
        }
    }
    for g in 0..groups {
        for bin in 0..bins {
            let count = counts[g * bins + bin];
            for neuron in 0..neurons {
                let i = out.index(g, bin, neuron);
                if count > 0.0 {
                    out.data_hz[i] /= count;
                    out.model_hz[i] /= count;
                } else {
                    out.data_hz[i] = f64::NAN;
                    out.model_hz[i] = f64::NAN;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::flow_grid;

    fn tiny() -> TrialSet {
        // Two trials of 3 and 2 bins, one neuron; trial 0 gets right clicks, trial 1 left ones.
        TrialSet {
            n_trials: 2,
            max_bins: 3,
            n_neurons: 1,
            bin_s: 0.5,
            spikes: vec![1.0, 2.0, 3.0, 4.0, 0.0, 0.0],
            inputs: vec![0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            lengths: vec![3, 2],
            times_s: vec![0.0, 10.0],
            choices: None,
        }
    }

    #[test]
    fn noiseless_paths_follow_the_euler_recursion() {
        let data = tiny();
        // F(z, u) = −z + (u_R − u_L, 0): with α = 0.5, trial 0 goes 0.5, 0.75, 0.375.
        let paths = noiseless_paths(&data, |z, u| [-z[0] + u[1] - u[0], -z[1]], 0.5);
        assert_eq!(paths[0], vec![[0.5, 0.0], [0.75, 0.0], [0.375, 0.0]]);
        assert_eq!(paths[1], vec![[-0.5, 0.0], [-0.25, 0.0]]);
    }

    #[test]
    fn groups_follow_gamma_or_net_click_rate() {
        let data = tiny();
        let (values, group) = trial_groups(&data, Some(&[1.5, -0.5]), 4);
        assert_eq!((values, group), (vec![-0.5, 1.5], vec![1, 0]));
        let (values, group) = trial_groups(&data, None, 2);
        // Net rates: trial 0: 2 right clicks in 1.5 s; trial 1: one left click in 1 s.
        assert_eq!(group, vec![1, 0]);
        assert!((values[0] + 1.0).abs() < 1e-12 && (values[1] - 2.0 / 1.5).abs() < 1e-12);
        let means = group_means(
            &[vec![[1.0, 0.0], [2.0, 0.0]], vec![[3.0, 1.0]]],
            &[0.0],
            &[0, 0],
            |z| z,
        );
        assert_eq!(means[0].path, vec![[2.0, 0.5], [2.0, 0.0]]);
        assert_eq!(means[0].trials, 2);
    }

    #[test]
    fn psths_average_rates_over_the_trials_covering_each_bin() {
        let data = tiny();
        let p = psths(&data, &[0.0], &[0, 0], |trial, _, _| trial as f64);
        // Bin 0: (1 + 4)/2 spikes per 0.5 s = 5 Hz; bin 2 only trial 0: 3/0.5 = 6 Hz.
        assert_eq!(p.data_hz, vec![5.0, 2.0, 6.0]);
        assert_eq!(p.model_hz, vec![0.5, 0.5, 0.0]);
        let p = psths(&data, &[0.0, 1.0], &[0, 1], |_, _, _| 1.0);
        assert!(p.data_hz[p.index(1, 2, 0)].is_nan());
    }

    #[test]
    fn visits_and_click_probability_count_cells() {
        let data = tiny();
        let grid = flow_grid(|z| z, [-1.0, -1.0], [1.0, 1.0], 3).unwrap();
        let paths = vec![vec![[0.9, 0.1], [1.1, 0.0], [0.1, 0.0]], vec![[-1.0, 0.0]]];
        let v = visits(&grid, &paths);
        // Node (i = 2, j = 1) is visited by trial 0 twice but counted once.
        assert_eq!(v[3 + 2], 1);
        assert_eq!(v[3 + 1], 1);
        assert_eq!(v[3], 1);
        assert_eq!(v.iter().sum::<usize>(), 3);
        let p = click_probability(&grid, &data, &paths, [0.0, 0.0]);
        // Trial 0's bins start at (0,0) [right click], (0.9,0.1) [right], (1.1,0) [none];
        // trial 1's one listed bin starts at (0,0) [left].
        assert!((p[1][3 + 1] - 0.5).abs() < 1e-12 && (p[0][3 + 1] - 0.5).abs() < 1e-12);
        assert!((p[1][3 + 2] - 0.5).abs() < 1e-12);
        assert_eq!(p[0][3], 0.0);
        assert!(nearest_node(&grid, [2.0, 0.0]).is_none());
    }
}
