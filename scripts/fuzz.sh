#!/usr/bin/env bash
# Builds the libFuzzer targets in build-fuzz (clang, -DFULCRUM_FUZZ=ON) and runs each one in
# turn for SECONDS (default 60). Crash, sanitizer, timeout and out-of-memory inputs are written
# to build-fuzz/findings/; the exit status is non-zero when any target found something.
#
#   scripts/fuzz.sh            # 60 s per target
#   scripts/fuzz.sh 300        # 5 min per target
#   FUZZ_TARGETS="trace" scripts/fuzz.sh 30
set -uo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS]  (a whole number of seconds per target, default 60)" >&2
  exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-fuzz"
targets="${FUZZ_TARGETS:-scenario overrides trace profile_csv workload_file}"
generator="Unix Makefiles"
command -v ninja >/dev/null 2>&1 && generator="Ninja"

if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
    -DFULCRUM_FUZZ=ON -DFULCRUM_BUILD_TESTS=OFF -DFULCRUM_BUILD_BENCH=OFF || exit 1
fi
build_targets=""
for t in $targets; do build_targets="$build_targets fuzz_$t"; done
# One job: the fuzzers are run one at a time too, leaving the machine's other cores alone.
# shellcheck disable=SC2086
cmake --build "$build" --target $build_targets -j1 || exit 1

mkdir -p "$build/findings"
# --set strings have no file of their own in the repository; a few valid ones start the corpus.
mkdir -p "$build/corpus/overrides"
printf 'seed=3' >"$build/corpus/overrides/seed"
printf 'device.power_mode=MODE_30W\ninference[0].batch_size=8' >"$build/corpus/overrides/mode"
printf 'inference[1]={name: b, workload: resnet50, batch_size: 1, arrivals: {process: poisson, rate_per_s: 5}}' \
  >"$build/corpus/overrides/append"
printf 'gpu_sharing={policy: native, timeslice_us: 512}\ntraining=null' >"$build/corpus/overrides/map"
# Nor do profile CSVs (the measured ones are reference data, read in place and never copied):
# small made-up ones in the documented format start that corpus.
mkdir -p "$build/corpus/profile_seeds"
printf '%s\n' '# made-up numbers' \
  'workload,cores,cpu_khz,gpu_hz,emc_hz,phase,batch_size,time_ms,power_w,VDD_GPU_SOC_w,VDD_CPU_CV_w' \
  'resnet50,12,2201600,1300500000,3199000000,inference,16,50,52,30.5,' \
  'resnet50,8,1728000,612000000,3199000000,training,32,80,25,12,4.5' \
  ',12,2201600,1300500000,3199000000,idle,0,,9.5,4,2' >"$build/corpus/profile_seeds/profile.csv"
printf '%s\n' '# made-up numbers, in the column layout of the published measurement files' \
  'model,dataset,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,minibatch_time_ms,power_w,in_grid441' \
  'mobilenet_v3,gld23k,train,16,12,2201600,1300500000,3199000000,90.5,40.25,1' \
  'resnet50,imagenet_val50k,infer,4,8,1344000,726750000,2133000000,30,20,0' \
  >"$build/corpus/profile_seeds/measured.csv"

found=0
for t in $targets; do
  corpus="$build/corpus/$t"  # first directory: where new interesting inputs are kept
  mkdir -p "$corpus"
  extra=()
  case "$t" in
    scenario) seeds=("$root/scenarios"); extra=(-dict="$root/tests/fuzz/scenario.dict") ;;
    overrides) seeds=(); extra=(-dict="$root/tests/fuzz/scenario.dict") ;;
    trace) seeds=("$root/scenarios/traces") ;;
    profile_csv) seeds=("$build/corpus/profile_seeds") ;;
    workload_file) seeds=("$root/models/data/workloads") ;;
    *) echo "fuzz.sh: unknown target '$t'" >&2; exit 2 ;;
  esac
  echo "== fuzz_$t for ${seconds}s"
  before=$(find "$build/findings" -type f -name "$t-*" | wc -l)
  "$build/fuzz/fuzz_$t" "$corpus" "${seeds[@]}" "${extra[@]}" \
    -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/findings/$t-" 2>&1 | grep -v -e '^"' -e '^###' | tail -n 30
  rc=${PIPESTATUS[0]}
  after=$(find "$build/findings" -type f -name "$t-*" | wc -l)
  if [ "$rc" -ne 0 ] || [ "$after" -gt "$before" ]; then
    echo "== fuzz_$t: FOUND SOMETHING (exit $rc); inputs in $build/findings/$t-*" >&2
    found=1
  else
    echo "== fuzz_$t: nothing found"
  fi
done
exit "$found"
