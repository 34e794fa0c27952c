#!/bin/sh
# Golden tests of `athene explain` (access classes, views and block plans).
#
#   sh tests/run_explain.sh ATHENE [--update]
#
# Run from the repository root. For every examples/*.ath except bad_index.ath and for each target
# (cpu, tpu), runs
#   ATHENE explain examples/FILE.ath $SIZES --target TARGET
# and compares what it prints with tests/explain/FILE.ath.TARGET.txt. The golden file holds the
# command's stdout; when stderr is not empty it follows under a line `## stderr`, and a non-zero
# exit status is recorded as a last line `## exit status N`. A mismatch prints the unified diff.
# Then the same command with --json must exit 0 and print JSON that parses (checked with
# .venv/bin/python if present, else python3).
# --update rewrites every golden file from the current output: review the diff before
# committing it. Needs sh, diff, mktemp and python3.

name=run_explain
. "$(dirname "$0")/golden.sh"

dir=tests/explain
if [ ! -d examples ] || [ ! -d tests ]; then
	echo "run_explain: no examples/ or tests/ here; run from the repository root" >&2
	exit 2
fi
[ "$update" = --update ] && mkdir -p "$dir"

if [ -x .venv/bin/python ]; then
	python=.venv/bin/python
else
	python=python3
fi

sizes="--size N=64 --size D=32 --size V=100 --size S=16 --size B=4 --size M=48 --size K=24 --threads 4"
targets="cpu tpu"


# explain FILE TARGET [--json]: runs athene, leaving stdout in $tmp/out, stderr in $tmp/err and
# the exit status in $rc.
explain() {
	# shellcheck disable=SC2086 # word splitting of $sizes is intended
	"$athene" explain "$1" $sizes --target "$2" ${3:+"$3"} >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
}

# golden: the text stored in a golden file, from the last explain run.
golden() {
	cat "$tmp/out"
	if [ -s "$tmp/err" ]; then
		echo "## stderr"
		cat "$tmp/err"
	fi
	if [ $rc -ne 0 ]; then
		echo "## exit status $rc"
	fi
}

ncases=0
for f in examples/*.ath; do
	[ -f "$f" ] || continue
	base=${f##*/}
	[ "$base" = bad_index.ath ] && continue
	for t in $targets; do
		ncases=$((ncases + 1))
		name="$base.$t"
		exp="$dir/$name.txt"

		# The text form against its golden file.
		explain "$f" "$t"
		golden >"$tmp/got"
		if [ "$update" = --update ]; then
			cp "$tmp/got" "$exp"
		fi
		if [ $rc -ge 128 ]; then
			fail "$name" "crashed (exit status $rc)"
			sed 's/^/    /' "$tmp/err"
		elif grep -q -e 'internal error' -e 'Sanitizer' -e 'runtime error:' "$tmp/err"; then
			fail "$name" "internal error or sanitizer report (exit status $rc)"
			sed 's/^/    /' "$tmp/err"
		elif [ ! -f "$exp" ]; then
			fail "$name" "no $exp (exit status $rc)"
		elif ! diff -u "$exp" "$tmp/got" >"$tmp/diff"; then
			fail "$name" "output differs from $exp"
			sed 's/^/    /' "$tmp/diff"
		else
			passed=$((passed + 1))
		fi

		# The --json form must succeed and parse.
		name="$base.$t.json"
		explain "$f" "$t" --json
		if [ $rc -ne 0 ]; then
			fail "$name" "--json exited with status $rc"
			sed 's/^/    /' "$tmp/err"
		elif ! "$python" -c 'import json,sys; json.load(sys.stdin)' <"$tmp/out" >"$tmp/perr" 2>&1; then
			fail "$name" "--json output does not parse"
			tail -n 3 "$tmp/perr" | sed 's/^/    /'
		else
			passed=$((passed + 1))
		fi
	done
done

# Golden files whose example no longer exists.
for g in "$dir"/*.txt; do
	[ -f "$g" ] || continue
	b=${g##*/}
	b=${b%.txt}
	t=${b##*.}
	src=examples/${b%.*}
	case " $targets " in
	*" $t "*) ;;
	*) src= ;;
	esac
	if [ -z "$src" ] || [ ! -f "$src" ] || [ "${src##*/}" = bad_index.ath ]; then
		fail "$b" "stale golden file $g (no such example or target)"
	fi
done

if [ $ncases -eq 0 ]; then
	fail examples "no examples/*.ath found"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
