// MeasuredBackend: a Backend whose completions are measurements of a real device. Beside
// Backend's questions it answers the hardware-only ones that device.json and the verbs' reports
// need (the meter that measures its items, the GPU as the driver names it), so that nothing asks
// a backend's name or casts it to a concrete class: Backend::measured() is this object or nullptr.
//
//   if (const MeasuredBackend* m = backend.measured()) note(m->gpu_name(), m->meter().name());
#pragma once

#include <string>

#include "backends/backend.hpp"
#include "backends/hardware/power_meter.hpp"

namespace fulcrum::backends {

class MeasuredBackend : public Backend {
 public:
  const MeasuredBackend* measured() const final { return this; }
  bool runs_in_real_time() const override { return true; }

  // The meter that measures this backend's items (a NullPowerMeter where none can be read).
  virtual const PowerMeter& meter() const = 0;
  // The GPU as its driver names it ("NVIDIA H100 80GB HBM3", "Orin (nvgpu)").
  virtual std::string gpu_name() const = 0;
};

}  // namespace fulcrum::backends
