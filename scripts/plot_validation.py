#!/usr/bin/env python3
"""Plot a validation bundle written by `fulcrum validate`: simulated vs measured, side by side.

    python3 scripts/plot_validation.py BUNDLE [--format png|pdf|svg]

Reads BUNDLE/comparison.json and writes BUNDLE/comparison.<fmt>: one panel of grouped bars per
scope and unit (each inference stream's latencies in ms, training throughput per s, power in W,
energy in J: never two units on one axis), simulated beside measured, each pair labelled with
the simulation's error in % of the measured value. Needs python3 and
matplotlib only (scripts/install-deps.sh --plots).
"""

import argparse
import json
import os
import sys


UNIT_LABELS = {"ms": "time (ms)", "/s": "rate (per s)", "W": "power (W)", "J": "energy (J)"}


def unit_of(metric):
    """The unit a metric's name ends in: p99_latency_ms -> ms, avg_power_w (device meter) -> W."""
    name = metric.split(" (")[0]
    for suffix, unit in (("_ms", "ms"), ("_per_s", "/s"), ("_w", "W"), ("_j", "J"), ("_s", "s")):
        if name.endswith(suffix):
            return unit
    return ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle")
    parser.add_argument("--format", default="png", choices=["png", "pdf", "svg"])
    args = parser.parse_args()
    path = os.path.join(args.bundle, "comparison.json")
    try:
        with open(path) as f:
            comparison = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_validation: {path}: {e}")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_validation: needs matplotlib (scripts/install-deps.sh --plots)")

    # One panel per scope and unit: a bar in ms never shares an axis with one in req/s, nor W
    # with J.
    panels = []
    for m in comparison["metrics"]:
        key = (m["scope"], unit_of(m["metric"]))
        if key not in panels:
            panels.append(key)
    fig, axes = plt.subplots(1, len(panels), figsize=(3.6 * len(panels), 4), squeeze=False)
    for ax, (scope, unit) in zip(axes[0], panels):
        rows = [m for m in comparison["metrics"]
                if m["scope"] == scope and unit_of(m["metric"]) == unit]
        xs = range(len(rows))
        sim = [m["simulated"] or 0 for m in rows]
        real = [m["measured"] or 0 for m in rows]
        ax.bar([x - 0.2 for x in xs], sim, width=0.4, label="simulated")
        ax.bar([x + 0.2 for x in xs], real, width=0.4, label="measured")
        for x, m in zip(xs, rows):
            if m["error_pct"] is not None:
                top = max(m["simulated"] or 0, m["measured"] or 0)
                ax.annotate(f"{m['error_pct']:+.1f}%", (x, top), ha="center", va="bottom",
                            fontsize=8)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([m["metric"] for m in rows], rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(UNIT_LABELS.get(unit, unit or "value"))
        ax.set_title(scope)
        ax.margins(y=0.12)  # room for the error labels
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 1.08), ncol=2,
               fontsize=9, frameon=False)  # one legend above the panels, over no bar or label
    fig.tight_layout()
    out = os.path.join(args.bundle, f"comparison.{args.format}")
    fig.savefig(out, dpi=150, bbox_inches="tight")
    print(f"plot_validation: wrote {out}")


if __name__ == "__main__":
    main()
