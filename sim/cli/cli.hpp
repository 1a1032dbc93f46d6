// The `fulcrum` command line: the verbs of the verb table (sim/cli/verbs.hpp), each with
// --help. Bad input throws fulcrum::InputError (main prints its one line and exits 2); anything
// else that fails throws and main exits 1. Only main catches.
//
//   int code = run_cli({"run", "scenarios/quickstart.yaml", "--quiet"}, std::cout, std::cerr);
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace fulcrum::sim {

// `args` are argv[1..]; `out` receives results (summary.json, tables), `err` progress and notes.
// Returns the exit status of a successful command (0).
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// The verbs this build provides, in help order.
const std::vector<std::string>& cli_verbs();

}  // namespace fulcrum::sim
