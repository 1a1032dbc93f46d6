#!/usr/bin/env python3
"""Per-part summary of sweep CSVs (docs/SEARCH.md, "Measured: `fewshot` against the targets").

Reads one or more CSVs written by `fulcrum sweep` and prints, for one strategy, the share of
configurations with a feasible optimum where both budgets were met, the mean and p5 ratio to the
oracle and the modes per configuration, per part: inference streams (1 or 2), objective, power
constraint, and fixed or dynamic arrivals. The objective and power constraint are those of the
sweep file named in each CSV's first line (scenarios/sweeps/NAME.yaml, or --sweeps-dir).
The figures are `scripts/sweep_plots.py`'s summary, as `fulcrum sweep` computes its own (p5: the
value at rank floor(0.05 (n - 1)) of the sorted ratios; modes over every configuration).

  scripts/sweep_parts.py --strategy fewshot out/a.csv out/b.csv
  scripts/sweep_parts.py --workloads lstm/resnet50+yolov8n shard-16.csv
"""
import argparse
import csv
import os
import re
import sys
from collections import defaultdict

from sweep_plots import summarise


def sweep_settings(name, sweeps_dir):
    path = os.path.join(sweeps_dir, name + ".yaml")
    settings = {"objective": "per-second", "power_constraint": "max-of-phases"}
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"^(objective|power_constraint):\s*([\w-]+)", line)
                if m:
                    settings[m.group(1)] = m.group(2)
    except OSError:
        sys.exit(f"{path}: cannot read the sweep file named in the CSV")
    return settings


def slim(row):
    """The fields `summarise` reads: a part keeps one small dict per configuration."""
    return {k: row[k] for k in ("strategy", "modes_profiled", "feasible_optimum", "budgets_met",
                                "ratio")}


def line(label, rows, strategy):
    s = summarise(rows).get(strategy)
    if s is None or s["feasible"] == 0:
        modes = s["mean_modes"] if s else 0.0
        return f"| {label} | 0 | - | - | - | {modes:.1f} |"
    return (f"| {label} | {s['feasible']:,} | {s['met_pct']:.1f}% | {s['mean']:.3f} | "
            f"{s['p5']:.2f} | {s['mean_modes']:.1f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--strategy", default="fewshot")
    ap.add_argument("--workloads", action="append", default=[],
                    help="only rows of this workload set as the CSV writes it "
                         "(e.g. lstm/resnet50+yolov8n); repeatable")
    ap.add_argument("--sweeps-dir", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "scenarios", "sweeps"))
    args = ap.parse_args()
    parts = defaultdict(list)
    total = []
    for path in args.csv:
        with open(path) as f:
            first = f.readline()
            m = re.match(r"# fulcrum sweep (\S+):", first)
            if not m:
                sys.exit(f"{path}:1:1: not a `fulcrum sweep` CSV (no '# fulcrum sweep NAME:' line)")
            s = sweep_settings(m.group(1), args.sweeps_dir)
            for row in csv.DictReader(f):
                if row["strategy"] != args.strategy:
                    continue
                if args.workloads and row["workloads"] not in args.workloads:
                    continue
                streams = row["workloads"].split("/", 1)[-1].count("+") + 1
                arrivals = "dynamic" if ">" in row["arrival_per_s"] else "fixed"
                r = slim(row)
                for key in (("streams", f"{streams}"), ("objective", s["objective"]),
                            ("power constraint", s["power_constraint"]),
                            ("arrivals", arrivals),
                            ("streams x arrivals", f"{streams} / {arrivals}")):
                    parts[key].append(r)
                total.append(r)
    print(f"{args.strategy}: per part (configurations with a feasible optimum)")
    print("| part | feasible | met | mean ratio | p5 ratio | modes / configuration |")
    print("|---|---|---|---|---|---|")
    for key in sorted(parts):
        print(line(f"{key[0]}: {key[1]}", parts[key], args.strategy))
    print(line("all", total, args.strategy))


if __name__ == "__main__":
    main()
