#!/usr/bin/env python3
"""StealthInk detection: Benchtop against a NumPy peer on the same generated texts.

`benchtop bench watermark --texts N --tokens T --dump problem.json` generates N StealthInk texts
of T tokens with the bundled KJV trigram model (vocabulary 1024, 24-bit message, c = 1, H = 3),
times generation and detection, and writes the scheme, the token ids, its colour counts and its
exact p-values. The peer replays detection in NumPy exactly as the engine defines it:

    seed     = splitmix64(key * (1 + sum of the last H ids))         (wrapping u64)
    position = splitmix64(seed ^ 0xa5a55a5ac3c33c3c) mod L
    key(v)   = splitmix64(seed + (v + 1) * 0x9e3779b97f4a7c15)
    rank(v)  = #{u : key(u) < key(v)}                                 (one vectorised pass over V)
    colour   = (rank * 2^c // V + splitmix64(seed ^ 0x3c6ef372fe94f82b) mod 2^c) mod 2^c
    repeated seeds are skipped; counts[position][colour] += 1

then the statistic sum_b min_k counts[b][k], its exact null law (a convolution of per-position
minimum-count laws, multinomial with 2^c equal cells) and p = P(S <= s). It checks that every
count and p-value agrees with Benchtop's, and prints one JSON object with both sides'
detections_per_s and the ratio (above 1: Benchtop is faster).

    python3 -m pip install numpy
    cargo build --release --workspace --bin benchtop
    python3 scripts/bench_watermark_peer.py [--texts 100] [--tokens 200]
                                            [--benchtop target/release/benchtop]
                                            [--problem FILE]

--problem FILE reads what `benchtop bench watermark --dump FILE` wrote and times the peer alone
(the JSON then has no Benchtop rates; scripts/bench-all.sh runs the Benchtop side itself).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:  # pragma: no cover - message for people running the script
    sys.exit("NumPy is not installed: python3 -m pip install numpy")

M64 = (1 << 64) - 1


def splitmix64_scalar(x):
    z = (x + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def splitmix64_array(x):
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def count(text, scheme, token_steps):
    key, h, vocab = scheme["key"], scheme["context"], scheme["vocab"]
    positions = len(scheme["symbols"])
    colours = 1 << scheme["bits_per_symbol"]
    counts = np.zeros((positions, colours), dtype=np.int64)
    seen = set()
    for i in range(h, len(text)):
        seed = splitmix64_scalar((key * (1 + sum(text[i - h : i]))) & M64)
        if seed in seen:
            continue
        seen.add(seed)
        b = splitmix64_scalar(seed ^ 0xA5A55A5AC3C33C3C) % positions
        with np.errstate(over="ignore"):
            keys = splitmix64_array(np.uint64(seed) + token_steps)
        v = text[i]
        kv = keys[v]
        rank = int(np.count_nonzero(keys < kv)) + int(np.count_nonzero(keys[:v] == kv))
        shift = splitmix64_scalar(seed ^ 0x3C6EF372FE94F82B) % colours
        counts[b, (rank * colours // vocab + shift) % colours] += 1
    return counts


def min_count_pmf(total, cells, cache):
    if (total, cells) in cache:
        return cache[(total, cells)]
    lf = [math.lgamma(k + 1) for k in range(total + 1)]

    def binom(n, k, p):
        if p >= 1.0:
            return 1.0 if k == n else 0.0
        return math.exp(lf[n] - lf[k] - lf[n - k] + k * math.log(p) + (n - k) * math.log1p(-p))

    at_least = []
    for m in range(total // cells + 2):
        rem = np.zeros(total + 1)
        rem[total] = 1.0
        for j in range(cells - 1):
            p = 1.0 / (cells - j)
            nxt = np.zeros(total + 1)
            for r in np.nonzero(rem)[0]:
                for k in range(m, r + 1):
                    nxt[r - k] += rem[r] * binom(r, k, p)
            rem = nxt
        at_least.append(rem[m:].sum())
    pmf = np.maximum(np.array(at_least[:-1]) - np.array(at_least[1:]), 0.0)
    cache[(total, cells)] = pmf
    return pmf


def p_exact(counts, cache):
    law = np.array([1.0])
    for row in counts:
        t = int(row.sum())
        if t > 0:
            law = np.convolve(law, min_count_pmf(t, len(row), cache))
    s = int(counts.min(axis=1).sum())
    return min(float(law[: s + 1].sum()), 1.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--texts", type=int, default=100)
    ap.add_argument("--tokens", type=int, default=200)
    ap.add_argument("--benchtop", default="target/release/benchtop")
    ap.add_argument("--problem", help="a dumped problem: time the peer alone on it")
    args = ap.parse_args()
    ours = None
    if args.problem:
        with open(args.problem) as f:
            problem = json.load(f)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            dump = os.path.join(tmp, "problem.json")
            out = subprocess.run(
                [args.benchtop, "bench", "watermark", "--texts", str(args.texts),
                 "--tokens", str(args.tokens), "--dump", dump],
                check=True, capture_output=True, text=True,
            ).stdout
            ours = json.loads(out.strip().splitlines()[-1])
            with open(dump) as f:
                problem = json.load(f)
    scheme = problem["scheme"]
    token_steps = np.arange(1, scheme["vocab"] + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    cache = {}
    start = time.perf_counter()
    results = []
    for text in problem["texts"]:
        c = count(text, scheme, token_steps)
        results.append((c, p_exact(c, cache)))
    seconds = time.perf_counter() - start
    mismatched = sum(
        1 for (c, p), c0, p0 in zip(results, problem["counts"], problem["p_exact"])
        if c.tolist() != c0 or abs(p - p0) > 1e-9 * max(1.0, abs(p0))
    )
    peer_rate = len(results) / seconds
    report = {
        "texts": len(problem["texts"]),
        "tokens": args.tokens,
        "vocab": scheme["vocab"],
        "numpy_detections_per_s": peer_rate,
        "texts_disagreeing": mismatched,
        "numpy": np.__version__,
    }
    if ours is not None:
        report["benchtop_tokens_per_s"] = ours["tokens_per_s"]
        report["benchtop_detections_per_s"] = ours["detections_per_s"]
        report["ratio_detection"] = ours["detections_per_s"] / peer_rate
    print(json.dumps(report))
    if mismatched:
        sys.exit(f"{mismatched} texts disagree between Benchtop and the peer")


if __name__ == "__main__":
    main()
