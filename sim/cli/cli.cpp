#include "sim/cli/cli.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <sstream>
#include <string_view>
#include <utility>

#include "models/error.hpp"
#include "sim/app/version.hpp"
#include "sim/cli/verbs.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/config/workload_file_loader.hpp"

namespace fulcrum::sim {

namespace {

std::string verb_list() {
  std::string s;
  for (const std::string& v : cli_verbs()) s += (s.empty() ? "" : ", ") + v;
  return s;
}

// The top-level help. Its "Verbs:" section comes from the verb table; every label (a verb with
// its operands, or an option) is padded to the longest label plus four spaces.
std::string top_help() {
  constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kOptions{{
      {"-h [ --help ]", "this help"},
      {"--version", "print the version"},
  }};
  std::vector<std::pair<std::string, std::string_view>> verb_rows;
  for (const Verb& v : verbs()) {
    std::string label(v.name);
    if (!v.operands.empty()) label.append(" ").append(v.operands);
    verb_rows.emplace_back(std::move(label), v.summary);
  }
  std::size_t width = 0;
  for (const auto& [label, summary] : verb_rows) width = std::max(width, label.size());
  for (const auto& [label, summary] : kOptions) width = std::max(width, label.size());
  width += 4;
  auto row = [width](std::string_view label, std::string_view summary) {
    std::string line("  ");
    line.append(label).append(width - label.size(), ' ').append(summary).append("\n");
    return line;
  };

  std::ostringstream s;
  s << "fulcrum " << kFulcrumVersion
    << " -- concurrent DNN training and inference on NVIDIA Jetson, simulated\n\n"
       "Usage: fulcrum VERB [options]        (fulcrum VERB --help for its options)\n\n"
       "Verbs:\n";
  for (const auto& [label, summary] : verb_rows) s << row(label, summary);
  s << "\nOptions:\n";
  for (const auto& [label, summary] : kOptions) s << row(label, summary);
  s << "\nExit status: 0 success, 2 bad input (one line on stderr), 1 internal failure.\n";
  return s.str();
}

}  // namespace

const std::vector<std::string>& cli_verbs() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Verb& v : verbs()) n.emplace_back(v.name);
    return n;
  }();
  return names;
}

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    throw InputError(std::nullopt, "fulcrum",
                     "no verb given (verbs: " + verb_list() + "; see fulcrum --help)");
  }
  const std::string& verb = args[0];
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (verb == "--help" || verb == "-h" || verb == "help") {
    out << top_help();
    return 0;
  }
  if (verb == "--version") {
    out << "fulcrum " << kFulcrumVersion << "\n";
    return 0;
  }
  if (const std::optional<Verb> v = find_verb(verb)) {
    // The workload files of the data folder join the catalog (read when first used).
    add_data_workloads(default_data_dir());
    return v->run(rest, out, err);
  }
  throw InputError(std::nullopt, "fulcrum",
                   "unknown verb '" + verb + "' (verbs: " + verb_list() + ")");
}

}  // namespace fulcrum::sim
