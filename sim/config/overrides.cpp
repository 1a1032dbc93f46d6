#include "sim/config/overrides.hpp"

#include <cctype>
#include <charconv>
#include <variant>

#include "sim/config/input_text.hpp"
#include "sim/config/yaml_support.hpp"

namespace fulcrum::sim {

namespace {

// One step of a key path: a map key or a list index.
using Step = std::variant<std::string, std::size_t>;

bool is_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}

[[noreturn]] void fail(const std::string& key_path, const std::string& problem) {
  throw InputError(override_location(), key_path, problem);
}

std::vector<Step> parse_path(const std::string& path) {
  std::vector<Step> steps;
  std::size_t i = 0;
  auto bad = [&](const std::string& why) { fail(printable(path), "malformed key path: " + why); };
  if (path.empty()) fail("", "malformed override: the key path before '=' is empty");
  while (i < path.size()) {
    const std::size_t start = i;
    while (i < path.size() && is_key_char(path[i])) ++i;
    if (i == start) bad("expected a key at position " + std::to_string(start + 1));
    steps.emplace_back(path.substr(start, i - start));
    while (i < path.size() && path[i] == '[') {
      const std::size_t close = path.find(']', i);
      if (close == std::string::npos) bad("unclosed '['");
      std::size_t index = 0;
      const char* first = path.data() + i + 1;
      const char* last = path.data() + close;
      auto [ptr, ec] = std::from_chars(first, last, index);
      if (first == last || ec != std::errc() || ptr != last || index > 100000) {
        bad("expected a list index in [...]");
      }
      steps.emplace_back(index);
      i = close + 1;
    }
    if (i < path.size()) {
      if (path[i] != '.') bad("unexpected '" + printable(std::string(1, path[i])) + "'");
      ++i;
      if (i == path.size()) bad("ends with '.'");
    }
  }
  return steps;
}

std::string append(const std::string& parent, const Step& step) {
  if (const auto* key = std::get_if<std::string>(&step)) {
    return parent.empty() ? *key : parent + "." + *key;
  }
  return parent + "[" + std::to_string(std::get<std::size_t>(step)) + "]";
}

}  // namespace

Override parse_override(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos) {
    fail("", "malformed override '" + printable(text) + "': expected key.path=value");
  }
  Override o;
  o.value = text.substr(eq + 1);
  std::string canonical;
  for (const Step& s : parse_path(text.substr(0, eq))) canonical = append(canonical, s);
  o.key_path = canonical;
  return o;
}

std::vector<std::string> apply_overrides(YAML::Node& root,
                                         const std::vector<std::string>& overrides) {
  std::vector<std::string> touched;
  for (const std::string& text : overrides) {
    const Override o = parse_override(text);
    // Read as strictly as a file (one document, no duplicate keys, no tags, printable text);
    // its errors point at --set and at the key path inside the value.
    YAML::Node value;
    try {
      value = load_strict_yaml(o.value, override_location().file, o.key_path);
    } catch (const InputError& e) {
      const std::string problem =
          e.problem().rfind("malformed YAML: ", 0) == 0
              ? "malformed value '" + printable(o.value) + "': " + e.problem().substr(16)
              : e.problem();
      fail(e.key_path(), problem);
    }
    const std::vector<Step> steps = parse_path(o.key_path);
    YAML::Node cur;
    cur.reset(root);
    std::string path;
    for (std::size_t k = 0; k < steps.size(); ++k) {
      const bool last = k + 1 == steps.size();
      const std::string here = append(path, steps[k]);
      YAML::Node next;
      if (const auto* key = std::get_if<std::string>(&steps[k])) {
        if (!(cur.IsMap() || cur.IsNull())) {
          fail(here, "cannot set a key inside " +
                         (path.empty() ? std::string("the document") : path) +
                         ", which is not a map");
        }
        if (!cur[*key].IsDefined() || cur[*key].IsNull()) touched.push_back(here);
        if (last) {
          cur[*key] = value;
          break;
        }
        if (!cur[*key].IsDefined() || cur[*key].IsNull())
          cur[*key] = YAML::Node(YAML::NodeType::Map);
        next.reset(cur[*key]);
      } else {
        const std::size_t index = std::get<std::size_t>(steps[k]);
        if (!(cur.IsSequence() || (cur.IsNull() && index == 0))) {
          fail(here, (path.empty() ? std::string("the document") : path) + " is not a list");
        }
        if (index > cur.size()) {
          fail(here, "no element " + std::to_string(index) + ": " + path + " has " +
                         std::to_string(cur.size()) + " (an override may append one at index " +
                         std::to_string(cur.size()) + ")");
        }
        if (index == cur.size()) {
          cur.push_back(YAML::Node(YAML::NodeType::Map));
          touched.push_back(here);
        }
        if (last) {
          cur[index] = value;
          break;
        }
        next.reset(cur[index]);
      }
      cur.reset(next);
      path = here;
    }
    touched.push_back(o.key_path);
  }
  return touched;
}

bool is_overridden(const std::string& key_path, const std::vector<std::string>& touched) {
  for (const std::string& t : touched) {
    if (key_path == t) return true;
    if (key_path.size() > t.size() && key_path.compare(0, t.size(), t) == 0 &&
        (key_path[t.size()] == '.' || key_path[t.size()] == '[')) {
      return true;
    }
  }
  return false;
}

}  // namespace fulcrum::sim
