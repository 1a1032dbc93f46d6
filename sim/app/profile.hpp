// `fulcrum profile` as a function: measure each (workload, phase, batch size) at each power mode
// by the published method and write the profile CSV the `table` model reads (docs/HARDWARE.md).
//
//   ProfileReport r = profile({.workloads = {"resnet50"}, .out_csv = "p.csv"}, std::cerr);
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/app/profiling.hpp"
#include "sim/app/run_plan.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/report/profile_report.hpp"

namespace fulcrum::sim::app {

struct ProfileRequest {
  std::vector<std::string> workloads = {};  // catalog names
  std::vector<std::string> phases = {"training", "inference"};
  std::vector<int> batch_sizes = {16};
  std::optional<std::string> modes = std::nullopt;  // parse_modes text; absent: default mode
  std::string device = "orin-agx-64gb";
  BackendChoice backend = {};
  int repeats = 10, discard = 1;
  std::string dataset = "random";  // the CSV's dataset column
  std::filesystem::path out_csv = "profile.csv";
  SettleOptions settle = {};
  ClockOptions clocks = {};
  bool quiet = false;  // no status lines on `notes`
  std::string data_dir = default_data_dir();
};

// Every input and output is checked before any measurement (InputError); the clocks are
// restored at the end, on errors and on an interrupt (Interrupted: nothing written).
ProfileReport profile(const ProfileRequest& request, std::ostream& notes);

}  // namespace fulcrum::sim::app
