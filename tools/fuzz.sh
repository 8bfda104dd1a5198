#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs one of them on its seeds:
#   tools/fuzz.sh TARGET SECONDS [libFuzzer options...]
#   tools/fuzz.sh all SECONDS          every target in turn (CI's smoke run)
# TARGET: rig_json weights_json vertex_groups obj target pose_json g4mf gltf_skeleton mhclo mhmat.
# Findings go to build-fuzz/fuzz/findings/TARGET; the corpus grows in build-fuzz/fuzz/corpus/TARGET.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${1:?usage: tools/fuzz.sh TARGET|all SECONDS [options]} SECONDS_EACH=${2:?seconds}
shift 2
BUILD=${FUZZ_BUILD:-build-fuzz}
ALL=(rig_json weights_json vertex_groups obj target pose_json g4mf gltf_skeleton mhclo mhmat)
# A build folder already configured for fuzzing (CI's, which also ran the tests in it) is used as it is.
# -O1 with line tables: reports keep file:line, and compiling takes ~40 % less than at -O2 -g.
if ! grep -qs "^RIGFIT_BUILD_FUZZ:BOOL=ON" "$BUILD/CMakeCache.txt"; then
  CXX=clang++ cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DRIGFIT_BUILD_FUZZ=ON \
    -DRIGFIT_BUILD_TESTS=OFF -DRIGFIT_BUILD_BENCH=OFF -DRIGFIT_BUILD_EXAMPLES=OFF >/dev/null
fi
targets=("$TARGET")
[ "$TARGET" = all ] && targets=("${ALL[@]}")
cmake --build "$BUILD" --target fuzz_seeds $(printf 'fuzz_%s ' "${targets[@]}")
dict_of() {
  case $1 in
    obj) echo fuzz/dict/obj.dict ;;
    g4mf) echo fuzz/dict/g4mf.dict ;;
    gltf_skeleton) echo fuzz/dict/gltf.dict ;;
    mhclo) echo fuzz/dict/mhclo.dict ;;
    mhmat) echo fuzz/dict/mhmat.dict ;;
    target) echo "" ;;
    *) echo fuzz/dict/json.dict ;;
  esac
}
for t in "${targets[@]}"; do
  corpus="$BUILD/fuzz/corpus/$t" findings="$BUILD/fuzz/findings/$t"
  mkdir -p "$corpus" "$findings"
  dict=$(dict_of "$t")
  echo "== fuzz_$t for ${SECONDS_EACH}s"
  # -rss_limit_mb: no input may make a reader use more than 512 MB (the fuzzer's own ~100 MB included).
  log="$BUILD/fuzz/fuzz_$t.log" status=0
  "$BUILD/fuzz/fuzz_$t" "$corpus" "$BUILD/fuzz/seeds/$t" ${dict:+-dict=$dict} -max_total_time="$SECONDS_EACH" \
    -rss_limit_mb=640 -malloc_limit_mb=512 -timeout=10 -artifact_prefix="$findings/" -print_final_stats=1 "$@" \
    >"$log" 2>&1 || status=$?
  grep -E "^(#[0-9]+ *(DONE|INITED)|stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|SUMMARY|ERROR)" "$log" || true
  if [ $status -ne 0 ] || [ -n "$(ls -A "$findings")" ]; then
    tail -n 40 "$log"
    echo "fuzz_$t: failed (exit $status); inputs in $findings"
    exit 1
  fi
done
