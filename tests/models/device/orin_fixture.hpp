// An Orin AGX 64GB DeviceSpec built in code, so that the model tests do not depend on the YAML
// loader (which lives in sim/config and is tested against the shipped files there).
#pragma once

#include "models/device/device_spec.hpp"

namespace fulcrum::models::testing {

inline DeviceSpec orin_agx_64gb() {
  DeviceSpec d;
  d.name = "orin-agx-64gb";
  d.soc = "T234";
  d.cpu_arch = "cortex-a78ae";
  d.cpu_cores = 12;
  d.cpu_clusters = 3;
  for (int k = 0; k < 28; ++k) d.cpu_khz.push_back(115200.0 + 76800.0 * k);
  d.cpu_khz.push_back(2201600);
  d.gpu_arch = "ampere-ga10b";
  d.sm_version = 87;
  d.gpu_tpcs = 8;
  d.gpu_tpc_slots = 8;
  d.gpu_sms = 16;
  d.cuda_cores = 2048;
  d.tensor_cores = 64;
  d.gpu_hz = {114750000, 216750000, 318750000,  420750000,  522750000,  624750000, 726750000,
              828750000, 930750000, 1032750000, 1134750000, 1236750000, 1300500000};
  d.emc_hz = {204000000, 665600000, 2133000000, 3199000000};
  d.memory_type = "LPDDR5";
  d.memory_gb = 64;
  d.memory_bus_bits = 256;
  d.gpu_l2_kb = 4096;
  d.module_peak_w = 60;
  d.idle_w = 18.6;
  d.rails = {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"};
  d.presets = {
      Preset{"MAXN", 0, 12, std::nullopt, std::nullopt, std::nullopt, 0, std::nullopt},
      Preset{"MODE_15W", 1, 4, 1113600, 408000000, 2133000000, 248, 15},
      Preset{"MODE_30W", 2, 8, 1728000, 612000000, std::nullopt, 240, 30},
      Preset{"MODE_50W", 3, 12, 1497600, 816000000, std::nullopt, 0, 50},
  };
  d.default_preset = "MODE_30W";
  d.grids.push_back(ModeGrid{"powertrain-4368",
                             {2, 4, 6, 8, 10, 12},
                             {268800, 422400, 576000, 729600, 883200, 1036800, 1190400, 1344000,
                              1497600, 1651200, 1804800, 1958400, 2112000, 2201600},
                             d.gpu_hz,
                             d.emc_hz});
  d.grids.push_back(
      ModeGrid{"pagoda-441",
               {4, 8, 12},
               {422400, 729600, 1036800, 1344000, 1651200, 1958400, 2201600},
               {114750000, 318750000, 522750000, 726750000, 930750000, 1134750000, 1300500000},
               {665600000, 2133000000, 3199000000}});
  return d;
}

}  // namespace fulcrum::models::testing
