#!/usr/bin/env python3
"""Per-item analysis of this bundle (docs/VALIDATION.md, H200 native time-slicing): each
minibatch's time against its standalone time in inputs/profile.csv, in the measured and the
simulated run, and what the measured items say about how the driver shares the GPU between the
training and the inference context. Standard library only; writes items.md beside itself.

    python3 items.py          # from this folder or any other
    python3 items.py BUNDLE   # another bundle of the same scenario and outputs (items.md there)

Columns of minibatches.csv (docs/METRICS.md): duration_ms is end_s - start_s on the run's
timeline (what a request's latency sees); in the measured run standalone_ms is the item's own wall
time in its CUDA context, from its first launch to its completion as its host thread saw it (the
time the driver gave the other context included, the run's bookkeeping not). Called "in-context"
below. In the simulated run standalone_ms is the profile's time.

requests.csv was written by both runs and is not kept: with fixed arrivals every 2 ms and full
batches of 16, request r arrived at 2 ms * r, went into batch r // 16 and completed at that
inference item's end_s (checked on the device's requests.csv of both runs: 9,984 requests, no
mismatch), so request latencies are recomputed here from minibatches.csv.
"""
import bisect
import csv
import math
import pathlib
import sys

HERE = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else __file__).resolve()
HERE = HERE if HERE.is_dir() else HERE.parent
STEADY_S = 1.0  # items starting (requests arriving) from here on: after the backend's metering
ARRIVAL_S = 0.002
BATCH = 16


def nearest_rank(values, p):
    v = sorted(values)
    return v[max(0, math.ceil(p / 100 * len(v)) - 1)]


def profile_ms():
    out = {}
    with open(HERE / "inputs" / "profile.csv") as f:
        for row in csv.DictReader(line for line in f if not line.startswith("#")):
            if row["phase"] in ("train", "infer"):
                out["training" if row["phase"] == "train" else "inference"] = float(
                    row["minibatch_time_ms"])
    return out


def items(run):
    with open(HERE / run / "minibatches.csv") as f:
        return [{"kind": r["kind"], "id": int(r["item_id"]), "start": float(r["start_s"]),
                 "end": float(r["end_s"]), "dur": float(r["duration_ms"]),
                 "ctx": float(r["standalone_ms"])} for r in csv.DictReader(f)]


def latencies(rows, from_s=0.0):
    """Request latencies (ms) recomputed from the inference items (see the docstring)."""
    out = []
    for r in rows:
        if r["kind"] != "inference":
            continue
        for j in range(BATCH):
            arrival = ARRIVAL_S * (BATCH * r["id"] + j)
            if arrival >= from_s - 1e-12:
                out.append((r["end"] - arrival) * 1e3)
    return out


def dist(values):
    return (len(values), nearest_rank(values, 50), nearest_rank(values, 90),
            nearest_rank(values, 99), max(values))


def main():
    std = profile_ms()
    meas, sim = items("measured"), items("simulated")
    md = [f"# Per-item analysis of {HERE.name} (written by items.py)", "",
          f"Standalone times (inputs/profile.csv): training {std['training']:.3f} ms, "
          f"inference {std['inference']:.3f} ms. Percentiles by nearest rank. "
          f"'From {STEADY_S:.1f} s': items starting, requests arriving, at or after it.", ""]

    # 1. Each item's time against its standalone time.
    md += ["## Time per item / standalone time", "",
           "| run | kind | items from | time | n | median | p90 | p99 | max |",
           "|---|---|---|---|---:|---:|---:|---:|---:|"]
    for run, rows in (("measured", meas), ("simulated", sim)):
        for kind in ("inference", "training"):
            for since in (0.0, STEADY_S):
                sel = [r for r in rows if r["kind"] == kind and r["start"] >= since]
                cols = (("duration", "dur"), ("in-context", "ctx")) if run == "measured" else (
                    ("duration", "dur"),)
                for label, key in cols:
                    n, p50, p90, p99, mx = dist([r[key] / std[kind] for r in sel])
                    md.append(f"| {run} | {kind} | {since:.1f} s | {label} | {n} | {p50:.3f} | "
                              f"{p90:.3f} | {p99:.3f} | {mx:.3f} |")
    md.append("")

    # 2. The first second: the run's duration against the in-context time.
    md += ["## Run's duration minus in-context time (measured), by start time", "",
           "| kind | items starting | n | median ms | max ms |", "|---|---|---:|---:|---:|"]
    for kind in ("inference", "training"):
        for lo, hi in ((0.0, STEADY_S), (STEADY_S, 1e9)):
            g = [r["dur"] - r["ctx"] for r in meas if r["kind"] == kind and lo <= r["start"] < hi]
            md.append(f"| {kind} | {'before' if lo == 0 else 'from'} {STEADY_S:.1f} s | {len(g)} | "
                      f"{nearest_rank(g, 50):.2f} | {max(g):.2f} |")
    md.append("")

    # 3. Request latency, whole run and from STEADY_S.
    md += ["## Request latency (ms)", "",
           "| requests arriving | run | n | p50 | p99 | max |", "|---|---|---:|---:|---:|---:|"]
    figures = {}
    for since in (0.0, STEADY_S):
        for run, rows in (("simulated", sim), ("measured", meas)):
            lat = latencies(rows, since)
            figures[(since, run)] = (nearest_rank(lat, 50), nearest_rank(lat, 99), max(lat))
            md.append(f"| from {since:.1f} s | {run} | {len(lat)} | {figures[(since, run)][0]:.2f} "
                      f"| {figures[(since, run)][1]:.2f} | {figures[(since, run)][2]:.2f} |")
        s, m = figures[(since, "simulated")], figures[(since, "measured")]
        md.append(f"| from {since:.1f} s | error | | {(s[0] / m[0] - 1) * 100:+.1f} % | "
                  f"{(s[1] / m[1] - 1) * 100:+.1f} % | {(s[2] / m[2] - 1) * 100:+.1f} % |")
    lat_all = sorted(((r["end"] - ARRIVAL_S * (BATCH * r["id"] + j)) * 1e3,
                      ARRIVAL_S * (BATCH * r["id"] + j))
                     for r in meas if r["kind"] == "inference" for j in range(BATCH))
    top = lat_all[-(len(lat_all) // 100):]
    md += ["", f"Measured: the {len(top)} highest latencies (1 % of {len(lat_all)}, each at least "
           f"{top[0][0]:.2f} ms) arrived "
           f"between {min(a for _, a in top):.3f} s and {max(a for _, a in top):.3f} s.", ""]

    # 4. Sharing: inference items against the training items running meanwhile.
    train = sorted((r for r in meas if r["kind"] == "training"), key=lambda r: r["start"])
    starts = [r["start"] for r in train]
    inside, across = [], []
    for r in meas:
        if r["kind"] != "inference" or r["start"] < STEADY_S:
            continue
        t = train[bisect.bisect_right(starts, r["start"]) - 1]
        (inside if t["end"] >= r["end"] else across).append((r, t))
    ctx_in = [r["ctx"] for r, _ in inside]
    share_inf = [std["inference"] / r["ctx"] for r, _ in inside]
    lost = [t["ctx"] - std["training"] for _, t in inside]
    share_train = [(r["ctx"] - l) / r["ctx"] for (r, _), l in zip(inside, lost)]
    idle = [1 - a - b for a, b in zip(share_inf, share_train)]
    ctx_across = [r["ctx"] for r, _ in across]
    alone = [t["ctx"] for t in train if t["start"] >= STEADY_S and not any(
        r["kind"] == "inference" and r["start"] < t["end"] and r["end"] > t["start"]
        for r in meas)]
    def covered(r):  # the fraction of an inference item's span with a training item running
        return sum(max(0.0, min(r["end"], t["end"]) - max(r["start"], t["start"]))
                   for t in train) / (r["end"] - r["start"])
    cover = min(covered(r) for r in meas if r["kind"] == "inference" and r["start"] >= STEADY_S)
    md += ["## How the two contexts shared the GPU (measured, items from 1.0 s)", "",
           f"Training runs back to back: every inference item had a training item running "
           f"over at least {cover * 100:.1f} % of its span. "
           f"Inference items that started and ended inside one training item: {len(inside)}; "
           f"in-context time median {nearest_rank(ctx_in, 50):.2f} ms "
           f"(p10 {nearest_rank(ctx_in, 10):.2f}, p90 {nearest_rank(ctx_in, 90):.2f}, "
           f"min {min(ctx_in):.2f}, max {max(ctx_in):.2f}), "
           f"{nearest_rank(ctx_in, 50) / std['inference']:.2f} times standalone. "
           f"Over such an item the inference context progressed at a median "
           f"{nearest_rank(share_inf, 50) * 100:.1f} % of its standalone speed (p10 "
           f"{nearest_rank(share_inf, 10) * 100:.1f} %, p90 {nearest_rank(share_inf, 90) * 100:.1f} %); "
           f"the training item around it lost a median {nearest_rank(lost, 50):.2f} ms against "
           f"its standalone time, so training progressed at {nearest_rank(share_train, 50) * 100:.1f} % "
           f"and {nearest_rank(idle, 50) * 100:.1f} % of the time went to neither (switching between "
           f"the contexts, on this reading).", "",
           f"Inference items during which a training item ended and the next began: "
           f"{len(ctx_across)}; in-context median {nearest_rank(ctx_across, 50):.2f} ms "
           f"(p10 {nearest_rank(ctx_across, 10):.2f}, p90 {nearest_rank(ctx_across, 90):.2f}).", "",
           f"Training items with no inference item overlapping: {len(alone)}; in-context median "
           f"{nearest_rank(alone, 50):.3f} ms, {nearest_rank(alone, 50) / std['training']:.3f} "
           f"times standalone.", ""]
    # Training throughput from STEADY_S.
    span = 20.0 - STEADY_S
    for run, rows in (("measured", meas), ("simulated", sim)):
        n = sum(1 for r in rows if r["kind"] == "training" and STEADY_S <= r["end"] < 20.0)
        md.append(f"Training minibatches completing in [{STEADY_S:.1f} s, 20 s), {run}: {n} "
                  f"({n / span:.2f}/s).")
    md.append("")
    (HERE / "items.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
