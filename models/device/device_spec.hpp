// DeviceSpec: one Jetson module as data (core counts, frequency tables, presets, rails), loaded
// from models/data/devices/<name>.yaml by sim/config. Frequencies are in the units the kernel
// writes them: CPU in kHz (cpufreq), GPU and EMC in Hz (devfreq / bpmp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fulcrum::models {

// An nvpmodel preset. Absent caps mean "uncapped" (the table's maximum).
struct Preset {
  std::string name;       // "MAXN", "MODE_30W"
  std::optional<int> id;  // nvpmodel id, where known
  int cores = 0;          // online CPU cores
  std::optional<double> cpu_max_khz;
  std::optional<double> gpu_max_hz;
  std::optional<double> emc_max_hz;
  std::uint32_t tpc_pg_mask = 0;  // bit i set = TPC i power-gated
  // nvpmodel's power budget for the preset (the 15 in MODE_15W), module power in W; absent where
  // NVIDIA publishes none (MAXN). A design target for the clock caps, not a limit the hardware
  // enforces: a heavy load may draw somewhat more (docs/MODEL.md, "Power envelope").
  std::optional<double> budget_w;
};

// A named grid of power modes (e.g. PowerTrain's 4,368 modes): the cartesian product of its axes.
struct ModeGrid {
  std::string name;  // "powertrain-4368"
  std::vector<int> cores;
  std::vector<double> cpu_khz;
  std::vector<double> gpu_hz;
  std::vector<double> emc_hz;
  std::size_t size() const { return cores.size() * cpu_khz.size() * gpu_hz.size() * emc_hz.size(); }
};

struct DeviceSpec {
  std::string name;    // catalog key, e.g. "orin-agx-64gb"
  std::string soc;     // "T234"
  std::string source;  // where the facts come from (citation text)

  // CPU
  std::string cpu_arch;
  int cpu_cores = 0;
  int cpu_clusters = 0;
  std::vector<double> cpu_khz;  // ascending, the cpufreq table

  // GPU
  std::string gpu_arch;
  int sm_version = 0;
  int gpu_tpcs = 0;  // TPCs usable with no power gating
  // Width of tpc_pg_mask: the SoC's TPC slots (T234: 8). A part with a fused-off TPC has fewer
  // usable TPCs than slots (Orin AGX 32GB: 7 of 8), so active TPCs = min(gpu_tpcs, slots - gated).
  int gpu_tpc_slots = 0;
  int gpu_sms = 0;
  int cuda_cores = 0;
  int tensor_cores = 0;
  // GPU L2 cache; decides whether a recurrent weight matrix stays on chip across time steps.
  std::optional<double> gpu_l2_kb;
  std::vector<double> gpu_hz;  // ascending, the devfreq table used for modes

  // Memory
  std::vector<double> emc_hz;  // ascending, the lockable EMC points
  std::string memory_type;
  double memory_gb = 0;
  int memory_bus_bits = 0;

  // Power. The envelope figures carry their sources (published, or an estimate and why).
  std::optional<double> module_peak_w;  // maximum module power (data sheet), W
  std::string module_peak_source;
  std::optional<double> idle_w;  // module power with nothing running, at the maximum clocks, W
  std::string idle_source;
  std::string budget_source;           // where the presets' budget_w come from
  std::vector<std::string> rails;      // rails whose sum is the module power, in report order
  std::vector<std::string> sub_rails;  // measured rails already inside one of `rails` (not summed)

  std::vector<Preset> presets;
  std::string default_preset;
  std::vector<ModeGrid> grids;
  std::string note;  // how reconstructed tables were filled in

  // Lookups by name; nullptr when absent.
  const Preset* find_preset(std::string_view preset_name) const {
    for (const Preset& p : presets) {
      if (p.name == preset_name) return &p;
    }
    return nullptr;
  }
  const ModeGrid* find_grid(std::string_view grid_name) const {
    for (const ModeGrid& g : grids) {
      if (g.name == grid_name) return &g;
    }
    return nullptr;
  }

  // Peak DRAM bandwidth at an EMC frequency: f_emc * 2 (DDR) * bus bytes, in GB/s (1e9 B/s).
  double memory_bandwidth_gbps(double emc_hz_value) const {
    return emc_hz_value * 2.0 * (memory_bus_bits / 8.0) / 1e9;
  }
  int cuda_cores_per_tpc() const { return gpu_tpcs > 0 ? cuda_cores / gpu_tpcs : 0; }
};

}  // namespace fulcrum::models
