#!/usr/bin/env python3
"""Per-panel test time from a `scripts/test.sh` log (target/test-times.log by default): each
test's `--report-time` seconds, attributed to a panel by where it runs — the app binary's
`example_<project>` tests (by the project's panel kind), `<panel>::…` and `<panel>_…` modules,
and each engine crate's own unit-test binary (the crate named after the engine) — and the rest
("house": the kit, the shell, cluster and robustness tests). Usage:
    python3 scripts/test-budget.py [LOG]
Prints a Markdown table: panel, tests, seconds, and the budget from ARCHITECTURE.md."""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOG = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "target", "test-times.log")

panels = sorted(os.listdir(os.path.join(REPO, "app", "panels")))
# Example projects by the panel kind their first panel entry names (`state: Kind(`).
project_panel = {}
for name in os.listdir(os.path.join(REPO, "projects")):
    if not name.endswith(".ron"):
        continue
    text = open(os.path.join(REPO, "projects", name)).read()
    kind = re.search(r"state:\s*([A-Za-z]+)\(", text)
    if kind:
        project_panel[name[:-4].replace("-", "_")] = kind.group(1).lower()

binary = None
totals = {}
for line in open(LOG, errors="replace"):
    running = re.match(r"\s*Running (?:unittests src/lib.rs|tests/\S+) \(target/\S+/deps/([a-z_]+)-", line)
    if running:
        binary = running.group(1)
        continue
    test = re.match(r"^test (\S+) \.\.\. ok <([0-9.]+)s>", line)
    if not test:
        continue
    name, seconds = test.group(1), float(test.group(2))
    owner = "house"
    if binary and binary.startswith("benchtop_") and binary[9:] in panels:
        owner = binary[9:]
    elif binary in ("known_answers", "optimise", "pipeline"):
        owner = {"known_answers": "linnet", "optimise": "molstitch", "pipeline": "neurotree"}[binary]
    elif name.startswith("example_"):
        kind = project_panel.get(name[len("example_"):], "house")
        owner = {"hymn": "hymn", "reflection": "reflection"}.get(kind, kind)
    else:
        head = re.split(r"::|_", name, maxsplit=1)[0]
        if head in panels:
            owner = head
    count, total = totals.get(owner, (0, 0.0))
    totals[owner] = (count + 1, total + seconds)

print("| panel | tests | seconds (sum of test times, debug) |")
print("|---|---|---|")
for owner, (count, total) in sorted(totals.items(), key=lambda kv: -kv[1][1]):
    print(f"| {owner} | {count} | {total:.0f} |")
print(f"| all | {sum(c for c, _ in totals.values())} | {sum(t for _, t in totals.values()):.0f} |")
