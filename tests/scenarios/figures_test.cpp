// Every number that a scenario's header comment or the README quotes is either checked here
// against a run, or declared as not being an output. The figures are read from the files
// themselves (their `Figures` blocks, docs/SCENARIOS.md, "Quoted figures"), so a figure that
// drifts from the output fails this test, and a number added to a header without a figure line
// fails it too. Nothing here holds a copy of a figure.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/app/run_plan.hpp"
#include "tests/temp_dir.hpp"

namespace fs = std::filesystem;
using fulcrum::testing::TempDir;

namespace {

fs::path source_dir() { return fs::path(FULCRUM_SOURCE_DIR); }

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// The numbers a text quotes: digits not glued to a name ("ResNet-50", "p99", "MODE_30W",
// "YOLOv8n" and "orin-agx-64gb" hold none), with an optional fraction and exponent.
std::vector<double> numbers_in(const std::string& text) {
  static const std::regex number(R"((^|[^A-Za-z0-9_.\-])(\d+(\.\d+)?))");
  std::vector<double> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number);
       it != std::sregex_iterator(); ++it) {
    const std::size_t end = static_cast<std::size_t>(it->position(2) + it->length(2));
    // "30w", "8n", "64gb": the digits start a name; a unit after a space or "ms" glued on do not.
    if (end < text.size() && std::isalpha(static_cast<unsigned char>(text[end])) &&
        text.compare(end, 2, "ms") != 0 && text.compare(end, 1, "s") != 0 &&
        text.compare(end, 1, "W") != 0 && text.compare(end, 1, "x") != 0) {
      continue;
    }
    out.push_back(std::stod((*it)[2].str()));
  }
  return out;
}

bool same_number(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

// One line of a Figures block: "61 ms +-5% = inference[0].gpu_busy_s ... [with KEY=VALUE; ...]".
struct Figure {
  std::string where;  // file:line, for messages
  std::string text;   // the line as written
  double quoted = 0;
  double tolerance_pct = 0;
  std::string expression;
  std::vector<std::string> overrides;
};

// A Figures block: what it quotes of which scenario, and the numbers declared not to be outputs.
struct Block {
  fs::path scenario;
  std::vector<Figure> figures;
  std::vector<double> given;  // inputs and hand arithmetic on them (the `given:` line)
  std::string prose;          // the text the block covers
  std::string where;
};

Figure parse_figure(const std::string& line, const std::string& where) {
  static const std::regex form(
      R"(^(\d+(?:\.\d+)?)[^=+]*\+-(\d+(?:\.\d+)?)%\s*=\s*(.+?)(?:\s+with\s+(.+))?$)");
  std::smatch m;
  Figure f;
  f.where = where;
  f.text = line;
  if (!std::regex_match(line, m, form)) {
    FAIL(where << ": a figure line must read 'NUMBER [unit] +-TOL% = EXPRESSION [with KEY=VALUE; "
                  "...]', got '"
               << line << "'");
  }
  f.quoted = std::stod(m[1].str());
  f.tolerance_pct = std::stod(m[2].str());
  f.expression = trim(m[3].str());
  if (m[4].matched) {
    std::stringstream sets(m[4].str());
    for (std::string s; std::getline(sets, s, ';');) f.overrides.push_back(trim(s));
  }
  return f;
}

// Reads the lines of a block (without their comment markers) into `block`.
void read_block_lines(const std::vector<std::string>& body, const std::string& file, int first_line,
                      Block& block) {
  // A line that starts with a number is a figure; the `given:` line and every line after it
  // list numbers that are not outputs; other lines (the block's own introduction) are skipped.
  bool in_given = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const std::string line = trim(body[i]);
    const std::string where = file + ":" + std::to_string(first_line + static_cast<int>(i));
    if (line.rfind("given:", 0) == 0) in_given = true;
    if (in_given) {
      for (double v : numbers_in(line)) block.given.push_back(v);
    } else if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) {
      block.figures.push_back(parse_figure(line, where));
    }
  }
}

// A scenario's header: the comment lines before its first key. The block starts at a line
// "# Figures ..." and runs to the end of the header; the prose is everything above it.
std::optional<Block> scenario_block(const fs::path& file) {
  const std::vector<std::string> lines = lines_of(file);
  Block block;
  block.scenario = file;
  block.where = file.string();
  bool in_block = false;
  std::vector<std::string> body;
  int body_line = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.rfind("#", 0) != 0) break;
    const std::string text = line.size() > 1 ? line.substr(1) : "";
    if (!in_block && trim(text).rfind("Figures", 0) == 0) {
      in_block = true;
      body_line = static_cast<int>(i) + 2;
      continue;
    }
    if (in_block) {
      body.push_back(text);
    } else {
      block.prose += text + "\n";
    }
  }
  if (!in_block) return std::nullopt;
  read_block_lines(body, file.string(), body_line, block);
  return block;
}

// The README's blocks: "<!-- figures of scenarios/x.yaml" ... "-->". Each covers the README text
// from the previous block (or the previous heading) down to itself.
std::vector<Block> readme_blocks(const fs::path& file) {
  const std::vector<std::string> lines = lines_of(file);
  std::vector<Block> blocks;
  std::string prose;
  bool in_code = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.rfind("<!-- figures of ", 0) == 0) {
      Block block;
      block.where = file.string() + ":" + std::to_string(i + 1);
      const std::string rest = line.substr(16);
      block.scenario = source_dir() / rest.substr(0, rest.find_first_of(" ,("));
      std::vector<std::string> body;
      const int first = static_cast<int>(i) + 2;
      for (++i; i < lines.size() && trim(lines[i]) != "-->"; ++i) body.push_back(lines[i]);
      read_block_lines(body, file.string(), first, block);
      block.prose = prose;
      prose.clear();
      blocks.push_back(std::move(block));
      continue;
    }
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    if (!in_code && line.rfind("#", 0) == 0) prose.clear();  // a heading starts a section
    prose += line + "\n";
  }
  return blocks;
}

// The values written in a scenario's YAML (its inputs): every number outside comments.
std::vector<double> input_numbers(const fs::path& scenario) {
  std::vector<double> out;
  for (const std::string& line : lines_of(scenario)) {
    const std::string code = line.substr(0, line.find('#'));
    for (double v : numbers_in(code)) out.push_back(v);
  }
  return out;
}

// Runs (once per set of overrides) and reads summary.json.
class Runs {
 public:
  const YAML::Node& summary(const fs::path& scenario, const std::vector<std::string>& overrides) {
    const std::string key = scenario.string() + "|" + [&] {
      std::string k;
      for (const auto& o : overrides) k += o + ";";
      return k;
    }();
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    const fulcrum::sim::app::ScenarioRun run = fulcrum::sim::app::run_scenario_file(
        {.scenario_path = scenario.string(), .overrides = overrides});
    return cache_.emplace(key, YAML::Load(run.summary_json)).first->second;
  }

 private:
  std::map<std::string, YAML::Node> cache_;
};

// A summary value: "training.minibatches_per_s", "inference[0].latency_ms.p99".
double resolve(const YAML::Node& summary, const std::string& path, const std::string& where) {
  YAML::Node node = YAML::Clone(summary);
  std::stringstream parts(path);
  for (std::string part; std::getline(parts, part, '.');) {
    std::string name = part;
    std::optional<std::size_t> index;
    if (const auto open = part.find('['); open != std::string::npos) {
      name = part.substr(0, open);
      index = std::stoul(part.substr(open + 1));
    }
    node = node[name];
    if (!node) FAIL(where << ": summary.json has no '" << path << "' (at '" << name << "')");
    if (index) {
      if (!node.IsSequence() || *index >= node.size()) {
        FAIL(where << ": summary.json's '" << name << "' has no element " << *index);
      }
      node = node[*index];
    }
  }
  if (!node.IsScalar()) FAIL(where << ": '" << path << "' is not a number in summary.json");
  return node.as<double>();
}

// EXPRESSION: summary paths and numbers joined by * and /, left to right.
double evaluate(const YAML::Node& summary, const Figure& f) {
  std::stringstream tokens(f.expression);
  double value = 0;
  char op = '=';
  for (std::string t; tokens >> t;) {
    if (t == "*" || t == "/") {
      op = t[0];
      continue;
    }
    const double v = std::isdigit(static_cast<unsigned char>(t[0])) ? std::stod(t)
                                                                    : resolve(summary, t, f.where);
    value = op == '=' ? v : op == '*' ? value * v : value / v;
  }
  return value;
}

// Checks a block: each figure against its run, then every number of the prose accounted for.
void check_block(const Block& block, Runs& runs) {
  INFO(block.where);
  const std::string name = block.scenario.string();
  // A scenario that reads the public reference data is left out where that folder is absent
  // (without the skip marker: the other scenarios are still checked).
  const std::vector<std::string> lines = lines_of(block.scenario);
  const bool needs_reference = std::any_of(lines.begin(), lines.end(), [](const auto& l) {
    return l.rfind("#", 0) != 0 && l.find("FULCRUM_REFERENCE_DIR}") != std::string::npos;
  });
  std::error_code ec;
  if (needs_reference && !fs::exists(FULCRUM_REFERENCE_DIR, ec)) return;
  REQUIRE_FALSE(block.figures.empty());
  for (const Figure& f : block.figures) {
    INFO(f.where << ": " << f.text);
    const double actual = evaluate(runs.summary(block.scenario, f.overrides), f);
    CHECK(std::abs(actual - f.quoted) <= f.tolerance_pct / 100 * std::abs(f.quoted));
    if (std::abs(actual - f.quoted) > f.tolerance_pct / 100 * std::abs(f.quoted)) {
      WARN(f.where << ": quoted " << f.quoted << ", the run gives " << actual);
    }
  }
  const std::vector<double> inputs = input_numbers(block.scenario);
  for (double v : numbers_in(block.prose)) {
    const auto is = [v](double x) { return same_number(v, x); };
    const bool figure = std::any_of(block.figures.begin(), block.figures.end(),
                                    [&](const Figure& f) { return is(f.quoted); });
    const bool accounted = figure || std::any_of(block.given.begin(), block.given.end(), is) ||
                           std::any_of(inputs.begin(), inputs.end(), is);
    INFO("the text quotes " << v
                            << ": give it a figure line, or list it on the block's `given:` line "
                               "if it is an input or arithmetic on inputs");
    CHECK(accounted);
  }
}

}  // namespace

TEST_CASE("every figure a scenario header quotes matches a run of that scenario",
          "[scenarios][figures]") {
  Runs runs;
  std::vector<fs::path> files;
  for (const char* folder : {"scenarios", "scenarios/pipeline"}) {
    for (const auto& e : fs::directory_iterator(source_dir() / folder)) {
      if (e.path().extension() == ".yaml") files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  int checked = 0;
  for (const fs::path& file : files) {
    // optimize-*.yaml quote what `fulcrum optimize` prints, not a run's summary.
    if (file.filename().string().rfind("optimize", 0) == 0) continue;
    INFO(file.string());
    const std::optional<Block> block = scenario_block(file);
    // Every header that says what to expect quotes its figures in a block.
    const std::vector<std::string> lines = lines_of(file);
    const bool expects = std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
      return l.rfind("#", 0) == 0 && l.find("What to expect") != std::string::npos;
    });
    if (expects) CHECK(block.has_value());
    if (!block) continue;
    check_block(*block, runs);
    ++checked;
  }
  CHECK(checked >= 8);
}

TEST_CASE("every figure the README quotes matches a run of the scenario it names",
          "[scenarios][figures]") {
  Runs runs;
  const std::vector<Block> blocks = readme_blocks(source_dir() / "README.md");
  REQUIRE_FALSE(blocks.empty());
  for (const Block& block : blocks) check_block(block, runs);
}

TEST_CASE("a figure that drifts from the output fails its check", "[scenarios][figures]") {
  // The checker itself, on a block written here: the quickstart's training rate quoted wrong.
  TempDir dir;
  const fs::path file = dir.path() / "drift.yaml";
  {
    std::ifstream in(source_dir() / "scenarios/quickstart.yaml");
    std::ofstream out(file);
    out << "# Quotes a rate of 9.5 per second.\n# Figures:\n"
        << "#   9.5/s +-1% = training.minibatches_per_s\n";
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("#", 0) != 0) out << line << "\n";
    }
  }
  const std::optional<Block> block = scenario_block(file);
  REQUIRE(block.has_value());
  REQUIRE(block->figures.size() == 1);
  Runs runs;
  const double actual = evaluate(runs.summary(file, {}), block->figures[0]);
  CHECK(std::abs(actual - 9.5) > 0.01 * 9.5);  // the check above would fail on it
  // And a number in the text that is neither a figure, an input nor given is found.
  std::vector<double> prose = numbers_in(block->prose);
  CHECK(prose == std::vector<double>{9.5});
  CHECK(numbers_in("ResNet-50 on orin-agx-64gb at MODE_30W, p99 and YOLOv8n; 61 ms, 6.25/s") ==
        std::vector<double>{61, 6.25});
}

TEST_CASE("docs/METRICS.md lists summary.json's keys in the order a run writes them",
          "[scenarios][figures]") {
  // The paragraph under "### `summary.json`" names every key in backticks; the keys of the
  // quickstart's summary (top level, training, each stream, power, budgets) must appear there,
  // each group in the run's order.
  std::ifstream in(source_dir() / "docs/METRICS.md");
  std::stringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  const auto start = text.find("### `summary.json`");
  REQUIRE(start != std::string::npos);
  const std::string doc = text.substr(start, text.find("\n### ", start + 1) - start);
  const YAML::Node summary =
      YAML::Load(fulcrum::sim::app::run_scenario_file(
                     {.scenario_path = (source_dir() / "scenarios/quickstart.yaml").string()})
                     .summary_json);
  const auto check_order = [&doc](const YAML::Node& node, const std::string& group,
                                  std::size_t from) {
    std::size_t at = from;
    for (const auto& kv : node) {
      std::string key(1, '`');
      key += kv.first.as<std::string>();
      key += '`';
      INFO(group << ": " << key << " after position " << at);
      const std::size_t found = doc.find(key, at);
      CHECK(found != std::string::npos);
      if (found != std::string::npos) at = found + key.size();
    }
  };
  check_order(summary, "top level", 0);
  const auto group_at = [&doc](const std::string& name) {
    std::string key(1, '`');
    key += name;
    key += '`';
    const std::size_t at = doc.find(key);
    REQUIRE(at != std::string::npos);
    return at;
  };
  check_order(summary["training"], "training", group_at("training"));
  check_order(summary["inference"][0], "inference", group_at("inference"));
  check_order(summary["power"], "power", group_at("power"));
  check_order(summary["budgets"], "budgets", group_at("budgets"));
}
