// `fulcrum study` through the command line: the files, the progress lines, and bad input as one
// located line.
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/cli/cli.hpp"
#include "tests/sim/report/json_check.hpp"
#include "tests/temp_dir.hpp"

using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::testing::TempDir;

namespace {

int cli(const std::vector<std::string>& args, std::string* out_text, std::string* err_text) {
  std::ostringstream out, err;
  const int rc = run_cli(args, out, err);
  *out_text = out.str();
  *err_text = err.str();
  return rc;
}

std::string study_text(const std::string& grid) {
  return "version: 1\nname: s\nscenario: " +
         std::filesystem::absolute("scenarios/quickstart.yaml").string() +
         "\nset: {duration_s: 10}\ngrid:\n  " + grid + "\n";
}

}  // namespace

TEST_CASE("study writes its three files and a progress line per percent with --progress",
          "[cli][study]") {
  TempDir dir;
  const std::string study = dir.write("s.yaml", study_text("gpu_sharing: [managed, native]"));
  std::string out, err;
  REQUIRE(cli({"study", study, "--out", (dir.path() / "o").string(), "--progress"}, &out, &err) ==
          0);
  CHECK(out.empty());
  for (const char* f : {"study.csv", "study_summary.csv", "study_latency.csv"}) {
    CHECK(std::filesystem::is_regular_file(dir.path() / "o" / f));
  }
  CHECK(err.find("fulcrum study: 1/2 runs (50 %)\n") != std::string::npos);
  CHECK(err.find("fulcrum study: 2/2 runs (100 %)\n") != std::string::npos);
  CHECK(err.find("2 runs of 2 points") != std::string::npos);
  REQUIRE(cli({"study", study, "--out", (dir.path() / "q").string(), "-q"}, &out, &err) == 0);
  CHECK(err.empty());
}

TEST_CASE("study --json prints every run's axes and figures, the rows of study.csv",
          "[cli][study]") {
  TempDir dir;
  const std::string study = dir.write("s.yaml", study_text("gpu_sharing: [managed, native]"));
  std::string out, err;
  REQUIRE(cli({"study", study, "--out", (dir.path() / "o").string(), "-q", "--json"}, &out, &err) ==
          0);
  const fulcrum::sim::testing::JsonValue j = fulcrum::sim::testing::parse_json(out);
  CHECK(j.at("study").text == "s");
  const auto& runs = j.at("runs").items;
  REQUIRE(runs.size() == 2);  // two points, the scenario's own seed
  CHECK(runs[0].at("axes").at("gpu_sharing").text == "managed");
  CHECK(runs[1].at("axes").at("gpu_sharing").text == "native");
  CHECK(runs[1].at("point").number == 1);
  // The quickstart trains under both policies and its stream keeps up.
  for (const auto& r : runs) {
    CHECK(r.at("figures").at("training_samples_per_s").number > 0);
    CHECK(r.at("figures").at("resnet50.stable").number == 1);
  }
}

TEST_CASE("study with a bad value throws one line located in the study file", "[cli][study]") {
  TempDir dir;
  const std::string study = dir.write("s.yaml", study_text("training.batch_size: [8, 0]"));
  std::string out, err;
  try {
    cli({"study", study, "--out", (dir.path() / "o").string(), "-q"}, &out, &err);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    // "  training.batch_size: [8, 0]" is line 6; the 0 is at column 28.
    CHECK(std::string(e.what()).rfind(study + ":6:28: training.batch_size: ", 0) == 0);
  }
  CHECK_FALSE(std::filesystem::exists(dir.path() / "o"));
}
