#!/usr/bin/env bash
# Runs the hardware path of Fulcrum on a machine with an NVIDIA GPU, from a build made elsewhere
# (cmake -DFULCRUM_STATIC_DEPS=ON: no Boost or yaml-cpp needed there), and packs what it measured:
#   1. the GPU tests (CTest label `gpu`), run from the test binary directly;
#   2. `fulcrum devices --probe` -> a catalog device file for the GPU;
#   3. `fulcrum profile` of the quickstart's workloads and batch sizes at the current clocks;
#   4. `fulcrum validate` of each scenario given, against that device.
# cuDNN and cuBLAS come from the system or, where it has none, from PyTorch's Python packages
# (docs/HARDWARE.md). Clocks, power limits and compute mode are only read, never changed.
# SKIP_GPU_TESTS=1 / SKIP_PROFILE=1 / SKIP_RUN=1 leave out step 1, step 3 and the short
# `fulcrum run`; CUDA_GRAPHS=1 passes --cuda-graphs to every verb (each item replayed as a CUDA
# graph; FULCRUM_CUDA_GRAPHS=1 in the environment does the same). SETTLE_S (default 2) is each
# point's back-to-back settle time before it is metered.
#
#   scripts/validate_on_gpu.sh BUILD_DIR DATA_DIR OUT_DIR DEVICE_NAME SCENARIO...
set -u
build=$1 data=$2 out=$3 device=$4
shift 4
mkdir -p "$out"
for module in nvidia.cudnn nvidia.cublas; do
  dir=$(python3 -c "import $module as m; print(list(m.__path__)[0])" 2>/dev/null) &&
    export LD_LIBRARY_PATH="$dir/lib:${LD_LIBRARY_PATH:-}"
done
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}:/usr/local/cuda/lib64"
fulcrum=$build/fulcrum
flags=()
[[ -n "${CUDA_GRAPHS:-}" ]] && flags+=(--cuda-graphs)
settle=${SETTLE_S:-2}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,power.draw,power.limit \
    --format=csv 2>&1
  ldd "$build/libfulcrum_cuda.so" | grep -E "cudnn|cublas|not found"
} | tee "$out/machine.txt"

if [[ -z "${SKIP_GPU_TESTS:-}" ]]; then
  echo "== gpu tests"
  "$build/backends/cuda/test_backends_cuda_gpu" --durations yes 2>&1 | tee "$out/gpu-tests.txt"
fi

echo "== devices --probe"
work=$(mktemp -d)
cp -r "$data" "$work/data"
export FULCRUM_DATA_DIR="$work/data"
"$fulcrum" devices --probe --name "$device" --out "$work/data/devices/$device.yaml" &&
  cp "$work/data/devices/$device.yaml" "$out/" && "$fulcrum" devices "$device"

if [[ -z "${SKIP_PROFILE:-}" ]]; then
  echo "== profile"
  "$fulcrum" profile --backend cuda "${flags[@]}" --device "$device" \
    --workloads mobilenetv3-large,resnet50 --batch-sizes 1,16,32 --repeats 10 --discard 2 \
    --settle-s "$settle" --out "$out/profile-$device.csv"
fi

if [[ -z "${SKIP_RUN:-}" ]]; then
  echo "== run (wall clock, first scenario, 5 s)"
  "$fulcrum" run "$1" --backend cuda "${flags[@]}" --set duration_s=5 --out "$out/run-$(basename "$1" .yaml)"
fi

for scenario in "$@"; do
  name=$(basename "$scenario" .yaml)
  echo "== validate $name"
  "$fulcrum" validate "$scenario" --backend cuda "${flags[@]}" --settle-s "$settle" --out "$out/validate-$name" -q ||
    echo "validate $name failed: $?"
  cat "$out/validate-$name/comparison.md" 2>/dev/null
done
