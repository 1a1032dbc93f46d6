#include "sim/report/output_path.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "models/error.hpp"
#include "tests/sim/report/report_fixtures.hpp"

using namespace fulcrum::sim;
using fulcrum::InputError;
using fulcrum::sim::testing::read_file;
using fulcrum::sim::testing::TempDir;
namespace fs = std::filesystem;

namespace {

// The one line check_output_file refuses `path` with, or "" when it accepts it.
std::string refusal(const fs::path& path, const std::vector<fs::path>& inputs = {}) {
  try {
    check_output_file(path, "--out", inputs);
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("an output file may be absent or a regular file") {
  const TempDir dir;
  CHECK(refusal(dir.path() / "new.csv").empty());
  std::ofstream(dir.path() / "old.csv") << "x\n";
  CHECK(refusal(dir.path() / "old.csv").empty());
}

TEST_CASE("a verb replaces an existing file only when it is one of its own earlier outputs") {
  const TempDir dir;
  const fs::path mine = dir.path() / "profile.csv";
  std::ofstream(mine) << "# fulcrum profile: device x\nmodel,phase\n";
  CHECK_NOTHROW(check_output_file(mine, "--out", {}, "# fulcrum profile"));
  const fs::path scenario = dir.path() / "x.yaml";
  std::ofstream(scenario) << "version: 1\nname: x\n";
  CHECK_THROWS_WITH(check_output_file(scenario, "--out", {}, "# fulcrum profile"),
                    "--out: " + scenario.string() +
                        " exists and is not an earlier output of this command (it does not "
                        "start with '# fulcrum profile'); choose a new file or remove it");
  CHECK(read_file(scenario) == "version: 1\nname: x\n");
  const fs::path empty = dir.path() / "empty.csv";
  std::ofstream{empty};
  CHECK_NOTHROW(check_output_file(empty, "--out", {}, "# fulcrum profile"));
}

TEST_CASE("a device, a FIFO or a folder is never an output file") {
  const TempDir dir;
  CHECK(refusal("/dev/null") == "--out: /dev/null is a device; name a regular file");
  const fs::path fifo = dir.path() / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(refusal(fifo) == "--out: " + fifo.string() + " is a FIFO; name a regular file");
  CHECK(refusal(dir.path()) == "--out: " + dir.path().string() + " is a folder; name a file");
}

TEST_CASE("an output file that is one of the command's inputs is refused, by any spelling") {
  const TempDir dir;
  const fs::path input = dir.path() / "my.csv";
  std::ofstream(input) << "a,b\n1,2\n";
  CHECK(refusal(input, {input}) == "--out: " + input.string() + " is an input of this command (" +
                                       input.string() + "); choose another output");
  // Another spelling of the same file and a hard link to it are the same file.
  const fs::path other_spelling = dir.path() / "." / "my.csv";
  CHECK_FALSE(refusal(other_spelling, {input}).empty());
  const fs::path link = dir.path() / "link.csv";
  fs::create_hard_link(input, link);
  CHECK_FALSE(refusal(link, {input}).empty());
  CHECK(read_file(input) == "a,b\n1,2\n");  // checked, never touched
  // A different file is fine.
  CHECK(refusal(dir.path() / "out.csv", {input}).empty());
}

TEST_CASE("an output folder may not be a file or hold one of the inputs") {
  const TempDir dir;
  const fs::path input = dir.path() / "in" / "scenario.yaml";
  fs::create_directories(input.parent_path());
  std::ofstream(input) << "version: 1\n";
  CHECK_NOTHROW(check_output_folder(dir.path() / "out", "--out", {input}));
  CHECK_THROWS_WITH(check_output_folder(input.parent_path(), "--out", {input}),
                    "--out: " + input.parent_path().string() + " holds an input of this command (" +
                        input.string() + "); a result replaces the whole folder");
  CHECK_THROWS_WITH(check_output_folder("/dev/null", "--out"),
                    "--out: /dev/null is not a folder; name a folder (absent, empty or an "
                    "earlier result)");
}

TEST_CASE("two outputs of one command may not be the same file") {
  const TempDir dir;
  CHECK_NOTHROW(check_distinct_outputs(
      {{"--out", dir.path() / "a.csv"}, {"--save-weights", dir.path() / "b.yaml"}}));
  CHECK_THROWS_WITH(check_distinct_outputs({{"--out", dir.path() / "a.csv"},
                                            {"--save-weights", dir.path() / "./a.csv"}}),
                    "--save-weights: " + (dir.path() / "./a.csv").string() +
                        " is also --out; give each output its own file");
}
