// `fulcrum profile`: measures training and inference minibatches on a backend over power modes
// and batch sizes, and writes the profile CSV that the `table` performance model reads.
#include <boost/program_options.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backends/backend_factory.hpp"
#include "models/error.hpp"
#include "sim/app/profile.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/profile_report.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

int cmd_profile(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string backend_help =
      "what executes the minibatches (this build: " + backends::available_backends_text() + ")";
  po::options_description options("Options");
  options.add_options()("help,h", "this help")("workloads", po::value<std::string>(),
                                               "workloads to profile, comma-separated (required)")(
      "phases", po::value<std::string>()->default_value("training,inference"),
      "training, inference or both")("batch-sizes", po::value<std::string>()->default_value("16"),
                                     "minibatch sizes, comma-separated")(
      "modes", po::value<std::string>(),
      "power modes, comma-separated: presets (MAXN), grids (grid:NAME) or "
      "CORES/CPU_MHZ/GPU_MHZ/EMC_MHZ (default: the device's default preset)")(
      "device", po::value<std::string>()->default_value("orin-agx-64gb"),
      "the catalog device the profile is for")(
      "backend", po::value<std::string>()->default_value("sim"), backend_help.c_str())(
      "clock", po::value<std::string>()->default_value("virtual"),
      "virtual, or wall: the sim backend takes each minibatch in real time")(
      "repeats", po::value<int>()->default_value(10), "N: minibatches whose median is reported")(
      "discard", po::value<int>()->default_value(1), "minibatches run first and discarded")(
      "dataset", po::value<std::string>()->default_value("random"),
      "the dataset column of the CSV (the inputs are random tensors)")(
      "out", po::value<std::string>()->default_value("profile.csv"), "the profile CSV to write")(
      "quiet,q", "no progress lines")("json", "print what was written as JSON on stdout");
  add_settle_options(options);
  add_clock_options(options);
  add_backend_flag_options(options);
  const po::variables_map vm = parse_verb("profile", args, options);
  if (vm.count("help")) {
    out << verb_usage(
        "profile --workloads LIST [--phases LIST] [--batch-sizes LIST] [--modes LIST]\n"
        "                [--device NAME] [--backend NAME] [--repeats N] [--discard K]\n"
        "                [--settle-s S] [--window-s S] [--out FILE] [--cuda-graphs]\n"
        "                [--profile-layers] [--allow-clock-changes] ...",
        "Measures the minibatch time and power of each workload, phase and batch size at each\n"
        "power mode, by the published method: set the mode, run and discard the first\n"
        "--discard minibatches, let power settle, report the median of the next --repeats.\n"
        "On a hardware backend, settling is running the point back to back for --settle-s,\n"
        "and each of the N power figures is a power meter's energy (NVML's energy counter,\n"
        "the INA3221 rails) over a window of back-to-back minibatches of --window-s or more;\n"
        "the time is the median of every minibatch in the windows. --profile-layers also\n"
        "writes each point's per-layer times (its last minibatch) to FILE-layers.csv.\n\n"
        "Writes a profile CSV in the measurement column format (model,dataset,phase,\n"
        "minibatch_size,cores,cpu_freq_khz,gpu_freq_hz,mem_freq_hz,minibatch_time_ms,\n"
        "power_w, plus <RAIL>_w per rail) that a scenario reads with\n"
        "perf_model: {table: FILE} (docs/HARDWARE.md).\n\n"
        "Clocks: on a Jetson the modes are set through sysfs only with --allow-clock-changes;\n"
        "the clocks are snapshotted first and restored at the end, on errors and on\n"
        "SIGINT/SIGTERM (a run killed outright is restored by the next start). Without the\n"
        "flag, or on another GPU, only the current mode is profiled and the writes each\n"
        "requested mode would need are printed. The sim backend takes any mode.\n\n"
        "Interrupts: SIGINT/SIGTERM stop at the next minibatch, restore the clocks and write\n"
        "nothing (exit 130/143).",
        options);
    return 0;
  }
  if (!vm.count("workloads")) {
    throw InputError(std::nullopt, "--workloads", "missing: which workloads to profile");
  }
  app::ProfileRequest request;
  request.backend.name = vm["backend"].as<std::string>();
  backends::require_available(request.backend.name);
  const std::string clock = vm["clock"].as<std::string>();
  if (clock != "virtual" && clock != "wall") {
    throw InputError(std::nullopt, "--clock", "expected virtual or wall, got '" + clock + "'");
  }
  request.backend.real_time = clock == "wall";
  const BackendFlags flags = backend_flags_from(vm, request.backend.name);
  request.backend.cuda_graphs = flags.cuda_graphs;
  request.backend.layer_timing = flags.profile_layers;
  request.settle = settle_options_from(vm);
  request.clocks = clock_options_from(vm);
  request.quiet = vm.count("quiet") > 0;
  request.device = vm["device"].as<std::string>();
  request.out_csv = vm["out"].as<std::string>();
  request.dataset = vm["dataset"].as<std::string>();
  request.workloads = app::parse_word_list(vm["workloads"].as<std::string>());
  request.phases = app::parse_word_list(vm["phases"].as<std::string>());
  request.batch_sizes = app::parse_int_list(vm["batch-sizes"].as<std::string>(), "--batch-sizes");
  if (vm.count("modes")) request.modes = vm["modes"].as<std::string>();
  request.repeats = vm["repeats"].as<int>();
  request.discard = vm["discard"].as<int>();

  const InterruptHandlers interrupt_handlers;
  const ProfileReport r = app::profile(request, err);
  if (!request.quiet) {
    err << "fulcrum: wrote " << r.rows << " rows to " << r.out_csv.string() << "\n";
    if (r.layers_csv) {
      err << "fulcrum: wrote the per-layer times to " << r.layers_csv->string() << "\n";
    }
  }
  if (vm.count("json")) out << profile_json(r);
  return 0;
}

}  // namespace fulcrum::sim
