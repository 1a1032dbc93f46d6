// The verb table is the one list of verbs: dispatch, cli_verbs() and the top-level help follow it.
#include "sim/cli/verbs.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/cli/cli.hpp"
#include "sim/cli/verb_support.hpp"

using fulcrum::sim::cli_verbs;
using fulcrum::sim::find_verb;
using fulcrum::sim::run_cli;
using fulcrum::sim::Verb;
using fulcrum::sim::verbs;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("every verb in the table has a unique name, a one-line summary and an entry point",
          "[cli]") {
  REQUIRE_FALSE(verbs().empty());
  std::set<std::string_view> names;
  for (const Verb& v : verbs()) {
    INFO(v.name);
    CHECK_FALSE(v.name.empty());
    CHECK(v.name.find_first_of(" \t-") == std::string_view::npos);
    CHECK(v.name != "help");  // `fulcrum help` is the top-level help
    CHECK(names.insert(v.name).second);
    CHECK_FALSE(v.summary.empty());
    CHECK(v.summary.find('\n') == std::string_view::npos);
    CHECK(v.operands.find('\n') == std::string_view::npos);
    CHECK(v.run != nullptr);
  }
}

TEST_CASE("cli_verbs and find_verb follow the table", "[cli]") {
  const std::vector<std::string>& listed = cli_verbs();
  REQUIRE(listed.size() == verbs().size());
  for (std::size_t i = 0; i < listed.size(); ++i) {
    CHECK(listed[i] == verbs()[i].name);
    const std::optional<Verb> found = find_verb(listed[i]);
    REQUIRE(found.has_value());
    CHECK(found->run == verbs()[i].run);
  }
  CHECK_FALSE(find_verb("optimise").has_value());
  CHECK_FALSE(find_verb("").has_value());
  CHECK_FALSE(find_verb("--help").has_value());
}

TEST_CASE("every verb in the table answers --help with its usage", "[cli]") {
  for (const Verb& v : verbs()) {
    INFO(v.name);
    std::ostringstream out;
    std::ostringstream err;
    CHECK(run_cli({std::string(v.name), "--help"}, out, err) == 0);
    CHECK(out.str().rfind("Usage: fulcrum " + std::string(v.name), 0) == 0);
    CHECK(err.str().empty());
  }
}

TEST_CASE("the top-level help lists each verb once with its operands and summary, aligned",
          "[cli]") {
  std::ostringstream out;
  std::ostringstream err;
  REQUIRE(run_cli({"--help"}, out, err) == 0);
  const std::vector<std::string> lines = lines_of(out.str());
  std::set<std::size_t> summary_columns;
  for (const Verb& v : verbs()) {
    INFO(v.name);
    std::string label("  ");
    label.append(v.name);
    if (!v.operands.empty()) label.append(" ").append(v.operands);
    int rows = 0;
    for (const std::string& line : lines) {
      if (line.rfind(label + " ", 0) != 0) continue;
      ++rows;
      const std::size_t column = line.find_first_not_of(' ', label.size());
      REQUIRE(column != std::string::npos);
      CHECK(column >= label.size() + 2);
      CHECK(line.substr(column) == v.summary);
      summary_columns.insert(column);
    }
    CHECK(rows == 1);
  }
  // The options' descriptions start in the same column as the verbs' summaries.
  for (const std::string& line : lines) {
    if (line.rfind("  --version ", 0) == 0) summary_columns.insert(line.find("print the version"));
  }
  CHECK(summary_columns.size() == 1);
}

TEST_CASE("an unknown verb is bad input naming every verb of the table", "[cli]") {
  std::ostringstream out;
  std::ostringstream err;
  try {
    run_cli({"optimise"}, out, err);
    FAIL("an unknown verb was accepted");
  } catch (const fulcrum::InputError& e) {
    const std::string what = e.what();
    for (const Verb& v : verbs()) CHECK(what.find(std::string(v.name)) != std::string::npos);
  }
  CHECK(out.str().empty());
}

TEST_CASE("a verb's operands come back in order beside its options, and only_operand wants one",
          "[cli]") {
  namespace po = boost::program_options;
  using fulcrum::sim::only_operand;
  using fulcrum::sim::parse_verb;
  po::options_description options("Options");
  options.add_options()("help,h", "this help")("out", po::value<std::string>(), "folder");
  const auto [vm, operands] = parse_verb("x", {"a.yaml", "--out", "o", "b.yaml"}, options, "file");
  CHECK(operands == std::vector<std::string>{"a.yaml", "b.yaml"});
  CHECK(vm["out"].as<std::string>() == "o");
  CHECK_THROWS_WITH(only_operand(operands, "x", "expected one FILE"),
                    "fulcrum x: expected one FILE");
  const auto [help, none] = parse_verb("x", {"--help"}, options, "file");
  CHECK(help.count("help") == 1);
  CHECK(none.empty());
  CHECK_THROWS_WITH(only_operand(none, "x", "expected one FILE"), "fulcrum x: expected one FILE");
  CHECK(only_operand({"c.yaml"}, "x", "expected one FILE") == "c.yaml");
}
