#!/usr/bin/env bash
# rigfit batch --resume on MPFB's data: the summary's sizes and XXH64 checksums (checked by an
# independent XXH64 here); a resumed finished run writes nothing; damaged outputs (a byte changed,
# a file deleted, a file cut short) and an edited line are made again; a batch killed with SIGKILL
# mid-run, resumed, ends complete and byte-identical to one uninterrupted run, with no temporary
# files left; a torn journal line and a journal of another data folder are handled.
# usage: batch_resume.sh RIGFIT DATA SRC
set -euo pipefail
RIGFIT=$1 DATA=$2
[ -f "$DATA/3dobjs/base.obj" ] || { echo "MPFB data missing at $DATA"; exit 1; }
unset RIGFIT_ASSETS
TMP=$(mktemp -d)
BG=""
trap '[ -n "$BG" ] && kill -9 "$BG" 2>/dev/null; rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
M=$TMP/m.jsonl
cat >"$M" <<'JSON'
{"name": "hero", "rig": "game_engine", "shape": {"macros": {"gender": 1, "muscle": 0.8}, "ground": true}}
{"name": "baby", "rig": "cmu_mb", "format": "g4b", "shape": {"macros": {"gender": 0, "age": 0}, "ground": true}}
{"name": "broken", "rig": "game_engine", "shape": {"macros": {"girth": 1}}}
{"name": "heavy", "rig": "mixamo", "format": "g4b", "export": {"compress": true}, "shape": {"macros": {"weight": 1, "height": 1}}}
{"name": "plain", "rig": "openpose", "format": "gltf"}
{"name": "tpose", "rig": "game_engine", "pose": {"file": "game_engine_fk/t-pose.json"}, "export": {"influences": 8, "quantize": true}}
JSON
FILES="baby.g4b heavy.g4b hero.glb plain.bin plain.gltf tpose.glb"
J=.rigfit-batch.m.jsonl.0-of-1.journal
D=$DATA  # the data folder as batch() names it
batch() { "$RIGFIT" batch "$M" --data "$D" --jobs 2 "$@"; }
# Runs a batch whose one bad line makes it exit 1.
batch1() { set +e; batch "$@" 2>"$TMP/stderr"; local code=$?; set -e; [ "$code" = 1 ] || { cat "$TMP/stderr"; fail "exit $code"; }; }
same() {  # the characters of DIR equal the uninterrupted run's
  local got
  got=$(cd "$1" && ls | grep -v '^summary' | tr '\n' ' ')
  [ "$got" = "$FILES " ] || fail "$1: outputs $got"
  for f in $FILES; do cmp "$TMP/ref/$f" "$1/$f" || fail "$1/$f differs from the uninterrupted run"; done
  ! find "$1" -name '.*.rigfit-tmp-*' | grep . || fail "$1: temporary files left"
}
state() { (cd "$1" && stat -c '%n %i %Y %s' $FILES $J); }  # name, inode, mtime, size

# 1. An uninterrupted run: the summary records each file's size and XXH64; the journal, each
# finished line.
batch1 --out-dir "$TMP/ref" --summary "$TMP/ref.json"
python3 - "$TMP/ref.json" "$TMP/ref/$J" <<'PY'
import json, struct, sys

M = (1 << 64) - 1
P1, P2, P3, P4, P5 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5
rotl = lambda x, r: ((x << r) | (x >> (64 - r))) & M
def rnd(acc, lane): return (rotl((acc + lane * P2) & M, 31) * P1) & M
def merge(h, v): return ((h ^ rnd(0, v)) * P1 + P4) & M

def xxh64(data):  # xxHash's XXH64 with seed 0, from its specification
    n, p = len(data), 0
    if n >= 32:
        v = [(P1 + P2) & M, P2, 0, (-P1) & M]
        lanes = struct.unpack_from("<%dQ" % (n // 32 * 4), data)
        for i in range(0, len(lanes), 4):
            v = [rnd(v[k], lanes[i + k]) for k in range(4)]
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
        for x in v: h = merge(h, x)
        p = n // 32 * 32
    else:
        h = P5
    h = (h + n) & M
    while p + 8 <= n:
        h = (rotl(h ^ rnd(0, struct.unpack_from("<Q", data, p)[0]), 27) * P1 + P4) & M; p += 8
    if p + 4 <= n:
        h = (rotl(h ^ (struct.unpack_from("<I", data, p)[0] * P1 & M), 23) * P2 + P3) & M; p += 4
    while p < n:
        h = (rotl(h ^ (data[p] * P5 & M), 11) * P1) & M; p += 1
    h ^= h >> 33; h = h * P2 & M; h ^= h >> 29; h = h * P3 & M; h ^= h >> 32
    return h

assert xxh64(b"") == 0xEF46DB3751D8E999 and xxh64(b"abc") == 0x44BC2CF5AD770999
s = json.load(open(sys.argv[1]))
assert s["totals"] == {"manifest_lines": 6, "lines": 6, "ok": 5, "failed": 1, "skipped": 0}, s["totals"]
recorded = {}
for l in s["lines"]:
    if l["status"] != "ok": continue
    assert l["skipped"] is False and [c["file"] for c in l["checksums"]] == l["files"], l
    for c in l["checksums"]:
        data = open(c["file"], "rb").read()
        assert c["bytes"] == len(data) and c["xxh64"] == "%016x" % xxh64(data), c
        recorded[c["file"].rsplit("/", 1)[1]] = (c["bytes"], c["xxh64"])
journal = [json.loads(l) for l in open(sys.argv[2])]
assert journal[0]["format"] == "rigfit-batch-journal/1", journal[0]
assert sorted(r["name"] for r in journal[1:]) == ["baby", "heavy", "hero", "plain", "tpose"], journal
assert {f["name"]: (f["bytes"], f["xxh64"]) for r in journal[1:] for f in r["files"]} == recorded
print("summary and journal: sizes and checksums of", len(recorded), "files")
PY

# 2. Resumed after a complete run: every character skipped, nothing written (not the journal
# either), the summary complete with what was recorded; the bad line fails again.
cp -a "$TMP/ref" "$TMP/out"
before=$(state "$TMP/out")
batch1 --out-dir "$TMP/out" --summary "$TMP/out/summary.json" --resume
[ "$(state "$TMP/out")" = "$before" ] || fail "a resumed complete run wrote files"
grep -q "m.jsonl: line 3: shape.macros.girth: unknown macro" "$TMP/stderr" || fail "line 3 not reported: $(cat "$TMP/stderr")"
python3 - "$TMP/ref.json" "$TMP/out/summary.json" <<'PY'
import json, sys
ref, s = (json.load(open(p)) for p in sys.argv[1:])
assert s["totals"] == {"manifest_lines": 6, "lines": 6, "ok": 5, "failed": 1, "skipped": 5}, s["totals"]
assert s["timing"]["characters_per_second"] == 0
base = lambda path: path.rsplit("/", 1)[1]  # the reference run wrote to another folder
for a, b in zip(ref["lines"], s["lines"]):
    assert a["status"] == b["status"]
    if a["status"] == "ok":
        assert b["skipped"] is True and a["report"] == b["report"] and base(a["output"]) == base(b["output"]), (a, b)
        assert [(base(c["file"]), c["bytes"], c["xxh64"]) for c in a["checksums"]] == \
               [(base(c["file"]), c["bytes"], c["xxh64"]) for c in b["checksums"]], (a, b)
PY
same "$TMP/out"

# 3. A byte changed in hero.glb (same size), plain.bin deleted, heavy.g4b cut short, tpose's line
# edited: those four are made again (tpose with its new settings), baby is skipped.
python3 - "$TMP/out/hero.glb" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[len(b) // 2] ^= 1; open(sys.argv[1], "wb").write(b)
PY
rm "$TMP/out/plain.bin"
truncate -s -1 "$TMP/out/heavy.g4b"
sed -i 's/"influences": 8, "quantize": true/"influences": 8/' "$M"
batch1 --out-dir "$TMP/out" --summary "$TMP/out/summary.json" --resume
python3 - "$TMP/out/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
made = sorted(l["name"] for l in s["lines"] if l["status"] == "ok" and not l["skipped"])
assert made == ["heavy", "hero", "plain", "tpose"] and s["totals"]["skipped"] == 1, (made, s["totals"])
PY
cmp -s "$TMP/ref/tpose.glb" "$TMP/out/tpose.glb" && fail "tpose.glb not made again for its edited line"
sed -i 's/"influences": 8}/"influences": 8, "quantize": true}/' "$M"
batch1 --out-dir "$TMP/out" --resume
same "$TMP/out"

# 4. Sixteen characters, killed with SIGKILL on the sixth, whose body mesh is then a named pipe
# (reading it waits, so the kill does not depend on timing), then leftovers of writes cut short
# planted: resumed, it ends complete and identical to an uninterrupted run; its own leftovers are
# removed, those of a name no line of it writes (another shard's) are not.
M16=$TMP/m16.jsonl
python3 - "$M16" "$TMP/held.obj" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(16):
        line = {"name": f"c{i:02d}", "rig": ["game_engine", "mixamo"][i % 2], "format": ["glb", "g4b"][i // 8],
                "shape": {"macros": {"gender": i / 15, "muscle": (i % 4) / 3}, "ground": True}}
        if i == 5: line["mesh"] = sys.argv[2]
        f.write(json.dumps(line) + "\n")
PY
J16=.rigfit-batch.m16.jsonl.0-of-1.journal
cp "$DATA/3dobjs/base.obj" "$TMP/held.obj"
"$RIGFIT" batch "$M16" --data "$DATA" --jobs 2 --out-dir "$TMP/ref16"
rm "$TMP/held.obj"
mkfifo "$TMP/held.obj"
"$RIGFIT" batch "$M16" --data "$DATA" --jobs 1 --out-dir "$TMP/killed" &
BG=$!
for i in $(seq 3000); do
  [ -f "$TMP/killed/$J16" ] && [ "$(wc -l <"$TMP/killed/$J16")" = 6 ] && break  # the header and five characters
  sleep 0.02
done
kill -9 "$BG"
wait "$BG" 2>/dev/null || true
BG=""
finished=$(($(wc -l <"$TMP/killed/$J16") - 1))
[ "$finished" = 5 ] || fail "killed after $finished characters, expected 5"
rm "$TMP/held.obj"
cp "$DATA/3dobjs/base.obj" "$TMP/held.obj"
for f in .c00.glb.rigfit-tmp-AbCdEf .c15.g4b.rigfit-tmp-123456 .$J16.rigfit-tmp-zzzzzz .summary.json.rigfit-tmp-000000 \
         .someone-else.glb.rigfit-tmp-AbCdEf; do
  echo partial >"$TMP/killed/$f"
done
"$RIGFIT" batch "$M16" --data "$DATA" --jobs 2 --out-dir "$TMP/killed" --summary "$TMP/killed/summary.json" --resume
[ -f "$TMP/killed/.someone-else.glb.rigfit-tmp-AbCdEf" ] || fail "another shard's temporary file was removed"
rm "$TMP/killed/.someone-else.glb.rigfit-tmp-AbCdEf"
! find "$TMP/killed" -name '.*.rigfit-tmp-*' | grep . || fail "temporary files left"
[ "$(cd "$TMP/ref16" && ls | tr '\n' ' ')" = "$(cd "$TMP/killed" && ls | grep -v summary.json | tr '\n' ' ')" ] || fail "outputs differ"
for f in "$TMP"/ref16/*; do cmp "$f" "$TMP/killed/$(basename "$f")" || fail "$f differs after the resumed run"; done
python3 - "$TMP/killed/summary.json" "$finished" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["totals"]["ok"] == 16 and s["totals"]["skipped"] == int(sys.argv[2]), s["totals"]
PY
echo "killed after $finished of 16 characters; resumed: complete and identical to an uninterrupted run"

# 5. A torn last journal line (a write cut short) is skipped; the next record starts a line of
# its own.
printf '{"line": 2, "name": "baby", "line_xx' >>"$TMP/out/$J"
rm "$TMP/out/baby.g4b"
batch1 --out-dir "$TMP/out" --summary "$TMP/out/summary.json" --resume
python3 - "$TMP/out/$J" "$TMP/out/summary.json" <<'PY'
import json, sys
names = [json.loads(l).get("name") for l in open(sys.argv[1])]  # every line whole
assert set(names[1:]) == {"baby", "heavy", "hero", "plain", "tpose"} and names[-1] == "baby", names
s = json.load(open(sys.argv[2]))
assert [l["name"] for l in s["lines"] if l["status"] == "ok" and not l["skipped"]] == ["baby"], s["lines"]
PY
same "$TMP/out"
# The data folder spelled another way (a link to it) is the same data: everything skipped.
ln -s "$(cd "$DATA" && pwd)" "$TMP/data-link"
D=$TMP/data-link batch1 --out-dir "$TMP/out" --summary "$TMP/out/summary.json" --resume
python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["totals"]; assert t["ok"] == 5 and t["skipped"] == 5, t' "$TMP/out/summary.json"
# Another assets folder: the journal's records are not used, with a warning; all made again.
batch1 --out-dir "$TMP/out" --summary "$TMP/out/summary.json" --resume --assets "$TMP"
grep -q "warning: $TMP/out/$J: written with the assets folder \"\", this run with the assets folder \"$(cd "$TMP" && pwd -P)\"; nothing resumed" "$TMP/stderr" ||
  fail "no warning: $(cat "$TMP/stderr")"
python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["totals"]; assert t["ok"] == 5 and t["skipped"] == 0, t' "$TMP/out/summary.json"
same "$TMP/out"
echo "ok"
