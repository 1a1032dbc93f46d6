#include "sim/config/device_catalog_loader.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "models/device/mode_space.hpp"
#include "models/device/power_mode_resolver.hpp"
#include "models/error.hpp"
#include "tests/reference_data.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::models;
using fulcrum::sim::load_device_catalog;
using fulcrum::sim::load_device_file;
using fulcrum::testing::TempDir;

namespace {

namespace fs = std::filesystem;

const std::string devices_dir = std::string(FULCRUM_DATA_DIR) + "/devices";

const DeviceCatalog& shipped() {
  static const DeviceCatalog catalog = load_device_catalog(devices_dir);
  return catalog;
}

// A small valid device file; line numbers matter to the error tests below.
std::vector<std::string> tiny_lines() {
  return {
      "name: tiny",                                                                     // 1
      "soc: T000",                                                                      // 2
      "source: made up for tests",                                                      // 3
      "cpu: {arch: a78, cores: 4, clusters: 1}",                                        // 4
      "cpu_khz: [100000, 200000, 300000]",                                              // 5
      "gpu: {arch: g, sm_version: 87, tpcs: 2, cuda_cores: 256, tensor_cores: 8}",      // 6
      "gpu_hz: [100000000, 200000000]",                                                 // 7
      "emc_hz: [500000000, 1000000000]",                                                // 8
      "memory: {type: LPDDR5, gb: 8, bus_bits: 64}",                                    // 9
      "power: {rails: [VDD_IN]}",                                                       // 10
      "presets:",                                                                       // 11
      "  MAXN: {cores: 4, tpc_pg_mask: 0}",                                             // 12
      "  LOW: {cores: 2, cpu_max_khz: 250000, gpu_max_hz: 150000000, tpc_pg_mask: 2}",  // 13
      "default_preset: MAXN",                                                           // 14
      "grids:",                                                                         // 15
      "  small: {cores: [2, 4], cpu_khz: [100000, 300000], gpu_hz: [200000000], emc_hz: "
      "[1000000000]}",  // 16
  };
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// The error loading tiny.yaml with line `line` (1-based) replaced by `text`.
std::string error_with(std::size_t line, const std::string& text, std::string* file = nullptr) {
  std::vector<std::string> lines = tiny_lines();
  if (line > lines.size()) {
    lines.push_back(text);
  } else {
    lines[line - 1] = text;
  }
  TempDir dir;
  const std::string path = dir.write("tiny.yaml", join(lines));
  if (file) *file = path;
  try {
    load_device_file(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

TEST_CASE("every shipped device file loads and its presets resolve to valid modes",
          "[device_catalog_loader]") {
  const DeviceCatalog& catalog = shipped();
  CHECK(catalog.names() == std::vector<std::string>{"orin-agx-32gb", "orin-agx-64gb",
                                                    "orin-nano-8gb", "xavier-agx-32gb",
                                                    "xavier-nx-8gb"});
  for (const DeviceSpec& d : catalog.devices()) {
    INFO(d.name);
    CHECK_FALSE(d.source.empty());
    CHECK_FALSE(d.rails.empty());
    CHECK(d.memory_bus_bits > 0);
    CHECK(is_valid_mode(d, max_mode(d)));
    CHECK(is_valid_mode(d, default_mode(d)));
    for (const Preset& p : d.presets) {
      INFO(p.name);
      CHECK(is_valid_mode(d, resolve_preset(d, p.name)));
    }
    for (const ModeGrid& g : d.grids) {
      const ModeSpace space = ModeSpace::grid(d, g.name);
      CHECK(space.size() == g.size());
      CHECK(is_valid_mode(d, space.at(space.size() - 1)));
    }
  }
}

TEST_CASE("the shipped Orin AGX 64GB has 18,096 modes and the two published grids",
          "[device_catalog_loader]") {
  const DeviceSpec& orin = shipped().get("orin-agx-64gb");
  CHECK(ModeSpace::full(orin).size() == 12 * 29 * 13 * 4);
  CHECK(enumerate_all(orin).size() == 18096);
  CHECK(enumerate_grid(orin, "powertrain-4368").size() == 4368);
  CHECK(enumerate_grid(orin, "pagoda-441").size() == 441);
  CHECK(orin.rails == std::vector<std::string>{"VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"});
  CHECK(orin.default_preset == "MODE_30W");
  CHECK(orin.memory_bandwidth_gbps(orin.emc_hz.back()) == Approx(204.7).margin(0.05));
}

TEST_CASE("the shipped Orin AGX 64GB presets resolve as nvpmodel caps on the JetPack 5 tables",
          "[device_catalog_loader]") {
  const DeviceSpec& orin = shipped().get("orin-agx-64gb");
  const PowerMode maxn = resolve_preset(orin, "MAXN");
  CHECK(maxn.label() == "12c/2201.6/1300.5/3199 MHz");
  CHECK(maxn.gpu_tpcs == 8);
  // 612 MHz is not a JetPack 5 GPU frequency; the largest one below it is 522.75 MHz.
  const PowerMode m30 = resolve_preset(orin, "MODE_30W");
  CHECK(m30.label() == "8c/1728/522.75/3199 MHz");
  CHECK(m30.gpu_tpcs == 4);
  const PowerMode m15 = resolve_preset(orin, "MODE_15W");
  CHECK(m15.label() == "4c/1113.6/318.75/2133 MHz");
  CHECK(m15.gpu_tpcs == 3);
  CHECK(resolve_request(orin, {8, 1700, 1300, std::nullopt}).label() == "8c/1728/1300.5/3199 MHz");
  CHECK_THROWS_WITH(resolve_request(orin, {.cpu_mhz = 5000}),
                    "cpu_mhz 5000 outside 115.2..2201.6 MHz");
}

TEST_CASE("the shipped Orin AGX 64GB tables match the reference facts", "[device_catalog_loader]") {
  const std::optional<std::string> facts = fulcrum::testing::reference_path("devices.yaml");
  if (!facts) return;  // skipped
  const sim::YamlDoc ref = sim::YamlDoc::load(*facts);
  const sim::YamlNode node = ref.root().required("orin-agx-64gb");
  auto table = [](const sim::YamlNode& n) {
    std::vector<double> out;
    for (std::size_t i = 0; i < n.size(); ++i) out.push_back(n.at(i).as_double());
    return out;
  };
  const DeviceSpec& orin = shipped().get("orin-agx-64gb");
  CHECK(orin.cpu_khz == table(node.required("cpu_khz")));
  CHECK(orin.gpu_hz == table(node.required("gpu_hz_jetpack5")));
  CHECK(orin.emc_hz == table(node.required("emc_hz")));
  for (const std::string& name : node.required("presets").keys()) {
    INFO(name);
    const sim::YamlNode p = node.required("presets").required(name);
    const Preset* ours = orin.find_preset(name);
    REQUIRE(ours != nullptr);
    CHECK(ours->cores == p.required("cores").as_int());
    CHECK(ours->tpc_pg_mask == p.required("tpc_pg_mask").as_int());
    const double cpu_cap = p.required("cpu_max_khz").as_double();
    CHECK(ours->cpu_max_khz == (cpu_cap < 0 ? std::nullopt : std::optional<double>(cpu_cap)));
  }
}

TEST_CASE("the other shipped devices carry their own tables", "[device_catalog_loader]") {
  const DeviceSpec& orin32 = shipped().get("orin-agx-32gb");
  CHECK(orin32.cpu_cores == 8);
  CHECK(resolve_preset(orin32, "MAXN").gpu_tpcs == 7);  // mask 128 names the fused-off slot
  CHECK(resolve_preset(orin32, "MODE_15W").gpu_tpcs == 3);
  CHECK(ModeSpace::full(orin32).size() == 8 * 29 * 13 * 4);

  const DeviceSpec& nano = shipped().get("orin-nano-8gb");
  CHECK(nano.cpu_khz.size() == 20);
  CHECK(nano.cpu_khz.back() == 1510400);
  CHECK(nano.cpu_khz[nano.cpu_khz.size() - 2] == 1497600);
  CHECK(resolve_preset(nano, "MODE_15W").label() == "6c/1497.6/510/2133 MHz");

  const DeviceSpec& xavier = shipped().get("xavier-agx-32gb");
  CHECK(xavier.cpu_khz.size() == 29);
  CHECK(xavier.cpu_khz.back() == 2265600);
  CHECK(xavier.emc_hz.size() == 7);
  CHECK(xavier.memory_bandwidth_gbps(2133e6) == Approx(136.5).margin(0.05));
  CHECK(resolve_preset(xavier, "MODE_15W").label() == "4c/1190.4/624.75/1331.2 MHz");

  const DeviceSpec& nx = shipped().get("xavier-nx-8gb");
  CHECK(nx.cpu_khz.back() == 1900800);
  CHECK(nx.gpu_hz.back() == 1100000000);
  CHECK(nx.emc_hz.back() == 1600000000);
  CHECK(nx.memory_bandwidth_gbps(nx.emc_hz.back()) == Approx(51.2));
  CHECK(nx.rails == std::vector<std::string>{"VDD_IN"});
}

TEST_CASE("the shipped power envelope figures and preset budgets are read with their sources",
          "[device_catalog_loader]") {
  const DeviceSpec& nx = shipped().get("xavier-nx-8gb");
  CHECK(nx.idle_w == std::optional<double>(5.0));
  CHECK(nx.idle_source.rfind("estimate:", 0) == 0);
  CHECK(nx.module_peak_w == std::optional<double>(20));
  CHECK(nx.find_preset("MODE_15W_6CORE")->budget_w == std::optional<double>(15));
  const DeviceSpec& orin = shipped().get("orin-agx-64gb");
  CHECK(orin.module_peak_w == std::optional<double>(60));
  CHECK_FALSE(orin.find_preset("MAXN")->budget_w.has_value());
  CHECK(orin.find_preset("MODE_50W")->budget_w == std::optional<double>(50));
  CHECK(orin.budget_source.find("nvpmodel") != std::string::npos);
}

TEST_CASE("power figures need a source, idle below the maximum and budgets within it",
          "[device_catalog_loader]") {
  const std::string power =
      "power: {rails: [VDD_IN], idle_w: {value: 2, source: measured}, module_peak_w: {value: 10, "
      "source: data sheet}, budget_source: nvpmodel}";
  TempDir dir;
  std::vector<std::string> lines = tiny_lines();
  lines[9] = power;
  lines[12] =
      "  LOW: {cores: 2, cpu_max_khz: 250000, gpu_max_hz: 150000000, tpc_pg_mask: 2, "
      "budget_w: 5}";
  const DeviceSpec d = load_device_file(dir.write("tiny.yaml", join(lines)));
  CHECK(d.idle_w == std::optional<double>(2));
  CHECK(d.idle_source == "measured");
  CHECK(d.module_peak_w == std::optional<double>(10));
  CHECK(d.module_peak_source == "data sheet");
  CHECK(d.budget_source == "nvpmodel");
  CHECK(d.find_preset("LOW")->budget_w == std::optional<double>(5));
  CHECK_FALSE(d.find_preset("MAXN")->budget_w.has_value());

  std::string file;
  CHECK(error_with(10, "power: {rails: [VDD_IN], idle_w: 2}", &file).find(file + ":10:") == 0);
  CHECK(error_with(10, "power: {rails: [VDD_IN], idle_w: {value: 2}}")
            .find("power.idle_w: missing required key 'source'") != std::string::npos);
  CHECK(error_with(10, "power: {rails: [VDD_IN], module_peak_w: {value: 10, source: ''}}")
            .find("power.module_peak_w.source: must not be empty") != std::string::npos);
  CHECK(error_with(10,
                   "power: {rails: [VDD_IN], idle_w: {value: 12, source: a}, module_peak_w: "
                   "{value: 10, source: b}}")
            .find("power.idle_w.value: idle power must be below module_peak_w (10 W)") !=
        std::string::npos);
  CHECK(error_with(13, "  LOW: {cores: 2, budget_w: 5}")
            .find("power: presets have budget_w but power.budget_source does not say") !=
        std::string::npos);
  lines[12] = "  LOW: {cores: 2, budget_w: 12}";
  try {
    load_device_file(dir.write("tiny.yaml", join(lines)));
    FAIL("a budget above the maximum module power loaded");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find(
              "presets.LOW.budget_w: budget 12 W is above the module's maximum power (10 W)") !=
          std::string::npos);
  }
}

TEST_CASE("the GPU L2 size is read where published and absent elsewhere",
          "[device_catalog_loader]") {
  REQUIRE(shipped().get("orin-agx-64gb").gpu_l2_kb.has_value());
  CHECK(*shipped().get("orin-agx-64gb").gpu_l2_kb == 4096);
  CHECK(shipped().get("orin-agx-32gb").gpu_l2_kb == std::optional<double>(4096));
  CHECK(shipped().get("xavier-agx-32gb").gpu_l2_kb == std::optional<double>(512));
  CHECK_FALSE(shipped().get("orin-nano-8gb").gpu_l2_kb.has_value());
  std::string file;
  const std::string err = error_with(
      6, "gpu: {arch: g, sm_version: 87, tpcs: 2, cuda_cores: 256, tensor_cores: 8, l2_kb: -1}",
      &file);
  CHECK(err.find("gpu.l2_kb") != std::string::npos);
}

TEST_CASE("a valid minimal device file loads with all its fields", "[device_catalog_loader]") {
  TempDir dir;
  dir.write("tiny.yaml", join(tiny_lines()));
  dir.write("README.txt", "not a device");
  const DeviceCatalog catalog = load_device_catalog(dir.path().string());
  REQUIRE(catalog.names() == std::vector<std::string>{"tiny"});
  const DeviceSpec& d = catalog.get("tiny");
  CHECK(d.gpu_tpc_slots == 2);
  CHECK(d.presets.size() == 2);
  CHECK(resolve_preset(d, "LOW") == PowerMode{2, 200000, 100000000, 1000000000, 1});
  CHECK(enumerate_grid(d, "small").size() == 4);
}

TEST_CASE("malformed YAML is reported with file, line and column", "[device_catalog_loader]") {
  std::string file;
  const std::string err = error_with(4, "cpu: {arch: a78, cores: 4", &file);
  CHECK(starts_with(err, file + ":"));
  CHECK(err.find("malformed YAML") != std::string::npos);
}

TEST_CASE("an unknown key is reported at its line and column with the allowed keys",
          "[device_catalog_loader]") {
  std::string file;
  const std::string err = error_with(17, "colour: red", &file);
  CHECK(starts_with(err, file + ":17:1: colour: unknown key 'colour' (allowed: name, soc,"));
  const std::string nested = error_with(
      6, "gpu: {arch: g, sm_version: 87, tpcs: 2, cuda_cores: 256, tensor_cores: 8, fp64: 1}",
      &file);
  CHECK(starts_with(nested, file + ":6:75: gpu.fp64: unknown key 'fp64'"));
}

TEST_CASE("a table that is not ascending is reported at the offending entry",
          "[device_catalog_loader]") {
  std::string file;
  const std::string err = error_with(5, "cpu_khz: [100000, 300000, 200000]", &file);
  CHECK(err == file + ":5:27: cpu_khz[2]: not ascending: 200000 after 300000");
  CHECK(error_with(8, "emc_hz: []").find("emc_hz: must not be empty") != std::string::npos);
  CHECK(
      error_with(7, "gpu_hz: [100000000, fast]").find("gpu_hz[1]: expected a number, got 'fast'") !=
      std::string::npos);
}

TEST_CASE("an unknown default preset is reported with the known ones", "[device_catalog_loader]") {
  std::string file;
  const std::string err = error_with(14, "default_preset: TURBO", &file);
  CHECK(err == file + ":14:17: default_preset: unknown preset 'TURBO' (known: MAXN, LOW)");
}

TEST_CASE("presets that disagree with the device are reported at the preset key",
          "[device_catalog_loader]") {
  CHECK(error_with(13, "  LOW: {cores: 9}").find("presets.LOW.cores: must be in 1..4, got 9") !=
        std::string::npos);
  CHECK(error_with(13, "  LOW: {cores: 2, cpu_max_khz: 50000}")
            .find("presets.LOW.cpu_max_khz: cap 50 MHz is below the table (100..300 MHz)") !=
        std::string::npos);
  CHECK(error_with(13, "  LOW: {cores: 2, gpu_max_hz: -1}").find("(omit the key for uncapped)") !=
        std::string::npos);
  CHECK(error_with(13, "  LOW: {cores: 2, tpc_pg_mask: 3}")
            .find("presets.LOW.tpc_pg_mask: gates every TPC") != std::string::npos);
  CHECK(error_with(13, "  LOW: {cores: 2, tpc_pg_mask: 4}")
            .find("presets.LOW.tpc_pg_mask: must be a bit mask") != std::string::npos);
  CHECK(error_with(13, "  LOW: {cores: 2, turbo: true}").find("presets.LOW.turbo: unknown key") !=
        std::string::npos);
}

TEST_CASE("grid values that are not table values are reported at the entry",
          "[device_catalog_loader]") {
  std::string file;
  const std::string err = error_with(16,
                                     "  small: {cores: [2, 4], cpu_khz: [100000, 250000], gpu_hz: "
                                     "[200000000], emc_hz: [1000000000]}",
                                     &file);
  CHECK(starts_with(err, file + ":16:"));
  CHECK(err.find("grids.small.cpu_khz[1]: 250000 is not a value of the device's cpu_khz table") !=
        std::string::npos);
  CHECK(
      error_with(
          16,
          "  small: {cores: [2, 8], cpu_khz: [100000], gpu_hz: [200000000], emc_hz: [1000000000]}")
          .find("grids.small.cores[1]: must be in 1..4, got 8") != std::string::npos);
}

TEST_CASE("a device whose name differs from its file name is rejected", "[device_catalog_loader]") {
  std::string file;
  const std::string err = error_with(1, "name: other", &file);
  CHECK(err == file + ":1:7: name: 'other' differs from the file name 'tiny.yaml'");
}

TEST_CASE("a missing or empty device folder is an input error", "[device_catalog_loader]") {
  TempDir dir;
  CHECK_THROWS_WITH(load_device_catalog(dir.path().string()),
                    dir.path().string() + ": no *.yaml device files");
  CHECK_THROWS_AS(load_device_catalog(dir.path().string() + "/nowhere"), InputError);
}
