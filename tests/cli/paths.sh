#!/usr/bin/env bash
# Files as users name them, end to end: every option and manifest field that takes a data file
# accepts an absolute path, a path relative to the current folder, or one relative to the data
# folder or the kind's sub-folder, with or without the extension, and gives the same output as
# today's form; a name matching two files is one error line naming both (exit 2); a missing file
# names what was looked for (exit 1).
# usage: paths.sh RIGFIT DATA
set -euo pipefail
RIGFIT=$1 DATA=$(cd "$2" && pwd)
[ -f "$DATA/3dobjs/base.obj" ] || { echo "MPFB data missing at $DATA"; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset RIGFIT_DATA
mkdir -p "$TMP/work" && cd "$TMP/work"
MOUTH=expression/units/caucasian/mouth-open
R() { "$RIGFIT" "$@"; }
# expect_error EXIT REGEX ARGS...: the command fails with EXIT and one error line matching REGEX.
expect_error() {
  local want=$1 regex=$2
  shift 2
  set +e
  "$RIGFIT" "$@" >/dev/null 2>"$TMP/stderr"
  local got=$?
  set -e
  [ "$got" = "$want" ] || fail "rigfit $*: exit $got, expected $want: $(cat "$TMP/stderr")"
  [ "$(grep -c 'error:' "$TMP/stderr")" = 1 ] || fail "rigfit $*: expected one error line: $(cat "$TMP/stderr")"
  grep -Eq -- "$regex" "$TMP/stderr" || fail "rigfit $*: stderr does not match /$regex/: $(cat "$TMP/stderr")"
}
same() { cmp -s "$1" "$2" || fail "$3: $1 and $2 differ"; }
# The OBJ's geometry (its header lists the targets as they were named).
geometry() { grep -v '^#' "$1"; }

# --rig: name, data-relative, sub-folder-relative, absolute, with or without extension.
R fit --data "$DATA" --rig game_engine --out ref.json
for rig in rigs/standard/rig.game_engine rigs/standard/rig.game_engine.json rig.game_engine "$DATA/rigs/standard/rig.game_engine"; do
  R fit --data "$DATA" --rig "$rig" --out rig.json
  same ref.json rig.json "--rig $rig"
done
cp "$DATA/rigs/standard/rig.game_engine.json" mine.json
R fit --data "$DATA" --rig mine --out rig.json
same ref.json rig.json "--rig mine (./mine.json)"

# --mesh: data-relative and sub-folder-relative, without extension.
for mesh in 3dobjs/base base "$DATA/3dobjs/base"; do
  R fit --data "$DATA" --rig game_engine --mesh "$mesh" --out mesh.json
  same ref.json mesh.json "--mesh $mesh"
done

# --target: today's form, data-relative with extension, absolute, current folder without extension.
R shape --data "$DATA" --target $MOUTH:0.7 --out ref.obj
cp "$DATA/targets/$MOUTH.target.gz" ./mouth-open.target.gz
for t in targets/$MOUTH.target.gz "$DATA/targets/$MOUTH" ./mouth-open mouth-open.target.gz; do
  R shape --data "$DATA" --target "$t:0.7" --out t.obj
  [ "$(geometry ref.obj)" = "$(geometry t.obj)" ] || fail "--target $t: another body"
  grep -q "^# target $t 0.7$" t.obj || fail "--target $t: not in the header as named"
done
gunzip -k mouth-open.target.gz
R shape --data "$DATA" --target mouth-open.target:0.7 --out t.obj
[ "$(geometry ref.obj)" = "$(geometry t.obj)" ] || fail "--target mouth-open.target: another body"
expect_error 2 "^rigfit: error: mouth-open: names more than one target file: \./mouth-open\.target\.gz and \./mouth-open\.target \(give the path of one\)$" \
  shape --data "$DATA" --target mouth-open --out t.obj
mkdir -p expression/units/caucasian && cp mouth-open.target expression/units/caucasian/
expect_error 2 "^rigfit: error: $MOUTH: names more than one target file: \./$MOUTH\.target and $DATA/targets/$MOUTH\.target\.gz" \
  shape --data "$DATA" --target $MOUTH --out t.obj
rm -r expression
expect_error 1 "^rigfit: error: nose/nope: no such target file \(looked for nose/nope\{,\.target\.gz,\.target\} in \., $DATA, $DATA/targets\)$" \
  shape --data "$DATA" --target nose/nope --out t.obj

# --weights: a .mhw (MPFB's custom weights format, the weights JSON) binds as the body's weights file.
R pose --data "$DATA" --rig game_engine --rotate upperarm_l=0,0,40 --out ref_pose.obj
cp "$DATA/rigs/standard/weights.game_engine.json" ge.mhw
for w in ge ge.mhw "$PWD/ge" rigs/standard/weights.game_engine weights.game_engine; do
  R pose --data "$DATA" --rig game_engine --weights "$w" --rotate upperarm_l=0,0,40 --out w.obj
  same ref_pose.obj w.obj "--weights $w"
done
cp ge.mhw ge.json
expect_error 2 "^rigfit: error: ge: names more than one weights file: \./ge\.json and \./ge\.mhw" pose --data "$DATA" --rig game_engine --weights ge --rotate upperarm_l=0,0,40 --out w.obj

# --pose: without extension, data-relative, absolute, current folder.
R pose --data "$DATA" --rig game_engine --pose game_engine_fk/t-pose.json --out ref_t.obj
cp "$DATA/poses/game_engine_fk/t-pose.json" my-pose.json
for p in game_engine_fk/t-pose poses/game_engine_fk/t-pose "$DATA/poses/game_engine_fk/t-pose.json" my-pose ./my-pose.json; do
  R pose --data "$DATA" --rig game_engine --pose "$p" --out p.obj
  same ref_t.obj p.obj "--pose $p"
done
expect_error 1 "^rigfit: error: nowhere: no such pose file \(looked for nowhere\{,\.json\} in \., $DATA, $DATA/poses\)$" \
  pose --data "$DATA" --rig game_engine --pose nowhere --out p.obj

# --morph: a target file anywhere (named after the file), a folder anywhere.
R export --data "$DATA" --rig game_engine --morph $MOUTH --out ref.glb
for m in "$PWD/mouth-open.target.gz" ./mouth-open.target.gz targets/$MOUTH.target.gz; do
  R export --data "$DATA" --rig game_engine --morph "$m" --out m.glb
  same ref.glb m.glb "--morph $m"
done
mkdir -p faces empty && cp mouth-open.target.gz faces/
R export --data "$DATA" --rig game_engine --morph faces/ --out m.glb
same ref.glb m.glb "--morph faces/"
expect_error 1 "^rigfit: error: empty: no targets in this folder$" export --data "$DATA" --rig game_engine --morph empty/ --out m.glb

# rigfit info on each kind, by path or by name in the data folder.
R info --data "$DATA" rig.game_engine | grep -q "^bones        53 " || fail "info rig.game_engine"
R info ge.mhw | grep -q "^groups       53 " || fail "info ge.mhw"
R info --data "$DATA" $MOUTH | grep -q "^target       $DATA/targets/$MOUTH.target.gz$" || fail "info target"
R info --data "$DATA" mouth-open.target | grep -q "^vertices     [0-9]* moved" || fail "info ./mouth-open.target"
R info --data "$DATA" game_engine_fk/t-pose | grep -q "^rotations    [0-9]* bones" || fail "info pose"
R info --data "$DATA" 3dobjs/base | grep -q "^vertices     19158$" || fail "info mesh"
expect_error 2 "^rigfit: error: game_engine: names more than one file: $DATA/rigs/standard/rig\.game_engine\.json and $DATA/rigs/standard/weights\.game_engine\.json" \
  info --data "$DATA" game_engine

# Manifest fields take the same forms; a line naming two files fails alone, naming both.
cat >m.jsonl <<JSON
{"name": "named", "rig": "rigs/standard/rig.game_engine", "weights": "ge.mhw", "mesh": "base", "shape": {"targets": {"$DATA/targets/$MOUTH": 0.5}}, "pose": {"file": "game_engine_fk/t-pose"}, "export": {"morphs": ["faces/"]}}
{"name": "ambiguous", "rig": "game_engine", "weights": "ge"}
JSON
set +e
R batch m.jsonl --data "$DATA" --out-dir out --jobs 1 2>"$TMP/stderr"
code=$?
set -e
[ "$code" = 1 ] || fail "batch: exit $code: $(cat "$TMP/stderr")"
[ "$(grep -c 'error:' "$TMP/stderr")" = 1 ] || fail "batch: expected one error line: $(cat "$TMP/stderr")"
grep -q "m.jsonl: line 2: ge: names more than one weights file: ./ge.json and ./ge.mhw" "$TMP/stderr" || fail "batch: $(cat "$TMP/stderr")"
R export --data "$DATA" --rig game_engine --weights ge.mhw --target $MOUTH:0.5 --pose game_engine_fk/t-pose.json --apply-pose-as-rest \
  --morph faces/ --out named.glb
same named.glb out/named.glb "manifest line 1"
echo "ok"
