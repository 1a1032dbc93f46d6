// The one reader of the search vocabulary (sim/scenario/search_vocabulary.hpp) that scenario files
// (`search:` block) and sweep files share: each value is checked and turned into its enum here,
// with the one-line located error "file:line:col: key.path: must be one of a, b, got 'x'".
//
//   s.objective = read_objective(*node);
//   s.noise = read_profiler_noise(*node);
#pragma once

#include <string>
#include <vector>

#include "sim/config/yaml_support.hpp"
#include "sim/scenario/search_vocabulary.hpp"

namespace fulcrum::sim {

Objective read_objective(const YamlNode& n);               // per-window | per-second
PowerConstraint read_power_constraint(const YamlNode& n);  // max-of-phases | time-weighted
GroundTruthKind read_ground_truth(const YamlNode& n);      // table | analytic
// A strategy name of `known` (sorted), or of kStrategyNames when null ("unknown strategy 'x'
// (known: als, binary, ...)").
std::string read_strategy_name(const YamlNode& n, const std::vector<std::string>* known = nullptr);
// The Profiler's relative measurement noise: >= 0 and < 1.
double read_profiler_noise(const YamlNode& n);

}  // namespace fulcrum::sim
