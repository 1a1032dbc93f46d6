// The ranges of a scenario's values (docs/SCENARIOS.md), in one place for the loader that refuses
// what lies outside them and for the runtime parts that must not run with it. They are chosen so
// that every accepted value keeps the run's arithmetic exact and finite: simulated time is int64
// nanoseconds (sim/engine/time.hpp; 2^63 ns is about 9.2e18 ns, 292 years). The times a run
// derives from the scenario -- its end, an arrival plus max_wait_ms, a window's or a sample's
// end -- stay below 3e16 ns; a native-sharing completion is an item's own duration stretched by
// at most 1001 x (1 + kMaxStreams), which stays finite for items shorter than 1.4e14 ns.
#pragma once

#include <cstdint>

namespace fulcrum::sim::limits {

// Times. The shortest span is one nanosecond (shorter would round to 0 ns: an empty run, a timer
// or a sampling period that never advances); the longest is the longest run.
inline constexpr double kMinSpanS = 1e-9;
inline constexpr double kMaxDurationS = 1e7;  // 1e16 ns, about 116 days
inline constexpr double kMinSpanMs = 1e-6;
inline constexpr double kMaxSpanMs = 1e10;
// Sampling periods and power-budget windows: at most this many in one run, so that neither the
// power meter's windows nor power.csv's rows can run into the trillions.
inline constexpr double kMaxPeriodsPerRun = 1e8;

// Native time-slicing. A slice of at least 1 ns and at most 1 s; a context switch at most 1 s
// and at most 1000 slices long, so that contexts always get at least 1/1001 of the GPU and an
// item's completion, stretched by that share and the number of contexts, stays a finite time.
inline constexpr double kMinTimesliceUs = 1e-3;
inline constexpr double kMaxTimesliceUs = 1e6;
inline constexpr double kMaxContextSwitchUs = 1e6;
inline constexpr double kMaxSwitchPerSlice = 1000;

// Managed windowed sharing: the risk per training minibatch that a Poisson stream's batch becomes
// ready while it runs. Above 1/2 the rule would train through most batches; below 1e-12 the
// quantile it needs is beyond double precision's use.
inline constexpr double kMinWindowRisk = 1e-12;
inline constexpr double kMaxWindowRisk = 0.5;

// Rates, requests/s: at most one request per microsecond, at least one per 1e6 s (a slower
// stream's gaps would exceed the longest run by orders of magnitude).
inline constexpr double kMinRatePerS = 1e-6;
inline constexpr double kMaxRatePerS = 1e6;

// Counts.
inline constexpr int kMaxBatchSize = 1 << 16;
inline constexpr int kMaxEpochs = 1'000'000;
inline constexpr int kMaxWorkers = 256;
inline constexpr int kMaxPrefetchFactor = 1024;
// training.dataloader.dataset_scale: a what-if factor on the dataset's samples and bytes. The
// data-pipeline model keeps a few bytes per sample, so the scaled dataset is kept below
// kMaxPipelineSamples samples (checked when the run is prepared).
inline constexpr double kMinDatasetScale = 1e-3;
inline constexpr double kMaxDatasetScale = 1e3;
inline constexpr double kMaxPipelineSamples = 1e7;
// device.ram_gb: a what-if RAM size in GB.
inline constexpr double kMinRamGb = 0.1;
inline constexpr double kMaxRamGb = 4096;
inline constexpr int kMaxStreams = 64;
inline constexpr int kMaxSegments = 10'000;
inline constexpr int kMaxProfileTables = 64;
inline constexpr int kMaxSearchBatchSizes = 64;
inline constexpr int kMaxCores = 1024;

// Text: names (and the scenario name, which is a folder name) and paths, in bytes.
inline constexpr int kMaxNameBytes = 128;
inline constexpr int kMaxPathBytes = 4096;

}  // namespace fulcrum::sim::limits
