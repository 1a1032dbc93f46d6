// PerfModel: time and per-rail power of one minibatch for (device, power mode, workload, phase,
// batch size). The seam between simulation and hardware: `analytic` (fitted roofline), `table`
// (a measured profile CSV with interpolation), later `powertrain`.
#pragma once

#include <string>
#include <vector>

#include "models/device/device_spec.hpp"
#include "models/device/power_mode.hpp"
#include "models/workload/phase_cost.hpp"
#include "models/workload/workload.hpp"

namespace fulcrum::models {

// How a prediction was obtained.
enum class Provenance { measured, interpolated, extrapolated, modelled };

inline const char* to_string(Provenance p) {
  switch (p) {
    case Provenance::measured:
      return "measured";
    case Provenance::interpolated:
      return "interpolated";
    case Provenance::extrapolated:
      return "extrapolated";
    case Provenance::modelled:
      return "modelled";
  }
  return "modelled";
}

struct PerfQuery {
  const DeviceSpec& device;
  const PowerMode& mode;
  const Workload& workload;
  Phase phase;
  int batch_size;
  // Share of one CPU core the process's host thread gets while the minibatch runs (CPU
  // contention with dataloader workers, other processes' host threads and the OS; docs/
  // PIPELINE.md "CPU contention"), in (0, 1]. Below 1 the host thread's launch and per-minibatch
  // work takes 1 / host_share as long. A measured profile (`table`) ignores it: the measurement
  // had its own contention.
  double host_share = 1.0;
};

// Power of each rail of DeviceSpec::rails, in that order; the module power is their sum.
struct RailPower {
  std::vector<double> power_w;
  double module_w() const {
    double s = 0;
    for (double p : power_w) s += p;
    return s;
  }
};

struct Prediction {
  double time_ms = 0;  // wall time of the minibatch on the GPU, launch overhead included
  RailPower power;     // average power per rail while it runs
  Provenance provenance = Provenance::modelled;
};

class PerfModel {
 public:
  virtual ~PerfModel() = default;
  virtual std::string name() const = 0;
  virtual Prediction predict(const PerfQuery& q) const = 0;
  // Power per rail while the GPU is idle in this mode (the baseload).
  virtual RailPower idle_power(const DeviceSpec& device, const PowerMode& mode) const = 0;
  // How the model's extrapolated figures for `phase` were checked against measurements, as one
  // clause for a report; empty where no check is recorded.
  virtual std::string extrapolation_check(Phase /*phase*/) const { return {}; }
  // For a workload whose figures the model extrapolates, the measured workload of its phase it
  // is most like and how that one's extrapolated figures did, as one clause for a report; empty
  // where the model records no such check.
  virtual std::string extrapolation_nearest(const Workload& /*workload*/, Phase /*phase*/) const {
    return {};
  }
};

}  // namespace fulcrum::models
