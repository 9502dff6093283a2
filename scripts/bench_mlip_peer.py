#!/usr/bin/env python3
"""PIWSL training step: Benchtop against a PyTorch peer on the same model and losses (CPU).

The model on both sides: E(R) = offset + sum over atom pairs of MLP(phi(d_ij)), with
phi_k(d) = exp(-((d - mu_k) / w)^2) for 8 centres mu_k evenly from 0.8 to 2.5 (w = their
spacing) and an MLP 8 -> 16 -> 16 -> 1 with tanh; forces F = -dE/dR (PyTorch: autograd with
create_graph=True, so the force loss is differentiated twice; Benchtop: hand-derived
forward-over-reverse). The loss of one full-batch step over C labelled Lennard-Jones
configurations of N atoms is
    MSE(E) + 100 * MSE(F)                                    (supervised, lambda_F = 100)
  + 1.2  * mean (E(C) - [E(A) - d1 . F(A)])^2                (PITC, coef_rob)
  + 0.01 * mean (E(C) - [E(B) - (d1 - d2) . F(B)])^2         (PISC, coef_cyc)
with A = R, B = R + d2, C = R + d1 and d1, d2 ~ 0.05 * U[0, 1) per coordinate, then one
Adam update (lr 1e-3). The configurations differ between the two sides (Benchtop samples
them by Langevin dynamics, the peer jitters simple-cubic sites); the work per step is the
same: C configurations, N(N-1)/2 pairs each, three energy evaluations and two force
evaluations per configuration.

Each side is timed over --steps steps (the peer after --warmup untimed ones); the script
prints one JSON object with each side's ms_per_step and the ratio benchtop / pytorch (below
1: Benchtop is faster).

    python3 -m pip install torch     # a CPU build is enough
    cargo build --release --workspace --bin benchtop
    python3 scripts/bench_mlip_peer.py [--atoms 7] [--configs 32] [--steps 50] [--threads 1]
                                       [--benchtop target/release/benchtop] [--skip-benchtop]
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

try:
    import torch
except ImportError:  # pragma: no cover - message for people running the script
    sys.exit("PyTorch is not installed: python3 -m pip install torch")

RBF, HIDDEN, R_MIN, R_MAX = 8, 16, 0.8, 2.5
LAMBDA_F, COEF_ROB, COEF_CYC, DELTA, LR = 100.0, 1.2, 0.01, 0.05, 1e-3


def lj(r):
    """Lennard-Jones energies of a batch [B, N, 3] (epsilon = sigma = 1)."""
    n = r.shape[1]
    i, j = torch.triu_indices(n, n, 1)
    d = (r[:, i] - r[:, j]).norm(dim=-1)
    s6 = d.pow(-6)
    return (4 * (s6 * s6 - s6)).sum(-1)


def configurations(atoms, count, gen):
    """Simple-cubic sites (spacing 1.12) nearest the origin, jittered by 0.05."""
    grid = torch.stack(torch.meshgrid(*[torch.arange(-2, 3)] * 3, indexing="ij"), -1).reshape(-1, 3)
    sites = grid.double() * 1.12
    order = torch.argsort((sites ** 2).sum(-1) + 1e-3 * sites[:, 0] + 1e-6 * sites[:, 1])
    base = sites[order[:atoms]]
    r = base + 0.05 * torch.randn(count, atoms, 3, generator=gen, dtype=torch.float64)
    r.requires_grad_(True)
    e = lj(r)
    (f,) = torch.autograd.grad(-e.sum(), r)
    return r.detach(), e.detach(), f.detach()


class PairModel(torch.nn.Module):
    def __init__(self, atoms, offset):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(RBF, HIDDEN), torch.nn.Tanh(),
            torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.Tanh(),
            torch.nn.Linear(HIDDEN, 1),
        ).double()
        self.register_buffer("mu", torch.linspace(R_MIN, R_MAX, RBF, dtype=torch.float64))
        self.width = (R_MAX - R_MIN) / (RBF - 1)
        self.i, self.j = torch.triu_indices(atoms, atoms, 1)
        self.offset = offset

    def forward(self, r):
        d = (r[:, self.i] - r[:, self.j]).norm(dim=-1)
        phi = torch.exp(-(((d.unsqueeze(-1) - self.mu) / self.width) ** 2))
        return self.net(phi).squeeze(-1).sum(-1) + self.offset

    def energy_forces(self, r):
        r = r.requires_grad_(True) if not r.requires_grad else r
        e = self(r)
        (g,) = torch.autograd.grad(e.sum(), r, create_graph=True)
        return e, -g


def peer(atoms, configs, steps, warmup, seed):
    gen = torch.Generator().manual_seed(seed)
    r, e_ref, f_ref = configurations(atoms, configs, gen)
    model = PairModel(atoms, float(e_ref.mean()))
    opt = torch.optim.Adam(model.parameters(), lr=LR)

    def step():
        d1 = DELTA * torch.rand(r.shape, generator=gen, dtype=torch.float64)
        d2 = DELTA * torch.rand(r.shape, generator=gen, dtype=torch.float64)
        a = r.clone().requires_grad_(True)
        b = (r + d2).requires_grad_(True)
        ea, fa = model.energy_forces(a)
        eb, fb = model.energy_forces(b)
        ec = model(r + d1)
        loss = ((ea - e_ref) ** 2).mean() + LAMBDA_F * ((fa - f_ref) ** 2).mean()
        loss = loss + COEF_ROB * ((ec - (ea - (d1 * fa).sum((1, 2)))) ** 2).mean()
        loss = loss + COEF_CYC * ((ec - (eb - ((d1 - d2) * fb).sum((1, 2)))) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return float(loss.detach())

    for _ in range(warmup):
        step()
    start = time.perf_counter()
    last = 0.0
    for _ in range(steps):
        last = step()
    ms = (time.perf_counter() - start) * 1e3 / steps
    return {"ms_per_step": ms, "final_loss": last,
            "params": sum(p.numel() for p in model.parameters())}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--atoms", type=int, default=7)
    ap.add_argument("--configs", type=int, default=32)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--benchtop", default="target/release/benchtop")
    ap.add_argument("--skip-benchtop", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    out = {"atoms": args.atoms, "configs": args.configs, "steps": args.steps,
           "threads": args.threads, "machine": platform.processor() or platform.machine(),
           "torch": torch.__version__}
    out["pytorch"] = peer(args.atoms, args.configs, args.steps, args.warmup, args.seed)
    if not args.skip_benchtop:
        env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
        cmd = [args.benchtop, "bench", "mlip", "--atoms", str(args.atoms), "--configs",
               str(args.configs), "--steps", str(args.steps), "--seed", str(args.seed)]
        text = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
        ours = json.loads(text.strip().splitlines()[-1])
        out["benchtop"] = {"ms_per_step": ours["ms_per_step"], "final_loss": ours["final_loss"],
                           "params": ours["params"]}
        out["ratio_benchtop_over_pytorch"] = ours["ms_per_step"] / out["pytorch"]["ms_per_step"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
