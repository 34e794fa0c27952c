#!/bin/sh
# Golden tests of athene's diagnostics.
#
#   sh tests/run_diag.sh ATHENE [--update]
#
# Run from the repository root. Every case in tests/diag is one of:
#   NAME.ath (+ NAME.err)             `ATHENE check tests/diag/NAME.ath [ARGS]`, where ARGS is the
#                                     rest of an optional first line `# args: ARGS`
#   NAME.args (+ NAME.err)            `ATHENE ARGS`, ARGS being the file's first line with {dir}
#                                     standing for tests/diag (NAME.ath, if any, belongs to it)
# A case passes when the command exits with status 1 and its stderr is exactly NAME.err.
# Exit status 2 (usage), 0, or >= 128 (a crash) fails, and so does any "internal error" or
# sanitizer report. --update rewrites every NAME.err from the current output: review the diff
# before committing it. Needs only sh, diff and mktemp.

name=run_diag
. "$(dirname "$0")/golden.sh"

dir=tests/diag
if [ ! -d "$dir" ]; then
	echo "run_diag: no $dir here; run from the repository root" >&2
	exit 2
fi

# run_case NAME: runs the case, leaving stderr in $tmp/err and the status in $rc.
run_case() {
	name=$1
	if [ -f "$dir/$name.args" ]; then
		line=$(sed -n '1{s/{dir}/tests\/diag/g;p;}' "$dir/$name.args")
	else
		extra=$(sed -n '1s/^# args://p' "$dir/$name.ath")
		line="check $dir/$name.ath $extra"
	fi
	set -f
	# shellcheck disable=SC2086 # word splitting of the argument line is intended
	"$athene" $line >"$tmp/out" 2>"$tmp/err" </dev/null
	rc=$?
	set +f
}

# Every case name, once: .args files first, then .ath files without one.
names=$(
	for f in "$dir"/*.args "$dir"/*.ath; do
		[ -f "$f" ] || continue
		b=${f##*/}
		echo "${b%.*}"
	done | sort -u
)

for name in $names; do
	run_case "$name"
	if [ "$update" = --update ]; then
		cp "$tmp/err" "$dir/$name.err"
	fi
	if [ $rc -ge 128 ]; then
		fail "$name" "crashed (exit status $rc)"
		sed 's/^/    /' "$tmp/err"
		continue
	fi
	if grep -q -e 'internal error' -e 'Sanitizer' -e 'runtime error:' "$tmp/err"; then
		fail "$name" "internal error or sanitizer report (exit status $rc)"
		sed 's/^/    /' "$tmp/err"
		continue
	fi
	if [ ! -f "$dir/$name.err" ]; then
		fail "$name" "no $dir/$name.err (exit status $rc)"
		sed 's/^/    /' "$tmp/err"
		continue
	fi
	if ! diff -u "$dir/$name.err" "$tmp/err" >"$tmp/diff"; then
		fail "$name" "stderr differs from $name.err (exit status $rc)"
		sed 's/^/    /' "$tmp/diff"
		continue
	fi
	if [ $rc -ne 1 ]; then
		fail "$name" "exit status $rc, expected 1"
		continue
	fi
	passed=$((passed + 1))
done

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
