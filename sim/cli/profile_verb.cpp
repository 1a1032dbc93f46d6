// `fulcrum profile`: measures training and inference minibatches on a backend over power modes
// and batch sizes, and writes the profile CSV that the `table` performance model reads.
#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backends/backend_factory.hpp"
#include "backends/hardware/minibatch_profiler.hpp"
#include "models/device/power_mode_resolver.hpp"
#include "models/error.hpp"
#include "models/io/csv_reader.hpp"
#include "models/perf/profile_csv.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/cli/profiling.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/summary.hpp"

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
      "quiet,q", "no progress lines");
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
  const std::string backend_name = vm["backend"].as<std::string>();
  backends::require_available(backend_name);
  const bool hardware = backend_name != "sim";
  const std::string clock = vm["clock"].as<std::string>();
  if (clock != "virtual" && clock != "wall") {
    throw InputError(std::nullopt, "--clock", "expected virtual or wall, got '" + clock + "'");
  }
  const SettleOptions settle = settle_options_from(vm);
  const BackendFlags flags = backend_flags_from(vm, backend_name);
  const bool quiet = vm.count("quiet") > 0;
  const std::string data_dir = default_data_dir();
  const models::DeviceCatalog devices = devices_from(data_dir);
  const models::DeviceSpec& device = devices.get(vm["device"].as<std::string>());

  std::vector<backends::ProfilePoint> points;
  const std::vector<std::string> phases = parse_word_list(vm["phases"].as<std::string>());
  const std::vector<int> batches =
      parse_int_list(vm["batch-sizes"].as<std::string>(), "--batch-sizes");
  // Checked before anything is measured: what the profile CSV's own reader would refuse.
  for (int b : batches) {
    if (!models::kProfileBatchSize.contains(b)) {
      throw InputError(std::nullopt, "--batch-sizes",
                       "expected batch sizes in " + models::kProfileBatchSize.bounds() +
                           ", found " + std::to_string(b));
    }
  }
  const std::string dataset = vm["dataset"].as<std::string>();
  if (auto problem = models::profile_cell_problem(dataset)) {
    throw InputError(std::nullopt, "--dataset", *problem);
  }
  const std::vector<std::string> workloads = parse_word_list(vm["workloads"].as<std::string>());
  for (auto it = workloads.begin(); it != workloads.end(); ++it) {
    if (std::find(workloads.begin(), it, *it) != it) {
      throw InputError(std::nullopt, "--workloads",
                       "'" + models::printable_excerpt(*it) + "' is listed twice");
    }
  }
  for (const std::string& name : workloads) {
    const models::Workload* w = models::workload_catalog().find(name);
    if (w == nullptr) {
      throw InputError(std::nullopt, "--workloads",
                       "unknown workload '" + name + "'; see fulcrum workloads");
    }
    for (const std::string& phase : phases) {
      if (phase != "training" && phase != "inference") {
        throw InputError(std::nullopt, "--phases",
                         "expected training or inference, got '" + phase + "'");
      }
      for (int b : batches) {
        points.push_back(
            {w, phase == "training" ? models::Phase::training : models::Phase::inference, b});
      }
    }
  }
  if (points.empty())
    throw InputError(std::nullopt, "--workloads", "expected at least one workload");
  const std::vector<models::PowerMode> requested =
      vm.count("modes") ? parse_modes(vm["modes"].as<std::string>(), device)
                        : std::vector<models::PowerMode>{models::default_mode(device)};

  const InterruptHandlers interrupt_handlers;
  std::unique_ptr<models::PerfModel> model;
  if (!hardware) model = load_perf_model(AnalyticPerfModel{}, data_dir, device);
  const std::unique_ptr<backends::Backend> backend =
      backends::make_backend(backend_name, {.device = &device,
                                            .perf_model = model.get(),
                                            .real_time = clock == "wall",
                                            .cuda_graphs = flags.cuda_graphs,
                                            .layer_timing = flags.profile_layers});
  std::ostream& notes = err;
  const ClockOptions clock_options = clock_options_from(vm);
  const std::unique_ptr<backends::ClockControl> clocks =
      make_clock_control(clock_options, hardware, notes);
  const std::unique_ptr<backends::PowerMeter> meter =
      make_profile_meter(hardware, clock_options, device, notes);
  const std::vector<models::PowerMode> modes =
      measurable_modes(requested, hardware, clocks.get(), device, notes);

  const std::string out_path = vm["out"].as<std::string>();
  std::vector<backends::ProfileMeasurement> rows;
  std::vector<IdleMeasurement> idle;
  {
    std::optional<backends::ClockGuard> guard;
    if (clocks) guard.emplace(*clocks, restore_failure_printer(err));
    backends::MinibatchProfiler profiler(
        *backend, clocks.get(),
        {.repeats = vm["repeats"].as<int>(),
         .discard = vm["discard"].as<int>(),
         .settle = settle.settle,
         .meter = meter.get(),
         .window = settle.window,
         .check_point = [&out_path, restores = clocks && clocks->can_change()] {
           if (const std::optional<int> s = pending_interrupt()) {
             throw Interrupted(*s, "nothing was written to " + out_path +
                                       (restores ? "; the clocks were restored" : ""));
           }
         }});
    if (!quiet) {
      err << "fulcrum: profiling " << points.size() << " points x " << modes.size() << " modes on "
          << device.name << " (backend " << backend_name
          << (clocks ? ", clocks " + clocks->name() : std::string()) << ")\n";
    }
    rows = measure_points(profiler, points, modes, quiet ? nullptr : &err);
    // A real device's baseload, in the mode the clocks are in now (the last one; only one
    // where the clocks cannot change).
    // Metered once the power has settled after the last point's load; the CSV's comments and
    // stderr say how long that took, and whether it did.
    if (backend->runs_in_real_time() && hardware) {
      idle = measure_idle(*backend, {modes.back()}, quiet ? nullptr : &err);
    }
    if (guard) guard->finish();
  }
  std::vector<std::string> comments = {
      "fulcrum profile: device " + device.name + ", backend " + backend_name +
          (backend->runs_in_real_time() ? " (real time)" : " (predictions)") +
          (clocks ? ", clocks " + clocks->name() : std::string()),
      "method: discard " + std::to_string(vm["discard"].as<int>()) + " minibatch(es), settle " +
          fixed(settle.settle_s, 1) + " s back to back (real-time backends), median of " +
          std::to_string(vm["repeats"].as<int>()) +
          (meter ? "; power: " + meter->name() + " energy over windows of >= " +
                       fixed(settle.window_s, 2) + " s of back-to-back minibatches"
                 : std::string())};
  write_file_atomically(out_path, profile_csv_text(rows, device.rails, comments, dataset, idle));
  if (!quiet) err << "fulcrum: wrote " << rows.size() << " rows to " << out_path << "\n";
  if (flags.profile_layers) {
    const std::filesystem::path layers = layer_times_path(out_path);
    write_file_atomically(layers, layer_times_csv_text(rows));
    if (!quiet) err << "fulcrum: wrote the per-layer times to " << layers.string() << "\n";
  }
  return 0;
}

}  // namespace fulcrum::sim
