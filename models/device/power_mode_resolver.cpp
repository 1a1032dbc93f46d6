#include "models/device/power_mode_resolver.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <string>

#include "models/error.hpp"

namespace fulcrum::models {

namespace {

// Tables come from decimal YAML text and requests from MHz x 1e3 / 1e6, so equal values may
// differ in the last bits; compare with a relative tolerance far below any table step.
double tolerance(double value) { return 1e-9 * std::max(std::abs(value), 1.0); }

[[maybe_unused]] bool ascending(const std::vector<double>& table) {
  return std::adjacent_find(table.begin(), table.end(), std::greater_equal<>()) == table.end();
}

bool in_table(const std::vector<double>& table, double value) {
  return std::any_of(table.begin(), table.end(),
                     [&](double t) { return std::abs(t - value) <= tolerance(t); });
}

int active_tpcs(const DeviceSpec& device, const Preset& preset) {
  const int slots = device.gpu_tpc_slots > 0 ? device.gpu_tpc_slots : device.gpu_tpcs;
  const int gated = std::popcount(preset.tpc_pg_mask);
  const int active = std::min(device.gpu_tpcs, slots - gated);
  if (active < 1 || (slots < 32 && (preset.tpc_pg_mask >> slots) != 0)) {
    throw InputError("preset '" + preset.name + "' of device '" + device.name + "': tpc_pg_mask " +
                     std::to_string(preset.tpc_pg_mask) + " does not fit " + std::to_string(slots) +
                     " TPC slots with at least one TPC on");
  }
  return active;
}

double capped(const DeviceSpec& device, const Preset& preset, const std::vector<double>& table,
              const std::optional<double>& cap, const char* what, double to_mhz) {
  assert(!table.empty());
  if (!cap) return table.back();
  if (auto v = floor_to_table(table, *cap)) return *v;
  throw InputError("preset '" + preset.name + "' of device '" + device.name + "' caps " + what +
                   " at " + format_mhz(*cap * to_mhz) + " MHz, below the table's lowest " +
                   format_mhz(table.front() * to_mhz) + " MHz");
}

// A requested frequency in MHz -> a table value; absent means the table's maximum.
double snapped(const std::vector<double>& table, const std::optional<double>& request_mhz,
               double unit_per_mhz, const char* field) {
  assert(!table.empty());
  if (!request_mhz) return table.back();
  // Zero or a negative request would otherwise be "near" a table whose bottom step is wide.
  if (*request_mhz > 0) {
    if (auto v = snap_nearest(table, *request_mhz * unit_per_mhz)) return *v;
  }
  throw InputError(std::string(field) + " " + format_mhz(*request_mhz) + " outside " +
                   format_mhz(table.front() / unit_per_mhz) + ".." +
                   format_mhz(table.back() / unit_per_mhz) + " MHz");
}

}  // namespace

std::optional<double> snap_nearest(const std::vector<double>& table, double value) {
  assert(!table.empty() && ascending(table));
  if (!std::isfinite(value)) return std::nullopt;
  const double tol = tolerance(value);
  if (table.size() == 1) {
    if (std::abs(value - table.front()) <= tolerance(table.front())) return table.front();
    return std::nullopt;
  }
  const std::size_t n = table.size();
  const double low_limit = table[0] - (table[1] - table[0]) / 2;
  const double high_limit = table[n - 1] + (table[n - 1] - table[n - 2]) / 2;
  if (value < low_limit - tol || value > high_limit + tol) return std::nullopt;
  auto above = std::lower_bound(table.begin(), table.end(), value);
  if (above == table.begin()) return table.front();
  if (above == table.end()) return table.back();
  const double hi = *above;
  const double lo = *(above - 1);
  return (hi - value) <= (value - lo) + tol ? hi : lo;
}

std::optional<double> floor_to_table(const std::vector<double>& table, double cap) {
  assert(ascending(table));
  if (std::isnan(cap)) return std::nullopt;
  std::optional<double> best;
  for (double t : table) {
    if (t <= cap + tolerance(cap)) best = t;
  }
  return best;
}

PowerMode resolve_preset(const DeviceSpec& device, std::string_view preset_name) {
  const Preset* preset = device.find_preset(preset_name);
  if (!preset) {
    std::string known;
    for (const Preset& p : device.presets) known += (known.empty() ? "" : ", ") + p.name;
    throw InputError("unknown preset '" + std::string(preset_name) + "' for device '" +
                     device.name + "' (known: " + (known.empty() ? "none" : known) + ")");
  }
  PowerMode mode;
  mode.cores = preset->cores;
  mode.cpu_khz = capped(device, *preset, device.cpu_khz, preset->cpu_max_khz, "cpu", 1e-3);
  mode.gpu_hz = capped(device, *preset, device.gpu_hz, preset->gpu_max_hz, "gpu", 1e-6);
  mode.emc_hz = capped(device, *preset, device.emc_hz, preset->emc_max_hz, "emc", 1e-6);
  mode.gpu_tpcs = active_tpcs(device, *preset);
  if (mode.cores < 1 || mode.cores > device.cpu_cores) {
    throw InputError("preset '" + preset->name + "' of device '" + device.name + "': cores " +
                     std::to_string(mode.cores) + " outside 1.." +
                     std::to_string(device.cpu_cores));
  }
  return mode;
}

PowerMode resolve_request(const DeviceSpec& device, const ModeRequest& request) {
  PowerMode mode;
  mode.cores = request.cores.value_or(device.cpu_cores);
  if (mode.cores < 1 || mode.cores > device.cpu_cores) {
    throw InputError("cores " + std::to_string(mode.cores) + " outside 1.." +
                     std::to_string(device.cpu_cores));
  }
  mode.cpu_khz = snapped(device.cpu_khz, request.cpu_mhz, 1e3, "cpu_mhz");
  mode.gpu_hz = snapped(device.gpu_hz, request.gpu_mhz, 1e6, "gpu_mhz");
  mode.emc_hz = snapped(device.emc_hz, request.emc_mhz, 1e6, "emc_mhz");
  mode.gpu_tpcs = device.gpu_tpcs;
  return mode;
}

PowerMode max_mode(const DeviceSpec& device) {
  assert(!device.cpu_khz.empty() && !device.gpu_hz.empty() && !device.emc_hz.empty());
  return PowerMode{device.cpu_cores, device.cpu_khz.back(), device.gpu_hz.back(),
                   device.emc_hz.back(), device.gpu_tpcs};
}

PowerMode default_mode(const DeviceSpec& device) {
  return resolve_preset(device, device.default_preset);
}

bool is_valid_mode(const DeviceSpec& device, const PowerMode& mode) {
  return mode.cores >= 1 && mode.cores <= device.cpu_cores && mode.gpu_tpcs >= 1 &&
         mode.gpu_tpcs <= device.gpu_tpcs && in_table(device.cpu_khz, mode.cpu_khz) &&
         in_table(device.gpu_hz, mode.gpu_hz) && in_table(device.emc_hz, mode.emc_hz);
}

}  // namespace fulcrum::models
