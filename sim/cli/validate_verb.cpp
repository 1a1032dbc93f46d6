// `fulcrum validate SCENARIO`: profiles what the scenario runs on a backend, simulates the scenario
// with that profile (the `table` model), runs it for real on the backend in wall-clock time, and
// compares the two side by side in a validation bundle.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backends/backend_factory.hpp"
#include "models/error.hpp"
#include "sim/app/validate.hpp"
#include "sim/cli/progress_display.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/json_writer.hpp"
#include "sim/report/validation_report.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

int cmd_validate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string backend_help =
      "the backend of the measured run (this build: " + backends::available_backends_text() + ")";
  po::options_description options("Options");
  options.add_options()("help,h", "this help")(
      "out", po::value<std::string>(), "the bundle folder (default: out/validate-<scenario name>)")(
      "backend", po::value<std::string>()->default_value("sim"), backend_help.c_str())(
      "duration-s", po::value<double>(), "run this long instead of the scenario's duration_s")(
      "seed", po::value<std::string>(), "random seed, replacing the scenario's")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a scenario key: --set key.path=value (repeatable)")(
      "noise", po::value<double>()->default_value(0.03),
      "sim backend only: log-normal run-to-run noise of the measured run's minibatches (sigma)")(
      "repeats", po::value<int>()->default_value(10), "profile: median of N minibatches")(
      "discard", po::value<int>()->default_value(1), "profile: minibatches discarded first")(
      "quiet,q", "print nothing on success")(
      "json", "print comparison.json on stdout instead of comparison.md")(
      "progress", "show the measured run's progress even when stderr is not a terminal");
  add_settle_options(options);
  add_clock_options(options);
  add_backend_flag_options(options);
  const auto [vm, operands] = parse_verb("validate", args, options, "scenario");
  if (vm.count("help")) {
    out << verb_usage(
        "validate SCENARIO [--out DIR] [--backend NAME] [--duration-s S] [--noise SIGMA]\n"
        "                 [--repeats N] [--discard K] [--settle-s S] [--window-s S]\n"
        "                 [--cuda-graphs] [--profile-layers] [--allow-clock-changes] ...",
        "1. profiles the minibatches the scenario runs (its training minibatch, each stream's\n"
        "   batch) on the backend at the scenario's mode, by the method of `fulcrum profile`;\n"
        "2. simulates the scenario with that profile (perf_model table);\n"
        "3. runs the scenario on the backend in wall-clock time (--duration-s shortens it);\n"
        "4. compares them: mean, p50, p99 and max latency per stream, training throughput,\n"
        "   average power and energy, with errors in % of the measured value.\n"
        "Writes a bundle folder: inputs/ (scenario, profile.csv), simulated/ and measured/\n"
        "(the run outputs), device.json, comparison.json and comparison.md; plot it with\n"
        "scripts/plot_validation.py. With --backend sim the measured run is the simulated\n"
        "device in wall-clock time with --noise: it exercises the whole path without hardware.\n"
        "Clock options as in `fulcrum profile` (docs/HARDWARE.md).",
        options);
    return 0;
  }
  app::ValidateRequest request;
  request.plan.scenario_path = only_operand(operands, "validate", "expected one SCENARIO file");
  request.plan.backend.name = vm["backend"].as<std::string>();
  backends::require_available(request.plan.backend.name);
  const BackendFlags flags = backend_flags_from(vm, request.plan.backend.name);
  request.plan.backend.cuda_graphs = flags.cuda_graphs;
  request.plan.backend.layer_timing = flags.profile_layers;
  request.plan.backend.real_time = true;
  if (vm.count("set")) request.plan.overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("duration-s")) {
    const double d = vm["duration-s"].as<double>();
    if (!(d > 0)) throw InputError(std::nullopt, "--duration-s", "must be > 0");
    std::string text = "duration_s=";
    append_json_number(text, d);
    request.plan.overrides.push_back(text);
  }
  if (vm.count("seed")) request.plan.seed = parse_seed(vm["seed"].as<std::string>());
  if (vm.count("out")) request.out_dir = vm["out"].as<std::string>();
  request.noise = vm["noise"].as<double>();
  request.repeats = vm["repeats"].as<int>();
  request.discard = vm["discard"].as<int>();
  request.settle = settle_options_from(vm);
  request.clocks = clock_options_from(vm);
  request.quiet = vm.count("quiet") > 0;
  request.command_line = "fulcrum validate";
  for (const std::string& a : args) request.command_line += " " + a;

  const InterruptHandlers interrupt_handlers;
  const bool terminal = isatty(STDERR_FILENO) != 0;
  std::optional<ProgressDisplay> progress;
  if (!request.quiet && (terminal || vm.count("progress"))) progress.emplace(err, terminal);
  const app::ValidateReport r =
      app::validate(request, err, progress ? progress->callback() : ProgressFn{});
  if (!request.quiet) {
    out << (vm.count("json") ? comparison_json(r.comparison)
                             : comparison_markdown(r.comparison, r.scenario, r.backend));
    err << "fulcrum: wrote the validation bundle " << r.out_dir.string()
        << " (plot: python3 scripts/plot_validation.py " << r.out_dir.string() << ")\n";
  }
  return 0;
}

}  // namespace fulcrum::sim
