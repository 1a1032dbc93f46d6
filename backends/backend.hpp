// Backend: executes one WorkItem and reports its Completion. Synchronous by design: work items
// are non-preemptive minibatches and scheduling decisions happen only at their boundaries.
// SimulatedBackend asks a PerfModel; the CUDA backend (backends/cuda/) runs real kernels.
#pragma once

#include "backends/work_item.hpp"
#include "models/device/device_spec.hpp"
#include "models/perf/perf_model.hpp"

namespace fulcrum::backends {

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const models::DeviceSpec& device() const = 0;
  virtual Completion execute(const WorkItem& item) = 0;
  // Per-rail power while nothing runs on the GPU in `mode`.
  virtual models::RailPower idle_power(const models::PowerMode& mode) = 0;
};

}  // namespace fulcrum::backends
