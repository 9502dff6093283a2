#!/usr/bin/env python3
"""Reflection-Bench reversal scorer: Benchtop against a NumPy peer on the same sessions (CPU).

The peer is the probabilistic-reversal scorer as a scientist would vectorise it in NumPy: for
every session, reward part 100 * mean(reward) and belief part 100 * (1 - sum_t |theta_hat_t -
theta*_t| / (p T)), where theta_hat_t = (0.1 + n1) / (0.2 + n) over the last 5 choices (1 = right
arm) and theta*_t the same estimator over the true probabilities (p for the first half, 1 - p
after); the session score is their mean. The windowed sums are cumulative-sum differences over
a (sessions x trials) array. The sessions are the deterministic ones of `benchtop bench
reflection` (engines/reflection/src/bench.rs): a 64-bit LCG x <- 6364136223846793005 x +
1442695040888963407 (mod 2^64) from 12345, one bit (bit 33) for the choice and one for the
reward, trial after trial.

Each side reports its fastest of --repeats runs (generation is not timed); the script prints one
JSON object with both times, both checksums (sum of the session scores; they agree when both
compute the same thing) and ratio = benchtop / numpy (below 1: Benchtop is faster).

    python3 -m pip install numpy
    cargo build --release --workspace --bin benchtop
    python3 scripts/bench_reflection_peer.py [--sessions 20000] [--trials 40] [--repeats 3]
                                             [--benchtop target/release/benchtop]
                                             [--skip-benchtop]

--skip-benchtop times NumPy alone (scripts/bench-all.sh runs the Benchtop side itself).
"""

import argparse
import json
import subprocess
import sys
import time

MASK = (1 << 64) - 1
P = 0.8
WINDOW = 5


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sessions", type=int, default=20000)
    p.add_argument("--trials", type=int, default=40)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--benchtop", default="target/release/benchtop")
    p.add_argument("--skip-benchtop", action="store_true", help="time NumPy only")
    return p.parse_args()


def data(np, sessions, trials):
    """Choice and reward bits, (sessions, trials) each, from the shared LCG."""
    x = 12345
    bits = np.empty(2 * sessions * trials, dtype=np.float64)
    for i in range(bits.size):
        x = (x * 6364136223846793005 + 1442695040888963407) & MASK
        bits[i] = (x >> 33) & 1
    bits = bits.reshape(sessions, trials, 2)
    return bits[:, :, 0], bits[:, :, 1]


def windowed(np, values):
    """(0.1 + sum of the last WINDOW values) / (0.2 + their count), along the last axis."""
    c = np.cumsum(values, axis=-1)
    shifted = np.zeros_like(c)
    shifted[..., WINDOW:] = c[..., :-WINDOW]
    n = np.minimum(np.arange(1, values.shape[-1] + 1), WINDOW)
    return (0.1 + c - shifted) / (0.2 + n)


def score(np, choices, rewards):
    t = choices.shape[1]
    truth = np.where(np.arange(t) < t // 2, P, 1 - P)
    est = windowed(np, choices)
    ref = windowed(np, truth[None, :])
    belief = 100 * (1 - np.abs(est - ref).sum(axis=1) / (P * t))
    reward = 100 * rewards.mean(axis=1)
    return 0.5 * (belief + reward)


def main():
    args = parse()
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - message for people running the script
        sys.exit("NumPy is not installed: python3 -m pip install numpy")
    choices, rewards = data(np, args.sessions, args.trials)
    best, total = float("inf"), None
    for _ in range(max(1, args.repeats)):
        start = time.perf_counter()
        total = float(score(np, choices, rewards).sum())
        best = min(best, (time.perf_counter() - start) * 1e3)
    if args.skip_benchtop:
        print(json.dumps({"sessions": args.sessions, "trials": args.trials, "numpy_ms": best,
                          "numpy_checksum": total, "numpy": np.__version__}))
        return
    cmd = [args.benchtop, "bench", "reflection", "--sessions", str(args.sessions),
           "--trials", str(args.trials), "--repeats", str(args.repeats)]
    ours = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    print(json.dumps({
        "sessions": args.sessions,
        "trials": args.trials,
        "benchtop_ms": ours["ms_score"],
        "numpy_ms": best,
        "ratio": ours["ms_score"] / best,
        "benchtop_checksum": ours["score_checksum"],
        "numpy_checksum": total,
        "checksums_agree": abs(ours["score_checksum"] - total) < 1e-6 * (1 + abs(total)),
        "benchtop_table_ms": ours["ms_table"],
        "table_sessions": ours["table_sessions"],
        "numpy": np.__version__,
        "benchtop": ours.get("app"),
    }))


if __name__ == "__main__":
    main()
