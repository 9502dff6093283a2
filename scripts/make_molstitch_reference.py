#!/usr/bin/env python3
"""Reference values for the MolStitch engine, computed with Python RDKit.

Writes engines/chem/tests/data/reference.csv: for a fixed list of about 100 SMILES
(drug-like, charged, stereo, macrocycles, MOSES training molecules, and a few invalid inputs),
the columns smiles, canonical, mw, logp, tpsa, qed, sa, error. The Rust test
(`props::tests::reference_values_match_python_rdkit`) asserts equality to 4 decimals.

    python3 -m pip install rdkit==2026.9.1
    python3 -m pip download molsets==0.3.1 --no-deps -d /tmp/molsets
    python3 scripts/make_molstitch_reference.py --molsets-wheel /tmp/molsets/molsets-0.3.1-py3-none-any.whl

Other modes:
    --bench N       also time property scoring of the list N times over (molecules per second)
    --sa-table      rewrite assets/molstitch/sa_fpscores.tsv.gz from RDKit's fpscores.pkl.gz
"""

import argparse
import csv
import gzip
import io
import os
import pickle
import sys
import time
import zipfile

from rdkit import Chem, RDConfig, RDLogger, rdBase
from rdkit.Chem import QED, Crippen, Descriptors, rdMolDescriptors

sys.path.append(os.path.join(RDConfig.RDContribDir, "SA_Score"))
import sascorer  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "engines", "chem", "tests", "data", "reference.csv")
SA_TABLE = os.path.join(REPO, "assets", "molstitch", "sa_fpscores.tsv.gz")

# Hand-picked molecules: approved drugs, charged species, stereo, macrocycles, odd elements.
FIXED = [
    # drug-like
    "CC(=O)Oc1ccccc1C(=O)O",  # aspirin
    "CC(C)Cc1ccc(cc1)C(C)C(=O)O",  # ibuprofen
    "CC(=O)Nc1ccc(O)cc1",  # paracetamol
    "CN1C=NC2=C1C(=O)N(C(=O)N2C)C",  # caffeine
    "CN1CCC[C@H]1c1cccnc1",  # nicotine
    "COc1ccc2[nH]cc(CCNC(C)=O)c2c1",  # melatonin
    "CC(C)NCC(O)c1ccc(O)c(O)c1",  # isoprenaline
    "Clc1ccc2c(c1)C(=NCC(=O)N2C)c1ccccc1",  # diazepam
    "CN(C)CCCN1c2ccccc2CCc2ccccc21",  # imipramine
    "O=C(O)c1ccccc1O",  # salicylic acid
    "Cc1ccc(cc1)S(=O)(=O)NC(=O)NN1CCCCCC1",  # tolazamide
    "CC12CCC3c4ccc(O)cc4CCC3C1CCC2O",  # estradiol (no stereo)
    "C[C@]12CC[C@H]3[C@@H](CCc4cc(O)ccc34)[C@@H]1CC[C@@H]2O",  # estradiol
    "CC(C)(C)NCC(O)COc1cccc2c1CC(O)C(O)C2",  # nadolol
    "COc1cc(Cc2cnc(N)nc2N)cc(OC)c1OC",  # trimethoprim
    "Cn1c(=O)c2c(ncn2C)n(C)c1=O",  # caffeine, other tautomer form
    "CCN(CC)CC(=O)Nc1c(C)cccc1C",  # lidocaine
    "CS(=O)(=O)Nc1ccc(cc1)[N+](=O)[O-]",
    "Fc1ccc(cc1)C(=O)CCCN1CCC(O)(CC1)c1ccc(Cl)cc1",  # haloperidol
    "CC1=C(C(=O)OCC)C(c2ccccc2[N+](=O)[O-])C(C(=O)OC)=C(C)N1",  # nitrendipine-like
    "O=C1NC(=O)C(N1)(c1ccccc1)c1ccccc1",  # phenytoin
    "NC(=O)c1cnccn1",  # pyrazinamide
    "CC(=O)NC1=NN=C(S1)S(N)(=O)=O",  # acetazolamide
    "OC(=O)CCCc1ccc(N(CCCl)CCCl)cc1",  # chlorambucil
    "c1ccc2c(c1)ccc1ccccc12",  # phenanthrene
    "C1CCC2(CC1)CCCC2",  # spiro
    "C1CC2CCC1C2",  # bridged
    "C1C2CC3CC1CC(C2)C3",  # adamantane
    "N=C(CCSCc1csc(N=C(N)N)n1)NS(N)(=O)=O",  # famotidine (QED doctest)
    "CNC(=NCCSCc1nc[nH]c1C)NC#N",  # cimetidine (QED doctest)
    # charged / zwitterions / salts
    "C[N+](C)(C)CCO",  # choline
    "NCC(=O)[O-].[Na+]",
    "[NH3+][C@@H](Cc1ccccc1)C(=O)[O-]",
    "OC(=O)C[N+](C)(C)C",
    "[O-]S(=O)(=O)c1ccccc1",
    "CC[N+](CC)(CC)Cc1ccccc1.[Cl-]",
    "[Na+].[O-]C(=O)c1ccccc1",
    "C[n+]1ccccc1",
    "O=[N+]([O-])c1ccc(cc1)N",
    "[NH4+]",
    # stereo
    "C/C=C/C(=O)O",
    "C/C=C\\C(=O)O",
    "N[C@@H](C)C(=O)O",
    "N[C@H](C)C(=O)O",
    "O[C@H]1[C@H](O)[C@@H](O)[C@H](O)[C@@H](O)[C@@H]1O",  # inositol
    "OC[C@H]1OC(O)[C@H](O)[C@@H](O)[C@@H]1O",  # glucose
    "CC(C)[C@H](N)C(=O)N[C@@H](Cc1ccccc1)C(=O)O",
    "C[C@H](Cl)[C@@H](F)Br",
    "F/C=C/F",
    "CC1CCC(C)CC1",  # unassigned stereo
    # macrocycles
    "C1CCCCCCCCCCC1",  # cyclododecane
    "O=C1CCCCCCCCCCCCCCO1",  # macrolide-like lactone
    "CC[C@@H]1[C@@]([C@@H]([C@H](C(=O)[C@@H](C[C@@]([C@@H]([C@H]([C@@H]([C@H](C(=O)O1)C)O[C@H]2C[C@@]([C@H]([C@@H](O2)C)O)(C)OC)C)O[C@H]3[C@@H]([C@H](C[C@H](O3)C)N(C)C)O)(C)O)C)C)O)(C)O",  # erythromycin
    "C1CC2=CC=C(C=C2)CCC2=CC=C1C=C2",  # paracyclophane
    "O=C1NCCCCCCCCCCC1",  # laurolactam
    "c1cc2ccc1CCCCCCCC2",
    # isotopes, hydrogens, odd elements
    "[2H]C([2H])([2H])O",
    "[13CH4]",
    "[H]OC([H])([H])C",
    "ClC(Cl)(Cl)Cl",
    "c1ccc(cc1)[Si](C)(C)C",
    "OB(O)c1ccccc1",
    "FC(F)(F)c1ccc(I)cc1",
    "CP(=O)(O)O",
    "C#N",
    "O",
    "C",
    "[Cu+2]",
    "c1ccsc1",
    "c1cc[nH]c1",
    "S=C=S",
]

# Inputs RDKit rejects: the engine must return an error for each (error column "invalid").
INVALID = ["C1CC(", "c1cccc1", "C(C)(C)(C)(C)C", "not a smiles", "C1CC", "[Xx]", "CC)C", ""]


def moses_sample(wheel, n=30, stride=50_000):
    """Every `stride`-th SMILES of the MOSES training set, starting at row 0."""
    with zipfile.ZipFile(wheel) as z:
        data = z.read("moses/dataset/data/train.csv.gz")
    lines = gzip.decompress(data).decode().splitlines()
    assert lines[0] == "SMILES", lines[0]
    rows = lines[1:]
    return [rows[i * stride] for i in range(n)]


def props(mol):
    return (
        Chem.MolToSmiles(mol),
        Descriptors.MolWt(mol),
        Crippen.MolLogP(mol),
        rdMolDescriptors.CalcTPSA(mol),
        QED.qed(mol),
        sascorer.calculateScore(mol),
    )


def write_sa_table():
    src = os.path.join(RDConfig.RDContribDir, "SA_Score", "fpscores.pkl.gz")
    data = pickle.load(gzip.open(src))
    table = {}
    for row in data:
        for ident in row[1:]:
            table[ident] = float(row[0])
    text = "".join(f"{k}\t{v!r}\n" for k, v in sorted(table.items()))
    with gzip.GzipFile(SA_TABLE, "wb", compresslevel=9, mtime=0) as f:
        f.write(text.encode())
    print(f"wrote {SA_TABLE}: {len(table)} ids from {src}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--molsets-wheel", help="path to molsets-0.3.1-py3-none-any.whl")
    ap.add_argument("--bench", type=int, default=0, help="time scoring the valid list N times")
    ap.add_argument("--sa-table", action="store_true", help="rewrite the SA fragment-score table")
    args = ap.parse_args()
    if args.sa_table:
        write_sa_table()
        return
    RDLogger.DisableLog("rdApp.*")
    smiles = list(FIXED)
    if args.molsets_wheel:
        smiles += moses_sample(args.molsets_wheel)
    else:
        print("warning: no --molsets-wheel, MOSES rows left out", file=sys.stderr)
    smiles += INVALID
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["smiles", "canonical", "mw", "logp", "tpsa", "qed", "sa", "error"])
        n_valid = 0
        for s in smiles:
            mol = Chem.MolFromSmiles(s) if s else None
            if mol is None or mol.GetNumAtoms() == 0:
                w.writerow([s, "", "", "", "", "", "", "invalid"])
                continue
            can, mw, logp, tpsa, qed, sa = props(mol)
            w.writerow([s, can] + [repr(float(x)) for x in (mw, logp, tpsa, qed, sa)] + [""])
            n_valid += 1
    print(f"wrote {OUT}: {len(smiles)} rows ({n_valid} valid), RDKit {rdBase.rdkitVersion}")
    if args.bench:
        valid = [s for s in smiles if s and Chem.MolFromSmiles(s) is not None]
        t0 = time.perf_counter()
        for _ in range(args.bench):
            for s in valid:
                props(Chem.MolFromSmiles(s))
        dt = time.perf_counter() - t0
        n = args.bench * len(valid)
        print(f"python rdkit: {n} molecules (parse + canonical, MW, logP, TPSA, QED, SA) in {dt:.3f} s = {n / dt:.0f} molecules/s")


if __name__ == "__main__":
    main()
