#!/usr/bin/env python3
"""Whole-process cost of a command: wall time and peak resident memory over repeated runs.

    bench/process_cost.py [-n RUNS] [--env NAME=VALUE ...] -- COMMAND [ARG...]

Runs COMMAND RUNS times (default 9) after one untimed run (page cache), each from spawn to exit,
and prints min-median-max of the wall time (ms), of the CPU time (user + system, ms: what a
loaded machine inflates least) and of the peak RSS (MiB, the child's own ru_maxrss from wait4). Its output goes to /dev/null. Used for docs/PERFORMANCE.md ("Whole
processes").
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def one_run(command, env):
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall_ms = (time.perf_counter() - start) * 1e3
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"process_cost: {' '.join(command)} exited {child.returncode}")
    cpu_ms = (usage.ru_utime + usage.ru_stime) * 1e3
    return wall_ms, usage.ru_maxrss / 1024.0, cpu_ms  # RSS KiB -> MiB


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=9)
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command or args.n < 1:
        parser.error("a command and -n >= 1 are needed")
    env = dict(os.environ)
    for item in args.env:
        name, _, value = item.partition("=")
        env[name] = value
    one_run(command, env)
    runs = [one_run(command, env) for _ in range(args.n)]
    walls = sorted(r[0] for r in runs)
    rss = sorted(r[1] for r in runs)
    cpu = sorted(r[2] for r in runs)
    print(f"{' '.join(command)}: {args.n} runs; wall ms min {walls[0]:.1f} median "
          f"{statistics.median(walls):.1f} max {walls[-1]:.1f}; CPU (user + system) ms min "
          f"{cpu[0]:.1f} median {statistics.median(cpu):.1f} max {cpu[-1]:.1f}; peak RSS MiB min "
          f"{rss[0]:.1f} median {statistics.median(rss):.1f} max {rss[-1]:.1f}")


if __name__ == "__main__":
    main()
