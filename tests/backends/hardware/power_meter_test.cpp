// Power meters: the trapezoid rule on hand-made series, the INA3221 hwmon meter against a fake
// hwmon tree (rail discovery, constant and changing power, summed and sub-rails, a rail that
// vanishes), NVML through a stand-in library and without one, and make_power_meter's choice.
#include "backends/hardware/power_meter.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include "backends/hardware/hwmon_power_meter.hpp"
#include "backends/hardware/nvml_power_meter.hpp"
#include "models/error.hpp"
#include "tests/backends/hardware/fake_sysfs.hpp"
#include "tests/input_error.hpp"

using namespace fulcrum;
using namespace fulcrum::backends;
using fulcrum::testing::FakeChannel;
using fulcrum::testing::TempDir;
using fulcrum::testing::write_hwmon;

namespace {

// Orin AGX's two INA3221: three summed rails on the first, one sub-rail between NCs on the second.
void write_orin_hwmon(const TempDir& dir) {
  write_hwmon(dir, "hwmon0", "tegra-thermal", {});
  // 5 V x 2 A = 10 W, 5 V x 0.8 A = 4 W, 5 V x 1.2 A = 6 W
  write_hwmon(
      dir, "hwmon1", "ina3221",
      {{"VDD_GPU_SOC", 5000, 2000}, {"VDD_CPU_CV", 5000, 800}, {"VIN_SYS_5V0", 5000, 1200}});
  write_hwmon(dir, "hwmon2", "ina3221",
              {{"NC", 0, 0}, {"VDDQ_VDD2_1V8AO", 1800, 500}, {"NC", 0, 0}});
}

std::vector<std::string> labels(const std::vector<HwmonRail>& rails) {
  std::vector<std::string> out;
  for (const HwmonRail& r : rails) out.push_back(r.label);
  return out;
}

// Replaces a file's text atomically, so that a concurrent reader sees the old or the new value.
void replace(const std::filesystem::path& file, const std::string& text) {
  const std::filesystem::path tmp = file.string() + ".new";
  std::ofstream(tmp) << text;
  std::filesystem::rename(tmp, file);
}

}  // namespace

TEST_CASE("the trapezoid rule integrates hand-made series exactly") {
  // 2 W rising to 4 W over 1 s (3 J), then 4 W for 2 s (8 J)
  CHECK(trapezoid_energy_j(std::vector<double>{0, 1, 3}, std::vector<double>{2, 4, 4}) == 11.0);
  // a triangle: 0 -> 10 W -> 0 over 0.5 s each way: half of 1 s x 10 W, 5 J
  CHECK(trapezoid_energy_j(std::vector<double>{0, 0.5, 1}, std::vector<double>{0, 10, 0}) == 5.0);
  CHECK(trapezoid_energy_j(std::vector<double>{}, std::vector<double>{}) == 0.0);
  CHECK(trapezoid_energy_j(std::vector<double>{3}, std::vector<double>{7}) == 0.0);
}

TEST_CASE("INA3221 rails are found by hwmon name and label, NC and sum channels skipped") {
  TempDir dir;
  write_orin_hwmon(dir);
  write_hwmon(dir, "hwmon10", "ina3221",
              {{"sum of shunt voltages", 10, 10}, {"VDD_LATE", 1000, 1}});
  CHECK(labels(find_ina3221_rails(dir.path())) ==
        std::vector<std::string>{"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0", "VDDQ_VDD2_1V8AO",
                                 "VDD_LATE"});
  CHECK(find_ina3221_rails(dir.path() / "nothing").empty());
}

TEST_CASE("a constant load integrates to power times the window, summed rails only in the module") {
  TempDir dir;
  write_orin_hwmon(dir);
  HwmonPowerMeter meter({.sysfs_root = dir.path().string(),
                         .sampling_interval = std::chrono::milliseconds(5),
                         .summed_rails = {"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"}});
  CHECK(meter.rail_names() ==
        std::vector<std::string>{"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0", "VDDQ_VDD2_1V8AO"});
  CHECK(meter.sampling_interval() == std::chrono::milliseconds(5));
  CHECK(meter.name().find("hwmon1") != std::string::npos);
  meter.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  const EnergyReading r = meter.stop();
  // One sample per 5 ms of the >= 40 ms window (a late thread catches up), plus both ends.
  CHECK(r.series.time_s.size() >= 9);
  CHECK(r.series.time_s.front() == 0);
  CHECK(r.duration_s == r.series.time_s.back());
  CHECK(r.duration_s >= 0.040);
  REQUIRE(r.rail_energy_j.size() == 4);
  CHECK(r.rail_energy_j[0] == Approx(10.0 * r.duration_s));
  CHECK(r.rail_energy_j[1] == Approx(4.0 * r.duration_s));
  CHECK(r.rail_energy_j[2] == Approx(6.0 * r.duration_s));
  CHECK(r.rail_energy_j[3] == Approx(0.9 * r.duration_s));
  CHECK(r.module_energy_j == Approx(20.0 * r.duration_s));  // the 1.8 V sub-rail is not summed
  CHECK(r.average_power_w() == Approx(20.0));
  for (double w : r.series.module_power_w) CHECK(w == Approx(20.0));
}

TEST_CASE("a load that changes while the meter samples is seen in the series and the energy") {
  TempDir dir;
  write_hwmon(dir, "hwmon3", "ina3221", {{"VDD_IN", 10000, 100}});  // 1 W
  HwmonPowerMeter meter(
      {.sysfs_root = dir.path().string(), .sampling_interval = std::chrono::milliseconds(2)});
  const std::filesystem::path current = dir.path() / "sys/class/hwmon/hwmon3/curr1_input";
  meter.start();
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    replace(current, "300\n");  // 3 W from now on
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  writer.join();
  const EnergyReading r = meter.stop();
  bool saw_low = false, saw_high = false;
  for (double w : r.series.module_power_w) {
    saw_low |= w == Approx(1.0);
    saw_high |= w == Approx(3.0);
  }
  CHECK(saw_low);
  CHECK(saw_high);
  CHECK(r.module_energy_j > 1.0 * r.duration_s);
  CHECK(r.module_energy_j < 3.0 * r.duration_s);
}

TEST_CASE("a rail that cannot be read while sampling fails stop() naming the file") {
  TempDir dir;
  write_hwmon(dir, "hwmon0", "ina3221", {{"VDD_IN", 5000, 1000}});
  HwmonPowerMeter meter(
      {.sysfs_root = dir.path().string(), .sampling_interval = std::chrono::milliseconds(2)});
  meter.start();
  std::filesystem::remove(dir.path() / "sys/class/hwmon/hwmon0/curr1_input");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_THROWS_WITH(meter.stop(), Catch::Contains("curr1_input"));
}

TEST_CASE("the INA3221 meter refuses a tree without one, a missing device rail, and misuse") {
  TempDir dir;
  CHECK_THROWS_WITH(HwmonPowerMeter({.sysfs_root = dir.path().string()}),
                    Catch::Contains("no INA3221 rail"));
  write_orin_hwmon(dir);
  CHECK_THROWS_WITH(
      HwmonPowerMeter({.sysfs_root = dir.path().string(), .summed_rails = {"VDD_IN"}}),
      Catch::Contains("rail VDD_IN of the device is not among"));
  HwmonPowerMeter meter({.sysfs_root = dir.path().string()});
  CHECK_THROWS_AS(meter.stop(), Error);
  meter.start();
  CHECK_THROWS_AS(meter.start(), Error);
  meter.stop();
}

TEST_CASE("NVML missing is a clear error, and automatic falls back to no meter") {
  TempDir dir;
  CHECK_THROWS_WITH(NvmlPowerMeter({.nvml_library = "libnvidia-ml-absent.so.1"}),
                    Catch::Contains("cannot load libnvidia-ml-absent.so.1"));
  const auto meter = make_power_meter(
      {.sysfs_root = dir.path().string(), .nvml_library = "libnvidia-ml-absent.so.1"});
  CHECK(meter->name() == "none");
  CHECK_FALSE(meter->measures());
  CHECK_FALSE(meter->description().has_value());
  meter->start();
  const EnergyReading r = meter->stop();
  CHECK(r.module_energy_j == 0);
  CHECK(r.rail_energy_j.empty());
  CHECK_THROWS_WITH(
      make_power_meter({.kind = PowerMeterKind::nvml, .nvml_library = "libnvidia-ml-absent.so.1"}),
      Catch::Contains("cannot load"));
}

TEST_CASE("automatic picks the INA3221 meter when hwmon has one") {
  TempDir dir;
  write_orin_hwmon(dir);
  const auto meter = make_power_meter(
      {.sysfs_root = dir.path().string(), .nvml_library = "libnvidia-ml-absent.so.1"});
  CHECK(meter->name().rfind("ina3221", 0) == 0);
}

TEST_CASE(
    "the NVML meter takes energy counter deltas and samples power through the loaded library") {
  // The stand-in advances its counter by 1000 mJ per read and always draws 250 W.
  NvmlPowerMeter meter(
      {.sampling_interval = std::chrono::milliseconds(2), .nvml_library = FULCRUM_FAKE_NVML});
  CHECK(meter.name() == "nvml (Fake GPU, GPU 0, energy counter)");
  CHECK(meter.rail_names() == std::vector<std::string>{"GPU"});
  CHECK(meter.info().driver_version == "999.1");
  CHECK_FALSE(meter.info().sm_clock_mhz.has_value());  // the stand-in has no clock entry point
  // The same answer through the interface, without knowing the meter's class.
  const PowerMeter& any = meter;
  REQUIRE(any.description().has_value());
  CHECK(any.description()->name == "Fake GPU");
  CHECK(any.description()->driver_version == "999.1");
  meter.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const EnergyReading r = meter.stop();
  CHECK(r.module_energy_j == 1.0);  // one read at start, one at stop
  CHECK(r.rail_energy_j == std::vector<double>{1.0});
  REQUIRE(r.series.module_power_w.size() >= 2);
  for (double w : r.series.module_power_w) CHECK(w == 250.0);
  CHECK(r.series.time_s.back() == r.duration_s);
}

TEST_CASE("an NVML that fails to initialise or has no such GPU is an error with NVML's text") {
  CHECK_THROWS_WITH(NvmlPowerMeter({.nvml_library = FULCRUM_FAKE_NVML, .nvml_device = 3}),
                    Catch::Contains("nvmlDeviceGetHandleByIndex_v2(3) failed"));
  setenv("FAKE_NVML_FAIL_INIT", "1", 1);
  CHECK_THROWS_WITH(NvmlPowerMeter({.nvml_library = FULCRUM_FAKE_NVML}),
                    Catch::Contains("nvmlInit_v2 failed: Driver Not Loaded"));
  unsetenv("FAKE_NVML_FAIL_INIT");
}

TEST_CASE("power meter names parse, and an unknown one is an input error on --power-meter") {
  CHECK(parse_power_meter_kind("ina3221") == PowerMeterKind::ina3221);
  CHECK(parse_power_meter_kind("none") == PowerMeterKind::none);
  const InputError e = fulcrum::testing::error_of([] { parse_power_meter_kind("rapl"); });
  CHECK(e.key_path() == "--power-meter");
}
