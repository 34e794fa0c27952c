#!/bin/sh
# Golden tests of `athene emit --target pallas`: the Python module emitted for every example.
#
#   sh tests/pallas/run_emit.sh ATHENE [--update]
#
# Run from the repository root. For every examples/*.ath except bad_index.ath, runs
#   ATHENE emit examples/FILE.ath --target pallas $SIZES
# and compares what it prints with tests/pallas/golden/FILE.py (stdout; a non-empty stderr
# follows under a last comment line `## stderr`). A mismatch prints the unified diff.
# --update rewrites every golden file from the current output: review the diff before
# committing it. The modules themselves are run by the pytest suite in this folder.

name=run_emit
. "$(dirname "$0")/../golden.sh"

dir=tests/pallas/golden
[ "$update" = --update ] && mkdir -p "$dir"
sizes="--size N=64 --size D=32 --size V=100 --size S=16 --size B=4 --size M=48 --size K=24"

for f in examples/*.ath; do
	base=${f##*/}
	[ "$base" = bad_index.ath ] && continue
	exp="$dir/${base%.ath}.py"
	# shellcheck disable=SC2086 # word splitting of $sizes is intended
	"$athene" emit "$f" --target pallas $sizes >"$tmp/got" 2>"$tmp/err" </dev/null
	rc=$?
	if [ -s "$tmp/err" ]; then
		echo "## stderr" >>"$tmp/got"
		sed 's/^/## /' "$tmp/err" >>"$tmp/got"
	fi
	[ "$update" = --update ] && cp "$tmp/got" "$exp"
	if [ $rc -ne 0 ]; then
		fail "$base" "emit exited with status $rc"
		sed 's/^/    /' "$tmp/err"
	elif [ ! -f "$exp" ]; then
		fail "$base" "no $exp"
	elif ! diff -u "$exp" "$tmp/got" >"$tmp/diff"; then
		fail "$base" "output differs from $exp"
		sed 's/^/    /' "$tmp/diff" | head -n 80
	else
		passed=$((passed + 1))
	fi
done
for g in "$dir"/*.py; do
	[ -f "$g" ] || continue
	b=${g##*/}
	[ -f "examples/${b%.py}.ath" ] || fail "$b" "stale golden file $g (no such example)"
done
echo "run_emit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
