#!/usr/bin/env python3
"""Paired exec_bench of two builds: python3 bench/paired_exec.py OLD_TREE NEW_TREE ROUNDS [--only-list].

Runs OLD_TREE/build/exec_bench and NEW_TREE/build/exec_bench on their bench/perf.ath, and the old
build a second time as its own control, rotating which goes first each round; keeps each kernel's
best GB/s per run and prints new/old beside old'/old, the same binary against itself: the
run-to-run spread of this host in the same run. A kernel is slower than before only when new/old
is below what the control shows. Build both first (make build/exec_bench in each tree, e.g. a git
worktree of the old commit). Not part of make test; this host's spread between processes is
large, so use 8 rounds or more."""
import collections
import re
import subprocess
import sys

old, new, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
only = sys.argv[4] if len(sys.argv) > 4 else None
runs = [('old', old), ('new', new), ('old2', old)]
best = {tag: collections.defaultdict(float) for tag, _ in runs}
for r in range(rounds):
    for tag, tree in runs[r % 3:] + runs[:r % 3]:
        args = [tree + '/build/exec_bench']
        if only:
            args += ['--only', only]
        args += [tree + '/bench/perf.ath']
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            m = re.match(r'^(\w+)\s+([\d.]+)\s', line)
            if m and not line.startswith('kernel') and not line.startswith('copy 256'):
                best[tag][m.group(1)] = max(best[tag][m.group(1)], float(m.group(2)))
print(f"{'kernel':32} {'old GB/s':>9} {'new GB/s':>9} {'new/old':>8} {'old2/old':>9}  verdict")
slower = 0
for k, o in best['old'].items():
    n, o2 = best['new'].get(k, 0.0), best['old2'].get(k, 0.0)
    lo = min(o2 / o, o / o2) if o and o2 else 1.0
    ratio = n / o if o else 0.0
    verdict = 'slower' if ratio < lo else ''
    slower += bool(verdict)
    print(f"{k:32} {o:9.2f} {n:9.2f} {ratio:8.3f} {o2 / o if o else 0:9.3f}  {verdict}")
print(f"{slower} kernel(s) slower than the spread of the old build against itself")
