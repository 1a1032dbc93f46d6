#!/usr/bin/env bash
# Parallel efficiency of `mpirun -n 2 fulcrum sweep` on a sweep of 104,960 configurations
# (docs/MPI.md, docs/PERFORMANCE.md "MPI"): the same sweep three ways, each timed whole
# (process start, MPI start, gather and publication included):
#   T1   one process, 1 thread
#   T2t  one process, 2 threads
#   T2r  mpirun -n 2, 1 thread per rank
# and prints efficiency = T1 / (2 x T2r) (against one process on one core) and T2t / T2r (against
# one process using both cores the same way), checks that the three CSVs are byte-identical,
# and prints the machine's load average before and after. Needs OpenMPI and a build with the
# MPI plugin (libfulcrum_mpi.so beside fulcrum) and the reference data.
#
#   scripts/bench/mpi_efficiency.sh [BUILD_DIR]        (default: build)
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
strategies: [maxn, presets, binary, oracle]
YAML

mpirun_cmd=(mpirun -q -n 2 --bind-to none)
[ "$(id -u)" -eq 0 ] && mpirun_cmd=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "${mpirun_cmd[@]}")

seconds() {  # seconds COMMAND...: runs it, prints its wall time in seconds
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
t1=$(seconds "$fulcrum" sweep "$work/mpi-bench.yaml" -q --threads 1 --out "$work/t1.csv")
echo "T1  (1 process, 1 thread):        $t1 s"
t2t=$(seconds "$fulcrum" sweep "$work/mpi-bench.yaml" -q --threads 2 --out "$work/t2t.csv")
echo "T2t (1 process, 2 threads):       $t2t s"
t2r=$(seconds "${mpirun_cmd[@]}" "$fulcrum" sweep "$work/mpi-bench.yaml" -q --threads 1 --out "$work/t2r.csv")
echo "T2r (mpirun -n 2, 1 thread/rank): $t2r s"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
head -1 "$work/t1.csv"
echo "rows: $(($(wc -l <"$work/t1.csv") - 2))"
cmp "$work/t1.csv" "$work/t2t.csv" && cmp "$work/t1.csv" "$work/t2r.csv" && echo "CSVs: byte-identical"
awk -v t1="$t1" -v t2t="$t2t" -v t2r="$t2r" 'BEGIN {
  printf "efficiency T1/(2 x T2r): %.1f %%\n", 100 * t1 / (2 * t2r)
  printf "threads vs ranks T2t/T2r: %.3f (threads: efficiency T1/(2 x T2t) %.1f %%)\n", t2t / t2r, 100 * t1 / (2 * t2t)
}' 
