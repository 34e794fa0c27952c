# Shared by the golden-file runners (sourced, not run): set $name to the
# runner's name first. Parses `ATHENE [--update]` into $athene and $update,
# makes a scratch folder $tmp, and keeps the pass/fail counts.

if [ $# -lt 1 ] || [ $# -gt 2 ] || { [ $# -eq 2 ] && [ "$2" != --update ]; }; then
	echo "usage: sh tests/$name.sh ATHENE [--update]" >&2
	exit 2
fi
athene=$1
update=${2:-}
case $athene in
*/*) ;;
*) command -v "$athene" >/dev/null 2>&1 || athene=./$athene ;;
esac
if [ ! -x "$athene" ] && ! command -v "$athene" >/dev/null 2>&1; then
	echo "$name: $athene is not an executable" >&2
	exit 2
fi

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

passed=0
failed=0

fail() {
	echo "FAIL $1: $2"
	failed=$((failed + 1))
}
