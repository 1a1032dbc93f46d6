#!/usr/bin/env python3
"""The cost of Fulcrum's Python API on the quickstart (docs/PERFORMANCE.md, "Python").

    PYTHONPATH=build/python bench/python_run.py [-n RUNS] [--binary build/fulcrum]

Prints, as medians of RUNS (default 9) after one untimed run each, wall and CPU (user + system)
milliseconds of:
  - fulcrum.run of the quickstart into a folder, in this process (from the call to its return);
  - the CLI's in-process time for the same run: `fulcrum run ... --out` as a whole process minus
    `fulcrum --version` (the process's start and exit), both measured here;
  - fulcrum.run with the C++ windowed policy and with the same policy written in Python
    (policy=), the number of decisions (pick_next calls) and the difference per decision.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import fulcrum

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python",
                                "examples"))
from windowed_policy import Windowed  # noqa: E402

SCENARIO = "scenarios/quickstart.yaml"


def cpu_s():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def in_process(fn, runs):
    fn()
    walls, cpus = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), cpu_s()
        fn()
        cpus.append((cpu_s() - c) * 1e3)
        walls.append((time.perf_counter() - w) * 1e3)
    return statistics.median(walls), statistics.median(cpus)


def process(command, runs):
    def once():
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"python_run: {' '.join(command)} failed")
        return (time.perf_counter() - start) * 1e3, (usage.ru_utime + usage.ru_stime) * 1e3
    once()
    runs_ = [once() for _ in range(runs)]
    return statistics.median(r[0] for r in runs_), statistics.median(r[1] for r in runs_)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=9)
    parser.add_argument("--binary", default="build/fulcrum")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="fulcrum-bench-")
    try:
        out = os.path.join(tmp, "py")

        def py_run(policy=None):
            shutil.rmtree(out, ignore_errors=True)
            return fulcrum.run(SCENARIO, out=out, policy=policy)

        py_wall, py_cpu = in_process(py_run, args.n)
        cli_wall, cli_cpu = process([args.binary, "run", SCENARIO, "--out",
                                     os.path.join(tmp, "cli"), "-q"], args.n)
        ver_wall, ver_cpu = process([args.binary, "--version"], args.n)
        print(f"fulcrum.run (into a folder): wall {py_wall:.1f} ms, CPU {py_cpu:.1f} ms")
        print(f"CLI run, whole process: wall {cli_wall:.1f} ms, CPU {cli_cpu:.1f} ms; "
              f"--version: wall {ver_wall:.1f} ms, CPU {ver_cpu:.1f} ms")
        cli_in_wall, cli_in_cpu = cli_wall - ver_wall, cli_cpu - ver_cpu
        print(f"CLI in-process (run - --version): wall {cli_in_wall:.1f} ms, "
              f"CPU {cli_in_cpu:.1f} ms; fulcrum.run / CLI: wall {py_wall / cli_in_wall:.2f}, "
              f"CPU {py_cpu / cli_in_cpu:.2f}")

        probe = Windowed()
        py_run(probe)
        decisions = probe.decisions
        cpp_wall, cpp_cpu = in_process(lambda: py_run(None), args.n)
        pol_wall, pol_cpu = in_process(lambda: py_run(Windowed()), args.n)
        print(f"policy: C++ windowed wall {cpp_wall:.1f} ms, CPU {cpp_cpu:.1f} ms; Python "
              f"windowed wall {pol_wall:.1f} ms, CPU {pol_cpu:.1f} ms; {decisions} decisions; "
              f"+{(pol_cpu - cpp_cpu) * 1e6 / decisions:.0f} ns CPU "
              f"(+{(pol_wall - cpp_wall) * 1e6 / decisions:.0f} ns wall) per decision")
        print(f"load average: {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
