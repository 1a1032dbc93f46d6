#!/usr/bin/env python3
"""The storage x workers x dataset-scale study of docs/PIPELINE.md: MobileNetV3-large training on
GLD-23k (3 epochs, minibatch 16) on the scenarios in scenarios/pipeline/, for each storage medium,
dataloader worker count and dataset scale. Runs the fulcrum binary once per cell (each run takes a
few tens of milliseconds) and prints a Markdown table per device:

    python3 scripts/pipeline_study.py                      # build/fulcrum, all three devices
    python3 scripts/pipeline_study.py --fulcrum PATH --devices orin-agx --workers 0 4

Columns: epoch 1 time and fetch stall (the page cache is cold), the mean of epochs 2-3 (what
the page cache then serves), the hit ratio of epochs 2-3, and the page cache's capacity.
Deterministic: the same binary gives the same table.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEVICES = ["xavier-nx", "xavier-agx", "orin-agx"]
STORAGE = ["sd-card", "usb-hdd", "emmc", "nvme-ssd"]
WORKERS = [0, 1, 2, 4, 8]
SCALES = [0.25, 1, 4]


def run(fulcrum, device, storage, workers, scale, out):
    scenario = os.path.join(ROOT, "scenarios", "pipeline", f"{device}-gld23k.yaml")
    cmd = [fulcrum, "run", scenario, "--out", out,
           "--set", f"training.dataloader.storage={storage}",
           "--set", f"training.dataloader.workers={workers}",
           "--set", f"training.dataloader.dataset_scale={scale}",
           "--set", "outputs={requests: false, minibatches: false, power: false, trace: false}"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fulcrum", default=os.path.join(ROOT, "build", "fulcrum"))
    p.add_argument("--devices", nargs="+", default=DEVICES)
    p.add_argument("--storage", nargs="+", default=STORAGE)
    p.add_argument("--workers", nargs="+", type=int, default=WORKERS)
    p.add_argument("--scales", nargs="+", type=float, default=SCALES)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for device in args.devices:
            first = None
            rows = []
            for scale in args.scales:
                for storage in args.storage:
                    for workers in args.workers:
                        out = os.path.join(tmp, f"{device}-{storage}-{workers}-{scale}")
                        s = run(args.fulcrum, device, storage, workers, scale, out)
                        t = s["training"]
                        first = first or s
                        ep = t["epochs"]
                        if len(ep) < 3:
                            sys.exit(f"{device} {storage} {workers} {scale}: fewer than 3 epochs"
                                     " in the scenario's duration")
                        later = ep[1:3]
                        d = t["dataloader"]
                        rows.append((scale, storage, workers, ep[0]["time_s"],
                                     ep[0]["fetch_stall_s"],
                                     sum(e["time_s"] for e in later) / 2,
                                     sum(e["fetch_stall_s"] for e in later) / 2,
                                     sum(e["cache_hit_ratio"] for e in later) / 2,
                                     d["page_cache_capacity_bytes"] / 1e9,
                                     d["dataset_bytes"] / 1e9, d["preprocess_ms_per_sample"]))
            mode = first["power_mode"] if "power_mode" in first else first.get("mode", {})
            print(f"\n### {device} ({first['device']}, mode {json.dumps(mode)})\n")
            print("| scale | dataset GB | storage | workers | epoch 1 s | stall 1 s | "
                  "epochs 2-3 s | stall 2-3 s | hit 2-3 | cache GB |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            for r in rows:
                print(f"| {r[0]:g} | {r[9]:.2f} | {r[1]} | {r[2]} | {r[3]:.1f} | {r[4]:.1f} | "
                      f"{r[5]:.1f} | {r[6]:.1f} | {r[7]:.2f} | {r[8]:.2f} |")
            print(f"\npre-processing: {rows[0][10]:.2f} ms per sample on one core")


if __name__ == "__main__":
    main()
