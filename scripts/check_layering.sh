#!/usr/bin/env bash
# Checks the declared layering (DESIGN.md section 2; sim/README.md): every #include in a
# source or header under models/, backends/ and sim/ must name a project header of a folder that
# the including file's folder may use, and only backends/cuda/ may include a CUDA header.
# Prints one line per offending include and exits 1; prints one line and exits 0 when clean.
#   scripts/check_layering.sh
#
# The table below is the whole rule. Each folder that holds sources has one row: the folders
# whose headers it may include (exactly those folders, not their sub-folders; a bare "models"
# means the headers at the top of models/, i.e. models/error.hpp), plus the token <cuda> where
# CUDA headers are allowed. A folder with sources but no row is an error: a new folder such as
# sim/search/ is declared here, with what it may include, in the same change that creates it.
set -euo pipefail
cd "$(dirname "$0")/.."

# models <- backends <- sim. Inside models/ the sub-libraries follow models/CMakeLists.txt;
# inside sim/ they follow sim/CMakeLists.txt (engine is domain-free and includes only itself).
# models_all is every folder of models/: a new one goes here and gets a row of its own.
models_all="models models/random models/parallel models/io models/device models/workload models/perf models/learn models/pipeline models/onnx models/onnx/plugin"
declare -A may_include=(
  [models]="models"
  [models/random]="models models/random"
  [models/parallel]="models models/parallel"
  [models/io]="models models/io"
  [models/device]="models models/device"
  [models/workload]="models models/workload"
  [models/perf]="models models/random models/parallel models/io models/device models/workload models/perf"
  [models/learn]="models models/random models/device models/workload models/perf models/learn"
  [models/pipeline]="models models/random models/device models/perf models/pipeline"
  [models/onnx]="models models/io models/workload models/onnx"
  [models/onnx/plugin]="models models/workload models/onnx models/onnx/plugin"

  [backends]="$models_all backends backends/cuda"
  [backends/hardware]="$models_all backends backends/hardware"
  [backends/cuda]="$models_all backends backends/hardware backends/cuda backends/cuda/ops <cuda>"
  [backends/cuda/ops]="$models_all backends/cuda backends/cuda/ops <cuda>"

  [sim/engine]="sim/engine"
  [sim/scenario]="$models_all sim/scenario"
  [sim/config]="$models_all sim/scenario sim/config"
  [sim/runtime]="$models_all backends sim/engine sim/scenario sim/runtime"
  [sim/search]="$models_all sim/scenario sim/config sim/search"
  [sim/sweep]="$models_all sim/scenario sim/config sim/search sim/sweep"
  [sim/report]="$models_all backends sim/engine sim/scenario sim/runtime sim/search sim/sweep sim/report"
  [sim/app]="$models_all backends backends/hardware sim/engine sim/scenario sim/config sim/runtime sim/report sim/search sim/sweep sim/app"
  # Sweeps and studies over the ranks of an MPI job; MPI itself only in the plugin (plugin/,
  # the one place <mpi.h> is included), which sees nothing but the plugin's table.
  [sim/mpi]="models models/io sim/config sim/report sim/search sim/sweep sim/app sim/mpi"
  [sim/mpi/plugin]="sim/mpi"
  # The CLI is options -> request -> app -> print: it reaches the libraries only through sim/app,
  # sim/report and sim/config (and the error types at the top of models/, models/error.hpp).
  [sim/cli]="models sim/config sim/report sim/app sim/mpi sim/cli"
)

# Files that are not yet what their folder's row says, each with its own row and the reason. A
# file listed here is checked against this row instead of its folder's; the entry goes when the
# file conforms. Nothing else may be listed.
declare -A file_may_include=(
)

# CUDA toolkit headers, as written inside <> or "".
cuda_header='^(cuda[^/]*\.h|cuda_runtime[^/]*|cudnn[^/]*\.h|cublas[^/]*\.h|cu(rand|fft|sparse|solver|pti)[^/]*\.h|nvml\.h|nvrtc\.h|(cuda|thrust|cub)/.*)$'

mapfile -t files < <(find models backends sim -type f \
  \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cc' -o -name '*.cu' -o -name '*.cuh' \) |
  LC_ALL=C sort)

status=0
declare -A undeclared=()
for f in "${files[@]}"; do
  folder=${f%/*}
  if [ -z "${may_include[$folder]+set}" ]; then
    undeclared[$folder]=1
    status=1
  fi
done
for folder in "${!undeclared[@]}"; do
  echo "$folder: not in the layering table of scripts/check_layering.sh; declare what it may include"
done | LC_ALL=C sort

# file:line:#include <x> or "x", for every file of a declared folder.
include_re='^[[:space:]]*#[[:space:]]*include[[:space:]]*([<"])([^>"]+)[>"]'
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  text=${rest#*:}
  [[ $text =~ $include_re ]] || continue
  delimiter=${BASH_REMATCH[1]}
  header=${BASH_REMATCH[2]}
  folder=${file%/*}
  [ -n "${undeclared[$folder]+set}" ] && continue
  rule=${may_include[$folder]}
  [ -n "${file_may_include[$file]+set}" ] && rule=${file_may_include[$file]}
  read -r -a allowed <<<"$rule"
  if [[ $header =~ $cuda_header ]]; then
    [[ " ${allowed[*]} " == *" <cuda> "* ]] && continue
    shown="<$header>"
    [ "$delimiter" = '"' ] && shown="\"$header\""
    echo "$file:$line: includes $shown, but only backends/cuda/ may include CUDA headers"
    status=1
    continue
  fi
  [ "$delimiter" = '<' ] && continue  # the standard library and third-party headers
  header_folder=.
  [[ $header == */* ]] && header_folder=${header%/*}
  [[ " ${allowed[*]} " == *" $header_folder "* ]] && continue
  folders=$(printf '%s\n' "${allowed[@]}" | grep -v '^<' | paste -sd ' ' | sed 's/ /, /g')
  echo "$file:$line: includes $header, but $folder may only include $folders"
  status=1
done < <(grep -nE "$include_re" "${files[@]}" /dev/null || true)

[ $status -eq 0 ] && echo "check_layering: ${#files[@]} files, layering respected"
exit $status
