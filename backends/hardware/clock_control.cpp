#include "backends/hardware/clock_control.hpp"

#include <exception>

namespace fulcrum::backends {

std::optional<models::PowerMode> ClockReading::mode() const {
  if (!online_cores || !cpu_khz || !gpu_hz || !emc_hz) return std::nullopt;
  models::PowerMode m;
  m.cores = *online_cores;
  m.cpu_khz = *cpu_khz;
  m.gpu_hz = *gpu_hz;
  m.emc_hz = *emc_hz;
  return m;
}

ClockGuard::~ClockGuard() {
  if (control_ == nullptr) return;
  try {
    control_->restore();
  } catch (const std::exception& e) {
    if (on_failure_) on_failure_(e.what());
  }
}

void ClockGuard::finish() {
  ClockControl* c = control_;
  control_ = nullptr;
  if (c != nullptr) c->restore();
}

}  // namespace fulcrum::backends
