// The JSON a sweep prints with --json: its per-strategy summary (the figures `fulcrum sweep`
// prints as text) and the CSV it wrote.
//
//   out << sweep_json(report.summary, report.csv, report.shard, report.shards);
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include "sim/sweep/sweep_runner.hpp"

namespace fulcrum::sim {

// {"sweep", "configurations", "shard", "shards", "csv", "strategies": [{"strategy",
//  "configurations", "feasible", "met", "met_pct" | null, "mean_ratio", "p5_ratio", "mean_modes",
//  "profiling_hours", "mode_switches"}, ...]}
std::string sweep_json(const sweep::SweepSummary& summary, const std::filesystem::path& csv,
                       std::size_t shard, std::size_t shards);

}  // namespace fulcrum::sim
