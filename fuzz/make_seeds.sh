#!/usr/bin/env bash
# Writes one seed folder per fuzz target: small real files (the demo character, MakeHuman's data in
# ../shared when present, exports of the demo made by the rigfit command just built).
set -euo pipefail
RIGFIT=$1 DEMO=$2 DATA=$3 OUT=$4
rm -rf "$OUT"
for t in rig_json weights_json vertex_groups obj target pose_json g4mf gltf_skeleton mhclo mhmat; do mkdir -p "$OUT/$t"; done
cp "$DEMO/rig.demo.json" "$OUT/rig_json/"
cp "$(dirname "$0")/../tests/cli/cases/constraints.json" "$OUT/rig_json/"
cp "$DEMO/weights.demo.json" "$OUT/weights_json/"
cp "$DEMO/vertex_groups.json" "$OUT/vertex_groups/"
cp "$DEMO/body.obj" "$OUT/obj/"
"$RIGFIT" export --out "$OUT/g4mf/demo.g4tf"
"$RIGFIT" export --out "$OUT/g4mf/demo.g4b"
"$RIGFIT" export --out "$OUT/g4mf/demo.zstd.g4b" --compress
"$RIGFIT" export --out "$OUT/gltf_skeleton/demo.glb"
"$RIGFIT" export --out "$OUT/gltf_skeleton/demo.gltf" --embed
if [ -d "$DATA" ]; then
  cp "$DATA/rigs/standard/rig.openpose.json" "$DATA/rigs/standard/rig.cmu_mb.json" "$OUT/rig_json/"
  assets="$DATA/../assets"
  [ -f "$assets/hair/ponytail01/ponytail01.mpfbskel" ] && cp "$assets/hair/ponytail01/ponytail01.mpfbskel" "$OUT/rig_json/"
  # The small assets whole; of the large ones, the header and the first and last lines of each section.
  if [ -d "$assets" ]; then
    for f in "$assets"/eyebrows/*/*.mhclo "$assets"/eyes/low-poly/*.mhclo; do cp "$f" "$OUT/mhclo/"; done
    for f in "$assets"/clothes/*/*.mhclo "$assets"/proxymeshes/*/*.proxy; do
      awk '/^verts/ {v = 1; n = 0} v && /^ *[0-9]/ {if (++n > 40) next} /^$/ {v = 0} {print}' "$f" > "$OUT/mhclo/$(basename "$f")"
    done
    cp "$assets"/*/*/*.mhmat "$OUT/mhmat/"
  fi
  # The first 200 pairs of a shipped weights file, closed as JSON, keep the seed small.
  python3 - "$DATA/rigs/standard/weights.openpose.json" "$OUT/weights_json/openpose.head.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
w["weights"] = {k: v[:200] for k, v in list(w["weights"].items())[:8]}
json.dump(w, open(sys.argv[2], "w"), indent=4, sort_keys=True)
PY
  for f in "$DATA"/poses/*_fk/*.json; do cp "$f" "$OUT/pose_json/$(basename "$(dirname "$f")").$(basename "$f")"; done
  n=0
  for f in "$DATA"/targets/expression/units/caucasian/*.target.gz; do
    cp "$f" "$OUT/target/"
    gunzip -c "$f" > "$OUT/target/$(basename "$f" .gz)"
    n=$((n + 1)); [ $n -ge 4 ] && break
  done
fi
g4mf="$DATA/../../g4mf/examples"
[ -d "$g4mf" ] && cp "$g4mf"/*.g4tf "$g4mf"/*.g4b "$OUT/g4mf/"
exit 0
