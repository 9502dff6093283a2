"""Claims of the HyMN panel (docs/panels/hymn.md), measured over seeds with the release binary:
centrality+CSE (HyMN) against random marking (the paper's comparison), against the baselines that
share its CSE feature (MPNN+CSE: no marks; random+CSE: T random marks), centrality marking alone
against random marking, the full bag's cost, and the perturbation analysis, on triangles and
4-cycles, on the example's graphs (Erdős–Rényi and random regular) and on Watts–Strogatz,
Barabási–Albert and random geometric graphs.

    scripts/claims.sh hymn          (QUICK=1: 3 seeds)

Each setting is a copy of projects/hymn-counting.ron with its family, target and methods changed
(they are not numeric parameters), run at a reduced size (SIZE below) with `--set 1:seed=K`.
"""

import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

PROJECT = "hymn-counting.ron"
# The size every setting runs at (the project's is 1000 graphs of 10–20 nodes, 40 epochs).
SIZE = ["1:data.set.graphs=500", "1:data.set.max_nodes=16", "1:experiment.epochs=30"]
ALL = "[Mpnn, Random, Centrality, CentralityCse, FullBag, MpnnCse, RandomCse]"
NO_BAG = "[Mpnn, Random, Centrality, CentralityCse, MpnnCse, RandomCse]"
SETTINGS = [
    # (name, family, target, methods)
    ("Erdős–Rényi + regular, triangles", "Mixed", "Triangle", ALL),
    ("Erdős–Rényi + regular, 4-cycles", "Mixed", "FourCycle", NO_BAG),
    ("Watts–Strogatz + Barabási–Albert + geometric, triangles", "Structured", "Triangle", NO_BAG),
    ("Watts–Strogatz + Barabási–Albert + geometric, 4-cycles", "Structured", "FourCycle", NO_BAG),
]


def variant(family, target, methods):
    """The example project's text with another family, target and method list."""
    with open(os.path.join(common.REPO, "projects", PROJECT)) as f:
        text = f.read()
    for key, value in [("family", family), ("target", target), ("methods", methods)]:
        pattern = rf"{key}: (\[[^\]]*\]|\w+)"
        text, n = re.subn(pattern, f"{key}: {value}", text, count=1)
        if n != 1:
            sys.exit(f"{PROJECT}: no `{key}:` to change")
    return text


def measure(family, target, methods):
    """Per seed: the summary of the setting."""
    out = []
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, PROJECT)
        with open(path, "w") as f:
            f.write(variant(family, target, methods))
        for seed in common.seeds(5):
            out.append(common.run(path, [*SIZE, f"1:seed={seed}"]))
    return out


def mae(summary, method, t):
    """Test MAE of `method` at T = t (the first entry for methods without T)."""
    runs = summary["methods"][method]
    return float(runs[min(t - 1, len(runs) - 1)]["test_mae"])


def ms(xs, digits=3):
    """`mean ± sd` of xs."""
    return common.fmt(*common.mean_sd(xs), digits=digits)


def verdict(ratios):
    """The panel's rule (app/panels/hymn/src/verdict.rs): holds when lower on every pair and at
    least 10 % lower on average, holds partly when lower on more than half, else does not
    hold."""
    n = len(ratios)
    better = sum(1 for r in ratios if r < 1)
    if n and better == n and common.mean_sd(ratios)[0] < 0.9:
        return "holds"
    if 2 * better > n:
        return "holds partly"
    return "does not hold"


def pairs(results, ours, theirs):
    """Per setting and T: our MAEs, theirs, and the ratios (theirs may be a function of the
    summary and T, for the better of two baselines)."""
    out = []
    for name, runs in results:
        for t in (1, 2):
            a = [mae(s, ours, t) for s in runs]
            b = [theirs(s, t) if callable(theirs) else mae(s, theirs, t) for s in runs]
            out.append((name, t, a, b, [x / y for x, y in zip(a, b)]))
    return out


def describe(rows):
    """Text of one comparison over settings and T, and all its ratios."""
    parts, ratios = [], []
    for name, t, a, b, r in rows:
        ratios += r
        wins, n, _ = common.sign_test(a, b)
        parts.append(f"{name}, T = {t}: ratio {ms(r, 2)}, lower on {wins}/{n}")
    return "; ".join(parts), ratios


def main():
    results = [(name, measure(family, target, methods))
               for name, family, target, methods in SETTINGS]
    seeds = common.seeds(5)
    size = ", ".join(s.split(":", 1)[1] for s in SIZE)
    how = (f"copies of `projects/{PROJECT}` with the family and target changed, `--set` {size}, "
           f"seeds {seeds[0]}–{seeds[-1]}; test MAE in units of the count's std; ratio = "
           f"centrality+CSE's MAE over the baseline's (mean ± sd), seeds where it is lower")
    rows = []
    headline = {}

    text, r_random = describe(pairs(results, "centrality+CSE", "random"))
    headline["random marking"] = r_random
    rows.append(("HyMN (centrality marks + CSE) beats random marking at equal T",
                 f"{how}. {text}", verdict(r_random)))

    def fair(s, t):
        return min(mae(s, "MPNN+CSE", t), mae(s, "random+CSE", t))

    text, r_fair = describe(pairs(results, "centrality+CSE", fair))
    _, r_mpnn_cse = describe(pairs(results, "centrality+CSE", "MPNN+CSE"))
    _, r_random_cse = describe(pairs(results, "centrality+CSE", "random+CSE"))
    headline["MPNN+CSE"] = r_mpnn_cse
    headline["random+CSE"] = r_random_cse
    paired = "; ".join(
        f"{name}, T = {t}: {common.paired(a, b)}"
        for name, t, a, b, _ in pairs(results, "centrality+CSE", "MPNN+CSE"))
    rows.append((
        "The gain comes from marking central nodes, not only from the CSE feature (the baseline "
        "a referee asks for: the same CSE without marks, MPNN+CSE, or with random marks, "
        "random+CSE)",
        f"the same runs, against the better of MPNN+CSE and random+CSE: {text}. Against MPNN+CSE "
        f"alone: {paired}",
        verdict(r_fair)))

    text, r_cent = describe(pairs(results, "centrality", "random"))
    rows.append(("Centrality marking alone beats random marking", f"the same runs: {text}",
                 verdict(r_cent)))

    name, runs = results[0]
    hymn2 = [mae(s, "centrality+CSE", 2) for s in runs]
    bag = [mae(s, "full bag", 1) for s in runs]
    t_hymn = [float(s["methods"]["centrality+CSE"][1]["seconds_per_epoch"]) for s in runs]
    t_bag = [float(s["methods"]["full bag"][0]["seconds_per_epoch"]) for s in runs]
    ratio = [a / b for a, b in zip(hymn2, bag)]
    cost = [b / a for a, b in zip(t_hymn, t_bag)]
    rows.append((
        "A few marked subgraphs approach the full bag at a fraction of its cost",
        f"{name}: centrality+CSE at T = 2 {ms(hymn2)} against the full bag {ms(bag)} (ratio "
        f"{ms(ratio, 2)}, {common.paired(hymn2, bag)}); the full bag costs {ms(cost, 2)}× as "
        f"much per epoch",
        "holds" if max(ratio) < 1.25 and min(cost) > 2 else
        ("holds partly" if common.mean_sd(ratio)[0] < 1.25 else "does not hold")))

    rho = [float(s["perturbation_vs_walks_spearman"]) for _, runs in results for s in runs
           if s["perturbation_vs_walks_spearman"] is not None]
    positive = sum(1 for r in rho if r > 0)
    rows.append((
        "The output change when a node is marked grows with its walk count (the perturbation "
        "analysis)",
        f"the same runs (the centrality model at T = 2): mean within-graph Spearman ρ {ms(rho, 2)} "
        f"(range {min(rho):.2f}–{max(rho):.2f}), positive in {positive}/{len(rho)}",
        "holds" if positive == len(rho) and common.mean_sd(rho)[0] > 0.5 else
        ("holds partly" if 2 * positive > len(rho) else "does not hold")))
    rows.append((
        "HyMN improves molecular property prediction (ZINC: 0.08 against GIN's 0.16 MAE, with "
        "edge features)",
        "ZINC with bond features is not run. On MolStitch molecules without bond features "
        "(logP and TPSA, seeds 1–2, 1000 molecules; `cargo test --workspace -q "
        "hymn_measure_molecules -- --ignored --nocapture`) marking and the CSE do not help: "
        "0.40–0.51 for every method against the constant's 0.78–0.86",
        "not measured"))

    text = common.table(rows)
    text += ("\n\nHeadline ratio (test MAE of centrality+CSE over the baseline's; lower is "
             "better), mean ± sd over every setting, T and seed above:\n\n"
             "| against | stated | measured |\n|---|---|---|\n")
    text += (f"| random marking | 0.40 (the counting project's test size, one seed; 0.79 at "
             f"worst over 8 settings) | {ms(headline['random marking'], 2)} |\n")
    text += f"| MPNN+CSE (no marks) | not measured | {ms(headline['MPNN+CSE'], 2)} |\n"
    text += f"| random+CSE | not measured | {ms(headline['random+CSE'], 2)} |"
    common.write("hymn", text)


if __name__ == "__main__":
    main()
