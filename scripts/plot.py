#!/usr/bin/env python3
"""Turn a Fulcrum run's output directory into the figures people expect.

    python3 scripts/plot.py OUT_DIR [--figures DIR] [--format png|pdf|svg]
                            [--sawtooth-start S] [--sawtooth-seconds S]
                            [--timeline-start S] [--timeline-seconds S] [--show]

(`make plots OUT=DIR` installs matplotlib from Debian and runs this with /usr/bin/python3.)
Reads summary.json, requests.csv, power.csv and minibatches.csv and writes into --figures
(default OUT_DIR):
  latency.<fmt>      the latency sawtooth: request latency (ms) against arrival time (s), one
                     series per stream, over a short window (default the first 6 s), with the
                     latency budget when the scenario has one
  latency_cdf.<fmt>  latency CDF per stream over all completed requests, with the budget and
                     each stream's latency at the budget's percentile marked
  power.<fmt>        power (W) against time (s): each sampling window's mean (its energy over
                     its period, not an aliased instantaneous sample), rails stacked, the
                     module's sum on top; clipped where a training job finished early
  timeline.<fmt>     GPU timeline: a bar per minibatch, one row per context (training, each
                     inference stream), over a short window (default 0-2 s)
A figure whose file is missing (turned off in the scenario's `outputs:`) or that has nothing to
show is skipped with a note on stderr. CSV columns are found by name; other columns are ignored.
Column meanings: docs/METRICS.md ("Output files"). Needs python3 and matplotlib only.
"""

import argparse
import csv
import json
import math
import os
import sys
from array import array
from operator import itemgetter

CDF_POINTS = 2000  # points drawn per CDF curve (plus the slowest requests, all of them)
CDF_TAIL = 1000  # the slowest requests, drawn one by one


class Skip(Exception):
    """A figure cannot be drawn; the message says why."""


def note(message):
    print(f"plot.py: {message}", file=sys.stderr)


def load_matplotlib(show):
    try:
        import matplotlib
    except ImportError:
        hint = "`make plots OUT=DIR` installs it; or `apt-get install python3-matplotlib`"
        if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
            hint += f" and run with /usr/bin/python3 (this is {sys.executable})"
        sys.exit(f"plot.py: matplotlib is not installed for this Python: {hint}")
    if not show:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


# ---- reading -------------------------------------------------------------------------------


def read_summary(out_dir):
    path = os.path.join(out_dir, "summary.json")
    if not os.path.exists(path):
        note(f"{path} not found: no scenario name, stream names or budgets on the figures")
        return {}
    try:
        with open(path) as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        note(f"{path} unreadable ({e}): no scenario name, stream names or budgets on the figures")
        return {}
    return summary if isinstance(summary, dict) else {}


def csv_header(path):
    if not os.path.exists(path):
        raise Skip(f"{os.path.basename(path)} not found (turned off in the scenario's outputs?)")
    with open(path, newline="") as f:
        header = next(csv.reader(f), None)
    if not header:
        raise Skip(f"{path} is empty")
    return header


def csv_rows(path, columns):
    """Yields, for each row, a tuple of floats: the named columns (two or more), in that order.

    Columns are found by name in the header; other columns are ignored. A row with an empty or
    non-numeric cell in one of these columns is skipped.
    """
    header = csv_header(path)
    missing = [c for c in columns if c not in header]
    if missing:
        raise Skip(f"{path} has no column {', '.join(missing)}")
    get = itemgetter(*(header.index(c) for c in columns))  # a tuple of cells, for 2+ columns
    with open(path, newline="") as f:
        reader = csv.reader(f)
        next(reader)
        for row in reader:
            try:
                yield tuple(map(float, get(row)))
            except (ValueError, IndexError):
                continue


def read_requests(out_dir, window):
    """Reads requests.csv once, streaming.

    Returns ({stream: array of every latency (ms)}, {stream: [(arrival_s, latency_ms), ...] of
    the requests that arrived within window}).
    """
    lo, hi = window
    latencies, sawtooth = {}, {}
    path = os.path.join(out_dir, "requests.csv")
    for stream, arrival, latency in csv_rows(path, ("stream", "arrival_s", "latency_ms")):
        s = int(stream)
        values = latencies.get(s)
        if values is None:
            values = latencies[s] = array("d")
        values.append(latency)
        if lo <= arrival < hi:
            sawtooth.setdefault(s, []).append((arrival, latency))
    return latencies, sawtooth


# ---- what the summary says -----------------------------------------------------------------


class Run:
    """The names, budgets and colours every figure shares, from summary.json."""

    def __init__(self, out_dir, summary):
        self.summary = summary
        self.name = summary.get("scenario") or os.path.basename(os.path.abspath(out_dir))
        self.streams = summary.get("inference") or []
        self.training = summary.get("training")
        self.duration = summary.get("duration_s")
        budgets = summary.get("budgets") or {}
        self.latency_budget = budgets.get("latency_ms")
        self.percentile = budgets.get("latency_percentile") or 99
        self.power_budget = budgets.get("power_w")
        self.power_kind = budgets.get("power_kind") or "average"

    def stream_name(self, s):
        if s < len(self.streams) and self.streams[s].get("name"):
            return self.streams[s]["name"]
        return f"stream {s}"

    def stream_ids(self, seen):
        """Streams the summary lists, plus any others the data shows."""
        return sorted(set(range(len(self.streams))) | set(seen))

    @staticmethod
    def colour(context):
        """One colour per GPU context in every figure: training C0, inference stream i C(i+1)."""
        return f"C{context % 10}"

    def context_label(self, c):
        if c == 0:
            t = self.training or {}
            detail = f": {t['workload']}, batch {t['batch_size']}" if "workload" in t else ""
            return "training" + detail
        s = c - 1
        label = f"inference {self.stream_name(s)}"
        info = self.streams[s] if s < len(self.streams) else {}
        if "batch_size" in info:
            label += f": {info.get('workload', '?')}, batch {info['batch_size']}"
        return label

    def title(self, what):
        detail = [self.summary[k] for k in ("device", "gpu_sharing") if self.summary.get(k)]
        return f"{self.name}: {what}" + (f"  ({', '.join(detail)})" if detail else "")

    def budget_label(self):
        return f"latency budget: p{self.percentile:g} <= {self.latency_budget:g} ms"

    def no_requests_reason(self):
        if self.summary and not self.streams:
            return "the scenario has no inference streams"
        counts = [f"{self.stream_name(i)}: {s.get('arrived', '?')} arrived, "
                  f"{s.get('completed', '?')} completed" for i, s in enumerate(self.streams)]
        return "no request completed" + (f" ({'; '.join(counts)})" if counts else "")


def clip_window(run, lo, hi):
    if run.duration is not None:
        if lo >= run.duration:
            raise Skip(f"the window starts at {lo:g} s, after the run's end ({run.duration:g} s)")
        hi = min(hi, run.duration)
    return lo, hi


# ---- figures -------------------------------------------------------------------------------


def plot_sawtooth(plt, run, latencies, sawtooth, window):
    if not latencies:
        raise Skip(run.no_requests_reason())
    lo, hi = clip_window(run, *window)
    if not any(sawtooth.values()):
        raise Skip(f"no completed request arrived in {lo:g}-{hi:g} s")
    fig, ax = plt.subplots(figsize=(10, 4.5))
    for s in run.stream_ids(sawtooth):
        points = sorted(sawtooth.get(s, []))
        label = run.stream_name(s)
        if not points:
            label += " (no completed request in this window)"
        ax.plot([p[0] for p in points], [p[1] for p in points], color=run.colour(s + 1),
                marker=".", markersize=3, linewidth=0.8, label=label)
    shown = [p[1] for points in sawtooth.values() for p in points]
    if run.latency_budget is not None:
        ax.axhline(run.latency_budget, color="red", linestyle="--", linewidth=1.2,
                   label=run.budget_label())
        shown.append(run.latency_budget)
    log = max(shown) / max(min(shown), 1e-9) > 50  # seconds of backlog next to a budget in ms
    if log:
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlim(lo, hi)
    ax.set_xlabel("request arrival time (s)")
    ax.set_ylabel("request latency (ms" + (", log scale)" if log else ")"))
    ax.set_title(run.title(f"latency of each request arriving in {lo:g}-{hi:g} s"), fontsize=11)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=9)
    fig.tight_layout()
    return fig


def nearest_rank(values, p):
    """The p-th percentile of sorted values, nearest rank (as in summary.json)."""
    return values[max(1, math.ceil(p / 100 * len(values))) - 1]


def cdf_points(values):
    """(latency, fraction of requests at most that latency) to draw for sorted values."""
    n = len(values)
    step = max(1, n // CDF_POINTS)
    ranks = sorted(set(range(0, n, step)) | set(range(max(0, n - CDF_TAIL), n)))
    return [values[0]] + [values[k] for k in ranks], [0.0] + [(k + 1) / n for k in ranks]


def plot_cdf(plt, run, latencies):
    if not latencies:
        raise Skip(run.no_requests_reason())
    p = run.percentile
    tail_from = min(0.9, p / 100 - 0.05)  # the right-hand panel: the slowest 10% (or more)
    fig, (ax_all, ax_tail) = plt.subplots(1, 2, figsize=(12, 5),
                                          gridspec_kw={"width_ratios": [3, 2]})
    lowest, highest, tail_lowest = math.inf, 0.0, math.inf
    for s in run.stream_ids(latencies):
        values = sorted(latencies.get(s, ()))
        info = run.streams[s] if s < len(run.streams) else {}
        colour, label = run.colour(s + 1), run.stream_name(s)
        if not values:
            ax_all.plot([], [], color=colour, label=label + ": no request completed")
            continue
        lowest, highest = min(lowest, values[0]), max(highest, values[-1])
        tail_lowest = min(tail_lowest, nearest_rank(values, 100 * tail_from))
        xs, ys = cdf_points(values)
        at_p = nearest_rank(values, p)
        label += f": p{p:g} = {at_p:,.1f} ms, {len(values):,} requests"
        if info.get("stable") is False:
            arrived = info.get("arrived")
            if isinstance(arrived, int):
                label += f" of {arrived:,} arrived"
            label += " (UNSTABLE)"
        for ax in (ax_all, ax_tail):
            ax.step(xs, ys, where="post", color=colour, linewidth=1.4, label=label)
            ax.plot([at_p], [p / 100], marker="o", color=colour, markersize=6)
    budget = run.latency_budget
    if budget is not None:
        lowest, highest = min(lowest, budget), max(highest, budget)
        tail_lowest = min(tail_lowest, budget)
    log = highest / max(lowest, 1e-9) > 50  # an unstable stream's seconds next to milliseconds
    for ax in (ax_all, ax_tail):
        if budget is not None:
            ax.axvline(budget, color="red", linestyle="--", linewidth=1.2,
                       label=run.budget_label())
        ax.axhline(p / 100, color="grey", linestyle=":", linewidth=1)
        if log:
            ax.set_xscale("log")
        ax.set_xlabel("request latency (ms" + (", log scale)" if log else ")"))
        ax.grid(alpha=0.3)
    ax_tail.text(0.99, p / 100, f"p{p:g} ", transform=ax_tail.get_yaxis_transform(),
                 color="grey", ha="right", va="top", fontsize=9)
    if log:
        ax_tail.set_xlim(tail_lowest / 1.1, highest * 1.1)
    else:
        pad = 0.03 * (highest - tail_lowest) or 1
        ax_tail.set_xlim(tail_lowest - pad, highest + pad)
    ax_all.set_ylim(0, 1.02)
    ax_tail.set_ylim(tail_from, 1 + (1 - tail_from) * 0.02)
    ax_all.set_ylabel("fraction of completed requests")
    ax_all.set_title("all completed requests", fontsize=10)
    ax_tail.set_title(f"the slowest {100 - 100 * tail_from:g}%  (dot: each stream's p{p:g})",
                      fontsize=10)
    fig.suptitle(run.title("latency CDF"), fontsize=11)
    fig.tight_layout()
    handles, labels = ax_all.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0), ncol=2, fontsize=9,
               frameon=False)  # below both panels, where it hides no curve
    return fig


def plot_power(plt, run, out_dir):
    """Window-averaged power (energy over each sampling period), rails stacked.

    Instantaneous samples alias against a periodic load (docs/METRICS.md, power.csv), so the
    figure draws the window averages, each as a step over its own period. Rails at 0 W over the
    whole run (a model that puts all power on one rail) are left out and named in the title. A
    training job that finished early clips the time axis at its end (the rest is idle or
    inference only); the title says so.
    """
    path = os.path.join(out_dir, "power.csv")
    header = csv_header(path)
    rails = [c for c in header if c.endswith("_avg_w") and c != "module_avg_w"]
    if not rails or "module_avg_w" not in header:
        raise Skip(f"{path} has no window-average columns (<rail>_avg_w, module_avg_w); "
                   "it was written by an older Fulcrum")
    columns = rails + ["module_avg_w"]
    t = array("d")
    series = [array("d") for _ in columns]
    for row in csv_rows(path, ["time_s"] + columns):  # row 0 ends no window: skipped (empty)
        t.append(row[0])
        for values, v in zip(series, row[1:]):
            values.append(v)
    if len(t) < 1:
        raise Skip(f"{path} has no complete sampling window")
    period = t[1] - t[0] if len(t) > 1 else t[0]
    module = series[-1]
    shown = [(c[:-len("_avg_w")], v) for c, v in zip(rails, series[:-1]) if any(x != 0 for x in v)]
    hidden = [c[:-len("_avg_w")] for c, v in zip(rails, series[:-1]) if not any(x != 0 for x in v)]

    end = t[-1]
    finished = (run.training or {}).get("finished_s")
    clipped = finished is not None and finished < end
    if clipped:
        end = finished

    # Steps: each window's average holds over (t - period, t].
    edges = [t[0] - period] + list(t)

    def steps(values):
        return [values[0]] + list(values)

    fig, ax = plt.subplots(figsize=(10, 4.5))
    below = [0.0] * len(edges)
    for i, (name, values) in enumerate(shown):
        above = [b + v for b, v in zip(below, steps(values))]
        ax.fill_between(edges, below, above, step="pre", color=f"C{i}", alpha=0.75,
                        linewidth=0, label=name)
        below = above
    ax.step(edges, steps(module), where="pre", color="black", linewidth=1.0, zorder=3,
            label="module (sum of rails)")
    if clipped:
        # The whole run's average would count the idle tail that is not shown: the mean of the
        # windows shown instead (whole windows up to the end of training).
        inside = [v for x, v in zip(t, module) if x <= end]
        average = sum(inside) / len(inside) if inside else None
        average_label = "average while training"
    else:
        average = (run.summary.get("power") or {}).get("avg_w")
        average_label = "run average"
    if average is not None:
        ax.axhline(average, color="dimgrey", linestyle=":", linewidth=1.6, zorder=3,
                   label=f"{average_label} {average:.1f} W")
    if run.power_budget is not None:
        kind = run.power_kind.replace("_", " ")
        ax.axhline(run.power_budget, color="red", linestyle="--", linewidth=1.2, zorder=3,
                   label=f"power budget {run.power_budget:g} W ({kind})")
    ax.set_xlim(0, end)
    top = max(max(module), run.power_budget or 0, average or 0)
    ax.set_ylim(0, 1.15 * top if top > 0 else 1)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"power (W), mean over each {period:g} s window")
    what = "power per rail, stacked"
    if clipped:
        what += f", until training finished at {finished:g} s"
    ax.set_title(run.title(what), fontsize=11)
    if hidden:
        ax.text(0.0, -0.16, f"not shown: {', '.join(hidden)} (0 W throughout the run)",
                transform=ax.transAxes, fontsize=8, color="dimgrey")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=9)
    fig.tight_layout()
    return fig


def plot_timeline(plt, run, out_dir, window):
    lo, hi = clip_window(run, *window)
    path = os.path.join(out_dir, "minibatches.csv")
    spans, first, last = {}, math.inf, -math.inf
    for context, start, end in csv_rows(path, ("context", "start_s", "end_s")):
        first, last = min(first, start), max(last, end)
        if end > lo and start < hi:
            spans.setdefault(int(context), []).append((start, end - start))
    if not spans:
        ran = f"minibatches ran in {first:g}-{last:g} s" if first <= last else "no minibatch ran"
        raise Skip(f"no minibatch on the GPU in {lo:g}-{hi:g} s ({ran})")
    contexts = sorted(set(spans) | ({0} if run.training else set())
                      | {1 + s for s in range(len(run.streams))})
    fig, ax = plt.subplots(figsize=(10, 1.6 + 0.55 * len(contexts)))
    for lane, c in enumerate(contexts):
        label = run.context_label(c)
        if c not in spans:
            label += " (nothing ran)"
        ax.broken_barh(spans.get(c, []), (lane - 0.35, 0.7), facecolors=run.colour(c),
                       edgecolor="white", linewidth=0.8, label=label)
    ax.set_yticks(range(len(contexts)))
    ax.set_yticklabels(["training" if c == 0 else run.stream_name(c - 1) for c in contexts])
    ax.set_ylim(len(contexts) - 0.5, -0.5)  # training on top
    ax.set_xlim(lo, hi)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("GPU context")
    ax.set_title(run.title(f"GPU timeline {lo:g}-{hi:g} s, one bar per minibatch"), fontsize=11)
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=9)
    fig.tight_layout()
    return fig


# ---- main ----------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        epilog="Figures: latency, latency_cdf, power, timeline (see the top of this script).")
    parser.add_argument("out_dir", help="a run's --out directory")
    parser.add_argument("--figures", help="where to write the figures (default: OUT_DIR)")
    parser.add_argument("--format", default="png", choices=["png", "pdf", "svg"])
    parser.add_argument("--sawtooth-start", type=float, default=0.0, metavar="S",
                        help="latency sawtooth: first arrival time shown, in s (default 0)")
    parser.add_argument("--sawtooth-seconds", type=float, default=6.0, metavar="S",
                        help="latency sawtooth: window length in s (default 6)")
    parser.add_argument("--timeline-start", type=float, default=0.0, metavar="S",
                        help="GPU timeline: window start in s (default 0)")
    parser.add_argument("--timeline-seconds", type=float, default=2.0, metavar="S",
                        help="GPU timeline: window length in s (default 2)")
    parser.add_argument("--show", action="store_true", help="also open the figures in a window")
    args = parser.parse_args()
    for name in ("sawtooth_start", "timeline_start"):
        if not getattr(args, name) >= 0:
            parser.error(f"--{name.replace('_', '-')} must be >= 0")
    for name in ("sawtooth_seconds", "timeline_seconds"):
        if not 0 < getattr(args, name) < math.inf:
            parser.error(f"--{name.replace('_', '-')} must be > 0")

    out_dir = args.out_dir
    if not os.path.isdir(out_dir):
        sys.exit(f"plot.py: {out_dir}: not a directory")
    plt = load_matplotlib(args.show)
    fig_dir = args.figures or out_dir
    os.makedirs(fig_dir, exist_ok=True)
    run = Run(out_dir, read_summary(out_dir))
    sawtooth_window = (args.sawtooth_start, args.sawtooth_start + args.sawtooth_seconds)
    timeline_window = (args.timeline_start, args.timeline_start + args.timeline_seconds)

    made = []

    def draw(name, make):
        target = os.path.join(fig_dir, f"{name}.{args.format}")
        try:
            fig = make()
        except Skip as e:
            reason = str(e)
        except (OSError, csv.Error, UnicodeDecodeError) as e:
            reason = f"cannot read the run's files: {e}"
        else:
            fig.savefig(target, dpi=150, bbox_inches="tight")
            if not args.show:
                plt.close(fig)
            made.append(target)
            return
        note(f"{name}: skipped: {reason}")
        if os.path.exists(target):  # an earlier run's figure would read as this run's
            os.remove(target)
            note(f"{name}: removed the earlier {target}")

    requests = {}  # requests.csv is read once, for both latency figures

    def read_requests_once():
        if "data" not in requests:
            requests["data"] = read_requests(out_dir, sawtooth_window)
        return requests["data"]

    draw("latency", lambda: plot_sawtooth(plt, run, *read_requests_once(), sawtooth_window))
    draw("latency_cdf", lambda: plot_cdf(plt, run, read_requests_once()[0]))
    draw("power", lambda: plot_power(plt, run, out_dir))
    draw("timeline", lambda: plot_timeline(plt, run, out_dir, timeline_window))

    if not made:
        sys.exit(f"plot.py: no figure could be drawn from {out_dir}")
    for m in made:
        print(m)
    if args.show:
        plt.show()


if __name__ == "__main__":
    main()
