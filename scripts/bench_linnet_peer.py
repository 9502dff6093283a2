#!/usr/bin/env python3
"""Function vs representation training loop: Benchtop against a NumPy peer of the same loop.

Both sides train two-layer linear networks Y = W2 W1 X by full-batch gradient descent on
||Y - W2 W1 X||^2 / (2P) on a binary item tree (2^depth items, 2^(depth+1) - 1 features,
inputs X = I + Z Z^T / P), hidden width H, S seeds under each of three regimes:
  - no noise,
  - input noise (fresh N(0, 0.05^2) noise on every entry of X each step),
  - parameter noise (fresh N(0, 0.05^2) noise on every weight; the gradient is taken at the
    perturbed weights and applied to the clean ones),
with W1 ~ N(0, 1/n_in), W2 ~ N(0, 1/H), learning rate 0.2 annealed to 0 by a cosine over the
last 25 % of the N steps, and the noise-free loss recorded about 100 times per run, as in
engines/linnet/src/train.rs. The random numbers differ (ChaCha8 there, NumPy's PCG64 here), so
the losses agree in size, not in value.

Each side is timed over all 3 x S runs (the fastest of --repeats); the script prints one JSON
object with each side's ms_total and the ratio benchtop / numpy (below 1: Benchtop is faster).
The Benchtop side is `benchtop bench linnet --seeds S --steps N --width H --depth D`.

    python3 -m pip install --user numpy
    cargo build --workspace --release --bin benchtop
    python3 scripts/bench_linnet_peer.py [--seeds 8] [--steps 6000] [--width 16] [--depth 3]
                                         [--repeats 3] [--threads 1]
                                         [--benchtop target/release/benchtop] [--skip-benchtop]
"""

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time

try:
    import numpy as np
except ImportError:  # pragma: no cover - message for people running the script
    sys.exit("NumPy is not installed: python3 -m pip install --user numpy")

LEARNING_RATE = 0.2
INPUT_NOISE = 0.05
PARAMETER_NOISE = 0.05
ANNEAL_FRACTION = 0.25
REGIMES = ("no_noise", "input_noise", "parameter_noise")


def tree_data(depth, rng):
    """The binary item tree: one target feature per node, inputs I + Z Z^T / P."""
    items = 2**depth
    rows = []
    for level in range(depth + 1):
        block = 2 ** (depth - level)
        for node in range(2**level):
            rows.append([1.0 if i // block == node else 0.0 for i in range(items)])
    y = np.array(rows)
    z = rng.standard_normal((items, items))
    x = np.eye(items) + z @ z.T / items
    return x, y


def loss(w1, w2, x, y):
    r = w2 @ (w1 @ x) - y
    return float(np.sum(r * r) / (2 * x.shape[1]))


def train(x, y, hidden, steps, regime, rng):
    n_in, p = x.shape
    n_out = y.shape[0]
    w1 = rng.standard_normal((hidden, n_in)) / math.sqrt(n_in)
    w2 = rng.standard_normal((n_out, hidden)) / math.sqrt(hidden)
    anneal_steps = int(ANNEAL_FRACTION * steps)
    anneal_from = steps - anneal_steps
    record_every = max(steps // 100, 1)
    history = []
    for step in range(steps):
        if step < anneal_from:
            lr = LEARNING_RATE
        else:
            lr = LEARNING_RATE * 0.5 * (1.0 + math.cos(math.pi * (step - anneal_from) / anneal_steps))
        if step % record_every == 0:
            history.append(loss(w1, w2, x, y))
        if regime == "parameter_noise":
            u1 = w1 + PARAMETER_NOISE * rng.standard_normal(w1.shape)
            u2 = w2 + PARAMETER_NOISE * rng.standard_normal(w2.shape)
        else:
            u1, u2 = w1, w2
        xs = x + INPUT_NOISE * rng.standard_normal(x.shape) if regime == "input_noise" else x
        h = u1 @ xs
        r = u2 @ h - y
        g2 = r @ h.T / p
        g1 = (u2.T @ r) @ xs.T / p
        w1 = w1 - lr * g1
        w2 = w2 - lr * g2
    history.append(loss(w1, w2, x, y))
    return w1, w2, history


def peer(args):
    rng = np.random.default_rng(1)
    x, y = tree_data(args.depth, rng)
    best = math.inf
    losses = {}
    for _ in range(args.repeats):
        start = time.perf_counter()
        for regime in REGIMES:
            finals = []
            for seed in range(args.seeds):
                run_rng = np.random.default_rng(1000 + seed)
                _, _, history = train(x, y, args.width, args.steps, regime, run_rng)
                finals.append(history[-1])
            losses[regime] = sum(finals) / len(finals)
        best = min(best, (time.perf_counter() - start) * 1e3)
    return {"ms_total": best, "final_loss_mean": losses, "numpy": np.__version__}


def benchtop(args):
    command = [
        args.benchtop, "bench", "linnet",
        "--seeds", str(args.seeds), "--steps", str(args.steps),
        "--width", str(args.width), "--depth", str(args.depth),
        "--repeats", str(args.repeats),
    ]
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    run = subprocess.run(command, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        sys.exit(f"`{' '.join(command)}` failed:\n{run.stderr}")
    try:
        ours = json.loads(run.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        sys.exit(f"`{' '.join(command)}` did not print a JSON object:\n{run.stdout}")
    if "ms_total" not in ours:
        sys.exit(f"`{' '.join(command)}` printed no ms_total: {ours}")
    return ours


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--steps", type=int, default=6000)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="RAYON_NUM_THREADS and BLAS threads")
    parser.add_argument("--benchtop", default="target/release/benchtop")
    parser.add_argument("--skip-benchtop", action="store_true")
    args = parser.parse_args()
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, str(args.threads))
    report = {
        "work": {"seeds": args.seeds, "steps": args.steps, "width": args.width,
                 "depth": args.depth, "regimes": len(REGIMES)},
        "machine": platform.processor() or platform.machine(),
        "numpy": peer(args),
    }
    if not args.skip_benchtop:
        ours = benchtop(args)
        report["benchtop"] = {
            "ms_total": ours["ms_total"],
            "us_per_step": ours["us_per_step"],
            "final_loss_mean": {r["regime"]: r["final_loss_mean"] for r in ours["regimes"]},
            "app": ours.get("app"),
        }
        report["ratio_benchtop_over_numpy"] = ours["ms_total"] / report["numpy"]["ms_total"]
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
