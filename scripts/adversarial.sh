#!/usr/bin/env bash
# Adversarial pass over every verb of the fulcrum CLI.
#
#   adversarial.sh ROOT [ID-REGEX]
#
# ROOT is a checkout with a built binary (ROOT/build/fulcrum) and ROOT/scenarios. Every case
# runs under `timeout 20` in a fresh temporary folder; nothing is written into ROOT. One line per
# case: `PASS|FAIL <id> <description> [observed]`, then `N passed, M failed`. KEEP=1 keeps the
# temporary folder. FULCRUM_REFERENCE_DIR defaults to the reference folder beside ROOT
# (ROOT/../shared/reference, as the build's default). Not part of `make test`: a pass takes minutes.
#
# Expected behaviour checked: bad input -> exit 2 and exactly one printable line on stderr (no
# "internal error"), located as file:line:col where a file is at fault; nothing written or
# clobbered (/dev/null, FIFOs, the command's own inputs, folders holding foreign files);
# never a crash, a signal or a hang; no nan/inf in outputs; an interrupt leaves no lock,
# staging folder or .partial file; same seed -> same bytes.
set -u
ROOT=$(cd "${1:?usage: adversarial.sh ROOT [ID-REGEX]}" && pwd)
FILTER=${2:-}
F=$ROOT/build/fulcrum
SC=$ROOT/scenarios
export FULCRUM_REFERENCE_DIR=${FULCRUM_REFERENCE_DIR:-$(cd "$ROOT/.." && pwd)/shared/reference}
REF=$FULCRUM_REFERENCE_DIR
T=$(mktemp -d /tmp/fulcrum-adv.XXXXXX)
[ "${KEEP:-0}" = 1 ] || trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
W=$T/w # the working folder of every command
mkdir -p "$W"
NPASS=0
NFAIL=0

wait_bin() {
  local i
  for i in $(seq 90); do
    [ -x "$F" ] && return 0
    sleep 2
  done
  echo "no binary at $F" >&2
  exit 3
}

want() { [ -z "$FILTER" ] || [[ $1 =~ $FILTER ]]; }

report() { # ok id desc observed
  if [ "$1" = 1 ]; then
    NPASS=$((NPASS + 1))
    echo "PASS $2 $3"
  else
    NFAIL=$((NFAIL + 1))
    echo "FAIL $2 $3 [$4]"
  fi
}

# xrun CMD...: runs CMD in $W under timeout 20 (stdin /dev/null); sets RC, DUR_MS, $T/out, $T/err.
xrun() {
  local s try
  for try in 1 2 3 4 5 6 7 8 9 10; do
    wait_bin
    s=$(date +%s%N)
    (cd "$W" && exec timeout -k 3 20 "$@" >"$T/out" 2>"$T/err" </dev/null)
    RC=$?
    DUR_MS=$((($(date +%s%N) - s) / 1000000))
    rebuilt "$RC" || break
  done
  fixtures_intact
}

# The binary was being replaced by a build while it was started: run the case again.
rebuilt() {
  { [ "$1" = 126 ] || [ "$1" = 127 ]; } && grep -q -E 'failed to run command|Text file busy|No such file' "$T/err" &&
    { sleep 3; return 0; }
  return 1
}

# Device and FIFO fixtures are re-made when a case replaced them; the real /dev/null is put back
# (and said so) if a case ever turned it into something else.
fixtures_intact() {
  [ -p "$T/fifo" ] || { rm -rf "$T/fifo"; mkfifo "$T/fifo"; }
  if [ "$DEVNULL" != /dev/null ] && [ ! -c "$DEVNULL" ]; then rm -rf "$DEVNULL"; mknod -m 666 "$DEVNULL" c 1 3; fi
  if [ ! -c /dev/null ]; then
    rm -f /dev/null && mknod -m 666 /dev/null c 1 3
    echo "WARNING: the real /dev/null was replaced by the last case and has been re-made" >&2
  fi
}

errsum() { # the stderr, one line, shortened
  tr '\n\r' '||' <"$T/err" | LC_ALL=C tr -c '[:print:]' '?' | cut -c1-220
}

# The state of paths: type, size, inode, mtime, content digest (regular files), listing (folders).
state_of() {
  local p
  for p in "$@"; do
    if [ -e "$p" ] || [ -L "$p" ]; then
      if [ -d "$p" ] && [ ! -L "$p" ]; then
        stat -c '%n %F %i %a' "$p" # a folder's mtime may change (a lock beside a file)
        (cd "$p" && find . -mindepth 1 -printf '%p %y %s %i\n' | sort)
      else
        stat -c '%n %F %s %i %Y %a %t:%T' "$p"
        if [ -f "$p" ] && [ ! -L "$p" ]; then md5sum <"$p"; fi
      fi
    else
      echo "$p absent"
    fi
  done
}

# leftovers DIR...: locks, staging folders, .partial and .previous files under the folders.
leftovers() {
  find "$@" -maxdepth 3 \( -name '*.lock' -o -name '*staging*' -o -name '*.partial' \
    -o -name '*.previous*' -o -name '*.tmp*' \) 2>/dev/null | head -3 | tr '\n' ' '
}

nonfinite() { # files... : prints a hit when any holds nan/inf as a number
  LC_ALL=C grep -l -i -E '(^|[^a-z_])[-+]?(nan|inf|infinity)([^a-z_]|$)' "$@" 2>/dev/null | head -1
}

one_line_err() { # 0 when stderr is exactly one printable line without "internal error"
  [ "$(grep -c '' "$T/err")" = 1 ] || return 1
  LC_ALL=C grep -q -P '[^\x20-\x7e\n]' "$T/err" && return 1
  grep -q -i 'internal error' "$T/err" && return 1
  [ -s "$T/err" ]
}

# bad ID DESC [--located REGEX] [--guard PATH]... -- CMD...
# Expects exit 2, one line on stderr (matching REGEX if given), and the guarded paths unchanged.
bad() {
  local id=$1 desc=$2
  shift 2
  local located="" guards=()
  while [ "$1" != -- ]; do
    case $1 in
    --located) located=$2; shift 2 ;;
    --guard) guards+=("$2"); shift 2 ;;
    esac
  done
  shift
  want "$id" || return 0
  local before="" after=""
  [ ${#guards[@]} -gt 0 ] && before=$(state_of "${guards[@]}")
  xrun "$@"
  [ ${#guards[@]} -gt 0 ] && after=$(state_of "${guards[@]}")
  local why=""
  [ "$RC" = 2 ] || why="exit $RC"
  one_line_err || why="$why; stderr not one clean line"
  if [ -n "$located" ] && ! grep -q -E -- "$located" "$T/err"; then why="$why; not located /$located/"; fi
  [ "$before" = "$after" ] || why="$why; guarded path changed"
  local left
  left=$(leftovers "$W" "$T/g" 2>/dev/null)
  [ -z "$left" ] || why="$why; left $left"
  if [ -z "$why" ]; then report 1 "$id" "$desc" ""; else report 0 "$id" "$desc" "${why#; }; ${DUR_MS}ms; stderr: $(errsum)"; fi
  cleanup_left
}

# good ID DESC -- CMD...: expects exit 0, nothing non-finite in stdout, nothing left behind.
good() {
  local id=$1 desc=$2
  shift 3
  want "$id" || return 0
  xrun "$@"
  local why=""
  [ "$RC" = 0 ] || why="exit $RC"
  [ -z "$(nonfinite "$T/out")" ] || why="$why; non-finite number in stdout"
  grep -q -i 'internal error' "$T/err" && why="$why; internal error"
  local left
  left=$(leftovers "$W")
  [ -z "$left" ] || why="$why; left $left"
  if [ -z "$why" ]; then report 1 "$id" "$desc" ""; else report 0 "$id" "$desc" "${why#; }; ${DUR_MS}ms; stderr: $(errsum)"; fi
  cleanup_left
}

# check ID DESC CONDITION-OK OBSERVED: reports a computed verdict.
check() {
  want "$1" || return 0
  report "$3" "$1" "$2" "$4"
}

cleanup_left() {
  find "$W" "$T/g" -maxdepth 3 \( -name '*.lock' -o -name '*staging*' -o -name '*.partial' \
    -o -name '*.previous*' \) -exec rm -rf {} + 2>/dev/null
}

# interrupted ID DESC SIGNAL SECONDS EXPECTED_RC WATCHDIR -- CMD...: sends SIGNAL after SECONDS
# (timeout's double signal: the child, then its group); expects EXPECTED_RC, stderr one line,
# no lock/staging/partial in WATCHDIR.
interrupted() {
  local id=$1 desc=$2 sig=$3 secs=$4 erc=$5 dir=$6
  shift 7
  want "$id" || return 0
  wait_bin
  local s
  s=$(date +%s%N)
  (cd "$W" && exec timeout --preserve-status -k 10 -s "$sig" "$secs" "$@" >"$T/out" 2>"$T/err" </dev/null)
  RC=$?
  DUR_MS=$((($(date +%s%N) - s) / 1000000))
  fixtures_intact
  local why=""
  [ "$RC" = "$erc" ] || why="exit $RC (want $erc)"
  [ -s "$T/err" ] || why="$why; nothing on stderr"
  grep -q -i 'internal error' "$T/err" && why="$why; internal error"
  local left
  left=$(leftovers "$dir")
  [ -z "$left" ] || why="$why; left $left"
  if [ -z "$why" ]; then report 1 "$id" "$desc" ""; else report 0 "$id" "$desc" "${why#; }; ${DUR_MS}ms; stderr: $(errsum)"; fi
  find "$dir" -maxdepth 3 \( -name '*.lock' -o -name '*staging*' -o -name '*.partial' \) -exec rm -rf {} + 2>/dev/null
}

# ---------------------------------------------------------------------------------------------
# Fixtures (all under $T)
wait_bin
mkdir -p "$T/sc" "$T/g"
cp -r "$SC/." "$T/sc/"
Q=$T/sc/quickstart.yaml
QS=(--set duration_s=2)
mkfifo "$T/fifo"
# A device node of our own stands for /dev/null (same major/minor): a tool that replaces its
# output clobbers this node, never the system's /dev/null.
DEVNULL=$T/devnull
mknod -m 666 "$DEVNULL" c 1 3 2>/dev/null || { [ "$(id -u)" != 0 ] && DEVNULL=/dev/null; } ||
  { echo "cannot make a device node in $T" >&2; exit 3; }
# keep a writer/reader-less FIFO: anything opening it would block (the timeout catches that)
cat >"$T/tiny.yaml" <<'EOF'
version: 1
name: tiny
seed: 1
workloads:
  - {training: resnet18, inference: mobilenet_v3}
arrivals: {fixed: [30, 90], dynamic: [[30, 90]]}
latency_budget_s: [0.5, 1.0]
power_budget_w: [25, 35]
strategies: [maxn, binary, oracle]
EOF
sed 's/^seed: 1/seed: 2/' "$T/tiny.yaml" >"$T/tiny-seed2.yaml"
(cd "$W" && timeout 20 "$F" profile --workloads resnet18 --phases training --modes grid:pagoda-441 \
  --out "$T/p441.csv" -q >/dev/null 2>&1)
(cd "$W" && timeout 20 "$F" profile --workloads mobilenetv3-large,resnet50 --batch-sizes 16 \
  --modes MAXN --out "$T/q.csv" -q >/dev/null 2>&1)
QROW='mobilenetv3-large,random,train,16,12,2201600,1300500000,3199000000,'
hostile_csv() { # NAME TIME_MS POWER_W: q.csv with the training row's time and power replaced
  awk -F, -v OFS=, -v t="$2" -v p="$3" '$1=="mobilenetv3-large" && $3=="train" {$9=t; $10=p} {print}' \
    "$T/q.csv" >"$T/$1"
}

# =============================================================================================
# Part 1: issue 18's reproductions
# ---- 1. --out replaces whatever it names
for v in predict profile sweep merge calibrate; do
  case $v in
  predict) cmd=("$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --sample 20) ;;
  profile) cmd=("$F" profile --workloads resnet18 --modes MAXN -q) ;;
  sweep) cmd=("$F" sweep "$T/tiny.yaml" -q -j1) ;;
  merge) cmd=("$F" sweep --merge "$T/g/none.csv") ;;
  calibrate) cmd=("$F" calibrate -q) ;;
  esac
  bad "i18.1-devnull-$v" "$v --out "$DEVNULL" (a device node) is refused, the node stays a device" --guard "$DEVNULL" -- \
    "${cmd[@]}" --out "$DEVNULL"
  bad "i18.1-fifo-$v" "$v --out FIFO is refused without blocking" --guard "$T/fifo" -- "${cmd[@]}" --out "$T/fifo"
done
cp "$T/tiny.yaml" "$T/g/own.yaml"
bad i18.1-sweep-own "sweep own.yaml --out own.yaml is refused" --guard "$T/g/own.yaml" -- \
  "$F" sweep "$T/g/own.yaml" --out "$T/g/own.yaml" -q
cp "$T/p441.csv" "$T/g/my.csv"
bad i18.1-predict-own "predict --fit my.csv --at my.csv --out my.csv is refused" --guard "$T/g/my.csv" -- \
  "$F" predict --fit "$T/g/my.csv" --at "$T/g/my.csv" --out "$T/g/my.csv" --sample 20
bad i18.1-profile-scenario "profile --out a scenario file is refused" --guard "$T/sc/two-streams.yaml" -- \
  "$F" profile --workloads resnet18 --modes MAXN -q --out "$T/sc/two-streams.yaml"
cp "$T/p441.csv" "$T/g/link-target.csv"
ln -f "$T/g/link-target.csv" "$T/g/hardlink.csv"
bad i18.1-predict-hardlink "predict --out a hard link of --fit is refused" --guard "$T/g/link-target.csv" -- \
  "$F" predict --fit "$T/g/link-target.csv" --at "$T/p441.csv" --out "$T/g/hardlink.csv" --sample 20

# ---- 2. a sweep's oracle under profiler noise meets every budget it claims
if want i18.2-oracle-noise; then
  sed 's/^strategies:.*/strategies: [oracle, binary]\nprofiler: {noise: 0.1}/' "$T/tiny.yaml" >"$T/noisy.yaml"
  xrun "$F" sweep "$T/noisy.yaml" --out "$T/noisy.csv" -q -j1
  bad_rows=$(awk -F, '$7=="oracle" && $10==1 && $9!=1' "$T/noisy.csv" 2>/dev/null | wc -l)
  check i18.2-oracle-noise "sweep with profiler noise 0.1: the oracle meets every budget it claims" \
    "$([ "$RC" = 0 ] && [ "$bad_rows" = 0 ] && echo 1 || echo 0)" "exit $RC, $bad_rows oracle rows feasible but budgets missed"
  # a missed budget has ratio 0 (issue 18, Also)
  nz=$(awk -F, 'NR>2 && $9==0 && $13+0>0' "$T/noisy.csv" 2>/dev/null | wc -l)
  check i18.2-ratio-missed "sweep: every row that missed a budget has ratio 0" "$([ "$nz" = 0 ] && echo 1 || echo 0)" "$nz rows with ratio > 0 and budgets_met 0"
fi

# ---- 3. sweep --merge checks the shards' sweep and rows
(cd "$W" && for k in 1 2 3; do timeout 20 "$F" sweep "$T/tiny.yaml" --shard $k/3 --out "$T/s$k.csv" -q -j1 >/dev/null 2>&1; done
  timeout 20 "$F" sweep "$T/tiny-seed2.yaml" --shard 2/3 --out "$T/x2.csv" -q -j1 >/dev/null 2>&1)
bad i18.3-merge-foreign "merge refuses a shard of another sweep (seed 2)" --guard "$T/g" -- \
  "$F" sweep --merge --out "$T/g/m.csv" "$T/s1.csv" "$T/x2.csv" "$T/s3.csv"
sed '$d' "$T/s2.csv" >"$T/s2-short.csv"
bad i18.3-merge-missing-row "merge refuses a shard with its last row deleted" --guard "$T/g" -- \
  "$F" sweep --merge --out "$T/g/m.csv" "$T/s1.csv" "$T/s2-short.csv" "$T/s3.csv"
bad i18.3-merge-dup "merge refuses the same shard twice" --guard "$T/g" -- \
  "$F" sweep --merge --out "$T/g/m.csv" "$T/s1.csv" "$T/s2.csv" "$T/s2.csv" "$T/s3.csv"
bad i18.3-merge-gap "merge refuses shards that miss one (2 of 3)" --guard "$T/g" -- \
  "$F" sweep --merge --out "$T/g/m.csv" "$T/s1.csv" "$T/s3.csv"
bad i18.3-merge-shard-flag "merge refuses --shard beside --merge" --guard "$T/g" -- \
  "$F" sweep --merge --shard 1/2 --out "$T/g/m.csv" "$T/s1.csv" "$T/s2.csv" "$T/s3.csv"
if want i18.3-merge-crlf; then
  for k in 1 2 3; do sed 's/$/\r/' "$T/s$k.csv" >"$T/c$k.csv"; done
  xrun "$F" sweep --merge --out "$T/g/crlf.csv" "$T/c1.csv" "$T/c2.csv" "$T/c3.csv"
  check i18.3-merge-crlf "merge takes CRLF shards (exit 0) or refuses in one line (exit 2)" \
    "$( { [ "$RC" = 0 ] || { [ "$RC" = 2 ] && one_line_err; }; } && echo 1 || echo 0)" "exit $RC: $(errsum)"
  rm -f "$T/g/crlf.csv"
fi
if want i18.3-merge-bytes; then
  xrun "$F" sweep "$T/tiny.yaml" --out "$T/whole.csv" -q -j1
  xrun "$F" sweep --merge --out "$T/merged.csv" "$T/s3.csv" "$T/s1.csv" "$T/s2.csv"
  check i18.3-merge-bytes "3 shards merged in any order give the whole sweep's bytes" \
    "$(cmp -s "$T/whole.csv" "$T/merged.csv" && echo 1 || echo 0)" "exit $RC, files differ"
fi

# ---- 4. sweep and optimize with run's safety
interrupted i18.4-sweep-int "SIGINT during a sweep: exit 130, a message, no .partial" INT 1.5 130 "$T/g" -- \
  "$F" sweep "$SC/sweeps/small.yaml" -j1 --out "$T/g/h.csv"
check i18.4-sweep-int-nofile "the interrupted sweep wrote no h.csv" "$([ ! -e "$T/g/h.csv" ] && echo 1 || echo 0)" "h.csv exists"
rm -f "$T/g/h.csv"
if want i18.4-sweep-concurrent; then
  (cd "$W" && timeout 20 "$F" sweep "$SC/sweeps/small.yaml" -j1 -q --out "$T/g/c.csv" >/dev/null 2>"$T/c1.err"; echo $? >"$T/c1.rc") &
  sleep 0.5
  (cd "$W" && timeout 20 "$F" sweep "$SC/sweeps/small.yaml" -j1 -q --out "$T/g/c.csv" >/dev/null 2>"$T/c2.err"; echo $? >"$T/c2.rc")
  wait
  r1=$(cat "$T/c1.rc") r2=$(cat "$T/c2.rc")
  rows=$(grep -c -v '^#' "$T/g/c.csv" 2>/dev/null)
  check i18.4-sweep-concurrent "two sweeps into one CSV: the second exits 2, the CSV is whole (973 lines)" \
    "$([ "$r1" = 0 ] && [ "$r2" = 2 ] && [ "$rows" = 973 ] && echo 1 || echo 0)" "exits $r1/$r2, $rows lines, stderr2: $(head -c 150 "$T/c2.err")"
  rm -f "$T/g/c.csv"
fi
if want i18.4-optimize-concurrent; then
  (cd "$W" && timeout 20 "$F" optimize "$SC/optimize-measured.yaml" --out "$T/g/o" --set duration_s=30 >/dev/null 2>"$T/o1.err"; echo $? >"$T/o1.rc") &
  sleep 0.3
  (cd "$W" && timeout 20 "$F" optimize "$SC/optimize-measured.yaml" --out "$T/g/o" --set duration_s=30 >/dev/null 2>"$T/o2.err"; echo $? >"$T/o2.rc")
  wait
  r1=$(cat "$T/o1.rc") r2=$(cat "$T/o2.rc")
  valid=$(python3 -c 'import json,sys; json.load(open(sys.argv[1])); print(1)' "$T/g/o/optimize.json" 2>/dev/null || echo 0)
  check i18.4-optimize-concurrent "two optimize runs into one folder: one exit 2 (or waits), valid JSON" \
    "$([ "$valid" = 1 ] && { [ "$r1$r2" = 02 ] || [ "$r1$r2" = 20 ] || [ "$r1$r2" = 00 ]; } && echo 1 || echo 0)" "exits $r1/$r2, json valid=$valid"
  rm -rf "$T/g/o"
fi
interrupted i18.4-optimize-int "SIGINT during optimize: exit 130 with a message, nothing left" INT 0.4 130 "$T/g" -- \
  "$F" optimize "$SC/optimize-measured.yaml" --out "$T/g/oi" --set duration_s=1000000
check i18.4-optimize-int-nofolder "the interrupted optimize left no folder" "$([ ! -e "$T/g/oi" ] && echo 1 || echo 0)" "$(ls "$T/g/oi" 2>&1 | head -2)"
rm -rf "$T/g/oi"

# ---- 5. wall-clock runs stop at their end and at an interrupt
if want i18.5-wall-overrun; then
  xrun "$F" run "$Q" --set training.batch_size=4096 --set 'inference=[]' --set duration_s=3 --clock wall --out "$T/g/wall" -q
  check i18.5-wall-overrun "a 3 s wall run with a 4096-sample minibatch ends within 6 s" \
    "$([ "$RC" = 0 ] && [ "$DUR_MS" -lt 6000 ] && echo 1 || echo 0)" "exit $RC in ${DUR_MS} ms: $(errsum)"
  rm -rf "$T/g/wall"
fi
interrupted i18.5-wall-term "SIGTERM during a long wall minibatch stops at once (143)" TERM 1 143 "$T/g" -- \
  "$F" run "$Q" --set training.batch_size=4096 --set 'inference=[]' --set duration_s=60 --clock wall --out "$T/g/wt" -q
check i18.5-wall-term-fast "... within 3 s of the signal" "$([ "$DUR_MS" -lt 4000 ] && echo 1 || echo 0)" "${DUR_MS} ms"
bad i18.5-validate-noise10 "validate --noise 10 is refused" -- "$F" validate "$Q" --noise 10 --duration-s 1 --out "$T/g/v" -q
bad i18.5-validate-noise-huge "validate --noise 1e308 is refused" -- "$F" validate "$Q" --noise 1e308 --duration-s 1 --out "$T/g/v" -q
bad i18.5-validate-noise-neg "validate --noise -0.1 is refused" -- "$F" validate "$Q" --noise -0.1 --duration-s 1 --out "$T/g/v" -q
for i in 1 2 3 4; do
  interrupted "i18.5-wall-double-int-$i" "timeout's double SIGINT on a wall run ($i): no lock or staging" INT 0.7 130 "$T/g" -- \
    "$F" run "$Q" --set duration_s=30 --clock wall --out "$T/g/dw"
  interrupted "i18.5-validate-double-term-$i" "timeout's double SIGTERM on validate ($i): nothing left" TERM 1.2 143 "$T/g" -- \
    "$F" validate "$Q" --duration-s 30 --out "$T/g/dv" -q
done

# ---- 6. hostile numbers in profile CSVs
hostile_csv h-tiny.csv 1e-7 39.5
bad i18.6-time-tiny "a table time_ms of 1e-7 is refused with a located line" --located 'h-tiny.csv:[0-9]+' -- \
  "$F" run "$Q" "${QS[@]}" --set "device.perf_model.table=$T/h-tiny.csv" --out "$T/g/r" -q
hostile_csv h-power.csv 91.6 1e308
bad i18.6-power-huge "a table power_w of 1e308 is refused with a located line" --located 'h-power.csv:[0-9]+' -- \
  "$F" run "$Q" "${QS[@]}" --set "device.perf_model.table=$T/h-power.csv" --out "$T/g/r" -q
hostile_csv h-time-huge.csv 1e308 39.5
bad i18.6-time-huge "a table time_ms of 1e308 is refused (no internal error)" --located 'h-time-huge.csv:[0-9]+' -- \
  "$F" run "$Q" "${QS[@]}" --set "device.perf_model.table=$T/h-time-huge.csv" --out "$T/g/r" -q
hostile_csv h-nan.csv nan 39.5
bad i18.6-time-nan "a table time_ms of nan is refused" --located 'h-nan.csv:[0-9]+' -- \
  "$F" run "$Q" "${QS[@]}" --set "device.perf_model.table=$T/h-nan.csv" --out "$T/g/r" -q
hostile_csv h-neg.csv -5 39.5
bad i18.6-time-neg "a table time_ms of -5 is refused" --located 'h-neg.csv:[0-9]+' -- \
  "$F" run "$Q" "${QS[@]}" --set "device.perf_model.table=$T/h-neg.csv" --out "$T/g/r" -q
hostile_csv h-pneg.csv 91.6 -1
bad i18.6-power-neg "a table power_w of -1 is refused" --located 'h-pneg.csv:[0-9]+' -- \
  "$F" run "$Q" "${QS[@]}" --set "device.perf_model.table=$T/h-pneg.csv" --out "$T/g/r" -q
if want i18.6-predict-finite; then
  awk -F, -v OFS=, 'NR<=3 || NR%40==0 {print}' "$T/p441.csv" >"$T/few.csv"
  for pr in powertrain analytic-modes nn analytic; do
    xrun "$F" predict --fit "$T/few.csv" --at "$T/p441.csv" --predictor "$pr" --out "$T/g/pred-$pr.csv" --json
    nf=$(nonfinite "$T/out" "$T/g/pred-$pr.csv")
    check "i18.6-predict-finite-$pr" "predict --predictor $pr on 11 fit rows: exit 0/2, outputs finite" \
      "$({ [ "$RC" = 0 ] || [ "$RC" = 2 ]; } && [ -z "$nf" ] && echo 1 || echo 0)" "exit $RC, non-finite in '$nf': $(errsum)"
  done
fi

# ---- 7. the clock snapshot restores only clock files
if want i18.7-snapshot; then
  S=$T/sys
  w() { mkdir -p "$(dirname "$S/$1")" && printf '%s\n' "$2" >"$S/$1"; }
  w sys/devices/system/cpu/cpu0/cpu_capacity 1024
  for i in $(seq 1 11); do w sys/devices/system/cpu/cpu$i/online 1; done
  for p in 0 4 8; do
    d=sys/devices/system/cpu/cpufreq/policy$p
    w $d/related_cpus "$p-$((p + 3))"; w $d/scaling_min_freq 115200; w $d/scaling_max_freq 2201600; w $d/scaling_cur_freq 2201600
  done
  w sys/class/devfreq/15340000.vic/max_freq 729600000
  g=sys/class/devfreq/17000000.ga10b
  w $g/min_freq 306000000; w $g/max_freq 1300500000; w $g/cur_freq 1300500000
  w sys/kernel/debug/bpmp/debug/clk/emc/rate 3199000000; w sys/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked 1
  echo "precious" >"$T/victim.txt"
  printf '%s\t%s\n' "$T/victim.txt" "0" >"$T/snap.txt"
  printf '%s\t%s\n' "$S/sys/class/devfreq/17000000.ga10b/../../../../victim2" "0" >>"$T/snap.txt"
  bad i18.7-snapshot "a snapshot naming a non-clock file is refused, the file untouched" --guard "$T/victim.txt" -- \
    "$F" profile --workloads resnet50 --phases inference --modes MAXN --repeats 1 --clocks jetson \
    --allow-clock-changes --sysfs-root "$S" --clock-snapshot "$T/snap.txt" --out "$T/g/pc.csv" -q
  printf '%s\t%s\n' "$S/sys/class/devfreq/17000000.ga10b/../../../../../victim.txt" "0" >"$T/snap2.txt"
  cp "$T/victim.txt" "$S/victim.txt"
  bad i18.7-snapshot-dotdot "a snapshot line escaping --sysfs-root with .. is refused" --guard "$S/victim.txt" -- \
    "$F" profile --workloads resnet50 --phases inference --modes MAXN --repeats 1 --clocks jetson \
    --allow-clock-changes --sysfs-root "$S" --clock-snapshot "$T/snap2.txt" --out "$T/g/pc.csv" -q
fi

# ---- Also: profile writes what its reader takes; CSV input rules; calibrate; exit 1 misuse
if want i18.a-profile-dup; then
  xrun "$F" profile --workloads resnet18,resnet18 --modes MAXN --out "$T/g/dup.csv" -q
  if [ "$RC" = 0 ]; then
    xrun "$F" predict --fit "$T/g/dup.csv" --at "$T/g/dup.csv"
    check i18.a-profile-dup "profile --workloads resnet18,resnet18: refused, or its CSV is readable" "$([ "$RC" = 0 ] && echo 1 || echo 0)" "predict on it: exit $RC: $(errsum)"
  else
    check i18.a-profile-dup "profile --workloads resnet18,resnet18: refused, or its CSV is readable" "$([ "$RC" = 2 ] && one_line_err && echo 1 || echo 0)" "exit $RC: $(errsum)"
  fi
  rm -f "$T/g/dup.csv"
fi
bad i18.a-profile-dataset-comma "profile --dataset with a comma is refused" -- "$F" profile --workloads resnet18 --modes MAXN --dataset 'a,b' --out "$T/g/pd.csv" -q
bad i18.a-profile-dataset-nl "profile --dataset with a newline is refused" -- "$F" profile --workloads resnet18 --modes MAXN --dataset $'a\nb' --out "$T/g/pd.csv" -q
bad i18.a-profile-bs0 "profile --batch-sizes 0 is refused" -- "$F" profile --workloads resnet18 --modes MAXN --batch-sizes 0 --out "$T/g/pd.csv" -q
bad i18.a-csv-devzero "predict --fit /dev/zero is refused at once" -- "$F" predict --fit /dev/zero --at "$T/p441.csv"
bad i18.a-csv-fifo "predict --at FIFO is refused without blocking" -- "$F" predict --fit "$T/p441.csv" --at "$T/fifo"
if want i18.a-csv-longline; then
  { head -3 "$T/p441.csv"; head -c 40000000 /dev/zero | tr '\0' 'x'; echo; } >"$T/long.csv"
  bad i18.a-csv-longline "a CSV with a 40 MB line is refused in one line" -- "$F" predict --fit "$T/long.csv" --at "$T/p441.csv"
  rm -f "$T/long.csv"
fi
bad i18.a-csv-table-devzero "a scenario table /dev/zero is refused" -- "$F" run "$Q" "${QS[@]}" --set device.perf_model.table=/dev/zero --out "$T/g/r" -q
bad i18.a-calibrate-fit-sample "calibrate --modes --fit-sample 100000 is refused" -- "$F" calibrate --modes --fit-sample 100000 --workload resnet18 -q
bad i18.a-calibrate-fit-nomodes "calibrate --fit without --modes is refused" -- "$F" calibrate --fit "$T/p441.csv" --workload resnet18 -q
bad i18.a-calibrate-modes-badfit "calibrate --modes --fit /dev/zero is refused at once (< 3 s)" -- "$F" calibrate --modes --fit /dev/zero --workload resnet18 -q
mkdir -p "$T/g/optfile"
: >"$T/g/optfile/file"
bad i18.a-optimize-out-file "optimize --out FILE is refused before the search" --guard "$T/g/optfile/file" -- \
  "$F" optimize "$SC/optimize-measured.yaml" --out "$T/g/optfile/file"
mkdir -p "$T/g/pdir"
bad i18.a-predict-out-dir "predict --out DIR is refused (exit 2)" --guard "$T/g/pdir" -- \
  "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --sample 20 --out "$T/g/pdir"
bad i18.a-run-cuda "run --backend cuda without a GPU: exit 2, one line" -- "$F" run "$Q" "${QS[@]}" --backend cuda --out "$T/g/r" -q
bad i18.a-probe "devices --probe without a GPU: exit 2, one line" -- "$F" devices --probe
bad i18.a-profile-cuda "profile --backend cuda without a GPU: exit 2" -- "$F" profile --workloads resnet18 --modes MAXN --backend cuda --out "$T/g/pd.csv" -q
bad i18.a-validate-cuda "validate --backend cuda without a GPU: exit 2" -- "$F" validate "$Q" --backend cuda --duration-s 1 --out "$T/g/v" -q
bad i18.a-clocks-jetson "profile --clocks jetson off a Jetson: exit 2" -- "$F" profile --workloads resnet18 --modes MAXN --clocks jetson --out "$T/g/pd.csv" -q
bad i18.a-set-located "a --set error names --set and the key, not file:1:1" --located '(--set|training\.batch_size)' -- \
  "$F" run "$Q" --set training.batch_size=abc --out "$T/g/r" -q
if want i18.a-binary-header; then
  head -c 300 /dev/urandom | tr -d '\n' >"$T/bin.csv"
  printf '\n1,2,3\n' >>"$T/bin.csv"
  bad i18.a-binary-header "a binary CSV header is not echoed raw" -- "$F" predict --fit "$T/bin.csv" --at "$T/p441.csv"
fi
sed 's/^name: tiny/name: "..\/..\/evil"/' "$T/tiny.yaml" >"$T/evil.yaml"
bad i18.a-sweep-name "sweep name '../../evil' is refused, located" --located 'evil.yaml:[0-9]+:[0-9]+' -- "$F" sweep "$T/evil.yaml" -q
if want i18.a-sweep-name; then
  esc=$(find "$T" -name '*evil*' -newer "$T/evil.yaml" -not -path "$W/out/*" | head -1)
  check i18.a-sweep-name-nowrite "... and nothing named evil written outside out/" "$([ -z "$esc" ] && echo 1 || echo 0)" "wrote $esc"
fi
if want i18.a-optimize-maxwait; then
  xrun "$F" optimize "$SC/optimize-measured.yaml" --set 'inference[0].max_wait_ms=50' --set duration_s=2 --out "$T/g/ow"
  check i18.a-optimize-maxwait "optimize with max_wait_ms (ignored by its closed form): refused (2) or a warning naming it" \
    "$( { { [ "$RC" = 2 ] && one_line_err; } || { [ "$RC" = 0 ] && grep -q max_wait_ms "$T/err"; }; } && echo 1 || echo 0)" "exit $RC: $(errsum)"
  rm -rf "$T/g/ow"
fi
bad i18.a-sweep-j-neg "sweep -j -1 is refused" -- "$F" sweep "$T/tiny.yaml" -j -1 --out "$T/g/j.csv" -q
if want i18.a-sweep-progress; then
  xrun "$F" sweep "$SC/sweeps/small.yaml" -j1 --out "$T/g/prog.csv"
  cr=$(tr -cd '\r' <"$T/err" | wc -c)
  check i18.a-sweep-progress "sweep without a terminal writes no \\r progress" "$([ "$RC" = 0 ] && [ "$cr" -lt 3 ] && echo 1 || echo 0)" "exit $RC, $cr carriage returns, $(wc -c <"$T/err") bytes on stderr"
  rm -f "$T/g/prog.csv"
fi
if want i18.a-refdir-relative; then
  # A relative FULCRUM_REFERENCE_DIR must mean the same folder to sweep and to a scenario:
  # the reference is linked only beside the current folder, not beside the input files.
  mkdir -p "$T/rel/sub" "$T/relfiles"
  ln -sfn "$REF" "$T/rel/sub/ref"
  cp "$T/tiny.yaml" "$SC/optimize-measured.yaml" "$T/relfiles/"
  (cd "$T/rel" && FULCRUM_REFERENCE_DIR=sub/ref timeout 20 "$F" sweep "$T/relfiles/tiny.yaml" --out "$T/rel/a.csv" -q -j1 >/dev/null 2>"$T/rel/e1"; echo $? >"$T/rel/rc1")
  (cd "$T/rel" && FULCRUM_REFERENCE_DIR=sub/ref timeout 20 "$F" optimize "$T/relfiles/optimize-measured.yaml" --set duration_s=2 --out "$T/rel/o" >/dev/null 2>"$T/rel/e2"; echo $? >"$T/rel/rc2")
  r1=$(cat "$T/rel/rc1") r2=$(cat "$T/rel/rc2")
  check i18.a-refdir-relative "a relative FULCRUM_REFERENCE_DIR means one folder to sweep and to optimize's scenario" \
    "$([ "$r1" = "$r2" ] && { [ "$r1" = 0 ] || [ "$r1" = 2 ]; } && echo 1 || echo 0)" "sweep exit $r1 ($(head -c 120 "$T/rel/e1")), optimize exit $r2 ($(head -c 120 "$T/rel/e2"))"
fi

# =============================================================================================
# Part 2: fresh cases
# ---- command line
bad f01-unknown-verb "an unknown verb" -- "$F" frobnicate
bad f02-unknown-option "run with an unknown option" -- "$F" run "$Q" --bogus
bad f03-missing-value "run --out without its value" -- "$F" run "$Q" --out
bad f04-no-scenario "run without a scenario" -- "$F" run
bad f05-two-scenarios "run with two scenarios" -- "$F" run "$Q" "$Q" --out "$T/g/r"
bad f06-seed-text "run --seed abc" -- "$F" run "$Q" --seed abc --out "$T/g/r" -q
bad f07-seed-neg "run --seed -1" -- "$F" run "$Q" --seed -1 --out "$T/g/r" -q
bad f08-seed-overflow "run --seed 2^64" -- "$F" run "$Q" --seed 18446744073709551616 --out "$T/g/r" -q
bad f09-clock-bogus "run --clock sundial" -- "$F" run "$Q" --clock sundial --out "$T/g/r" -q
bad f10-backend-bogus "run --backend abacus" -- "$F" run "$Q" --backend abacus --out "$T/g/r" -q
bad f11-set-noeq "--set without '='" -- "$F" run "$Q" --set duration_s --out "$T/g/r" -q
bad f12-set-unknown-key "--set of an unknown key names it" --located 'no_such_key' -- "$F" run "$Q" --set no_such_key=1 --out "$T/g/r" -q
bad f13-set-index-range "--set inference[99].batch_size" -- "$F" run "$Q" --set 'inference[99].batch_size=4' --out "$T/g/r" -q
bad f14-set-index-neg "--set inference[-1].batch_size" -- "$F" run "$Q" --set 'inference[-1].batch_size=4' --out "$T/g/r" -q
bad f15-duration-nan "--set duration_s=nan" -- "$F" run "$Q" --set duration_s=nan --out "$T/g/r" -q
bad f16-duration-inf "--set duration_s=inf" -- "$F" run "$Q" --set duration_s=inf --out "$T/g/r" -q
bad f17-duration-neg "--set duration_s=-1" -- "$F" run "$Q" --set duration_s=-1 --out "$T/g/r" -q
bad f18-duration-huge "--set duration_s=1e308 refused (no hang)" -- "$F" run "$Q" --set duration_s=1e308 --out "$T/g/r" -q
bad f19-rate-zero "--set inference[0].arrivals.rate_per_s=0" -- "$F" run "$Q" "${QS[@]}" --set 'inference[0].arrivals.rate_per_s=0' --out "$T/g/r" -q
bad f20-rate-huge "--set rate_per_s=1e12 refused (no hang or memory blow-up)" -- "$F" run "$Q" "${QS[@]}" --set 'inference[0].arrivals.rate_per_s=1e12' --out "$T/g/r" -q
bad f21-bs-zero "--set training.batch_size=0" -- "$F" run "$Q" "${QS[@]}" --set training.batch_size=0 --out "$T/g/r" -q
bad f22-bs-float "--set training.batch_size=1.5" -- "$F" run "$Q" "${QS[@]}" --set training.batch_size=1.5 --out "$T/g/r" -q
bad f23-bs-overflow "--set training.batch_size=99999999999999999999" -- "$F" run "$Q" "${QS[@]}" --set training.batch_size=99999999999999999999 --out "$T/g/r" -q
bad f24-set-long "--set with a 100 kB value" -- "$F" run "$Q" --set "name=$(head -c 100000 /dev/zero | tr '\0' a)" --out "$T/g/r" -q

# ---- scenario files
bad f25-scn-dir "run a folder as scenario" -- "$F" run "$T/sc" --out "$T/g/r" -q
bad f26-scn-devzero "run /dev/zero as scenario (at once)" -- "$F" run /dev/zero --out "$T/g/r" -q
bad f27-scn-fifo "run a FIFO as scenario (no blocking)" -- "$F" run "$T/fifo" --out "$T/g/r" -q
: >"$T/empty.yaml"
bad f28-scn-empty "run an empty scenario" -- "$F" run "$T/empty.yaml" --out "$T/g/r" -q
head -c 4096 /dev/urandom >"$T/binary.yaml"
bad f29-scn-binary "run a binary file: one clean line" -- "$F" run "$T/binary.yaml" --out "$T/g/r" -q
{
  echo 'version: 1'; echo 'name: bomb'
  echo 'a: &a ["x","x","x","x","x","x","x","x","x","x"]'
  p=a; for n in b c d e f g h i j; do echo "$n: &$n [*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p,*$p]"; p=$n; done
} >"$T/bomb.yaml"
bad f30-scn-bomb "a billion-laughs alias bomb is refused quickly" -- "$F" run "$T/bomb.yaml" --out "$T/g/r" -q
python3 -c 'print("version: 1\nname: deep\nx: " + "["*100000 + "]"*100000)' >"$T/deep.yaml"
bad f31-scn-deep "100000-deep nesting: refused, no stack overflow" -- "$F" run "$T/deep.yaml" --out "$T/g/r" -q
sed 's/^duration_s: 600/duration_s: 600\nduration_s: 5/' "$Q" >"$T/dupkey.yaml"
bad f32-scn-dupkey "a duplicate key is refused, located" --located 'dupkey.yaml:[0-9]+:[0-9]+' -- "$F" run "$T/dupkey.yaml" --out "$T/g/r" -q
sed 's/^version: 1/version: 2/' "$Q" >"$T/v2.yaml"
bad f33-scn-version "version: 2 is refused, located" --located 'v2.yaml:[0-9]+:[0-9]+' -- "$F" run "$T/v2.yaml" --out "$T/g/r" -q
sed 's/^name: quickstart/name: "..\/..\/escape"/' "$Q" >"$T/sc/escape.yaml"
if want f34-scn-name-traversal; then
  mkdir -p "$T/nt/a/b"
  (cd "$T/nt/a/b" && timeout 20 "$F" run "$T/sc/escape.yaml" "${QS[@]}" -q >/dev/null 2>"$T/nt/e"; echo $? >"$T/nt/rc")
  esc=$(find "$T/nt" -maxdepth 2 -name escape | head -1)
  check f34-scn-name-traversal "name: ../../escape does not write outside out/" \
    "$([ -z "$esc" ] && echo 1 || echo 0)" "exit $(cat "$T/nt/rc"), wrote $esc"
fi
sed 's/^training:/training:\n\tworkload: x/' "$Q" >"$T/tab.yaml"
bad f35-scn-tab "a tab in indentation: located" --located 'tab.yaml:[0-9]+' -- "$F" run "$T/tab.yaml" --out "$T/g/r" -q
sed 's/^duration_s: 600/duration_s: 6e2x/' "$Q" >"$T/numtext.yaml"
bad f36-scn-number-text "duration_s: 6e2x is refused, located with the key" --located 'numtext.yaml:[0-9]+:[0-9]+.*duration_s' -- "$F" run "$T/numtext.yaml" --out "$T/g/r" -q
sed 's/workload: resnet50/workload: resnet5000/' "$Q" >"$T/badwl.yaml"
bad f37-scn-workload "an unknown workload is located under its key" --located 'badwl.yaml:[0-9]+:[0-9]+.*inference' -- "$F" run "$T/badwl.yaml" --out "$T/g/r" -q
sed 's/model: orin-agx-64gb/model: toaster/' "$Q" >"$T/baddev.yaml"
bad f38-scn-device "an unknown device is located" --located 'baddev.yaml:[0-9]+:[0-9]+' -- "$F" run "$T/baddev.yaml" --out "$T/g/r" -q
bad f39-scn-table-missing "a perf_model table that does not exist" -- "$F" run "$Q" "${QS[@]}" --set "device.perf_model.table=$T/nope.csv" --out "$T/g/r" -q
bad f40-scn-table-fifo "a perf_model table that is a FIFO (no blocking)" -- "$F" run "$Q" "${QS[@]}" --set "device.perf_model.table=$T/fifo" --out "$T/g/r" -q
printf 'version: 1\nname: x\r\nseed: 7\r\n' >"$T/crlf-partial.yaml"
bad f41-scn-incomplete "a scenario missing required keys: one line" -- "$F" run "$T/crlf-partial.yaml" --out "$T/g/r" -q

# ---- run's output folder
mkdir -p "$T/g/foreign"
echo keep >"$T/g/foreign/notes.txt"
bad f42-out-foreign "run --out a folder with a foreign file: refused, untouched" --guard "$T/g/foreign" -- "$F" run "$Q" "${QS[@]}" --out "$T/g/foreign" -q
bad f43-out-root "run --out / is refused" -- "$F" run "$Q" "${QS[@]}" --out / -q
bad f44-out-empty "run --out '' is refused" -- "$F" run "$Q" "${QS[@]}" --out '' -q
bad f45-out-devnull "run --out "$DEVNULL" is refused" --guard "$DEVNULL" -- "$F" run "$Q" "${QS[@]}" --out "$DEVNULL" -q
bad f46-out-input-folder "run --out the scenario's own folder is refused" --guard "$T/sc" -- "$F" run "$Q" "${QS[@]}" --out "$T/sc" -q
ln -sfn "$T/g/foreign" "$T/g/symfolder"
bad f47-out-symlink "run --out a symlink to a foreign folder: refused, untouched" --guard "$T/g/foreign" -- "$F" run "$Q" "${QS[@]}" --out "$T/g/symfolder" -q
echo keep >"$T/g/afile"
bad f48-out-file "run --out a regular file is refused, untouched" --guard "$T/g/afile" -- "$F" run "$Q" "${QS[@]}" --out "$T/g/afile" -q
mkdir -p "$T/g/ro" && chmod 555 "$T/g/ro"
if [ "$(id -u)" != 0 ]; then
  bad f49-out-readonly "run --out in a read-only folder" -- "$F" run "$Q" "${QS[@]}" --out "$T/g/ro/x" -q
fi
chmod 755 "$T/g/ro"
if want f50-out-newline; then
  xrun "$F" run "$Q" "${QS[@]}" --out $'a\nb' -q
  check f50-out-newline "run --out with a newline in the name: written (0) or one clean line (2)" \
    "$( { [ "$RC" = 0 ] || { [ "$RC" = 2 ] && one_line_err; }; } && echo 1 || echo 0)" "exit $RC: $(errsum)"
  rm -rf "$W"/$'a\nb'
fi

# ---- determinism
if want f51-run-same-bytes; then
  xrun "$F" run "$Q" --set duration_s=5 --set 'inference[0].arrivals.process=poisson' --out "$T/d1" -q
  xrun "$F" run "$Q" --set duration_s=5 --set 'inference[0].arrivals.process=poisson' --out "$T/d2" -q
  diffs=$(for f in summary.json requests.csv minibatches.csv power.csv trace.json epochs.csv; do cmp -s "$T/d1/$f" "$T/d2/$f" || echo "$f"; done | tr '\n' ' ')
  check f51-run-same-bytes "run twice with one seed: the same bytes (run.json aside)" "$([ -z "$diffs" ] && [ -s "$T/d1/summary.json" ] && echo 1 || echo 0)" "differ: $diffs"
  nf=$(nonfinite "$T"/d1/*.csv "$T/d1/summary.json")
  check f52-run-finite "run outputs hold no nan/inf" "$([ -z "$nf" ] && echo 1 || echo 0)" "$nf"
fi
if want f53-sweep-threads; then
  xrun "$F" sweep "$T/tiny.yaml" --out "$T/j1.csv" -q -j1
  xrun "$F" sweep "$T/tiny.yaml" --out "$T/j2.csv" -q -j2
  check f53-sweep-threads "sweep -j1 and -j2: the same bytes" "$(cmp -s "$T/j1.csv" "$T/j2.csv" && echo 1 || echo 0)" "differ"
  nf=$(nonfinite "$T/j1.csv")
  check f54-sweep-finite "sweep CSV holds no nan/inf" "$([ -z "$nf" ] && echo 1 || echo 0)" "$nf"
fi
if want f55-optimize-same-bytes; then
  xrun "$F" optimize "$SC/optimize-measured.yaml" --set duration_s=5 --out "$T/o1"
  xrun "$F" optimize "$SC/optimize-measured.yaml" --set duration_s=5 --out "$T/o2"
  check f55-optimize-same-bytes "optimize twice: the same optimize.json" "$(cmp -s "$T/o1/optimize.json" "$T/o2/optimize.json" && [ -s "$T/o1/optimize.json" ] && echo 1 || echo 0)" "exit $RC, differ"
  nf=$(nonfinite "$T/o1/optimize.json")
  check f56-optimize-finite "optimize.json holds no nan/inf" "$([ -z "$nf" ] && echo 1 || echo 0)" "$nf"
fi
if want f57-predict-nn-same-bytes; then
  xrun "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --sample 30 --predictor nn --seed 5 --out "$T/n1.csv"
  r1=$RC
  xrun "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --sample 30 --predictor nn --seed 5 --out "$T/n2.csv"
  check f57-predict-nn-same-bytes "predict nn with one seed twice: the same bytes" "$([ "$r1$RC" = 00 ] && cmp -s "$T/n1.csv" "$T/n2.csv" && echo 1 || echo 0)" "exits $r1/$RC"
fi
if want f58-profile-same-bytes; then
  xrun "$F" profile --workloads resnet18,lstm --modes MAXN,MODE_15W --out "$T/pp1.csv" -q
  xrun "$F" profile --workloads resnet18,lstm --modes MAXN,MODE_15W --out "$T/pp2.csv" -q
  check f58-profile-same-bytes "profile twice: the same bytes" "$([ "$RC" = 0 ] && cmp -s "$T/pp1.csv" "$T/pp2.csv" && echo 1 || echo 0)" "exit $RC: $(errsum)"
fi
if want f59-validate-same-bytes; then
  xrun "$F" validate "$Q" --duration-s 1 --repeats 2 --out "$T/va" -q --seed 3 --noise 0
  xrun "$F" validate "$Q" --duration-s 1 --repeats 2 --out "$T/vb" -q --seed 3 --noise 0
  check f59-validate-profile-same "validate twice: the same inputs/profile.csv" "$([ "$RC" = 0 ] && cmp -s "$T/va/inputs/profile.csv" "$T/vb/inputs/profile.csv" && echo 1 || echo 0)" "exit $RC"
  nf=$(nonfinite "$T/va/comparison.json" "$T/va/comparison.md")
  check f60-validate-finite "validate comparison holds no nan/inf" "$([ -z "$nf" ] && echo 1 || echo 0)" "$nf"
fi

# ---- predict
bad f61-predict-no-fit "predict without --fit" -- "$F" predict --at "$T/p441.csv"
bad f62-predict-sample0 "predict --sample 0" -- "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --sample 0
bad f63-predict-sample-neg "predict --sample -3" -- "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --sample -3
bad f64-predict-sample-big "predict --sample larger than the file" -- "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --sample 100000
bad f65-predict-predictor "predict --predictor crystal-ball" -- "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --predictor crystal-ball
bad f66-predict-phase "predict --phase sleeping" -- "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --phase sleeping
bad f67-predict-bs-none "predict --batch-size 3 (no such rows)" -- "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --batch-size 3
bad f68-predict-workload "predict --workload toaster" -- "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --workload toaster
head -3 "$T/p441.csv" >"$T/hdr.csv"
bad f69-predict-header-only "predict --fit a header-only CSV" -- "$F" predict --fit "$T/hdr.csv" --at "$T/p441.csv"
awk -F, -v OFS=, 'NR==6{$9="abc"} {print}' "$T/p441.csv" >"$T/badcell.csv"
bad f70-predict-bad-cell "predict --fit with a text cell: located at line 6" --located 'badcell.csv:6' -- "$F" predict --fit "$T/badcell.csv" --at "$T/p441.csv"
awk -F, -v OFS=, 'NR==8{NF=5} {print}' "$T/p441.csv" >"$T/short.csv"
bad f71-predict-short-row "predict --fit with a short row: located at line 8" --located 'short.csv:8' -- "$F" predict --fit "$T/short.csv" --at "$T/p441.csv"
bad f72-predict-weights-devzero "predict --weights /dev/zero" -- "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --weights /dev/zero --sample 20
bad f73-predict-save-devnull "predict --save-weights "$DEVNULL" is refused" --guard "$DEVNULL" -- "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --predictor nn --sample 20 --save-weights "$DEVNULL"
bad f74-predict-save-input "predict --save-weights its own --fit is refused" --guard "$T/g/my.csv" -- "$F" predict --fit "$T/g/my.csv" --at "$T/p441.csv" --predictor nn --sample 20 --save-weights "$T/g/my.csv"
bad f75-predict-min-steps "predict --min-steps 1e12 refused (no hang)" -- "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --predictor nn --sample 20 --min-steps 1000000000000
echo keep >"$T/g/notpred.csv"
bad f76-predict-out-foreign "predict --out a file it did not write is refused" --guard "$T/g/notpred.csv" -- "$F" predict --fit "$T/p441.csv" --at "$T/p441.csv" --sample 20 --out "$T/g/notpred.csv"

# ---- profile
bad f77-profile-noworkloads "profile without --workloads" -- "$F" profile --out "$T/g/pd.csv" -q
bad f78-profile-workload "profile --workloads toaster" -- "$F" profile --workloads toaster --out "$T/g/pd.csv" -q
bad f79-profile-repeats0 "profile --repeats 0" -- "$F" profile --workloads resnet18 --modes MAXN --repeats 0 --out "$T/g/pd.csv" -q
bad f80-profile-repeats-huge "profile --repeats 1e10: refused (no hang)" -- "$F" profile --workloads resnet18 --modes MAXN --repeats 10000000000 --out "$T/g/pd.csv" -q
bad f81-profile-discard-neg "profile --discard -1" -- "$F" profile --workloads resnet18 --modes MAXN --discard -1 --out "$T/g/pd.csv" -q
bad f82-profile-mode-bogus "profile --modes MAXNN" -- "$F" profile --workloads resnet18 --modes MAXNN --out "$T/g/pd.csv" -q
bad f83-profile-mode-cores "profile --modes 99/1000/1000/3199 (99 cores)" -- "$F" profile --workloads resnet18 --modes 99/1000/1000/3199 --out "$T/g/pd.csv" -q
bad f84-profile-mode-nan "profile --modes 8/nan/1000/3199" -- "$F" profile --workloads resnet18 --modes 8/nan/1000/3199 --out "$T/g/pd.csv" -q
bad f85-profile-grid "profile --modes grid:nowhere" -- "$F" profile --workloads resnet18 --modes grid:nowhere --out "$T/g/pd.csv" -q
bad f86-profile-settle-nan "profile --settle-s nan" -- "$F" profile --workloads resnet18 --modes MAXN --settle-s nan --out "$T/g/pd.csv" -q
bad f87-profile-window-neg "profile --window-s -1" -- "$F" profile --workloads resnet18 --modes MAXN --window-s -1 --out "$T/g/pd.csv" -q
bad f88-profile-phase "profile --phases napping" -- "$F" profile --workloads resnet18 --phases napping --out "$T/g/pd.csv" -q
bad f89-profile-bs-text "profile --batch-sizes 16,x" -- "$F" profile --workloads resnet18 --batch-sizes 16,x --out "$T/g/pd.csv" -q
bad f90-profile-device "profile --device toaster" -- "$F" profile --workloads resnet18 --device toaster --out "$T/g/pd.csv" -q
mkdir -p "$T/g/pdir2"
bad f91-profile-out-dir "profile --out a folder" --guard "$T/g/pdir2" -- "$F" profile --workloads resnet18 --modes MAXN --out "$T/g/pdir2" -q
bad f92-profile-out-foreign "profile --out a file it did not write" --guard "$T/g/notpred.csv" -- "$F" profile --workloads resnet18 --modes MAXN --out "$T/g/notpred.csv" -q
if want f93-profile-int; then
  interrupted f93-profile-int "SIGINT during a wall-clock profile: 130, nothing written" INT 1 130 "$T/g" -- \
    "$F" profile --workloads resnet50 --modes MAXN --repeats 1000 --clock wall --out "$T/g/pint.csv"
  check f93b-profile-int-nofile "the interrupted profile wrote no CSV" "$([ ! -e "$T/g/pint.csv" ] && echo 1 || echo 0)" "pint.csv exists"
fi
if want f94-profile-json; then
  xrun "$F" profile --workloads resnet18 --modes MAXN --out "$T/g/pj.csv" --json -q
  ok=$(python3 -c 'import json,sys; json.load(open(sys.argv[1])); print(1)' "$T/out" 2>/dev/null || echo 0)
  check f94-profile-json "profile --json prints one JSON document" "$([ "$RC" = 0 ] && [ "$ok" = 1 ] && echo 1 || echo 0)" "exit $RC, json=$ok"
  rm -f "$T/g/pj.csv"
fi

# ---- calibrate
bad f95-cal-device "calibrate --device toaster" -- "$F" calibrate --device toaster -q
bad f96-cal-reference "calibrate --reference /nonexistent" -- "$F" calibrate --reference /nonexistent -q
bad f97-cal-reference-file "calibrate --reference a file" -- "$F" calibrate --reference "$T/p441.csv" -q
bad f98-cal-holdout-range "calibrate --modes --holdout 1.5" -- "$F" calibrate --modes --holdout 1.5 -q
bad f99-cal-holdout-nan "calibrate --modes --holdout nan" -- "$F" calibrate --modes --holdout nan -q
bad f100-cal-holdout-nomodes "calibrate --holdout without --modes" -- "$F" calibrate --holdout 0.2 -q
bad f101-cal-out-scenario "calibrate --out a scenario YAML is refused" --guard "$T/sc/poisson.yaml" -- "$F" calibrate --out "$T/sc/poisson.yaml" -q
mkdir -p "$T/g/cdir" && echo keep >"$T/g/cdir/orin-agx-64gb.yaml"
bad f102-cal-out-foreign-dir "calibrate --out a folder whose <device>.yaml is foreign" --guard "$T/g/cdir" -- "$F" calibrate --out "$T/g/cdir" -q
if want f103-cal-same-bytes; then
  xrun "$F" calibrate --out "$T/cal1.yaml" -q
  xrun "$F" calibrate --out "$T/cal2.yaml" -q
  check f103-cal-same-bytes "calibrate twice: the same bytes, no nan" "$([ "$RC" = 0 ] && cmp -s "$T/cal1.yaml" "$T/cal2.yaml" && [ -z "$(nonfinite "$T/cal1.yaml")" ] && echo 1 || echo 0)" "exit $RC: $(errsum)"
  xrun "$F" calibrate --out "$T/cal1.yaml" -q
  check f104-cal-replace-own "calibrate may replace its own earlier output" "$([ "$RC" = 0 ] && echo 1 || echo 0)" "exit $RC: $(errsum)"
fi

# ---- validate
bad f105-val-duration0 "validate --duration-s 0" -- "$F" validate "$Q" --duration-s 0 --out "$T/g/v" -q
bad f106-val-duration-nan "validate --duration-s nan" -- "$F" validate "$Q" --duration-s nan --out "$T/g/v" -q
bad f107-val-duration-huge "validate --duration-s 1e308 (refused, no hang)" -- "$F" validate "$Q" --duration-s 1e308 --out "$T/g/v" -q
bad f108-val-repeats0 "validate --repeats 0" -- "$F" validate "$Q" --repeats 0 --duration-s 1 --out "$T/g/v" -q
bad f109-val-out-devnull "validate --out "$DEVNULL"" --guard "$DEVNULL" -- "$F" validate "$Q" --duration-s 1 --out "$DEVNULL" -q
bad f110-val-out-foreign "validate --out a foreign folder: untouched" --guard "$T/g/foreign" -- "$F" validate "$Q" --duration-s 1 --out "$T/g/foreign" -q
bad f111-val-out-input "validate --out the scenario's folder" --guard "$T/sc" -- "$F" validate "$Q" --duration-s 1 --out "$T/sc" -q
if want f112-val-json; then
  xrun "$F" validate "$Q" --duration-s 1 --repeats 2 --out "$T/g/vj" --json
  ok=$(python3 -c 'import json,sys; json.load(open(sys.argv[1])); print(1)' "$T/out" 2>/dev/null || echo 0)
  check f112-val-json "validate --json prints one JSON document on stdout" "$([ "$RC" = 0 ] && [ "$ok" = 1 ] && echo 1 || echo 0)" "exit $RC, json=$ok"
  rm -rf "$T/g/vj"
fi

# ---- devices, workloads
bad f113-dev-unknown "devices toaster" -- "$F" devices toaster
bad f114-dev-unknown-json "devices toaster --json" -- "$F" devices toaster --json
bad f115-dev-two "devices a b" -- "$F" devices orin-agx-64gb orin-agx-64gb
bad f116-dev-probe-devnull "devices --probe --out "$DEVNULL"" --guard "$DEVNULL" -- "$F" devices --probe --out "$DEVNULL"
bad f117-workloads-arg "workloads with an operand" -- "$F" workloads resnet50
if want f118-json-verbs; then
  bad_json=""
  for v in "devices" "devices orin-agx-64gb" "workloads"; do
    xrun "$F" $v --json
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" 2>/dev/null && [ "$RC" = 0 ] || bad_json="$bad_json [$v: exit $RC]"
    [ -z "$(nonfinite "$T/out")" ] || bad_json="$bad_json [$v: non-finite]"
  done
  check f118-json-verbs "devices, devices NAME, workloads --json: valid finite JSON" "$([ -z "$bad_json" ] && echo 1 || echo 0)" "$bad_json"
fi
if want f119-stdout-full; then
  (cd "$W" && timeout 20 "$F" workloads >/dev/full 2>"$T/err"); RC=$?
  check f119-stdout-full "workloads > /dev/full: a non-zero exit with a message, no crash" "$([ "$RC" != 0 ] && [ "$RC" -lt 128 ] && [ -s "$T/err" ] && echo 1 || echo 0)" "exit $RC: $(errsum)"
  (cd "$W" && timeout 20 "$F" run "$Q" "${QS[@]}" --out "$T/g/full" >/dev/full 2>"$T/err"); RC=$?
  check f120-run-stdout-full "run > /dev/full: non-zero exit, no crash" "$([ "$RC" != 0 ] && [ "$RC" -lt 128 ] && echo 1 || echo 0)" "exit $RC: $(errsum)"
  rm -rf "$T/g/full"
fi

# ---- sweep
mk_sweep() { # NAME SED-EXPR: a tiny.yaml variant
  sed "$2" "$T/tiny.yaml" >"$T/$1"
}
mk_sweep sw-step0.yaml 's/^power_budget_w:.*/power_budget_w: {from: 15, to: 45, step: 0}/'
bad f121-sweep-step0 "sweep range with step 0: refused, no hang" --located 'sw-step0.yaml:[0-9]+:[0-9]+' -- "$F" sweep "$T/sw-step0.yaml" --out "$T/g/x.csv" -q
mk_sweep sw-stepneg.yaml 's/^power_budget_w:.*/power_budget_w: {from: 15, to: 45, step: -5}/'
bad f122-sweep-stepneg "sweep range with a negative step" --located 'sw-stepneg.yaml:[0-9]+' -- "$F" sweep "$T/sw-stepneg.yaml" --out "$T/g/x.csv" -q
mk_sweep sw-tiny-step.yaml 's/^power_budget_w:.*/power_budget_w: {from: 15, to: 45, step: 1e-12}/'
bad f123-sweep-step-tiny "sweep range with step 1e-12 (3e13 points): refused quickly" -- "$F" sweep "$T/sw-tiny-step.yaml" --out "$T/g/x.csv" -q
mk_sweep sw-strat.yaml 's/^strategies:.*/strategies: [maxn, clairvoyant]/'
bad f124-sweep-strategy "sweep with an unknown strategy: located" --located 'sw-strat.yaml:[0-9]+:[0-9]+' -- "$F" sweep "$T/sw-strat.yaml" --out "$T/g/x.csv" -q
mk_sweep sw-nostrat.yaml 's/^strategies:.*/strategies: []/'
bad f125-sweep-empty-strategies "sweep with no strategies" -- "$F" sweep "$T/sw-nostrat.yaml" --out "$T/g/x.csv" -q
mk_sweep sw-wl.yaml 's/inference: mobilenet_v3}/inference: teapot}/'
bad f126-sweep-workload "sweep with an unknown workload: located" --located 'sw-wl.yaml:[0-9]+:[0-9]+' -- "$F" sweep "$T/sw-wl.yaml" --out "$T/g/x.csv" -q
mk_sweep sw-dyn1.yaml 's/dynamic: \[\[30, 90\]\]/dynamic: [[30]]/'
bad f127-sweep-dynamic-one "a dynamic case of one rate is refused" -- "$F" sweep "$T/sw-dyn1.yaml" --out "$T/g/x.csv" -q
mk_sweep sw-negbudget.yaml 's/^latency_budget_s:.*/latency_budget_s: [-0.5, nan]/'
bad f128-sweep-neg-budget "negative / nan latency budget" -- "$F" sweep "$T/sw-negbudget.yaml" --out "$T/g/x.csv" -q
mk_sweep sw-noise.yaml 's/^strategies:.*/strategies: [maxn]\nprofiler: {noise: 1e308}/'
bad f129-sweep-noise-huge "profiler noise 1e308 refused" -- "$F" sweep "$T/sw-noise.yaml" --out "$T/g/x.csv" -q
mk_sweep sw-maxmodes.yaml 's/^strategies:.*/strategies: [{name: random, max_modes: -1}]/'
bad f130-sweep-maxmodes-neg "strategy max_modes: -1 refused" -- "$F" sweep "$T/sw-maxmodes.yaml" --out "$T/g/x.csv" -q
bad f131-shard-zero "sweep --shard 0/2" -- "$F" sweep "$T/tiny.yaml" --shard 0/2 --out "$T/g/x.csv" -q
bad f132-shard-over "sweep --shard 3/2" -- "$F" sweep "$T/tiny.yaml" --shard 3/2 --out "$T/g/x.csv" -q
bad f133-shard-text "sweep --shard a/b" -- "$F" sweep "$T/tiny.yaml" --shard a/b --out "$T/g/x.csv" -q
bad f134-shard-div0 "sweep --shard 1/0" -- "$F" sweep "$T/tiny.yaml" --shard 1/0 --out "$T/g/x.csv" -q
if want f135-shard-more-than-configs; then
  xrun "$F" sweep "$T/tiny.yaml" --shard 13/20 --out "$T/g/e13.csv" -q
  check f135-shard-more-than-configs "sweep --shard 13/20 of 12 configurations: exit 0 (empty slice) or one line exit 2" \
    "$( { [ "$RC" = 0 ] || { [ "$RC" = 2 ] && one_line_err; }; } && echo 1 || echo 0)" "exit $RC: $(errsum)"
  rm -f "$T/g/e13.csv"
fi
bad f136-merge-none "sweep --merge without operands" -- "$F" sweep --merge --out "$T/g/m.csv"
bad f137-merge-out-is-shard "sweep --merge --out one of its shards" --guard "$T/s1.csv" -- "$F" sweep --merge --out "$T/s1.csv" "$T/s1.csv" "$T/s2.csv" "$T/s3.csv"
bad f138-merge-devzero "sweep --merge /dev/zero" -- "$F" sweep --merge --out "$T/g/m.csv" /dev/zero
bad f139-merge-no-out "sweep --merge without --out" -- "$F" sweep --merge "$T/s1.csv" "$T/s2.csv" "$T/s3.csv"
if want f140-sweep-threads-huge; then
  xrun "$F" sweep "$T/tiny.yaml" -j 100000000 --out "$T/g/x.csv" -q
  check f140-sweep-threads-huge "sweep -j 100000000: clamped (exit 0) or refused in one line (exit 2)" \
    "$( { [ "$RC" = 0 ] || { [ "$RC" = 2 ] && one_line_err; }; } && echo 1 || echo 0)" "exit $RC: $(errsum)"
  rm -f "$T/g/x.csv"
fi
interrupted f140b-run-int "SIGINT during a long virtual run: 130, a message, nothing left" INT 1 130 "$T/g" -- \
  "$F" run "$Q" --set duration_s=1000000 --out "$T/g/ri"
check f140c-run-int-nofolder "the interrupted run left no folder" "$([ ! -e "$T/g/ri" ] && echo 1 || echo 0)" "$(ls "$T/g/ri" 2>&1 | head -2)"
echo keep >"$T/g/notsweep.csv"
bad f141-sweep-out-foreign "sweep --out a CSV it did not write" --guard "$T/g/notsweep.csv" -- "$F" sweep "$T/tiny.yaml" --out "$T/g/notsweep.csv" -q
sed 's/^name: tiny/name: tiny\nidle_power_w: -5/' "$T/tiny.yaml" >"$T/sw-idle.yaml"
bad f142-sweep-idle-neg "idle_power_w: -5 refused" -- "$F" sweep "$T/sw-idle.yaml" --out "$T/g/x.csv" -q
mk_sweep sw-dup.yaml 's/^seed: 1/seed: 1\nseed: 2/'
bad f143-sweep-dup-key "a sweep with a duplicate key: located" --located 'sw-dup.yaml:[0-9]+:[0-9]+' -- "$F" sweep "$T/sw-dup.yaml" --out "$T/g/x.csv" -q

# ---- optimize
sed '/^search:/,$d' "$SC/optimize-measured.yaml" >"$T/sc/nosearch.yaml"
bad f144-opt-nosearch "optimize a scenario without search:" -- "$F" optimize "$T/sc/nosearch.yaml" --out "$T/g/on"
bad f145-opt-strategy "optimize with search.strategy bogus: located" --located '(optimize-measured.yaml:[0-9]+:[0-9]+|--set).*strategy' -- "$F" optimize "$SC/optimize-measured.yaml" --set search.strategy=bogus --out "$T/g/on"
bad f146-opt-maxmodes0 "optimize with search.max_modes=0" -- "$F" optimize "$SC/optimize-measured.yaml" --set search.max_modes=0 --out "$T/g/on"
bad f147-opt-bs-empty "optimize with search.batch_sizes=[]" -- "$F" optimize "$SC/optimize-measured.yaml" --set 'search.batch_sizes=[]' --out "$T/g/on"
bad f148-opt-bs-zero "optimize with search.batch_sizes=[0]" -- "$F" optimize "$SC/optimize-measured.yaml" --set 'search.batch_sizes=[0]' --out "$T/g/on"
bad f149-opt-reference "optimize --reference /nonexistent" -- "$F" optimize "$SC/optimize-measured.yaml" --reference /nonexistent --out "$T/g/on"
bad f150-opt-out-devnull "optimize --out "$DEVNULL"" --guard "$DEVNULL" -- "$F" optimize "$SC/optimize-measured.yaml" --out "$DEVNULL"
bad f151-opt-out-foreign "optimize --out a foreign folder: untouched" --guard "$T/g/foreign" -- "$F" optimize "$SC/optimize-measured.yaml" --out "$T/g/foreign"
bad f152-opt-seed "optimize --seed -5" -- "$F" optimize "$SC/optimize-measured.yaml" --seed -5 --out "$T/g/on"
bad f153-opt-noise "optimize with search.noise=1e308" -- "$F" optimize "$SC/optimize-measured.yaml" --set search.noise=1e308 --out "$T/g/on"

echo "$NPASS passed, $NFAIL failed"
[ "$NFAIL" = 0 ]
