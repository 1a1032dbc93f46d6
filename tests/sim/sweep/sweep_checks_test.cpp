// What a sweep must get right beyond its figures: the oracle reads the exact truth whatever the
// profiler's noise, a merge refuses shards of another sweep or missing rows (and reads CRLF
// shards), a dynamic row that missed a budget scores 0, a sweep's name cannot leave out/, and
// the progress line is rate-limited off a terminal.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/search/strategy.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_spec.hpp"
#include "tests/reference_data.hpp"
#include "tests/sim/sweep/csv_rows.hpp"

namespace fulcrum::sim::sweep {
namespace {

const std::vector<std::string>& known() {
  static const std::vector<std::string> names = search::strategy_registry().names();
  return names;
}

using testing::csv_rows;

std::string run_text(const SweepSpec& spec, const SweepTruths& truths, SweepOptions o) {
  std::ostringstream csv;
  run_sweep(spec, truths, o, csv);
  return csv.str();
}

// Two streams (the oracle's grid set) and one stream (its candidate table), noisy profiling.
std::string noisy_sweep(const std::string& noise, int seed = 3) {
  return "version: 1\nname: noisy\nseed: " + std::to_string(seed) +
         "\n"
         "workloads:\n"
         "  - {training: resnet18, inference: [mobilenet_v3, lstm]}\n"
         "  - {training: mobilenet_v3, inference: lstm}\n"
         "arrivals: {fixed: [40, 100]}\n"
         "latency_budget_s: [0.6, 1.5]\n"
         "power_budget_w: [20, 30, 40]\n"
         "strategies: [binary, oracle]\n"
         "profiler: {noise: " +
         noise + "}\n";
}

class TempFolder {
 public:
  TempFolder()
      : path_(std::filesystem::temp_directory_path() /
              ("fulcrum-sweep-checks-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name, const std::string& text) const {
    const std::string p = (path_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace

TEST_CASE("a sweep's oracle reads the exact truth, so it meets every budget it claims under noise",
          "[sweep]") {
  const std::optional<std::string> ref = fulcrum::testing::reference_path("measurements");
  if (!ref) return;
  const SweepSpec exact = parse_sweep(noisy_sweep("0"), "exact.yaml", known());
  const SweepSpec noisy = parse_sweep(noisy_sweep("0.1"), "noisy.yaml", known());
  const SweepTruths truths = SweepTruths::load(noisy, FULCRUM_DATA_DIR, *ref);
  const auto exact_rows = csv_rows(run_text(exact, truths, {.threads = 2}));
  const auto noisy_rows = csv_rows(run_text(noisy, truths, {.threads = 2}));
  REQUIRE(exact_rows.size() == noisy_rows.size());
  REQUIRE(exact_rows.size() == 2 * 2 * 2 * 3 * 2);
  int claimed = 0;
  for (std::size_t i = 0; i < noisy_rows.size(); ++i) {
    const std::vector<std::string>& r = noisy_rows[i];
    INFO(r[0] << " " << r[6]);
    // The optimum, its value and feasibility do not depend on the profiler's noise.
    CHECK(r[11] == exact_rows[i][11]);
    CHECK(r[9] == exact_rows[i][9]);
    if (r[6] != "oracle") continue;
    CHECK(r == exact_rows[i]);
    if (r[9] == "1") {
      ++claimed;
      CHECK(r[8] == "1");  // judged on the truth: its claimed optimum meets both budgets
      CHECK(r[12] == "1.000000");
    }
  }
  CHECK(claimed > 0);
  // The noise did reach the strategies that profile: some binary row differs.
  bool differs = false;
  for (std::size_t i = 0; i < noisy_rows.size(); ++i) {
    if (noisy_rows[i][6] == "binary" && noisy_rows[i] != exact_rows[i]) differs = true;
  }
  CHECK(differs);
}

TEST_CASE("sweep --merge refuses another sweep's shard and a shard missing a row, reads CRLF",
          "[sweep]") {
  const std::optional<std::string> ref = fulcrum::testing::reference_path("measurements");
  if (!ref) return;
  const SweepSpec a = parse_sweep(noisy_sweep("0"), "a.yaml", known());
  const SweepSpec b = parse_sweep(noisy_sweep("0", 4), "a.yaml", known());  // another seed
  REQUIRE(a.digest != b.digest);
  REQUIRE(a.digest.size() == 16);
  const SweepTruths truths = SweepTruths::load(a, FULCRUM_DATA_DIR, *ref);
  TempFolder dir;
  const std::string whole = run_text(a, truths, {.version = "9.9", .threads = 2});
  CHECK(whole.substr(0, whole.find('\n')).find("; sweep file " + a.digest + "; fulcrum 9.9") !=
        std::string::npos);
  std::vector<std::string> shards;
  for (std::size_t k = 1; k <= 3; ++k) {
    std::string name = "a";
    name += std::to_string(k);
    name += ".csv";
    shards.push_back(
        dir.file(name, run_text(a, truths, {.version = "9.9", .shard = k, .shards = 3})));
  }
  std::ostringstream merged;
  merge_sweep(shards, merged, "9.9");
  CHECK(merged.str() == whole);

  // Shard 2 of the other sweep (same name, same size, another seed).
  const std::string other =
      dir.file("b2.csv", run_text(b, truths, {.version = "9.9", .shard = 2, .shards = 3}));
  std::ostringstream sink;
  CHECK_THROWS_WITH(merge_sweep({shards[0], other, shards[2]}, sink, "9.9"),
                    Catch::StartsWith(other + ":1:1: is a shard of another sweep file"));
  // Written by another build.
  CHECK_THROWS_WITH(merge_sweep(shards, sink, "9.8"),
                    Catch::Contains("was written by fulcrum 9.9, not by this build (9.8)"));

  // A shard with one row deleted: the configuration is named, with its row count.
  std::string text = run_text(a, truths, {.version = "9.9", .shard = 2, .shards = 3});
  const std::size_t third_line = text.find('\n', text.find('\n') + 1) + 1;
  const std::size_t fourth_line = text.find('\n', third_line) + 1;
  const std::string first_row = text.substr(third_line, fourth_line - third_line);
  const std::string config = first_row.substr(0, first_row.find(','));
  text.erase(third_line, fourth_line - third_line);  // its first strategy's row
  const std::string holed = dir.file("holed.csv", text);
  CHECK_THROWS_WITH(merge_sweep({shards[0], holed, shards[2]}, sink, "9.9"),
                    Catch::StartsWith(holed + ":3:1: configuration " + config +
                                      ": expected the row of strategy 'binary', got 'oracle'"));
  // The last row of a configuration deleted instead.
  std::string text2 = run_text(a, truths, {.version = "9.9", .shard = 2, .shards = 3});
  const std::size_t row2 = text2.find('\n', text2.find('\n') + 1) + 1;
  const std::size_t row3 = text2.find('\n', row2) + 1;
  const std::size_t row4 = text2.find('\n', row3) + 1;
  text2.erase(row3, row4 - row3);
  const std::string short_one = dir.file("short.csv", text2);
  CHECK_THROWS_WITH(merge_sweep({shards[0], short_one, shards[2]}, sink, "9.9"),
                    Catch::Contains("has 1 of its 2 rows"));

  // CRLF line ends (a shard that went through another system) merge to the same bytes.
  std::vector<std::string> crlf;
  for (std::size_t k = 0; k < shards.size(); ++k) {
    std::ifstream in(shards[k], std::ios::binary);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string t;
    for (char c : s) {
      if (c == '\n') t += '\r';
      t += c;
    }
    std::string name = "crlf";
    name += std::to_string(k);
    name += ".csv";
    crlf.push_back(dir.file(name, t));
  }
  std::ostringstream merged_crlf;
  merge_sweep(crlf, merged_crlf, "9.9");
  CHECK(merged_crlf.str() == whole);
}

TEST_CASE("sweep --merge refuses a shard that is not a regular file before reading it", "[sweep]") {
  std::ostringstream sink;
  // /dev/zero would be read forever; a folder is no file.
  CHECK_THROWS_WITH(merge_sweep({"/dev/zero"}, sink, "9.9"),
                    Catch::Contains("/dev/zero") && Catch::Contains("regular file"));
  CHECK_THROWS_WITH(merge_sweep({"/"}, sink, "9.9"), Catch::Contains("regular file"));
  CHECK(sink.str().empty());
}

TEST_CASE("a dynamic row that missed a budget in any segment scores a ratio of 0", "[sweep]") {
  const std::optional<std::string> ref = fulcrum::testing::reference_path("measurements");
  if (!ref) return;
  const SweepSpec spec = parse_sweep(
      "version: 1\nname: dyn\nseed: 2\n"
      "workloads: [{training: resnet18, inference: mobilenet_v3}]\n"
      "arrivals: {dynamic: [[30, 120], [120, 30, 60]]}\n"
      "latency_budget_s: [0.3, 0.6, 1.5]\npower_budget_w: [15, 20, 25, 30, 40]\n"
      "strategies: [maxn, presets, binary, gmd, oracle]\n",
      "dyn.yaml", known());
  const SweepTruths truths = SweepTruths::load(spec, FULCRUM_DATA_DIR, *ref);
  int missed = 0;
  for (const std::vector<std::string>& r : csv_rows(run_text(spec, truths, {.threads = 2}))) {
    INFO(r[0] << " " << r[6]);
    if (r[8] == "0") {
      ++missed;
      CHECK(r[12] == "0.000000");
    }
  }
  CHECK(missed > 0);
}

TEST_CASE("a sweep's name cannot name a path outside out/", "[sweep]") {
  auto error_of = [](const std::string& name) {
    try {
      parse_sweep("version: 1\nname: '" + name +
                      "'\nworkloads: [{training: resnet18, inference: lstm}]\n"
                      "arrivals: {fixed: [30]}\nlatency_budget_s: [1]\npower_budget_w: [20]\n"
                      "strategies: [gmd]\n",
                  "n.yaml", known());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("../../evil"), Catch::StartsWith("n.yaml:2:7: name: must be letters") &&
                                         Catch::Contains("got '../../evil'"));
  CHECK_THAT(error_of("a/b"), Catch::StartsWith("n.yaml:2:7: name: "));
  CHECK_THAT(error_of(".hidden"), Catch::StartsWith("n.yaml:2:7: name: "));
  CHECK(error_of("paper-scale_v1.2") == "no error");
}

}  // namespace fulcrum::sim::sweep
