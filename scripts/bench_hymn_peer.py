#!/usr/bin/env python3
"""HyMN training step: Benchtop against a PyTorch peer on the same model and batch sizes (CPU).

The peer is the model a scientist would write in PyTorch (the authors' code is PyTorch
Geometric; this uses plain torch with index_add_ so nothing else is needed): G graphs G(n, p)
with mean degree 4 on V nodes each, T marked copies per graph at the nodes of highest
centrality (the sum of (A^k)_vv / k!, k = 1..16) plus the unmarked graph; node inputs
[1, label = 0, mark]; a linear embedding to width H; L GIN layers
    h <- relu(W2 relu(BN(W1 (h + sum over neighbours h) + b1)) + b2);
node embeddings mean-pooled over a graph's copies and summed over its nodes; the readout
batch-normalised; a head Linear(H, H) - relu - Linear(H, 1) (BN: BatchNorm1d without a learned
scale and shift, training mode, as on the Benchtop side); the L1 loss against the graphs' triangle counts; Adam
(lr 1e-3). One step is forward + backward + Adam. The graphs are drawn by NumPy (not the same
graphs as Benchtop's, the same distribution and sizes).

Each side is timed over --steps steps after one untimed warm-up step; the script prints one
JSON object with each side's ms_per_step and the ratio benchtop / pytorch (below 1: Benchtop
is faster). The Benchtop side is `benchtop bench hymn --graphs G --nodes V --subgraphs T
--steps S --hidden H --layers L`, with RAYON_NUM_THREADS set to --threads.

    python3 -m pip install torch numpy     (or use a venv that has them)
    cargo build --release --workspace --bin benchtop
    python3 scripts/bench_hymn_peer.py [--graphs 128] [--nodes 20] [--subgraphs 2] [--steps 20]
                                       [--hidden 64] [--layers 3] [--threads 2]
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
    import torch
except ImportError:  # pragma: no cover - message for people running the script
    sys.exit("PyTorch and NumPy are needed: python3 -m pip install torch numpy")

WALK_TERMS = 16


def graphs_and_marks(rng, count, nodes, subgraphs):
    """Adjacency lists, triangle counts and centrality marks of `count` G(n, p) graphs."""
    p = min(1.0, 4.0 / (nodes - 1))
    out = []
    for _ in range(count):
        upper = np.triu(rng.random((nodes, nodes)) < p, 1)
        a = (upper | upper.T).astype(np.float64)
        term = np.eye(nodes)
        score = np.zeros(nodes)
        for k in range(1, WALK_TERMS + 1):
            term = term @ a / k
            score += np.diag(term)
        order = sorted(range(nodes), key=lambda v: (-score[v], v))
        marks = order[: min(subgraphs, nodes)]
        triangles = np.trace(a @ a @ a) / 6.0
        edges = np.argwhere(upper)
        out.append((edges, marks, triangles))
    return out


def build_batch(graphs, nodes):
    x, src, dst, copy_to_node, weight, node_to_graph = [], [], [], [], [], []
    rows = 0
    for gi, (edges, marks, _) in enumerate(graphs):
        copies = [None] + list(marks)
        for mark in copies:
            for v in range(nodes):
                x.append([1.0, 0.0, 1.0 if v == mark else 0.0])
                copy_to_node.append(gi * nodes + v)
            for a, b in edges:
                src += [rows + a, rows + b]
                dst += [rows + b, rows + a]
            rows += nodes
        weight += [1.0 / len(copies)] * nodes
        node_to_graph += [gi] * nodes
    t = lambda v, dt: torch.tensor(v, dtype=dt)
    return (
        t(x, torch.float32),
        t(src, torch.long),
        t(dst, torch.long),
        t(copy_to_node, torch.long),
        t(weight, torch.float32).unsqueeze(1),
        t(node_to_graph, torch.long),
        len(graphs) * nodes,
        rows,
    )


class Gin(torch.nn.Module):
    def __init__(self, hidden, layers):
        super().__init__()
        self.embed = torch.nn.Linear(3, hidden)
        self.layers = torch.nn.ModuleList(
            torch.nn.ModuleList([torch.nn.Linear(hidden, hidden), torch.nn.Linear(hidden, hidden)])
            for _ in range(layers)
        )
        self.norms = torch.nn.ModuleList(
            torch.nn.BatchNorm1d(hidden, affine=False) for _ in range(layers + 1)
        )
        self.head1 = torch.nn.Linear(hidden, hidden)
        self.head2 = torch.nn.Linear(hidden, 1)

    def forward(self, batch, n_graphs):
        x, src, dst, copy_to_node, weight, node_to_graph, n_nodes, _ = batch
        h = self.embed(x)
        for (w1, w2), norm in zip(self.layers, self.norms):
            agg = torch.zeros_like(h).index_add_(0, dst, h.index_select(0, src))
            h = torch.relu(w2(torch.relu(norm(w1(h + agg)))))
        node = torch.zeros(n_nodes, h.shape[1]).index_add_(0, copy_to_node, h) * weight
        graph = torch.zeros(n_graphs, h.shape[1]).index_add_(0, node_to_graph, node)
        graph = self.norms[-1](graph)
        return self.head2(torch.relu(self.head1(graph))).squeeze(1)


def pytorch_peer(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    graphs = graphs_and_marks(rng, args.graphs, args.nodes, args.subgraphs)
    batch = build_batch(graphs, args.nodes)
    y = torch.tensor([g[2] for g in graphs], dtype=torch.float32)
    model = Gin(args.hidden, args.layers)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def step():
        opt.zero_grad()
        loss = (model(batch, args.graphs) - y).abs().mean()
        loss.backward()
        opt.step()
        return float(loss.detach())

    step()
    start = time.perf_counter()
    last = math.nan
    for _ in range(args.steps):
        last = step()
    ms = (time.perf_counter() - start) * 1e3 / args.steps
    return {
        "ms_per_step": ms,
        "final_loss": last,
        "copy_nodes": batch[7],
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
    }


def benchtop_side(args):
    command = [
        args.benchtop, "bench", "hymn",
        "--graphs", str(args.graphs), "--nodes", str(args.nodes),
        "--subgraphs", str(args.subgraphs), "--steps", str(args.steps),
        "--hidden", str(args.hidden), "--layers", str(args.layers), "--seed", str(args.seed),
    ]
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    try:
        run = subprocess.run(command, capture_output=True, text=True, env=env)
    except FileNotFoundError:
        sys.exit(f"{args.benchtop} not found: cargo build --release --workspace --bin benchtop, or pass --skip-benchtop")
    if run.returncode != 0:
        text = (run.stderr or run.stdout).strip()
        if "unknown engine" in text:
            sys.exit(f"{args.benchtop} has no `bench hymn` subcommand; rebuild it, or pass --skip-benchtop")
        sys.exit(f"`{' '.join(command)}` failed with exit code {run.returncode}:\n{text}")
    try:
        ours = json.loads(run.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        sys.exit(f"`{' '.join(command)}` did not print a JSON object:\n{run.stdout}")
    if "ms_per_step" not in ours:
        sys.exit(f"`{' '.join(command)}` printed no ms_per_step: {ours}")
    return ours


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphs", type=int, default=128, help="graphs per batch G")
    parser.add_argument("--nodes", type=int, default=20, help="nodes per graph V")
    parser.add_argument("--subgraphs", type=int, default=2, help="marked copies T per graph")
    parser.add_argument("--steps", type=int, default=20, help="timed training steps")
    parser.add_argument("--hidden", type=int, default=64, help="hidden width H")
    parser.add_argument("--layers", type=int, default=3, help="GIN layers L")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--benchtop", default="target/release/benchtop")
    parser.add_argument("--skip-benchtop", action="store_true", help="time the PyTorch side only")
    args = parser.parse_args()
    for name in ("graphs", "steps", "hidden", "layers", "threads"):
        if getattr(args, name) < 1:
            sys.exit(f"--{name} must be at least 1")
    if args.nodes < 2 or args.subgraphs < 0:
        sys.exit("--nodes must be at least 2 and --subgraphs at least 0")

    ours = None if args.skip_benchtop else benchtop_side(args)
    peer = pytorch_peer(args)
    report = {
        "graphs": args.graphs,
        "nodes": args.nodes,
        "subgraphs": args.subgraphs,
        "steps": args.steps,
        "hidden": args.hidden,
        "layers": args.layers,
        "threads": args.threads,
        "machine": platform.processor() or platform.machine(),
        "pytorch": peer,
    }
    if ours is not None:
        report["benchtop"] = ours
        report["ratio_benchtop_over_pytorch"] = ours["ms_per_step"] / peer["ms_per_step"]
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
