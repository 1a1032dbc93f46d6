// Fake sysfs trees for the hardware tests, built in a TempDir: the INA3221 hwmon devices and the
// clock files of an Orin AGX (12 cpus in 3 clusters, a GPU devfreq node, the BPMP EMC clock).
//
//   TempDir dir;  write_orin_clocks(dir);  JetsonClockControl c({.sysfs_root = dir.path()});
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/temp_dir.hpp"

namespace fulcrum::testing {

// One INA3221 channel: label, mV, mA.
struct FakeChannel {
  std::string label;
  double mv;
  double ma;
};

// hwmon/<hwmon_name>/ with `name` = `driver` and channels 1..n.
inline void write_hwmon(const TempDir& dir, const std::string& hwmon_name,
                        const std::string& driver, const std::vector<FakeChannel>& channels) {
  const std::string base = "sys/class/hwmon/" + hwmon_name + "/";
  dir.write(base + "name", driver + "\n");
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    std::ostringstream mv, ma;
    mv << channels[i].mv << "\n";
    ma << channels[i].ma << "\n";
    dir.write(base + "in" + n + "_label", channels[i].label + "\n");
    dir.write(base + "in" + n + "_input", mv.str());
    dir.write(base + "curr" + n + "_input", ma.str());
  }
}

// The clock files of an Orin AGX at its maximum: cpu1..11 online, policy0/4/8 at 2201600 kHz,
// the GPU (17000000.ga10b, after an unrelated 15340000.vic node) at 1300500000 Hz, EMC locked at
// 3199000000 Hz.
inline void write_orin_clocks(const TempDir& dir) {
  const std::string cpu = "sys/devices/system/cpu/";
  dir.write(cpu + "cpu0/cpu_capacity", "1024\n");  // cpu0: no `online` file
  for (int i = 1; i < 12; ++i) dir.write(cpu + "cpu" + std::to_string(i) + "/online", "1\n");
  for (int p : {0, 4, 8}) {
    const std::string d = cpu + "cpufreq/policy" + std::to_string(p) + "/";
    dir.write(d + "related_cpus", std::to_string(p) + "-" + std::to_string(p + 3) + "\n");
    dir.write(d + "scaling_min_freq", "115200\n");
    dir.write(d + "scaling_max_freq", "2201600\n");
    dir.write(d + "scaling_cur_freq", "2201600\n");
  }
  dir.write("sys/class/devfreq/15340000.vic/max_freq", "729600000\n");
  const std::string gpu = "sys/class/devfreq/17000000.ga10b/";
  dir.write(gpu + "min_freq", "306000000\n");
  dir.write(gpu + "max_freq", "1300500000\n");
  dir.write(gpu + "cur_freq", "1300500000\n");
  const std::string emc = "sys/kernel/debug/bpmp/debug/clk/emc/";
  dir.write(emc + "rate", "3199000000\n");
  dir.write(emc + "mrq_rate_locked", "1\n");
}

// Every file under the folder and its text: two dumps are equal when the trees are.
inline std::map<std::string, std::string> dump_tree(const std::filesystem::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path());
    std::ostringstream text;
    text << in.rdbuf();
    files[std::filesystem::relative(e.path(), root).string()] = text.str();
  }
  return files;
}

}  // namespace fulcrum::testing
