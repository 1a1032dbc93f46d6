#include "sim/config/study_spec.hpp"

#include <filesystem>
#include <set>

#include "sim/config/overrides.hpp"
#include "sim/config/scenario_loader.hpp"
#include "sim/config/yaml_support.hpp"

namespace fulcrum::sim {

namespace {

constexpr std::size_t kMaxAxisValues = 100000;
constexpr std::size_t kMaxSeeds = 100000;

// A value as the YAML text --set takes: scalars as written, maps and lists in flow style.
std::string value_text(const YamlNode& n) {
  if (n.is_null()) n.fail("expected a value");
  if (n.is_scalar()) {
    const std::string& s = n.raw().Scalar();
    if (n.raw().Tag() == "!") {  // quoted in the file: keep it a string
      YAML::Emitter e;
      e << YAML::DoubleQuoted << s;
      return e.c_str();
    }
    return s;
  }
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << n.raw();
  return e.c_str();
}

// A key path as --set takes it; a malformed one fails at `at`.
std::string key_path_of(const std::string& key, const YamlNode& at) {
  try {
    return parse_override(key + "=0").key_path;
  } catch (const InputError& e) {
    at.fail("'" + key + "' is not a scenario key path: " + e.problem());
  }
}

StudyKey read_key(const std::string& key, const YamlNode& values) {
  StudyKey k;
  k.key_path = key_path_of(key, values);
  if (values.is_sequence()) {
    if (values.size() == 0) values.fail("needs at least one value");
    if (values.size() > kMaxAxisValues) {
      values.fail("has more than " + std::to_string(kMaxAxisValues) + " values");
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      const YamlNode v = values.at(i);
      k.values.push_back(value_text(v));
      k.labels.push_back(v.is_scalar() ? v.raw().Scalar() : k.values.back());
      k.value_locations.push_back(v.location());
    }
  } else {
    values.fail("expected a list of values, e.g. [1, 2]");
  }
  return k;
}

std::vector<std::uint64_t> read_seeds(const YamlNode& n) {
  std::vector<std::uint64_t> out;
  auto seed_of = [](const YamlNode& v) {
    const std::optional<std::uint64_t> seed = seed_from_text(v.plain_scalar("a seed"));
    if (!seed) v.fail(bad_seed_problem(v.raw().Scalar()));
    return *seed;
  };
  if (n.is_map()) {
    n.allow_keys({"from", "count"});
    const std::uint64_t from = seed_of(n.required("from"));
    const YamlNode count_node = n.required("count");
    const int count = count_node.as_positive_int();
    if (static_cast<std::size_t>(count) > kMaxSeeds) {
      count_node.fail("must be at most " + std::to_string(kMaxSeeds));
    }
    if (from > UINT64_MAX - static_cast<std::uint64_t>(count - 1)) {
      count_node.fail("runs past the largest seed, 18446744073709551615");
    }
    for (int i = 0; i < count; ++i) out.push_back(from + static_cast<std::uint64_t>(i));
    return out;
  }
  if (!n.is_sequence()) n.fail("expected a list of seeds or {from: N, count: M}");
  if (n.size() == 0) n.fail("needs at least one seed");
  if (n.size() > kMaxSeeds) n.fail("has more than " + std::to_string(kMaxSeeds) + " seeds");
  std::set<std::uint64_t> seen;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const YamlNode v = n.at(i);
    const std::uint64_t s = seed_of(v);
    if (!seen.insert(s).second) v.fail("seed " + std::to_string(s) + " is listed twice");
    out.push_back(s);
  }
  return out;
}

StudySpec read_spec(const YamlNode& root, const std::string& base_dir) {
  StudySpec s;
  s.source = root.file();
  if (root.is_null()) root.fail("empty study: expected a map with at least 'version: 1'");
  root.expect_map();
  root.allow_keys({"version", "name", "scenario", "set", "grid", "zip", "seeds"});
  const YamlNode version = root.required("version");
  if (version.as_int() != 1) version.fail("unsupported version (this Fulcrum reads version 1)");
  const YamlNode name = root.required("name");
  s.name = name.as_string();
  if (s.name.empty() || s.name.size() > 128) name.fail("must be 1 to 128 bytes long");
  if (s.name.find_first_of("/\\") != std::string::npos || s.name == "." || s.name == "..") {
    name.fail("must not contain '/' or '\\' (it names the default output folder)");
  }
  const YamlNode scenario = root.required("scenario");
  const std::filesystem::path p = scenario.as_string();
  if (p.empty()) scenario.fail("must name a scenario file");
  s.scenario_path = p.is_absolute() ? p.string() : (std::filesystem::path(base_dir) / p).string();
  s.scenario_location = scenario.location();

  std::set<std::string> keys_seen;
  auto claim = [&](const std::string& key_path, const YamlNode& at) {
    if (!keys_seen.insert(key_path).second) {
      at.fail("'" + key_path + "' is already set by this study (in set, grid or zip)");
    }
  };
  if (auto set = root.optional("set")) {
    set->expect_map();
    for (const std::string& key : set->keys()) {
      const YamlNode v = set->required(key);
      const std::string path = key_path_of(key, v);
      claim(path, v);
      s.fixed.push_back(path + "=" + value_text(v));
      s.fixed_locations.push_back(v.location());
    }
  }
  if (auto grid = root.optional("grid")) {
    grid->expect_map();
    for (const std::string& key : grid->keys()) {
      const YamlNode v = grid->required(key);
      StudyAxis axis;
      axis.keys.push_back(read_key(key, v));
      claim(axis.keys.back().key_path, v);
      s.axes.push_back(std::move(axis));
    }
  }
  if (auto zip = root.optional("zip")) {
    zip->expect_map();
    StudyAxis axis;
    for (const std::string& key : zip->keys()) {
      const YamlNode v = zip->required(key);
      axis.keys.push_back(read_key(key, v));
      claim(axis.keys.back().key_path, v);
      if (axis.keys.back().values.size() != axis.keys.front().values.size()) {
        v.fail("has " + std::to_string(axis.keys.back().values.size()) + " values, but '" +
               axis.keys.front().key_path + "' has " +
               std::to_string(axis.keys.front().values.size()) + ": zipped keys vary together");
      }
    }
    if (axis.keys.empty()) zip->fail("needs at least one key");
    s.axes.push_back(std::move(axis));
  }
  if (auto seeds = root.optional("seeds")) s.seeds = read_seeds(*seeds);

  double runs = s.seeds.empty() ? 1.0 : static_cast<double>(s.seeds.size());
  for (const StudyAxis& a : s.axes) runs *= static_cast<double>(a.size());
  if (runs > static_cast<double>(kMaxStudyRuns)) {
    root.fail("asks for more than " + std::to_string(kMaxStudyRuns) + " runs");
  }
  return s;
}

}  // namespace

std::string StudyAxis::label() const {
  std::string s;
  for (const StudyKey& k : keys) {
    if (!s.empty()) s += '+';
    s += k.key_path;
  }
  return s;
}

std::size_t StudySpec::points() const {
  std::size_t n = 1;
  for (const StudyAxis& a : axes) n *= a.size();
  return n;
}

std::vector<std::size_t> StudySpec::coordinates(std::size_t point) const {
  std::vector<std::size_t> c(axes.size());
  for (std::size_t i = axes.size(); i-- > 0;) {
    c[i] = point % axes[i].size();
    point /= axes[i].size();
  }
  return c;
}

std::vector<std::string> StudySpec::overrides(std::size_t point) const {
  std::vector<std::string> out = fixed;
  const std::vector<std::size_t> c = coordinates(point);
  for (std::size_t i = 0; i < axes.size(); ++i) {
    for (const StudyKey& k : axes[i].keys) out.push_back(k.key_path + "=" + k.values[c[i]]);
  }
  return out;
}

StudySpec load_study_spec(const std::string& path) {
  const YamlDoc doc = YamlDoc::load(path);
  return read_spec(doc.root(), std::filesystem::path(path).parent_path().string());
}

StudySpec parse_study_spec(const std::string& text, const std::string& display_name,
                           const std::string& base_dir) {
  const YamlDoc doc = YamlDoc::parse(text, display_name);
  return read_spec(doc.root(), base_dir);
}

}  // namespace fulcrum::sim
