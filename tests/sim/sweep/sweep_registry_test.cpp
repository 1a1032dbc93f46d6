#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/search/strategies.hpp"
#include "sim/search/strategy.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_spec.hpp"
#include "tests/reference_data.hpp"
#include "tests/sim/sweep/csv_rows.hpp"

namespace fulcrum::sim::sweep {
namespace {

const char* const kSweep = R"(version: 1
name: registry
seed: 5
workloads:
  - {training: resnet18, inference: mobilenet_v3}
  - {training: resnet18, inference: [mobilenet_v3, lstm]}
arrivals: {fixed: [30], dynamic: [[30, 90]]}
latency_budget_s: [0.5, 2.0]
power_budget_w: [20, 40]
strategies: [random, random-again, {name: random-again, max_modes: 9}]
)";

}  // namespace

TEST_CASE("a sweep makes its strategies from the registry it is given, beside the built-ins",
          "[sweep]") {
  const std::optional<std::string> ref = fulcrum::testing::reference_path("measurements");
  if (!ref) return;
  // A strategy the built-in registry does not know is refused by name...
  CHECK_THROWS_AS(parse_sweep(kSweep, "registry.yaml", search::strategy_registry().names()),
                  InputError);
  // ... and runs when the registry given knows it: here the built-in random under another name.
  search::StrategyRegistry registry = search::strategy_registry();
  registry.add({"random-again", "random, registered again", 50, search::make_random});
  const SweepSpec spec = parse_sweep(kSweep, "registry.yaml", registry.names());
  const SweepTruths truths = SweepTruths::load(spec, FULCRUM_DATA_DIR, *ref);
  std::ostringstream csv;
  const SweepSummary summary =
      run_sweep(spec, truths, {.threads = 2, .strategies = &registry}, csv);
  REQUIRE(summary.strategies.size() == 3);
  const std::vector<std::vector<std::string>> rows = testing::csv_rows(csv.str());
  REQUIRE(rows.size() == 16 * 3);
  for (std::size_t i = 0; i < rows.size(); i += 3) {
    std::vector<std::string> random = rows[i], again = rows[i + 1];
    CHECK(random[6] == "random");
    CHECK(again[6] == "random-again");
    random[6] = again[6] = "";
    CHECK(random == again);  // the same seed, the same draws, the same choice and cost
    CHECK(rows[i + 2][6] == "random-again@9");
    const int segments = rows[i][3].find('>') == std::string::npos ? 1 : 2;
    CHECK(std::stoi(rows[i + 2][15]) <= 9 * segments);  // its own budget, through the Profiler
    CHECK(std::stoi(rows[i + 2][15]) > 0);
  }
}

}  // namespace fulcrum::sim::sweep
