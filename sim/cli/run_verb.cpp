// `fulcrum run SCENARIO`: runs a scenario file on a backend (the simulated one by default) and
// writes its outputs.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/app/available.hpp"
#include "sim/app/scenario_run.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/progress_display.hpp"
#include "sim/report/summary.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

int cmd_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string backend_help =
      "what executes the minibatches (this build: " + app::backends_text() + ")";
  po::options_description options("Options");
  options.add_options()("help,h", "this help")(
      "out", po::value<std::string>(),
      "output folder (default: out/<scenario name>): absent, empty or an earlier result")(
      "wait", "if another run is writing the output folder, wait for it instead of failing")(
      "seed", po::value<std::string>(), "random seed, replacing the scenario's")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a scenario key: --set key.path=value (repeatable), e.g. "
      "inference[0].batch_size=32")("backend", po::value<std::string>()->default_value("sim"),
                                    backend_help.c_str())(
      "clock", po::value<std::string>()->default_value("virtual"),
      "virtual: as fast as possible; wall: in real time (the sim backend then sleeps for each "
      "minibatch, as a device would take it)")(
      "quiet,q", "print nothing on success (files are still written)")(
      "json", "print summary.json on stdout (what run prints anyway; every verb takes --json)")(
      "progress", "show progress even when stderr is not a terminal (one line per update)");
  add_backend_flag_options(options);
  const auto [vm, scenarios] = parse_verb("run", args, options, "scenario");
  if (vm.count("help")) {
    out << verb_usage(
        "run SCENARIO [--out DIR] [--wait] [--seed N] [--set key.path=value]...\n"
        "             [--backend NAME] [--clock virtual|wall] [--cuda-graphs]\n"
        "             [--profile-layers] [--quiet] [--progress]",
        "Runs a scenario file (see docs/SCENARIOS.md) on a backend, the simulated one by\n"
        "default. Prints summary.json on stdout and writes summary.json, requests.csv,\n"
        "minibatches.csv, epochs.csv, power.csv, trace.json and run.json into the output\n"
        "folder (docs/METRICS.md); on bad input nothing is written.\n\n"
        "Output folder: a run writes into a hidden folder beside it and replaces the whole\n"
        "folder at once when it succeeds, so the folder holds one complete result (or the\n"
        "previous one) at every moment. It must be absent, empty or an earlier result: a\n"
        "folder holding anything a run does not write (see docs/METRICS.md) is refused\n"
        "(exit 2) and never touched. One run at a time writes a folder: a second one exits\n"
        "2 naming the first one's pid, or with --wait waits for it (saying so on stderr\n"
        "unless --quiet).\n\n"
        "Interrupts: SIGINT (Ctrl-C), SIGTERM and SIGHUP stop the run, remove what it\n"
        "staged and leave the output folder as it was; exit status 130, 143 and 129.\n\n"
        "Clock: with --clock wall the run takes its duration in real time: arrivals are\n"
        "released at their real times and each minibatch blocks for its duration, as on a\n"
        "device; the outputs are the same files, and run.json records how late events ran.\n"
        "Under native sharing each workload then runs in a device context of its own, at the\n"
        "same time as the others (the sim backend time-slices them with the scenario's\n"
        "timeslice_us and context_switch_us).\n\n"
        "Progress: a run whose simulation takes more than a second of wall time shows how\n"
        "far it has got on stderr (simulated seconds reached, % done), redrawn at most\n"
        "every 250 ms. Shown only when stderr is a terminal (one line, erased at the end)\n"
        "or with --progress (a line per update, for logs); never with --quiet. stdout\n"
        "carries only summary.json.",
        options);
    return 0;
  }
  if (scenarios.empty()) throw InputError(std::nullopt, "fulcrum run", "missing the SCENARIO file");
  app::RunRequest request;
  request.plan.scenario_path = only_operand(
      scenarios, "run", "expected one SCENARIO file, got " + std::to_string(scenarios.size()));
  request.plan.backend.name = vm["backend"].as<std::string>();
  app::require_backend(request.plan.backend.name);
  const BackendFlags flags = backend_flags_from(vm, request.plan.backend.name);
  request.plan.backend.cuda_graphs = flags.cuda_graphs;
  request.plan.backend.layer_timing = flags.profile_layers;
  if (const std::string clock = vm["clock"].as<std::string>(); clock == "wall") {
    request.plan.backend.real_time = true;
  } else if (clock != "virtual") {
    throw InputError(std::nullopt, "--clock", "expected virtual or wall, got '" + clock + "'");
  }
  if (vm.count("set")) request.plan.overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("seed")) request.plan.seed = parse_seed(vm["seed"].as<std::string>());
  if (vm.count("out")) request.out_dir = vm["out"].as<std::string>();
  request.wait = vm.count("wait") > 0;
  request.command_line = {"fulcrum", "run"};
  request.command_line.insert(request.command_line.end(), args.begin(), args.end());
  const bool quiet = vm.count("quiet") > 0;
  request.on_warning = [&err](const std::string& w) { err << "fulcrum: warning: " << w << "\n"; };

  // From here a signal stops the run at its next check point instead of killing the process, so
  // that what it staged is removed (sim/report/interrupt.hpp).
  const InterruptHandlers interrupt_handlers;
  const bool terminal = isatty(STDERR_FILENO) != 0;
  std::optional<ProgressDisplay> progress;
  if (!quiet && (terminal || vm.count("progress"))) progress.emplace(err, terminal);
  const app::RunReport r = app::run_scenario(request, quiet ? nullptr : &err,
                                             progress ? progress->callback() : ProgressFn{});
  if (!quiet) {
    out << r.run.summary_json;
    err << format_summary_text(r.run.result);
    err << "fulcrum: wrote " << r.run.outputs.size() << " files to " << r.out_dir.string() << " in "
        << fixed(r.run.wall_s * 1e3, 1) << " ms\n";
  }
  return 0;
}

}  // namespace fulcrum::sim
