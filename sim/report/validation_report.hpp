// The comparison `fulcrum validate` reports: simulated vs measured, metric by metric (latency per
// stream, training throughput, power and energy), with the error of the simulation in % of the
// measured value, as JSON (comparison.json) and as a Markdown table (comparison.md). Where the
// device has a meter over the whole measured run, the simulation's power and energy are also
// compared with what that meter read (rows "... (device meter)"): the truest figure of what the
// device drew, idle gaps included.
//
//   Comparison c = compare_runs(simulated.result, measured.result, whole_run_meter);
//   std::cout << comparison_markdown(c, "quickstart", "cuda");
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/runtime/run_result.hpp"

namespace fulcrum::sim {

struct MetricComparison {
  std::string scope;   // "stream resnet50", "training", "power"
  std::string metric;  // "p99_latency_ms", "samples_per_s", "avg_power_w", ...
  std::optional<double> simulated;
  std::optional<double> measured;
  // (simulated - measured) / measured x 100; absent when either is absent or measured is 0.
  std::optional<double> error_pct;
};

// The device's own meter over the whole measured run (device.json "whole_run_meter").
struct DeviceMeterReading {
  double duration_s = 0;  // the meter's window: the run plus its start-up and teardown
  double energy_j = 0;
  double avg_power_w = 0;
};

struct Comparison {
  std::vector<MetricComparison> metrics;
  std::optional<DeviceMeterReading> device_meter;  // what the "(device meter)" rows compare with
  // The largest |error_pct| over the latency (p50, p99) and throughput metrics, and over all.
  std::optional<double> max_abs_latency_throughput_error_pct;
  std::optional<double> max_abs_error_pct;
};

// The error of `simulated` in % of `measured` (absent when either is, or measured is 0).
std::optional<double> error_pct(std::optional<double> simulated, std::optional<double> measured);

// Compares two runs of the same scenario (streams matched by name). With `device_meter`, two more
// rows after the run's own power and energy: scope "power", metrics "avg_power_w (device meter)"
// and "energy_j (device meter)", the simulation against the meter's figures.
Comparison compare_runs(const RunResult& simulated, const RunResult& measured,
                        const std::optional<DeviceMeterReading>& device_meter = std::nullopt);

std::string comparison_json(const Comparison& c);
std::string comparison_markdown(const Comparison& c, const std::string& scenario,
                                const std::string& backend);

}  // namespace fulcrum::sim
