#!/usr/bin/env bash
# The whole `rigfit export` process (start-up, load, fit, weights, write), as a user runs it:
#   bench/export_process.sh RIGFIT [RUNS] [rigfit export options...]
# Default options: --data ../shared/data/mpfb --rig game_engine --out x.glb (in a temporary
# folder). Each run is timed three ways: wall time (bash's `time`, 1 ms resolution), peak
# resident memory (/usr/bin/time -v) and, when `perf` is installed, CPU time (perf stat
# task-clock, which unlike the wall time does not count waiting for a CPU on a busy machine).
# Prints every run, then the minimum and median of each, and the load average.
set -euo pipefail
RIGFIT=$1
RUNS=${2:-10}
shift $(( $# >= 2 ? 2 : 1 ))
HERE=$(cd "$(dirname "$0")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ $# -eq 0 ]; then set -- --data "$HERE/../shared/data/mpfb" --rig game_engine --out "$TMP/x.glb"; fi
"$RIGFIT" export "$@" >/dev/null  # warm the page cache
HAVE_PERF=0
perf stat -x, -e task-clock -o "$TMP/perf" true 2>/dev/null && HAVE_PERF=1
TIMEFORMAT=%3R
for i in $(seq "$RUNS"); do
  wall=$( { time "$RIGFIT" export "$@" >/dev/null 2>&1; } 2>&1 )
  /usr/bin/time -v "$RIGFIT" export "$@" 2>"$TMP/time" >/dev/null
  rss=$(awk -F': ' '/Maximum resident/ { print $2 / 1024 }' "$TMP/time")
  cpu=nan
  if [ $HAVE_PERF = 1 ]; then
    perf stat -x, -e task-clock -o "$TMP/perf" "$RIGFIT" export "$@" >/dev/null 2>&1
    cpu=$(awk -F, '/task-clock/ { print $1 }' "$TMP/perf")
  fi
  echo "$(awk -v w="$wall" 'BEGIN { print w * 1000 }') $cpu $rss"
done >"$TMP/all"
awk '{ printf "run %d: wall %.1f ms, cpu %.1f ms, peak RSS %.1f MB\n", NR, $1, $2, $3 }' "$TMP/all"
for col in 1 2 3; do
  sort -g -k$col,$col "$TMP/all" | awk -v c=$col '{ v[NR] = $c } END { printf "%s: min %.1f, median %.1f\n", (c == 1 ? "wall ms" : c == 2 ? "cpu ms" : "peak RSS MB"), v[1], v[int((NR + 1) / 2)] }'
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
