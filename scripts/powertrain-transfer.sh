#!/usr/bin/env bash
# Measures PowerTrain transfer as reference/measurements/README.md defines it: for each target
# workload and k, fine-tune the committed resnet18 reference on k modes drawn at random (seeds
# 1..DRAWS), predict every mode of the target and take the MAPE over the modes not used for
# fine-tuning; prints the median over the draws. The figures of docs/PREDICT.md come from here.
#   scripts/powertrain-transfer.sh [FULCRUM] [REFERENCE_DIR] [extra predict options...]
# Environment: DRAWS (10), TARGETS, KS, PREDICTOR (powertrain; nn trains from scratch on the k modes).
set -euo pipefail
cd "$(dirname "$0")/.."
fulcrum=${1:-build/fulcrum}
reference=${2:-../shared/reference}
shift $(( $# < 2 ? $# : 2 ))
csv="$reference/measurements/orin-agx-training-modes.csv"
draws=${DRAWS:-10}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-14s %5s %16s %17s\n' target k "median time MAPE" "median power MAPE"
for target in ${TARGETS:-mobilenet_v3 bert_base lstm}; do
  for k in ${KS:-10 20 50 100}; do
    results=$(for seed in $(seq 1 "$draws"); do
      "$fulcrum" predict --predictor "${PREDICTOR:-powertrain}" --fit "$csv" --at "$csv" --workload "$target" \
        --sample "$k" --seed "$seed" "$@" | sed -n 's/^time MAPE \([0-9.]*\) %, power MAPE \([0-9.]*\) %.*/\1 \2/p'
    done)
    printf '%-14s %5s %14s %% %15s %%\n' "$target" "$k" \
      "$(cut -d' ' -f1 <<<"$results" | median)" "$(cut -d' ' -f2 <<<"$results" | median)"
  done
done
