#!/usr/bin/env bash
# Runs one command-line case of cases/cases.txt: expect.sh RIGFIT CASES DATA NAME
# (a case line is: NAME EXIT 'REGEX' ARGS...)
# Checks the exit code, that stderr (errors) or stdout (success) matches REGEX, that an error is
# one line, and that a failed command leaves no output file ($OUT) behind.
set -u
RIGFIT=$1 CASES=$2 DATA=$3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out.file
SRC=$CASES/../../..
BUILD=$(dirname "$RIGFIT")  # the build folder (the demo character's generated files)
export RIGFIT CASES DATA TMP OUT SRC BUILD
line=$(grep -E "^$4 " "$CASES/cases.txt" | head -1)
[ -n "$line" ] || { echo "no case $4"; exit 1; }
eval "set -- ${line#* }"
want_exit=$1 regex=$2
shift 2
unset RIGFIT_DATA
"$RIGFIT" "$@" >"$TMP/stdout" 2>"$TMP/stderr"
got=$?
args="$*"
fail() { echo "FAIL: $1"; echo "--- command: rigfit $args"; echo "--- stdout:"; head -c 2000 "$TMP/stdout"; echo "--- stderr:"; cat "$TMP/stderr"; exit 1; }
[ "$got" = "$want_exit" ] || fail "exit code $got, expected $want_exit"
if [ "$want_exit" = 0 ]; then
  if [ -n "$regex" ]; then
    cat "$TMP/stdout" "$TMP/stderr" | grep -Eq -- "$regex" || fail "output does not match /$regex/"
  fi
  if printf '%s\n' "$@" | grep -qx -- "$OUT"; then [ -s "$OUT" ] || fail "no output file written"; fi
  # Output ends its last line (e.g. --version).
  [ ! -s "$TMP/stdout" ] || [ "$(tail -c 1 "$TMP/stdout" | od -An -c | tr -d ' ')" = '\n' ] || fail "stdout does not end with a newline"
else
  grep -Eq -- "$regex" "$TMP/stderr" || fail "stderr does not match /$regex/"
  if [ "$want_exit" = 1 ]; then
    [ "$(grep -c 'error:' "$TMP/stderr")" = 1 ] || fail "expected exactly one error line"
    # Short: a file's huge value is elided, never echoed (about 300 characters at most).
    [ "$(grep 'error:' "$TMP/stderr" | wc -c)" -le 340 ] || fail "the error line is longer than 340 bytes"
  fi
  [ ! -e "$OUT" ] || fail "a failed command left $OUT behind"
  leftovers=$(ls -A "$TMP" | grep -v -e '^stdout$' -e '^stderr$' || true)
  [ -z "$leftovers" ] || fail "temporary files left behind: $leftovers"
fi
echo "ok"
