// app::optimize as a function of a typed request: the report's figures, a preset `power_mode:`
// scenario (the README's template) searched and re-run in the choice, and the search's result
// kept when the re-run fails.
#include "sim/app/optimize.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "models/error.hpp"
#include "sim/report/optimize_report.hpp"
#include "tests/reference_data.hpp"
#include "tests/sim/app/optimize_scenario.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using namespace fulcrum::sim::app;
using fulcrum::testing::TempDir;

namespace {

using fulcrum::testing::slurp;

const std::string& kScenario = fulcrum::testing::kOptimizeScenario;
using fulcrum::testing::optimize_variant;

const char* const kDeviceKeys = "  cores: 8\n  cpu_mhz: 1344\n  gpu_mhz: 726.75\n  emc_mhz: 2133\n";

}  // namespace

TEST_CASE("optimize reports the search, its truth and the event-driven run as typed figures",
          "[app][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  const OptimizeResult r =
      optimize({.plan = {.scenario_path = kScenario}, .out_dir = dir.path() / "o"});
  const OptimizeReport& o = r.report;
  // The scenario header's figures: prior finds the oracle's own choice, 8 cores, CPU 729.6 MHz,
  // GPU 1134.75 MHz, EMC 3199 MHz, batch 32, one minibatch per 320 ms window (3.12/s), 29.8 W.
  CHECK(o.strategy == "prior");
  CHECK(o.ground_truth == "table");
  CHECK(o.grid == "pagoda-441");
  REQUIRE(o.choice.found);
  CHECK(o.choice.cores == 8);
  CHECK(o.choice.cpu_mhz == Approx(729.6));
  CHECK(o.choice.gpu_mhz == Approx(1134.75));
  CHECK(o.choice.emc_mhz == Approx(3199));
  CHECK(o.choice.batch_sizes == std::vector<int>{32});
  CHECK(o.oracle.mode_label == o.choice.mode_label);
  REQUIRE(o.closed_form_actual);
  CHECK(o.closed_form_actual->per_window == 1);
  CHECK(o.closed_form_actual->per_s == Approx(1 / 0.32));
  CHECK(o.closed_form_actual->power_w == Approx(29.8).margin(0.05));
  CHECK(o.budgets_met);
  CHECK(o.profiling.modes == 19);
  REQUIRE(o.event_driven);
  REQUIRE(o.event_driven->training);
  CHECK(o.event_driven->training->minibatches_per_s == Approx(3.12).margin(0.01));
  CHECK_FALSE(o.training);  // it trains
  CHECK(o.warnings.empty());
  CHECK_FALSE(r.run_failure);
  CHECK(r.folder == dir.path() / "o");
  CHECK_FALSE(std::filesystem::exists(r.folder));  // the app checks the folder; the verb writes
  CHECK(default_optimize_folder("optimize-measured") == "out/optimize-measured");
  CHECK(default_optimize_folder("mine") == "out/optimize-mine");
}

TEST_CASE("optimize searches and re-runs a scenario whose device is a preset power_mode",
          "[app][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  // The README's template: the device by preset, the analytic model for the run.
  const std::string path = optimize_variant(
      dir,
      std::string(kDeviceKeys) +
          "  perf_model:\n    table:\n"
          "      - ${FULCRUM_REFERENCE_DIR}/measurements/orin-agx-training-modes.csv\n"
          "      - ${FULCRUM_REFERENCE_DIR}/measurements/orin-agx-inference-modes.csv\n",
      "  power_mode: MODE_50W\n");
  const OptimizeResult r = optimize({.plan = {.scenario_path = path}});
  CHECK_FALSE(r.run_failure);
  REQUIRE(r.report.choice.found);
  REQUIRE(r.report.event_driven);
  CHECK(r.report.event_driven_error == std::nullopt);
  // The run used the choice's batch size, not the file's 16.
  REQUIRE(r.report.event_driven->inference.size() == 1);
  CHECK(r.report.event_driven->inference[0].batch_size == r.report.choice.batch_sizes.at(0));
  // One line says the run's model is not the search's truth.
  REQUIRE(r.report.warnings.size() == 1);
  CHECK_THAT(r.report.warnings[0], Catch::StartsWith("device.perf_model differs from the "
                                                     "search's table ground truth"));
}

TEST_CASE("the search's result is kept, printed and serialised when the re-run fails",
          "[app][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  // The run's table model holds only the rows of one mode, so it cannot predict the run's items
  // at the mode the search chooses.
  const std::filesystem::path one_mode = dir.path() / "one-mode.csv";
  {
    std::ifstream in(fulcrum::testing::reference_path("measurements").value() +
                     "/orin-agx-inference-modes.csv");
    std::ofstream out(one_mode);
    std::string line;
    std::getline(in, line);
    out << line << "\n";
  }
  const std::string path = optimize_variant(
      dir, "      - ${FULCRUM_REFERENCE_DIR}/measurements/orin-agx-inference-modes.csv\n",
      "      - " + one_mode.string() + "\n");
  const OptimizeResult r = optimize({.plan = {.scenario_path = path}});
  REQUIRE(r.run_failure);
  REQUIRE(r.report.event_driven_error);
  CHECK_FALSE(r.report.event_driven);
  CHECK(r.report.choice.found);
  const std::string summary = optimize_summary(r.report);
  CHECK_THAT(summary, Catch::Contains("  choice: 8c/729.6/1134.75/3199 MHz, batch 32") &&
                          Catch::Contains("  event-driven run: failed ("));
  const std::string json = optimize_json(r.report);
  CHECK_THAT(json, Catch::Contains("\"event_driven\": null") &&
                       Catch::Contains("\"event_driven_error\": \""));
}

TEST_CASE("optimize refuses an output folder holding a file it does not write, before searching",
          "[app][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  const std::filesystem::path out = dir.path() / "o";
  std::filesystem::create_directories(out);
  std::ofstream(out / "notes.txt") << "mine\n";
  try {
    optimize({.plan = {.scenario_path = kScenario}, .out_dir = out});
    FAIL("a folder holding notes.txt was accepted");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("--out") && Catch::Contains("notes.txt"));
  }
  CHECK(slurp(out / "notes.txt") == "mine\n");
  CHECK_FALSE(std::filesystem::exists(out / "optimize.json"));
}
