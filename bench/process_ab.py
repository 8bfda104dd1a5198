#!/usr/bin/env python3
"""Whole-process timing of several builds (or commands), alternating run by run so that every
build sees the same phases of the machine.

    bench/process_ab.py SECONDS 'NAME|ENV|COMMAND ...' ...

ENV is empty or K=V[,K=V]. Each run is spawned with posix_spawn (stdout and stderr to
/dev/null) and timed from the spawn to wait4's return; CPU time is the child's user + system
time. Prints, per command: runs, wall minimum, quartiles and 90th percentile, and CPU minimum
and median, in milliseconds. Example (the export goal, old build against new):

    bench/process_ab.py 60 \\
      "old||/tmp/old/rigfit export --data ../shared/data/mpfb --rig game_engine --out /tmp/a.glb" \\
      "new||build/rigfit export --data ../shared/data/mpfb --rig game_engine --out /tmp/b.glb"
"""
import os
import sys
import time


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    seconds = float(sys.argv[1])
    commands = []
    for spec in sys.argv[2:]:
        name, env_text, command = spec.split("|", 2)
        env = dict(os.environ)
        for kv in filter(None, env_text.split(",")):
            key, value = kv.split("=", 1)
            env[key] = value
        argv = command.split()
        argv[0] = os.path.abspath(argv[0]) if os.path.exists(argv[0]) else argv[0]
        commands.append((name, env, argv))
    wall = {name: [] for name, _, _ in commands}
    cpu = {name: [] for name, _, _ in commands}
    devnull = os.open(os.devnull, os.O_WRONLY)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for name, env, argv in commands:
            t0 = time.perf_counter()
            pid = os.posix_spawn(argv[0], argv, env,
                                 file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
            _, status, usage = os.wait4(pid, 0)
            t1 = time.perf_counter()
            if status != 0:
                print(f"{name}: exit status {status}", file=sys.stderr)
                return 1
            wall[name].append((t1 - t0) * 1e3)
            cpu[name].append((usage.ru_utime + usage.ru_stime) * 1e3)
    for name, _, _ in commands:
        w, c = sorted(wall[name]), sorted(cpu[name])
        n = len(w)
        print(f"{name}: n={n} wall min {w[0]:.2f} q1 {w[n // 4]:.2f} median {w[n // 2]:.2f} "
              f"q3 {w[3 * n // 4]:.2f} p90 {w[9 * n // 10]:.2f} | cpu min {c[0]:.2f} median {c[n // 2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
