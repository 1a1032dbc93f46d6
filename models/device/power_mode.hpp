// PowerMode: a resolved operating point (online cores, CPU, GPU and EMC frequency, active TPCs).
// Requests snap to the device's tables as the hardware does; see power_mode_resolver.hpp.
#pragma once

#include <compare>
#include <optional>
#include <string>

namespace fulcrum::models {

struct PowerMode {
  int cores = 0;       // online CPU cores
  double cpu_khz = 0;  // a value of DeviceSpec::cpu_khz
  double gpu_hz = 0;   // a value of DeviceSpec::gpu_hz
  double emc_hz = 0;   // a value of DeviceSpec::emc_hz
  int gpu_tpcs = 0;    // TPCs powered (all of them unless a preset's tpc_pg_mask gates some)

  auto operator<=>(const PowerMode&) const = default;

  // "12c/2201.6/1300.5/3199 MHz" -- cores / CPU / GPU / EMC, for reports and logs.
  std::string label() const;
};

// Frequencies in MHz as people write them, without float noise: 1300.5, 3199, 522.75
// (rounded to the kHz, trailing zeros dropped).
std::string format_mhz(double mhz);
inline std::string format_khz_as_mhz(double khz) { return format_mhz(khz / 1e3); }
inline std::string format_hz_as_mhz(double hz) { return format_mhz(hz / 1e6); }

// The CPU clock a core keeps when `threads` runnable threads share `cores` online cores and each
// thread beyond one per core costs every core `lost` of its clock (preemptions and the caches
// they refill come at the scheduler's rate, not the clock's): max(clock - lost x excess,
// clock / 4), excess = max(0, threads / cores - 1); `lost` in the unit of `clock`. The
// cross-mode model's data pipeline and the runtime's dataloader workers both run at it
// (docs/MODEL.md, docs/PIPELINE.md "CPU contention").
double oversubscribed_clock(double clock, double lost, double threads, double cores);

// A user's request, in MHz as people write it. An absent field means the device maximum (all
// cores, the table's highest frequency); a present one must be in the device's range.
// (The explicit std::nullopt lets designated initializers leave fields out under -Wextra.)
struct ModeRequest {
  std::optional<int> cores = std::nullopt;
  std::optional<double> cpu_mhz = std::nullopt;
  std::optional<double> gpu_mhz = std::nullopt;
  std::optional<double> emc_mhz = std::nullopt;
};

}  // namespace fulcrum::models
