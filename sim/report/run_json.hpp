// run.json: the facts of a run that are not deterministic (host, wall time, speed), kept out of
// every other output file so that those are byte-identical for the same scenario and seed.
//
//   RunInfo info{.wall_s = 0.021, .events_processed = result.events_processed,
//                .fulcrum_version = "0.1.0", .command_line = {argv, argv + argc}};
//   write_run_json(out_dir, info);   // out_dir/run.json, written atomically
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/simulator.hpp"

namespace fulcrum::sim {

struct RunInfo {
  double wall_s = 0;                   // host wall time of the run (simulation + outputs)
  std::uint64_t events_processed = 0;  // RunResult::events_processed
  std::string fulcrum_version;
  std::vector<std::string> command_line;  // argv as given
  std::string host;                       // empty: filled with gethostname()
  std::string backend = "sim";            // "sim" | "cuda"
  // How late events ran behind real time, for a wall-clock run (absent: a virtual-time run).
  std::optional<Lateness> lateness;
};

// The run.json document (events_per_s = events_processed / wall_s, null when wall_s is 0;
// `clock` "virtual" or "wall", and for a wall-clock run `lateness`).
std::string run_json(const RunInfo& info);

// Writes out_dir/run.json through a temporary + rename. Throws fulcrum::InputError when out_dir
// cannot be written.
void write_run_json(const std::filesystem::path& out_dir, const RunInfo& info);

}  // namespace fulcrum::sim
