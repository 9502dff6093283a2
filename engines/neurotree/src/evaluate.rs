//! Evaluation: stratified k-fold splits, ROC curves and AUC, thresholded metrics, the logistic
//! regression baseline on FC edges, and the least-squares line for brain-age slopes.

use benchtop_compute::ComputeError;
use benchtop_compute::rng::seeded;
use rand::seq::SliceRandom as _;
use serde::{Deserialize, Serialize};

/// Classification metrics of one evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Metrics {
    /// Area under the ROC curve.
    pub auc: f64,
    /// Fraction classified correctly at threshold 0.5.
    pub accuracy: f64,
    /// Patients among those called patient at threshold 0.5 (0 when none is called).
    pub precision: f64,
    /// Patients called patient among all patients at threshold 0.5.
    pub recall: f64,
}

/// An ROC curve from the strictest threshold to the loosest, starting at (0, 0) and ending at
/// (1, 1).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RocCurve {
    /// False-positive rate at each threshold.
    pub false_positive_rate: Vec<f64>,
    /// True-positive rate at each threshold.
    pub true_positive_rate: Vec<f64>,
}

fn check_binary(scores: &[f64], labels: &[usize]) -> Result<(usize, usize), ComputeError> {
    if scores.len() != labels.len() {
        return Err(ComputeError::invalid(
            "scores",
            format!("{} scores for {} labels", scores.len(), labels.len()),
        ));
    }
    if let Some(bad) = labels.iter().find(|&&l| l > 1) {
        return Err(ComputeError::invalid(
            "labels",
            format!("label {bad} is not 0 or 1"),
        ));
    }
    if scores.iter().any(|s| !s.is_finite()) {
        return Err(ComputeError::Numerical(
            "a classifier score is not finite".into(),
        ));
    }
    let positives = labels.iter().filter(|&&l| l == 1).count();
    let negatives = labels.len() - positives;
    if positives == 0 || negatives == 0 {
        return Err(ComputeError::invalid(
            "labels",
            "ROC and AUC need both classes among the evaluated subjects",
        ));
    }
    Ok((positives, negatives))
}

/// Stratified k-fold assignment: the fold index of every subject. Each class is shuffled (seeded)
/// and dealt round-robin, so fold sizes per class differ by at most one.
pub fn stratified_folds(
    labels: &[usize],
    folds: usize,
    seed: u64,
) -> Result<Vec<usize>, ComputeError> {
    if folds < 2 {
        return Err(ComputeError::invalid("folds", "must be at least 2"));
    }
    let mut rng = seeded(seed);
    let mut assignment = vec![0; labels.len()];
    let classes = labels.iter().copied().max().map_or(0, |m| m + 1);
    let mut offset = 0;
    for class in 0..classes {
        let mut members: Vec<usize> = (0..labels.len()).filter(|&i| labels[i] == class).collect();
        if members.is_empty() {
            continue;
        }
        if members.len() < folds {
            return Err(ComputeError::invalid(
                "folds",
                format!(
                    "{folds} folds but class {class} has only {} subjects",
                    members.len()
                ),
            ));
        }
        members.shuffle(&mut rng);
        // Continue the round-robin where the previous class stopped, so totals stay balanced.
        for (k, &i) in members.iter().enumerate() {
            assignment[i] = (offset + k) % folds;
        }
        offset += members.len();
    }
    Ok(assignment)
}

/// The ROC curve of `scores` (higher = patient) against binary `labels`; tied scores move both
/// rates at once (a diagonal step).
pub fn roc_curve(scores: &[f64], labels: &[usize]) -> Result<RocCurve, ComputeError> {
    let (positives, negatives) = check_binary(scores, labels)?;
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    let mut curve = RocCurve {
        false_positive_rate: vec![0.0],
        true_positive_rate: vec![0.0],
    };
    let (mut tp, mut fp) = (0usize, 0usize);
    let mut k = 0;
    while k < order.len() {
        let score = scores[order[k]];
        while k < order.len() && scores[order[k]] == score {
            if labels[order[k]] == 1 {
                tp += 1;
            } else {
                fp += 1;
            }
            k += 1;
        }
        curve.false_positive_rate.push(fp as f64 / negatives as f64);
        curve.true_positive_rate.push(tp as f64 / positives as f64);
    }
    Ok(curve)
}

/// The area under the ROC curve: the probability that a random patient scores above a random
/// control, ties counting one half (the Mann–Whitney statistic).
pub fn auc(scores: &[f64], labels: &[usize]) -> Result<f64, ComputeError> {
    let curve = roc_curve(scores, labels)?;
    let x = &curve.false_positive_rate;
    let y = &curve.true_positive_rate;
    Ok((1..x.len())
        .map(|i| (x[i] - x[i - 1]) * (y[i] + y[i - 1]) / 2.0)
        .sum())
}

/// AUC plus accuracy, precision and recall at threshold 0.5 on probability-like scores.
pub fn metrics(scores: &[f64], labels: &[usize]) -> Result<Metrics, ComputeError> {
    let auc = auc(scores, labels)?;
    let called: Vec<bool> = scores.iter().map(|&s| s >= 0.5).collect();
    let tp = called
        .iter()
        .zip(labels)
        .filter(|&(&c, &l)| c && l == 1)
        .count();
    let called_patient = called.iter().filter(|&&c| c).count();
    let patients = labels.iter().filter(|&&l| l == 1).count();
    let correct = called
        .iter()
        .zip(labels)
        .filter(|&(&c, &l)| c == (l == 1))
        .count();
    Ok(Metrics {
        auc,
        accuracy: correct as f64 / labels.len() as f64,
        precision: if called_patient == 0 {
            0.0
        } else {
            tp as f64 / called_patient as f64
        },
        recall: tp as f64 / patients as f64,
    })
}

/// Mean and (sample) standard deviation of each metric over folds.
pub fn mean_and_std(folds: &[Metrics]) -> (Metrics, Metrics) {
    let n = folds.len() as f64;
    let field = |f: fn(&Metrics) -> f64| {
        let mean = folds.iter().map(f).sum::<f64>() / n;
        let var = if folds.len() > 1 {
            folds.iter().map(|m| (f(m) - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        (mean, var.sqrt())
    };
    let (auc, auc_sd) = field(|m| m.auc);
    let (acc, acc_sd) = field(|m| m.accuracy);
    let (prec, prec_sd) = field(|m| m.precision);
    let (rec, rec_sd) = field(|m| m.recall);
    (
        Metrics {
            auc,
            accuracy: acc,
            precision: prec,
            recall: rec,
        },
        Metrics {
            auc: auc_sd,
            accuracy: acc_sd,
            precision: prec_sd,
            recall: rec_sd,
        },
    )
}

/// The least-squares line y ≈ slope·x + intercept. Errors with fewer than 2 points or no spread
/// in x.
pub fn linear_fit(x: &[f64], y: &[f64]) -> Result<(f64, f64), ComputeError> {
    if x.len() != y.len() || x.len() < 2 {
        return Err(ComputeError::invalid(
            "points",
            format!(
                "a line needs at least 2 paired points, got {} and {}",
                x.len(),
                y.len()
            ),
        ));
    }
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let sxx: f64 = x.iter().map(|v| (v - mx).powi(2)).sum();
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    if sxx <= 0.0 {
        return Err(ComputeError::invalid(
            "points",
            "all x values are equal; the slope is undefined",
        ));
    }
    let slope = sxy / sxx;
    Ok((slope, my - slope * mx))
}

/// L2-regularised logistic regression on standardised features, the classical baseline on FC
/// edges. The loss is the mean log-loss plus `l2`/2·‖w‖² (the intercept is not penalised);
/// `l2 = 1/n` matches scikit-learn's default C = 1. Fitted by accelerated gradient descent
/// with step 1/L from a bound on the Lipschitz constant.
#[derive(Debug, Clone, PartialEq)]
pub struct LogisticRegression {
    mean: Vec<f64>,
    scale: Vec<f64>,
    weights: Vec<f64>,
    intercept: f64,
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

impl LogisticRegression {
    /// Fits on rows of `features` (all the same length) with binary `labels`.
    pub fn fit(
        features: &[Vec<f64>],
        labels: &[usize],
        l2: f64,
        iterations: usize,
    ) -> Result<Self, ComputeError> {
        let n = features.len();
        if n == 0 || labels.len() != n {
            return Err(ComputeError::invalid(
                "features",
                format!("{n} feature rows for {} labels", labels.len()),
            ));
        }
        let p = features[0].len();
        if features.iter().any(|r| r.len() != p) {
            return Err(ComputeError::invalid("features", "rows differ in length"));
        }
        if !(l2.is_finite() && l2 > 0.0) {
            return Err(ComputeError::invalid("l2", "must be finite and > 0"));
        }
        let mean: Vec<f64> = (0..p)
            .map(|j| features.iter().map(|r| r[j]).sum::<f64>() / n as f64)
            .collect();
        let scale: Vec<f64> = (0..p)
            .map(|j| {
                let var = features
                    .iter()
                    .map(|r| (r[j] - mean[j]).powi(2))
                    .sum::<f64>()
                    / n as f64;
                if var > 0.0 { 1.0 / var.sqrt() } else { 0.0 }
            })
            .collect();
        let x: Vec<Vec<f64>> = features
            .iter()
            .map(|r| (0..p).map(|j| (r[j] - mean[j]) * scale[j]).collect())
            .collect();
        let y: Vec<f64> = labels.iter().map(|&l| l as f64).collect();
        // L ≤ (max_i ‖x_i‖² + 1)/4 + l2 bounds the Hessian of the mean log-loss plus penalty.
        let max_norm = x
            .iter()
            .map(|r| r.iter().map(|v| v * v).sum::<f64>())
            .fold(0.0, f64::max);
        let step = 1.0 / ((max_norm + 1.0) / 4.0 + l2);
        let mut w = vec![0.0; p];
        let mut b = 0.0;
        let (mut w_prev, mut b_prev) = (w.clone(), b);
        for it in 0..iterations {
            // Nesterov look-ahead point.
            let momentum = it as f64 / (it as f64 + 3.0);
            let v: Vec<f64> = w
                .iter()
                .zip(&w_prev)
                .map(|(a, c)| a + momentum * (a - c))
                .collect();
            let vb = b + momentum * (b - b_prev);
            let mut grad = vec![0.0; p];
            let mut grad_b = 0.0;
            for (row, &target) in x.iter().zip(&y) {
                let z: f64 = row.iter().zip(&v).map(|(a, c)| a * c).sum::<f64>() + vb;
                let r = (sigmoid(z) - target) / n as f64;
                grad_b += r;
                for (g, a) in grad.iter_mut().zip(row) {
                    *g += r * a;
                }
            }
            w_prev = std::mem::take(&mut w);
            b_prev = b;
            w = v
                .iter()
                .zip(&grad)
                .map(|(vi, g)| vi - step * (g + l2 * vi))
                .collect();
            b = vb - step * grad_b;
        }
        if w.iter().any(|v| !v.is_finite()) || !b.is_finite() {
            return Err(ComputeError::Numerical(
                "logistic regression diverged".into(),
            ));
        }
        Ok(Self {
            mean,
            scale,
            weights: w,
            intercept: b,
        })
    }

    /// P(label 1) for each row.
    pub fn predict(&self, features: &[Vec<f64>]) -> Result<Vec<f64>, ComputeError> {
        features
            .iter()
            .map(|r| {
                if r.len() != self.weights.len() {
                    return Err(ComputeError::invalid(
                        "features",
                        format!("{} features, the model has {}", r.len(), self.weights.len()),
                    ));
                }
                let z: f64 = r
                    .iter()
                    .zip(&self.mean)
                    .zip(&self.scale)
                    .zip(&self.weights)
                    .map(|(((v, m), s), w)| (v - m) * s * w)
                    .sum::<f64>()
                    + self.intercept;
                Ok(sigmoid(z))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng as _;

    #[test]
    fn auc_of_perfect_reversed_and_tied_scores() {
        let labels = [0, 0, 1, 1];
        assert_eq!(auc(&[0.1, 0.2, 0.8, 0.9], &labels).unwrap(), 1.0);
        assert_eq!(auc(&[0.9, 0.8, 0.2, 0.1], &labels).unwrap(), 0.0);
        assert_eq!(auc(&[0.5; 4], &labels).unwrap(), 0.5);
        // Mann–Whitney by hand: pairs (p, c) with p > c: 0.7>0.3, 0.7>0.6, 0.4>0.3 → 3 of 4.
        assert_eq!(auc(&[0.3, 0.6, 0.7, 0.4], &labels).unwrap(), 0.75);
        let roc = roc_curve(&[0.3, 0.6, 0.7, 0.4], &labels).unwrap();
        assert_eq!(roc.false_positive_rate, vec![0.0, 0.0, 0.5, 0.5, 1.0]);
        assert_eq!(roc.true_positive_rate, vec![0.0, 0.5, 0.5, 1.0, 1.0]);
        assert!(auc(&[0.1, 0.2], &[1, 1]).is_err());
    }

    #[test]
    fn metrics_at_one_half() {
        let m = metrics(&[0.9, 0.6, 0.4, 0.2, 0.7], &[1, 0, 1, 0, 1]).unwrap();
        // Called patient: 0, 1, 4 → tp = 2 of 3 called; patients 3 → recall 2/3; correct 0, 3, 4.
        assert!((m.precision - 2.0 / 3.0).abs() < 1e-15);
        assert!((m.recall - 2.0 / 3.0).abs() < 1e-15);
        assert!((m.accuracy - 0.6).abs() < 1e-15);
        let (mean, sd) = mean_and_std(&[m, Metrics::default()]);
        assert!((mean.accuracy - 0.3).abs() < 1e-15);
        assert!((sd.accuracy - (0.18f64).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn stratified_folds_balance_every_class() {
        let labels: Vec<usize> = (0..23).map(|i| usize::from(i % 3 == 0)).collect();
        let folds = stratified_folds(&labels, 5, 7).unwrap();
        for class in 0..2 {
            let counts: Vec<usize> = (0..5)
                .map(|f| {
                    (0..23)
                        .filter(|&i| labels[i] == class && folds[i] == f)
                        .count()
                })
                .collect();
            let (lo, hi) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
            assert!(hi - lo <= 1, "class {class}: {counts:?}");
        }
        assert_eq!(folds, stratified_folds(&labels, 5, 7).unwrap());
        assert!(stratified_folds(&[0, 0, 1], 2, 0).is_err());
    }

    #[test]
    fn shuffled_labels_give_auc_near_one_half_and_a_planted_effect_is_found() {
        let mut rng = seeded(3);
        let n = 400;
        let labels: Vec<usize> = (0..n).map(|i| i % 2).collect();
        let scores: Vec<f64> = (0..n).map(|_| rng.random::<f64>()).collect();
        let a = auc(&scores, &labels).unwrap();
        assert!((a - 0.5).abs() < 0.07, "{a}");
        // Logistic regression on 30 features, one of which carries the label.
        let features: Vec<Vec<f64>> = labels
            .iter()
            .map(|&l| {
                (0..30)
                    .map(|j| rng.random::<f64>() + if j == 4 { l as f64 } else { 0.0 })
                    .collect()
            })
            .collect();
        let (train, test) = features.split_at(300);
        let model = LogisticRegression::fit(train, &labels[..300], 1.0 / 300.0, 300).unwrap();
        let p = model.predict(test).unwrap();
        assert!(auc(&p, &labels[300..]).unwrap() > 0.95);
    }

    #[test]
    fn line_fit_recovers_a_planted_line() {
        let x = [1.0, 2.0, 4.0, 7.0];
        let y: Vec<f64> = x.iter().map(|v| 0.35 * v - 2.0).collect();
        let (s, b) = linear_fit(&x, &y).unwrap();
        assert!((s - 0.35).abs() < 1e-12 && (b + 2.0).abs() < 1e-12);
        assert!(linear_fit(&[1.0, 1.0], &[0.0, 2.0]).is_err());
    }
}
