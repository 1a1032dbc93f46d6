#include "models/device/power_mode.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fulcrum::models {

std::string format_mhz(double mhz) {
  // Rounding to the kHz first hides binary noise such as 2201.6000000000004.
  const double rounded = std::round(mhz * 1e3) / 1e3;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", rounded == 0 ? 0.0 : rounded);
  std::string text(buf);
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

double oversubscribed_clock(double clock, double lost, double threads, double cores) {
  const double excess = std::max(0.0, threads / cores - 1);
  return std::max(clock - lost * excess, 0.25 * clock);
}

std::string PowerMode::label() const {
  return std::to_string(cores) + "c/" + format_khz_as_mhz(cpu_khz) + "/" +
         format_hz_as_mhz(gpu_hz) + "/" + format_hz_as_mhz(emc_hz) + " MHz";
}

}  // namespace fulcrum::models
