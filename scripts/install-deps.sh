#!/usr/bin/env bash
# Installs the Debian packages Fulcrum builds with. Idempotent and quiet when all are present.
# As root it installs what is missing; otherwise it prints the exact apt-get line and exits 1.
# CUDA is optional and never installed here: the CUDA backend is built when nvcc is found.
#
#   scripts/install-deps.sh           the build's and the tests' packages (clang-format is for
#                                     the test "lint: clang-format", scripts/lint.sh --format)
#   scripts/install-deps.sh --plots   the packages scripts/plot.py needs (`make plots`); its
#                                     interpreter is Debian's /usr/bin/python3
#   scripts/install-deps.sh --python  the optional Python package's (docs/PYTHON.md): pybind11,
#                                     the Python headers, pandas and pytest; the build finds them
#                                     and builds `import fulcrum`, and ctest runs its pytest suite
#   scripts/install-deps.sh --mpi     OpenMPI (docs/MPI.md): the build finds it and makes the MPI
#                                     plugin, and ctest runs its `mpirun -n 3` tests
#   scripts/install-deps.sh --onnx-export  the packages scripts/export_onnx.py needs to export the
#                                     torchvision models of models/data/onnx/ again (PyTorch;
#                                     large, and not needed to build or test)
# CI runs the default, --python and --mpi; without the --python or --mpi packages the build and
# tests pass without the Python package or the MPI plugin. The default includes libonnx-dev and
# libprotobuf-dev (small), with which the build has the ONNX importer (`fulcrum workloads
# --import`); without them it builds and passes its tests without it.
set -euo pipefail

build_packages=(g++ cmake ninja-build make libboost-graph-dev libboost-program-options-dev
                libeigen3-dev libyaml-cpp-dev catch2 libbenchmark-dev python3 clang-format
                libonnx-dev libprotobuf-dev)
plot_packages=(python3 python3-matplotlib)
python_packages=(python3 python3-dev python3-pybind11 python3-numpy python3-pandas python3-pytest)
mpi_packages=(openmpi-bin libopenmpi-dev)
onnx_export_packages=(python3 python3-torch python3-torchvision)

case "${1:-}" in
  "") packages=("${build_packages[@]}") ;;
  --plots) packages=("${plot_packages[@]}") ;;
  --python) packages=("${python_packages[@]}") ;;
  --mpi) packages=("${mpi_packages[@]}") ;;
  --onnx-export) packages=("${onnx_export_packages[@]}") ;;
  *) echo "usage: scripts/install-deps.sh [--plots|--python|--mpi|--onnx-export]" >&2; exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "fulcrum: missing packages: ${missing[*]}" >&2
  echo "fulcrum: run as root:  apt-get update && $cmd" >&2
  exit 1
fi
echo "fulcrum: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
