// The comparison `fulcrum validate` reports: simulated vs measured, metric by metric (latency per
// stream, training throughput, power and energy), with the error of the simulation in % of the
// measured value, as JSON (comparison.json) and as a Markdown table (comparison.md).
//
//   Comparison c = compare_runs(simulated.result, measured.result);
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

struct Comparison {
  std::vector<MetricComparison> metrics;
  // The largest |error_pct| over the latency (p50, p99) and throughput metrics, and over all.
  std::optional<double> max_abs_latency_throughput_error_pct;
  std::optional<double> max_abs_error_pct;
};

// The error of `simulated` in % of `measured` (absent when either is, or measured is 0).
std::optional<double> error_pct(std::optional<double> simulated, std::optional<double> measured);

// Compares two runs of the same scenario (streams matched by name).
Comparison compare_runs(const RunResult& simulated, const RunResult& measured);

std::string comparison_json(const Comparison& c);
std::string comparison_markdown(const Comparison& c, const std::string& scenario,
                                const std::string& backend);

}  // namespace fulcrum::sim
