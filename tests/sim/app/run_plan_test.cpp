// RunPlan: loaded once, derived with typed values (no `--set` strings pasted back), run into a
// published folder, metered over its clock.
#include "sim/app/run_plan.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/app/profiling.hpp"
#include "sim/app/run_meter.hpp"
#include "sim/report/result_folder.hpp"
#include "tests/backends/hardware/fake_sysfs.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using namespace fulcrum::sim::app;
using fulcrum::testing::TempDir;

namespace {

using fulcrum::testing::slurp;

const PlanRequest kQuickstart{.scenario_path = "scenarios/quickstart.yaml",
                              .overrides = {"duration_s=2"}};

// The quickstart with its device line replaced, as a user would write the file.
std::filesystem::path quickstart_with(const TempDir& dir, const std::string& device_line) {
  std::ifstream in("scenarios/quickstart.yaml");
  std::ostringstream text;
  for (std::string line; std::getline(in, line);) {
    text << (line.rfind("device:", 0) == 0 ? device_line : line) << "\n";
  }
  const std::filesystem::path file = dir.path() / "quickstart.yaml";
  std::ofstream(file) << text.str();
  return file;
}

}  // namespace

TEST_CASE("a plan derived for another mode runs as a scenario file written in that mode") {
  // The quickstart names a preset (MAXN): the derivation replaces it, which `--set` could not.
  const RunPlan plan = RunPlan::load(kQuickstart);
  const models::PowerMode mode{.cores = 8,
                               .cpu_khz = 1497600,
                               .gpu_hz = 828750000,
                               .emc_hz = 2133000000,
                               .gpu_tpcs = plan.device().gpu_tpcs};
  const ScenarioRun derived = plan.with_mode(mode).run();
  CHECK(derived.result.mode == mode);
  CHECK(plan.mode() != mode);  // the plan it came from is unchanged

  TempDir dir;
  const ScenarioRun written =
      RunPlan::load({.scenario_path = quickstart_with(dir,
                                                      "device: {model: orin-agx-64gb, "
                                                      "cores: 8, cpu_mhz: 1497.6, gpu_mhz: "
                                                      "828.75, emc_mhz: 2133}")
                                          .string(),
                     .overrides = {"duration_s=2"}})
          .run();
  CHECK(derived.summary_json == written.summary_json);
}

TEST_CASE("a mode that is not one of the device's is refused without blaming the scenario file") {
  const RunPlan plan = RunPlan::load(kQuickstart);
  models::PowerMode mode = plan.mode();
  mode.gpu_hz = 1e9;  // between two of the table's clocks
  try {
    (void)plan.with_mode(mode);
    FAIL("accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("is not a mode of orin-agx-64gb") != std::string::npos);
    CHECK(what.find("quickstart.yaml") == std::string::npos);
  }
}

TEST_CASE("a plan derived with other batch sizes runs as the same --set would") {
  const ScenarioRun derived = RunPlan::load(kQuickstart).with_batch_sizes({.inference = {8}}).run();
  PlanRequest with_set = kQuickstart;
  with_set.overrides.push_back("inference[0].batch_size=8");
  const ScenarioRun set = RunPlan::load(with_set).run();
  CHECK(derived.summary_json == set.summary_json);
  CHECK(derived.result.inference.at(0).batch_size == 8);
  CHECK_THROWS_AS(RunPlan::load(kQuickstart).with_batch_sizes({.inference = {8, 8}}), InputError);
  CHECK_THROWS_AS(RunPlan::load(kQuickstart).with_batch_sizes({.training = 0}), InputError);
}

TEST_CASE("a run's folder takes extra outputs written before it is published") {
  TempDir dir;
  const std::filesystem::path out = dir.path() / "run";
  ResultFolder folder(out);
  const ScenarioRun r =
      RunPlan::load(kQuickstart).run(folder, {}, {}, [](const std::filesystem::path& staging) {
        write_file_atomically(staging / "device.json", "{}\n");
        return std::vector<std::string>{"device.json"};
      });
  CHECK(slurp(out / "device.json") == "{}\n");
  CHECK(std::find(r.outputs.begin(), r.outputs.end(), out / "device.json") != r.outputs.end());
  // A later run may replace the folder: device.json is one of a run's own files.
  CHECK(ResultFolder::is_result_file_name("device.json"));
}

TEST_CASE("a run meter reads the device's meter from the run's clock start to its end") {
  TempDir sysfs;
  fulcrum::testing::write_hwmon(
      sysfs, "hwmon1", "ina3221",
      {{"VDD_GPU_SOC", 5000, 2000}, {"VDD_CPU_CV", 5000, 800}, {"VIN_SYS_5V0", 5000, 1200}});
  RunPlan plan = RunPlan::load(kQuickstart);
  std::ostringstream notes;
  const RunMeter meter(plan,
                       {.kind = backends::PowerMeterKind::ina3221,
                        .sysfs_root = sysfs.path().string(),
                        .summed_rails = plan.device().rails},
                       &notes);
  CHECK(meter.measures());
  CHECK_FALSE(meter.reading().has_value());  // nothing before the run
  (void)std::move(plan).run();
  REQUIRE(meter.reading().has_value());
  CHECK(meter.reading()->rail_energy_j.size() == 3);
  CHECK(notes.str().empty());

  // No meter: one line saying why, and no reading after the run.
  RunPlan unmetered = RunPlan::load(kQuickstart);
  const RunMeter none(unmetered,
                      {.kind = backends::PowerMeterKind::nvml,
                       .nvml_library = (sysfs.path() / "no-such-libnvidia-ml.so").string()},
                      &notes);
  CHECK_FALSE(none.measures());
  CHECK(notes.str().find("fulcrum: no meter over the whole run (") == 0);
  (void)std::move(unmetered).run();
  CHECK_FALSE(none.reading().has_value());
}
