"""Tensor-Var's claims over seeds: `scripts/claims.sh assimilation` (or
`python3 scripts/claims/assimilation.py` with the release binary built).

Runs `benchtop bench assimilation` on Lorenz-96 (D = 40, F = 8) at 10, 30 and 50 % observed and
on Kuramoto-Sivashinsky (L = 22, 128 points) at 20 and 50 % observed, 40 windows of 5 observation
times on held-out truth, 3000 training states, over 5 seeds (3 with QUICK=1). In every run
4D-Var's and 3D-Var's B scale and the EnKF's localisation and inflation are chosen on 10
training windows; the EnKF has 40 members. Prints the table of the paper's claims against
Tensor-Var's mean +- sd over seeds and writes it into docs/panels/assimilation.md.

The verdicts apply the rules of engines/assimilation/src/claims.rs to the means over seeds:
- speed ("10-20x faster than 4D-Var"): holds when the per-window speed-up is >= 10 and
  Tensor-Var's training is paid back within the run's windows; holds partly when the speed-up is
  > 1 otherwise; does not hold at <= 1;
- accuracy ("more accurate than 4D-Var"): does not hold when the tuned 4D-Var's mean nRMSE is
  at most Tensor-Var's; holds when Tensor-Var is also below the EnKF, 3D-Var, the climatology
  and the no-dynamics reference; holds partly otherwise.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import bench, fmt, mean_sd, paired, seeds, table, write  # noqa: E402

WINDOWS = 40
TRAIN = 3000
CONFIGS = [
    ("l96", 40, 0.1), ("l96", 40, 0.3), ("l96", 40, 0.5),
    ("ks", 128, 0.2), ("ks", 128, 0.5),
]
REFERENCES = ["EnKF", "3D-Var", "Climatology", "No dynamics"]
SHOWN = ["Tensor-Var", "4D-Var", "EnKF", "3D-Var", "Climatology", "No dynamics"]
NAMES = {"l96": "Lorenz-96", "ks": "Kuramoto-Sivashinsky"}


def run_config(system, dim, fraction, seed_list):
    """Every seed's bench report for one configuration."""
    reports = []
    for seed in seed_list:
        reports.append(bench("assimilation", "--system", system, "--dim", dim,
                             "--windows", WINDOWS, "--obs-fraction", fraction,
                             "--train", TRAIN, "--seed", seed))
        print(f"  {system} D={dim} {fraction:.0%} seed {seed}: "
              + ", ".join(f"{m} {show(reports[-1]['methods'][m]['rmse_mean'])}" for m in SHOWN),
              file=sys.stderr)
    return reports


def show(x):
    """An nRMSE, or "diverged" where the method's estimate was not finite (null in the JSON)."""
    return "diverged" if x is None else f"{x:.3f}"


def rmse(reports, method):
    """The method's mean nRMSE per seed; a diverged run (null) counts as +inf."""
    return [float("inf") if r["methods"][method]["rmse_mean"] is None
            else r["methods"][method]["rmse_mean"] for r in reports]


def finite_mean(xs):
    """Mean over the seeds where the method did not diverge (inf when it diverged on all)."""
    ok = [x for x in xs if x != float("inf")]
    return sum(ok) / len(ok) if ok else float("inf")


def paired_finite(a, b):
    """`paired` over the seeds where neither method diverged."""
    pairs = [(x, y) for x, y in zip(a, b) if x != float("inf") and y != float("inf")]
    if not pairs:
        return "no seed where both converged"
    text = paired([x for x, _ in pairs], [y for _, y in pairs])
    if len(pairs) < len(a):
        text += f" ({len(a) - len(pairs)} seeds with a diverged run left out)"
    return text


def summary(xs):
    """`mean ± sd` over the converged seeds, with the count of diverged ones."""
    ok = [x for x in xs if x != float("inf")]
    if not ok:
        return "diverged on every seed"
    text = fmt(*mean_sd(ok))
    if len(ok) < len(xs):
        text += f" (diverged on {len(xs) - len(ok)} of {len(xs)} seeds; mean of the others)"
    return text


def speed_row(system, runs, n):
    per = [r["speedup"] for rs in runs for r in rs]
    total = [r["speedup_total"] for rs in runs for r in rs]
    even = [r["break_even_windows"] if r["break_even_windows"] is not None else float("inf")
            for rs in runs for r in rs]
    train = [r["methods"]["Tensor-Var"]["training_seconds"] for rs in runs for r in rs]
    ms = {m: [r["methods"][m]["ms_per_window"] for rs in runs for r in rs]
          for m in ["Tensor-Var", "4D-Var", "EnKF"]}
    fractions = ", ".join(f"{f:.0%}" for (_, _, f) in configs_of(system))
    pm, psd = mean_sd(per)
    em, esd = mean_sd(even)
    measured = (
        f"{NAMES[system]}, {fractions} observed, {n} seeds each: per window "
        f"{fmt(pm, psd)}× (range {min(per):.1f}–{max(per):.1f}×; Tensor-Var "
        f"{fmt(*mean_sd(ms['Tensor-Var']))} ms, 4D-Var {fmt(*mean_sd(ms['4D-Var']))} ms, "
        f"EnKF {fmt(*mean_sd(ms['EnKF']))} ms); Tensor-Var's training "
        f"{fmt(*mean_sd(train))} s is paid back after {fmt(em, esd)} windows of 4D-Var; "
        f"in total at {WINDOWS} windows with training {fmt(*mean_sd(total))}×")
    if pm <= 1:
        verdict = "does not hold"
    elif pm >= 10 and em <= WINDOWS:
        verdict = "holds"
    else:
        verdict = "holds partly"
        if pm >= 10:
            verdict += f" (per window; training not paid back within {WINDOWS} windows)"
    return measured, verdict


def configs_of(system):
    return [c for c in CONFIGS if c[0] == system]


def accuracy_row(system, dim, fraction, reports):
    n = len(reports)
    tv = rmse(reports, "Tensor-Var")
    fd = rmse(reports, "4D-Var")
    parts = [f"{m} {summary(rmse(reports, m))}" for m in SHOWN]
    scales = sorted({r["tuning"]["fourdvar_scale"] for r in reports})
    tvm, fdm = finite_mean(tv), finite_mean(fd)
    beaten_by = [m for m in REFERENCES if finite_mean(rmse(reports, m)) <= tvm]
    best_ref = min(REFERENCES, key=lambda m: finite_mean(rmse(reports, m)))
    measured = (
        f"{NAMES[system]} D = {dim}, {fraction:.0%} observed, {n} seeds, mean nRMSE: "
        + "; ".join(parts)
        + f" (4D-Var's B = {'/'.join(f'{s:g}' for s in scales)} × climatology, chosen on "
        f"training windows). Tensor-Var − 4D-Var: {paired_finite(tv, fd)}; Tensor-Var − {best_ref}: "
        f"{paired_finite(tv, rmse(reports, best_ref))}")
    if tvm >= fdm:
        verdict = "does not hold"
    elif not beaten_by:
        verdict = "holds"
    else:
        verdict = f"holds partly ({', '.join(beaten_by)} as accurate or better)"
    return measured, verdict


def main():
    started = time.time()
    seed_list = seeds(5)
    results = {}
    for (system, dim, fraction) in CONFIGS:
        results[(system, dim, fraction)] = run_config(system, dim, fraction, seed_list)
    rows = []
    for system in ["l96", "ks"]:
        runs = [results[c] for c in configs_of(system)]
        measured, verdict = speed_row(system, runs, len(seed_list))
        rows.append(("Tensor-Var is 10–20× faster than 4D-Var", measured, verdict))
    for c in CONFIGS:
        measured, verdict = accuracy_row(*c, results[c])
        rows.append(("Tensor-Var is more accurate than 4D-Var", measured, verdict))
    minutes = (time.time() - started) / 60
    quick = " QUICK=1 (3 seeds)" if len(seed_list) < 5 else ""
    markdown = (
        f"Generated by `scripts/claims.sh assimilation`{quick}: `benchtop bench assimilation` "
        f"(release) at {WINDOWS} windows of 5 observation times, {TRAIN} training states, "
        f"seeds {seed_list[0]}–{seed_list[-1]}, baselines tuned on 10 training windows, EnKF "
        f"with 40 members; {minutes:.1f} min on this machine. Mean ± sd over seeds.\n\n"
        + table(rows))
    write("assimilation", markdown)


if __name__ == "__main__":
    main()
