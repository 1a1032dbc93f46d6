// What the GPU tests of the cuda backend share: the skip when no GPU answers, a data-centre GPU as
// a catalog entry would describe it, catalog workloads by name, and one power mode.
#pragma once

#include <iostream>
#include <string>

#include "backends/cuda/cuda_backend.hpp"
#include "models/device/device_spec.hpp"
#include "models/workload/workload_catalog.hpp"

namespace fulcrum::backends::cuda::gpu_test {

// True (and the skip marker printed) when no GPU answers the CUDA runtime.
inline bool no_gpu() {
  if (gpu_count() > 0) return false;
  std::cout << FULCRUM_SKIP_MARKER << " no GPU answers the CUDA runtime\n";
  return true;
}

// A data-centre GPU as a catalog entry would describe it: NVML's one rail.
inline models::DeviceSpec gpu_device() {
  models::DeviceSpec d;
  d.name = "test-gpu";
  d.cpu_cores = 1;
  d.cpu_khz = {1e6};
  d.gpu_hz = {1e9};
  d.emc_hz = {1e9};
  d.rails = {"GPU"};
  return d;
}

inline const models::Workload& workload(const std::string& name) {
  return models::workload_catalog().get(name);
}

inline models::PowerMode mode() { return {1, 1e6, 1e9, 1e9, 0}; }

}  // namespace fulcrum::backends::cuda::gpu_test
