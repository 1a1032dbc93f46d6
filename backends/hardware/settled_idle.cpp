#include "backends/hardware/settled_idle.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>

#include "models/error.hpp"

namespace fulcrum::backends {

namespace {

std::string format(const char* pattern, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, v);
  return buffer;
}

bool agree(double a, double b, double tolerance) {
  return std::abs(a - b) <= tolerance * std::max(std::abs(a), std::abs(b));
}

}  // namespace

SettledIdle measure_settled_idle(PowerMeter& meter, const IdleSettleOptions& options) {
  if (options.window.count() <= 0) throw Error("idle metering: the window must be longer than 0");
  if (!(options.tolerance >= 0)) throw Error("idle metering: the tolerance must be >= 0");
  const double window_s = std::chrono::duration<double>(options.window).count();
  const double max_s = std::chrono::duration<double>(options.max_settle).count();
  SettledIdle idle;
  double elapsed_s = 0;
  for (;;) {
    meter.start();
    if (options.sleep) {
      options.sleep(options.window);
    } else {
      std::this_thread::sleep_for(options.window);
    }
    idle.last = meter.stop();
    elapsed_s += std::max(idle.last.duration_s, window_s);
    idle.window_power_w.push_back(idle.last.average_power_w());
    const std::size_t n = idle.window_power_w.size();
    if (n >= 2 &&
        agree(idle.window_power_w[n - 1], idle.window_power_w[n - 2], options.tolerance)) {
      idle.metering.settled = true;
      break;
    }
    if (elapsed_s >= max_s) break;
  }
  idle.module_power_w = idle.window_power_w.back();
  for (double j : idle.last.rail_energy_j) {
    idle.rail_power_w.push_back(idle.last.duration_s > 0 ? j / idle.last.duration_s : 0);
  }
  IdleMetering& m = idle.metering;
  m.windows = static_cast<int>(idle.window_power_w.size());
  m.metered_s = elapsed_s;
  m.power_w = idle.module_power_w;
  const std::string how = std::to_string(m.windows) + " window(s) of " + format("%.2f", window_s) +
                          " s of " + meter.name();
  if (m.settled) {
    m.note = "idle metered after settling: the last two of " + how + " agreed within " +
             format("%.1f", options.tolerance * 100) + " % after " + format("%.1f", elapsed_s) +
             " s; idle " + format("%.1f", m.power_w) + " W";
  } else {
    const std::size_t n = idle.window_power_w.size();
    std::string apart;
    if (n >= 2) {
      const double a = idle.window_power_w[n - 2], b = idle.window_power_w[n - 1];
      apart = " (last two " + format("%.1f", a) + " W and " + format("%.1f", b) + " W, " +
              format("%.1f", std::abs(a - b) / std::max(std::abs(a), std::abs(b)) * 100) +
              " % apart)";
    }
    m.note = "idle did not settle within " + format("%.1f", max_s) + " s: " + how + apart +
             "; the last window, " + format("%.1f", m.power_w) +
             " W, is taken and may be above the device's settled idle";
  }
  return idle;
}

}  // namespace fulcrum::backends
