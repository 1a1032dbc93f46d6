// measure_settled_idle: a device's idle power, metered only once it has settled. A GPU's power
// decays for seconds after a load (clocks and voltage step down, fans and temperature lag), so a
// single window right after the load reads near-load power as "idle". With nothing running, this
// meters consecutive windows until the module power of two successive windows agrees within a
// tolerance, or until a maximum settle time has passed (then the last window stands, flagged as
// not settled).
// What "agree" bounds: the change from one window to the next, not the distance to the final
// idle. For an exponential decay with time constant tau, successive windows shrink by
// q = exp(-window / tau), and the window taken is at most tolerance x q / (1 - q) above the
// final idle: within the tolerance when tau <= window / ln 2 (0.72 s for 0.5 s windows), about
// 7 % for tau = 2 s. A plateau that steps down later (clocks held up for a while after a load)
// passes as settled at the plateau.
//
//   SettledIdle idle = measure_settled_idle(meter);   // 0.5 s windows, 2 %, at most 15 s
//   if (!idle.metering.settled) std::cerr << idle.metering.note << "\n";
//   use(idle.last, idle.module_power_w);
#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include "backends/backend.hpp"
#include "backends/hardware/power_meter.hpp"

namespace fulcrum::backends {

struct IdleSettleOptions {
  std::chrono::nanoseconds window = std::chrono::milliseconds(500);  // > 0
  // Two successive windows agree when their module powers differ by at most this fraction of
  // the larger one (>= 0).
  double tolerance = 0.02;
  // Windows stop once this much has been metered, settled or not (at least one window is).
  std::chrono::nanoseconds max_settle = std::chrono::seconds(15);
  // Waits one window while the meter's window is open; empty: this thread sleeps. Tests pass a
  // fake that advances a fake meter's clock instead.
  std::function<void(std::chrono::nanoseconds)> sleep = {};
};

struct SettledIdle {
  EnergyReading last;                  // the window taken (the last one)
  std::vector<double> rail_power_w;    // its power per meter rail (PowerMeter::rail_names order)
  double module_power_w = 0;           // its module power
  std::vector<double> window_power_w;  // the module power of every window, in order
  IdleMetering metering;               // settled or not, windows, time, and a note saying so
};

// Meters `meter` (not running a window) over consecutive windows of `options.window` while
// nothing runs, until two successive windows agree or `options.max_settle` is reached. The time
// counted is each window's own duration (at least the window asked for). Error for a window of 0
// or a negative tolerance; the meter's errors pass through.
SettledIdle measure_settled_idle(PowerMeter& meter, const IdleSettleOptions& options = {});

}  // namespace fulcrum::backends
