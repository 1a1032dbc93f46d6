// `fulcrum run SCENARIO`: runs a scenario file on a backend (the simulated one by default) and
// writes its outputs.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend_factory.hpp"
#include "backends/hardware/power_meter.hpp"
#include "backends/hardware/settled_idle.hpp"
#include "models/error.hpp"
#include "sim/cli/profiling.hpp"
#include "sim/cli/progress_display.hpp"
#include "sim/cli/scenario_run.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/result_folder.hpp"
#include "sim/report/summary.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

int cmd_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string backend_help =
      "what executes the minibatches (this build: " + backends::available_backends_text() + ")";
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
  const std::string& scenario_file = only_operand(
      scenarios, "run", "expected one SCENARIO file, got " + std::to_string(scenarios.size()));
  RunOptions options_in;
  options_in.backend = vm["backend"].as<std::string>();
  backends::require_available(options_in.backend);
  const BackendFlags flags = backend_flags_from(vm, options_in.backend);
  options_in.cuda_graphs = flags.cuda_graphs;
  options_in.layer_timing = flags.profile_layers;
  if (const std::string clock = vm["clock"].as<std::string>(); clock == "wall") {
    options_in.real_time = true;
  } else if (clock != "virtual") {
    throw InputError(std::nullopt, "--clock", "expected virtual or wall, got '" + clock + "'");
  }
  if (vm.count("set")) options_in.overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("seed")) options_in.seed = parse_seed(vm["seed"].as<std::string>());
  const bool quiet = vm.count("quiet") > 0;

  // From here a signal stops the run at its next check point instead of killing the process, so
  // that what it staged is removed (sim/report/interrupt.hpp).
  const InterruptHandlers interrupt_handlers;
  PreparedRun prepared = prepare_run(scenario_file, options_in);
  for (const std::string& w : prepared.warnings) err << "fulcrum: warning: " << w << "\n";
  const std::filesystem::path out_dir =
      vm.count("out") ? std::filesystem::path(vm["out"].as<std::string>())
                      : std::filesystem::path("out") / prepared.resolved.scenario.name;
  // An unusable --out, a folder that is not a result or one another run holds is bad input like
  // any other: one line, before anything runs or prints.
  ResultFolder::Options folder_options;
  folder_options.wait = vm.count("wait") > 0;
  if (!quiet) {
    folder_options.on_wait = [&err, &out_dir](std::optional<long> holder) {
      err << "fulcrum: waiting for another run"
          << (holder ? " (pid " + std::to_string(*holder) + ")" : std::string()) << " to finish "
          << out_dir.string() << "\n"
          << std::flush;
    };
  }
  ResultFolder folder(out_dir, std::move(folder_options));
  if (!quiet) {
    err << "fulcrum: running " << prepared.resolved.scenario.name << " ("
        << prepared.resolved.scenario.duration_s
        << (prepared.backend->runs_in_real_time() ? " s in real time" : " s simulated") << ") on "
        << prepared.resolved.device->name << " at " << power_mode_label(prepared.resolved.mode)
        << "\n";
  }
  // A hardware run also writes device.json: what measured it (GPU, driver, clocks read back, the
  // power meter and its interval) and the meter over the whole run.
  const bool hardware = options_in.backend != "sim";
  const models::DeviceSpec& device = *prepared.resolved.device;
  std::unique_ptr<backends::ClockControl> clocks;
  std::optional<RunMeter> run_meter;  // the meter over the run
  ExtraOutputs extra;
  if (hardware) {
    clocks = make_clock_control(ClockOptions{}, true, err);  // reads only: a run changes no clock
    if (!quiet) {
      const auto most = std::chrono::duration<double>(backends::IdleSettleOptions{}.max_settle);
      err << "fulcrum: metering the device's idle power first (until it settles, at most "
          << fixed(most.count(), 0) << " s)\n";
    }
    // The baseload, metered before the run's own meter starts (the backend keeps it).
    (void)prepared.backend->idle_power(prepared.resolved.mode);
    run_meter.emplace(prepared, backends::PowerMeterOptions{.summed_rails = device.rails},
                      quiet ? nullptr : &err);
    extra = [&](const std::filesystem::path& staging) {
      write_file_atomically(staging / "device.json",
                            device_json(device, options_in.backend, true, clocks.get(),
                                        ClockOptions{}, 0, run_meter->reading()));
      return std::vector<std::string>{"device.json"};
    };
  }
  std::vector<std::string> command_line{"fulcrum", "run"};
  command_line.insert(command_line.end(), args.begin(), args.end());
  const bool terminal = isatty(STDERR_FILENO) != 0;
  std::optional<ProgressDisplay> progress;
  if (!quiet && (terminal || vm.count("progress"))) progress.emplace(err, terminal);
  const ScenarioRun r = run_prepared(std::move(prepared), folder, command_line,
                                     progress ? progress->callback() : ProgressFn{}, extra);
  if (!quiet) {
    out << r.summary_json;
    err << format_summary_text(r.result);
    err << "fulcrum: wrote " << r.outputs.size() << " files to " << out_dir.string() << " in "
        << fixed(r.wall_s * 1e3, 1) << " ms\n";
  }
  return 0;
}

}  // namespace fulcrum::sim
