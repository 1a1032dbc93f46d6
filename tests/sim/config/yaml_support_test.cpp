// The strict reading of every YAML file (scenarios, device and calibration files) and of --set
// values: one document, no key twice, no tags, plain numbers, printable UTF-8, bounded regular
// files, and errors that stay on one line with a location.
#include "sim/config/yaml_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/config/calibration_loader.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/config/scenario_loader.hpp"
#include "tests/input_error.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace fulcrum;
using namespace fulcrum::sim;
using fulcrum::testing::error_of;
using fulcrum::testing::TempDir;

namespace {

const char* kScenario = R"(version: 1
name: strict
duration_s: 60
training: {workload: resnet18, dataset: cifar10}
inference:
  - workload: resnet50
    batch_size: 4
    arrivals: {process: fixed, rate_per_s: 10}
)";

InputError scenario_error(const std::string& text, const std::vector<std::string>& sets = {}) {
  return error_of([&] { parse_scenario(text, "s.yaml", sets); });
}

// One line, and only printable characters: what main() prints is exactly one line of stderr.
bool is_one_printable_line(const std::string& s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("a key given twice is an error at the second naming the line of the first",
          "[yaml][strict]") {
  struct Case {
    std::string text;
    std::string key_path;
    int line;
    int column;
    std::string first;
  };
  const std::vector<Case> cases = {
      // The quickstart with a line appended: before, the first value silently won.
      {std::string(kScenario) + "duration_s: 10\n", "duration_s", 9, 1, "line 3, column 1"},
      {"version: 1\nversion: 1\n", "version", 2, 1, "line 1, column 1"},
      {"version: 1\ntraining: {workload: resnet18, dataset: cifar10, workload: resnet50}\n",
       "training.workload", 2, 50, "line 2, column 12"},
      {std::string(kScenario) + "    batch_size: 8\n", "inference[0].batch_size", 9, 5,
       "line 7, column 5"},
      {"version: 1\ninference:\n  - arrivals: {process: fixed, rate_per_s: 1, rate_per_s: 2}\n",
       "inference[0].arrivals.rate_per_s", 3, 47, "line 3, column 32"},
      // A quoted key is the same key.
      {"version: 1\n\"version\": 1\n", "version", 2, 1, "line 1, column 1"},
  };
  for (const Case& c : cases) {
    const InputError e = scenario_error(c.text);
    INFO(e.what());
    CHECK(e.key_path() == c.key_path);
    CHECK_THAT(e.problem(), Catch::StartsWith("duplicate key '"));
    CHECK_THAT(e.problem(), Catch::Contains("(first at " + c.first + ")"));
    REQUIRE(e.where());
    CHECK(e.where()->file == "s.yaml");
    CHECK(e.where()->line == c.line);
    CHECK(e.where()->column == c.column);
  }
  // In a --set value too.
  const InputError set =
      scenario_error(kScenario, {"gpu_sharing={policy: native, policy: managed}"});
  CHECK(std::string(set.what()).rfind("--set: gpu_sharing.policy: duplicate key 'policy'", 0) == 0);
}

TEST_CASE("device and calibration files refuse a key given twice", "[yaml][strict]") {
  TempDir dir;
  const std::string device_text = [] {
    std::ifstream in(std::string(FULCRUM_DATA_DIR) + "/devices/orin-agx-64gb.yaml");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  const std::string device = dir.write("orin.yaml", device_text + "name: orin-agx-64gb\n");
  const InputError d = error_of([&] { load_device_file(device); });
  CHECK(d.key_path() == "name");
  CHECK_THAT(d.problem(), Catch::StartsWith("duplicate key 'name' (first at line "));

  const std::string cal_text = [] {
    std::ifstream in(calibration_path(FULCRUM_DATA_DIR, "orin-agx-64gb"));
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  const std::string cal = dir.write("cal.yaml", cal_text + "version: 1\n");
  const InputError c = error_of([&] { load_calibration(cal); });
  CHECK(c.key_path() == "version");
  CHECK_THAT(c.problem(), Catch::StartsWith("duplicate key 'version'"));
}

TEST_CASE("a second YAML document is an error where it starts", "[yaml][strict]") {
  const InputError e = scenario_error(std::string(kScenario) + "---\nduration_s: 10\n");
  REQUIRE(e.where());
  CHECK(e.where()->line == 9);
  CHECK_THAT(e.problem(), Catch::StartsWith("a second YAML document starts here"));
  // An empty second document counts too; a document end marker alone does not.
  CHECK_THAT(scenario_error(std::string(kScenario) + "---\n").problem(),
             Catch::StartsWith("a second YAML document"));
  CHECK_NOTHROW(parse_scenario(std::string("---\n") + kScenario + "...\n", "s.yaml"));
  CHECK_THAT(std::string(scenario_error(kScenario, {"duration_s=5\n---\n6"}).what()),
             Catch::StartsWith("--set: duration_s: a second YAML document"));
}

TEST_CASE("a number or a boolean must be a plain scalar, and tags are refused", "[yaml][strict]") {
  struct Case {
    std::string from;
    std::string to;
    std::string key;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"duration_s: 60", "duration_s: \"60\"", "duration_s",
       "expected a number, got the string '60' (write it without quotes)"},
      {"duration_s: 60", "duration_s: '60'", "duration_s",
       "expected a number, got the string '60' (write it without quotes)"},
      {"version: 1", "version: \"1\"", "version",
       "expected an integer, got the string '1' (write it without quotes)"},
      {"batch_size: 4", "batch_size: \"4\"", "inference[0].batch_size",
       "expected an integer, got the string '4' (write it without quotes)"},
      {"duration_s: 60", "duration_s: !!str 60", "duration_s",
       "YAML tags are not supported, got '!!str'"},
      {"duration_s: 60", "duration_s: !!float 60", "duration_s",
       "YAML tags are not supported, got '!!float'"},
      {"duration_s: 60", "duration_s: !seconds 60", "duration_s",
       "YAML tags are not supported, got '!seconds'"},
      {"name: strict", "name: !!str strict", "name", "YAML tags are not supported, got '!!str'"},
      {"training: {", "training: !!map {", "training", "YAML tags are not supported, got '!!map'"},
  };
  for (const Case& c : cases) {
    std::string text = kScenario;
    text.replace(text.find(c.from), c.from.size(), c.to);
    const InputError e = scenario_error(text);
    INFO(e.what());
    CHECK(e.key_path() == c.key);
    CHECK(e.problem() == c.problem);
    REQUIRE(e.where());
    CHECK(e.where()->line > 0);
  }
  const InputError b = scenario_error(kScenario, {"outputs.trace=\"false\""});
  CHECK(std::string(b.what()) ==
        "--set: outputs.trace: expected true or false, got the string 'false' (write it without "
        "quotes)");
  // A quoted string is still a string.
  CHECK(parse_scenario(std::string(kScenario) + "seed: 3\n", "s.yaml", {"name=\"q\""})
            .scenario.name == "q");
}

TEST_CASE("text that is not printable UTF-8 is refused with a one-line located error",
          "[yaml][strict]") {
  struct Case {
    std::string text;
    int line;
    int column;
    std::string key;
    std::string problem;
  };
  const std::string head = "version: 1\ntraining: {workload: resnet18, dataset: cifar10}\n";
  const std::vector<Case> cases = {
      // Invalid UTF-8 in a name used to reach summary.json as invalid JSON.
      {head + "name: ab\xff\n", 3, 9, "", "the text is not valid UTF-8 (byte 0xff)"},
      {head + "name: caf\xc3\xa9\n", 0, 0, "", ""},  // valid UTF-8: accepted by the reader,
      // A NUL byte used to end up inside the message, splitting it over two lines.
      {head + std::string("name: a\0b\n", 10), 3, 8, "",
       "the text contains a control character (U+0000); YAML text must be printable"},
      {head + "# comment \x01\n", 3, 11, "",
       "the text contains a control character (U+0001); YAML text must be printable"},
      // Escapes in double quotes produce control characters only the scalar check sees.
      {head + "name: \"a\\nb\"\n", 3, 7, "name",
       "contains a control character (U+000A at byte 2); names, paths and other text must be "
       "printable"},
      {head + "inference:\n  - workload: \"resnet\\x0150\"\n", 4, 15, "inference[0].workload",
       "contains a control character (U+0001 at byte 7); names, paths and other text must be "
       "printable"},
      {head + "\"dur\\tation_s\": 5\n", 3, 1, "",
       "key 'dur\\tation_s' contains a control character (U+0009 at byte 4); names, paths and "
       "other text must be printable"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    if (c.line == 0) {
      // The name is still refused, by the name rule, but not for its encoding.
      const InputError e = scenario_error(c.text);
      CHECK_THAT(e.problem(), Catch::Contains("is not a valid name"));
      CHECK(is_one_printable_line(e.what()));
      continue;
    }
    const InputError e = scenario_error(c.text);
    INFO(e.what());
    CHECK(is_one_printable_line(e.what()));
    CHECK(e.problem() == c.problem);
    CHECK(e.key_path() == c.key);
    REQUIRE(e.where());
    CHECK(e.where()->line == c.line);
    CHECK(e.where()->column == c.column);
  }
  // A stream name may be any printable text, UTF-8 included.
  const LoadedScenario ok = parse_scenario(
      head +
          "inference:\n  - {name: \"caf\xc3\xa9 \xe2\x86\x92 1\", workload: resnet50, "
          "arrivals: {process: fixed, rate_per_s: 1}}\n",
      "s.yaml");
  CHECK(ok.scenario.inference[0].name == "caf\xc3\xa9 \xe2\x86\x92 1");
}

TEST_CASE("an empty file's error is located at its first line and column", "[yaml][strict]") {
  for (const std::string text : {"", "# only a comment\n", "\n\n"}) {
    const InputError e = scenario_error(text);
    INFO(e.what());
    CHECK(std::string(e.what()) ==
          "s.yaml:1:1: empty scenario: expected a map with at least 'version: 1'");
  }
}

TEST_CASE("a YAML file that is not a regular file or is too large is refused before parsing",
          "[yaml][strict]") {
  TempDir dir;
  const InputError zero = error_of([] { YamlDoc::load("/dev/zero"); });
  CHECK(std::string(zero.what()) ==
        "/dev/zero: is not a regular file (a device, FIFO or socket is not read as YAML)");
  const std::string fifo = (dir.path() / "fifo.yaml").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(error_of([&] { load_scenario(fifo); }).problem(),
             Catch::StartsWith("is not a regular file"));
  CHECK_THAT(error_of([&] { YamlDoc::load(dir.path().string()); }).problem(),
             Catch::StartsWith("is a directory"));

  // At the limit it is read; one byte more and it is not (a comment pads the file).
  std::string text = kScenario;
  text += "#";
  text += std::string(kMaxYamlFileBytes - text.size() - 1, 'x');
  text += "\n";
  REQUIRE(text.size() == kMaxYamlFileBytes);
  CHECK(load_scenario(dir.write("limit.yaml", text)).name == "strict");
  const std::string over = dir.write("over.yaml", text + "\n");
  const InputError big = error_of([&] { load_scenario(over); });
  CHECK(std::string(big.what()) ==
        over + ": is 1048577 bytes, larger than the 1048576 bytes a YAML file may have");
  CHECK_THAT(error_of([&] { YamlDoc::load(dir.write("small.yaml", "a: 1\n"), 4); }).problem(),
             Catch::StartsWith("is 5 bytes, larger than the 4 bytes"));
}

TEST_CASE("a file name with control characters is echoed on one line", "[yaml][strict]") {
  TempDir dir;
  const std::string path = dir.write("bad\nname.yaml", "version: [\n");
  const InputError e = error_of([&] { load_scenario(path); });
  INFO(e.what());
  CHECK(is_one_printable_line(e.what()));
  CHECK_THAT(e.what(), Catch::Contains("bad\\nname.yaml:"));
}

TEST_CASE("keys are names and aliases cannot refer to what contains them", "[yaml][strict]") {
  CHECK_THAT(scenario_error("version: 1\n[a]: 1\n").problem(),
             Catch::Equals("a key must be a name, got a list"));
  CHECK_THAT(scenario_error("version: 1\n{a: 1}: 1\n").problem(),
             Catch::Equals("a key must be a name, got a map"));
  CHECK_THAT(scenario_error("version: &v 1\n*v : 1\n").problem(),
             Catch::Equals("a key must be a name, got an alias"));
  const InputError cycle = scenario_error("version: 1\ntraining: &t {workload: *t}\n");
  CHECK(cycle.key_path() == "training.workload");
  CHECK(cycle.problem() == "an alias to a node that contains it (a cycle)");
  // An alias to a finished node is fine: it reads as a copy.
  const LoadedScenario ok = parse_scenario(
      "version: 1\ninference:\n  - {workload: resnet50, arrivals: &a {process: fixed, "
      "rate_per_s: 5}}\n  - {workload: resnet18, arrivals: *a}\n",
      "s.yaml");
  CHECK(ok.scenario.inference.size() == 2);
}

TEST_CASE("yaml-cpp's own messages are made printable", "[yaml][strict]") {
  // An unknown escape echoes the one byte after the backslash: here half of an 'é'.
  const InputError e = scenario_error("version: 1\nname: \"a\\\xc3\xa9\"\n");
  CHECK(std::string(e.what()) == "s.yaml:2:11: malformed YAML: unknown escape character: \\xc3");
}

// Found by fuzz_scenario: the key path was built from a key before its text was checked.
TEST_CASE("a tagged key with a control character is reported on one line", "[yaml][strict]") {
  const InputError e = scenario_error("!p; \"\\x01\": 1\n");
  INFO(e.what());
  CHECK(is_one_printable_line(e.what()));
  CHECK(e.key_path().empty());
  CHECK_THAT(e.problem(), Catch::StartsWith("key '\\x01' contains a control character (U+0001"));
}

TEST_CASE("a control character in a --set value is refused without calling it a file",
          "[yaml][strict]") {
  CHECK(std::string(scenario_error(kScenario, {"name=a\x01"}).what()) ==
        "--set: name: the text contains a control character (U+0001); YAML text must be "
        "printable");
}
