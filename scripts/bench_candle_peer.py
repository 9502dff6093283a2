#!/usr/bin/env python3
"""candle's cost per small-tensor op: Benchtop's 64-wide MLP step against PyTorch's (CPU).

Both sides build the same problem value for value (engines/learn/src/mlp_step.rs): one
SplitMix64 stream seeded with --seed gives, in this order, the inputs X (batch x width,
row-major), the targets Y (batch x width), then for each of the hidden_layers + 1 linear layers
its weight (out x in, row-major) and bias; each value is u = (z >> 11) / 2^53 mapped to 2u - 1
(X, Y) or (2u - 1) / sqrt(width) (weights and biases). The network is width -> width (ReLU) ...
-> width, the loss mean((f(X) - Y)^2), the optimiser torch.optim.Adam (lr --learning-rate),
float32. One step is zero_grad + forward + backward + Adam, as a PyTorch user writes it. The
two sides follow the same loss curve up to rounding, so their final losses agree closely.

Each side is timed over --steps steps after --warmup untimed ones; the script prints one JSON
object with each side's ms_per_step, first_loss and final_loss and the ratio benchtop /
pytorch (below 1: Benchtop is faster). The Benchtop side is `benchtop bench candle-mlp` with
the same options and RAYON_NUM_THREADS = --threads (torch.set_num_threads(--threads) here).

    python3 -m pip install torch
    cargo build --release --workspace
    python3 scripts/bench_candle_peer.py [--batch 64] [--width 64] [--hidden-layers 2]
                                         [--steps 500] [--warmup 20] [--threads 2]
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
    import torch
except ImportError:  # pragma: no cover - message for people running the script
    sys.exit("PyTorch is not installed: python3 -m pip install torch")

MASK = (1 << 64) - 1


class SplitMix64:
    """The integer stream both sides share."""

    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def symmetric(self, count, bound):
        """count values (2u - 1) * bound, rounded to float32 as the Rust side does."""
        scale = 1.0 / float(1 << 53)
        values = [((2.0 * ((self.next() >> 11) * scale) - 1.0) * bound) for _ in range(count)]
        return torch.tensor(values, dtype=torch.float64).to(torch.float32)


def build(args):
    stream = SplitMix64(args.seed)
    b, w = args.batch, args.width
    x = stream.symmetric(b * w, 1.0).reshape(b, w)
    y = stream.symmetric(b * w, 1.0).reshape(b, w)
    layers = []
    bound = 1.0 / math.sqrt(w)
    for _ in range(args.hidden_layers + 1):
        layer = torch.nn.Linear(w, w)
        with torch.no_grad():
            layer.weight.copy_(stream.symmetric(w * w, bound).reshape(w, w))
            layer.bias.copy_(stream.symmetric(w, bound))
        layers.append(layer)
    modules = []
    for i, layer in enumerate(layers):
        modules.append(layer)
        if i + 1 < len(layers):
            modules.append(torch.nn.ReLU())
    return x, y, torch.nn.Sequential(*modules)


def pytorch_peer(args):
    torch.set_num_threads(args.threads)
    x, y, model = build(args)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate)

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()

    losses = [step() for _ in range(args.warmup)]
    started = time.perf_counter()
    for _ in range(args.steps):
        losses.append(step())
    elapsed = time.perf_counter() - started
    if not all(math.isfinite(v) for v in losses):
        sys.exit(f"PyTorch loss is not finite: {losses[-5:]}")
    return {
        "ms_per_step": elapsed * 1e3 / args.steps,
        "first_loss": losses[0],
        "final_loss": losses[-1],
        "parameters": sum(p.numel() for p in model.parameters()),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
    }


def benchtop_side(args):
    command = [
        args.benchtop, "bench", "candle-mlp",
        "--batch", str(args.batch), "--width", str(args.width),
        "--hidden-layers", str(args.hidden_layers), "--steps", str(args.steps),
        "--warmup", str(args.warmup), "--learning-rate", str(args.learning_rate),
        "--seed", str(args.seed),
    ]
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    try:
        run = subprocess.run(command, capture_output=True, text=True, env=env)
    except FileNotFoundError:
        sys.exit(f"{args.benchtop} not found: cargo build --release --workspace, or pass --skip-benchtop")
    if run.returncode != 0:
        sys.exit(f"`{' '.join(command)}` failed with exit code {run.returncode}:\n{(run.stderr or run.stdout).strip()}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--width", type=int, default=64)
    parser.add_argument("--hidden-layers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--benchtop", default="target/release/benchtop")
    parser.add_argument("--skip-benchtop", action="store_true", help="time the PyTorch side only")
    args = parser.parse_args()
    for name in ("batch", "width", "hidden_layers", "steps", "threads"):
        if not 1 <= getattr(args, name) <= 4096:
            sys.exit(f"--{name.replace('_', '-')} must be between 1 and 4096")
    if args.warmup < 0:
        sys.exit("--warmup must be at least 0")

    ours = None if args.skip_benchtop else benchtop_side(args)
    peer = pytorch_peer(args)
    report = {
        "batch": args.batch,
        "width": args.width,
        "hidden_layers": args.hidden_layers,
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
