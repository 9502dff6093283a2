#!/usr/bin/env python3
"""Spin-chain ground states and classical shadows: Benchtop against a NumPy/SciPy peer.

Both sides build the same chain of L spins-1/2 (qubit i is bit i of a basis index, bit 0 is
Z = +1), with couplings J_b = 1 + 0.5 sin(1.3 b + 0.7) on the bonds (i, i+1) (and (L-1, 0) when
periodic) and, for the TFIM, fields h_i = 0.8 + 0.3 cos(0.9 i):
  - heisenberg: H = sum_b J_b S_i.S_j with S = sigma/2,
  - tfim:       H = -sum_b J_b Z_i Z_j - sum_i h_i X_i,
as engines/quantum/src/bench.rs does. The peer builds H as a scipy.sparse CSR matrix on all 2^L
amplitudes and calls scipy.sparse.linalg.eigsh(k=1, which="SA"); Benchtop runs its matrix-free
Lanczos with full reorthogonalisation (`benchtop bench quantum`). Each side is timed building
its operator and finding the ground state; the energies must agree to 1e-8. The peer also
draws classical-shadow snapshots (a random Pauli basis per qubit, the state rotated by H or
H S^dagger along that qubit's axis, one bitstring drawn from |psi|^2) for the snapshot rate,
--batch snapshots at a time so that NumPy, not the Python loop, does the work.

The two run interleaved, --rounds times; the script prints one JSON object with each round's
times, the medians and the median ratios benchtop / peer (below 1: Benchtop is faster).

    python3 -m venv /tmp/qenv && /tmp/qenv/bin/pip install numpy scipy
    cargo build --workspace --release
    /tmp/qenv/bin/python scripts/bench_quantum_peer.py --sites 12 [--model heisenberg|tfim]
        [--boundary open|periodic] [--rounds 5] [--snapshots 2000]
        [--benchtop target/release/benchtop] [--threads 1] [--batch 16]
"""

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time


def chain(sites, model, boundary):
    """Bonds, couplings and fields of the benchmark chain."""
    bonds = [(i, i + 1) for i in range(sites - 1)]
    if boundary == "periodic" and sites > 2:
        bonds.append((sites - 1, 0))
    couplings = [1.0 + 0.5 * math.sin(1.3 * b + 0.7) for b in range(len(bonds))]
    fields = [0.8 + 0.3 * math.cos(0.9 * i) for i in range(sites)] if model == "tfim" else []
    return bonds, couplings, fields


def hamiltonian(np, sparse, sites, model, boundary):
    """H as a CSR matrix on the 2^L basis."""
    bonds, couplings, fields = chain(sites, model, boundary)
    dim = 1 << sites
    s = np.arange(dim, dtype=np.int64)
    z = [1.0 - 2.0 * ((s >> i) & 1) for i in range(sites)]
    diagonal = np.zeros(dim)
    rows, cols, values = [s], [s], []
    if model == "heisenberg":
        for (i, j), jb in zip(bonds, couplings):
            diagonal += 0.25 * jb * z[i] * z[j]
            differ = ((s >> i) ^ (s >> j)) & 1 == 1
            source = s[differ]
            rows.append(source ^ ((1 << i) | (1 << j)))
            cols.append(source)
            values.append(np.full(source.size, 0.5 * jb))
    else:
        for (i, j), jb in zip(bonds, couplings):
            diagonal -= jb * z[i] * z[j]
        for i, h in enumerate(fields):
            rows.append(s ^ (1 << i))
            cols.append(s)
            values.append(np.full(dim, -h))
    values.insert(0, diagonal)
    return sparse.csr_matrix(
        (np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))), shape=(dim, dim)
    )


def peer_ground_state(np, sparse, eigsh, sites, model, boundary):
    """Builds H and finds its ground state; returns (ms build + eigsh, ms eigsh, E0, psi)."""
    start = time.perf_counter()
    h = hamiltonian(np, sparse, sites, model, boundary)
    built = time.perf_counter()
    rng = np.random.default_rng(1)
    values, vectors = eigsh(h, k=1, which="SA", v0=rng.standard_normal(h.shape[0]), tol=1e-12)
    end = time.perf_counter()
    return (end - start) * 1e3, (end - built) * 1e3, float(values[0]), vectors[:, 0]


def peer_snapshots(np, psi, sites, count, batch):
    """Draws `count` random-Pauli snapshots, `batch` at a time (each snapshot's state rotated
    qubit by qubit with one batched matmul, the bitstrings drawn by one vectorised search);
    returns (snapshots per second, C01 estimate)."""
    rng = np.random.default_rng(7)
    r = 1.0 / math.sqrt(2.0)
    rotations = np.array([
        [[r, r], [r, -r]],  # X: H
        [[r, -1j * r], [r, 1j * r]],  # Y: H S^dagger
        [[1, 0], [0, 1]],  # Z
    ], dtype=complex)
    dim = psi.size
    estimates = []
    start = time.perf_counter()
    done = 0
    while done < count:
        b = min(batch, count - done)
        bases = rng.integers(0, 3, size=(b, sites))
        # Axis 1 + k of the (b,) + (2,)*L tensor is qubit L-1-k (C order, bit i = qubit i).
        state = np.broadcast_to(psi.astype(complex), (b, dim)).reshape((b,) + (2,) * sites)
        for qubit in range(sites):
            axis = 1 + sites - 1 - qubit
            moved = np.moveaxis(state, axis, -1)
            shape = moved.shape
            rotated = moved.reshape(b, -1, 2) @ rotations[bases[:, qubit]].transpose(0, 2, 1)
            state = np.moveaxis(rotated.reshape(shape), -1, axis)
        probabilities = np.abs(state.reshape(b, dim)) ** 2
        cumulative = np.cumsum(probabilities, axis=1)
        u = rng.random(b) * cumulative[:, -1]
        index = np.minimum((cumulative <= u[:, None]).sum(axis=1), dim - 1)
        s0 = 1.0 - 2.0 * (index & 1)
        s1 = 1.0 - 2.0 * ((index >> 1) & 1)
        estimates.append(np.where(bases[:, 0] == bases[:, 1], 3.0 * s0 * s1, 0.0))
        done += b
    seconds = time.perf_counter() - start
    return count / seconds, float(np.mean(np.concatenate(estimates)))


def benchtop_run(binary, sites, model, boundary, snapshots):
    """One `benchtop bench quantum` run (one timed ground state)."""
    out = subprocess.run(
        [binary, "bench", "quantum", "--sites", str(sites), "--model", model, "--boundary", boundary,
         "--repeats", "1", "--snapshots", str(snapshots)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", type=int, default=12)
    parser.add_argument("--model", choices=["heisenberg", "tfim"], default="heisenberg")
    parser.add_argument("--boundary", choices=["open", "periodic"], default="open")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--snapshots", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=16, help="snapshots the peer draws at once")
    parser.add_argument("--benchtop", default="target/release/benchtop")
    parser.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads of the peer")
    parser.add_argument("--skip-benchtop", action="store_true")
    args = parser.parse_args()
    if not 2 <= args.sites <= 14:
        sys.exit("--sites: choose 2 to 14")
    if not 1 <= args.rounds <= 100:
        sys.exit("--rounds: choose 1 to 100")
    if not 1 <= args.batch <= 4096:
        sys.exit("--batch: choose 1 to 4096")
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(args.threads)
    try:
        import numpy as np
        import scipy
        from scipy import sparse
        from scipy.sparse.linalg import eigsh
    except ImportError:
        sys.exit("NumPy and SciPy are needed: python3 -m venv /tmp/qenv && /tmp/qenv/bin/pip install numpy scipy")

    rounds = []
    for _ in range(args.rounds):
        entry = {}
        if not args.skip_benchtop:
            report = benchtop_run(args.benchtop, args.sites, args.model, args.boundary, args.snapshots)
            entry["benchtop"] = {
                "ms_ground_state": report["ms_ground_state"],
                "energy": report["energy"],
                "snapshots_per_second": report["snapshots_per_second"],
                "shadow_c01": report["shadow_c01"],
                "exact_c01": report["exact_c01"],
            }
        total_ms, eigsh_ms, energy, psi = peer_ground_state(
            np, sparse, eigsh, args.sites, args.model, args.boundary)
        rate, c01 = peer_snapshots(np, psi, args.sites, args.snapshots, args.batch)
        entry["peer"] = {
            "ms_build_and_eigsh": total_ms,
            "ms_eigsh": eigsh_ms,
            "energy": energy,
            "snapshots_per_second": rate,
            "shadow_c01": c01,
        }
        rounds.append(entry)

    def median(side, key):
        return statistics.median(r[side][key] for r in rounds)

    result = {
        "sites": args.sites,
        "model": args.model,
        "boundary": args.boundary,
        "rounds": args.rounds,
        "peer": {
            "numpy": np.__version__,
            "scipy": scipy.__version__,
            "python": platform.python_version(),
            "threads": args.threads,
            "median_ms_build_and_eigsh": median("peer", "ms_build_and_eigsh"),
            "median_ms_eigsh": median("peer", "ms_eigsh"),
            "median_snapshots_per_second": median("peer", "snapshots_per_second"),
            "energy": rounds[-1]["peer"]["energy"],
        },
        "per_round": rounds,
    }
    if not args.skip_benchtop:
        ratios = [r["benchtop"]["ms_ground_state"] / r["peer"]["ms_build_and_eigsh"] for r in rounds]
        rate_ratios = [r["peer"]["snapshots_per_second"] / r["benchtop"]["snapshots_per_second"]
                       for r in rounds]
        energy_b = rounds[-1]["benchtop"]["energy"]
        result["benchtop"] = {
            "median_ms_ground_state": median("benchtop", "ms_ground_state"),
            "median_snapshots_per_second": median("benchtop", "snapshots_per_second"),
            "energy": energy_b,
        }
        result["median_ratio_ground_state"] = statistics.median(ratios)
        result["median_ratio_snapshot_time"] = statistics.median(rate_ratios)
        result["energy_difference"] = abs(energy_b - result["peer"]["energy"])
        result["energies_agree"] = result["energy_difference"] < 1e-8
    print(json.dumps(result, indent=2))
    if not args.skip_benchtop and not result["energies_agree"]:
        sys.exit("the energies differ: " + json.dumps(result["energy_difference"]))


if __name__ == "__main__":
    main()
