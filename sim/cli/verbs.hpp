// The table of `fulcrum` verbs, the one place that lists them: the dispatcher in run_cli,
// cli_verbs() and the verb list of `fulcrum --help` are all derived from it.
//
//   if (const std::optional<Verb> v = find_verb("devices")) return v->run(rest, out, err);
#pragma once

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fulcrum::sim {

// A verb's entry point. `args` are the arguments after the verb; `out` receives results, `err`
// progress and notes. Returns the exit status of a successful command (0); bad input throws
// fulcrum::InputError.
using VerbFn = int (*)(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

struct Verb {
  std::string_view name;      // what the user types: "devices"
  std::string_view operands;  // shown after the name in `fulcrum --help`: "[NAME]"; may be empty
  std::string_view summary;   // one line for `fulcrum --help`, lower case, no full stop
  VerbFn run;
};

// Every verb of this build, in help order.
std::span<const Verb> verbs();

// The verb called `name`, if this build has one.
std::optional<Verb> find_verb(std::string_view name);

}  // namespace fulcrum::sim
