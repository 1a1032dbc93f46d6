#!/usr/bin/env python3
"""Figures of a `fulcrum study` folder: overlaid latency CDFs and a throughput-latency-power front.

    python3 scripts/study_plots.py STUDY_DIR [--figures DIR] [--format png|pdf|svg]
                                   [--stream NAME]

(`make study-plots OUT=DIR` installs matplotlib from Debian and runs this with /usr/bin/python3.)
Reads STUDY_DIR/study_summary.csv and study_latency.csv (docs/STUDIES.md) and writes into
--figures (default: STUDY_DIR):
  study_latency_cdf.<fmt>  per stream, the latency CDF of every point of the grid (the mean over
                           its seeds of each percentile): one line per value of the study's first
                           axis, one panel per combination of the other axes
  study_front.<fmt>        every point's mean training throughput against its mean p99 latency
                           (of --stream, default the first), coloured by its mean average power;
                           the points no other point beats on all three (Pareto front) are circled
Needs python3 and matplotlib only.
"""

import argparse
import csv
import os
import sys
from collections import OrderedDict

FIXED_RUN_COLUMNS = {"run", "point", "seed"}


def read(path):
    if not os.path.isfile(path):
        sys.exit(f"study_plots: {path} does not exist; run `fulcrum study` first")
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def axis_columns(summary_rows):
    """The axis columns of study_summary.csv: between `point` and `runs`."""
    names = list(summary_rows[0].keys())
    return names[1:names.index("runs")]


def number(text):
    return float(text) if text not in ("", None) else None


def pareto(points):
    """Indices of points not dominated: higher throughput, lower p99, lower power."""
    keep = []
    for i, (t, l, p) in enumerate(points):
        dominated = any(t2 >= t and l2 <= l and p2 <= p and (t2, l2, p2) != (t, l, p)
                        for j, (t2, l2, p2) in enumerate(points) if j != i)
        if not dominated:
            keep.append(i)
    return keep


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("study_dir")
    ap.add_argument("--figures")
    ap.add_argument("--format", default="png", choices=["png", "pdf", "svg"])
    ap.add_argument("--stream")
    args = ap.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = read(os.path.join(args.study_dir, "study_summary.csv"))
    latency = read(os.path.join(args.study_dir, "study_latency.csv"))
    if not summary:
        sys.exit("study_plots: the study has no points")
    axes = axis_columns(summary)
    figures = args.figures or args.study_dir
    os.makedirs(figures, exist_ok=True)
    streams = list(OrderedDict.fromkeys(r["stream"] for r in latency))
    stream = args.stream or (streams[0] if streams else None)
    if args.stream and args.stream not in streams:
        sys.exit(f"study_plots: no stream {args.stream!r}; the study has {', '.join(streams)}")

    def label(row, names):  # "rate_per_s=50, batch_size=8": the keys' last components
        return ", ".join(f"{n.split('.')[-1]}={row[n]}" for n in names) if names else "all"

    # Latency CDFs: mean over seeds of each percentile, per point and stream.
    curves = OrderedDict()  # (point, stream) -> {percentile: [values]}
    for r in latency:
        c = curves.setdefault((r["point"], r["stream"]), OrderedDict())
        c.setdefault(float(r["percentile"]), []).append(float(r["latency_ms"]))
    by_point = {r["point"]: r for r in summary}
    first, rest = (axes[0], axes[1:]) if axes else (None, [])
    panels = list(OrderedDict.fromkeys(label(r, rest) for r in summary))
    lines = list(OrderedDict.fromkeys(r[first] for r in summary)) if first else ["all"]
    colours = plt.get_cmap("tab10")
    cols = min(len(panels), 2)
    rows_per_stream = (len(panels) + cols - 1) // cols
    fig, grid = plt.subplots(rows_per_stream * max(len(streams), 1), cols, squeeze=False,
                             figsize=(5.2 * cols, 3.6 * rows_per_stream * max(len(streams), 1)))
    for ax in grid.flat:
        ax.set_visible(False)
    for si, s in enumerate(streams):
        for pi, panel in enumerate(panels):
            ax = grid[si * rows_per_stream + pi // cols][pi % cols]
            ax.set_visible(True)
            for (point, st), c in curves.items():
                row = by_point[point]
                if st != s or label(row, rest) != panel:
                    continue
                xs = [sum(v) / len(v) for v in c.values()]
                ys = [p / 100 for p in c.keys()]
                li = lines.index(row[first]) if first else 0
                ax.plot(xs, ys, color=colours(li % 10), label=row[first] if first else None)
            ax.set_title(f"{s}: {panel}", fontsize=9)
            ax.set_xlabel("latency (ms)")
            ax.set_ylabel("fraction of requests")
            ax.grid(alpha=0.3)
    if first:
        grid[0][0].legend(fontsize=7, title=first, title_fontsize=7)
    fig.tight_layout()
    cdf_path = os.path.join(figures, f"study_latency_cdf.{args.format}")
    fig.savefig(cdf_path, dpi=110)
    plt.close(fig)

    # The front: throughput vs p99 vs power.
    t_col, l_col, p_col = ("training_samples_per_s_mean", f"{stream}.p99_ms_mean",
                           "power_avg_w_mean")
    pts, rows = [], []
    for r in summary:
        t, l, p = number(r.get(t_col)), number(r.get(l_col)), number(r.get(p_col))
        if t is not None and l is not None and p is not None:
            pts.append((t, l, p))
            rows.append(r)
    fig, ax = plt.subplots(figsize=(7, 4.8))
    if pts:
        markers = "osD^vP*X"
        values = list(OrderedDict.fromkeys(r[first] for r in rows)) if first else ["all"]
        power = [p for _, _, p in pts]
        lo, hi = min(power), max(power)
        for i, ((t, l, p), r) in enumerate(zip(pts, rows)):
            m = markers[values.index(r[first]) % len(markers)] if first else "o"
            ax.scatter([l], [t], c=[p], cmap="viridis", vmin=lo, vmax=hi or 1, marker=m, s=55,
                       label=r[first] if first else None)
        for i in pareto(pts):
            ax.scatter([pts[i][1]], [pts[i][0]], s=220, facecolors="none", edgecolors="red")
        sm = plt.cm.ScalarMappable(cmap="viridis", norm=plt.Normalize(lo, hi or 1))
        fig.colorbar(sm, ax=ax, label="average power (W)")
        handles, names = ax.get_legend_handles_labels()
        unique = OrderedDict(zip(names, handles))
        if first:
            ax.legend(unique.values(), unique.keys(), fontsize=7, title=first, title_fontsize=7)
    ax.set_xlabel(f"{stream} p99 latency (ms), mean over seeds")
    ax.set_ylabel("training throughput (samples/s)")
    ax.set_title("throughput vs p99 latency vs power (red: Pareto front)", fontsize=9)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    front_path = os.path.join(figures, f"study_front.{args.format}")
    fig.savefig(front_path, dpi=110)
    plt.close(fig)
    print(f"study_plots: wrote {cdf_path} and {front_path}")


if __name__ == "__main__":
    main()
