//! The generator losses of MolStitch on sequence log-likelihoods, with their gradients (plain
//! f64; the generator applies the gradients to its own parameters by the chain rule through the
//! log-likelihoods).
//!
//! - IPO preference loss (the IPO round): h = [log π_θ(x_w) − log π_θ(x_l)] − [log π₀(x_w) −
//!   log π₀(x_l)], L = ½ mean (h − 1/(2β))²; minimal (zero) at the target margin h = 1/(2β),
//!   2.5 nats for β = 0.2.
//! - Trajectory-balance loss (fitting the offline data, the "stabilised GFlowNet"):
//!   L = mean (log π_θ(x) + log Z − log π₀(x) − σ r(x))², zero when
//!   log π_θ − log π₀ + log Z = σ r.
//! - REINVENT regression (StitchNet self-augmentation): L = ½ mean (log π₀(x) + σ r(x) −
//!   log π_θ(x))², zero when log π_θ − log π₀ = σ r.

use benchtop_compute::ComputeError;

/// MolStitch's IPO strength β.
pub const IPO_BETA: f64 = 0.2;
/// MolStitch's reward scale σ of the trajectory-balance and REINVENT losses.
pub const REWARD_SIGMA: f64 = 500.0;

/// A loss value and its gradients.
#[derive(Debug, Clone, PartialEq)]
pub struct LossGrad {
    /// The loss.
    pub loss: f64,
    /// ∂L/∂(log π_θ) for each sequence of the batch (for IPO: of the winner; the loser's is
    /// the negative).
    pub grad_logp: Vec<f64>,
    /// ∂L/∂(log Z) (zero for losses without log Z).
    pub grad_log_z: f64,
}

fn check_lengths(name: &str, lens: &[usize]) -> Result<usize, ComputeError> {
    let n = lens.first().copied().unwrap_or(0);
    if n == 0 {
        return Err(ComputeError::invalid(name, "the batch is empty"));
    }
    if lens.iter().any(|&l| l != n) {
        return Err(ComputeError::invalid(
            name,
            format!("batch lengths differ: {lens:?}"),
        ));
    }
    Ok(n)
}

/// The IPO margins h = [log π_θ(x_w) − log π_θ(x_l)] − [log π₀(x_w) − log π₀(x_l)].
pub fn ipo_margins(
    policy_win: &[f64],
    policy_lose: &[f64],
    ref_win: &[f64],
    ref_lose: &[f64],
) -> Result<Vec<f64>, ComputeError> {
    check_lengths(
        "ipo",
        &[
            policy_win.len(),
            policy_lose.len(),
            ref_win.len(),
            ref_lose.len(),
        ],
    )?;
    Ok((0..policy_win.len())
        .map(|i| (policy_win[i] - policy_lose[i]) - (ref_win[i] - ref_lose[i]))
        .collect())
}

/// The IPO loss ½ mean (h − 1/(2β))² of the margins `h`, with ∂L/∂hᵢ = (hᵢ − 1/(2β))/n in
/// [`LossGrad::grad_logp`] (the gradient with respect to log π_θ(x_w); that with respect to
/// log π_θ(x_l) is its negative). β must be > 0.
pub fn ipo_loss(h: &[f64], beta: f64) -> Result<LossGrad, ComputeError> {
    if !(beta.is_finite() && beta > 0.0) {
        return Err(ComputeError::invalid("beta", format!("{beta} must be > 0")));
    }
    let n = check_lengths("ipo", &[h.len()])? as f64;
    let target = 1.0 / (2.0 * beta);
    let loss = h.iter().map(|x| (x - target).powi(2)).sum::<f64>() / (2.0 * n);
    Ok(LossGrad {
        loss,
        grad_logp: h.iter().map(|x| (x - target) / n).collect(),
        grad_log_z: 0.0,
    })
}

/// The trajectory-balance loss mean (log π_θ + log Z − log π₀ − σ r)² with its gradients
/// ∂L/∂log π_θᵢ = 2 δᵢ / n and ∂L/∂log Z = Σ 2 δᵢ / n (δ the residual).
pub fn trajectory_balance_loss(
    policy_logp: &[f64],
    prior_logp: &[f64],
    reward: &[f64],
    log_z: f64,
    sigma: f64,
) -> Result<LossGrad, ComputeError> {
    let n = check_lengths(
        "trajectory_balance",
        &[policy_logp.len(), prior_logp.len(), reward.len()],
    )? as f64;
    let residual: Vec<f64> = (0..policy_logp.len())
        .map(|i| policy_logp[i] + log_z - prior_logp[i] - sigma * reward[i])
        .collect();
    let grad_logp: Vec<f64> = residual.iter().map(|d| 2.0 * d / n).collect();
    Ok(LossGrad {
        loss: residual.iter().map(|d| d * d).sum::<f64>() / n,
        grad_log_z: grad_logp.iter().sum(),
        grad_logp,
    })
}

/// The REINVENT regression loss ½ mean (log π₀ + σ r − log π_θ)² with ∂L/∂log π_θᵢ =
/// −(log π₀ᵢ + σ rᵢ − log π_θᵢ)/n.
pub fn reinvent_loss(
    policy_logp: &[f64],
    prior_logp: &[f64],
    reward: &[f64],
    sigma: f64,
) -> Result<LossGrad, ComputeError> {
    let n = check_lengths(
        "reinvent",
        &[policy_logp.len(), prior_logp.len(), reward.len()],
    )? as f64;
    let residual: Vec<f64> = (0..policy_logp.len())
        .map(|i| prior_logp[i] + sigma * reward[i] - policy_logp[i])
        .collect();
    Ok(LossGrad {
        loss: residual.iter().map(|d| d * d).sum::<f64>() / (2.0 * n),
        grad_logp: residual.iter().map(|d| -d / n).collect(),
        grad_log_z: 0.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric_grad(f: impl Fn(f64) -> f64, x: f64) -> f64 {
        let e = 1e-6;
        (f(x + e) - f(x - e)) / (2.0 * e)
    }

    #[test]
    fn ipo_is_minimal_at_the_target_margin() {
        let at = ipo_loss(&[2.5, 2.5], IPO_BETA).unwrap();
        assert_eq!(at.loss, 0.0);
        assert_eq!(at.grad_logp, [0.0, 0.0]);
        // Below the margin the gradient pushes the winner up (negative ∂L/∂h), above it down.
        let below = ipo_loss(&[1.0], IPO_BETA).unwrap();
        assert!(below.grad_logp[0] < 0.0);
        assert_eq!(below.loss, 0.5 * 1.5 * 1.5);
        let above = ipo_loss(&[4.0], IPO_BETA).unwrap();
        assert!(above.grad_logp[0] > 0.0);
        // Scan: the minimum over a grid is at 2.5.
        let best = (0..=100)
            .map(|k| f64::from(k) * 0.05)
            .min_by(|a, b| {
                ipo_loss(&[*a], IPO_BETA)
                    .unwrap()
                    .loss
                    .total_cmp(&ipo_loss(&[*b], IPO_BETA).unwrap().loss)
            })
            .unwrap();
        assert!((best - 2.5).abs() < 1e-12);
        // The analytic gradient matches finite differences.
        let h = [0.3, 3.1, -1.0];
        let g = ipo_loss(&h, IPO_BETA).unwrap().grad_logp;
        for i in 0..3 {
            let f = |x: f64| {
                let mut v = h;
                v[i] = x;
                ipo_loss(&v, IPO_BETA).unwrap().loss
            };
            assert!((numeric_grad(f, h[i]) - g[i]).abs() < 1e-6);
        }
        assert!(ipo_loss(&[1.0], 0.0).is_err());
        assert!(ipo_loss(&[], 0.2).is_err());
    }

    #[test]
    fn ipo_margins_subtract_the_reference() {
        let h = ipo_margins(&[-10.0], &[-14.0], &[-11.0], &[-13.5]).unwrap();
        assert_eq!(h, [1.5]);
        assert!(ipo_margins(&[1.0], &[], &[1.0], &[1.0]).is_err());
    }

    #[test]
    fn trajectory_balance_is_zero_at_its_fixed_point() {
        let prior = [-20.0, -35.0, -12.5];
        let reward = [0.4, 0.7, 0.1];
        let log_z = 0.25;
        let policy: Vec<f64> = (0..3)
            .map(|i| prior[i] + REWARD_SIGMA * reward[i] - log_z)
            .collect();
        let at = trajectory_balance_loss(&policy, &prior, &reward, log_z, REWARD_SIGMA).unwrap();
        assert_eq!(at.loss, 0.0);
        assert!(at.grad_logp.iter().all(|g| *g == 0.0));
        assert_eq!(at.grad_log_z, 0.0);
        // Policy too likely: gradients positive (push log π_θ and log Z down).
        let high: Vec<f64> = policy.iter().map(|p| p + 1.0).collect();
        let g = trajectory_balance_loss(&high, &prior, &reward, log_z, REWARD_SIGMA).unwrap();
        assert!((g.loss - 1.0).abs() < 1e-12);
        assert!(g.grad_logp.iter().all(|x| *x > 0.0));
        assert!(g.grad_log_z > 0.0);
        let f = |z: f64| {
            trajectory_balance_loss(&high, &prior, &reward, z, REWARD_SIGMA)
                .unwrap()
                .loss
        };
        assert!((numeric_grad(f, log_z) - g.grad_log_z).abs() < 1e-5);
    }

    #[test]
    fn reinvent_is_zero_when_the_agent_matches_the_augmented_prior() {
        let prior = [-30.0, -18.0];
        let reward = [0.2, 0.9];
        let agent: Vec<f64> = (0..2).map(|i| prior[i] + 2.0 * reward[i]).collect();
        let at = reinvent_loss(&agent, &prior, &reward, 2.0).unwrap();
        assert_eq!(at.loss, 0.0);
        let low: Vec<f64> = agent.iter().map(|a| a - 2.0).collect();
        let g = reinvent_loss(&low, &prior, &reward, 2.0).unwrap();
        assert!((g.loss - 2.0).abs() < 1e-12);
        // Agent below its target: the gradient raises it (negative ∂L/∂log π_θ).
        assert!(g.grad_logp.iter().all(|x| *x < 0.0));
        let f = |x: f64| {
            reinvent_loss(&[x, low[1]], &prior, &reward, 2.0)
                .unwrap()
                .loss
        };
        assert!((numeric_grad(f, low[0]) - g.grad_logp[0]).abs() < 1e-6);
    }
}
