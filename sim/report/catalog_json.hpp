// The catalogs as JSON, for `fulcrum devices --json` and `fulcrum workloads --json`: the same
// facts as their tables, in SI units named in the keys.
#pragma once

#include <string>
#include <vector>

#include "models/device/device_spec.hpp"

namespace fulcrum::sim {

// {"devices": [{"name", "soc", "cpu_cores", "cpu_khz": [...], "gpu_hz": [...], "emc_hz": [...],
// "cuda_cores", "memory_gb", "presets": [{"name", "cores", ...}]}, ...]}
std::string devices_json(const std::vector<const models::DeviceSpec*>& devices);

// {"workloads": [{"name", "task", "parameters", "forward_flops_per_sample",
// "training_flops_per_sample", "kernels_per_minibatch": {"inference", "training"}}],
//  "datasets": [{"name", "samples", "bytes", "note"}]}
std::string workloads_json();

}  // namespace fulcrum::sim
