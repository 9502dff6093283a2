#!/usr/bin/env python3
"""Property-scoring throughput: Benchtop's MolStitch engine against Python RDKit, same molecules.

Scores the shipped offline set (assets/molstitch/moses_offline.csv.gz, 5,000 MOSES SMILES) with
Python RDKit exactly as the engine does per molecule: parse, canonical SMILES, MolWt, Crippen
MolLogP, TPSA, QED.qed and the Contrib sascorer. Then runs `benchtop bench molstitch --threads T`
(T = 1 and 2; its `scoring` object) and prints both rates and the ratio Rust / Python.

    cargo build --release --workspace
    python3 scripts/bench_molstitch_peer.py [--bin target/release/benchtop] [--rust-json FILE]

--rust-json reads `benchtop bench molstitch` output lines from a file instead of running it;
--skip-benchtop times Python RDKit alone; --json prints one JSON object instead of the lines
(`python`: molecules, valid, seconds, molecules_per_s, checksum_qed_plus_sa; `rust`: the
`scoring` objects; `ratio_1_thread`). scripts/bench-all.sh uses --skip-benchtop --json.
"""

import argparse
import csv
import gzip
import io
import json
import os
import subprocess
import sys
import time

from rdkit import Chem, RDConfig, RDLogger, rdBase
from rdkit.Chem import QED, Crippen, Descriptors, rdMolDescriptors

sys.path.append(os.path.join(RDConfig.RDContribDir, "SA_Score"))
import sascorer  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(REPO, "assets", "molstitch", "moses_offline.csv.gz")


def load():
    with gzip.open(DATA, "rt") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["smiles"]
    return [r[0] for r in rows[1:]]


def score(smiles):
    total = 0.0
    valid = 0
    for s in smiles:
        m = Chem.MolFromSmiles(s)
        if m is None:
            continue
        Chem.MolToSmiles(m)
        Descriptors.MolWt(m)
        Crippen.MolLogP(m)
        rdMolDescriptors.CalcTPSA(m)
        total += QED.qed(m) + sascorer.calculateScore(m)
        valid += 1
    return valid, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(REPO, "target", "release", "benchtop"))
    ap.add_argument("--rust-json", help="file with `benchtop bench molstitch` JSON lines")
    ap.add_argument("--skip-benchtop", action="store_true", help="time Python RDKit only")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    say = (lambda *_: None) if args.json else print
    RDLogger.DisableLog("rdApp.*")
    smiles = load()
    sascorer.readFragmentScores()  # warm-up, as the Rust side loads its table before timing
    score(["CCO"])
    t0 = time.perf_counter()
    valid, checksum = score(smiles)
    py_s = time.perf_counter() - t0
    py_rate = len(smiles) / py_s
    python = {"rdkit": rdBase.rdkitVersion, "molecules": len(smiles), "valid": valid,
              "seconds": py_s, "molecules_per_s": py_rate, "checksum_qed_plus_sa": checksum}
    if args.skip_benchtop:
        if args.json:
            print(json.dumps({"python": python}))
        else:
            say(f"python rdkit {rdBase.rdkitVersion}, 1 process: {len(smiles)} molecules ({valid} valid) "
                f"in {py_s:.3f} s = {py_rate:.0f} molecules/s (checksum QED+SA {checksum:.4f})")
        return
    say(f"python rdkit {rdBase.rdkitVersion}, 1 process: {len(smiles)} molecules ({valid} valid) "
          f"in {py_s:.3f} s = {py_rate:.0f} molecules/s (checksum QED+SA {checksum:.4f})")

    if args.rust_json:
        with open(args.rust_json) as f:
            text = f.read()
    else:
        # The sampling part of the benchmark is kept tiny here: only scoring is compared.
        text = "".join(
            subprocess.run([args.bin, "bench", "molstitch", "--threads", str(t),
                            "--train-molecules", "100", "--train-epochs", "1", "--samples", "10"],
                           cwd=REPO, check=True, capture_output=True, text=True).stdout
            for t in (1, 2))
    results = [json.loads(line)["scoring"] for line in text.splitlines() if line.startswith("{")]
    for r in results:
        say(f"rust benchtop-molstitch, {r['threads']} thread(s): {r['molecules']} molecules "
              f"({r['valid']} valid) in {r['seconds']:.3f} s = {r['molecules_per_s']:.0f} molecules/s "
              f"(checksum QED+SA {r['checksum_qed_plus_sa']:.4f})")
    one = next(r for r in results if r["threads"] == 1)
    say(f"ratio rust/python, 1 thread each: {one['molecules_per_s'] / py_rate:.2f}")
    if args.json:
        print(json.dumps({"python": python, "rust": results,
                          "ratio_1_thread": one["molecules_per_s"] / py_rate}))
    if len(results) > 1:
        best = max(results, key=lambda r: r["threads"])
        say(f"ratio rust ({best['threads']} threads)/python (1 process): "
              f"{best['molecules_per_s'] / py_rate:.2f}")
    say(f"checksum difference rust - python: {one['checksum_qed_plus_sa'] - checksum:.3e}")
    if abs(one["checksum_qed_plus_sa"] - checksum) > 1e-6 * max(1.0, abs(checksum)):
        print(f"WARNING: checksums differ: rust {one['checksum_qed_plus_sa']} python {checksum}")


if __name__ == "__main__":
    main()
