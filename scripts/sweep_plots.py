#!/usr/bin/env python3
"""Figures of a `fulcrum sweep` CSV: the strategy comparison and a throughput-power front.

    python3 scripts/sweep_plots.py SWEEP.csv [--figures DIR] [--format png|pdf|svg[,...]]
                                   [--workloads SET] [--arrival A] [--latency L]

(`make sweep-plots CSV=FILE` installs matplotlib from Debian and runs this with /usr/bin/python3.)
Writes into --figures (default: the CSV's folder), in each format given (`--format png,pdf`: both,
the PDF as vector graphics for a paper):
  strategies.<fmt>  per strategy, over the configurations with a feasible optimum: the share where
                    it met both budgets, mean and 5th-percentile objective / oracle's (0 where it
                    missed a budget), and the mean modes profiled per configuration (log scale;
                    the oracle, which profiles nothing, gets a note instead of a bar)
  tradeoff.<fmt>    per strategy, the mean objective / oracle's (filled marker) and its 5th
                    percentile (open marker, joined by a line) against the mean modes profiled
                    per configuration (log axis); one marker shape per strategy; the oracle,
                    which profiles nothing, as the dashed line at 1
  front.<fmt>       for one workload set, arrival case and latency budget (default: the first
                    set and arrival case in the CSV, the largest latency budget): the oracle's objective against the power budget -- the
                    best throughput the device can give at each budget, its throughput-power
                    Pareto front -- with what each strategy reached (missed budgets drawn as 0),
                    one marker shape per strategy, side by side at each budget
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


MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*", "h", "p"]


def tradeoff(plt, summary, configurations, title, figures, save):
    """Objective / oracle's against modes profiled per configuration, one marker per strategy."""
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    profiled = [n for n in summary if summary[n]["mean_modes"] > 0]
    for k, name in enumerate(profiled):
        s = summary[name]
        marker = MARKERS[k % len(MARKERS)]
        color = f"C{k % 10}"
        ax.plot([s["mean_modes"]] * 2, [s["p5"], s["mean"]], color=color, linewidth=0.8,
                alpha=0.6)
        ax.plot(s["mean_modes"], s["mean"], marker=marker, color=color, linestyle="",
                markersize=8, label=f"{name} ({s['met_pct']:.1f}% met)")
        ax.plot(s["mean_modes"], s["p5"], marker=marker, color=color, linestyle="",
                markersize=7, markerfacecolor="none")
    if any(summary[n]["mean_modes"] == 0 for n in summary):
        ax.axhline(1.0, color="black", linestyle="--", linewidth=1,
                   label="oracle (reads the truth, profiles nothing)")
    ax.set_xscale("log")
    ax.set_xlabel("power modes profiled per configuration (mean, log scale)")
    ax.set_ylabel("training objective / oracle's (ratio)")
    ax.set_ylim(-0.03, 1.08)
    ax.grid(alpha=0.3, which="both")
    ax.set_title(f"{title}: {configurations} configurations; filled: mean, open: 5th percentile",
                 fontsize=9)
    ax.legend(fontsize="x-small", loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    save(fig, "tradeoff")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--figures")
    ap.add_argument("--format", default="png",
                    help="png, pdf or svg, or several separated by commas (png,pdf)")
    ap.add_argument("--workloads")
    ap.add_argument("--arrival")
    ap.add_argument("--latency")
    args = ap.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    formats = [f for f in args.format.split(",") if f]
    bad = [f for f in formats if f not in ("png", "pdf", "svg")]
    if bad or not formats:
        sys.exit(f"sweep_plots: --format: expected png, pdf or svg (comma-separated), got "
                 f"'{args.format}'")

    def save(fig, stem):
        for fmt in formats:
            path = os.path.join(figures, f"{stem}.{fmt}")
            fig.savefig(path, dpi=150, bbox_inches="tight")
            print(f"wrote {path}")

    rows = read_rows(args.csv)
    if not rows:
        sys.exit(f"sweep_plots: {args.csv}: no rows")
    figures = args.figures or os.path.dirname(os.path.abspath(args.csv))
    os.makedirs(figures, exist_ok=True)

    summary = summarise(rows)
    names = list(summary)
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    x = list(range(len(names)))
    axes[0].bar(x, [summary[n]["met_pct"] for n in names], color="tab:green")
    axes[0].set_ylabel("budgets met (% of feasible configurations)")
    axes[0].set_ylim(0, 105)
    axes[0].set_title("budgets met", fontsize=10)
    width = 0.4
    axes[1].bar([i - width / 2 for i in x], [summary[n]["mean"] for n in names], width,
                label="mean")
    axes[1].bar([i + width / 2 for i in x], [summary[n]["p5"] for n in names], width,
                label="5th percentile")
    axes[1].set_ylabel("objective / oracle's (0 where a budget was missed)")
    axes[1].set_ylim(0, 1.05)
    axes[1].set_title("objective reached", fontsize=10)
    axes[1].legend(fontsize="small", loc="lower left")
    # The oracle reads the exact truth and profiles nothing: no bar (a log axis has no 0), a note.
    profiled = [n for n in names if summary[n]["mean_modes"] > 0]
    px = [names.index(n) for n in profiled]
    axes[2].bar(px, [summary[n]["mean_modes"] for n in profiled], color="tab:gray")
    for i, n in enumerate(names):
        if summary[n]["mean_modes"] == 0:
            axes[2].annotate("profiles\nnothing", (i, 0), xycoords=("data", "axes fraction"),
                             xytext=(0, 6), textcoords="offset points", ha="center",
                             va="bottom", fontsize=8, color="dimgrey")
    if profiled:
        axes[2].set_yscale("log")
    axes[2].set_ylabel("modes profiled per configuration (mean)")
    axes[2].set_title("profiling cost", fontsize=10)
    for ax in axes:
        ax.set_xticks(x)
        ax.set_xticklabels(names, rotation=30, ha="right")
        ax.set_xlim(-0.6, len(names) - 0.4)
        ax.set_xlabel("strategy")
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"{os.path.basename(args.csv)}: {len(rows) // max(len(names), 1)} configurations")
    fig.tight_layout()
    save(fig, "strategies")
    tradeoff(plt, summary, len(rows) // max(len(names), 1), os.path.basename(args.csv), figures,
             save)

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
    # Strategies often reach the same value at the same budget: each gets its own marker shape
    # and a small sideways offset (a fraction of the budgets' spacing), so none hides another.
    markers = MARKERS
    strategies = [n for n in by_strategy if n != "oracle"]
    gaps = [b - a for a, b in zip(xs, xs[1:]) if b > a]
    spread = 0.3 * (min(gaps) if gaps else 1.0)
    for k, name in enumerate(strategies):
        pts = sorted(by_strategy[name])
        offset = spread * ((k + 0.5) / len(strategies) - 0.5)
        ax.plot([p + offset for p, _ in pts], [v for _, v in pts], marker=markers[k % len(markers)],
                linestyle="", markersize=6, markerfacecolor="none", markeredgewidth=1.3,
                color=f"C{k}", label=name)
    ax.set_xlabel("power budget (W); strategies drawn side by side at each budget")
    ax.set_ylabel("objective (training minibatches per window or per s)")
    ax.set_title(f"{workloads}, arrival {arrival}/s, latency budget {latency} s", fontsize=10)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    fig.tight_layout()
    save(fig, "front")


if __name__ == "__main__":
    main()
