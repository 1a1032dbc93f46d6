// summary.json and its one-screen text form: a RunResult rendered with units in every key, in a
// fixed key order (docs/METRICS.md lists every field). Deterministic: same result, same bytes.
//
//   std::string json = summary_json(result, scenario);   // the CLI prints it to stdout
//   std::cerr << format_summary_text(result);             // unless --quiet
#pragma once

#include <string>

#include "sim/runtime/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

// The whole summary document, pretty-printed, ending in a newline. `scenario` supplies the
// budgets' limits that the result's latency_met/power_met were judged against.
std::string summary_json(const RunResult& result, const Scenario& scenario);

// A compact table for the terminal (about 15 lines), every number with its unit.
std::string format_summary_text(const RunResult& result);

// Name used for the power mode's "label": PowerMode::label() of the models library.
std::string power_mode_label(const models::PowerMode& mode);

}  // namespace fulcrum::sim
