// RunMeter: the device's own power meter over a plan's run, from its clock's start to its end
// (after any warm-up, before anything is written).
//
//   RunMeter meter(plan, {.summed_rails = plan.device().rails}, &std::cerr);
//   ScenarioRun r = std::move(plan).run(folder);
//   if (meter.reading()) ...;
#pragma once

#include <memory>
#include <optional>
#include <ostream>

#include "backends/hardware/power_meter.hpp"
#include "sim/app/run_plan.hpp"

namespace fulcrum::sim::app {

// Where no meter opens, says why on `notes` (when not null) and reads nothing. Set up before the
// run, read after it; it must outlive the run.
class RunMeter {
 public:
  RunMeter(RunPlan& plan, const backends::PowerMeterOptions& options, std::ostream* notes);
  RunMeter(const RunMeter&) = delete;
  RunMeter& operator=(const RunMeter&) = delete;

  // What it read over the run; nullopt without a meter or before the run has ended.
  const std::optional<backends::EnergyReading>& reading() const { return reading_; }
  // A meter opened and it measures (not the null meter).
  bool measures() const { return meter_ && meter_->measures(); }

 private:
  std::unique_ptr<backends::PowerMeter> meter_;
  std::optional<backends::EnergyReading> reading_;
};

}  // namespace fulcrum::sim::app
