#!/usr/bin/env python3
"""Plot a validation bundle written by `fulcrum validate`: simulated vs measured, side by side.

    python3 scripts/plot_validation.py BUNDLE [--format png|pdf|svg]

Reads BUNDLE/comparison.json and writes BUNDLE/comparison.<fmt>: one panel of grouped bars per
scope (each inference stream's latencies, training throughput, power), simulated beside measured,
each pair labelled with the simulation's error in % of the measured value. Needs python3 and
matplotlib only (scripts/install-deps.sh --plots).
"""

import argparse
import json
import os
import sys


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

    scopes = []
    for m in comparison["metrics"]:
        if m["scope"] not in scopes:
            scopes.append(m["scope"])
    fig, axes = plt.subplots(1, len(scopes), figsize=(4.5 * len(scopes), 4), squeeze=False)
    for ax, scope in zip(axes[0], scopes):
        rows = [m for m in comparison["metrics"] if m["scope"] == scope]
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
        ax.set_title(scope)
        ax.legend(fontsize=8)
    fig.tight_layout()
    out = os.path.join(args.bundle, f"comparison.{args.format}")
    fig.savefig(out)
    print(f"plot_validation: wrote {out}")


if __name__ == "__main__":
    main()
