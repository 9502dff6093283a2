#!/usr/bin/env python3
"""ST-RCGP filter + smoother: Benchtop against a NumPy peer on the same problem (CPU).

The peer is what a scientist would write in NumPy: the separable spatio-temporal GP with a
temporal Matérn-3/2 state (d = 2; exact discretisation A = expm(F dt) in closed form,
Sigma = Pinf - A Pinf A^T) and an RBF spatial kernel with the nugget 1e-6, stacked over the
n_s locations (state n_s * d; the block-diagonal A applied blockwise with einsum), the Kalman
update with all n_s observations at once (Cholesky-free: numpy.linalg.solve), optionally the
robust ST-RCGP update (IMQ weight with adaptive centre f_hat and scale c = sqrt(2 (s^2 + sigma^2)),
beta = sqrt(sigma^2 / 2), R_eff = sigma^4 / (2 w^2), y_tilde = y - 2 sigma^2 dw/w), and the RTS
smoother. Hyperparameters are fixed (l_t = 0.2, l_s = 1, v = 1, sigma^2 = 0.01) and the data are
the deterministic ones of `benchtop bench rcgp` (engines/rcgp/src/bench.rs, bench_data): the
Figure-1 field plus 0.1 sin(12.9898 k), with every 20th observation shifted by +-7.

Each side reports its fastest of --repeats runs; the script prints one JSON object with both
times, both checksums (sum of the smoothed mean; they agree when both compute the same thing)
and ratio = benchtop / numpy (below 1: Benchtop is faster). BLAS threads are set to --threads.

    python3 -m pip install numpy
    cargo build --release --workspace --bin benchtop
    python3 scripts/bench_rcgp_peer.py [--times 100] [--space 100] [--robust] [--repeats 3]
                                       [--threads 1] [--benchtop target/release/benchtop]
                                       [--skip-benchtop]

--skip-benchtop times NumPy alone (scripts/bench-all.sh runs the Benchtop side itself).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

HYPER = dict(time_length=0.2, space_length=1.0, variance=1.0, noise=0.01)
JITTER = 1e-6


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--times", type=int, default=100)
    p.add_argument("--space", type=int, default=100)
    p.add_argument("--robust", action="store_true")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--benchtop", default="target/release/benchtop")
    p.add_argument("--skip-benchtop", action="store_true", help="time NumPy only")
    return p.parse_args()


def data(np, times, space):
    grid = math.ceil(math.sqrt(space))
    axis = [-1.0 + 2.0 * k / (grid - 1) if grid > 1 else 0.0 for k in range(grid)]
    locs = np.array([[axis[k % grid], axis[k // grid]] for k in range(space)])
    ts = np.array([k / (times - 1) for k in range(times)])
    k = np.arange(times * space)
    t_idx, i_idx = k // space, k % space
    w = 2 * math.pi * ts[t_idx]
    y = np.sin(w) * locs[i_idx, 0] ** 2 + np.cos(w) * locs[i_idx, 1] ** 2 + 0.1 * np.sin(12.9898 * k)
    out = (k % 20) == 7
    y[out] += np.where((k[out] // 20) % 2 == 0, 7.0, -7.0)
    return ts, locs, y.reshape(times, space)


def matern32(np, length, dt):
    lam = math.sqrt(3.0) / length
    e = math.exp(-lam * dt)
    a = e * np.array([[1 + lam * dt, dt], [-lam * lam * dt, 1 - lam * dt]])
    pinf = np.diag([1.0, lam * lam])
    return a, pinf - a @ pinf @ a.T, pinf


def filter_smoother(np, ts, locs, y, robust):
    h = HYPER
    ns, d = locs.shape[0], 2
    n = ns * d
    dist2 = ((locs[:, None, :] - locs[None, :, :]) ** 2).sum(-1)
    ks = h["variance"] * (np.exp(-0.5 * dist2 / h["space_length"] ** 2) + JITTER * np.eye(ns))
    noise = h["noise"]
    idx = np.arange(ns) * d
    _, _, pinf = matern32(np, h["time_length"], 1.0)
    m, p = np.zeros(n), np.kron(ks, pinf)
    steps = []
    for t in range(len(ts)):
        if t > 0:
            a, q, _ = matern32(np, h["time_length"], ts[t] - ts[t - 1])
            m_pred = (m.reshape(ns, d) @ a.T).ravel()
            p4 = p.reshape(ns, d, ns, d)
            p_pred = np.einsum("ab,ibjc,dc->iajd", a, p4, a).reshape(n, n) + np.kron(ks, q)
        else:
            a, m_pred, p_pred = np.eye(d), m, p
        f_hat, s2 = m_pred[idx], p_pred[idx, idx]
        yt = y[t]
        if robust:
            beta = math.sqrt(noise / 2)
            c2 = 2.0 * (s2 + noise)
            base = 1.0 + (yt - f_hat) ** 2 / c2
            w = beta / np.sqrt(base)
            dw = -beta * (yt - f_hat) / c2 / base ** 1.5
            r = noise * noise / (2 * w * w)
            pseudo = yt - 2 * noise * dw / w
        else:
            r, pseudo = np.full(ns, noise), yt
        pht = p_pred[:, idx]
        s = pht[idx] + np.diag(r)
        gain = np.linalg.solve(s, pht.T).T
        m = m_pred + gain @ (pseudo - f_hat)
        p = p_pred - gain @ pht.T
        p = 0.5 * (p + p.T)
        steps.append((a, m_pred, p_pred, m, p))
    mean = np.zeros((len(ts), ns))
    ms, ps = m, p
    mean[-1] = ms[idx]
    for t in range(len(ts) - 2, -1, -1):
        a_next, m_pred_next, p_pred_next = steps[t + 1][0], steps[t + 1][1], steps[t + 1][2]
        m_t, p_t = steps[t][3], steps[t][4]
        ap = np.einsum("ab,ibjc->iajc", a_next, p_t.reshape(ns, d, ns, d)).reshape(n, n)
        g = np.linalg.solve(p_pred_next, ap).T
        ms = m_t + g @ (ms - m_pred_next)
        ps = p_t + g @ (ps - p_pred_next) @ g.T
        ps = 0.5 * (ps + ps.T)
        mean[t] = ms[idx]
    return mean


def main():
    args = parse()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - message for people running the script
        sys.exit("NumPy is not installed: python3 -m pip install numpy")
    ts, locs, y = data(np, args.times, args.space)
    best, mean = float("inf"), None
    for _ in range(max(1, args.repeats)):
        start = time.perf_counter()
        mean = filter_smoother(np, ts, locs, y, args.robust)
        best = min(best, (time.perf_counter() - start) * 1e3)
    checksum = float(mean.sum())
    if args.skip_benchtop:
        print(json.dumps({"times": args.times, "space": args.space, "robust": args.robust,
                          "threads": args.threads, "numpy_ms": best, "numpy_checksum": checksum,
                          "numpy": np.__version__}))
        return
    cmd = [args.benchtop, "bench", "rcgp", "--times", str(args.times), "--space", str(args.space),
           "--repeats", str(args.repeats)] + (["--robust"] if args.robust else [])
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    ours = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout)
    print(json.dumps({
        "times": args.times,
        "space": args.space,
        "robust": args.robust,
        "threads": args.threads,
        "benchtop_ms": ours["ms_total"],
        "numpy_ms": best,
        "ratio": ours["ms_total"] / best,
        "benchtop_checksum": ours["mean_checksum"],
        "numpy_checksum": checksum,
        "checksums_agree": abs(ours["mean_checksum"] - checksum) < 1e-6 * (1 + abs(checksum)),
        "numpy": np.__version__,
        "benchtop": ours.get("app"),
    }))


if __name__ == "__main__":
    main()
