// `fulcrum optimize` as a first user meets it (issue: a new user's first hour, optimize): the
// scenario header's claims, honest messages for answers that train nothing or rows the tables
// lack, one-line warnings for what the closed form ignores, the grid the ground truth covers, and
// the verb's own checks of `sweep`'s options.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/cli/cli.hpp"
#include "sim/report/folder_lock.hpp"
#include "tests/reference_data.hpp"
#include "tests/sim/app/optimize_scenario.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::testing::TempDir;

namespace {

struct Result {
  int rc = -1;
  std::string out, err, error;  // error: the InputError's line, when one was thrown
};

Result cli(const std::vector<std::string>& args) {
  Result r;
  std::ostringstream out, err;
  try {
    r.rc = run_cli(args, out, err);
  } catch (const InputError& e) {
    r.error = e.what();
    r.rc = 2;
  }
  r.out = out.str();
  r.err = err.str();
  return r;
}

using fulcrum::testing::slurp;

const std::string& kScenario = fulcrum::testing::kOptimizeScenario;
using fulcrum::testing::optimize_variant;

}  // namespace

TEST_CASE(
    "optimize-measured.yaml's header holds: prior at 15 modes still finds the oracle's choice",
    "[cli][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  const Result r =
      cli({"optimize", kScenario, "--out", dir.path().string(), "--set", "search.max_modes=15"});
  REQUIRE(r.rc == 0);
  // "8c/729.6/1134.75/3199 MHz, batch 32" for both, as the header says.
  CHECK_THAT(r.out,
             Catch::Contains("  choice: 8c/729.6/1134.75/3199 MHz, batch 32: 1 training") &&
                 Catch::Contains("  oracle: 8c/729.6/1134.75/3199 MHz, batch 32: 1 training") &&
                 Catch::Contains("profiling: 15 modes, 75 measurements"));
  CHECK(r.err.empty());  // latency_percentile 100 and the table model: nothing to warn about
  // gmd stops where nothing trains, and says so.
  const Result g =
      cli({"optimize", kScenario, "--out", dir.path().string(), "--set", "search.strategy=gmd"});
  REQUIRE(g.rc == 0);
  CHECK_THAT(g.out, Catch::Contains("choice: 12c/1344/726.75/2133 MHz, batch 32: 0 training") &&
                        Catch::Contains("the choice trains nothing, though the grid holds "
                                        "configurations that do"));
}

TEST_CASE("optimize says when no mode lets training run, and which budget would",
          "[cli][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  const Result r = cli({"optimize", kScenario, "--out", dir.path().string(), "--set",
                        "budgets.power_w=20", "--set", "search.strategy=oracle"});
  REQUIRE(r.rc == 0);
  CHECK_THAT(r.out, Catch::Contains("no mode of the pagoda-441 grid lets training run within "
                                    "these budgets; it would with") &&
                        Catch::Contains("W (latency budget kept)"));
  const std::string j = slurp(dir.path() / "optimize.json");
  CHECK_THAT(j, Catch::Contains("\"training_possible\": false") &&
                    Catch::Contains("\"training_would_run_with\": {"));
}

TEST_CASE("optimize names the rows the tables lack", "[cli][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  Result r =
      cli({"optimize", kScenario, "--out", dir.path().string(), "--set", "training.batch_size=32"});
  CHECK(r.rc == 2);
  CHECK_THAT(r.error, Catch::Contains("training.batch_size: the table ground truth has no training "
                                      "rows of 'mobilenet_v3' at batch size 32 (it has 16)"));
  r = cli(
      {"optimize", kScenario, "--out", dir.path().string(), "--set", "search.batch_sizes=[2, 3]"});
  CHECK(r.rc == 2);
  CHECK_THAT(r.error, Catch::Contains("search.batch_sizes: the table ground truth has no inference "
                                      "rows of 'resnet50' at batch sizes 2, 3 (it has "));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "optimize.json"));
}

TEST_CASE("optimize searches the grid its ground truth covers when search.modes is absent",
          "[cli][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  const std::string path = optimize_variant(
      dir, "  modes: pagoda-441        # the grid searched: the 441 modes both tables measured\n",
      "");
  const Result r = cli({"optimize", path, "--out", (dir.path() / "o").string()});
  REQUIRE(r.rc == 0);
  CHECK_THAT(r.out, Catch::Contains("on the table ground truth (pagoda-441, ") &&
                        Catch::Contains("1 training minibatches per window") &&
                        Catch::Contains("budgets met"));
}

TEST_CASE("optimize warns in one line each about what its closed form ignores", "[cli][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  const Result r = cli({"optimize", kScenario, "--out", dir.path().string(), "--set",
                        "budgets.latency_percentile=99", "--set", "inference[0].max_wait_ms=50"});
  REQUIRE(r.rc == 0);
  CHECK(r.err ==
        "optimize: warning: budgets.latency_percentile 99 is not what the search judges: its "
        "closed form bounds peak latency (100)\n"
        "optimize: warning: inference[0].max_wait_ms is ignored by the search: its closed form "
        "dispatches full batches only (the event-driven run honours it)\n");
  // A re-run model other than the search's ground truth: the analytic model (no perf_model).
  const std::string path = optimize_variant(dir,
                                            "  perf_model:\n    table:\n"
                                            "      - ${FULCRUM_REFERENCE_DIR}/measurements/"
                                            "orin-agx-training-modes.csv\n"
                                            "      - ${FULCRUM_REFERENCE_DIR}/measurements/"
                                            "orin-agx-inference-modes.csv\n",
                                            "");
  const Result m = cli({"optimize", path, "--out", (dir.path() / "m").string()});
  REQUIRE(m.rc == 0);
  CHECK(m.err ==
        "optimize: warning: device.perf_model differs from the search's table ground truth: the "
        "event-driven run predicts with another model than the search judged on\n");
}

TEST_CASE("optimize accepts every strategy sweep does, nn included", "[cli][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  const Result r = cli({"optimize", kScenario, "--out", dir.path().string(), "--set",
                        "search.strategy=nn", "--set", "search.max_modes=10"});
  REQUIRE(r.rc == 0);
  CHECK_THAT(r.out, Catch::StartsWith("optimize optimize-measured: strategy nn on the table"));
  const Result bad =
      cli({"optimize", kScenario, "--out", dir.path().string(), "--set", "search.strategy=nope"});
  CHECK_THAT(bad.error, Catch::Contains("search.strategy: unknown strategy 'nope' (known: ") &&
                            Catch::Contains("nn"));
}

TEST_CASE("optimize's default folder does not repeat the verb", "[cli][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  const Result r = cli({"optimize", kScenario, "--set", "search.strategy=oracle"});
  std::filesystem::current_path(before);
  REQUIRE(r.rc == 0);
  CHECK(std::filesystem::exists(dir.path() / "out" / "optimize-measured" / "optimize.json"));
  CHECK_THAT(r.out, Catch::EndsWith("wrote out/optimize-measured/optimize.json\n"));
  // --out naming a file is refused before the search.
  const std::string file = (dir.path() / "a-file").string();
  std::ofstream(file) << "x";
  const Result f = cli({"optimize", kScenario, "--out", file});
  CHECK(f.rc == 2);
  CHECK_THAT(f.error, Catch::StartsWith("--out: " + file + " is not a folder"));
  CHECK(slurp(file) == "x");
}

TEST_CASE("sweep refuses a negative thread count, --shard with --merge, and its own input as --out",
          "[cli][sweep]") {
  TempDir dir;
  const std::string spec = (dir.path() / "s.yaml").string();
  std::ofstream(spec) << "version: 1\nname: s\nworkloads: [{training: lstm, inference: resnet50}]\n"
                         "arrivals: {fixed: [30]}\nlatency_budget_s: [1]\npower_budget_w: [20]\n"
                         "strategies: [oracle]\n";
  const std::string text = slurp(spec);
  CHECK_THAT(cli({"sweep", spec, "-j", "-1", "--quiet"}).error,
             Catch::Contains("--threads: expected a thread count from 0 (every core) to 1024, "
                             "got '-1'"));
  CHECK_THAT(
      cli({"sweep", "--merge", "--shard", "1/2", "--out", (dir.path() / "m.csv").string(), spec})
          .error,
      Catch::Contains("--shard does not apply to --merge"));
  CHECK_THAT(cli({"sweep", spec, "--out", spec, "--quiet"}).error,
             Catch::StartsWith("--out: " + spec + " is an input of this command"));
  CHECK(slurp(spec) == text);
  CHECK_THAT(cli({"sweep", spec, "--out", dir.path().string(), "--quiet"}).error,
             Catch::StartsWith("--out: " + dir.path().string() + " is a folder"));
  // A file that is not a sweep CSV (a user's data) is not replaced either.
  const std::string data = (dir.path() / "data.csv").string();
  std::ofstream(data) << "a,b\n1,2\n";
  CHECK_THAT(cli({"sweep", spec, "--out", data, "--quiet"}).error,
             Catch::Contains("is not an earlier output of this command"));
  CHECK(slurp(data) == "a,b\n1,2\n");
}

TEST_CASE("a second sweep into a CSV another sweep is writing is refused, the CSV untouched",
          "[cli][sweep]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  const std::string spec = (dir.path() / "s.yaml").string();
  std::ofstream(spec) << "version: 1\nname: s\nworkloads: [{training: lstm, inference: resnet50}]\n"
                         "arrivals: {fixed: [30]}\nlatency_budget_s: [1]\npower_budget_w: [20]\n"
                         "strategies: [oracle]\n";
  const std::filesystem::path csv = dir.path() / "s.csv";
  REQUIRE(cli({"sweep", spec, "--out", csv.string(), "--quiet"}).rc == 0);
  const std::string first = slurp(csv);
  {
    // What a running sweep holds while it writes.
    std::optional<FolderLock> held = FolderLock::try_lock(csv.string() + ".lock");
    REQUIRE(held);
    const Result r = cli({"sweep", spec, "--out", csv.string(), "--quiet"});
    CHECK(r.rc == 2);
    CHECK_THAT(r.error, Catch::Contains("is being written by another fulcrum (pid " +
                                        std::to_string(::getpid()) + "); not started"));
    CHECK(slurp(csv) == first);
    CHECK_FALSE(std::filesystem::exists(csv.string() + ".partial"));
  }
  REQUIRE(cli({"sweep", spec, "--out", csv.string(), "--quiet"}).rc == 0);
  CHECK(slurp(csv) == first);
  CHECK_FALSE(std::filesystem::exists(csv.string() + ".lock"));
}

TEST_CASE("optimize names a grid its ground truth does not cover whole as the cause",
          "[cli][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  const Result r = cli({"optimize", kScenario, "--out", dir.path().string(), "--set",
                        "search.modes=powertrain-4368", "--set", "search.strategy=oracle"});
  REQUIRE(r.rc == 0);
  CHECK_THAT(r.err, Catch::StartsWith("optimize: warning: search.modes: the table ground truth "
                                      "has every value of this problem at ") &&
                        Catch::Contains(" of the 4368 modes of powertrain-4368; profiling the "
                                        "others teaches a strategy nothing (pagoda-441 is "
                                        "covered whole)"));
}

TEST_CASE("a second optimize into a folder another is writing is refused, its JSON untouched",
          "[cli][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  REQUIRE(
      cli({"optimize", kScenario, "--out", dir.path().string(), "--set", "search.strategy=oracle"})
          .rc == 0);
  const std::filesystem::path json = dir.path() / "optimize.json";
  const std::string first = slurp(json);
  {
    std::optional<FolderLock> held = FolderLock::try_lock(json.string() + ".lock");
    REQUIRE(held);
    const Result r =
        cli({"optimize", kScenario, "--out", dir.path().string(), "--set", "search.strategy=maxn"});
    CHECK(r.rc == 2);
    CHECK_THAT(r.error, Catch::Contains("is being written by another fulcrum (pid " +
                                        std::to_string(::getpid()) + "); not written"));
    CHECK_THAT(r.out, Catch::StartsWith("optimize optimize-measured: strategy maxn"));
    CHECK(slurp(json) == first);
    CHECK_FALSE(std::filesystem::exists(json.string() + ".partial"));
  }
  // --json prints the document it writes.
  const Result j = cli({"optimize", kScenario, "--out", dir.path().string(), "--set",
                        "search.strategy=oracle", "--json"});
  REQUIRE(j.rc == 0);
  CHECK(j.out == slurp(json) + "\n");
  CHECK(slurp(json) == first);  // same seed, same bytes
}
