// `fulcrum run SCENARIO`: runs a scenario file on a backend (the simulated one by default) and
// writes its outputs.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "backends/backend_factory.hpp"
#include "models/error.hpp"
#include "sim/cli/progress_display.hpp"
#include "sim/cli/scenario_run.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/report/summary.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

int cmd_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string backend_help =
      "what executes the minibatches (this build: " + backends::available_backends_text() + ")";
  po::options_description options("Options");
  options.add_options()("help,h", "this help")("out", po::value<std::string>(),
                                               "output folder (default: out/<scenario name>)")(
      "seed", po::value<std::string>(), "random seed, replacing the scenario's")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a scenario key: --set key.path=value (repeatable), e.g. "
      "inference[0].batch_size=32")("backend", po::value<std::string>()->default_value("sim"),
                                    backend_help.c_str())(
      "clock", po::value<std::string>()->default_value("virtual"),
      "virtual: as fast as possible; wall: in real time (the sim backend then sleeps for each "
      "minibatch, as a device would take it)")(
      "quiet,q", "print nothing on success (files are still written)")(
      "progress", "show progress even when stderr is not a terminal (one line per update)");
  po::options_description hidden;
  hidden.add_options()("scenario", po::value<std::vector<std::string>>(), "scenario file");
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("scenario", -1);
  const po::variables_map vm = parse_verb("run", args, all, positional);
  if (vm.count("help")) {
    out << verb_usage(
        "run SCENARIO [--out DIR] [--seed N] [--set key.path=value]... [--backend NAME]\n"
        "             [--clock virtual|wall] [--quiet] [--progress]",
        "Runs a scenario file (see docs/SCENARIOS.md) on a backend, the simulated one by\n"
        "default. Prints summary.json on stdout and writes summary.json, requests.csv,\n"
        "minibatches.csv, power.csv, trace.json and run.json into the output folder; on\n"
        "bad input nothing is written.\n\n"
        "Clock: with --clock wall the run takes its duration in real time: arrivals are\n"
        "released at their real times and each minibatch blocks for its duration, as on a\n"
        "device; the outputs are the same files, and run.json records how late events ran.\n\n"
        "Progress: a run whose simulation takes more than a second of wall time shows how\n"
        "far it has got on stderr (simulated seconds reached, % done), redrawn at most\n"
        "every 250 ms. Shown only when stderr is a terminal (one line, erased at the end)\n"
        "or with --progress (a line per update, for logs); never with --quiet. stdout\n"
        "carries only summary.json.",
        options);
    return 0;
  }
  if (!vm.count("scenario"))
    throw InputError(std::nullopt, "fulcrum run", "missing the SCENARIO file");
  const auto& scenarios = vm["scenario"].as<std::vector<std::string>>();
  if (scenarios.size() != 1) {
    throw InputError(std::nullopt, "fulcrum run",
                     "expected one SCENARIO file, got " + std::to_string(scenarios.size()));
  }
  RunOptions options_in;
  options_in.backend = vm["backend"].as<std::string>();
  backends::require_available(options_in.backend);
  if (const std::string clock = vm["clock"].as<std::string>(); clock == "wall") {
    options_in.real_time = true;
  } else if (clock != "virtual") {
    throw InputError(std::nullopt, "--clock", "expected virtual or wall, got '" + clock + "'");
  }
  if (vm.count("set")) options_in.overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("seed")) options_in.seed = parse_seed(vm["seed"].as<std::string>());
  const bool quiet = vm.count("quiet") > 0;

  PreparedRun prepared = prepare_run(scenarios[0], options_in);
  const std::filesystem::path out_dir =
      vm.count("out") ? std::filesystem::path(vm["out"].as<std::string>())
                      : std::filesystem::path("out") / prepared.resolved.scenario.name;
  // An unusable --out is bad input like any other: one line, before anything runs or prints.
  std::error_code out_error;
  std::filesystem::create_directories(out_dir, out_error);
  if (out_error) {
    throw InputError(
        std::nullopt, "--out",
        "cannot create output directory " + out_dir.string() + ": " + out_error.message());
  }
  if (!quiet) {
    err << "fulcrum: running " << prepared.resolved.scenario.name << " ("
        << prepared.resolved.scenario.duration_s
        << (prepared.backend->runs_in_real_time() ? " s in real time" : " s simulated") << ") on "
        << prepared.resolved.device->name << " at " << power_mode_label(prepared.resolved.mode)
        << "\n";
  }
  std::vector<std::string> command_line{"fulcrum", "run"};
  command_line.insert(command_line.end(), args.begin(), args.end());
  const bool terminal = isatty(STDERR_FILENO) != 0;
  std::optional<ProgressDisplay> progress;
  if (!quiet && (terminal || vm.count("progress"))) progress.emplace(err, terminal);
  const ScenarioRun r = run_prepared(std::move(prepared), out_dir, command_line,
                                     progress ? progress->callback() : ProgressFn{});
  if (!quiet) {
    out << r.summary_json;
    err << format_summary_text(r.result);
    err << "fulcrum: wrote " << r.outputs.size() << " files to " << out_dir.string() << " in "
        << fixed(r.wall_s * 1e3, 1) << " ms\n";
  }
  return 0;
}

}  // namespace fulcrum::sim
