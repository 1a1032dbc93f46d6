#!/usr/bin/env python3
"""Plain-Python heapq model of the quickstart scenario: the speed baseline for the C++ engine.

Managed interleaving on one GPU: one minibatch at a time; at each boundary run a full inference
batch if one is ready (oldest requests first), else a training minibatch (training always has
data, so minibatches run back to back), else idle. Requests arrive at a fixed rate (request k at
k / rate). Events: one per arrival and one per minibatch completion; a run processes every event
with time <= the duration. Time is integer nanoseconds, as in the simulator.

Standard library only. Usage: python3 scripts/bench/heapq_quickstart.py [--train-ms 82.12] ...
"""

import argparse
import heapq
import math
import time

NS_PER_S = 1_000_000_000
NS_PER_MS = 1_000_000

ARRIVAL = 0
INFERENCE_DONE = 1
TRAINING_DONE = 2


def simulate(duration_s, rate_per_s, batch_size, train_ms, infer_ms):
    """Runs the model; returns (events, completed requests, minibatches, latencies in ns)."""
    horizon = round(duration_s * NS_PER_S)
    train_ns = round(train_ms * NS_PER_MS)
    infer_ns = round(infer_ms * NS_PER_MS)
    heappush = heapq.heappush
    heappop = heapq.heappop

    # (time_ns, seq, kind, payload): seq makes equal times run in scheduling order.
    queue = [(0, 0, ARRIVAL, 0)]
    seq = 1
    waiting = []  # arrival times of queued requests, oldest first
    head = 0  # index of the oldest waiting request (avoids O(n) pops from the front)
    latencies = []
    minibatches = 0
    events = 0

    # Training always has data, so the GPU is never idle: the first training minibatch starts at
    # time 0, and an arrival never starts work itself -- it waits for the next boundary.
    heappush(queue, (train_ns, seq, TRAINING_DONE, None))
    seq += 1

    while queue and queue[0][0] <= horizon:
        now, _, kind, payload = heappop(queue)
        events += 1
        if kind == ARRIVAL:
            waiting.append(now)
            k = payload + 1
            next_arrival = k * NS_PER_S // rate_per_s
            if next_arrival < horizon:
                heappush(queue, (next_arrival, seq, ARRIVAL, k))
                seq += 1
            continue
        elif kind == INFERENCE_DONE:
            latencies.extend([now - arrival for arrival in payload])
        else:
            minibatches += 1
        # The GPU is free at a boundary: a full inference batch if ready, else training.
        if len(waiting) - head >= batch_size:
            batch = waiting[head:head + batch_size]
            head += batch_size
            heappush(queue, (now + infer_ns, seq, INFERENCE_DONE, batch))
        else:
            heappush(queue, (now + train_ns, seq, TRAINING_DONE, None))
        seq += 1
    return events, len(latencies), minibatches, latencies


def percentile(values, p):
    """Nearest-rank percentile (p in (0, 100])."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[rank - 1]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration-s", type=float, default=600.0)
    parser.add_argument("--rate-per-s", type=int, default=100, help="fixed arrival rate")
    parser.add_argument("--batch-size", type=int, default=16, help="inference batch size")
    parser.add_argument("--train-ms", type=float, default=82.12,
                        help="training minibatch time (ResNet-50 batch 16 at MAXN)")
    parser.add_argument("--infer-ms", type=float, default=51.561,
                        help="inference minibatch time (ResNet-50 batch 16 at MAXN)")
    args = parser.parse_args()

    start = time.perf_counter()
    events, completed, minibatches, latencies = simulate(
        args.duration_s, args.rate_per_s, args.batch_size, args.train_ms, args.infer_ms)
    loop_ms = (time.perf_counter() - start) * 1e3

    print(f"events processed:      {events}")
    print(f"completed requests:    {completed}")
    print(f"training minibatches:  {minibatches}")
    print(f"p99 latency_ms:        {percentile(latencies, 99) / NS_PER_MS:.3f}")
    print(f"simulation loop wall_ms: {loop_ms:.1f}")


if __name__ == "__main__":
    main()
