#!/usr/bin/env python3
"""NeuroTree training step: Benchtop against a PyTorch peer on the same dense AGE-GCN (CPU).

The peer is the model as the authors' code implements it, written the way a PyTorch user
would: per window t,
    lambda = sigmoid(lambda_raw),  A~_t = lambda A_d,t + (1 - lambda) A_d,t^T
    A_w = Gamma * A_s * A~_t                     (Gamma N x N, Xavier-uniform; Benchtop folds a constant N^2 into A_s * A~_t, free)
    E = sigmoid(beta_raw) * age * X_t
    Z_t = relu(A_w (X_t * E) W)                  (W F x 64)
    Z = sum_t Z_t                                (unit-step Euler over the 2 windows)
then the class head mean_nodes(Z) -> 32 -> relu -> dropout(0.5) -> 2 and the loss
    cross-entropy + 1.0 * L_CMFC,
L_CMFC being Benchtop's node-pair InfoNCE (cosine similarities of the rows of Z over
tau = 0.07; anchors and positives are the strong nodes, mean_t mean_j |A_d,t ij| >= the mean)
plus the binary cross-entropy of the node gate sigmoid(w^T Z_i) against the strong mask.
A step is forward + backward + Adam (lr 1e-2, Benchtop's default, weight decay 1e-5), on one batch of B subjects
with N ROIs and two windows of N features (FC rows). Inputs are seeded random numbers of those shapes
(Benchtop draws its own; the timing does not depend on the values).

Each side is timed over --steps steps after --warmup untimed ones (Benchtop: one warm-up);
the script prints one JSON object with each side's ms_per_step and the ratio
benchtop / pytorch (below 1: Benchtop is faster). The Benchtop side is
`benchtop bench neurotree --subjects B --rois N --steps S` (plus `--time-points T` when T is
not 150) with RAYON_NUM_THREADS set to --threads, or a JSON report saved earlier
(--benchtop-json FILE).

    python3 -m pip install torch
    cargo build --release --workspace
    python3 scripts/bench_neurotree_peer.py [--subjects 32] [--rois 116] [--time-points 150]
                                            [--steps 20] [--threads 2]
                                            [--benchtop target/release/benchtop]
                                            [--benchtop-json FILE] [--skip-benchtop]
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
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - message for people running the script
    sys.exit("PyTorch is not installed: python3 -m pip install torch")

WINDOWS = 2
HIDDEN = 64
HEAD_HIDDEN = 32
DROPOUT = 0.5
CMFC_WEIGHT = 1.0
TEMPERATURE = 0.07
LEARNING_RATE = 1e-2
WEIGHT_DECAY = 1e-5
DEFAULT_TIME_POINTS = 150


def xavier(generator, fan_in, fan_out):
    bound = math.sqrt(6.0 / (fan_in + fan_out))
    return torch.nn.Parameter((torch.rand(fan_in, fan_out, generator=generator) * 2 - 1) * bound)


class AgeGcn(torch.nn.Module):
    """The AGE-GCN encoder, node gate and class head."""

    def __init__(self, nodes, features, generator):
        super().__init__()
        self.gamma = xavier(generator, nodes, nodes)
        self.lambda_raw = torch.nn.Parameter(torch.tensor(0.5))
        self.beta_raw = torch.nn.Parameter(torch.tensor(0.5))
        self.weight = xavier(generator, features, HIDDEN)
        self.gate = xavier(generator, HIDDEN, 1)
        self.head1 = xavier(generator, HIDDEN, HEAD_HIDDEN)
        self.head1_bias = torch.nn.Parameter(torch.zeros(HEAD_HIDDEN))
        self.head2 = xavier(generator, HEAD_HIDDEN, 2)
        self.head2_bias = torch.nn.Parameter(torch.zeros(2))

    def encode(self, a_s, a_d, x, age):
        """a_s [B,N,N], a_d [B,W,N,N], x [B,W,N,F], age [B] -> Z [B,N,H]."""
        lam = torch.sigmoid(self.lambda_raw)
        beta = torch.sigmoid(self.beta_raw)
        z = 0
        for t in range(a_d.shape[1]):
            mixed = lam * a_d[:, t] + (1 - lam) * a_d[:, t].transpose(1, 2)
            a_w = self.gamma * a_s * mixed
            e = beta * age[:, None, None] * x[:, t]
            z = z + torch.relu(a_w @ (x[:, t] * e) @ self.weight)
        return z

    def loss(self, a_s, a_d, x, age, labels, strong):
        z = self.encode(a_s, a_d, x, age)
        h = torch.relu(z.mean(1) @ self.head1 + self.head1_bias)
        h = F.dropout(h, DROPOUT, training=True)
        logits = h @ self.head2 + self.head2_bias
        return F.cross_entropy(logits, labels) + CMFC_WEIGHT * self.cmfc(z, strong)

    def cmfc(self, z, strong):
        """Node-pair InfoNCE over strong anchors + node-gate BCE; strong [B,N] in {0,1}."""
        n = z.shape[1]
        unit = F.normalize(z, dim=-1, eps=1e-6)
        similarity = unit @ unit.transpose(1, 2) / TEMPERATURE
        off_diagonal = 1 - torch.eye(n)
        e = torch.exp(similarity - 1 / TEMPERATURE) * off_diagonal
        anchors = strong * (strong.sum(1, keepdim=True) >= 2)
        positive = (e * anchors[:, None, :]).sum(-1)
        per_node = torch.log(e.sum(-1)) - torch.log(positive + (1 - anchors))
        count = anchors.sum()
        info = (per_node * anchors).sum() / count if count > 0 else z.sum() * 0
        gate = (z @ self.gate).squeeze(-1)
        return info + F.binary_cross_entropy_with_logits(gate, strong)


def make_batch(subjects, rois, time_points, seed):
    generator = torch.Generator().manual_seed(seed)
    features = rois  # FC-row node features: one per ROI
    a_s = torch.rand(subjects, rois, rois, generator=generator) / rois
    a_d = torch.rand(subjects, WINDOWS, rois, rois, generator=generator) / rois
    x = torch.randn(subjects, WINDOWS, rois, features, generator=generator)
    age = (18 + torch.arange(subjects) % 48).float() / 100
    labels = torch.arange(subjects) % 2
    strength = a_d.abs().mean(dim=(1, 3))
    strong = (strength >= strength.mean(1, keepdim=True)).float()
    return a_s, a_d, x, age, labels, strong


def pytorch_peer(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    batch = make_batch(args.subjects, args.rois, args.time_points, args.seed)
    model = AgeGcn(args.rois, args.rois, torch.Generator().manual_seed(args.seed + 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = model.loss(*batch)
        loss.backward()
        optimizer.step()
        return loss.item()

    for _ in range(args.warmup):
        step()
    times_ms, losses = [], []
    for _ in range(args.steps):
        started = time.perf_counter()
        losses.append(step())
        times_ms.append((time.perf_counter() - started) * 1e3)
    if not all(math.isfinite(v) for v in losses):
        sys.exit(f"PyTorch loss is not finite: {losses}")
    times_ms.sort()
    return {
        "ms_per_step": sum(times_ms) / len(times_ms),
        "median_ms_per_step": times_ms[len(times_ms) // 2],
        "min_ms_per_step": times_ms[0],
        "final_loss": losses[-1],
        "first_loss": losses[0],
        "parameters": sum(p.numel() for p in model.parameters()),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
    }


def read_report(text, source):
    """The JSON object on the last non-empty line of `text` (or the whole of it)."""
    lines = [line for line in text.splitlines() if line.strip()]
    ours = None
    for candidate in (lines[-1] if lines else "", text):
        try:
            ours = json.loads(candidate)
            break
        except json.JSONDecodeError:
            continue
    if not isinstance(ours, dict) or "ms_per_step" not in ours:
        sys.exit(f"{source} holds no JSON report with ms_per_step:\n{text}")
    return ours


def benchtop_side(args):
    if args.benchtop_json:
        with open(args.benchtop_json, encoding="utf-8") as f:
            return read_report(f.read(), args.benchtop_json)
    if not os.path.exists(args.benchtop):
        sys.exit(
            f"{args.benchtop} not found: build it with `cargo build --release --workspace`, "
            "pass --benchtop PATH or --benchtop-json FILE (or --skip-benchtop to time PyTorch alone)"
        )
    command = [
        args.benchtop, "bench", "neurotree",
        "--subjects", str(args.subjects), "--rois", str(args.rois), "--steps", str(args.steps),
    ]
    if args.time_points != DEFAULT_TIME_POINTS:
        command += ["--time-points", str(args.time_points)]
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    run = subprocess.run(command, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        text = (run.stderr or run.stdout).strip()
        sys.exit(
            f"`{' '.join(command)}` failed with exit code {run.returncode}:\n{text}\n"
            "(a benchtop without `bench neurotree`: pass --benchtop-json FILE or --skip-benchtop)"
        )
    return read_report(run.stdout, f"the output of `{' '.join(command)}`")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subjects", type=int, default=32, help="batch size B (subjects)")
    parser.add_argument("--rois", type=int, default=116, help="ROIs N")
    parser.add_argument("--time-points", type=int, default=DEFAULT_TIME_POINTS, help="time points T (2 windows of T/2)")
    parser.add_argument("--steps", type=int, default=20, help="timed training steps")
    parser.add_argument("--warmup", type=int, default=1, help="untimed training steps first")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--benchtop", default="target/release/benchtop")
    parser.add_argument("--benchtop-json", help="a saved `benchtop bench neurotree` JSON report")
    parser.add_argument("--skip-benchtop", action="store_true", help="time the PyTorch side only")
    args = parser.parse_args()
    for name in ("subjects", "rois", "steps", "threads"):
        if getattr(args, name) < 1:
            sys.exit(f"--{name.replace('_', '-')} must be at least 1")
    if args.time_points < 2 * WINDOWS:
        sys.exit("--time-points must be at least 4")

    # Benchtop first, so a missing subcommand fails before the PyTorch timing.
    ours = None if args.skip_benchtop else benchtop_side(args)
    peer = pytorch_peer(args)
    report = {
        "subjects": args.subjects,
        "rois": args.rois,
        "time_points": args.time_points,
        "steps": args.steps,
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
