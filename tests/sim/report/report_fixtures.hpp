// Hand-built scenarios, results and temporary directories shared by the report tests.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/runtime/run_result.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/temp_dir.hpp"

namespace fulcrum::sim::testing {

using fulcrum::testing::TempDir;

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

inline const std::vector<std::string>& orin_rails() {
  static const std::vector<std::string> rails{"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"};
  return rails;
}

inline Scenario small_scenario() {
  Scenario s;
  s.name = "report-test";
  s.seed = 7;
  s.duration_s = 3;
  s.training = TrainingSpec{};
  s.training->workload = "mobilenetv3-large";
  s.training->dataset = "gld23k";
  InferenceStreamSpec stream;
  stream.name = "resnet50-0";
  stream.workload = "resnet50";
  stream.batch_size = 2;
  stream.arrivals = FixedArrivals{100};
  s.inference.push_back(stream);
  s.budgets.latency_ms = 250;
  s.budgets.power_w = 30;
  s.outputs.power_sample_s = 1.0;
  return s;
}

inline RunResult small_result() {
  RunResult r;
  r.scenario = "report-test";
  r.seed = 7;
  r.duration_s = 3;
  r.device = "orin-agx-64gb";
  r.mode = models::PowerMode{12, 2201600, 1300500000, 3199000000, 8};
  r.gpu_sharing = "managed";
  r.gpu_sharing_variant = "windowed";
  TrainingResult t;
  t.workload = "mobilenetv3-large";
  t.dataset = "gld23k";
  t.batch_size = 16;
  t.minibatches = 30;
  t.samples = 480;
  t.minibatches_per_s = 10;
  t.samples_per_s = 160;
  t.fetch_stall_s = 0.25;
  t.epochs_completed = 0;
  t.gpu_busy_s = 2.4;
  r.training = t;
  StreamResult s;
  s.name = "resnet50-0";
  s.workload = "resnet50";
  s.batch_size = 2;
  s.arrived = 300;
  s.completed = 298;
  s.queued = 2;
  s.dropped = 0;
  s.batches = 149;
  s.throughput_per_s = 298.0 / 3;
  s.latency = LatencyStats{21.5, 20.25, 40.5, 55.125, 61};
  s.gpu_busy_s = 0.5;
  r.inference.push_back(s);
  r.power.rails = orin_rails();
  r.power.rail_energy_j = {45, 15, 12};
  r.power.rail_avg_w = {15, 5, 4};
  r.power.energy_j = 72;
  r.power.avg_w = 24;
  r.power.max_window_w = 26.5;
  r.gpu_utilization = 0.9666;
  r.budgets.latency_met = true;
  r.budgets.power_met = true;
  r.events_processed = 1234;
  return r;
}

}  // namespace fulcrum::sim::testing
