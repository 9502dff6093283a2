#!/usr/bin/env python3
"""Every `benchtop bench` entry against its peer script, side by side, in one table.

Called by scripts/bench-all.sh, which makes the virtual environment and finds the binary; run
that. For each engine this runs the Benchtop side (`benchtop bench ENGINE ...`, RAYON_NUM_THREADS
= --threads) and the peer (scripts/bench_<engine>_peer.py in its peer-only mode, torch / numba /
BLAS threads = --threads) alternately, --repeats times each (Benchtop, peer, Benchtop, peer, ...),
so that load on a shared machine falls on both alike, and prints one row per comparison: the
work, each side's median time, the ratio Benchtop / peer (below 1: Benchtop is faster) and the
observable each side computed, which shows that both did the same work. A peer whose packages
cannot be installed, or that fails, gets a row that says so; the script goes on.

Each side's own timing is what is compared (the reported ms per step, per window, ...): process
start, imports and JIT compilation are outside it on both sides.
"""

import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Packages each peer imports (PyPI names), installed into the venv when an engine first needs them.
TORCH = ["numpy", "torch"]


class Row:
    """One comparison: how to run each side and read its time and observable.

    `benchtop` and `peer` take the run's context (threads, a scratch folder) and return the
    arguments after `benchtop bench` and after `python`; `read_benchtop` and `read_peer` take the
    side's JSON and return (time in `unit`, observable as text).
    """

    def __init__(self, engine, label, peer_name, packages, work, unit, observable,
                 benchtop, peer, read_benchtop, read_peer, learning=False):
        self.engine = engine
        self.label = label
        self.peer_name = peer_name
        self.packages = packages
        self.work = work
        self.unit = unit
        self.observable = observable
        self.benchtop = benchtop
        self.peer = peer
        self.read_benchtop = read_benchtop
        self.read_peer = read_peer
        self.learning = learning


def g(value, digits=4):
    """A number in `digits` significant figures."""
    return f"{value:.{digits}g}"


def script(name):
    return os.path.join(REPO, "scripts", name)


def rows():
    """The comparisons, in catalog order (panel defaults, shortened where the default takes long)."""
    return [
        Row("ising", "ising", "numba", ["numpy", "numba"],
            "1024² lattice at β_c, 200 sweeps", "ms/sweep", "bond energy per site",
            lambda c: ["ising", "--size", "1024", "--sweeps", "200", "--warmup", "50",
                       "--backend", "cpu", "--threads", c.threads],
            lambda c: [script("bench_ising_peer.py"), "--size", "1024", "--sweeps", "200",
                       "--threads", c.threads, "--skip-benchtop"],
            lambda j: (1024 * 1024 / j["flips_per_ns"] / 1e6, g(j["bond_energy_per_site"])),
            lambda j: (1024 * 1024 / j["numba"]["flips_per_ns"] / 1e6,
                       g(j["numba"]["bond_energy_per_site"]))),
        Row("sht", "sht", "ducc0", ["numpy", "ducc0"],
            "721×1440, lmax 719, analysis + synthesis", "ms", "round-trip max error",
            lambda c: ["sht", "--nlat", "721", "--nlon", "1440", "--lmax", "719", "--backend", "cpu"],
            lambda c: [script("bench_sht_peer.py"), "--cases", "equiangular:721x1440:719",
                       "--threads", c.threads, "--repeats", "7", "--json", "--skip-benchtop"],
            lambda j: (j["forward_ms"] + j["inverse_ms"], f"{j['roundtrip_max_abs_err']:.1e}"),
            lambda j: (j["ducc0_forward_ms"] + j["ducc0_inverse_ms"],
                       f"{j['ducc0_roundtrip_err']:.1e}")),
        Row("findr", "findr", "PyTorch", TORCH,
            "25 trials × 100 bins, 50 neurons, training step", "ms/step", "loss after 20 steps (own data)",
            lambda c: ["findr", "--steps", "20"],
            lambda c: [script("bench_findr_peer.py"), "--steps", "20", "--threads", c.threads,
                       "--skip-benchtop"],
            lambda j: (j["ms_per_step"], g(j["final_loss"])),
            lambda j: (j["pytorch"]["ms_per_step"], g(j["pytorch"]["final_loss"])),
            learning=True),
        Row("neurotree", "neurotree", "PyTorch", TORCH,
            "32 subjects × 116 ROIs, training step", "ms/step", "loss after 10 steps (own data)",
            lambda c: ["neurotree", "--steps", "10"],
            lambda c: [script("bench_neurotree_peer.py"), "--steps", "10", "--threads", c.threads,
                       "--skip-benchtop"],
            lambda j: (j["ms_per_step"], g(j["final_loss"])),
            lambda j: (j["pytorch"]["ms_per_step"], g(j["pytorch"]["final_loss"])),
            learning=True),
        Row("molstitch", "molstitch (scoring)", "RDKit (Python)", ["rdkit"],
            "5,000 MOSES SMILES scored, 1 thread each", "s", "checksum QED + SA",
            lambda c: ["molstitch", "--threads", "1", "--train-molecules", "100",
                       "--train-epochs", "1", "--samples", "10"],
            lambda c: [script("bench_molstitch_peer.py"), "--skip-benchtop", "--json"],
            lambda j: (j["scoring"]["seconds"], f"{j['scoring']['checksum_qed_plus_sa']:.3f}"),
            lambda j: (j["python"]["seconds"], f"{j['python']['checksum_qed_plus_sa']:.3f}")),
        Row("rcgp", "rcgp", "NumPy", ["numpy"],
            "100 times × 100 locations, filter + smoother", "ms", "checksum of the mean",
            lambda c: ["rcgp", "--times", "100", "--space", "100", "--repeats", "1"],
            lambda c: [script("bench_rcgp_peer.py"), "--times", "100", "--space", "100",
                       "--repeats", "1", "--threads", c.threads, "--skip-benchtop"],
            lambda j: (j["ms_total"], g(j["mean_checksum"], 8)),
            lambda j: (j["numpy_ms"], g(j["numpy_checksum"], 8))),
        Row("linnet", "linnet", "NumPy", ["numpy"],
            "8 seeds × 3 regimes × 6,000 steps, width 16", "ms", "input-noise loss (own draws)",
            lambda c: ["linnet", "--seeds", "8", "--steps", "6000", "--width", "16", "--depth",
                       "3", "--repeats", "1"],
            lambda c: [script("bench_linnet_peer.py"), "--seeds", "8", "--steps", "6000",
                       "--width", "16", "--depth", "3", "--repeats", "1", "--threads", c.threads,
                       "--skip-benchtop"],
            lambda j: (j["ms_total"], g(next(r["final_loss_mean"] for r in j["regimes"]
                                             if r["regime"] == "input_noise"), 3)),
            lambda j: (j["numpy"]["ms_total"], g(j["numpy"]["final_loss_mean"]["input_noise"], 3))),
        Row("assimilation", "assimilation (4D-Var)", "NumPy/SciPy", ["numpy", "scipy"],
            "Lorenz-96, D = 40, 5 windows", "ms/window", "4D-Var nRMSE",
            lambda c: ["assimilation", "--system", "l96", "--dim", "40", "--windows", "5",
                       "--dump", os.path.join(c.scratch, "assimilation.json")],
            lambda c: [script("bench_assimilation_peer.py"), "--threads", c.threads,
                       "--problem", os.path.join(c.scratch, "assimilation.json")],
            lambda j: (j["methods"]["4D-Var"]["ms_per_window"],
                       g(j["methods"]["4D-Var"]["rmse_mean"], 3)),
            lambda j: (j["numpy_4dvar"]["ms_per_window"], g(j["numpy_4dvar"]["rmse_mean"], 3))),
        Row("reflection", "reflection", "NumPy", ["numpy"],
            "20,000 sessions × 40 trials scored", "ms", "checksum of the scores",
            lambda c: ["reflection", "--sessions", "20000", "--trials", "40", "--repeats", "3"],
            lambda c: [script("bench_reflection_peer.py"), "--sessions", "20000", "--trials",
                       "40", "--repeats", "3", "--skip-benchtop"],
            lambda j: (j["ms_score"], g(j["score_checksum"], 10)),
            lambda j: (j["numpy_ms"], g(j["numpy_checksum"], 10))),
        Row("hymn", "hymn", "PyTorch", TORCH,
            "128 graphs × 20 nodes, T = 2, training step", "ms/step", "L1 loss after 10 steps (own graphs)",
            lambda c: ["hymn", "--steps", "10"],
            lambda c: [script("bench_hymn_peer.py"), "--steps", "10", "--threads", c.threads,
                       "--skip-benchtop"],
            lambda j: (j["ms_per_step"], g(j["final_loss"])),
            lambda j: (j["pytorch"]["ms_per_step"], g(j["pytorch"]["final_loss"])),
            learning=True),
        Row("watermark", "watermark (detection)", "NumPy", ["numpy"],
            "100 texts × 200 tokens", "ms/text", "counts and p-values",
            lambda c: ["watermark", "--texts", "100", "--tokens", "200",
                       "--dump", os.path.join(c.scratch, "watermark.json")],
            lambda c: [script("bench_watermark_peer.py"), "--tokens", "200",
                       "--problem", os.path.join(c.scratch, "watermark.json")],
            lambda j: (1e3 / j["detections_per_s"],
                       f"{round(100 * j['detected_fraction'])} % detected"),
            lambda j: (1e3 / j["numpy_detections_per_s"],
                       f"{j['texts'] - j['texts_disagreeing']}/{j['texts']} identical")),
        Row("mlip", "mlip", "PyTorch", TORCH,
            "32 configurations × 7 atoms, training step", "ms/step", "loss after 50 steps (own configurations)",
            lambda c: ["mlip", "--steps", "50"],
            lambda c: [script("bench_mlip_peer.py"), "--steps", "50", "--threads", c.threads,
                       "--skip-benchtop"],
            lambda j: (j["ms_per_step"], g(j["final_loss"])),
            lambda j: (j["pytorch"]["ms_per_step"], g(j["pytorch"]["final_loss"])),
            learning=True),
        Row("quantum", "quantum (ground state)", "SciPy eigsh", ["numpy", "scipy"],
            "Heisenberg chain, 12 sites", "ms", "ground-state energy",
            lambda c: ["quantum", "--sites", "12"],
            lambda c: [script("bench_quantum_peer.py"), "--sites", "12", "--rounds", "1",
                       "--threads", c.threads, "--skip-benchtop"],
            lambda j: (j["ms_ground_state"], f"{j['energy']:.10f}"),
            lambda j: (j["peer"]["median_ms_build_and_eigsh"], f"{j['peer']['energy']:.10f}")),
        Row("weakfeatures", "weakfeatures (ridge)", "scikit-learn", ["numpy", "scikit-learn"],
            "n = 20,000, 10 iterative rounds", "ms", "iterative excess risk (own draws)",
            lambda c: ["weakfeatures", "--repeats", "1"],
            lambda c: [script("bench_weakfeatures_peer.py"), "--pairs", "1"],
            lambda j: (j["total_ms"], g(j["iterative_excess"])),
            lambda j: (j["peer_median_ms"], g(j["peer_iterative_excess"]))),
        Row("weakfeatures", "weakfeatures (MLP)", "scikit-learn", ["numpy", "scikit-learn"],
            "MLP h, n = 2,000, 100 epochs, 3 rounds", "ms", "iterative excess risk (own draws)",
            lambda c: ["weakfeatures", "--label", "mlp", "--n", "2000", "--n-test", "2000",
                       "--epochs", "100", "--rounds", "3", "--repeats", "1"],
            lambda c: [script("bench_weakfeatures_peer.py"), "--label", "mlp", "--n", "2000",
                       "--n-test", "2000", "--epochs", "100", "--rounds", "3", "--pairs", "1"],
            lambda j: (j["total_ms"], g(j["iterative_excess"])),
            lambda j: (j["peer_median_ms"], g(j["peer_iterative_excess"])),
            learning=True),
        Row("candle-mlp", "candle-mlp", "PyTorch", TORCH,
            "MLP 64→64→64→64, batch 64, Adam step", "ms/step", "loss after 520 steps",
            lambda c: ["candle-mlp", "--steps", "500", "--warmup", "20"],
            lambda c: [script("bench_candle_peer.py"), "--steps", "500", "--warmup", "20",
                       "--threads", c.threads, "--skip-benchtop"],
            lambda j: (j["ms_per_step"], g(j["final_loss"])),
            lambda j: (j["pytorch"]["ms_per_step"], g(j["pytorch"]["final_loss"])),
            learning=True),
    ]


class Context:
    """What every side's command may need."""

    def __init__(self, threads, scratch):
        self.threads = str(threads)
        self.scratch = scratch


def note(text):
    print(f"bench-all: {text}", file=sys.stderr, flush=True)


def last_json(text):
    """The last line of `text` that parses as a JSON object (peers may print more before)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    for line in reversed(lines):
        if line.lstrip().startswith("{"):
            return json.loads(line)
    raise ValueError("no JSON object in the output")


def run_side(command, env, timeout):
    """Runs one side; (JSON, None) or (None, a short reason)."""
    try:
        run = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    except OSError as error:
        return None, str(error)
    if run.returncode != 0:
        lines = (run.stderr or run.stdout).strip().splitlines()
        return None, f"exit {run.returncode}: {lines[-1] if lines else 'no output'}"
    try:
        return last_json(run.stdout), None
    except ValueError as error:
        return None, str(error)


def ensure_packages(python, packages, installed, log):
    """Installs the peer's packages into the venv on first use; None, or why they are missing."""
    missing = [p for p in packages if p not in installed]
    if not missing:
        return None
    modules = {"scikit-learn": "sklearn"}
    check = "; ".join(f"import {modules.get(p, p)}" for p in missing)
    if subprocess.run([python, "-c", check], capture_output=True).returncode != 0:
        note(f"installing {' '.join(missing)} into the venv (once)")
        pip = subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                              *missing], capture_output=True, text=True)
        log.write(pip.stdout + pip.stderr)
        if pip.returncode != 0:
            tail = (pip.stderr or pip.stdout).strip().splitlines()
            return f"pip install {' '.join(missing)} failed: {tail[-1] if tail else pip.returncode}"
    installed.update(missing)
    return None


def measure(row, args, ctx, installed, log):
    """Runs the row's two sides alternately; a dict for the table and the JSON record."""
    env = dict(os.environ, RAYON_NUM_THREADS=ctx.threads, OMP_NUM_THREADS=ctx.threads,
               OPENBLAS_NUM_THREADS=ctx.threads, MKL_NUM_THREADS=ctx.threads,
               NUMBA_NUM_THREADS=ctx.threads)
    benchtop_command = [args.benchtop, "bench", *row.benchtop(ctx)]
    peer_command = [args.python, *row.peer(ctx)]
    record = {"engine": row.engine, "label": row.label, "peer": row.peer_name, "work": row.work,
              "unit": row.unit, "observable": row.observable, "learning": row.learning,
              "benchtop_command": shlex.join(benchtop_command),
              "peer_command": shlex.join(peer_command), "benchtop_times": [], "peer_times": [],
              "benchtop_error": None, "peer_error": None}
    peer_problem = ensure_packages(args.python, row.packages, installed, log)
    if peer_problem:
        record["peer_error"] = peer_problem
    for repeat in range(args.repeats):
        for side, command in (("benchtop", benchtop_command), ("peer", peer_command)):
            if record[f"{side}_error"]:
                continue
            started = time.perf_counter()
            report, error = run_side(command, env, args.timeout)
            wall = time.perf_counter() - started
            if error is None:
                try:
                    reader = row.read_benchtop if side == "benchtop" else row.read_peer
                    value, observable = reader(report)
                    record[f"{side}_times"].append(value)
                    record[f"{side}_observable"] = observable
                    if side == "benchtop" and "app" in report:
                        record["app"] = report["app"]
                except (KeyError, TypeError, ValueError, ZeroDivisionError, StopIteration) as e:
                    error = f"unexpected output ({type(e).__name__}: {e})"
            if error is not None:
                record[f"{side}_error"] = error
                log.write(f"{row.label} {side}: {shlex.join(command)}\n{error}\n")
            note(f"{row.label}: {side} {repeat + 1}/{args.repeats} "
                 f"({'failed: ' + error if error else f'{wall:.1f} s'})")
    for side in ("benchtop", "peer"):
        times = record[f"{side}_times"]
        record[f"{side}_median"] = statistics.median(times) if times and not record[f"{side}_error"] else None
    if record["benchtop_median"] is not None and record["peer_median"]:
        record["ratio"] = record["benchtop_median"] / record["peer_median"]
    else:
        record["ratio"] = None
    return record


def cell_time(record, side):
    if record[f"{side}_error"]:
        return f"{'peer' if side == 'peer' else 'Benchtop'} failed: {record[f'{side}_error']}"
    value, unit = record[f"{side}_median"], record["unit"]
    if unit.startswith("ms") and value >= 1000:
        value, unit = value / 1000, unit[1:]
    text = f"{value:.3g}" if value < 1000 else f"{value:.0f}"
    return f"{text} {unit}"


def table(records, markdown, threads):
    header = ["engine", "work", f"Benchtop time ({threads} thr.)", "peer", f"peer time ({threads} thr.)",
              "ratio", "observable", "Benchtop", "peer"]
    lines = []
    for r in records:
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "—"
        if markdown and r["ratio"] is not None and r["ratio"] > 1:
            ratio = f"**{ratio}**"
        lines.append([r["label"], r["work"], cell_time(r, "benchtop"), r["peer"],
                      cell_time(r, "peer"), ratio, r["observable"],
                      r.get("benchtop_observable", "—"), r.get("peer_observable", "—")])
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(str(c).replace("|", "\\|") for c in line) + " |" for line in lines]
        return "\n".join(out)
    widths = [max(len(str(x[i])) for x in [header] + lines) for i in range(len(header))]
    out = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip()]
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(str(c).ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines]
    return "\n".join(out)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def versions(python):
    code = ("import importlib.metadata as m, json, platform\n"
            "out = {'python': platform.python_version()}\n"
            "for p in ('numpy', 'scipy', 'torch', 'numba', 'ducc0', 'scikit-learn', 'rdkit'):\n"
            "    try: out[p] = m.version(p)\n"
            "    except m.PackageNotFoundError: pass\n"
            "print(json.dumps(out))")
    try:
        return json.loads(subprocess.run([python, "-c", code], capture_output=True, text=True).stdout)
    except (json.JSONDecodeError, OSError):
        return {}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchtop", required=True, help="the release benchtop binary")
    parser.add_argument("--python", required=True, help="the venv's python for the peers")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each side (median)")
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="RAYON_NUM_THREADS on the Benchtop side, torch/numba/BLAS threads on the peer's")
    parser.add_argument("--only", help="comma-separated engines, e.g. ising,hymn")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--json", help="also write every run's numbers to this file")
    parser.add_argument("--timeout", type=int, default=600, help="seconds one side may take")
    parser.add_argument("--list", action="store_true", help="list the engines and exit")
    args = parser.parse_args()
    chosen = rows()
    if args.list:
        for row in chosen:
            print(f"{row.engine:<14}{row.label} against {row.peer_name}: {row.work}")
        return
    if not 1 <= args.repeats <= 50:
        sys.exit("--repeats: choose 1 to 50")
    if not 1 <= args.threads <= 256:
        sys.exit("--threads: choose 1 to 256")
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        known = {row.engine for row in chosen}
        unknown = [n for n in names if n not in known]
        if unknown:
            sys.exit(f"--only: unknown engine(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        chosen = [row for row in chosen if row.engine in names]
    started = time.perf_counter()
    records = []
    installed = set()
    log_path = os.path.join(tempfile.gettempdir(), "bench-all.log")
    with tempfile.TemporaryDirectory(prefix="bench-all-") as scratch, open(log_path, "w") as log:
        ctx = Context(args.threads, scratch)
        for row in chosen:
            records.append(measure(row, args, ctx, installed, log))
    minutes = (time.perf_counter() - started) / 60
    peers = versions(args.python)
    version = next((r["app"] for r in records if r.get("app")), args.benchtop)
    date = datetime.date.today().isoformat()
    threads = args.threads
    lines = [
        f"{date}, {cpu_model()}, {os.cpu_count()} logical cores; {version}; "
        f"threads {threads} on both sides (RAYON_NUM_THREADS={threads}; torch.set_num_threads({threads}), "
        f"numba and BLAS threads {threads}); median of {args.repeats} runs per side, interleaved; "
        f"{minutes:.1f} min in all.",
        "Peers: " + ", ".join(f"{k} {v}" for k, v in peers.items()) + ".",
        "Ratio = Benchtop time / peer time (below 1: Benchtop is faster).",
    ]
    if args.markdown:
        print("\n".join(lines))
        print()
    else:
        print("\n".join("# " + line for line in lines))
    print(table(records, args.markdown, threads))
    slow = [r for r in records if r["learning"] and r["ratio"] is not None and r["ratio"] > 1]
    if slow:
        text = ", ".join(f"{r['label']} {r['ratio']:.2f}×" for r in slow)
        print()
        print(f"Learning engines slower than their peer (ratio > 1): {text}.")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"header": lines, "rows": records}, f, indent=1)
    failed = [r for r in records if r["benchtop_error"] or r["peer_error"]]
    if failed:
        note(f"{len(failed)} row(s) with a failed side; details in {log_path}")


if __name__ == "__main__":
    main()
