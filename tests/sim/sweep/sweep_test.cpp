#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "models/io/csv_reader.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/search/learned_strategies.hpp"
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

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

using testing::csv_rows;

std::string run_text(const SweepSpec& spec, const SweepTruths& truths, SweepOptions o,
                     SweepSummary* summary = nullptr) {
  std::ostringstream csv;
  SweepSummary s = run_sweep(spec, truths, o, csv);
  if (summary != nullptr) *summary = s;
  return csv.str();
}

// A sweep small enough to run several times: cheap strategies, a small als, both arrival kinds.
const char* const kTiny = R"(version: 1
name: tiny
seed: 4
workloads:
  - {training: mobilenet_v3, inference: lstm}
  - {training: resnet18, inference: [mobilenet_v3, lstm]}
arrivals: {fixed: [40, 100], dynamic: [[40, 100]]}
latency_budget_s: [0.6, 1.5]
power_budget_w: {from: 20, to: 40, step: 10}
strategies: [random, binary, gmd, {name: als, max_modes: 25}, {name: prior, max_modes: 8}, oracle]
)";

TEST_CASE("a sweep gives the same bytes on any thread count, and shards merge to the whole",
          "[sweep]") {
  const std::optional<std::string> ref = fulcrum::testing::reference_path("measurements");
  if (!ref) return;
  const SweepSpec spec = parse_sweep(kTiny, "tiny.yaml", known());
  REQUIRE(spec.configurations() == 2 * 3 * 2 * 3);
  const SweepTruths truths = SweepTruths::load(spec, FULCRUM_DATA_DIR, *ref);
  SweepSummary summary;
  const std::string one = run_text(spec, truths, {.threads = 1}, &summary);
  const std::string two = run_text(spec, truths, {.threads = 2});
  CHECK(one == two);
  CHECK(one == run_text(spec, truths, {.threads = 1}));  // same seed, same bytes
  // Three shards, written to files and merged in a shuffled order.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("fulcrum-sweep-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<std::string> files;
  for (std::size_t k : {3, 1, 2}) {
    const std::string path = (dir / ("shard-" + std::to_string(k) + ".csv")).string();
    std::ofstream(path) << run_text(spec, truths, {.threads = 2, .shard = k, .shards = 3});
    files.push_back(path);
  }
  std::ostringstream merged;
  const SweepSummary m = merge_sweep(files, merged, "");
  CHECK(merged.str() == one);
  CHECK(format_summary(m) == format_summary(summary));
  // A shard missing, or given twice: located errors.
  CHECK_THROWS_WITH(merge_sweep({files[0], files[1]}, merged, ""),
                    Catch::Contains("the shards hold") && Catch::Contains("of 36 configurations"));
  CHECK_THROWS_WITH(
      merge_sweep({files[0], files[0]}, merged, ""),
      Catch::Contains(files[0] + ":3:1: ") && Catch::Contains("appears in more than one shard"));
  std::filesystem::remove_all(dir);

  // Every row: the strategy stayed within its budget per segment; the oracle met every budget.
  const std::map<std::string, int> budget = {{"random", 50}, {"binary", 25}, {"gmd", 25},
                                             {"als@25", 25}, {"prior@8", 8}, {"oracle", 0}};
  for (const std::vector<std::string>& r : csv_rows(one)) {
    REQUIRE(r.size() == 20);
    const int segments = r[3].find('>') == std::string::npos ? 1 : 2;
    INFO(r[0] << " " << r[6]);
    CHECK(std::stoi(r[15]) <= budget.at(r[6]) * (r[19] == "1" ? 1 : segments));
    if (r[6] == "oracle") CHECK(r[8] == r[9]);  // met exactly where an optimum exists
    if (r[6] == "als@25") CHECK(r[19] == "1");
  }
  for (const StrategySummary& s : summary.strategies) {
    if (s.strategy == "oracle") {
      CHECK(s.met == s.feasible);
      CHECK(s.mean_ratio == 1.0);
    }
  }
}

// nn and powertrain in a sweep: seeded once per workload set, so each series of a set is fitted
// once and shared by its configurations, whatever the threads (the fits run concurrently on 2).
const char* const kLearnedSweep = R"(version: 1
name: learned
seed: 3
workloads:
  - {training: mobilenet_v3, inference: lstm}
  - {training: resnet18, inference: [mobilenet_v3, lstm]}
arrivals: {fixed: [40, 100], dynamic: [[40, 100]]}
latency_budget_s: [0.6, 1.5]
power_budget_w: [20, 35]
strategies: [{name: nn, max_modes: 8}, {name: powertrain, max_modes: 8}, oracle]
)";

TEST_CASE("a sweep with nn and powertrain gives the same bytes on 1 and 2 threads, fitting once",
          "[sweep]") {
  const std::optional<std::string> ref = fulcrum::testing::reference_path("measurements");
  if (!ref) return;
  const SweepSpec spec = parse_sweep(kLearnedSweep, "learned.yaml", known());
  const SweepTruths truths = SweepTruths::load(spec, FULCRUM_DATA_DIR, *ref);
  // Series: mobilenet_v3 training + lstm at 5 batch sizes; resnet18 training + mobilenet_v3 and
  // lstm at 5 each: 6 + 11, for each of the two learners.
  const std::uint64_t fits = 2 * (6 + 11);
  search::clear_learned_fit_cache();
  const std::string one = run_text(spec, truths, {.threads = 1});
  CHECK(search::learned_fit_cache_stats().fits == fits);
  search::clear_learned_fit_cache();
  const std::string two = run_text(spec, truths, {.threads = 2});
  CHECK(search::learned_fit_cache_stats().fits == fits);
  CHECK(one == two);
  // Warm: every fit from the cache, the same bytes.
  CHECK(run_text(spec, truths, {.threads = 2}) == one);
  CHECK(search::learned_fit_cache_stats().fits == fits);
  // Every configuration of a set profiled the same sample: the same modes count, and the rows
  // are answers (not all "not found").
  std::map<std::string, std::set<std::string>> modes;
  int found = 0;
  for (const std::vector<std::string>& r : csv_rows(one)) {
    if (r[6] == "oracle") continue;
    if (r[3].find('>') == std::string::npos) modes[r[2] + r[6]].insert(r[15]);
    found += r[7] == "1" ? 1 : 0;
  }
  for (const auto& [key, counts] : modes) {
    INFO(key);
    CHECK(counts.size() <= 2);  // 7 sampled, plus the verified prediction unless it was sampled
  }
  CHECK(found > 0);
}

TEST_CASE("the paper-scale sweep and its subsample have the sizes and strategies they quote",
          "[sweep]") {
  const std::string dir = std::string(FULCRUM_SOURCE_DIR) + "/scenarios/sweeps/";
  const SweepSpec whole = load_sweep(dir + "paper-scale.yaml", known());
  const SweepSpec sample = load_sweep(dir + "paper-sample.yaml", known());
  CHECK(whole.configurations() == 293888);
  CHECK(sample.configurations() == 12096);
  CHECK(whole.workloads.size() == 32);
  CHECK(whole.arrivals.size() == 14);
  const std::vector<std::string> eleven = {"maxn", "presets", "random", "binary",
                                           "gmd",  "gmd+",    "nn",     "powertrain",
                                           "als",  "prior",   "oracle"};
  for (const SweepSpec* s : {&whole, &sample}) {
    std::vector<std::string> names;
    for (const StrategyEntry& e : s->strategies) names.push_back(e.name);
    CHECK(names == eleven);
  }
  // The subsample: the same sets, arrivals and seed; 3 of the 16 latency and 9 of the 41 power
  // budgets.
  CHECK(sample.workloads.size() == whole.workloads.size());
  CHECK(sample.arrivals.size() == whole.arrivals.size());
  CHECK(sample.seed == whole.seed);
  CHECK(sample.latency_budgets_s.size() == 3);
  CHECK(sample.power_budgets_w.size() == 9);
  for (double l : sample.latency_budgets_s) {
    CHECK(std::count_if(whole.latency_budgets_s.begin(), whole.latency_budgets_s.end(),
                        [&](double w) { return std::abs(w - l) < 1e-9; }) == 1);
  }
}

TEST_CASE("the small sweep CI runs", "[sweep]") {
  const std::optional<std::string> ref = fulcrum::testing::reference_path("measurements");
  if (!ref) return;
  const SweepSpec spec =
      load_sweep(std::string(FULCRUM_SOURCE_DIR) + "/scenarios/sweeps/small.yaml", known());
  const SweepTruths truths = SweepTruths::load(spec, FULCRUM_DATA_DIR, *ref);
  SweepSummary s;
  const std::string csv = run_text(spec, truths, {.threads = 0}, &s);
  CHECK(csv_rows(csv).size() == spec.configurations() * spec.strategies.size());
  REQUIRE(s.strategies.size() == spec.strategies.size());
  for (const StrategySummary& t : s.strategies) {
    INFO(t.strategy);
    CHECK(t.configurations == spec.configurations());
    CHECK(t.feasible > 0);
    CHECK(t.mean_ratio <= 1.0 + 1e-12);
  }
}

// The reference's mode label: cores_cpuKHz_gpuHz_memHz, from "8c/1344/726.75/2133 MHz".
std::string reference_label(const std::string& mode) {
  if (mode.empty()) return "";
  int cores = 0;
  double cpu = 0, gpu = 0, emc = 0;
  std::sscanf(mode.c_str(), "%dc/%lf/%lf/%lf", &cores, &cpu, &gpu, &emc);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%d_%.0f_%.0f_%.0f", cores, cpu * 1e3, gpu * 1e6, emc * 1e6);
  return buf;
}

TEST_CASE("the gmd-concurrent sweep reproduces the reference GMD and optimum columns",
          "[sweep][golden]") {
  const std::optional<std::string> ref = fulcrum::testing::reference_path("measurements");
  if (!ref) return;
  std::string text =
      read_text(std::string(FULCRUM_SOURCE_DIR) + "/scenarios/sweeps/gmd-concurrent.yaml");
  // Only the two strategies the reference holds (the others are for the comparison).
  const std::size_t at = text.find("strategies:");
  REQUIRE(at != std::string::npos);
  text = text.substr(0, at) + "strategies: [gmd, oracle]\n";
  const SweepSpec spec = parse_sweep(text, "gmd-concurrent.yaml", known());
  REQUIRE(spec.configurations() == 19680);
  const SweepTruths truths = SweepTruths::load(spec, FULCRUM_DATA_DIR, *ref);
  const std::vector<std::vector<std::string>> rows = csv_rows(run_text(spec, truths, {}));
  REQUIRE(rows.size() == 2 * 19680);
  // The reference, keyed like the sweep's rows.
  std::ifstream in(*ref + "/gmd-concurrent-reference.csv");
  models::CsvReader csv(in, "gmd-concurrent-reference.csv");
  REQUIRE(csv.header());
  std::map<std::string, std::vector<std::string>> reference;
  for (models::CsvRow row; csv.next(row);) {
    std::vector<std::string> cells;
    for (const auto& c : row.cells) cells.push_back(c.text);
    reference[cells[0] + "/" + cells[1] + "," + cells[2] + "," + cells[3] + "," + cells[4]] = cells;
  }
  REQUIRE(reference.size() == 19680);
  int compared = 0;
  for (std::size_t i = 0; i < rows.size(); i += 2) {
    const std::vector<std::string>& g = rows[i];
    const std::vector<std::string>& o = rows[i + 1];
    REQUIRE(g[6] == "gmd");
    REQUIRE(o[6] == "oracle");
    const auto it = reference.find(g[2] + "," + g[3] + "," + g[4] + "," + g[5]);
    REQUIRE(it != reference.end());
    const std::vector<std::string>& r = it->second;
    INFO("config " << g[0] << ": " << g[2] << " a=" << g[3] << " l=" << g[4] << " p=" << g[5]);
    CHECK(reference_label(g[13]) == r[5]);
    CHECK(g[14] == r[6]);
    CHECK((g[7] == "1" ? g[10] : "") == r[7]);
    CHECK(g[16] == r[8]);
    CHECK(reference_label(o[13]) == r[9]);
    CHECK(o[14] == r[10]);
    CHECK((o[7] == "1" ? o[10] : "") == r[11]);
    ++compared;
  }
  CHECK(compared == 19680);
}

// Time-weighted power on the analytic truth (no reference needed); `extra` is appended.
std::string time_weighted_sweep(const std::string& extra) {
  return "version: 1\nname: idle\nground_truth: analytic\npower_constraint: time-weighted\n"
         "workloads: [{training: resnet18, inference: mobilenet_v3}]\n"
         "arrivals: {fixed: [10, 40]}\nlatency_budget_s: [1]\n"
         "power_budget_w: {from: 15, to: 60, step: 1}\nstrategies: [oracle]\n" +
         extra;
}

TEST_CASE("a time-weighted sweep charges idle time at the catalog's idle power unless it sets one",
          "[sweep]") {
  const SweepSpec plain = parse_sweep(time_weighted_sweep(""), "idle.yaml", known());
  const SweepSpec catalog =
      parse_sweep(time_weighted_sweep("idle_power_w: 18.6\n"), "idle.yaml", known());
  const SweepSpec zero =
      parse_sweep(time_weighted_sweep("idle_power_w: 0\n"), "idle.yaml", known());
  CHECK_FALSE(plain.idle_power_w.has_value());
  const SweepTruths truths = SweepTruths::load(plain, FULCRUM_DATA_DIR, "");
  // models/data/devices/orin-agx-64gb.yaml: idle_w 18.6 W (as `fulcrum optimize` charges).
  CHECK(truths.catalog_idle_power_w() == 18.6);
  const search::GroundTruth& analytic = truths.at(0);
  CHECK(search::problem_from(request_of(plain, 0), analytic).idle_power_w == 18.6);
  CHECK(search::problem_from(request_of(zero, 0), analytic).idle_power_w == 0);
  const SweepSpec five =
      parse_sweep(time_weighted_sweep("idle_power_w: 5\n"), "idle.yaml", known());
  CHECK(search::problem_from(request_of(five, 0), analytic).idle_power_w == 5);
  // The whole sweep: without the key it is the sweep that states the catalog's figure, and it
  // differs from one that charges idle time at 0 W.
  // (Rows only: the header names each sweep file's own digest.)
  auto rows = [&](const SweepSpec& spec) {
    const std::string text = run_text(spec, truths, {.threads = 1});
    return text.substr(text.find('\n'));
  };
  const std::string without_key = rows(plain);
  CHECK(without_key == rows(catalog));
  CHECK(without_key != rows(zero));
}

TEST_CASE("a grid the device does not have is an error at the sweep's grid key", "[sweep]") {
  // "grid: nope" is line 10 of the file, its value at column 7.
  const SweepSpec spec = parse_sweep(time_weighted_sweep("grid: nope\n"), "idle.yaml", known());
  const SweepTruths truths = SweepTruths::load(spec, FULCRUM_DATA_DIR, "");
  try {
    (void)run_text(spec, truths, {.threads = 1});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("idle.yaml:10:7: grid: unknown mode grid 'nope' for "
                                           "device 'orin-agx-64gb' (known: "));
  }
}

TEST_CASE("bad sweep files give located one-line errors", "[sweep]") {
  auto error_of = [](const std::string& text) {
    try {
      parse_sweep(text, "bad.yaml", known());
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = "version: 1\nname: b\n";
  const std::string body =
      "workloads: [{training: resnet18, inference: mobilenet_v3}]\n"
      "arrivals: {fixed: [30]}\nlatency_budget_s: [1]\npower_budget_w: [20]\n";
  CHECK(error_of(head + body + "strategies: [gmd, nope]\n") ==
        "bad.yaml:7:19: strategies[1]: unknown strategy 'nope' (known: " +
            [] {
              std::string s;
              for (const std::string& n : known()) s += (s.empty() ? "" : ", ") + n;
              return s;
            }() +
            ")");
  CHECK_THAT(error_of(head + body), Catch::Contains("bad.yaml:1:1: ") &&
                                        Catch::Contains("missing required key 'strategies'"));
  CHECK_THAT(error_of(head + "colour: red\n" + body + "strategies: [gmd]\n"),
             Catch::StartsWith("bad.yaml:3:1: ") && Catch::Contains("colour"));
  CHECK_THAT(error_of(head + body + "strategies: [gmd]\nobjective: fastest\n"),
             Catch::StartsWith("bad.yaml:8:12: objective: must be one of per-window, per-second"));
  CHECK_THAT(
      error_of(head + "workloads: [{training: resnet18, inference: [a, b, c]}]\n"
                      "arrivals: {fixed: [30]}\nlatency_budget_s: [1]\npower_budget_w: [20]\n"
                      "strategies: [gmd]\n"),
      Catch::StartsWith("bad.yaml:3:45: workloads[0].inference: needs one or two"));
  CHECK_THAT(
      error_of(head + "workloads: [{training: resnet18, inference: x}]\n"
                      "arrivals: {dynamic: [[30]]}\nlatency_budget_s: [1]\npower_budget_w: [20]\n"
                      "strategies: [gmd]\n"),
      Catch::StartsWith("bad.yaml:4:22: arrivals.dynamic[0]: a dynamic case needs"));
  CHECK_THAT(error_of(head + "workloads: [{training: resnet18, inference: x}]\n"
                             "arrivals: {fixed: [30]}\n"
                             "latency_budget_s: {from: 2, to: 1, step: 0.1}\npower_budget_w: [20]\n"
                             "strategies: [gmd]\n"),
             Catch::StartsWith("bad.yaml:5:33: latency_budget_s.to: must be >= from"));
  CHECK_THAT(error_of(head + body + "strategies: [gmd]\npower_budget_w: [-3]\n"),
             Catch::Contains("bad.yaml:") && Catch::Contains("power_budget_w"));
  // One line each.
  CHECK(error_of(head + body + "strategies: [{name: als, max_modes: 0}]\n").find('\n') ==
        std::string::npos);
  // A workload the ground truth does not know: located at its entry when the truths are used.
  const std::optional<std::string> ref = fulcrum::testing::reference_path("measurements");
  if (!ref) return;
  const SweepSpec spec =
      parse_sweep(head + "workloads:\n  - {training: resnet18, inference: vgg99}\n" +
                      "arrivals: {fixed: [30]}\nlatency_budget_s: [1]\npower_budget_w: [20]\n"
                      "strategies: [gmd]\n",
                  "bad.yaml", known());
  const SweepTruths truths = SweepTruths::load(spec, FULCRUM_DATA_DIR, *ref);
  std::ostringstream out;
  CHECK_THROWS_WITH(run_sweep(spec, truths, {}, out),
                    Catch::StartsWith("bad.yaml:4:5: workloads[0]: ") && Catch::Contains("vgg99"));
}

}  // namespace
}  // namespace fulcrum::sim::sweep
