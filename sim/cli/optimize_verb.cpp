// `fulcrum optimize SCENARIO`: options -> OptimizeRequest -> app::optimize -> print and publish
// (docs/SEARCH.md, "fulcrum optimize"). The search's result is printed (and written) whatever
// happens to the event-driven run of its choice; an interrupt prints what the search found and
// writes nothing.
#include <boost/program_options.hpp>
#include <exception>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/app/optimize.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/optimize_report.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

int cmd_optimize(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help")(
      "out,o", po::value<std::string>(),
      "folder for optimize.json (default: out/optimize-NAME, NAME without a leading optimize-)")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a scenario value, key.path=value (repeatable)")(
      "seed", po::value<std::string>(), "replace the scenario's (and the search's) seed")(
      "reference", po::value<std::string>(),
      "reference folder holding measurements/ (default: $FULCRUM_REFERENCE_DIR, relative to the "
      "scenario's folder, or the build's)")("json", po::bool_switch(),
                                            "print optimize.json instead of the summary");
  const auto [vm, operands] = parse_verb("optimize", args, options, "scenario");
  if (vm.count("help")) {
    out << verb_usage(
        "optimize SCENARIO [--out DIR] [--json]",
        "Chooses the power mode and inference batch sizes of a scenario with the strategy of its\n"
        "`search:` block, profiling its ground truth (the measured Orin AGX tables or the\n"
        "analytic model) through the Profiler only; then runs the scenario in that choice with\n"
        "the event-driven runtime. Prints a summary (or, with --json, optimize.json) and writes\n"
        "optimize.json: the choice, its predicted, closed-form and event-driven throughput,\n"
        "latency and power, the budgets met, the profiling cost, and the oracle's choice and\n"
        "throughput. Schema: docs/SEARCH.md.",
        options);
    return 0;
  }
  app::OptimizeRequest request;
  request.plan.scenario_path = only_operand(operands, "optimize", "expected one SCENARIO");
  if (vm.count("set")) request.plan.overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("seed")) request.plan.seed = parse_seed(vm["seed"].as<std::string>());
  if (vm.count("reference")) request.reference_dir = vm["reference"].as<std::string>();
  if (vm.count("out")) request.out_dir = vm["out"].as<std::string>();

  const InterruptHandlers interrupt_handlers;
  const app::OptimizeResult result = app::optimize(request);
  const std::string json = optimize_json(result.report);
  for (const std::string& w : result.report.warnings) err << "optimize: warning: " << w << "\n";
  out << (vm["json"].as<bool>() ? json + "\n" : optimize_summary(result.report));
  if (result.interrupted_by) {
    throw Interrupted(*result.interrupted_by, "nothing was written to " + result.folder.string());
  }
  const std::filesystem::path file = app::publish(result);
  if (!vm["json"].as<bool>()) out << "wrote " << file.string() << "\n";
  if (result.run_failure) std::rethrow_exception(result.run_failure);
  return 0;
}

}  // namespace fulcrum::sim
