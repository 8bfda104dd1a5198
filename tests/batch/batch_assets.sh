#!/usr/bin/env bash
# rigfit batch with worn assets: names looked up in --assets DIR (or $RIGFIT_ASSETS), folders,
# absolute paths and paths relative to the current folder; a body proxy; export.keep_hidden; a .gltf
# with its images. Every output equals `rigfit export` with the same flags byte for byte; a bad asset
# fails only its line, with one error line naming the line and the asset; shards write the same files.
# usage: batch_assets.sh RIGFIT DATA SRC
set -euo pipefail
RIGFIT=$1 DATA=$2 SRC=$3
ASSETS=$(cd "$DATA/../assets" && pwd)
[ -f "$DATA/3dobjs/base.obj" ] || { echo "MPFB data missing at $DATA"; exit 1; }
[ -d "$ASSETS" ] || { echo "assets missing: $ASSETS"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset RIGFIT_ASSETS
# A relative path is relative to the current folder, as on the command line.
mkdir -p "$TMP/work/mine" && cp -r "$ASSETS/hair/short02" "$TMP/work/mine/"
cd "$TMP/work"
HEAD='"high-poly", "eyebrow001", "eyelashes01", "teeth_base", "tongue01"'
M=$TMP/m.jsonl
cat >"$M" <<JSON
{"name": "complete", "rig": "game_engine", "assets": [$HEAD, "ponytail01", "female_casualsuit01", "shoes01"], "export": {"morphs": ["expression/units/caucasian/mouth-open=jawOpen"]}}
{"name": "proxy", "rig": "game_engine", "format": "g4b", "assets": ["high-poly", "female_casualsuit01"], "proxy": "female_generic", "export": {"compress": true}}
{"name": "posed", "rig": "game_engine", "assets": ["low-poly", "mine/short02", "$ASSETS/clothes/shoes01"], "pose": {"file": "game_engine_fk/t-pose.json"}, "export": {"keep_hidden": true, "influences": 8, "quantize": true}}
{"name": "badname", "rig": "game_engine", "assets": ["high-poly", "eyebrow01"]}
{"name": "badfile", "rig": "game_engine", "assets": ["$SRC/tests/cli/cases/bad.mhclo"]}
{"name": "max", "rig": "game_engine", "format": "gltf", "assets": [$HEAD, "male_casualsuit01"], "shape": {"macros": {"gender": 1, "age": 1, "muscle": 1, "weight": 1, "height": 1, "proportions": 1}, "ground": true}}
{"name": "mixamo", "rig": "mixamo", "assets": ["high-poly", "short02", "male_casualsuit01", "shoes01"], "proxy": "$ASSETS/proxymeshes/female_generic/female_generic.proxy"}
{"name": "plain", "rig": "game_engine"}
JSON

# 1. Two lines fail, one error line each naming the line and the asset; the others are written.
set +e
"$RIGFIT" batch "$M" --data "$DATA" --assets "$ASSETS" --out-dir "$TMP/out" --jobs 2 --summary "$TMP/summary.json" 2>"$TMP/stderr"
code=$?
set -e
[ "$code" = 1 ] || { cat "$TMP/stderr"; fail "exit code $code, expected 1"; }
[ "$(grep -c 'error:' "$TMP/stderr")" = 2 ] || { cat "$TMP/stderr"; fail "expected two error lines"; }
grep -q "m.jsonl: line 4: assets\[1\]: asset eyebrow01: no asset of that name in $ASSETS (did you mean \"eyebrow001\"?)" "$TMP/stderr" ||
  fail "line 4 not reported: $(cat "$TMP/stderr")"
grep -q "m.jsonl: line 5: assets\[0\]: .*bad.mhclo: line 4: vertex line 0 has 5 values" "$TMP/stderr" || fail "line 5 not reported: $(cat "$TMP/stderr")"
got=$(cd "$TMP/out" && ls | sort | tr '\n' ' ')
[ "$got" = "brown_eye.png complete.glb max.bin max.gltf mixamo.glb plain.glb posed.glb proxy.g4b " ] || fail "outputs: $got"
python3 - "$TMP/summary.json" "$TMP/out" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); out = sys.argv[2]
assert s["totals"] == {"manifest_lines": 8, "lines": 8, "ok": 6, "failed": 2, "skipped": 0}, s["totals"]
lines = {l["line"]: l for l in s["lines"]}
names = [m["name"] for m in lines[1]["report"]["meshes"]]
assert names == ["Body", "HighPolyEyes", "eyebrow001", "Eyelashes01", "Teeth_Base", "tongue01", "ponytail01", "female_casualsuit01", "shoes01"], names
assert lines[6]["files"][:2] == [f"{out}/max.gltf", f"{out}/max.bin"], lines[6]["files"]
assert lines[6]["files"][2:] == [f"{out}/brown_eye.png"], lines[6]["files"]
assert lines[4]["status"] == "failed" and lines[5]["status"] == "failed"
print("summary ok")
PY

# 2. Byte for byte what `rigfit export` writes with the same flags.
head=(--asset high-poly --asset eyebrow001 --asset eyelashes01 --asset teeth_base --asset tongue01)
run() { "$RIGFIT" export --data "$DATA" --assets "$ASSETS" "$@" 2>/dev/null; }
run --rig game_engine "${head[@]}" --asset ponytail01 --asset female_casualsuit01 --asset shoes01 \
  --morph expression/units/caucasian/mouth-open=jawOpen --out "$TMP/complete.glb"
run --rig game_engine --asset high-poly --asset female_casualsuit01 --proxy female_generic --compress --out "$TMP/proxy.g4b"
run --rig game_engine --asset low-poly --asset mine/short02 --asset "$ASSETS/clothes/shoes01" --pose game_engine_fk/t-pose.json \
  --apply-pose-as-rest --keep-hidden --influences 8 --quantize --out "$TMP/posed.glb"
mkdir "$TMP/max" && run --rig game_engine "${head[@]}" --asset male_casualsuit01 --macro gender=1,age=1,muscle=1,weight=1,height=1,proportions=1 \
  --ground --out "$TMP/max/max.gltf"
run --rig mixamo --asset high-poly --asset short02 --asset male_casualsuit01 --asset shoes01 \
  --proxy "$ASSETS/proxymeshes/female_generic/female_generic.proxy" --out "$TMP/mixamo.glb"
for f in complete.glb proxy.g4b posed.glb mixamo.glb max/max.gltf max/max.bin max/brown_eye.png; do
  cmp "$TMP/$f" "$TMP/out/$(basename "$f")" || fail "$f differs from rigfit export"
done
# keep_hidden matters: the same line without it writes fewer body faces.
run --rig game_engine --asset low-poly --asset mine/short02 --asset "$ASSETS/clothes/shoes01" --pose game_engine_fk/t-pose.json \
  --apply-pose-as-rest --influences 8 --quantize --out "$TMP/hidden.glb"
! cmp -s "$TMP/hidden.glb" "$TMP/out/posed.glb" || fail "keep_hidden changed nothing"

# 3. Shards, the assets folder from \$RIGFIT_ASSETS: the same files as the whole run.
for i in 0 1 2; do
  RIGFIT_ASSETS=$ASSETS "$RIGFIT" batch "$M" --data "$DATA" --out-dir "$TMP/shard$i" --jobs 1 --shard $i/3 2>/dev/null || true
done
for f in complete.glb proxy.g4b posed.glb mixamo.glb max.gltf max.bin plain.glb; do
  n=0
  for i in 0 1 2; do
    if [ -e "$TMP/shard$i/$f" ]; then n=$((n + 1)); cmp "$TMP/shard$i/$f" "$TMP/out/$f" || fail "shard $i: $f differs"; fi
  done
  [ "$n" = 1 ] || fail "$f written by $n shards"
done

# 4. Without an assets folder a name is not found, and says so on its line.
set +e
"$RIGFIT" batch "$M" --data "$DATA" --out-dir "$TMP/none" --shard 0/8 2>"$TMP/stderr"; code=$?
set -e
[ "$code" = 1 ] && grep -q "m.jsonl: line 1: assets\[0\]: asset high-poly: no such file or folder" "$TMP/stderr" ||
  fail "no assets folder: exit $code, $(cat "$TMP/stderr")"
echo "ok"
