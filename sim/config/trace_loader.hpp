// Arrival traces for `arrivals: {process: trace, path: ...}`: a CSV whose header names an
// `arrival_s` column (other columns are allowed and ignored), one request per row, arrival times
// in seconds that are finite, in 0..1e7 (the longest run) and non-decreasing, at least one row.
//
//   std::vector<double> t = load_arrival_trace("scenarios/traces/bursty.csv");
//
// Lines that are empty or start with '#' are skipped. Errors are InputError naming
// file:line:col and the column ("bursty.csv:7:1: arrival_s: not a number: 'x'").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fulcrum::sim {

// Reads and validates a trace file; "cannot open file" when it does not exist.
std::vector<double> load_arrival_trace(const std::string& path);

// The same, from text already in memory; `display_name` is used in error messages.
std::vector<double> parse_arrival_trace(std::string_view text, const std::string& display_name);

}  // namespace fulcrum::sim
