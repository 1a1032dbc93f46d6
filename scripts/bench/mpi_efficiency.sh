#!/usr/bin/env bash
# Parallel efficiency of `mpirun -n 2 fulcrum sweep` on a sweep of 104,960 configurations x 7
# strategies (docs/MPI.md, docs/PERFORMANCE.md "MPI"): the same sweep three ways, each timed whole
# (process start, MPI start, gather and publication included):
#   T1   one process, 1 thread
#   T2t  one process, 2 threads
#   T2r  mpirun -n 2, 1 thread per rank
# REPEATS rounds of the three, interleaved (so that a change of the machine's load hits all
# three alike); per way the fastest wall time, and the CPU time (user + system, every rank) of
# that run. Prints efficiency = T1 / (2 x T2r) (against one process on one core), the same for
# threads, T2t / T2r (ranks against threads on the same two cores), the CPU overhead of ranks
# (CPU of T2r, mpirun included, / CPU of T1), the same efficiency from CPU times (T1's CPU over
# twice the busier rank's: what two free cores would give, start-up latency aside), the load
# average before and after, and checks that the CSVs are byte-identical. On a loaded machine the
# wall times measure the scheduler more than the ranks: with autogroup scheduling a session's
# processes share one session's slice of the cores, however many threads or ranks it runs. Needs OpenMPI, a build with the MPI plugin (libfulcrum_mpi.so beside
# fulcrum) and the reference data.
#
#   scripts/bench/mpi_efficiency.sh [BUILD_DIR]        (default: build; REPEATS=3)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
fulcrum="$build/fulcrum"
[ -x "$fulcrum" ] || { echo "mpi_efficiency: no $fulcrum (build first)" >&2; exit 2; }
[ -f "$build/libfulcrum_mpi.so" ] || {
  echo "mpi_efficiency: no $build/libfulcrum_mpi.so (install OpenMPI: scripts/install-deps.sh --mpi, reconfigure)" >&2
  exit 2
}
command -v mpirun >/dev/null || { echo "mpi_efficiency: mpirun not found" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# 20 one-stream workload pairs x 8 arrival rates x 16 latency budgets x 41 power budgets.
cat >"$work/mpi-bench.yaml" <<'YAML'
version: 1
name: mpi-bench
seed: 1
grid: pagoda-441
objective: per-window
power_constraint: max-of-phases
ground_truth: table
workloads:
  - {training: resnet18, inference: resnet50}
  - {training: resnet18, inference: mobilenet_v3}
  - {training: resnet18, inference: yolov8n}
  - {training: resnet18, inference: lstm}
  - {training: resnet18, inference: bert_large}
  - {training: mobilenet_v3, inference: resnet50}
  - {training: mobilenet_v3, inference: mobilenet_v3}
  - {training: mobilenet_v3, inference: yolov8n}
  - {training: mobilenet_v3, inference: lstm}
  - {training: mobilenet_v3, inference: bert_large}
  - {training: bert_base, inference: resnet50}
  - {training: bert_base, inference: mobilenet_v3}
  - {training: bert_base, inference: yolov8n}
  - {training: bert_base, inference: lstm}
  - {training: bert_base, inference: bert_large}
  - {training: lstm, inference: resnet50}
  - {training: lstm, inference: mobilenet_v3}
  - {training: lstm, inference: yolov8n}
  - {training: lstm, inference: lstm}
  - {training: lstm, inference: bert_large}
arrivals: {fixed: [30, 45, 60, 75, 90, 105, 120, 135]}
latency_budget_s: {from: 0.5, to: 2.0, step: 0.1}
power_budget_w: {from: 10, to: 50, step: 1}
strategies: [maxn, presets, random, binary, gmd, gmd+, oracle]
YAML

mpirun_cmd=(mpirun -q -n 2 --bind-to none)
[ "$(id -u)" -eq 0 ] && mpirun_cmd=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "${mpirun_cmd[@]}")
sweep=(sweep "$work/mpi-bench.yaml" -q)

# timed NAME COMMAND...: runs it; appends "wall cpu" (seconds) to $work/NAME.times.
timed() {
  local name=$1
  shift
  local TIMEFORMAT='%R %U %S'
  { time "$@" >/dev/null; } 2>"$work/time.txt"
  awk '{ printf "%.2f %.2f\n", $1, $2 + $3 }' "$work/time.txt" >>"$work/$name.times"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "${REPEATS:-3}"); do
  timed t1 "$fulcrum" "${sweep[@]}" --threads 1 --out "$work/t1.csv"
  timed t2t "$fulcrum" "${sweep[@]}" --threads 2 --out "$work/t2t.csv"
  # Each rank's own CPU time too (rank-R.time): what it would take on a core of its own.
  timed t2r "${mpirun_cmd[@]}" bash -c 'TIMEFORMAT="%U %S"; { time "$@" >/dev/null; } 2>"$0/rank-$OMPI_COMM_WORLD_RANK.time"' \
    "$work" "$fulcrum" "${sweep[@]}" --threads 1 --out "$work/t2r.csv"
  for r in 0 1; do awk '{ printf "%.2f\n", $1 + $2 }' "$work/rank-$r.time" >>"$work/rank-$r.times"; done
  echo "round $round (wall cpu): T1 $(tail -1 "$work/t1.times"), T2t $(tail -1 "$work/t2t.times"), T2r $(tail -1 "$work/t2r.times") (ranks' cpu $(tail -1 "$work/rank-0.times") $(tail -1 "$work/rank-1.times"))"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
head -1 "$work/t1.csv"
echo "rows: $(($(wc -l <"$work/t1.csv") - 2))"
cmp "$work/t1.csv" "$work/t2t.csv" && cmp "$work/t1.csv" "$work/t2r.csv" && echo "CSVs: byte-identical"
best() { sort -n "$work/$1.times" | head -1; }
read -r t1 c1 <<<"$(best t1)"
read -r t2t c2t <<<"$(best t2t)"
read -r t2r c2r <<<"$(best t2r)"
c1min=$(awk '{ print $2 }' "$work/t1.times" | sort -n | head -1)
rank_max=$(paste "$work/rank-0.times" "$work/rank-1.times" | awk '{ print ($1 > $2 ? $1 : $2) }' | sort -n | head -1)
awk -v t1="$t1" -v t2t="$t2t" -v t2r="$t2r" -v c1="$c1" -v c2t="$c2t" -v c2r="$c2r" \
  -v c1min="$c1min" -v rank_max="$rank_max" 'BEGIN {
  printf "fastest (wall s / cpu s): T1 %.2f / %.2f, T2t %.2f / %.2f, T2r %.2f / %.2f\n", t1, c1, t2t, c2t, t2r, c2r
  printf "efficiency, 2 ranks:   T1 / (2 x T2r) = %.1f %%\n", 100 * t1 / (2 * t2r)
  printf "efficiency, 2 threads: T1 / (2 x T2t) = %.1f %%\n", 100 * t1 / (2 * t2t)
  printf "ranks against threads: T2t / T2r = %.3f\n", t2t / t2r
  printf "CPU of 2 ranks / CPU of 1 process: %.3f\n", c2r / c1
  printf "on a core each (CPU): T1 cpu / (2 x the busier rank'"'"'s cpu) = %.1f %% (%.2f s / 2 x %.2f s)\n", 100 * c1min / (2 * rank_max), c1min, rank_max
}'
