// Golden tests: the published GMD and the brute-force optimum, row for row, against the reference
// results (reference/measurements/gmd-training-reference.csv and gmd-concurrent-reference.csv).
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "models/io/csv_reader.hpp"
#include "sim/search/evaluation.hpp"
#include "sim/search/gmd.hpp"
#include "sim/search/strategy.hpp"
#include "tests/sim/search/search_fixture.hpp"

namespace fulcrum::sim::search {
namespace {

using testing::table_truth;

// The reference's mode label: cores_cpuKHz_gpuHz_memHz.
std::string label(const models::PowerMode& m) {
  return std::to_string(m.cores) + "_" + std::to_string(static_cast<long long>(m.cpu_khz)) + "_" +
         std::to_string(static_cast<long long>(m.gpu_hz)) + "_" +
         std::to_string(static_cast<long long>(m.emc_hz));
}

// Every row of a reference CSV as column name -> cell text.
std::vector<std::map<std::string, std::string>> read_rows(const std::string& path) {
  std::ifstream in(path);
  models::CsvReader csv(in, path);
  REQUIRE(csv.header());
  std::vector<std::map<std::string, std::string>> out;
  for (models::CsvRow row; csv.next(row);) {
    std::map<std::string, std::string> r;
    for (std::size_t i = 0; i < row.cells.size() && i < csv.header()->cells.size(); ++i) {
      r[csv.header()->cells[i].text] = row.cells[i].text;
    }
    r["#line"] = std::to_string(row.line);
    out.push_back(std::move(r));
  }
  return out;
}

TEST_CASE("gmd reproduces every training-only reference row, and the oracle the optimum",
          "[search][gmd][golden]") {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const std::optional<std::string> path =
      fulcrum::testing::reference_path("measurements/gmd-training-reference.csv");
  if (!path) return;
  const auto rows = read_rows(*path);
  REQUIRE(rows.size() == 174);
  const std::unique_ptr<Strategy> gmd = strategy_registry().make("gmd", {});
  int checked = 0;
  for (const auto& r : rows) {
    INFO("line " << r.at("#line") << ": " << r.at("train_model") << " at " << r.at("power_budget_w")
                 << " W");
    Problem p;
    p.training = r.at("train_model");
    p.power_budget_w = std::stod(r.at("power_budget_w"));
    const SearchContext ctx = make_context(*truth, p);
    const Choice c = run_strategy(*gmd, p, ctx);
    if (r.at("gmd_cores").empty()) {
      CHECK_FALSE(c.found);
    } else {
      REQUIRE(c.found);
      CHECK(c.mode.cores == std::stoi(r.at("gmd_cores")));
      CHECK(c.mode.cpu_khz == std::stod(r.at("gmd_cpu_freq_khz")));
      CHECK(c.mode.gpu_hz == std::stod(r.at("gmd_gpu_freq_hz")));
      CHECK(c.mode.emc_hz == std::stod(r.at("gmd_mem_freq_hz")));
      CHECK(c.tries == std::stoi(r.at("gmd_modes_profiled")));
      CHECK(1000.0 / c.predicted_per_s == Approx(std::stod(r.at("gmd_minibatch_time_ms"))));
    }
    const Choice o = Oracle::solve(p, ctx);
    if (r.at("opt_cores").empty()) {
      CHECK_FALSE(o.found);
    } else {
      REQUIRE(o.found);
      CHECK(label(o.mode) == r.at("opt_cores") + "_" + r.at("opt_cpu_freq_khz") + "_" +
                                 r.at("opt_gpu_freq_hz") + "_" + r.at("opt_mem_freq_hz"));
      CHECK(1000.0 / o.predicted_per_s == Approx(std::stod(r.at("opt_minibatch_time_ms"))));
    }
    ++checked;
  }
  CHECK(checked == 174);
}

// One workload pair of the concurrent reference: gmd's decision and tries, and the optimum (mode,
// batch size, minibatches per window), scanned from one candidate table for the pair.
void check_concurrent_pair(const std::string& train, const std::string& infer) {
  const TableGroundTruth* truth = table_truth();
  if (truth == nullptr) return;
  const std::optional<std::string> path =
      fulcrum::testing::reference_path("measurements/gmd-concurrent-reference.csv");
  if (!path) return;
  static const auto rows = read_rows(*path);
  const std::unique_ptr<Strategy> gmd = strategy_registry().make("gmd", {});
  Problem base;
  base.training = train;
  base.streams.push_back({infer, 30, 0.5, {}});
  base.objective = Objective::per_window;
  const SearchContext ctx = make_context(*truth, base);
  const CandidateTable table = Oracle::table(base, ctx);
  int checked = 0;
  for (const auto& r : rows) {
    if (r.at("train_model") != train || r.at("infer_model") != infer) continue;
    INFO("line " << r.at("#line") << ": a=" << r.at("arrival_rate_per_s")
                 << " L=" << r.at("latency_budget_s") << " P=" << r.at("power_budget_w"));
    Problem p = base;
    p.streams[0].arrival_per_s = std::stod(r.at("arrival_rate_per_s"));
    p.streams[0].latency_budget_s = std::stod(r.at("latency_budget_s"));
    p.power_budget_w = std::stod(r.at("power_budget_w"));
    const Choice c = run_strategy(*gmd, p, ctx);
    CHECK(c.tries == std::stoi(r.at("gmd_tries")));
    if (r.at("gmd_powermode").empty()) {
      CHECK_FALSE(c.found);
    } else {
      REQUIRE(c.found);
      CHECK(label(c.mode) == r.at("gmd_powermode"));
      CHECK(c.batch_sizes.at(0) == std::stoi(r.at("gmd_infer_minibatch_size")));
      CHECK(c.predicted_per_window == std::stol(r.at("gmd_train_minibatches_per_window")));
    }
    const CandidateTable::Best o = table.best(p);
    if (r.at("opt_powermode").empty()) {
      CHECK_FALSE(o.found);
    } else {
      REQUIRE(o.found);
      CHECK(o.state.per_window == std::stol(r.at("opt_train_minibatches_per_window")));
      CHECK(o.batch_size == std::stoi(r.at("opt_infer_minibatch_size")));
      CHECK(label(ctx.grid.at(o.mode)) == r.at("opt_powermode"));
    }
    ++checked;
  }
  CHECK(checked == 6560);
}

TEST_CASE("gmd reproduces every concurrent reference row: resnet18 + mobilenet_v3",
          "[search][gmd][golden]") {
  check_concurrent_pair("resnet18", "mobilenet_v3");
}

TEST_CASE("gmd reproduces every concurrent reference row: mobilenet_v3 + lstm",
          "[search][gmd][golden]") {
  check_concurrent_pair("mobilenet_v3", "lstm");
}

TEST_CASE("gmd reproduces every concurrent reference row: mobilenet_v3 + mobilenet_v3",
          "[search][gmd][golden]") {
  check_concurrent_pair("mobilenet_v3", "mobilenet_v3");
}

}  // namespace
}  // namespace fulcrum::sim::search
