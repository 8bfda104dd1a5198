#!/usr/bin/env bash
# Check rigfit against Blender for every bundled rig.
#
#   tools/blender/run_all.sh RIGFIT_BINARY DATA_DIR
#
# For each rig file in DATA_DIR/rigs/standard and DATA_DIR/rigs/rigify:
#   1. Blender reference:  blender -b --factory-startup --python fit_reference.py -- ...
#   2. rigfit:             RIGFIT fit --data DATA_DIR --rig FILE --out OUT/NAME.rigfit.json
#   3. compare.py reference vs rigfit
# and prints a summary table.  Exit status 1 if any rig fails or errors.
#
# Environment:
#   BLENDER     Blender executable (default: blender)
#   OUT         work folder (default: /tmp/rigfit-blender)
#   TOL         head/tail tolerance in metres (default 1e-6)
#   ROLL_TOL    roll tolerance in radians (default 2e-4, see README: Blender's float32 noise)
#   MATRIX_TOL  matrix tolerance (default 2e-4, same reason)
#   COMPARE_ARGS  extra arguments for compare.py (e.g. "--allow-missing --list 5")
#   REUSE_REF=1 reuse existing Blender reference files in OUT
#   MESH        body OBJ (hm08 vertex order) to fit instead of DATA_DIR/3dobjs/base.obj;
#               passed as --mesh to both fit_reference.py and rigfit
#   WARP        warp name for fit_reference.py --warp (e.g. lean); Blender also writes the
#               warped body as OUT/NAME.warped.obj (--write-obj) and rigfit fits that OBJ
#   Use a separate OUT per body: file names in OUT do not include the body.
set -u

if [ $# -lt 2 ]; then
    echo "usage: $0 RIGFIT_BINARY DATA_DIR" >&2
    exit 2
fi
RIGFIT=$1
DATA=$2
HERE=$(cd "$(dirname "$0")" && pwd)
BLENDER=${BLENDER:-blender}
OUT=${OUT:-/tmp/rigfit-blender}
TOL=${TOL:-1e-6}
ROLL_TOL=${ROLL_TOL:-2e-4}
MATRIX_TOL=${MATRIX_TOL:-2e-4}
COMPARE_ARGS=${COMPARE_ARGS:-}
MESH=${MESH:-}
WARP=${WARP:-}
mkdir -p "$OUT"
if [ -n "$MESH" ] && [ ! -s "$MESH" ]; then
    echo "$0: MESH=$MESH: no such file" >&2
    exit 2
fi
ref_mesh=()
[ -n "$MESH" ] && ref_mesh=(--mesh "$MESH")

rows=()
status=0
shopt -s nullglob
for rig in "$DATA"/rigs/standard/rig.*.json "$DATA"/rigs/rigify/rig.*.json; do
    base=$(basename "$rig" .json)
    name=${base#rig.}
    case "$rig" in */rigs/rigify/*) name="rigify.$name" ;; esac
    ref="$OUT/$name.reference.json"
    fit="$OUT/$name.rigfit.json"
    ref_extra=("${ref_mesh[@]}")
    fit_mesh=("${ref_mesh[@]}")
    if [ -n "$WARP" ]; then
        warped="$OUT/$name.warped.obj"
        ref_extra+=(--warp "$WARP" --write-obj "$warped")
        fit_mesh=(--mesh "$warped")
    fi

    if [ "${REUSE_REF:-0}" = 1 ] && [ -s "$ref" ] && { [ -z "$WARP" ] || [ -s "$warped" ]; }; then
        :
    else
        rm -f "$ref"
        t0=$(date +%s.%N)
        if ! "$BLENDER" -b --factory-startup --python "$HERE/fit_reference.py" -- \
                --data "$DATA" --rig "$rig" "${ref_extra[@]}" --out "$ref" >"$OUT/$name.blender.log" 2>&1 \
                || [ ! -s "$ref" ]; then
            rows+=("$name	-	-	-	-	-	-	-	BLENDER-ERROR (see $OUT/$name.blender.log)")
            status=1
            continue
        fi
        t1=$(date +%s.%N)
        echo "[$name] Blender reference: $(awk "BEGIN{printf \"%.1f\", $t1-$t0}") s" >&2
    fi

    rm -f "$fit"
    if ! "$RIGFIT" fit --data "$DATA" --rig "$rig" "${fit_mesh[@]}" --out "$fit" >"$OUT/$name.rigfit.log" 2>&1 \
            || [ ! -s "$fit" ]; then
        rows+=("$name	-	-	-	-	-	-	-	RIGFIT-ERROR (see $OUT/$name.rigfit.log)")
        status=1
        continue
    fi

    # shellcheck disable=SC2086
    python3 "$HERE/compare.py" "$ref" "$fit" --name "$name" --tol "$TOL" \
        --roll-tol "$ROLL_TOL" --matrix-tol "$MATRIX_TOL" $COMPARE_ARGS >"$OUT/$name.compare.txt" 2>&1
    rc=$?
    line=$(grep '^RESULT' "$OUT/$name.compare.txt" | tail -n 1)
    if [ -z "$line" ]; then
        rows+=("$name	-	-	-	-	-	-	-	COMPARE-ERROR (see $OUT/$name.compare.txt)")
        status=1
        continue
    fi
    # RESULT name nref nfit dhead dtail droll dmatrix miss_fit miss_ref status fails
    IFS=$'\t' read -r _ _ nref nfit dh dt dr dm mf mr st fl <<<"$line"
    [ "$rc" -ne 0 ] && status=1
    [ -n "${fl:-}" ] && st="$st ($fl)"
    rows+=("$name	$nref/$nfit	$dh	$dt	$dr	$dm	$mf	$mr	$st")
done

echo
echo "body: ${MESH:-$DATA/3dobjs/base.obj}${WARP:+, warp $WARP}"
echo "tolerances: head/tail $TOL m, roll $ROLL_TOL rad, matrix $MATRIX_TOL;  details: $OUT/*.compare.txt"
printf '%-26s %-9s %-10s %-10s %-10s %-10s %-5s %-5s %s\n' \
    rig "bones" "max|dhead|" "max|dtail|" "max|droll|" "max|dmat|" "-fit" "-ref" status
for r in "${rows[@]}"; do
    IFS=$'\t' read -r a b c d e f g h i <<<"$r"
    printf '%-26s %-9s %-10s %-10s %-10s %-10s %-5s %-5s %s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g" "$h" "$i"
done
exit $status
