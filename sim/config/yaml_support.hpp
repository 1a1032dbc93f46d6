// Location-aware reading of YAML nodes: every error names file:line:col and the key path.
// The one home of yaml-cpp in Fulcrum (scenario files and the catalog data files).
//
//   YamlDoc doc = YamlDoc::load("scenarios/quickstart.yaml");
//   YamlNode root = doc.root();
//   root.allow_keys({"version", "name", ...});          // unknown keys are errors
//   double d = root.required("duration_s").as_double();  // "…: duration_s: expected a number"
//
// The text is read strictly (load_strict_yaml): one document, no key twice in a map, no tags,
// every scalar printable UTF-8, no alias to a node that contains it; numbers and booleans are
// plain scalars ("600" in quotes is a string).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/error.hpp"

namespace fulcrum::sim {

// A YAML node with the file it came from and its key path ("inference[0].arrivals.rate_per_s").
class YamlNode {
 public:
  YamlNode(const YAML::Node& node, std::shared_ptr<const std::string> file, std::string path);

  const std::string& path() const { return path_; }
  const std::string& file() const { return *file_; }
  SourceLocation location() const;
  const YAML::Node& raw() const { return node_; }

  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool is_null() const { return !node_ || node_.IsNull(); }

  // Throws InputError at this node: "file:line:col: path: problem".
  [[noreturn]] void fail(const std::string& problem) const;

  // Map access. `required` fails with "missing required key 'k'" at the map.
  void expect_map() const;
  bool has(std::string_view key) const;
  YamlNode required(std::string_view key) const;
  std::optional<YamlNode> optional(std::string_view key) const;
  // Fails at the first key not in `allowed`, listing the allowed ones.
  void allow_keys(std::initializer_list<std::string_view> allowed) const;
  std::vector<std::string> keys() const;

  // Sequence access.
  void expect_sequence() const;
  std::size_t size() const;
  YamlNode at(std::size_t index) const;

  // Scalars, converted strictly: "12abc" is not a number, NaN and infinities are rejected, and
  // a number or a boolean is a plain scalar (a quoted "600" is a string, not a number).
  std::string as_string() const;
  // The text of a plain (unquoted, untagged) scalar; fails with "expected <what>, got ...".
  const std::string& plain_scalar(const char* what) const;
  double as_double() const;
  long long as_int() const;
  bool as_bool() const;

  // Range-checked helpers; `what` is the expected range, e.g. "> 0".
  double as_positive_double() const;     // > 0, finite
  double as_nonnegative_double() const;  // >= 0, finite
  int as_positive_int() const;           // >= 1, fits in int

 private:
  YAML::Node node_;
  std::shared_ptr<const std::string> file_;
  std::string path_;
};

// The largest YAML file read (a scenario, a device or calibration file): those are kilobytes,
// and the limit keeps a wrong path (a log, a dataset, /dev/zero) from being read into memory.
inline constexpr std::uintmax_t kMaxYamlFileBytes = std::uintmax_t{1} << 20;  // 1 MiB

// Parses `text` as exactly one YAML document and checks what yaml-cpp lets through: a second
// document, a key given twice in one map (yaml-cpp keeps both and lookups see the first), an
// explicit tag (!!str, !custom), a key that is not a scalar, a scalar that is not printable UTF-8
// (text_problem), an alias to a node that contains it. Errors are InputError at
// display_name:line:col with the key path below `base_path`; an empty text gives a null node.
YAML::Node load_strict_yaml(const std::string& text, const std::string& display_name,
                            const std::string& base_path = "");

// A parsed YAML file. Parse errors become InputError with the parser's line and column.
class YamlDoc {
 public:
  // Refuses what is not a regular file (a folder, a device, a FIFO) and files larger than
  // `max_bytes`, before reading them.
  static YamlDoc load(const std::string& path, std::uintmax_t max_bytes = kMaxYamlFileBytes);
  static YamlDoc parse(const std::string& text, const std::string& display_name);
  YamlNode root() const;
  // The underlying document, for in-place overrides (--set) before reading.
  YAML::Node& raw() { return root_; }

 private:
  YamlDoc(const YAML::Node& root, std::string file);
  YAML::Node root_;
  std::shared_ptr<const std::string> file_;
};

}  // namespace fulcrum::sim
