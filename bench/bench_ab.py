#!/usr/bin/env python3
"""Google Benchmark binaries of several builds, alternated round by round so that every build sees
the same phases of the machine; prints, per binary and benchmark, the minimum and the median CPU
time of all repetitions.

    bench/bench_ab.py [--filter REGEX] [--rounds N] [--repetitions N] [--min-time S] BINARY ...

Example (pose evaluation, the build of a previous commit against this one):

    bench/bench_ab.py --filter 'rigify_human|game_engine' --rounds 5 /tmp/old/rigfit_pose build/bench/rigfit_pose
"""
import argparse
import json
import statistics
import subprocess
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--filter", default=".")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repetitions", type=int, default=8)
    ap.add_argument("--min-time", default="0.1")
    args = ap.parse_args()
    times = {b: {} for b in args.binaries}
    unit = {}
    for _ in range(args.rounds):
        for b in args.binaries:
            run = subprocess.run([b, f"--benchmark_filter={args.filter}", f"--benchmark_repetitions={args.repetitions}",
                                  f"--benchmark_min_time={args.min_time}", "--benchmark_format=json"],
                                 capture_output=True, text=True)
            if run.returncode != 0:
                print(f"{b}: exit {run.returncode}: {run.stderr.strip()[:200]}", file=sys.stderr)
                return 1
            for x in json.loads(run.stdout)["benchmarks"]:
                if x.get("run_type") != "iteration":
                    continue
                name = x["run_name"]
                times[b].setdefault(name, []).append(x["cpu_time"])
                unit[name] = x.get("time_unit", "ns")
    for b in args.binaries:
        print(b)
        for name, v in times[b].items():
            print(f"   {name:60s} min {min(v):10.3f}  median {statistics.median(v):10.3f} {unit[name]}  (n={len(v)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
