// `fulcrum optimize` and `fulcrum sweep` through the command line: same seed, same bytes; shards
// merged equal the whole run; bad input is one located line and exit code 2.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/cli/cli.hpp"
#include "tests/reference_data.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::testing::TempDir;

namespace {

int cli(const std::vector<std::string>& args, std::string* out_text = nullptr,
        std::string* err_text = nullptr) {
  std::ostringstream out, err;
  const int rc = run_cli(args, out, err);
  if (out_text != nullptr) *out_text = out.str();
  if (err_text != nullptr) *err_text = err.str();
  return rc;
}

// The one line an InputError prints (main prints it and exits 2), or "" when none was thrown.
std::string input_error(const std::vector<std::string>& args) {
  try {
    cli(args);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

using fulcrum::testing::slurp;

const std::string kScenario = std::string(FULCRUM_SOURCE_DIR) + "/scenarios/optimize-measured.yaml";

}  // namespace

TEST_CASE("optimize writes the same optimize.json for the same seed", "[cli][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  std::string out;
  for (const char* name : {"a", "b"}) {
    REQUIRE(cli({"optimize", kScenario, "--out", (dir.path() / name).string()}, &out) == 0);
  }
  const std::string a = slurp(dir.path() / "a" / "optimize.json");
  CHECK(a == slurp(dir.path() / "b" / "optimize.json"));
  CHECK(a.find("\"budgets_met\": true") != std::string::npos);
  CHECK(a.find("\"event_driven\": {") != std::string::npos);
  CHECK(out.find("oracle: ") != std::string::npos);
  // Every strategy answers through the verb, within its budget.
  for (const char* s : {"gmd", "als", "oracle"}) {
    INFO(s);
    std::string set = "search.strategy=";
    set += s;
    REQUIRE(cli({"optimize", kScenario, "--out", (dir.path() / s).string(), "--set", set, "--set",
                 "search.max_modes=20"},
                &out) == 0);
    const std::string j = slurp(dir.path() / s / "optimize.json");
    std::string want = "\"strategy\": \"";
    want += s;
    CHECK(j.find(want) != std::string::npos);
  }
}

TEST_CASE("optimize charges idle time at the catalog's idle power under time-weighted power",
          "[cli][optimize]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  std::string out;
  REQUIRE(cli({"optimize", kScenario, "--out", dir.path().string(), "--set",
               "search.power_constraint=time-weighted"},
              &out) == 0);
  const std::string j = slurp(dir.path() / "optimize.json");
  CHECK(j.find("\"power_constraint\": \"time-weighted\"") != std::string::npos);
  // models/data/devices/orin-agx-64gb.yaml: idle_w 18.6 W.
  CHECK(j.find("\"idle_power_w\": 18.6") != std::string::npos);
  CHECK(out.find("time-weighted power") != std::string::npos);
}

TEST_CASE("optimize refuses a bad search block with one located line", "[cli][optimize]") {
  // The scenario's tables are the reference measurements: without them the first error is theirs.
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  std::string text = slurp(kScenario);
  const std::size_t at = text.find("  objective: per-window");
  REQUIRE(at != std::string::npos);
  text.replace(at, std::string("  objective: per-window").size(), "  objective: fastest");
  const std::string path = (dir.path() / "bad.yaml").string();
  std::ofstream(path) << text;
  std::string err = input_error({"optimize", path, "--out", (dir.path() / "o").string()});
  CHECK_THAT(err, Catch::Contains("bad.yaml:") &&
                      Catch::Contains(": search.objective: must be one of per-window, "
                                      "per-second, got 'fastest'"));
  CHECK(err.find('\n') == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "o" / "optimize.json"));
  // A scenario without a search block.
  err = input_error({"optimize", std::string(FULCRUM_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                     "--out", (dir.path() / "o").string()});
  CHECK_THAT(err, Catch::Contains("search: missing"));
}

TEST_CASE("sweep shards merged through the CLI equal the whole run", "[cli][sweep]") {
  if (!fulcrum::testing::reference_path("measurements")) return;
  TempDir dir;
  const std::string spec = (dir.path() / "s.yaml").string();
  std::ofstream(spec) << "version: 1\nname: s\nworkloads: [{training: lstm, inference: resnet50}]\n"
                         "arrivals: {fixed: [30, 60], dynamic: [[30, 60]]}\n"
                         "latency_budget_s: [1]\npower_budget_w: [20, 30]\n"
                         "strategies: [binary, gmd, oracle]\n";
  const std::string whole = (dir.path() / "whole.csv").string();
  std::string out;
  REQUIRE(cli({"sweep", spec, "--out", whole, "--quiet", "-j", "2"}, &out) == 0);
  CHECK(out.find("gmd") != std::string::npos);
  std::vector<std::string> args = {"sweep", "--merge", "--out",
                                   (dir.path() / "merged.csv").string()};
  for (int k = 1; k <= 4; ++k) {
    std::string name = "p";
    name += std::to_string(k);
    name += ".csv";
    std::string shard_arg = std::to_string(k);
    shard_arg += "/4";
    const std::string shard = (dir.path() / name).string();
    REQUIRE(cli({"sweep", spec, "--shard", shard_arg, "--out", shard, "--quiet"}) == 0);
    args.push_back(shard);
  }
  REQUIRE(cli(args) == 0);
  CHECK(slurp(whole) == slurp(dir.path() / "merged.csv"));
  CHECK_THAT(input_error({"sweep", spec, "--shard", "5/4", "--quiet"}),
             Catch::Contains("--shard: expected K/N"));
  CHECK_THAT(input_error({"sweep", "--merge", (dir.path() / "p1.csv").string()}),
             Catch::Contains("--merge needs --out"));
}
