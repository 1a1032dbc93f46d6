// `fulcrum validate SCENARIO`: profiles what the scenario runs on a backend, simulates the scenario
// with that profile (the `table` model), runs it for real on the backend in wall-clock time, and
// compares the two side by side in a validation bundle.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backends/backend_factory.hpp"
#include "backends/hardware/minibatch_profiler.hpp"
#include "backends/hardware/noisy_backend.hpp"
#include "backends/hardware/nvml_power_meter.hpp"
#include "backends/hardware/power_meter.hpp"
#include "backends/simulated_backend.hpp"
#include "models/error.hpp"
#include "sim/app/profiling.hpp"
#include "sim/app/run_meter.hpp"
#include "sim/app/run_plan.hpp"
#include "sim/cli/progress_display.hpp"
#include "sim/cli/validation_report.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/config/perf_model_loader.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/json_writer.hpp"
#include "sim/report/summary.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using namespace app;  // the profiling helpers

namespace {

// The bundle folder, staged beside its final place and renamed into it at the end: a failure or
// an interrupt leaves the previous bundle (or nothing) as it was.
class StagedBundle {
 public:
  explicit StagedBundle(fs::path target) : target_(std::move(target)) {
    std::error_code ec;
    if (fs::exists(target_, ec) && !fs::is_empty(target_, ec) &&
        !fs::exists(target_ / "comparison.json", ec)) {
      throw InputError(std::nullopt, "--out",
                       target_.string() +
                           " holds files that are not a validation bundle; "
                           "choose an absent or empty folder");
    }
    const fs::path parent = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
    fs::create_directories(parent, ec);
    std::string name = ".";
    name += target_.filename().string();
    name += ".staging-";
    name += std::to_string(getpid());
    staging_ = parent / name;
    fs::remove_all(staging_, ec);
    if (!fs::create_directories(staging_ / "inputs", ec)) {
      throw InputError(std::nullopt, "--out", "cannot create " + staging_.string());
    }
  }
  ~StagedBundle() {
    std::error_code ec;
    if (!published_) fs::remove_all(staging_, ec);
  }
  StagedBundle(const StagedBundle&) = delete;
  StagedBundle& operator=(const StagedBundle&) = delete;

  const fs::path& dir() const { return staging_; }
  void publish() {
    std::error_code ec;
    fs::remove_all(target_, ec);
    fs::rename(staging_, target_, ec);
    if (ec)
      throw Error("cannot move " + staging_.string() + " to " + target_.string() + ": " +
                  ec.message());
    published_ = true;
  }

 private:
  fs::path target_;
  fs::path staging_;
  bool published_ = false;
};

// The (workload, phase, batch size) points a scenario runs: its training minibatch and each
// stream's batch, plus batch 1 for a stream that may dispatch partial batches (max_wait_ms).
std::vector<backends::ProfilePoint> points_of(const ResolvedScenario& r) {
  std::vector<backends::ProfilePoint> points;
  const auto add = [&points](const backends::ProfilePoint& p) {
    for (const auto& q : points) {
      if (q.workload == p.workload && q.phase == p.phase && q.batch_size == p.batch_size) return;
    }
    points.push_back(p);
  };
  if (r.scenario.training) {
    add({r.training_workload, models::Phase::training, r.scenario.training->batch_size});
  }
  for (std::size_t i = 0; i < r.scenario.inference.size(); ++i) {
    const InferenceStreamSpec& s = r.scenario.inference[i];
    if (s.max_wait_ms && s.batch_size > 1)
      add({r.inference_workloads[i], models::Phase::inference, 1});
    add({r.inference_workloads[i], models::Phase::inference, s.batch_size});
  }
  return points;
}

}  // namespace

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
  const std::string scenario_path =
      only_operand(operands, "validate", "expected one SCENARIO file");
  const std::string backend_name = vm["backend"].as<std::string>();
  backends::require_available(backend_name);
  const bool hardware = backend_name != "sim";
  const double noise = vm["noise"].as<double>();
  const SettleOptions settle = settle_options_from(vm);
  const BackendFlags flags = backend_flags_from(vm, backend_name);
  const bool quiet = vm.count("quiet") > 0;

  app::PlanRequest base;
  base.scenario_path = scenario_path;
  if (vm.count("set")) base.overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("duration-s")) {
    const double d = vm["duration-s"].as<double>();
    if (!(d > 0)) throw InputError(std::nullopt, "--duration-s", "must be > 0");
    std::string text = "duration_s=";
    append_json_number(text, d);
    base.overrides.push_back(text);
  }
  if (vm.count("seed")) base.seed = parse_seed(vm["seed"].as<std::string>());

  const InterruptHandlers interrupt_handlers;
  // Loaded once to learn what to profile; every bad input is reported here, before anything runs.
  const app::RunPlan plan = app::RunPlan::load(base);
  const ResolvedScenario& resolved = plan.resolved();
  const models::DeviceSpec& device = *resolved.device;
  const fs::path out_dir = vm.count("out")
                               ? fs::path(vm["out"].as<std::string>())
                               : fs::path("out") / ("validate-" + resolved.scenario.name);
  StagedBundle bundle(out_dir);
  const ClockOptions clock_options = clock_options_from(vm);
  const std::unique_ptr<backends::ClockControl> clocks =
      make_clock_control(clock_options, hardware, err);
  std::optional<backends::ClockGuard> guard;
  if (clocks) guard.emplace(*clocks, restore_failure_printer(err));
  const auto check_point = [] {
    if (const std::optional<int> s = pending_interrupt())
      throw Interrupted(*s, "nothing was written");
  };

  // 1. Profile on the device (for sim: the analytic model with noise, as fast as it can).
  std::unique_ptr<backends::Backend> device_backend;
  if (hardware) {
    device_backend = backends::make_backend(backend_name, {.device = &device,
                                                           .real_time = true,
                                                           .cuda_graphs = flags.cuda_graphs,
                                                           .layer_timing = flags.profile_layers});
  } else {
    device_backend = std::make_unique<backends::NoisyBackend>(
        std::make_unique<backends::SimulatedBackend>(device, plan.perf_model()),
        backends::NoisyBackend::Options{.sigma = noise, .seed = resolved.scenario.seed});
  }
  const std::vector<models::PowerMode> modes =
      measurable_modes({resolved.mode}, hardware, clocks.get(), device, err);
  if (modes.front() != resolved.mode && !quiet) {
    err << "fulcrum: the scenario asks for " << power_mode_label(resolved.mode)
        << "; the measured run runs at the current clocks, so the comparison mixes modes\n";
  }
  const std::unique_ptr<backends::PowerMeter> profile_meter =
      make_profile_meter(hardware, clock_options, device, err);
  backends::MinibatchProfiler profiler(*device_backend, clocks.get(),
                                       {.repeats = vm["repeats"].as<int>(),
                                        .discard = vm["discard"].as<int>(),
                                        .settle = settle.settle,
                                        .meter = profile_meter.get(),
                                        .window = settle.window,
                                        .check_point = check_point});
  if (!quiet) err << "fulcrum: validate " << resolved.scenario.name << ": 1/3 profiling\n";
  const std::vector<backends::ProfileMeasurement> rows =
      measure_points(profiler, points_of(resolved), modes, quiet ? nullptr : &err);
  // A real device's baseload, so that the simulation's idle power is measured too: metered once
  // the power has settled after the profile's load (the profile's comments say how long).
  const std::vector<IdleMeasurement> idle =
      hardware ? measure_idle(*device_backend, {modes.back()}, quiet ? nullptr : &err)
               : std::vector<IdleMeasurement>{};
  const fs::path profile_csv = bundle.dir() / "inputs/profile.csv";
  write_file_atomically(
      profile_csv,
      profile_csv_text(
          rows, device.rails,
          {"fulcrum validate: profile of " + resolved.scenario.name + " on backend " +
               backend_name +
               (hardware ? "" : " (simulated device, noise sigma " + fixed(noise, 3) + ")"),
           "method: discard " + std::to_string(vm["discard"].as<int>()) +
               (device_backend->runs_in_real_time()
                    ? ", settle " + fixed(settle.settle_s, 1) + " s back to back"
                    : std::string()) +
               ", median of " + std::to_string(vm["repeats"].as<int>()) +
               (profile_meter ? "; power: " + profile_meter->name() +
                                    " energy over windows of >= " + fixed(settle.window_s, 2) + " s"
                              : std::string())},
          "random", idle));
  if (flags.profile_layers) {
    write_file_atomically(layer_times_path(profile_csv), layer_times_csv_text(rows));
  }
  fs::copy_file(scenario_path, bundle.dir() / "inputs/scenario.yaml");
  {
    std::string command = "fulcrum validate";
    for (const std::string& a : args) command += " " + a;
    write_file_atomically(bundle.dir() / "inputs/command.txt", command + "\n");
  }

  // 2. Simulate with the table.
  if (!quiet)
    err << "fulcrum: validate " << resolved.scenario.name << ": 2/3 simulating with the profile\n";
  const TablePerfModel table{{fs::absolute(profile_csv).string()}};
  const app::ScenarioRun sim_run =
      plan.with_perf_model(table).run(std::optional<fs::path>(bundle.dir() / "simulated"));

  // 3. Run for real, in wall-clock time.
  if (!quiet) {
    err << "fulcrum: validate " << resolved.scenario.name << ": 3/3 running "
        << resolved.scenario.duration_s << " s in real time on " << backend_name << "\n";
  }
  app::RunPlan measured = plan.with_backend({.name = backend_name,
                                             .real_time = true,
                                             .cuda_graphs = flags.cuda_graphs,
                                             .layer_timing = flags.profile_layers});
  if (!hardware) {
    auto emulated = std::make_unique<backends::NoisyBackend>(
        std::make_unique<backends::SimulatedBackend>(device, measured.backend_model()),
        backends::NoisyBackend::Options{.sigma = noise,
                                        .seed = resolved.scenario.seed + 1,
                                        .real_time = true,
                                        .slicing = app::emulated_slicing(resolved)});
    measured = std::move(measured).with_backend(std::move(emulated), "sim");
  }
  // The policies of the measured run decide with the same predictions as the simulated one (the
  // profile), not the scenario's own model: a windowed policy sizes its windows from them. The
  // emulated device above keeps executing the scenario's own model.
  measured = std::move(measured).with_runtime_model(table);
  const bool terminal = isatty(STDERR_FILENO) != 0;
  std::optional<ProgressDisplay> progress;
  if (!quiet && (terminal || vm.count("progress"))) progress.emplace(err, terminal);
  std::optional<app::RunMeter> run_meter;  // the meter over the run, on hardware
  if (hardware) {
    // The measured run's baseload, metered now (after the power settles; the GPU has been idle
    // since the profile's own idle row) rather than when the run starts, so that the whole-run
    // meter below spans the run and not the idle settling. The run itself then prepares and
    // warms up every item it can execute before its clock starts (Runtime, distinct_items), so
    // that no arrival waits for buffers, cuDNN's algorithm choice or a warm-up.
    measure_idle(measured.backend(), {modes.back()}, quiet ? nullptr : &err);
    run_meter.emplace(measured,
                      backends::PowerMeterOptions{.sysfs_root = clock_options.sysfs_root,
                                                  .summed_rails = device.rails},
                      &err);
  }
  const std::optional<backends::EnergyReading> no_reading;
  const std::optional<backends::EnergyReading>& whole_run =
      run_meter ? run_meter->reading() : no_reading;
  const app::ScenarioRun real_run =
      std::move(measured).run(std::optional<fs::path>(bundle.dir() / "measured"), {},
                              progress ? progress->callback() : ProgressFn{});

  // The clocks as the measured run had them: read before they are restored.
  const std::string device_text =
      device_json(device, backend_name, hardware, clocks.get(), clock_options, noise, whole_run);
  if (guard) guard->finish();
  std::optional<DeviceMeterReading> device_meter;
  if (whole_run && run_meter && run_meter->measures()) {
    device_meter = DeviceMeterReading{whole_run->duration_s, whole_run->module_energy_j,
                                      whole_run->average_power_w()};
  }
  const Comparison comparison = compare_runs(sim_run.result, real_run.result, device_meter);
  write_file_atomically(bundle.dir() / "comparison.json", comparison_json(comparison));
  write_file_atomically(bundle.dir() / "comparison.md",
                        comparison_markdown(comparison, resolved.scenario.name, backend_name));
  write_file_atomically(bundle.dir() / "device.json", device_text);
  bundle.publish();
  if (!quiet) {
    out << comparison_markdown(comparison, resolved.scenario.name, backend_name);
    err << "fulcrum: wrote the validation bundle " << out_dir.string()
        << " (plot: python3 scripts/plot_validation.py " << out_dir.string() << ")\n";
  }
  return 0;
}

}  // namespace fulcrum::sim
