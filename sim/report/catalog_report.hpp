// The catalogs as `fulcrum devices` and `fulcrum workloads` report them: typed reports, their
// JSON (`--json`: the same facts as the tables, in SI units named in the keys) and their tables.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "models/device/device_spec.hpp"

namespace fulcrum::sim {

struct DevicesReport {
  std::vector<models::DeviceSpec> devices;  // the catalog, or the one device asked for
  bool one = false;                         // a NAME was asked for: its full description
  // With `one`: the perf model a scenario naming none gets on it ("analytic-modes" or
  // "analytic") and why, in one sentence.
  std::string default_model;
  std::string default_model_reason;
  // With `one` and a cross-mode default: the workload phases it has fitted parameters for
  // ("resnet18 training", ...); every other one gets zero-shot parameters from its layer graph.
  std::vector<std::string> fitted_workloads;
  // With `one` and a cross-mode default whose calibration records its zero-shot check: one
  // clause per phase on how those zero-shot parameters did (models::zero_shot_check_clause).
  std::vector<std::string> zero_shot_check;
  // And one clause per phase on its few-shot figures: the same workloads refined from k of their
  // profiled modes (models::few_shot_check_clause).
  std::vector<std::string> few_shot_check;
};

// {"devices": [{"name", "soc", "cpu_cores", "cpu_khz": [...], "gpu_hz": [...], "emc_hz": [...],
// "gpu_tpcs", "cuda_cores", "memory_gb", "presets": [{"name", "cores", ...}]}, ...]}
std::string devices_json(const DevicesReport& report);
// One line per device; with `one`, the device's frequency tables, presets and mode grids.
std::string devices_text(const DevicesReport& report);

// `devices --probe`: the GPU at hand as a catalog device file.
struct ProbeReport {
  std::string yaml;                              // the device file's text
  std::optional<std::filesystem::path> written;  // where it went, with --out
};

struct WorkloadRow {
  std::string name, task;
  double parameters = 0;
  double forward_flops_per_sample = 0;
  double training_flops_per_sample = 0;  // forward + backward + update
  double inference_kernels = 0;          // launches per minibatch
  double training_kernels = 0;
  std::string source = "built-in";  // or the workload file it was read from
  std::vector<std::string> phases = {"training", "inference"};  // what a scenario may run
};
struct DatasetRow {
  std::string name;
  double samples = 0;
  std::optional<double> bytes;
  std::string note;
};
struct WorkloadsReport {
  std::vector<WorkloadRow> workloads;
  std::vector<DatasetRow> datasets;
};

// {"workloads": [{"name", "task", "parameters", "forward_flops_per_sample",
// "training_flops_per_sample", "kernels_per_minibatch": {"inference", "training"}, "source",
// "phases"}],
//  "datasets": [{"name", "samples", "bytes", "note"}]}
std::string workloads_json(const WorkloadsReport& report);
// The workloads table, a blank line, the datasets table (none when the report has no datasets:
// given files, `workloads` shows only them); below the workloads, one line per workload
// read from a file ("name: path") and per workload for one phase only.
std::string workloads_text(const WorkloadsReport& report);

}  // namespace fulcrum::sim
