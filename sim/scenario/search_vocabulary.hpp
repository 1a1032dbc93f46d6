// The search vocabulary that scenario files (`search:`), sweep files and the search library share:
// the objective, how power is judged against its budget, and which ground truth answers. Read
// once from YAML by sim/config/search_reader.hpp; every later step switches on these enums.
//
//   SearchSpec s;                        // sim/scenario/scenario.hpp
//   if (s.ground_truth == GroundTruthKind::table) ...
//   std::cout << to_string(s.objective);  // "per-window"
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace fulcrum::sim {

// What "training as fast as possible" means.
enum class Objective {
  per_window,  // published: training minibatches per inference window, tie-break smaller t_in
  per_second,  // Fulcrum's stated objective: training minibatches per second
};

// How the power of a configuration is judged against the budget.
enum class PowerConstraint {
  max_of_phases,  // published: max(P_train, P_infer), both in the same mode; no idle term
  time_weighted,  // energy of one window / its length: inference, training and idle time
};

// Where the time and power of a configuration come from.
enum class GroundTruthKind {
  table,     // the measured Orin AGX tables (reference/measurements)
  analytic,  // the analytic performance model of the device
};

// The strategy names a file may give, sorted: those of search::strategy_registry() (a test in
// tests/sim/search checks that the two lists are the same).
inline constexpr std::array<std::string_view, 15> kStrategyNames = {
    "als",  "als-modes", "binary", "fewshot",    "fewshot-bare", "fewshot-zs", "gmd",   "gmd+",
    "maxn", "nn",        "oracle", "powertrain", "presets",      "prior",      "random"};

// As the files spell them: "per-window", "max-of-phases", "table", ...
constexpr const char* to_string(Objective o) {
  return o == Objective::per_window ? "per-window" : "per-second";
}
constexpr const char* to_string(PowerConstraint k) {
  return k == PowerConstraint::max_of_phases ? "max-of-phases" : "time-weighted";
}
constexpr const char* to_string(GroundTruthKind g) {
  return g == GroundTruthKind::table ? "table" : "analytic";
}

// The inverse of to_string(); nullopt for any other text.
inline std::optional<Objective> objective_from(std::string_view s) {
  if (s == "per-window") return Objective::per_window;
  if (s == "per-second") return Objective::per_second;
  return std::nullopt;
}
inline std::optional<PowerConstraint> power_constraint_from(std::string_view s) {
  if (s == "max-of-phases") return PowerConstraint::max_of_phases;
  if (s == "time-weighted") return PowerConstraint::time_weighted;
  return std::nullopt;
}
inline std::optional<GroundTruthKind> ground_truth_from(std::string_view s) {
  if (s == "table") return GroundTruthKind::table;
  if (s == "analytic") return GroundTruthKind::analytic;
  return std::nullopt;
}

}  // namespace fulcrum::sim
