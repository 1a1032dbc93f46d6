// Study files: the grid, zipped keys and seeds they describe, and one located line for each
// kind of mistake.
#include "sim/config/study_spec.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "tests/input_error.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::testing::error_of;

namespace {

StudySpec parse(const std::string& text) { return parse_study_spec(text, "s.yaml", "base"); }

const std::string kHead = "version: 1\nname: s\nscenario: q.yaml\n";

}  // namespace

TEST_CASE("A study's grid is the product of its axes, the first axis slowest, seeds fastest",
          "[study]") {
  const StudySpec s = parse(kHead +
                            "grid:\n"
                            "  gpu_sharing: [managed, native]\n"
                            "  inference[0].batch_size: [4, 8, 16]\n"
                            "seeds: [5, 9]\n");
  CHECK(s.scenario_path == "base/q.yaml");
  CHECK(s.points() == 6);
  CHECK(s.runs() == 12);
  // Point 4 = (1, 1): native, batch 8.
  CHECK(s.coordinates(4) == std::vector<std::size_t>{1, 1});
  CHECK(s.overrides(4) ==
        std::vector<std::string>{"gpu_sharing=native", "inference[0].batch_size=8"});
  CHECK(s.seeds == std::vector<std::uint64_t>{5, 9});
}

TEST_CASE("Zipped keys vary together as one axis after the grid's", "[study]") {
  const StudySpec s = parse(kHead +
                            "set: {duration_s: 60}\n"
                            "grid: {gpu_sharing: [managed, native]}\n"
                            "zip:\n"
                            "  training.batch_size: [8, 16]\n"
                            "  inference[0].batch_size: [4, 32]\n");
  CHECK(s.points() == 4);
  CHECK(s.axes.size() == 2);
  CHECK(s.axes[1].label() == "training.batch_size+inference[0].batch_size");
  // Point 3 = (native, the second zipped values); fixed overrides come first.
  CHECK(s.overrides(3) == std::vector<std::string>{"duration_s=60", "gpu_sharing=native",
                                                   "training.batch_size=16",
                                                   "inference[0].batch_size=32"});
}

TEST_CASE("A map value becomes the flow YAML that --set takes, and seeds can be a range",
          "[study]") {
  const StudySpec s = parse(kHead +
                            "grid:\n"
                            "  gpu_sharing:\n"
                            "    - {policy: managed, variant: greedy}\n"
                            "seeds: {from: 3, count: 4}\n");
  CHECK(s.overrides(0) ==
        std::vector<std::string>{"gpu_sharing={policy: managed, variant: greedy}"});
  CHECK(s.seeds == std::vector<std::uint64_t>{3, 4, 5, 6});
  CHECK(s.runs() == 4);
}

TEST_CASE("A study without a grid is one point, with the scenario's own seed", "[study]") {
  const StudySpec s = parse(kHead);
  CHECK(s.points() == 1);
  CHECK(s.runs() == 1);
  CHECK(s.overrides(0).empty());
}

// "file:line:col: key: problem", the location counted by hand in each text.
TEST_CASE("Mistakes in a study file are one line located at the value", "[study]") {
  using Catch::Matchers::Contains;
  using Catch::Matchers::StartsWith;
  // An unknown top-level key: line 4, column 1.
  CHECK_THAT(error_of([] { parse(kHead + "grids: {}\n"); }).what(), StartsWith("s.yaml:4:1: "));
  // A grid key that is not a key path: at its values, line 5 column 8 ("  a..b: [1]").
  const InputError bad_path = error_of([] { parse(kHead + "grid:\n  a..b: [1]\n"); });
  CHECK_THAT(bad_path.what(), StartsWith("s.yaml:5:9: "));
  CHECK_THAT(bad_path.what(), Contains("'a..b' is not a scenario key path"));
  // Values that are not a list.
  CHECK_THAT(error_of([] { parse(kHead + "grid:\n  duration_s: 5\n"); }).what(),
             StartsWith("s.yaml:5:15: grid.duration_s: expected a list of values"));
  // Zipped keys of different lengths: at the second one's values.
  const InputError zip = error_of([] { parse(kHead + "zip:\n  a: [1, 2]\n  b: [1]\n"); });
  CHECK_THAT(zip.what(), StartsWith("s.yaml:6:6: zip.b: has 1 values, but 'a' has 2"));
  // The same key in grid and set.
  CHECK_THAT(error_of([] { parse(kHead + "set: {a: 1}\ngrid: {a: [2]}\n"); }).what(),
             Contains("'a' is already set by this study"));
  // A seed listed twice: at the second one (line 4, column 11 of "seeds: [1, 1]").
  CHECK_THAT(error_of([] { parse(kHead + "seeds: [1, 1]\n"); }).what(),
             StartsWith("s.yaml:4:12: seeds[1]: seed 1 is listed twice"));
  CHECK_THAT(error_of([] { parse(kHead + "seeds: [-1]\n"); }).what(),
             StartsWith("s.yaml:4:9: seeds[0]: must be an integer"));
  CHECK_THAT(error_of([] { parse("version: 2\nname: s\nscenario: q.yaml\n"); }).what(),
             StartsWith("s.yaml:1:10: version: unsupported version"));
  CHECK_THAT(error_of([] { parse("version: 1\nname: a/b\nscenario: q.yaml\n"); }).what(),
             StartsWith("s.yaml:2:7: name: must not contain '/'"));
  CHECK_THAT(error_of([] { parse(""); }).what(), Contains("empty study"));
}

TEST_CASE("A study asking for more than a million runs is refused before anything runs",
          "[study]") {
  // 1000 x 1000 x 2 seeds = 2,000,000 runs.
  std::string values;
  for (int i = 1; i <= 1000; ++i) values += (i > 1 ? ", " : "") + std::to_string(i);
  const std::string text =
      kHead + "grid:\n  a: [" + values + "]\n  b: [" + values + "]\nseeds: [1, 2]\n";
  CHECK_THAT(error_of([&] { parse(text); }).what(),
             Catch::Matchers::Contains("more than 1000000 runs"));
}

TEST_CASE("A quoted value stays a string for the scenario and is shown without its quotes",
          "[study]") {
  const StudySpec s = parse(kHead + "grid:\n  name: [\"600\", plain]\n");
  CHECK(s.overrides(0) == std::vector<std::string>{"name=\"600\""});
  CHECK(s.overrides(1) == std::vector<std::string>{"name=plain"});
  CHECK(s.axes[0].keys[0].labels == std::vector<std::string>{"600", "plain"});
}
