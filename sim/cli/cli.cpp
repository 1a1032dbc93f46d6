#include "sim/cli/cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <optional>
#include <sstream>

#include "models/device/power_mode_resolver.hpp"
#include "models/error.hpp"
#include "models/workload/dataset_catalog.hpp"
#include "models/workload/workload_catalog.hpp"
#include "sim/cli/progress_display.hpp"
#include "sim/cli/scenario_run.hpp"
#include "sim/cli/version.hpp"
#include "sim/config/calibration_loader.hpp"
#include "sim/config/device_catalog_loader.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/summary.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

namespace {

std::string verb_list() {
  std::string s;
  for (const std::string& v : cli_verbs()) s += (s.empty() ? "" : ", ") + v;
  return s;
}

std::string top_help() {
  std::ostringstream s;
  s << "fulcrum " << kFulcrumVersion
    << " -- concurrent DNN training and inference on NVIDIA Jetson, simulated\n\n"
       "Usage: fulcrum VERB [options]        (fulcrum VERB --help for its options)\n\n"
       "Verbs:\n"
       "  run SCENARIO      run a scenario file: summary.json on stdout, files in --out\n"
       "  devices [NAME]    the device catalog, or one device's frequency tables and presets\n"
       "  workloads         the DNN workloads (parameters, GFLOPs, kernels) and datasets\n"
       "  calibrate         fit the analytic performance model to reference measurements\n\n"
       "Options:\n"
       "  -h [ --help ]     this help\n"
       "  --version         print the version\n\n"
       "Exit status: 0 success, 2 bad input (one line on stderr), 1 internal failure.\n";
  return s.str();
}

// Parses a verb's options; Boost's complaints become InputError naming the verb.
po::variables_map parse_verb(const std::string& verb, const std::vector<std::string>& args,
                             const po::options_description& options,
                             const po::positional_options_description& positional) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError(std::nullopt, "fulcrum " + verb,
                     std::string(e.what()) + " (see fulcrum " + verb + " --help)");
  }
  return vm;
}

std::string verb_usage(const std::string& synopsis, const std::string& what,
                       const po::options_description& options) {
  std::ostringstream s;
  s << "Usage: fulcrum " << synopsis << "\n\n" << what << "\n\n" << options;
  return s.str();
}

std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    throw InputError(std::nullopt, "--seed", "expected an integer >= 0, got '" + text + "'");
  }
  return v;
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

// A plain text table: columns padded to their widest cell.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string str() const {
    std::vector<std::size_t> width;
    for (const auto& row : rows_) {
      width.resize(std::max(width.size(), row.size()), 0);
      for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    }
    std::string out;
    for (const auto& row : rows_) {
      std::string line;
      for (std::size_t i = 0; i < row.size(); ++i) {
        line += row[i];
        if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
      }
      out += line + "\n";
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string join_mhz(const std::vector<double>& values, double per_mhz) {
  std::string s;
  for (double v : values) s += (s.empty() ? "" : ", ") + models::format_mhz(v / per_mhz);
  return s;
}

int cmd_run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help")("out", po::value<std::string>(),
                                               "output folder (default: out/<scenario name>)")(
      "seed", po::value<std::string>(), "random seed, replacing the scenario's")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a scenario key: --set key.path=value (repeatable), e.g. "
      "inference[0].batch_size=32")("backend", po::value<std::string>()->default_value("sim"),
                                    "sim (the only backend of this build)")(
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
        "run SCENARIO [--out DIR] [--seed N] [--set key.path=value]... [--quiet] [--progress]",
        "Runs a scenario file (see docs/SCENARIOS.md) on the simulated backend. Prints\n"
        "summary.json on stdout and writes summary.json, requests.csv, minibatches.csv,\n"
        "power.csv, trace.json and run.json into the output folder; on bad input nothing\n"
        "is written.\n\n"
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
  if (const std::string backend = vm["backend"].as<std::string>(); backend != "sim") {
    throw InputError(std::nullopt, "--backend",
                     "'" + backend + "' is not available in this build (available: sim)");
  }
  RunOptions options_in;
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
        << prepared.resolved.scenario.duration_s << " s simulated) on "
        << prepared.resolved.device->name << " at " << power_mode_label(prepared.resolved.mode)
        << "\n";
  }
  std::vector<std::string> command_line{"fulcrum"};
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

models::DeviceCatalog devices_from(const std::string& data_dir) {
  return load_device_catalog((std::filesystem::path(data_dir) / "devices").string());
}

void print_device(const models::DeviceSpec& d, std::ostream& out) {
  out << d.name << " (" << d.soc << ")\n";
  if (!d.source.empty()) out << "  source: " << d.source << "\n";
  out << "  CPU: " << d.cpu_cores << " x " << d.cpu_arch << " in " << d.cpu_clusters
      << " clusters\n"
      << "  GPU: " << d.gpu_arch << ", " << d.gpu_tpcs << " TPCs, " << d.gpu_sms << " SMs, "
      << d.cuda_cores << " CUDA cores, " << d.tensor_cores << " tensor cores\n"
      << "  memory: " << models::format_mhz(d.memory_gb) << " GB " << d.memory_type << ", "
      << d.memory_bus_bits << "-bit\n";
  if (d.module_peak_w) out << "  module peak power: " << *d.module_peak_w << " W\n";
  std::string rails;
  for (const auto& r : d.rails) rails += (rails.empty() ? "" : ", ") + r;
  out << "  power rails: " << rails << "\n\n";
  out << "  CPU frequencies (MHz, " << d.cpu_khz.size() << "): " << join_mhz(d.cpu_khz, 1e3)
      << "\n";
  out << "  GPU frequencies (MHz, " << d.gpu_hz.size() << "): " << join_mhz(d.gpu_hz, 1e6) << "\n";
  out << "  EMC frequencies (MHz, " << d.emc_hz.size() << "): " << join_mhz(d.emc_hz, 1e6) << "\n";
  out << "  modes: " << d.cpu_cores << " x " << d.cpu_khz.size() << " x " << d.gpu_hz.size()
      << " x " << d.emc_hz.size() << " = "
      << (d.cpu_cores * d.cpu_khz.size() * d.gpu_hz.size() * d.emc_hz.size()) << "\n\n";
  TextTable presets(
      {"preset", "cores", "CPU max MHz", "GPU max MHz", "EMC max MHz", "TPCs on", "resolved mode"});
  auto cap = [](const std::optional<double>& v, double per_mhz) {
    return v ? models::format_mhz(*v / per_mhz) : std::string("uncapped");
  };
  for (const models::Preset& p : d.presets) {
    const models::PowerMode m = models::resolve_preset(d, p.name);
    presets.add({p.name + (p.name == d.default_preset ? " (default)" : ""), std::to_string(p.cores),
                 cap(p.cpu_max_khz, 1e3), cap(p.gpu_max_hz, 1e6), cap(p.emc_max_hz, 1e6),
                 std::to_string(m.gpu_tpcs), power_mode_label(m)});
  }
  out << presets.str();
  if (!d.grids.empty()) {
    out << "\n";
    TextTable grids({"mode grid", "cores", "CPU freqs", "GPU freqs", "EMC freqs", "modes"});
    for (const models::ModeGrid& g : d.grids) {
      grids.add({g.name, std::to_string(g.cores.size()), std::to_string(g.cpu_khz.size()),
                 std::to_string(g.gpu_hz.size()), std::to_string(g.emc_hz.size()),
                 std::to_string(g.size())});
    }
    out << grids.str();
  }
  if (!d.note.empty()) out << "\n  note: " << d.note << "\n";
}

int cmd_devices(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help");
  po::options_description hidden;
  hidden.add_options()("name", po::value<std::vector<std::string>>(), "device");
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add("name", -1);
  const po::variables_map vm = parse_verb("devices", args, all, positional);
  if (vm.count("help")) {
    out << verb_usage("devices [NAME]",
                      "Without NAME: one line per device of the catalog. With NAME: that device's\n"
                      "CPU, GPU and memory frequency tables, its nvpmodel presets and mode grids.",
                      options);
    return 0;
  }
  const models::DeviceCatalog catalog = devices_from(default_data_dir());
  if (vm.count("name")) {
    const auto& names = vm["name"].as<std::vector<std::string>>();
    if (names.size() != 1)
      throw InputError(std::nullopt, "fulcrum devices", "expected at most one NAME");
    print_device(catalog.get(names[0]), out);
    return 0;
  }
  TextTable t({"device", "SoC", "CPU cores", "CPU max MHz", "GPU max MHz", "EMC max MHz",
               "CUDA cores", "memory GB", "modes", "presets"});
  for (const models::DeviceSpec& d : catalog.devices()) {
    std::string presets;
    for (const auto& p : d.presets) presets += (presets.empty() ? "" : ", ") + p.name;
    const std::size_t modes = static_cast<std::size_t>(d.cpu_cores) * d.cpu_khz.size() *
                              d.gpu_hz.size() * d.emc_hz.size();
    t.add({d.name, d.soc, std::to_string(d.cpu_cores),
           d.cpu_khz.empty() ? "-" : models::format_mhz(d.cpu_khz.back() / 1e3),
           d.gpu_hz.empty() ? "-" : models::format_mhz(d.gpu_hz.back() / 1e6),
           d.emc_hz.empty() ? "-" : models::format_mhz(d.emc_hz.back() / 1e6),
           std::to_string(d.cuda_cores), models::format_mhz(d.memory_gb), std::to_string(modes),
           presets});
  }
  out << t.str();
  return 0;
}

int cmd_workloads(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help");
  const po::variables_map vm = parse_verb("workloads", args, options, {});
  if (vm.count("help")) {
    out << verb_usage("workloads",
                      "The DNN workloads of the catalog with their parameters, GFLOPs per sample\n"
                      "(forward pass, and a training step: forward + backward + update), kernel\n"
                      "launches per minibatch, and the datasets a training job can use.",
                      options);
    return 0;
  }
  const models::WorkloadCatalog& catalog = models::workload_catalog();
  TextTable t({"workload", "task", "params (M)", "GFLOP/sample fwd", "GFLOP/sample train",
               "kernels/minibatch fwd", "kernels/minibatch train"});
  for (const std::string& name : catalog.names()) {
    const models::Workload& w = catalog.get(name);
    const models::PhaseCost inf = w.cost(models::Phase::inference, 1);
    const models::PhaseCost train = w.cost(models::Phase::training, 1);
    t.add({name, w.task(), fixed(w.parameters() / 1e6, 2),
           fixed(w.forward_flops_per_sample() / 1e9, 3), fixed(train.flops / 1e9, 3),
           fixed(inf.kernels, 0), fixed(train.kernels, 0)});
  }
  out << t.str() << "\n";
  TextTable d({"dataset", "samples", "size (GB)", "note"});
  for (const std::string& name : models::dataset_names()) {
    const models::DatasetSpec& s = models::dataset(name);
    d.add({name, fixed(s.samples, 0), s.bytes ? fixed(*s.bytes / 1e9, 3) : "-", s.note});
  }
  out << d.str();
  return 0;
}

int cmd_calibrate(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help")(
      "device", po::value<std::string>()->default_value("orin-agx-64gb"), "device to calibrate")(
      "reference", po::value<std::string>(),
      "folder with the reference measurements (orin-agx-inference-maxn.csv, training-anchors.csv),"
      " read in place; default $FULCRUM_REFERENCE_DIR, else the build's " FULCRUM_REFERENCE_DIR)(
      "out", po::value<std::string>(),
      "write the fitted calibration YAML here (a .yaml file, or a folder that gets <device>.yaml)")(
      "quiet,q", "do not print the fit table");
  const po::variables_map vm = parse_verb("calibrate", args, options, {});
  if (vm.count("help")) {
    out << verb_usage(
        "calibrate [--device NAME] [--reference DIR] [--out PATH]",
        "Fits the analytic performance model's coefficients (least squares) to the\n"
        "published measurements, prints every anchor with its error and the MAPE, and\n"
        "writes the calibration file that `run` uses (models/data/calibration/).",
        options);
    return 0;
  }
  std::string reference = FULCRUM_REFERENCE_DIR;  // the CMake cache variable of the same name
  std::string chosen_by = "the build's default, -DFULCRUM_REFERENCE_DIR";
  if (vm.count("reference")) {
    reference = vm["reference"].as<std::string>();
    chosen_by = "from --reference";
  } else if (const char* env = std::getenv("FULCRUM_REFERENCE_DIR");
             env != nullptr && *env != '\0') {
    reference = env;
    chosen_by = "from $FULCRUM_REFERENCE_DIR";
  }
  if (std::error_code ec; !std::filesystem::is_directory(reference, ec)) {
    throw InputError(std::nullopt, "fulcrum calibrate",
                     "reference folder '" + reference + "' not found (" + chosen_by +
                         "); pass --reference DIR naming the folder with the reference "
                         "measurements");
  }
  const models::DeviceCatalog catalog = devices_from(default_data_dir());
  const models::DeviceSpec& device = catalog.get(vm["device"].as<std::string>());
  const CalibrationReport report = calibrate_from_reference(reference, device);
  if (!vm.count("quiet")) out << report.table;
  if (vm.count("out")) {
    std::filesystem::path path(vm["out"].as<std::string>());
    if (path.extension() != ".yaml") path /= device.name + ".yaml";
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    AtomicFile file(path);  // a failed write never leaves a half calibration under the real name
    file.write(report.yaml);
    file.publish();
    if (!vm.count("quiet")) err << "fulcrum: wrote " << path.string() << "\n";
  }
  return 0;
}

}  // namespace

const std::vector<std::string>& cli_verbs() {
  static const std::vector<std::string> verbs{"run", "devices", "workloads", "calibrate"};
  return verbs;
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
  if (verb == "run") return cmd_run(rest, out, err);
  if (verb == "devices") return cmd_devices(rest, out);
  if (verb == "workloads") return cmd_workloads(rest, out);
  if (verb == "calibrate") return cmd_calibrate(rest, out, err);
  throw InputError(std::nullopt, "fulcrum",
                   "unknown verb '" + verb + "' (verbs: " + verb_list() + ")");
}

}  // namespace fulcrum::sim
