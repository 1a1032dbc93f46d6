// A user's own model through the whole loop with the simulated backend: `profile --workloads
// FILE`, `calibrate --modes --fit PROFILE --workload FILE` and a scenario that names FILE run
// with the calibration written; and a bad workload file refused by calibrate with one line.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/cli/cli.hpp"
#include "tests/input_error.hpp"
#include "tests/reference_data.hpp"
#include "tests/scoped_env.hpp"
#include "tests/sim/report/json_check.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using fulcrum::sim::testing::parse_json;
using fulcrum::testing::error_of;
using fulcrum::testing::slurp;
using fulcrum::testing::TempDir;

using fulcrum::testing::ScopedEnv;

namespace {

std::string stdout_of(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int rc = sim::run_cli(args, out, err);
  INFO(err.str());
  REQUIRE(rc == 0);
  return out.str();
}

std::string refusal(const std::vector<std::string>& args) {
  const InputError e = error_of([&] {
    std::ostringstream out, err;
    sim::run_cli(args, out, err);
  });
  return e.what();
}

// The shipped example workload file under a name no catalog or other test has.
std::string own_workload(const TempDir& dir) {
  std::string text =
      slurp(std::filesystem::path(FULCRUM_DATA_DIR) / "workloads/cifar-convnet.yaml");
  const std::string from = "\nname: cifar-convnet\n";
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), "\nname: calibrated-convnet\n");
  return dir.write("calibrated-convnet.yaml", text);
}

}  // namespace

TEST_CASE(
    "calibrate --workload takes a workload file: profile it, calibrate from the profile, run it",
    "[calibrate][workload-file]") {
  const auto modes = fulcrum::testing::reference_path("measurements/orin-agx-training-modes.csv");
  if (!modes) return;  // skipped
  const std::string reference = std::filesystem::path(*modes).parent_path().parent_path().string();
  TempDir dir;
  const std::string workload = own_workload(dir);
  // A copy of the data folder, so that the calibration written replaces only the copy's.
  const std::filesystem::path data = dir.path() / "data";
  std::filesystem::copy(FULCRUM_DATA_DIR, data, std::filesystem::copy_options::recursive);
  // Without the copy's workload files: the shipped ones are in this process's catalog already,
  // from the shipped folder, and a second folder may not bring the same names.
  std::filesystem::remove_all(data / "workloads");
  const std::string calibration = (data / "calibration/orin-agx-64gb-modes.yaml").string();

  // 1. Profile the file on the simulated backend at ten modes, MAXN first, both phases (as
  //    `fulcrum profile` does by default).
  const std::string profile = (dir.path() / "profile.csv").string();
  stdout_of({"profile", "--workloads", workload, "--batch-sizes", "64", "--modes",
             "12/2201.6/1300.5/3199,8/1497.6/1300.5/3199,4/1113.6/828.75/3199,"
             "12/1497.6/612/2133,2/729.6/1300.5/3199,8/422.4/930.75/665.6,"
             "12/2201.6/408/3199,4/2201.6/1300.5/2133,8/1113.6/612/665.6,2/2201.6/828.75/3199",
             "--out", profile, "-q"});
  // The profile's MAXN row: the minibatch time the calibrated model should give back.
  std::istringstream rows(slurp(profile));
  std::optional<double> maxn_ms;
  for (std::string line; std::getline(rows, line);) {
    if (line.rfind("calibrated-convnet,", 0) != 0 || line.find(",train,") == std::string::npos) {
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string c; std::getline(row, c, ',');) cells.push_back(c);
    REQUIRE(cells.size() > 8);
    if (cells[4] == "12" && cells[5] == "2201600" && cells[6] == "1300500000") {
      maxn_ms = std::stod(cells[8]);
    }
  }
  REQUIRE(maxn_ms);

  // An --at file without a row in a phase the profile holds is refused before the fit.
  const std::string inference_only =
      dir.write("at.csv",
                "model,dataset,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,"
                "minibatch_time_ms,power_w\n"
                "calibrated-convnet,random,infer,64,12,2201600,1300500000,3199000000,5.0,20.0\n");
  const std::string training_profile =
      dir.write("train.csv",
                "model,dataset,phase,minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,"
                "minibatch_time_ms,power_w\n"
                "calibrated-convnet,random,train,64,12,2201600,1300500000,3199000000,9.0,25.0\n");
  CHECK(refusal({"calibrate", "--modes", "--reference", reference, "--fit", training_profile,
                 "--workload", workload, "--at", inference_only})
            .rfind("--at: no rows of workload calibrated-convnet in a phase that --fit fits", 0) ==
        0);

  // 2. Calibrate the file's workload from that profile (by its path, as profile took it): each
  //    phase the profile holds gets its own parameters.
  const auto report = parse_json(
      stdout_of({"calibrate", "--modes", "--reference", reference, "--fit", profile, "--workload",
                 workload, "--at", profile, "--out", calibration, "--json"}));
  CHECK(report.at("fitted_rows").number == 20);
  CHECK(slurp(calibration).find("{workload: calibrated-convnet, phase: training,") !=
        std::string::npos);
  CHECK(slurp(calibration).find("{workload: calibrated-convnet, phase: inference,") !=
        std::string::npos);

  // 3. A scenario naming the file runs with the calibration written.
  const std::string scenario = dir.write(
      "s.yaml",
      "version: 1\nname: own\nseed: 1\nduration_s: 5\n"
      "device: {model: orin-agx-64gb, power_mode: MAXN, perf_model: analytic-modes}\n"
      "training: {workload: calibrated-convnet.yaml, dataset: cifar10, batch_size: 64}\n");
  const ScopedEnv env("FULCRUM_DATA_DIR", data.string());
  const std::string out = (dir.path() / "out").string();
  stdout_of({"run", scenario, "--out", out, "-q"});
  const auto summary = parse_json(slurp(std::filesystem::path(out) / "summary.json"));
  const double ms = summary.at("training").at("gpu_busy_s").number /
                    summary.at("training").at("minibatches").number * 1e3;
  // Within the fit's own error of the profiled minibatch (6.97 ms; the run gives 6.95 ms).
  CHECK(ms == Approx(*maxn_ms).epsilon(0.05));
}

TEST_CASE("calibrate refuses a bad workload file with its own location, before fitting",
          "[calibrate][workload-file]") {
  TempDir dir;
  const std::string bad = dir.write("bad.yaml", "version: 1\nname: bad\nlayers: [\n");
  const std::string e = refusal({"calibrate", "--modes", "--reference", dir.path().string(),
                                 "--workload", bad, "--fit-sample", "10"});
  CHECK(e.rfind(bad + ":4:1: ", 0) == 0);
  CHECK(e.find('\n') == std::string::npos);
  CHECK(refusal({"calibrate", "--modes", "--reference", dir.path().string(), "--workload",
                 (dir.path() / "none.yaml").string(), "--fit-sample", "10"})
            .find("none.yaml") != std::string::npos);
}
