#!/usr/bin/env bash
# rigfit batch on MPFB's data: characters with different macros, rigs and formats; a failing line
# that does not stop the others; the summary; shards that partition the manifest; outputs that
# pass the validators and equal `rigfit export` byte for byte.
# usage: batch_cli.sh RIGFIT DATA SRC
set -euo pipefail
RIGFIT=$1 DATA=$2 SRC=$3
[ -f "$DATA/3dobjs/base.obj" ] || { echo "MPFB data missing at $DATA"; exit 1; }
[ -d "$SRC/tools/gltf/node_modules/gltf-validator" ] || { echo "gltf-validator missing: run (cd tools/gltf && npm install)"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
M=$TMP/m.jsonl
cat >"$M" <<'JSON'
{"name": "hero", "rig": "game_engine", "shape": {"macros": {"gender": 1, "muscle": 0.8}, "ground": true}, "export": {"morphs": ["expression/units/caucasian/mouth-open=jawOpen", "nose/nose-base-up"]}}
{"name": "baby", "rig": "cmu_mb", "format": "g4b", "shape": {"macros": {"gender": 0, "age": 0}, "ground": true}}
{"name": "broken", "rig": "game_engine", "shape": {"macros": {"girth": 1}}}

{"name": "heavy", "rig": "mixamo", "format": "g4b", "export": {"compress": true}, "shape": {"macros": {"weight": 1, "height": 1}, "modifiers": {"nose/nose-scale-horiz-decr-incr": 0.5}}}
{"name": "tpose", "rig": "game_engine", "pose": {"file": "game_engine_fk/t-pose.json"}, "export": {"influences": 8, "quantize": true}}
{"name": "nobody", "rig": "no_such_rig"}
{"name": "plain", "rig": "openpose", "format": "gltf"}
JSON

# 1. All lines: two fail (one line each on stderr), the other five are written; exit 1.
set +e
"$RIGFIT" batch "$M" --data "$DATA" --out-dir "$TMP/out" --jobs 2 --summary "$TMP/summary.json" 2>"$TMP/stderr"
code=$?
set -e
[ "$code" = 1 ] || fail "exit code $code, expected 1"
[ "$(grep -c 'error:' "$TMP/stderr")" = 2 ] || { cat "$TMP/stderr"; fail "expected two error lines"; }
grep -q "m.jsonl: line 3: shape.macros.girth: unknown macro" "$TMP/stderr" || fail "line 3 not reported: $(cat "$TMP/stderr")"
grep -q "m.jsonl: line 7: .*no rig named \"no_such_rig\"" "$TMP/stderr" || fail "line 7 not reported: $(cat "$TMP/stderr")"
got=$(cd "$TMP/out" && ls | sort | tr '\n' ' ')
[ "$got" = "baby.g4b heavy.g4b hero.glb plain.bin plain.gltf tpose.glb " ] || fail "outputs: $got"

# 2. The summary: per line status, outputs and errors; totals.
python3 - "$TMP/summary.json" "$TMP/out" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); out = sys.argv[2]
assert s["format"] == "rigfit-batch-summary/1", s["format"]
assert s["totals"] == {"manifest_lines": 7, "lines": 7, "ok": 5, "failed": 2, "skipped": 0}, s["totals"]
assert s["jobs"] == 2 and s["shard"] == {"index": 0, "count": 1}
assert s["timing"]["seconds"] > 0 and s["timing"]["characters_per_second"] > 0
lines = {l["line"]: l for l in s["lines"]}
assert sorted(lines) == [1, 2, 3, 5, 6, 7, 8], sorted(lines)
for n, name, ext in [(1, "hero", "glb"), (2, "baby", "g4b"), (5, "heavy", "g4b"), (6, "tpose", "glb"), (8, "plain", "gltf")]:
    l = lines[n]
    assert l["status"] == "ok" and l["name"] == name, l
    assert l["output"] == f"{out}/{name}.{ext}", l["output"]
    assert l["report"]["format"] == ext and l["report"]["bytes"] > 0, l["report"]
assert lines[8]["files"] == [f"{out}/plain.gltf", f"{out}/plain.bin"], lines[8]["files"]
assert lines[1]["report"]["rig"] == "game_engine" and lines[5]["report"]["rig"] == "mixamo"
assert lines[6]["report"]["influences"] == 8
assert [m["name"] for m in lines[1]["report"]["morphs"]] == ["jawOpen", "nose-base-up"], lines[1]["report"]
assert lines[3]["status"] == "failed" and "shape.macros.girth: unknown macro" in lines[3]["error"], lines[3]
assert lines[7]["status"] == "failed" and "m.jsonl: line 7: " in lines[7]["error"] and "no rig named" in lines[7]["error"], lines[7]
assert "output" not in lines[3]
print("summary ok")
PY

# 3. The outputs pass the validators.
"$RIGFIT" validate "$TMP/out/baby.g4b" "$TMP/out/heavy.g4b"
node "$SRC/tools/gltf/validate.mjs" "$TMP/out/hero.glb" "$TMP/out/tpose.glb" "$TMP/out/plain.gltf"

# 4. Byte for byte what `rigfit export` writes for the same settings.
"$RIGFIT" export --data "$DATA" --rig game_engine --macro gender=1,muscle=0.8 --ground --out "$TMP/hero.glb" \
  --morph expression/units/caucasian/mouth-open=jawOpen --morph nose/nose-base-up
cmp "$TMP/hero.glb" "$TMP/out/hero.glb" || fail "hero.glb differs from rigfit export"
"$RIGFIT" export --data "$DATA" --rig mixamo --macro weight=1,height=1 --modifier nose/nose-scale-horiz-decr-incr=0.5 --compress --out "$TMP/heavy.g4b"
cmp "$TMP/heavy.g4b" "$TMP/out/heavy.g4b" || fail "heavy.g4b differs from rigfit export"
"$RIGFIT" export --data "$DATA" --rig game_engine --pose game_engine_fk/t-pose.json --apply-pose-as-rest --influences 8 --quantize --out "$TMP/tpose.glb"
cmp "$TMP/tpose.glb" "$TMP/out/tpose.glb" || fail "tpose.glb differs from rigfit export"
"$RIGFIT" export --data "$DATA" --rig openpose --out "$TMP/plain.gltf"
cmp "$TMP/plain.gltf" "$TMP/out/plain.gltf" && cmp "$TMP/plain.bin" "$TMP/out/plain.bin" || fail "plain.gltf differs from rigfit export"

# 5. Shards 0/3, 1/3, 2/3: disjoint, together every line, each line where (line - 1) % 3 says.
for i in 0 1 2; do
  "$RIGFIT" batch "$M" --data "$DATA" --out-dir "$TMP/shard$i" --jobs 1 --shard $i/3 --summary "$TMP/shard$i.json" 2>/dev/null || true
done
python3 - "$TMP" <<'PY'
import json, sys, os
t = sys.argv[1]
seen = []
for i in range(3):
    s = json.load(open(f"{t}/shard{i}.json"))
    assert s["shard"] == {"index": i, "count": 3}
    lines = [l["line"] for l in s["lines"]]
    assert all((n - 1) % 3 == i for n in lines), (i, lines)
    for l in s["lines"]:
        if l["status"] == "ok":
            a = open(l["output"], "rb").read()
            b = open(os.path.join(t, "out", os.path.basename(l["output"])), "rb").read()
            assert a == b, l["output"]
    seen += lines
assert sorted(seen) == [1, 2, 3, 5, 6, 7, 8], sorted(seen)
assert len(seen) == len(set(seen))
print("shards ok")
PY

# 6. Usage errors exit 2 and write nothing.
set +e
"$RIGFIT" batch "$M" --data "$DATA" --out-dir "$TMP/bad" --shard 3/3 2>"$TMP/stderr"; code=$?
set -e
[ "$code" = 2 ] && grep -q -- '--shard "3/3"' "$TMP/stderr" && [ ! -e "$TMP/bad" ] || fail "bad --shard: exit $code, $(cat "$TMP/stderr")"
echo "ok"
