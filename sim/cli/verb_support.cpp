#include "sim/cli/verb_support.hpp"

#include <filesystem>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string>

#include "models/error.hpp"
#include "sim/app/available.hpp"
#include "sim/config/input_text.hpp"
#include "sim/config/scenario_loader.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

po::variables_map parse_verb(const std::string& verb, const std::vector<std::string>& args,
                             const po::options_description& options,
                             const po::positional_options_description& positional) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    // Boost echoes the arguments: keep the message on one line.
    throw InputError(std::nullopt, "fulcrum " + verb,
                     printable(e.what(), 4096) + " (see fulcrum " + verb + " --help)");
  }
  return vm;
}

ParsedVerb parse_verb(const std::string& verb, const std::vector<std::string>& args,
                      const po::options_description& options, const std::string& operand) {
  po::options_description hidden;
  hidden.add_options()(operand.c_str(), po::value<std::vector<std::string>>(), operand.c_str());
  po::options_description all;
  all.add(options).add(hidden);
  po::positional_options_description positional;
  positional.add(operand.c_str(), -1);
  ParsedVerb parsed;
  parsed.vm = parse_verb(verb, args, all, positional);
  if (parsed.vm.count(operand)) parsed.operands = parsed.vm[operand].as<std::vector<std::string>>();
  return parsed;
}

const std::string& only_operand(const std::vector<std::string>& operands, const std::string& verb,
                                const std::string& problem) {
  if (operands.size() != 1) throw InputError(std::nullopt, "fulcrum " + verb, problem);
  return operands.front();
}

std::string verb_usage(const std::string& synopsis, const std::string& what,
                       const po::options_description& options) {
  std::ostringstream s;
  s << "Usage: fulcrum " << synopsis << "\n\n" << what << "\n\n" << options;
  return s.str();
}

std::uint64_t parse_seed(const std::string& text) {
  const std::optional<std::uint64_t> seed = seed_from_text(text);
  if (!seed) throw InputError(std::nullopt, "--seed", bad_seed_problem(text));
  return *seed;
}

unsigned parse_thread_count(const std::string& text, const std::string& key) {
  const bool digits = !text.empty() && text.size() <= 4 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoul(text) > 1024) {
    throw InputError(std::nullopt, key,
                     "expected a thread count from 0 (every core) to 1024, got '" + text + "'");
  }
  return static_cast<unsigned>(std::stoul(text));
}

void add_backend_flag_options(po::options_description& options) {
  options.add_options()(
      "cuda-graphs",
      "cuda backend: capture each workload, phase and batch size once as a CUDA "
      "graph and replay it (no per-launch host cost); also FULCRUM_CUDA_GRAPHS=1")(
      "profile-layers",
      "cuda backend: time every layer with CUDA events (adds a little host time per layer; "
      "not with --cuda-graphs)");
}

BackendFlags backend_flags_from(const po::variables_map& vm, const std::string& backend) {
  BackendFlags flags;
  flags.cuda_graphs = vm.count("cuda-graphs") > 0;
  flags.profile_layers = vm.count("profile-layers") > 0;
  for (const auto& [given, key] : {std::pair{flags.cuda_graphs, "--cuda-graphs"},
                                   std::pair{flags.profile_layers, "--profile-layers"}}) {
    if (given && !app::takes_cuda_options(backend)) {
      throw InputError(std::nullopt, key,
                       "only the cuda backend supports it, not '" + backend + "'");
    }
  }
  if (flags.cuda_graphs && flags.profile_layers) {
    throw InputError(std::nullopt, "--profile-layers",
                     "not with --cuda-graphs: a replayed graph has no per-layer events");
  }
  return flags;
}

void add_settle_options(po::options_description& options) {
  options.add_options()(
      "settle-s", po::value<double>()->default_value(5.0),
      "real-time backends: seconds to wait idle after each mode change, then to run each point "
      "back to back before it is measured, so that its power has settled")(
      "window-s", po::value<double>()->default_value(0.25),
      "with a power meter: each of the N power figures is one meter window of back-to-back "
      "minibatches lasting at least this long");
}

app::SettleOptions settle_options_from(const po::variables_map& vm) {
  app::SettleOptions o;
  o.settle_s = vm["settle-s"].as<double>();
  if (!(o.settle_s >= 0) || o.settle_s > 3600) {
    throw InputError(std::nullopt, "--settle-s", "expected 0..3600 s");
  }
  o.window_s = vm["window-s"].as<double>();
  if (!(o.window_s > 0) || o.window_s > 60) {
    throw InputError(std::nullopt, "--window-s", "expected more than 0, at most 60 s");
  }
  const auto ns = [](double s) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(s));
  };
  o.settle = ns(o.settle_s);
  o.window = ns(o.window_s);
  return o;
}

void add_clock_options(po::options_description& options) {
  options.add_options()(
      "clocks", po::value<std::string>()->default_value("auto"),
      "auto: Jetson sysfs on a hardware backend where found, else read-only; jetson; none")(
      "allow-clock-changes",
      "write clocks (cores, CPU, GPU, EMC) to set each mode; without it nothing is written and "
      "the writes are only reported (dry run)")(
      "sysfs-root", po::value<std::string>()->default_value("/"),
      "prefix of /sys for clock control and power meters (a fake tree for tests)")(
      "clock-snapshot", po::value<std::string>(),
      "file the clock snapshot is kept in while clocks are changed (default: "
      "$XDG_STATE_HOME/fulcrum/clock-snapshot.txt or ~/.local/state/fulcrum/...)");
}

app::ClockOptions clock_options_from(const po::variables_map& vm) {
  app::ClockOptions o;
  o.clocks = vm["clocks"].as<std::string>();
  if (o.clocks != "auto" && o.clocks != "jetson" && o.clocks != "none") {
    throw InputError(std::nullopt, "--clocks",
                     "expected auto, jetson or none, got '" + o.clocks + "'");
  }
  o.allow_changes = vm.count("allow-clock-changes") > 0;
  o.sysfs_root = vm["sysfs-root"].as<std::string>();
  if (vm.count("clock-snapshot")) o.snapshot_file = vm["clock-snapshot"].as<std::string>();
  return o;
}

}  // namespace fulcrum::sim
