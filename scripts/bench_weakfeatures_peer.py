#!/usr/bin/env python3
"""NumPy/scikit-learn peer of `benchtop bench weakfeatures`: the same fits on the same kind of
data, timed the same way, run interleaved with the Benchtop binary (A, B, A, B, ...).

Data: jointly Gaussian x_o (d_o features, unit variance, correlation 0.2), x_w = B x_o +
sqrt(1 - R^2) z (R^2 = 0.5, d_w features), y = 0.5 * sum(x_o) + sum(x_w) + 0.5 * noise; rows
miss x_w completely at random at --rate (training and test alike).

Timed (one repeat): the sequential fit (ridge f of x_w on x_o over the rows that have x_w,
completion of the missing rows, ridge h on (x_o, completed x_w), test evaluation), then R
iterative rounds (f-step: the exact least-squares solve of
mean_present |x_w - f|^2 / d_w + gamma * mean_missing (y - h(x_o, f))^2 over f's linear map;
completion; h refit; test evaluation). With --label mlp, h is scikit-learn's MLPRegressor (one
hidden ReLU layer of 32, full-batch Adam, learning rate 0.01, no L2) and the f-step is --epochs
Adam steps on f's map through h (NumPy back-propagation), h warm-started for --epochs more.

Usage:
  python3 scripts/bench_weakfeatures_peer.py --benchtop target/release/benchtop --pairs 7
prints one JSON object: each side's median milliseconds, the median of the per-pair ratios
Benchtop / peer, and both sides' excess risks.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

import numpy as np
from sklearn.linear_model import Ridge
from sklearn.neural_network import MLPRegressor


def make_data(n, n_test, d_o, d_w, rate, seed):
    rng = np.random.default_rng(seed)
    c, r2 = 0.2, 0.5
    s_oo = (1 - c) * np.eye(d_o) + c * np.ones((d_o, d_o))
    chol = np.linalg.cholesky(s_oo)
    u = rng.standard_normal((d_w, d_o))
    norms = np.sqrt(np.einsum("ki,ij,kj->k", u, s_oo, u))
    b = np.sqrt(r2) * u / norms[:, None]
    beta_o, beta_w, sigma = 0.5, 1.0, 0.5

    def rows(m):
        x_o = rng.standard_normal((m, d_o)) @ chol.T
        x_w = x_o @ b.T + np.sqrt(1 - r2) * rng.standard_normal((m, d_w))
        bayes = beta_o * x_o.sum(1) + beta_w * x_w.sum(1)
        y = bayes + sigma * rng.standard_normal(m)
        mask = rng.random(m) < rate
        return x_o, x_w, y, bayes, mask

    closed = d_w * beta_w**2 * (1 - r2)
    return rows(n), rows(n_test), closed


def ridge(lam, n):
    # Benchtop's ridge: (1/n)|y - Xw - c|^2 + lam |w|^2, i.e. scikit-learn's alpha = lam * n.
    return Ridge(alpha=lam * n, solver="cholesky")


def complete(x_o, x_w, mask, g):
    out = x_w.copy()
    u = np.hstack([x_o[mask], np.ones((mask.sum(), 1))])
    out[mask] = u @ g.T
    return out


class RidgeH:
    def __init__(self, lam):
        self.lam = lam

    def fit(self, z, y):
        self.model = ridge(self.lam, len(y)).fit(z, y)
        return self

    def predict(self, z):
        return self.model.predict(z)

    def weights(self):
        return self.model.coef_, self.model.intercept_


class MlpH:
    def __init__(self, epochs, seed):
        self.epochs = epochs
        self.model = MLPRegressor(hidden_layer_sizes=(32,), activation="relu", solver="adam",
                                  learning_rate_init=0.01, alpha=0.0, max_iter=epochs, tol=0.0,
                                  n_iter_no_change=epochs + 1, shuffle=False, warm_start=True,
                                  random_state=seed)

    def fit(self, z, y):
        self.model.batch_size = len(y)
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.model.fit(z, y)
        return self

    def predict(self, z):
        return self.model.predict(z)

    def forward_backward(self, z, dout):
        """h(z) and the gradient of sum(dout * h(z)) with respect to z."""
        w1, w2 = self.model.coefs_
        b1, b2 = self.model.intercepts_
        a = z @ w1 + b1
        hidden = np.maximum(a, 0.0)
        out = hidden @ w2[:, 0] + b2[0]
        dh = np.outer(dout, w2[:, 0]) * (a > 0)
        return out, dh @ w1.T


def f_step_exact(h, x_o, x_w, y, mask, gamma, lam, d_w):
    coef, intercept = h.weights()
    d_o = x_o.shape[1]
    w_o, w_w = coef[:d_o], coef[d_o:]
    p = d_o + 1
    normal = lam * np.eye(d_w * p)
    rhs = np.zeros(d_w * p)
    present = ~mask
    if present.any():
        u = np.hstack([x_o[present], np.ones((present.sum(), 1))])
        scale = 1.0 / (present.sum() * d_w)
        gram = u.T @ u * scale
        cross = u.T @ x_w[present] * scale
        normal += np.kron(np.eye(d_w), gram)
        rhs += cross.T.reshape(-1)
    if mask.any() and gamma > 0:
        u = np.hstack([x_o[mask], np.ones((mask.sum(), 1))])
        s = y[mask] - intercept - x_o[mask] @ w_o
        scale = gamma / mask.sum()
        normal += np.kron(np.outer(w_w, w_w), u.T @ u * scale)
        rhs += np.kron(w_w, u.T @ s * scale)
    sol = np.linalg.solve(normal, rhs)
    return sol.reshape(d_w, p)


def f_step_adam(h, g, x_o, x_w, y, mask, gamma, steps, lr):
    d_w = g.shape[0]
    present = ~mask
    u_p = np.hstack([x_o[present], np.ones((present.sum(), 1))])
    u_m = np.hstack([x_o[mask], np.ones((mask.sum(), 1))])
    m = np.zeros_like(g)
    v = np.zeros_like(g)
    for t in range(1, steps + 1):
        grad = np.zeros_like(g)
        if present.any():
            r = u_p @ g.T - x_w[present]
            grad += 2.0 * r.T @ u_p / r.size
        if mask.any() and gamma > 0:
            est = u_m @ g.T
            z = np.hstack([x_o[mask], est])
            out, _ = h.forward_backward(z, np.zeros(len(est)))
            dout = 2.0 * gamma * (out - y[mask]) / len(est)
            _, dz = h.forward_backward(z, dout)
            grad += dz[:, -d_w:].T @ u_m
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        g = g - lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return g


def one_run(train, test, args):
    x_o, x_w, y, _, mask = train
    tx_o, tx_w, ty, tbayes, tmask = test
    d_w = x_w.shape[1]
    lam = 1e-4
    start = time.perf_counter()
    present = ~mask
    fit = ridge(lam, present.sum()).fit(x_o[present], x_w[present])
    g = np.hstack([fit.coef_, fit.intercept_[:, None]])
    h = RidgeH(lam) if args.label == "ridge" else MlpH(args.epochs, args.seed)
    h.fit(np.hstack([x_o, complete(x_o, x_w, mask, g)]), y)
    pred = h.predict(np.hstack([tx_o, complete(tx_o, tx_w, tmask, g)]))
    seq_excess = float(np.mean((pred - tbayes) ** 2))
    after_sequential = time.perf_counter()
    for _ in range(args.rounds):
        if args.label == "ridge":
            g = f_step_exact(h, x_o, x_w, y, mask, 1.0, lam, d_w)
        else:
            g = f_step_adam(h, g, x_o, x_w, y, mask, 1.0, args.epochs, 0.01)
            h.model.max_iter = args.epochs
        h.fit(np.hstack([x_o, complete(x_o, x_w, mask, g)]), y)
        pred = h.predict(np.hstack([tx_o, complete(tx_o, tx_w, tmask, g)]))
    it_excess = float(np.mean((pred - tbayes) ** 2))
    end = time.perf_counter()
    return {
        "sequential_ms": (after_sequential - start) * 1e3,
        "iterative_ms": (end - after_sequential) * 1e3,
        "total_ms": (end - start) * 1e3,
        "sequential_excess": seq_excess,
        "iterative_excess": it_excess,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--benchtop", help="the Benchtop binary (omit: the peer alone)")
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--n-test", type=int, default=20000)
    parser.add_argument("--d-observed", type=int, default=8)
    parser.add_argument("--d-weak", type=int, default=2)
    parser.add_argument("--rate", type=float, default=0.5)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--label", choices=["ridge", "mlp"], default="ridge")
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    train, test, per_row = make_data(args.n, args.n_test, args.d_observed, args.d_weak,
                                     args.rate, args.seed)
    closed = per_row * float(test[4].mean())
    ours, peer, ratios = [], [], []
    last_ours, last_peer = None, None
    for _ in range(args.pairs):
        if args.benchtop:
            cmd = [args.benchtop, "bench", "weakfeatures", "--n", str(args.n), "--n-test",
                   str(args.n_test), "--d-observed", str(args.d_observed), "--d-weak",
                   str(args.d_weak), "--rate", str(args.rate), "--rounds", str(args.rounds),
                   "--label", args.label, "--epochs", str(args.epochs), "--repeats", "1",
                   "--seed", str(args.seed)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            last_ours = json.loads(out.strip().splitlines()[-1])
            ours.append(last_ours["total_ms"])
        last_peer = one_run(train, test, args)
        peer.append(last_peer["total_ms"])
        if args.benchtop:
            ratios.append(ours[-1] / peer[-1])
    report = {
        "sizes": {k: getattr(args, k) for k in
                  ["n", "n_test", "d_observed", "d_weak", "rate", "rounds", "label", "epochs"]},
        "pairs": args.pairs,
        "peer_median_ms": statistics.median(peer),
        "peer_sequential_excess": last_peer["sequential_excess"],
        "peer_iterative_excess": last_peer["iterative_excess"],
        "peer_closed_form": closed,
        "numpy": np.__version__,
    }
    if args.benchtop:
        report.update({
            "benchtop_median_ms": statistics.median(ours),
            "median_ratio_benchtop_over_peer": statistics.median(ratios),
            "benchtop_sequential_excess": last_ours["sequential_excess"],
            "benchtop_iterative_excess": last_ours["iterative_excess"],
            "benchtop_closed_form": last_ours["closed_form"],
        })
    json.dump(report, sys.stdout)
    print()


if __name__ == "__main__":
    main()
