#!/usr/bin/env python3
"""Turn a Fulcrum run's output directory into the figures people expect.

    python3 scripts/plot.py OUT_DIR [--figures DIR] [--format png|pdf|svg] [--show]

Reads requests.csv, power.csv, minibatches.csv and summary.json (each figure is skipped when its
file is missing) and writes:
  latency.<fmt>   latency sawtooth: request latency (ms) against arrival time (s), per stream,
                  with the latency budget when the scenario has one
  power.<fmt>     power time series: each rail and the module (W) against time (s)
  timeline.<fmt>  GPU timeline: which context ran each minibatch, against time (s)
Column meanings: docs/METRICS.md ("Output files"). Needs python3 and matplotlib only.
"""

import argparse
import csv
import json
import os
import sys


def load_matplotlib(show):
    try:
        import matplotlib
    except ImportError:
        sys.exit("plot.py: matplotlib is not installed; install it (e.g. `pip install matplotlib` "
                 "or `apt-get install python3-matplotlib`) and run again")
    if not show:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_summary(out_dir):
    path = os.path.join(out_dir, "summary.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def stream_names(summary):
    return [s.get("name", f"stream {i}") for i, s in enumerate(summary.get("inference", []))]


def plot_latency(plt, out_dir, summary, target):
    path = os.path.join(out_dir, "requests.csv")
    if not os.path.exists(path):
        return None
    names = stream_names(summary)
    series = {}
    for row in read_csv(path):
        s = int(row["stream"])
        xs, ys = series.setdefault(s, ([], []))
        xs.append(float(row["arrival_s"]))
        ys.append(float(row["latency_ms"]))
    fig, ax = plt.subplots(figsize=(10, 4))
    for s in sorted(series):
        xs, ys = series[s]
        order = sorted(range(len(xs)), key=xs.__getitem__)  # rows are in completion order
        label = names[s] if s < len(names) else f"stream {s}"
        ax.plot([xs[i] for i in order], [ys[i] for i in order], linewidth=0.7, label=label)
    budget = summary.get("budgets", {}).get("latency_ms")
    if budget is not None:
        pct = summary["budgets"].get("latency_percentile", 99)
        ax.axhline(budget, color="red", linestyle="--", linewidth=1,
                   label=f"budget p{pct:g} {budget:g} ms")
    ax.set_xlabel("arrival time (s)")
    ax.set_ylabel("latency (ms)")
    ax.set_title(f"Request latency: {summary.get('scenario', out_dir)}")
    ax.legend(loc="upper right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(target)
    return fig


def plot_power(plt, out_dir, summary, target):
    path = os.path.join(out_dir, "power.csv")
    if not os.path.exists(path):
        return None
    rows = read_csv(path)
    if not rows:
        return None
    columns = [c for c in rows[0].keys() if c != "time_s"]
    t = [float(r["time_s"]) for r in rows]
    fig, ax = plt.subplots(figsize=(10, 4))
    for c in columns:
        ax.step(t, [float(r[c]) for r in rows], where="post", label=c,
                linewidth=1.6 if c == "module_w" else 0.9)
    budget = summary.get("budgets", {}).get("power_w")
    if budget is not None:
        ax.axhline(budget, color="red", linestyle="--", linewidth=1, label=f"budget {budget:g} W")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("power (W)")
    ax.set_title("Power, sampled every %g s" % (t[1] - t[0]) if len(t) > 1 else "Power")
    ax.legend(loc="upper right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(target)
    return fig


def plot_timeline(plt, out_dir, summary, target, max_items):
    path = os.path.join(out_dir, "minibatches.csv")
    if not os.path.exists(path):
        return None
    names = stream_names(summary)
    spans = {}
    for n, row in enumerate(read_csv(path)):
        if n >= max_items:
            break
        c = int(row["context"])
        start = float(row["start_s"])
        spans.setdefault(c, []).append((start, float(row["end_s"]) - start))
    if not spans:
        return None
    contexts = sorted(spans)
    fig, ax = plt.subplots(figsize=(10, 1 + 0.6 * len(contexts)))
    for lane, c in enumerate(contexts):
        ax.broken_barh(spans[c], (lane - 0.4, 0.8), color=f"C{lane}")
    labels = ["training" if c == 0 else
              (names[c - 1] if c - 1 < len(names) else f"stream {c - 1}") for c in contexts]
    ax.set_yticks(range(len(contexts)))
    ax.set_yticklabels(labels)
    ax.set_xlabel("time (s)")
    ax.set_title("GPU timeline (minibatches by context)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(target)
    return fig


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", help="a run's --out directory")
    parser.add_argument("--figures", help="where to write figures (default: OUT_DIR)")
    parser.add_argument("--format", default="png", choices=["png", "pdf", "svg"])
    parser.add_argument("--max-items", type=int, default=20000,
                        help="minibatches drawn in the timeline (default 20000)")
    parser.add_argument("--show", action="store_true", help="also open the figures in a window")
    args = parser.parse_args()

    if not os.path.isdir(args.out_dir):
        sys.exit(f"plot.py: {args.out_dir}: not a directory")
    plt = load_matplotlib(args.show)
    fig_dir = args.figures or args.out_dir
    os.makedirs(fig_dir, exist_ok=True)
    summary = read_summary(args.out_dir)

    made = []
    for name, fn in (("latency", plot_latency), ("power", plot_power)):
        target = os.path.join(fig_dir, f"{name}.{args.format}")
        if fn(plt, args.out_dir, summary, target) is not None:
            made.append(target)
    target = os.path.join(fig_dir, f"timeline.{args.format}")
    if plot_timeline(plt, args.out_dir, summary, target, args.max_items) is not None:
        made.append(target)
    if not made:
        sys.exit(f"plot.py: no requests.csv, power.csv or minibatches.csv in {args.out_dir}")
    for m in made:
        print(m)
    if args.show:
        plt.show()


if __name__ == "__main__":
    main()
