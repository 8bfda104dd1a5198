#!/usr/bin/env bash
# Files as users name them, end to end: every option and manifest field that takes a data file
# accepts an absolute path, a path relative to the current folder, or one relative to the data
# folder (assets and proxies: the assets folder) or the kind's sub-folder, with or without the
# extension, and gives the same output as today's form; a name matching two files is one error line naming both (exit 2); a missing file
# names what was looked for (exit 1).
# usage: paths.sh RIGFIT DATA
set -euo pipefail
RIGFIT=$1 DATA=$(cd "$2" && pwd)
[ -f "$DATA/3dobjs/base.obj" ] || { echo "MPFB data missing at $DATA"; exit 1; }
ASSETS=$(cd "$DATA/../assets" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset RIGFIT_DATA RIGFIT_ASSETS
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

# --asset: a .mhclo file, a folder holding one, absolute, current-folder or assets-relative, with or
# without the extension, or a bare name found under the assets folder. --proxy: the same for .proxy
# files, also relative to the assets folder's proxymeshes/. The dressed body is the same each way.
S() { R shape --data "$DATA" --assets "$ASSETS" "$@" 2>/dev/null; }
S --asset shoes01 --proxy female_generic --out ref_dressed.obj
cp -r "$ASSETS/clothes/shoes01" myshoes && cp -r "$ASSETS/proxymeshes/female_generic" myproxy
SHOES=$ASSETS/clothes/shoes01/shoes01
for a in "$SHOES.mhclo" "$SHOES" "$ASSETS/clothes/shoes01" clothes/shoes01 clothes/shoes01/ clothes/shoes01/shoes01 \
  clothes/shoes01/shoes01.mhclo myshoes ./myshoes myshoes/shoes01 "$PWD/myshoes/shoes01.mhclo"; do
  S --asset "$a" --proxy female_generic --out a.obj
  same ref_dressed.obj a.obj "--asset $a"
done
FG=$ASSETS/proxymeshes/female_generic/female_generic
for p in "$FG.proxy" "$FG" "$ASSETS/proxymeshes/female_generic" proxymeshes/female_generic proxymeshes/female_generic/female_generic.proxy \
  female_generic/female_generic female_generic/female_generic.proxy myproxy myproxy/female_generic "$PWD/myproxy"; do
  S --asset shoes01 --proxy "$p" --out p.obj
  same ref_dressed.obj p.obj "--proxy $p"
done
# An asset or proxy named by two files is an error naming both (exit 2); a folder holding two too.
cp myshoes/* .  # shoes01.mhclo and the files it names
expect_error 2 "^rigfit: error: --asset shoes01: names more than one asset file: \./shoes01\.mhclo and $ASSETS/clothes/shoes01/shoes01\.mhclo \(give the path of one\)$" \
  shape --data "$DATA" --assets "$ASSETS" --asset shoes01 --out a.obj
S --asset ./shoes01 --proxy female_generic --out a.obj
same ref_dressed.obj a.obj "--asset ./shoes01"
cp myproxy/female_generic.proxy myproxy/second.proxy
expect_error 2 "^rigfit: error: --proxy myproxy: the folder myproxy holds 2 proxy files; name one \(myproxy/female_generic\.proxy, myproxy/second\.proxy\)$" \
  shape --data "$DATA" --assets "$ASSETS" --proxy myproxy --out p.obj
# Not found: what was looked for, or the closest names of the kind.
expect_error 1 "^rigfit: error: --asset clothes/nope: no such file or folder \(looked for clothes/nope\{,\.mhclo\} in \., $ASSETS\)$" \
  shape --data "$DATA" --assets "$ASSETS" --asset clothes/nope --out a.obj
expect_error 1 "^rigfit: error: --proxy nope/fg: no such file or folder \(looked for nope/fg\{,\.proxy\} in \., $ASSETS, $ASSETS/proxymeshes\)$" \
  shape --data "$DATA" --assets "$ASSETS" --proxy nope/fg --out p.obj
expect_error 1 "^rigfit: error: --proxy female_generik: no proxy of that name in $ASSETS \(did you mean \"female_generic\"\?\)$" \
  shape --data "$DATA" --assets "$ASSETS" --proxy female_generik --out p.obj
expect_error 1 "^rigfit: error: --proxy shoes01: no proxy of that name in $ASSETS \(available: female_generic\)$" \
  shape --data "$DATA" --assets "$ASSETS" --proxy shoes01 --out p.obj
expect_error 1 "^rigfit: error: --asset shoes: no such file or folder \(looked for shoes\{,\.mhclo\} in \.; no assets folder: give --assets DIR or set RIGFIT_ASSETS to find assets by name\)$" \
  shape --data "$DATA" --asset shoes --out a.obj

# convert: any path form of a rig, or a rig of the data.
R convert "$DATA/rigs/standard/rig.game_engine.json" --out ref_v110.json
for rig in game_engine rig.game_engine rigs/standard/rig.game_engine "$DATA/rigs/standard/rig.game_engine" mine ./mine.json; do
  R convert --data "$DATA" "$rig" --out v110.json
  same ref_v110.json v110.json "convert $rig"
done
expect_error 1 "^rigfit: error: nope/rig: no such rig file \(looked for nope/rig\{,\.json,\.mpfbskel\} in \., $DATA, $DATA/rigs/standard, $DATA/rigs/rigify\)$" \
  convert --data "$DATA" nope/rig --out v110.json

# save-rig: --from a skeleton JSON or a rig, --clothes an OBJ, by any path form.
R save-rig --data "$DATA" --from ref.json --base-rig game_engine --out ref_saved.json >/dev/null
R save-rig --data "$DATA" --from ref --base-rig game_engine --out saved.json >/dev/null
same ref_saved.json saved.json "save-rig --from ref"
cp "$DATA/3dobjs/base.obj" clothes.obj
R save-rig --data "$DATA" --from game_engine --subrig --clothes clothes.obj --out ref_sub.json >/dev/null
for c in clothes "$PWD/clothes" 3dobjs/base base.obj; do
  R save-rig --data "$DATA" --from rig.game_engine --subrig --clothes "$c" --out sub.json >/dev/null
  same ref_sub.json sub.json "save-rig --clothes $c"
done
expect_error 1 "^rigfit: error: nope: no such mesh file \(looked for nope\{,\.obj\} in \., $DATA, $DATA/3dobjs\)$" \
  save-rig --data "$DATA" --from game_engine --subrig --clothes nope --out sub.json
rm shoes01.* myproxy/second.proxy

# Manifest fields take the same forms; a line naming two files fails alone, naming both.
cat >m.jsonl <<JSON
{"name": "named", "rig": "rigs/standard/rig.game_engine", "weights": "ge.mhw", "mesh": "base", "shape": {"targets": {"$DATA/targets/$MOUTH": 0.5}}, "pose": {"file": "game_engine_fk/t-pose"}, "export": {"morphs": ["faces/"]}}
{"name": "ambiguous", "rig": "game_engine", "weights": "ge"}
{"name": "dressed", "rig": "game_engine", "assets": ["clothes/shoes01/shoes01", "./myshoes"], "proxy": "female_generic/female_generic"}
{"name": "noproxy", "rig": "game_engine", "proxy": "nope/fg"}
JSON
set +e
R batch m.jsonl --data "$DATA" --assets "$ASSETS" --out-dir out --jobs 1 2>"$TMP/stderr"
code=$?
set -e
[ "$code" = 1 ] || fail "batch: exit $code: $(cat "$TMP/stderr")"
[ "$(grep -c 'error:' "$TMP/stderr")" = 2 ] || fail "batch: expected two error lines: $(cat "$TMP/stderr")"
grep -q "m.jsonl: line 2: ge: names more than one weights file: ./ge.json and ./ge.mhw" "$TMP/stderr" || fail "batch: $(cat "$TMP/stderr")"
grep -qF "m.jsonl: line 4: proxy: proxy nope/fg: no such file or folder (looked for nope/fg{,.proxy} in ., $ASSETS, $ASSETS/proxymeshes)" "$TMP/stderr" ||
  fail "batch: $(cat "$TMP/stderr")"
R export --data "$DATA" --rig game_engine --weights ge.mhw --target $MOUTH:0.5 --pose game_engine_fk/t-pose.json --apply-pose-as-rest \
  --morph faces/ --out named.glb
same named.glb out/named.glb "manifest line 1"
R export --data "$DATA" --rig game_engine --assets "$ASSETS" --asset shoes01 --asset myshoes --proxy female_generic --out dressed.glb 2>/dev/null
same dressed.glb out/dressed.glb "manifest line 3"
echo "ok"
