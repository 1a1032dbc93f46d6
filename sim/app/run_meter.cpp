#include "sim/app/run_meter.hpp"

#include "models/error.hpp"

namespace fulcrum::sim::app {

RunMeter::RunMeter(RunPlan& plan, const backends::PowerMeterOptions& options, std::ostream* notes) {
  try {
    meter_ = backends::make_power_meter(options);
  } catch (const Error& e) {
    if (notes != nullptr) *notes << "fulcrum: no meter over the whole run (" << e.what() << ")\n";
    return;
  }
  plan.set_clock_hooks([this] { meter_->start(); }, [this] { reading_ = meter_->stop(); });
}

}  // namespace fulcrum::sim::app
