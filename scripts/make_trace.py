#!/usr/bin/env python3
"""Generates scenarios/traces/bursty.csv, the arrival trace replayed by scenarios/trace-replay.yaml.

The trace alternates quiet and busy periods, as a camera feed that sees bursts of activity might:
10 s at 30 requests/s, then 5 s at 120 requests/s, repeated over 60 s, with Poisson arrivals
within each period (exponential gaps at the period's rate). Seeded, so rerunning it reproduces
the committed file byte for byte:

    python3 scripts/make_trace.py > scenarios/traces/bursty.csv

Columns: arrival_s (seconds from the start of the run, ascending) and phase (quiet|busy), which
Fulcrum ignores but which makes the file self-explaining.
"""
import random
import sys

SEED = 20240611
DURATION_S = 60.0
PERIODS = [("quiet", 10.0, 30.0), ("busy", 5.0, 120.0)]  # (name, length_s, rate_per_s)


def arrivals():
    rng = random.Random(SEED)
    t = 0.0
    start = 0.0
    while start < DURATION_S:
        for name, length_s, rate in PERIODS:
            end = min(start + length_s, DURATION_S)
            t = max(t, start)
            while True:
                t += rng.expovariate(rate)
                if t >= end:
                    t = end
                    break
                yield t, name
            start = end
            if start >= DURATION_S:
                return


def main():
    out = sys.stdout
    out.write("arrival_s,phase\n")
    for t, name in arrivals():
        out.write(f"{t:.6f},{name}\n")


if __name__ == "__main__":
    main()
