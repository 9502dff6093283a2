#!/usr/bin/env python3
"""FINDR training step: Benchtop against a PyTorch peer on the same model and batch (CPU).

The peer is the model a scientist would write in PyTorch: a bidirectional GRU encoder
(torch.nn.GRU, hidden E per direction, input = [spikes, clicks]), the posterior and prior
gated drifts of width H, the Euler-Maruyama loop over T bins with the reparameterised noise,
softplus-Poisson observations on a fixed baseline, and the loss
    mean over (trial, bin) of [Poisson NLL + beta_KL * one-step KL] + l2 * sum(w^2)
with beta_KL = 2 and l2 = 1e-7. A training step is forward + backward + clip_grad_norm_(5) +
SGD with momentum (lr 0.01, momentum 0.9). Latent D = 2, inputs U = 2, alpha = dt/tau = 0.1,
dt = 0.01 s. Both sides get the same sizes; the batch is B full-length trials of T bins with
Poisson spikes at about 10 Hz and random clicks (seeded).

Each side is timed over --steps steps after --warmup untimed ones; the script prints one JSON
object with each side's ms_per_step and final_loss and the ratio benchtop / pytorch (below 1:
Benchtop is faster). The Benchtop side is `benchtop bench findr --trials B --bins T --neurons N
--flow-width H --encoder E --steps S`, with RAYON_NUM_THREADS set to --threads.

    python3 -m pip install torch numpy
    cargo build --release --workspace
    python3 scripts/bench_findr_peer.py [--trials 25] [--bins 100] [--neurons 50]
                                        [--flow-width 50] [--encoder 50] [--steps 50]
                                        [--threads 2] [--benchtop target/release/benchtop]
                                        [--skip-benchtop]
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

LATENT = 2  # D
INPUTS = 2  # U (left, right clicks)
ALPHA = 0.1  # dt / tau
BIN_S = 0.01  # dt
RATE_FLOOR_HZ = 1e-5
BETA_KL = 2.0
L2 = 1e-7
LEARNING_RATE = 0.01
MOMENTUM = 0.9
CLIP_NORM = 5.0
STATE_SCALE = 1.414  # variance scale of the kernels on z
INPUT_SCALE = 1.0  # variance scale of the kernels on e and u
BIAS_STD = 1e-3


def kernel(generator, fan_in, fan_out, scale):
    """A [fan_in, fan_out] kernel (applied as x @ W), truncated normal with variance scale / fan_in."""
    w = torch.empty(fan_in, fan_out)
    # A unit normal truncated to [-2, 2] has standard deviation 0.87962566.
    torch.nn.init.trunc_normal_(w, 0.0, 1.0, -2.0, 2.0, generator=generator)
    return torch.nn.Parameter(w * (math.sqrt(scale / fan_in) / 0.87962566))


def bias(generator, size):
    return torch.nn.Parameter(torch.randn(size, generator=generator) * BIAS_STD)


class GatedDrift(torch.nn.Module):
    """g * (-z + tanh(W_o silu(sum_x x W_x + c) + c_o)), g = sigmoid(sum_x x G_x + c_g).

    The first input is the state z (kernels with scale 1.414), the others (e, u) use scale 1.
    """

    def __init__(self, generator, widths, hidden):
        super().__init__()
        scales = [STATE_SCALE] + [INPUT_SCALE] * (len(widths) - 1)
        self.gate = torch.nn.ParameterList(kernel(generator, w, LATENT, s) for w, s in zip(widths, scales))
        self.gate_bias = bias(generator, LATENT)
        self.hidden = torch.nn.ParameterList(kernel(generator, w, hidden, s) for w, s in zip(widths, scales))
        self.hidden_bias = bias(generator, hidden)
        self.output = kernel(generator, hidden, LATENT, STATE_SCALE)
        self.output_bias = bias(generator, LATENT)

    def forward(self, *xs):
        z = xs[0]
        g = self.gate_bias
        a = self.hidden_bias
        for x, gk, hk in zip(xs, self.gate, self.hidden):
            g = g + x @ gk
            a = a + x @ hk
        target = torch.tanh(F.silu(a) @ self.output + self.output_bias)
        return torch.sigmoid(g) * (target - z)


class Findr(torch.nn.Module):
    def __init__(self, neurons, flow_width, encoder, generator):
        super().__init__()
        self.encoder = torch.nn.GRU(neurons + INPUTS, encoder, batch_first=True, bidirectional=True)
        for name, p in self.encoder.named_parameters():
            with torch.no_grad():
                if name.startswith("weight_hh"):
                    for k in range(3):  # r, z, n blocks: orthogonal each
                        torch.nn.init.orthogonal_(p[k * encoder:(k + 1) * encoder], generator=generator)
                elif name.startswith("weight_ih"):
                    bound = math.sqrt(1.0 / (neurons + INPUTS)) / 0.87962566
                    torch.nn.init.trunc_normal_(p, 0.0, bound, -2 * bound, 2 * bound, generator=generator)
                else:
                    p.copy_(torch.randn(p.shape, generator=generator) * BIAS_STD)
        self.prior = GatedDrift(generator, [LATENT, INPUTS], flow_width)
        self.posterior = GatedDrift(generator, [LATENT, 2 * encoder, INPUTS], flow_width)
        self.noise_logit = torch.nn.Parameter(torch.zeros(LATENT))
        self.readout = kernel(generator, LATENT, neurons, INPUT_SCALE)  # C [D, N], no bias

    def loss(self, spikes, inputs, baseline, log_factorial, noise):
        """Mean over (trial, bin) of NLL + beta_KL * KL, plus l2 * sum(w^2)."""
        batch, bins, _ = spikes.shape
        e = self.encoder(torch.cat([spikes, inputs], dim=-1))[0]  # [B, T, 2E]
        sigma = torch.sigmoid(self.noise_logit)
        z = spikes.new_zeros(batch, LATENT)
        latents, kls = [], []
        for t in range(bins):
            u = inputs[:, t]
            d_post = self.posterior(z, e[:, t], u)
            d_prior = self.prior(z, u)
            kls.append((0.5 * ALPHA) * (((d_prior - d_post) / sigma) ** 2).sum(-1))
            z = z + ALPHA * d_post + math.sqrt(ALPHA) * sigma * noise[t]
            latents.append(z)
        z_all = torch.stack(latents, dim=1)  # [B, T, D]
        mean = (F.softplus(z_all @ self.readout + baseline) + RATE_FLOOR_HZ) * BIN_S
        nll = (mean - spikes * torch.log(mean) + log_factorial).sum(-1)  # [B, T]
        kl = torch.stack(kls, dim=1)  # [B, T]
        l2 = sum((p * p).sum() for p in self.parameters())
        return (nll + BETA_KL * kl).mean() + L2 * l2


def make_batch(trials, bins, neurons, seed):
    """Poisson spikes at about 10 Hz, random clicks and the fixed baseline, seeded."""
    g = torch.Generator().manual_seed(seed)
    rates_hz = 5.0 + 10.0 * torch.rand(neurons, generator=g)  # 5 to 15 Hz, mean 10
    spikes = torch.poisson((rates_hz * BIN_S).expand(trials, bins, neurons).contiguous(), generator=g)
    inputs = torch.bernoulli(torch.full((trials, bins, INPUTS), 0.2), generator=g)
    # softplus^{-1}(rate): the baseline alone reproduces the spikes' rates.
    baseline = (rates_hz + torch.log(-torch.expm1(-rates_hz))).expand(trials, bins, neurons).contiguous()
    log_factorial = torch.lgamma(spikes + 1.0)
    return spikes, inputs, baseline, log_factorial


def pytorch_peer(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    spikes, inputs, baseline, log_factorial = make_batch(args.trials, args.bins, args.neurons, args.seed)
    model = Findr(args.neurons, args.flow_width, args.encoder, torch.Generator().manual_seed(args.seed + 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE, momentum=MOMENTUM)
    noise_generator = torch.Generator().manual_seed(args.seed + 2)

    def step():
        noise = torch.randn(args.bins, args.trials, LATENT, generator=noise_generator)
        optimizer.zero_grad(set_to_none=True)
        loss = model.loss(spikes, inputs, baseline, log_factorial, noise)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP_NORM)
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


def benchtop_side(args):
    if not os.path.exists(args.benchtop):
        sys.exit(
            f"{args.benchtop} not found: build it with `cargo build --release --workspace` "
            "or pass --benchtop PATH (or --skip-benchtop to time PyTorch alone)"
        )
    command = [
        args.benchtop, "bench", "findr",
        "--trials", str(args.trials), "--bins", str(args.bins), "--neurons", str(args.neurons),
        "--flow-width", str(args.flow_width), "--encoder", str(args.encoder),
        "--steps", str(args.steps),
    ]
    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    run = subprocess.run(command, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        text = (run.stderr or run.stdout).strip()
        if "unknown engine" in text:
            said = text.splitlines()[-1]
            sys.exit(
                f"{args.benchtop} has no `bench findr` subcommand (it said: {said}); rebuild it "
                "from a branch with the FINDR benchmark, or pass --skip-benchtop"
            )
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
    parser.add_argument("--trials", type=int, default=25, help="batch size B (trials)")
    parser.add_argument("--bins", type=int, default=100, help="bins T per trial")
    parser.add_argument("--neurons", type=int, default=50, help="neurons N")
    parser.add_argument("--flow-width", type=int, default=50, help="hidden width H of the drifts")
    parser.add_argument("--encoder", type=int, default=50, help="GRU hidden units E per direction")
    parser.add_argument("--steps", type=int, default=50, help="timed training steps")
    parser.add_argument("--warmup", type=int, default=5, help="untimed training steps first")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--benchtop", default="target/release/benchtop")
    parser.add_argument("--skip-benchtop", action="store_true", help="time the PyTorch side only")
    args = parser.parse_args()
    for name in ("trials", "bins", "neurons", "flow_width", "encoder", "steps", "threads"):
        if getattr(args, name) < 1:
            sys.exit(f"--{name.replace('_', '-')} must be at least 1")

    # Benchtop first, so a missing subcommand fails before minutes of PyTorch timing.
    ours = None if args.skip_benchtop else benchtop_side(args)
    peer = pytorch_peer(args)
    report = {
        "trials": args.trials,
        "bins": args.bins,
        "neurons": args.neurons,
        "flow_width": args.flow_width,
        "encoder": args.encoder,
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
