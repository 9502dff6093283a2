#!/usr/bin/env python3
"""Side-by-side timing of our spherical harmonic transform and ducc0's on the same grids.

For each case (grid kind, nlat x nlon, lmax) and each thread count, runs
`benchtop bench sht ...` (or the `bench_sht` example of benchtop-spectra when the CLI binary
is not built) with RAYON_NUM_THREADS set, and ducc0's `sht.synthesis_2d` / `sht.analysis_2d`
with the same nthreads on the same geometry ("CC" = equiangular with both poles, "GL" = Gauss),
the same lmax and random band-limited coefficients; both sides: one warm-up, then the median of
--repeats calls. Prints ms per transform and the ratio ours/ducc0 (lower is better).

    pip install ducc0 numpy        # or a native build: pip install --no-binary ducc0 ducc0
    cargo build --release -p benchtop-spectra --example bench_sht   # or the benchtop binary
    python3 scripts/bench_sht_peer.py [--cases equiangular:181x360:179,equiangular:721x1440:719]
                                      [--threads 1,2] [--repeats 7] [--batch 1] [--json]
                                      [--skip-benchtop]

--skip-benchtop times ducc0 alone (with --json its rows have only the ducc0 keys);
scripts/bench-all.sh runs the Benchtop side itself.

Our timings exclude plan construction (reported as plan_ms); ducc0 has no plan object, so its
per-call setup is included in its times.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

try:
    import ducc0
except ImportError:  # pragma: no cover - message for people running the script
    sys.exit("ducc0 is not installed: pip install ducc0 (or --no-binary ducc0 for a native build)")


def parse_cases(text):
    cases = []
    for item in text.split(","):
        kind, shape, lmax = item.split(":")
        nlat, nlon = shape.lower().split("x")
        if kind not in ("equiangular", "gauss"):
            sys.exit(f"unknown grid kind {kind}")
        cases.append((kind, int(nlat), int(nlon), int(lmax)))
    return cases


def find_ours(explicit):
    if explicit:
        return explicit, explicit.endswith("benchtop")
    roots = [os.environ.get("CARGO_TARGET_DIR"), "target"]
    for root in [r for r in roots if r]:
        cli = os.path.join(root, "release", "benchtop")
        if os.path.exists(cli):
            return cli, True
    for root in [r for r in roots if r]:
        example = os.path.join(root, "release", "examples", "bench_sht")
        if os.path.exists(example):
            return example, False
    sys.exit(
        "no benchtop binary found: cargo build --release (or "
        "cargo build --release -p benchtop-spectra --example bench_sht)"
    )


def run_ours(binary, is_cli, kind, nlat, nlon, lmax, threads, repeats, batch):
    args = ["--nlat", str(nlat), "--nlon", str(nlon), "--lmax", str(lmax), "--batch", str(batch)]
    if is_cli:
        command = [binary, "bench", "sht", *args, "--backend", "cpu"]
        if kind != "equiangular":
            command += ["--grid", kind]
    else:
        command = [binary, *args, "--backend", "cpu", "--grid", kind, "--repeats", str(repeats)]
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    out = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    line = [l for l in out.splitlines() if l.strip().startswith("{")][-1]
    return json.loads(line)


def random_alm(lmax, batch, seed=1):
    rng = np.random.default_rng(seed)
    nalm = (lmax + 1) * (lmax + 2) // 2
    alm = rng.uniform(-1, 1, (batch, nalm)) + 1j * rng.uniform(-1, 1, (batch, nalm))
    alm[:, : lmax + 1] = alm[:, : lmax + 1].real  # m = 0 is real
    return alm


def median_ms(function, repeats):
    function()  # warm-up
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), result


def run_ducc(kind, nlat, nlon, lmax, threads, repeats, batch):
    geometry = "CC" if kind == "equiangular" else "GL"
    alm = random_alm(lmax, batch)

    def synthesis():
        return [
            ducc0.sht.synthesis_2d(
                alm=alm[b : b + 1], spin=0, lmax=lmax, geometry=geometry,
                ntheta=nlat, nphi=nlon, nthreads=threads,
            )
            for b in range(batch)
        ]

    inverse_ms, maps = median_ms(synthesis, repeats)

    def analysis():
        return [
            ducc0.sht.analysis_2d(map=m, spin=0, lmax=lmax, geometry=geometry, nthreads=threads)
            for m in maps
        ]

    forward_ms, back = median_ms(analysis, repeats)
    error = max(float(np.abs(b[0] - a).max()) for b, a in zip(back, alm))
    return {"forward_ms": forward_ms, "inverse_ms": inverse_ms, "roundtrip_max_abs_err": error}


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", default="equiangular:181x360:179,equiangular:721x1440:719")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--ours", default=None, help="path to benchtop or the bench_sht example")
    parser.add_argument("--json", action="store_true", help="print one JSON object per row")
    parser.add_argument("--skip-benchtop", action="store_true", help="time ducc0 only")
    args = parser.parse_args()

    if args.skip_benchtop:
        for kind, nlat, nlon, lmax in parse_cases(args.cases):
            for threads in [int(t) for t in args.threads.split(",")]:
                peer = run_ducc(kind, nlat, nlon, lmax, threads, args.repeats, args.batch)
                row = {"grid": f"{kind} {nlat}x{nlon}", "lmax": lmax, "threads": threads,
                       "batch": args.batch, "ducc0": ducc0.__version__,
                       "ducc0_forward_ms": peer["forward_ms"], "ducc0_inverse_ms": peer["inverse_ms"],
                       "ducc0_roundtrip_err": peer["roundtrip_max_abs_err"]}
                print(json.dumps(row) if args.json else row)
        return
    binary, is_cli = find_ours(args.ours)
    print(f"# cpu: {cpu_model()}, {os.cpu_count()} logical cores")
    print(f"# ducc0 {ducc0.__version__} from {ducc0.__file__}")
    print(f"# ours: {binary}")
    header = (
        f"{'grid':<24} {'lmax':>5} {'thr':>3} | {'ours fwd':>9} {'ducc fwd':>9} {'ratio':>6} | "
        f"{'ours inv':>9} {'ducc inv':>9} {'ratio':>6} | {'ours err':>8} {'ducc err':>8}"
    )
    if not args.json:
        print(header)
        print("-" * len(header))
    for kind, nlat, nlon, lmax in parse_cases(args.cases):
        for threads in [int(t) for t in args.threads.split(",")]:
            ours = run_ours(binary, is_cli, kind, nlat, nlon, lmax, threads, args.repeats, args.batch)
            peer = run_ducc(kind, nlat, nlon, lmax, threads, args.repeats, args.batch)
            row = {
                "grid": f"{kind} {nlat}x{nlon}",
                "lmax": lmax,
                "threads": threads,
                "batch": args.batch,
                "ours_forward_ms": ours["forward_ms"],
                "ducc0_forward_ms": peer["forward_ms"],
                "forward_ratio": ours["forward_ms"] / peer["forward_ms"],
                "ours_inverse_ms": ours["inverse_ms"],
                "ducc0_inverse_ms": peer["inverse_ms"],
                "inverse_ratio": ours["inverse_ms"] / peer["inverse_ms"],
                "ours_roundtrip_err": ours["roundtrip_max_abs_err"],
                "ducc0_roundtrip_err": peer["roundtrip_max_abs_err"],
                "ours_plan_ms": ours.get("plan_ms"),
                "ours_simd": ours.get("simd"),
            }
            if args.json:
                print(json.dumps(row))
            else:
                print(
                    f"{row['grid']:<24} {lmax:>5} {threads:>3} | "
                    f"{row['ours_forward_ms']:>9.2f} {row['ducc0_forward_ms']:>9.2f} {row['forward_ratio']:>6.2f} | "
                    f"{row['ours_inverse_ms']:>9.2f} {row['ducc0_inverse_ms']:>9.2f} {row['inverse_ratio']:>6.2f} | "
                    f"{row['ours_roundtrip_err']:>8.1e} {row['ducc0_roundtrip_err']:>8.1e}"
                )
            sys.stdout.flush()


if __name__ == "__main__":
    main()
