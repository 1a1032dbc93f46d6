// PowerSink: where a part of a run that draws power of its own declares it. The run's power is
// the sum of sources -- the power mode's idle baseload, the GPU's work, and whatever else adds its
// own (dataloader workers decoding on the host CPU, say) -- each setting only its own per-rail
// share, from now on, whenever it changes. The runtime implements it; energy is integrated
// exactly per rail and per source, and every change of the total reaches the outputs.
//
//   PowerSource workers = sink.add_source("dataloader");   // before the run starts
//   sink.set_power(workers, rail_power_w);                  // at simulated now(), during it
#pragma once

#include <span>
#include <string>

#include "sim/runtime/power_meter.hpp"

namespace fulcrum::sim {

class PowerSink {
 public:
  virtual ~PowerSink() = default;

  // A new source drawing nothing until set; only before the run starts.
  virtual PowerSource add_source(std::string name) = 0;

  // From the simulator's now() on, `source` draws rail_power_w[r] on rail r (DeviceSpec::rails
  // order, watts added to what the other sources draw).
  virtual void set_power(PowerSource source, std::span<const double> rail_power_w) = 0;

  // Rails of the device: the size of every power vector.
  virtual std::size_t rail_count() const = 0;
};

}  // namespace fulcrum::sim
