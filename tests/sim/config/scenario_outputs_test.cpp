// The scenario's `outputs:` map: which files, and the limit on the rows a scenario may ask of
// requests.csv (docs/SCENARIOS.md, docs/METRICS.md "Output limits").
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/config/scenario_loader.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;

namespace {

// One stream of fixed arrivals at `rate` for `duration_s`, with `outputs` as given.
std::string scenario(double duration_s, const std::string& rate, const std::string& outputs) {
  return "version: 1\n"
         "duration_s: " +
         std::to_string(duration_s) +
         "\n"
         "inference:\n"
         "  - workload: resnet50\n"
         "    batch_size: 16\n"
         "    arrivals: {process: fixed, rate_per_s: " +
         rate + "}\n" + outputs;
}

LoadedScenario parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return parse_scenario(text, "s.yaml", overrides);
}

InputError error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    parse(text, overrides);
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("outputs default to every file and a limit of 100 million rows", "[loader][outputs]") {
  const Scenario s = parse(scenario(600, "100", "")).scenario;
  CHECK(s.outputs.requests);
  CHECK(s.outputs.minibatches);
  CHECK(s.outputs.epochs);
  CHECK(s.outputs.power);
  CHECK(s.outputs.trace);
  CHECK(s.outputs.max_rows == 100'000'000);
}

TEST_CASE("a requests.csv of more rows than the limit is refused, located where it is asked for",
          "[loader][outputs]") {
  // 200,000 requests/s for 600 s: 120 million rows.
  const InputError in_map = error_of(scenario(600, "200000", "outputs: {requests: true}\n"));
  CHECK(in_map.key_path() == "outputs.requests");
  REQUIRE(in_map.where());
  CHECK(in_map.where()->line == 7);
  CHECK(in_map.problem() ==
        "requests.csv would have about 120,000,000 rows (one per request arriving in 600 s), more "
        "than outputs.max_rows = 100,000,000: set outputs.requests: false, shorten duration_s, or "
        "raise outputs.max_rows");

  // Without an outputs map the file is on by default: blamed on the duration that asks for it.
  const InputError by_default = error_of(scenario(600, "200000", ""));
  CHECK(by_default.key_path() == "outputs.requests");
  REQUIRE(by_default.where());
  CHECK(by_default.where()->line == 2);

  // A value given with --set is blamed on the command line.
  const InputError overridden = error_of(scenario(600, "100", ""), {"duration_s=1e7"});
  CHECK(overridden.key_path() == "outputs.requests");
  CHECK(std::string(overridden.what()).find("--set: ") == 0);
  CHECK(overridden.problem().find("about 1,000,000,000 rows") != std::string::npos);
}

TEST_CASE("the row limit is lifted with outputs.max_rows or avoided by turning the file off",
          "[loader][outputs]") {
  CHECK_NOTHROW(parse(scenario(600, "200000", "outputs: {max_rows: 2e8}\n")));
  CHECK_NOTHROW(parse(scenario(600, "200000", "outputs: {requests: false}\n")));
  CHECK(parse(scenario(600, "100", "outputs: {max_rows: 1e12}\n")).scenario.outputs.max_rows ==
        1'000'000'000'000);
  // Exactly at the limit is allowed: 60,000 requests.
  CHECK_NOTHROW(parse(scenario(600, "100", "outputs: {max_rows: 60000}\n")));
  CHECK_THROWS_AS(parse(scenario(600, "100", "outputs: {max_rows: 59999}\n")), InputError);
}

TEST_CASE("requests are counted over every stream and only within the run", "[loader][outputs]") {
  // Two streams of 30,000 requests each in 600 s exceed 59,999 together.
  const std::string two =
      "version: 1\nduration_s: 600\ninference:\n"
      "  - {workload: resnet50, arrivals: {process: fixed, rate_per_s: 50}}\n"
      "  - {workload: resnet50, arrivals: {process: poisson, rate_per_s: 50}}\n"
      "outputs: {max_rows: 59999}\n";
  CHECK(error_of(two).key_path() == "outputs.requests");
  // A piecewise stream: 10 s at 1,000/s, then nothing: 10,000 requests however long the run.
  const std::string piecewise =
      "version: 1\nduration_s: 1e6\ninference:\n"
      "  - {workload: resnet50, arrivals: {process: piecewise, segments: "
      "[{start_s: 0, rate_per_s: 1000}, {start_s: 10, rate_per_s: 0}]}}\n"
      "outputs: {max_rows: 10000}\n";
  CHECK_NOTHROW(parse(piecewise));
}

TEST_CASE("max_rows must be a number of rows", "[loader][outputs]") {
  for (const char* bad : {"0", "-5", "0.5", "1e16", "many", ".nan"}) {
    INFO(bad);
    const InputError e =
        error_of(scenario(600, "100", std::string("outputs: {max_rows: ") + bad + "}\n"));
    CHECK(e.key_path() == "outputs.max_rows");
  }
}
