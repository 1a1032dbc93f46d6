// --set key.path=value: overrides of scenario keys, applied to the YAML document before it is
// read, so that an overridden value is validated exactly like a value in the file.
//
//   YamlDoc doc = YamlDoc::load(path);
//   std::vector<std::string> touched = apply_overrides(doc.raw(), {"inference[0].batch_size=32"});
//
// The value is read as YAML ("32", "MAXN", "{policy: native, timeslice_us: 512}"). Missing maps
// along the path are created; a list index may name an existing element or append one. Errors
// are InputError located at "--set" with the key path ("--set: budgets.x: ...").
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "models/error.hpp"

namespace fulcrum::sim {

struct Override {
  std::string key_path;  // canonical: "inference[0].arrivals.rate_per_s"
  std::string value;     // YAML text
};

// Where errors about overridden keys point: the command line rather than the file.
inline SourceLocation override_location() { return SourceLocation{"--set", 0, 0}; }

// Splits "key.path=value"; throws InputError for a missing '=' or a malformed path.
Override parse_override(const std::string& text);

// Applies the overrides in order. Returns the key paths each override wrote or created (the
// target and any map or list element made along the way), so that later errors at those paths
// can be blamed on --set.
std::vector<std::string> apply_overrides(YAML::Node& root,
                                         const std::vector<std::string>& overrides);

// True when `key_path` is one of `touched` or lies beneath one of them.
bool is_overridden(const std::string& key_path, const std::vector<std::string>& touched);

}  // namespace fulcrum::sim
