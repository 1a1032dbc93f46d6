#include "sim/config/search_reader.hpp"

#include <optional>
#include <string>
#include <vector>

namespace fulcrum::sim {

namespace {

template <typename Enum>
Enum read_one_of(const YamlNode& n, std::optional<Enum> (*from)(std::string_view),
                 std::initializer_list<Enum> values) {
  const std::string text = n.as_string();
  if (const std::optional<Enum> v = from(text)) return *v;
  std::string list;
  for (Enum v : values) {
    if (!list.empty()) list += ", ";
    list += to_string(v);
  }
  n.fail("must be one of " + list + ", got '" + text + "'");
}

}  // namespace

Objective read_objective(const YamlNode& n) {
  return read_one_of(n, &objective_from, {Objective::per_window, Objective::per_second});
}

PowerConstraint read_power_constraint(const YamlNode& n) {
  return read_one_of(n, &power_constraint_from,
                     {PowerConstraint::max_of_phases, PowerConstraint::time_weighted});
}

GroundTruthKind read_ground_truth(const YamlNode& n) {
  return read_one_of(n, &ground_truth_from, {GroundTruthKind::table, GroundTruthKind::analytic});
}

std::string read_strategy_name(const YamlNode& n, const std::vector<std::string>* known) {
  const std::string name = n.as_string();
  const std::vector<std::string> names =
      known != nullptr ? *known
                       : std::vector<std::string>(kStrategyNames.begin(), kStrategyNames.end());
  std::string list;
  for (const std::string& k : names) {
    if (name == k) return name;
    list += (list.empty() ? "" : ", ") + k;
  }
  n.fail("unknown strategy '" + name + "' (known: " + list + ")");
}

double read_profiler_noise(const YamlNode& n) {
  const double noise = n.as_nonnegative_double();
  if (noise >= 1) n.fail("must be < 1 (a relative standard deviation)");
  return noise;
}

}  // namespace fulcrum::sim
