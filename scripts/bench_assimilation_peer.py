#!/usr/bin/env python3
"""Classic 4D-Var on Lorenz-96: Benchtop against a NumPy/SciPy peer on the same windows (CPU).

`benchtop bench assimilation --dump FILE` writes the problem it runs (model settings, observed
indices, B^-1, the assumed observation sigma, the initial background, the noisy observations
5 arctan(0.1 x) + noise and the truth at every observation time). The peer is what a scientist
would write with NumPy and SciPy: Lorenz-96 with np.roll, RK4 and its discrete adjoint,
J(x0) = 1/2 (x0 - xb)^T B^-1 (x0 - xb) + 1/2 sum_t |h(x_t) - y_t|^2 / sigma^2 minimised by
scipy.optimize.minimize(method="L-BFGS-B", jac=True, maxiter as Benchtop), cycled over the
same windows exactly as Benchtop cycles (background = model forecast of the previous window's
last analysis). Stopping rules differ slightly (SciPy: gtol 1e-6 on the projected gradient),
so both RMSEs are printed.

The script prints one JSON object: Benchtop's report (every method's ms_per_window and RMSE),
the peer's 4D-Var ms_per_window and RMSE, ratio_4dvar = benchtop 4D-Var / numpy 4D-Var (below 1:
Benchtop is faster) and ratio_tensor_var = benchtop Tensor-Var / numpy 4D-Var.

    python3 -m pip install numpy scipy
    cargo build --release --workspace --bin benchtop
    python3 scripts/bench_assimilation_peer.py [--dim 40] [--windows 40] [--window 5]
        [--obs-fraction 0.2] [--train 3000] [--seed 1] [--repeats 1] [--threads 1]
        [--benchtop target/release/benchtop] [--problem FILE]

--problem FILE reads a problem that `benchtop bench assimilation --dump FILE` wrote and times the
peer alone (the JSON then has no Benchtop side or ratios; scripts/bench-all.sh runs Benchtop).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dim", type=int, default=40)
    p.add_argument("--windows", type=int, default=40)
    p.add_argument("--window", type=int, default=5)
    p.add_argument("--obs-fraction", type=float, default=0.2)
    p.add_argument("--train", type=int, default=3000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--benchtop", default="target/release/benchtop")
    p.add_argument("--problem", help="a dumped problem: time the peer alone on it")
    return p.parse_args()


def make_model(np, forcing, dt):
    def rhs(x):
        return (np.roll(x, -1) - np.roll(x, 2)) * np.roll(x, 1) - x + forcing

    def vjp(x, w):
        a = w * np.roll(x, 1)
        return np.roll(a, 1) - np.roll(a, -2) + np.roll(w * (np.roll(x, -1) - np.roll(x, 2)), -1) - w

    def stages(x):
        k1 = rhs(x)
        p2 = x + 0.5 * dt * k1
        k2 = rhs(p2)
        p3 = x + 0.5 * dt * k2
        k3 = rhs(p3)
        p4 = x + dt * k3
        k4 = rhs(p4)
        return (x, p2, p3, p4), (k1, k2, k3, k4)

    def step(x):
        _, (k1, k2, k3, k4) = stages(x)
        return x + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)

    def step_adjoint(x, lam):
        points, _ = stages(x)
        out = lam.copy()
        ak = [dt / 6.0 * lam, dt / 3.0 * lam, dt / 3.0 * lam, dt / 6.0 * lam]
        factors = [0.5 * dt, 0.5 * dt, dt]
        for s in (3, 2, 1, 0):
            b = vjp(points[s], ak[s])
            out += b
            if s > 0:
                ak[s - 1] = ak[s - 1] + factors[s - 1] * b
        return out

    return step, step_adjoint


def run_peer(np, minimize, prob):
    step, step_adjoint = make_model(np, prob["forcing"], prob["dt"])
    steps = prob["steps_per_obs"]
    idx = np.array(prob["observed"], dtype=int)
    b_inv = np.array(prob["b_inv"])
    inv_s2 = 1.0 / prob["obs_sigma"] ** 2
    obs = np.array(prob["obs"])
    t_len, windows = prob["window"], prob["windows"]

    def cost(x0, xb, ys):
        states = [x0]
        x = x0
        for _ in range(1, len(ys)):
            for _ in range(steps):
                x = step(x)
                states.append(x)
        dx = x0 - xb
        bdx = b_inv @ dx
        j = 0.5 * dx @ bdx
        adj = np.zeros_like(x0)
        for t in range(len(ys) - 1, -1, -1):
            k = t * steps
            xs = states[k][idx]
            r = 5.0 * np.arctan(0.1 * xs) - ys[t]
            j += 0.5 * inv_s2 * r @ r
            adj[idx] += inv_s2 * r * 0.5 / (1.0 + 0.01 * xs * xs)
            if t > 0:
                for s in range(k - 1, k - steps - 1, -1):
                    adj = step_adjoint(states[s], adj)
        return j, bdx + adj

    def forecast(x):
        for _ in range(steps):
            x = step(x)
        return x

    xb = np.array(prob["background"])
    estimates = []
    start = time.perf_counter()
    for w in range(windows):
        ys = obs[w * t_len:(w + 1) * t_len]
        res = minimize(cost, xb, args=(xb, ys), jac=True, method="L-BFGS-B",
                       options={"maxiter": prob["max_iterations"], "gtol": 1e-6, "ftol": 1e-12})
        x = res.x
        for t in range(t_len):
            if t > 0:
                x = forecast(x)
            estimates.append(x)
        xb = forecast(x)
    ms = (time.perf_counter() - start) * 1e3 / windows
    truth = np.array(prob["truth"])
    rng = truth.max() - truth.min()
    nrmse = np.sqrt(((np.array(estimates) - truth) ** 2).mean(axis=1)) / rng
    return ms, float(nrmse.mean()), float(nrmse[-t_len:].mean())


def main():
    args = parse()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    import numpy as np
    from scipy.optimize import minimize

    ours = None
    if args.problem:
        with open(args.problem) as f:
            prob = json.load(f)
    else:
        ours, prob = benchtop_side(args)
    best = None
    for _ in range(max(1, args.repeats)):
        ms, rmse_mean, rmse_final = run_peer(np, minimize, prob)
        if best is None or ms < best[0]:
            best = (ms, rmse_mean, rmse_final)
    ms, rmse_mean, rmse_final = best
    peer = {"ms_per_window": ms, "rmse_mean": rmse_mean, "rmse_final": rmse_final}
    if ours is None:
        json.dump({"numpy_4dvar": peer, "threads": args.threads, "numpy": np.__version__}, sys.stdout)
        sys.stdout.write("\n")
        return
    fourd = ours["methods"]["4D-Var"]["ms_per_window"]
    tv = ours["methods"]["Tensor-Var"]["ms_per_window"]
    json.dump({
        "benchtop": ours,
        "numpy_4dvar": peer,
        "ratio_4dvar": fourd / ms,
        "ratio_tensor_var": tv / ms,
        "threads": args.threads,
        "numpy": np.__version__,
    }, sys.stdout)
    sys.stdout.write("\n")


def benchtop_side(args):
    """Runs `benchtop bench assimilation --dump`: its report and the problem it ran."""
    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "problem.json")
        cmd = [args.benchtop, "bench", "assimilation", "--system", "l96", "--dim", str(args.dim),
               "--windows", str(args.windows), "--window", str(args.window),
               "--obs-fraction", str(args.obs_fraction), "--train", str(args.train),
               "--seed", str(args.seed), "--repeats", str(args.repeats), "--dump", dump]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        ours = json.loads(out.strip().splitlines()[-1])
        with open(dump) as f:
            return ours, json.load(f)


if __name__ == "__main__":
    main()
