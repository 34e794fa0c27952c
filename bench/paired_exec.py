#!/usr/bin/env python3
"""Paired exec_bench of two builds: python3 bench/paired_exec.py OLD_TREE NEW_TREE ROUNDS [--only-list].

Runs OLD_TREE/build/exec_bench and NEW_TREE/build/exec_bench on their bench/perf.ath, alternating
which goes first each round, keeps each kernel's best GB/s per build and prints new/old. Build both
first (make build/exec_bench in each tree, e.g. a git worktree of the old commit). Not part of
make test; this host's run-to-run spread between processes is large, so use 8 rounds or more."""
old, new, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
only = sys.argv[4] if len(sys.argv) > 4 else None
best = {'old': collections.defaultdict(float), 'new': collections.defaultdict(float)}
copy = {'old': 0.0, 'new': 0.0}
for r in range(rounds):
    for tag, exe in (('old', old), ('new', new)) if r % 2 == 0 else (('new', new), ('old', old)):
        args = [exe + '/build/exec_bench']
        if only: args += ['--only', only]
        args += [exe + '/bench/perf.ath']
        out = subprocess.run(args, capture_output=True, text=True).stdout
        for line in out.splitlines():
            m = re.match(r'^(\w+)\s+([\d.]+)\s', line)
            if m and not line.startswith('kernel') and not line.startswith('copy 256'):
                best[tag][m.group(1)] = max(best[tag][m.group(1)], float(m.group(2)))
print(f"{'kernel':32} {'old GB/s':>9} {'new GB/s':>9} {'new/old':>8}")
for k in best['old']:
    o, n = best['old'][k], best['new'].get(k, 0)
    print(f"{k:32} {o:9.2f} {n:9.2f} {n/o if o else 0:8.3f}")
