# Thin wrapper over CMake. `make run` and `make test` do all set-up on a fresh machine.
BUILD_DIR ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
QUICKSTART ?= scenarios/quickstart.yaml

.PHONY: all deps build run test bench clean fuzz lint plots sweep sweep-plots study study-plots

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/CMakeCache.txt:
	@scripts/install-deps.sh
	cmake -S . -B $(BUILD_DIR) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD_DIR)/CMakeCache.txt
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	$(BUILD_DIR)/fulcrum run $(QUICKSTART) --out out/quickstart

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# Every bench_<folder> executable; extra Google Benchmark flags via BENCH_ARGS.
BENCH_ARGS ?= --benchmark_min_time=0.5
bench: build
	@for b in $$(find $(BUILD_DIR) -maxdepth 2 -type f -perm -u+x -name 'bench_*' | sort); do \
	  echo "== $$b"; $$b $(BENCH_ARGS) || exit 1; done

# Figures of a run (scripts/plot.py) as PNGs into the run's folder: `make plots OUT=out/my-run`
# (default: what `make run` writes). Extra options via PLOT_ARGS, e.g. PLOT_ARGS="--timeline-start 60".
# matplotlib comes from Debian (python3-matplotlib), so the script runs with Debian's Python.
OUT ?= out/quickstart
PLOT_PYTHON ?= /usr/bin/python3
plots:
	@test -f "$(OUT)/summary.json" || { echo "make plots: $(OUT) holds no Fulcrum run (no summary.json); run \`make run\` or pass OUT=DIR" >&2; exit 1; }
	@scripts/install-deps.sh --plots
	$(PLOT_PYTHON) scripts/plot.py "$(OUT)" $(PLOT_ARGS)

# The small sweep (scenarios/sweeps/small.yaml; SWEEP=FILE for another) into CSV, and its figures
# (scripts/sweep_plots.py: strategy comparison, objective ratio against modes profiled, and a
# throughput-power front) beside it; PLOT_ARGS="--format png,pdf" for vector PDFs as well.
SWEEP ?= scenarios/sweeps/small.yaml
CSV ?= out/sweep-small.csv
sweep: build
	$(BUILD_DIR)/fulcrum sweep $(SWEEP) --out $(CSV)

sweep-plots:
	@test -f "$(CSV)" || { echo "make sweep-plots: $(CSV) does not exist; run \`make sweep\` or pass CSV=FILE" >&2; exit 1; }
	@scripts/install-deps.sh --plots
	$(PLOT_PYTHON) scripts/sweep_plots.py "$(CSV)" $(PLOT_ARGS)

# A study of full runs (scenarios/studies/sharing.yaml; STUDY=FILE for another) into a folder, and
# its figures (scripts/study_plots.py: latency CDFs and a throughput-p99-power front) beside it.
STUDY ?= scenarios/studies/sharing.yaml
STUDY_OUT ?= out/study-sharing
study: build
	$(BUILD_DIR)/fulcrum study $(STUDY) --out $(STUDY_OUT)

study-plots:
	@test -f "$(STUDY_OUT)/study_summary.csv" || { echo "make study-plots: $(STUDY_OUT) holds no study; run \`make study\` or pass STUDY_OUT=DIR" >&2; exit 1; }
	@scripts/install-deps.sh --plots
	$(PLOT_PYTHON) scripts/study_plots.py "$(STUDY_OUT)" $(PLOT_ARGS)

# libFuzzer targets in build-fuzz (clang), FUZZ_SECONDS per target; not part of `make test`.
fuzz:
	scripts/fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD_DIR)

# clang-format and clang-tidy checks (scripts/lint.sh --fix reformats).
lint: build
	BUILD_DIR=$(BUILD_DIR) scripts/lint.sh
