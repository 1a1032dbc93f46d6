#include "sim/cli/verb_support.hpp"

#include <filesystem>
#include <iomanip>
#include <optional>
#include <sstream>

#include "models/error.hpp"
#include "sim/config/device_catalog_loader.hpp"
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

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

models::DeviceCatalog devices_from(const std::string& data_dir) {
  return load_device_catalog((std::filesystem::path(data_dir) / "devices").string());
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
    if (given && backend != "cuda") {
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

}  // namespace fulcrum::sim
