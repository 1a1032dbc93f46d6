// What the verbs share: option parsing that turns Boost's complaints into InputError, the layout
// of a verb's --help, and small parsers and formatters.
//
//   const po::variables_map vm = parse_verb("workloads", args, options);
//   if (vm.count("help")) { out << verb_usage("workloads", "What it does.", options); ... }
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/app/available.hpp"
#include "sim/app/profiling.hpp"
#include "sim/report/number_format.hpp"

namespace fulcrum::sim {

// Parses a verb's options; Boost's complaints become InputError naming the verb.
boost::program_options::variables_map parse_verb(
    const std::string& verb, const std::vector<std::string>& args,
    const boost::program_options::options_description& options,
    const boost::program_options::positional_options_description& positional =
        boost::program_options::positional_options_description());

// A verb's options and its operands (positional arguments), in the order given.
struct ParsedVerb {
  boost::program_options::variables_map vm;
  std::vector<std::string> operands;
};

// parse_verb() for a verb with operands: they are collected under the hidden option `operand`
// (which `--operand VALUE` also gives) and returned, none when absent. Their count is the
// verb's to check, after --help (e.g. with only_operand()).
//
//   const auto [vm, operands] = parse_verb("run", args, options, "scenario");
//   if (vm.count("help")) { ... }
//   const std::string& path = only_operand(operands, "run", "expected one SCENARIO file");
ParsedVerb parse_verb(const std::string& verb, const std::vector<std::string>& args,
                      const boost::program_options::options_description& options,
                      const std::string& operand);

// The one operand of a verb that takes exactly one; otherwise InputError "fulcrum VERB: problem".
const std::string& only_operand(const std::vector<std::string>& operands, const std::string& verb,
                                const std::string& problem);

// A verb's --help: "Usage: fulcrum <synopsis>", a blank line, `what`, a blank line, the options.
std::string verb_usage(const std::string& synopsis, const std::string& what,
                       const boost::program_options::options_description& options);

// The value of --seed, by the rule of the scenario's `seed:` (seed_from_text), else InputError.
std::uint64_t parse_seed(const std::string& text);

// A thread-count option's value (`key`, e.g. "--jobs"): 0 (every core) to 1024, digits only (so
// that "-1" is not read as a huge unsigned count), else InputError naming the key.
unsigned parse_thread_count(const std::string& text, const std::string& key);

// The device catalog of a data folder (its devices/ sub-folder).
using app::devices_from;

// The hardware backend's flags that run, profile and validate share (docs/HARDWARE.md).
struct BackendFlags {
  bool cuda_graphs = false;     // --cuda-graphs (or FULCRUM_CUDA_GRAPHS=1, read by make_backend)
  bool profile_layers = false;  // --profile-layers: CUDA events around every layer
};
void add_backend_flag_options(boost::program_options::options_description& options);
// The flags given. InputError (key path "--cuda-graphs" or "--profile-layers") for a flag the
// backend `backend` does not support (only cuda has them), or --profile-layers with
// --cuda-graphs (a replayed graph has no per-layer events).
BackendFlags backend_flags_from(const boost::program_options::variables_map& vm,
                                const std::string& backend);

// --settle-s and --window-s of profile and validate (ProfilerOptions::settle and ::window).
void add_settle_options(boost::program_options::options_description& options);
// InputError (key path "--settle-s" / "--window-s") for a value out of range.
app::SettleOptions settle_options_from(const boost::program_options::variables_map& vm);

// The clock options of profile and validate (--clocks, --allow-clock-changes, --sysfs-root,
// --clock-snapshot).
void add_clock_options(boost::program_options::options_description& options);
app::ClockOptions clock_options_from(const boost::program_options::variables_map& vm);

}  // namespace fulcrum::sim
