#!/usr/bin/env bash
# Runs the README's GNU parallel example exactly as written: its example manifest as
# characters.jsonl and its command lines, from a folder where ../shared/data/mpfb is the data.
# usage: readme_parallel.sh RIGFIT DATA SRC
set -euo pipefail
RIGFIT=$1 DATA=$2 SRC=$3
[ -f "$DATA/3dobjs/base.obj" ] || { echo "MPFB data missing at $DATA"; exit 1; }
command -v parallel >/dev/null || { echo "GNU parallel missing: run tools/install-deps.sh"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
RUN=$TMP/run  # the folder the README commands run in; ../shared/data/mpfb beside it
fail() { echo "FAIL: $*"; exit 1; }
# The fenced block that follows an HTML marker comment in the README.
block() { awk -v m="<!-- $1 -->" '$0 == m {f = 1; next} f && /^```/ {if (in_b) exit; in_b = 1; next} in_b' "$SRC/README.md"; }
mkdir -p "$RUN" "$TMP/shared/data"
ln -s "$(cd "$DATA" && pwd)" "$TMP/shared/data/mpfb"
block batch-example-manifest >"$RUN/characters.jsonl"
block batch-parallel-example >"$RUN/run.sh"
[ "$(wc -l <"$RUN/characters.jsonl")" -ge 4 ] || fail "no example manifest in the README"
grep -q '^parallel rigfit batch' "$RUN/run.sh" || fail "no parallel command in the README"
cat "$RUN/run.sh"
(cd "$RUN" && PATH="$(dirname "$RIGFIT"):$PATH" bash -euo pipefail run.sh </dev/null)
python3 - "$RUN" <<'PY'
import json, os, sys
work = sys.argv[1]
names = [json.loads(l)["name"] for l in open(f"{work}/characters.jsonl") if l.strip()]
seen = []
for i in range(4):
    s = json.load(open(f"{work}/out/summary.{i}.json"))
    assert s["totals"]["failed"] == 0, s
    for l in s["lines"]:
        assert (l["line"] - 1) % 4 == i and l["status"] == "ok", l
        assert os.path.getsize(os.path.join(work, l["output"])) > 0, l
        seen.append(l["name"])
assert sorted(seen) == sorted(names), (seen, names)
print(len(seen), "characters from 4 shards")
PY
for f in "$RUN"/out/*.g4b; do "$RIGFIT" validate "$f"; done
echo "ok"
