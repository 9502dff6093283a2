#!/usr/bin/env python3
"""Writes the MolStitch offline dataset: a fixed, seeded subsample of the MOSES training set.

MOSES (Polykovskiy et al., "Molecular Sets (MOSES)", Frontiers in Pharmacology 2020) ships its
training split inside the MIT-licensed `molsets` wheel as `moses/dataset/data/train.csv.gz`
(1,584,663 SMILES, header `SMILES`). This script draws N of them without replacement,

    idx = sorted(random.Random(SEED).sample(range(n_rows), N))

(Python's Mersenne-Twister `random.sample`, stable across CPython 3.x), keeps them in their
original file order, and writes `assets/molstitch/moses_offline.csv.gz`: one column `smiles`,
gzip level 9 with mtime 0, so the bytes are reproducible. No properties are stored: the
engine scores the molecules itself with its own RDKit path.

    python3 -m pip download molsets==0.3.1 --no-deps -d /tmp/molsets
    python3 scripts/make_molstitch_offline.py --molsets-wheel /tmp/molsets/molsets-0.3.1-py3-none-any.whl

    python3 scripts/make_molstitch_offline.py --sums 300
prints, for the first 300 molecules of the written file, the sums of MolWt, MolLogP, TPSA, QED
and SA computed with Python RDKit (with repr precision); `offline::tests` asserts the engine's
sums equal them.
"""

import argparse
import csv
import gzip
import hashlib
import io
import os
import random
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "assets", "molstitch", "moses_offline.csv.gz")
MEMBER = "moses/dataset/data/train.csv.gz"
SEED = 20250713
N = 5000


def sums(n):
    import sys

    from rdkit import Chem, RDConfig
    from rdkit.Chem import QED, Crippen, Descriptors, rdMolDescriptors

    sys.path.append(os.path.join(RDConfig.RDContribDir, "SA_Score"))
    import sascorer

    with gzip.open(OUT, "rt") as f:
        rows = list(csv.reader(f))[1 : n + 1]
    totals = [0.0] * 5
    for (s,) in rows:
        m = Chem.MolFromSmiles(s)
        vals = [Descriptors.MolWt(m), Crippen.MolLogP(m), rdMolDescriptors.CalcTPSA(m),
                QED.qed(m), sascorer.calculateScore(m)]
        totals = [t + v for t, v in zip(totals, vals)]
    for name, t in zip(["mw", "logp", "tpsa", "qed", "sa"], totals):
        print(f"{name} {t!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sums", type=int, help="print Python RDKit property sums of the first N rows")
    ap.add_argument("--molsets-wheel", help="path to molsets-0.3.1-py3-none-any.whl")
    ap.add_argument("--n", type=int, default=N, help=f"number of molecules (default {N})")
    ap.add_argument("--seed", type=int, default=SEED, help=f"random.Random seed (default {SEED})")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    if args.sums:
        sums(args.sums)
        return
    if not args.molsets_wheel:
        ap.error("--molsets-wheel is required")

    with open(args.molsets_wheel, "rb") as f:
        wheel = f.read()
    print(f"wheel SHA-256 {hashlib.sha256(wheel).hexdigest()}")
    with zipfile.ZipFile(io.BytesIO(wheel)) as z:
        raw = z.read(MEMBER)
    print(f"{MEMBER} SHA-256 {hashlib.sha256(raw).hexdigest()}")
    text = gzip.decompress(raw).decode("ascii")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["SMILES"], rows[0]
    smiles = [r[0] for r in rows[1:]]
    print(f"{len(smiles)} training SMILES")
    idx = sorted(random.Random(args.seed).sample(range(len(smiles)), args.n))
    body = io.StringIO()
    w = csv.writer(body, lineterminator="\n")
    w.writerow(["smiles"])
    for i in idx:
        w.writerow([smiles[i]])
    data = gzip.compress(body.getvalue().encode("ascii"), compresslevel=9, mtime=0)
    with open(args.out, "wb") as f:
        f.write(data)
    print(f"wrote {args.out}: {args.n} SMILES, first rows {idx[:5]}, SHA-256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
