// app::sweep and app::merge as functions of typed requests: the report, the CSV published whole,
// and a relative $FULCRUM_REFERENCE_DIR taken from the sweep file's folder, as scenarios take it.
#include "sim/app/sweep.hpp"

#include <stdlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "models/error.hpp"
#include "tests/reference_data.hpp"
#include "tests/scoped_env.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::testing::TempDir;

using fulcrum::testing::ScopedEnv;

namespace {

using fulcrum::testing::slurp;

const char* const kSweep =
    "version: 1\nname: s\nworkloads: [{training: lstm, inference: resnet50}]\n"
    "arrivals: {fixed: [30, 60]}\nlatency_budget_s: [1]\npower_budget_w: [20, 30]\n"
    "strategies: [binary, oracle]\n";

}  // namespace

TEST_CASE("app::sweep publishes the CSV whole and reports its summary; merge joins its shards",
          "[app][sweep]") {
  const std::optional<std::string> ref = fulcrum::testing::reference_path("");
  if (!ref) return;
  TempDir dir;
  const std::string spec = (dir.path() / "s.yaml").string();
  std::ofstream(spec) << kSweep;
  const app::SweepReport whole =
      app::sweep({.sweep_file = spec, .out = dir.path() / "whole.csv", .reference_dir = *ref});
  CHECK(whole.csv == dir.path() / "whole.csv");
  CHECK(whole.summary.configurations == 4);
  REQUIRE(whole.summary.strategies.size() == 2);
  CHECK(whole.summary.strategies[1].strategy == "oracle");
  CHECK(whole.summary.strategies[1].mean_ratio == 1.0);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "whole.csv.partial"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "whole.csv.lock"));
  std::vector<std::string> shards;
  for (std::size_t k = 1; k <= 2; ++k) {
    std::string name = "p";
    name += std::to_string(k);
    name += ".csv";
    const std::filesystem::path p = dir.path() / name;
    const app::SweepReport part =
        app::sweep({.sweep_file = spec, .out = p, .shard = k, .shards = 2, .reference_dir = *ref});
    CHECK(part.summary.configurations == 2);
    shards.push_back(p.string());
  }
  app::merge({shards, dir.path() / "merged.csv"});
  CHECK(slurp(dir.path() / "merged.csv") == slurp(dir.path() / "whole.csv"));
  // The merge's output may not be one of its shards.
  CHECK_THROWS_AS(app::merge({shards, shards[0]}), InputError);
}

TEST_CASE("a relative FULCRUM_REFERENCE_DIR is taken from the sweep file's folder",
          "[app][sweep]") {
  const std::optional<std::string> ref = fulcrum::testing::reference_path("");
  if (!ref) return;
  TempDir dir;
  // dir/study/s.yaml, with dir/study/ref -> the reference folder; run from elsewhere.
  std::filesystem::create_directories(dir.path() / "study");
  std::filesystem::create_directory_symlink(std::filesystem::absolute(*ref),
                                            dir.path() / "study" / "ref");
  const std::string spec = (dir.path() / "study" / "s.yaml").string();
  std::ofstream(spec) << kSweep;
  const ScopedEnv env("FULCRUM_REFERENCE_DIR", "ref");
  const app::SweepReport r = app::sweep({.sweep_file = spec, .out = dir.path() / "s.csv"});
  CHECK(r.summary.configurations == 4);
  // The same relative folder from the current folder would not exist.
  CHECK_FALSE(std::filesystem::exists(std::filesystem::current_path() / "ref"));
}
