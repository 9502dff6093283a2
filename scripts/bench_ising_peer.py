#!/usr/bin/env python3
"""Ising checkerboard Metropolis: Benchtop against a numba peer on the same work.

The peer is the code a scientist would write with numba: an int8 lattice, checkerboard
updates, exp() looked up in a table, neighbour indices precomputed, numpy's random numbers,
rows split across threads with prange. Both run the same lattice size, coupling and number of sweeps from a cold start; the
script prints each side's flips per nanosecond, their observables (so a fast wrong answer is
visible) and the ratio benchtop / peer. If `mcising` (PyPI; Rust through PyO3, one thread) is
installed it is timed too.

Usage: scripts/bench_ising_peer.py [--size 1024] [--beta 0.4406868] [--sweeps 500]
                                   [--threads 2] [--benchtop target/release/benchtop]
                                   [--skip-benchtop]

--skip-benchtop times the peers alone (scripts/bench-all.sh runs the Benchtop side itself).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np


def numba_peer(size, beta, sweeps, warmup, threads, seed):
    import numba
    from numba import njit, prange

    numba.set_num_threads(threads)

    @njit(parallel=True, cache=True)
    def half_sweep(spins, colour, accept, left, right):
        n = spins.shape[0]
        for y in prange(n):
            start = (y + colour) % 2
            up = left[y]
            down = right[y]
            row = spins[y]
            for x in range(start, n, 2):
                s = row[x]
                field = spins[up, x] + spins[down, x] + row[left[x]] + row[right[x]]
                # s * field is in {-4, -2, 0, 2, 4}; accept[index] = min(1, exp(-2 beta s field)).
                if np.random.random() < accept[(s * field + 4) // 2]:
                    row[x] = -s

    @njit(cache=True)
    def seed_numba(value):
        np.random.seed(value)

    @njit(parallel=True, cache=True)
    def observables(spins):
        n = spins.shape[0]
        bond = 0.0
        total = 0.0
        for y in prange(n):
            row_bond = 0.0
            row_total = 0.0
            for x in range(n):
                s = spins[y, x]
                row_bond += s * (spins[y, (x + 1) % n] + spins[(y + 1) % n, x])
                row_total += s
            bond += row_bond
            total += row_total
        return bond / (n * n), abs(total) / (n * n)

    accept = np.array([min(1.0, math.exp(-2.0 * beta * e)) for e in (-4, -2, 0, 2, 4)])
    spins = np.ones((size, size), dtype=np.int8)
    index = np.arange(size)
    left, right = (index - 1) % size, (index + 1) % size
    seed_numba(seed)
    half_sweep(spins, 0, accept, left, right)  # compile outside the timing
    for _ in range(warmup):
        half_sweep(spins, 0, accept, left, right)
        half_sweep(spins, 1, accept, left, right)
    bonds, mags = [], []
    measure_every = max(1, sweeps // 200)
    elapsed = 0.0
    for sweep in range(sweeps):
        started = time.perf_counter()
        half_sweep(spins, 0, accept, left, right)
        half_sweep(spins, 1, accept, left, right)
        elapsed += time.perf_counter() - started
        if (sweep + 1) % measure_every == 0:
            b, m = observables(spins)
            bonds.append(b)
            mags.append(m)
    return {
        "flips_per_ns": size * size * sweeps / elapsed / 1e9,
        "bond_energy_per_site": float(np.mean(bonds)),
        "abs_magnetization": float(np.mean(mags)),
        "threads": threads,
    }


def mcising_peer(size, beta, sweeps, warmup, seed):
    """mcising (Rust through PyO3, single-threaded Metropolis), if it is installed."""
    try:
        import mcising
    except ImportError:
        return None
    simulation = mcising.IsingSimulation(size, 1.0, 0.0, 0.0, 0.0, seed)
    simulation.set_spins(np.ones((size, size), dtype=np.int8))
    temperature = 1.0 / beta
    simulation.sweep(warmup, temperature=temperature)
    measure_every = max(1, sweeps // 200)
    energies, mags = [], []
    elapsed = 0.0
    for _ in range(sweeps // measure_every):
        started = time.perf_counter()
        simulation.sweep(measure_every, temperature=temperature)
        elapsed += time.perf_counter() - started
        energies.append(simulation.energy())
        mags.append(abs(simulation.magnetization()))
    done = (sweeps // measure_every) * measure_every
    return {
        "version": mcising.__version__,
        "flips_per_ns": size * size * done / elapsed / 1e9,
        # mcising reports the energy per site, -sum(s_i s_j)/N; our bond energy is its negative.
        "bond_energy_per_site": -float(np.mean(energies)),
        "abs_magnetization": float(np.mean(mags)),
        "threads": 1,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--beta", type=float, default=0.5 * math.log(1 + math.sqrt(2)))
    parser.add_argument("--sweeps", type=int, default=500)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--benchtop", default="target/release/benchtop")
    parser.add_argument("--skip-benchtop", action="store_true", help="time the peers only")
    args = parser.parse_args()
    warmup = args.sweeps // 4

    command = [
        args.benchtop, "bench", "ising", "--size", str(args.size), "--beta", str(args.beta),
        "--sweeps", str(args.sweeps), "--warmup", str(warmup), "--seed", str(args.seed),
        "--backend", "cpu", "--threads", str(args.threads),
    ]
    ours = None
    if not args.skip_benchtop:
        ours = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    peer = numba_peer(args.size, args.beta, args.sweeps, warmup, args.threads, args.seed)
    report = {
        "size": args.size,
        "beta": args.beta,
        "sweeps": args.sweeps,
        "threads": args.threads,
        "numba": peer,
    }
    if ours is not None:
        report["benchtop"] = {k: ours[k] for k in ("flips_per_ns", "bond_energy_per_site", "bond_energy_per_site_err", "abs_magnetization", "abs_magnetization_err", "adapter")}
        report["ratio_benchtop_over_numba"] = ours["flips_per_ns"] / peer["flips_per_ns"]
    other = mcising_peer(args.size, args.beta, args.sweeps, warmup, args.seed)
    if other is not None:
        report["mcising"] = other
        if ours is not None:
            report["ratio_benchtop_over_mcising"] = ours["flips_per_ns"] / other["flips_per_ns"]
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
