#!/usr/bin/env python3
"""Figures of a `fulcrum sweep` CSV: the strategy comparison and a throughput-power front.

    python3 scripts/sweep_plots.py SWEEP.csv [--figures DIR] [--format png|pdf|svg]
                                   [--workloads SET] [--arrival A] [--latency L]

(`make sweep-plots CSV=FILE` installs matplotlib from Debian and runs this with /usr/bin/python3.)
Writes into --figures (default: the CSV's folder):
  strategies.<fmt>  per strategy, over the configurations with a feasible optimum: the share where
                    it met both budgets, mean and 5th-percentile objective / oracle's (0 where it
                    missed a budget), and the mean modes profiled per configuration (log scale)
  front.<fmt>       for one workload set, arrival case and latency budget (default: the first
                    set and arrival case in the CSV, the largest latency budget): the oracle's objective against the power budget -- the
                    best throughput the device can give at each budget, its throughput-power
                    Pareto front -- with what each strategy reached (missed budgets drawn as 0)
Columns: docs/SEARCH.md ("fulcrum sweep"). Needs python3 and matplotlib only.
"""

import argparse
import csv
import os
import sys
from collections import OrderedDict


def read_rows(path):
    with open(path, newline="") as f:
        first = f.readline()
        if not first.startswith("# fulcrum sweep "):
            sys.exit(f"sweep_plots: {path}: not a fulcrum sweep CSV (no '# fulcrum sweep' line)")
        return list(csv.DictReader(f))


def summarise(rows):
    out = OrderedDict()
    for r in rows:
        s = out.setdefault(r["strategy"], {"feasible": 0, "met": 0, "ratios": [], "modes": []})
        s["modes"].append(float(r["modes_profiled"]))
        if r["feasible_optimum"] != "1":
            continue
        s["feasible"] += 1
        s["met"] += r["budgets_met"] == "1"
        s["ratios"].append(float(r["ratio"]))
    for s in out.values():
        ratios = sorted(s["ratios"])
        s["mean"] = sum(ratios) / len(ratios) if ratios else 0.0
        s["p5"] = ratios[int(0.05 * (len(ratios) - 1))] if ratios else 0.0
        s["met_pct"] = 100.0 * s["met"] / s["feasible"] if s["feasible"] else 0.0
        s["mean_modes"] = sum(s["modes"]) / len(s["modes"]) if s["modes"] else 0.0
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--figures")
    ap.add_argument("--format", default="png", choices=["png", "pdf", "svg"])
    ap.add_argument("--workloads")
    ap.add_argument("--arrival")
    ap.add_argument("--latency")
    args = ap.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_rows(args.csv)
    if not rows:
        sys.exit(f"sweep_plots: {args.csv}: no rows")
    figures = args.figures or os.path.dirname(os.path.abspath(args.csv))
    os.makedirs(figures, exist_ok=True)

    summary = summarise(rows)
    names = list(summary)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    x = range(len(names))
    axes[0].bar(x, [summary[n]["met_pct"] for n in names], color="tab:green")
    axes[0].set_ylabel("budgets met (% of feasible configurations)")
    axes[0].set_ylim(0, 105)
    width = 0.4
    axes[1].bar([i - width / 2 for i in x], [summary[n]["mean"] for n in names], width,
                label="mean")
    axes[1].bar([i + width / 2 for i in x], [summary[n]["p5"] for n in names], width, label="p5")
    axes[1].set_ylabel("objective / oracle's")
    axes[1].set_ylim(0, 1.05)
    axes[1].legend()
    axes[2].bar(x, [max(summary[n]["mean_modes"], 0.1) for n in names], color="tab:gray")
    axes[2].set_yscale("log")
    axes[2].set_ylabel("modes profiled per configuration")
    for ax in axes:
        ax.set_xticks(list(x))
        ax.set_xticklabels(names, rotation=45, ha="right")
    fig.suptitle(f"{os.path.basename(args.csv)}: {len(rows) // max(len(names), 1)} configurations")
    fig.tight_layout()
    path = os.path.join(figures, f"strategies.{args.format}")
    fig.savefig(path)
    print(f"wrote {path}")

    workloads = args.workloads or rows[0]["workloads"]
    arrival = args.arrival or rows[0]["arrival_per_s"]
    latency = args.latency or max((r["latency_budget_s"] for r in rows), key=float)
    picked = [r for r in rows if r["workloads"] == workloads and r["arrival_per_s"] == arrival
              and r["latency_budget_s"] == latency]
    if not picked:
        print(f"sweep_plots: no rows for {workloads}, arrival {arrival}, latency {latency}; "
              "front skipped", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    by_strategy = OrderedDict()
    oracle = {}
    for r in picked:
        p = float(r["power_budget_w"])
        oracle[p] = float(r["oracle_value"])
        by_strategy.setdefault(r["strategy"], []).append((p, float(r["value"])))
    xs = sorted(oracle)
    ax.step(xs, [oracle[p] for p in xs], where="post", color="black", linewidth=2,
            label="oracle (front)")
    for name, pts in by_strategy.items():
        if name == "oracle":
            continue
        pts.sort()
        ax.plot([p for p, _ in pts], [v for _, v in pts], marker=".", linestyle="", label=name)
    ax.set_xlabel("power budget (W)")
    ax.set_ylabel("objective (training minibatches per window or per s)")
    ax.set_title(f"{workloads}, arrival {arrival}/s, latency budget {latency} s")
    ax.legend(fontsize="small")
    fig.tight_layout()
    path = os.path.join(figures, f"front.{args.format}")
    fig.savefig(path)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
