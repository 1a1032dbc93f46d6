// `fulcrum sweep SWEEP.yaml`: every search configuration of a sweep file with every strategy, on
// all cores; one CSV row per (configuration, strategy) and a per-strategy summary
// (docs/SEARCH.md, "fulcrum sweep"). `--shard K/N` runs one slice; `--merge` joins the slices'
// CSVs into what the unsharded run writes, byte for byte.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/search/strategy.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

namespace {

// Writes through `write` into `path`.partial and renames it into place when `write` returns;
// a failure removes the temporary (never half a CSV under the final name).
template <typename Write>
void write_csv(const std::filesystem::path& path, Write write) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  const std::filesystem::path temp = path.string() + ".partial";
  try {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(SourceLocation{path.string(), 0, 0}, "", "cannot be written");
    write(out);
    out.close();
    if (!out) throw Error(path.string() + ": write failed");
    std::filesystem::rename(temp, path);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(temp, ec);
    throw;
  }
}

std::string clock_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%d:%02d", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  return buf;
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help")(
      "out,o", po::value<std::string>(),
      "CSV to write (default: out/sweep-NAME.csv, out/sweep-NAME.shard-K-of-N.csv)")(
      "threads,j", po::value<unsigned>()->default_value(0), "threads (0 = every core)")(
      "shard", po::value<std::string>(), "run slice K of N (K/N, 1-based) of the configurations")(
      "merge", po::bool_switch(), "join shard CSVs (the operands) into --out")(
      "reference", po::value<std::string>(),
      "reference folder holding measurements/ (default: $FULCRUM_REFERENCE_DIR or the build's)")(
      "quiet,q", po::bool_switch(), "no progress line");
  const auto [vm, files] = parse_verb("sweep", args, options, "files");
  if (vm.count("help")) {
    out << verb_usage(
        "sweep SWEEP.yaml [--shard K/N] [--out FILE.csv]\n       fulcrum sweep --merge --out "
        "FILE.csv SHARD.csv...",
        "Runs every configuration of a sweep file (workload sets x arrival cases x latency\n"
        "budgets x power budgets x ground truths) with every strategy it lists, on all cores,\n"
        "and writes one CSV row per (configuration, strategy); prints per strategy the share of\n"
        "configurations with a feasible optimum where both budgets were met, mean and p5\n"
        "throughput / oracle, modes profiled and profiling hours. The same seed gives the same\n"
        "bytes whatever the thread count; shards merged give the bytes of the whole run.\n"
        "Schema and columns: docs/SEARCH.md.",
        options);
    return 0;
  }
  if (vm["merge"].as<bool>()) {
    if (!vm.count("out")) throw InputError(std::nullopt, "fulcrum sweep", "--merge needs --out");
    sweep::SweepSummary summary;
    write_csv(vm["out"].as<std::string>(),
              [&](std::ostream& csv) { summary = sweep::merge_sweep(files, csv); });
    out << sweep::format_summary(summary) << "wrote " << vm["out"].as<std::string>() << "\n";
    return 0;
  }
  const std::string& sweep_file =
      only_operand(files, "sweep", "expected one SWEEP.yaml (or --merge)");
  sweep::SweepOptions o;
  o.threads = vm["threads"].as<unsigned>();
  if (vm.count("shard"))
    std::tie(o.shard, o.shards) = sweep::parse_shard(vm["shard"].as<std::string>());
  const sweep::SweepSpec spec = sweep::load_sweep(sweep_file, search::strategy_registry().names());
  const std::string reference =
      vm.count("reference") ? vm["reference"].as<std::string>() : default_reference_dir().path;
  const sweep::SweepTruths truths =
      sweep::SweepTruths::load(spec, default_data_dir(), reference + "/measurements");
  std::string path = "out/sweep-" + spec.name + ".csv";
  if (o.shards > 1) {
    path = "out/sweep-" + spec.name + ".shard-" + std::to_string(o.shard) + "-of-" +
           std::to_string(o.shards) + ".csv";
  }
  if (vm.count("out")) path = vm["out"].as<std::string>();
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (!vm["quiet"].as<bool>()) {
    o.progress = [&](std::size_t done, std::size_t total) {
      const double s = elapsed();
      const double left =
          done > 0 ? s * static_cast<double>(total - done) / static_cast<double>(done) : 0;
      err << "\rsweep " << spec.name << ": " << done << "/" << total << " configurations ("
          << (total ? 100 * done / total : 100) << "%), " << clock_text(s) << " elapsed, about "
          << clock_text(left) << " left   " << std::flush;
    };
  }
  sweep::SweepSummary summary;
  write_csv(path, [&](std::ostream& csv) { summary = sweep::run_sweep(spec, truths, o, csv); });
  if (o.progress) err << "\n";
  out << sweep::format_summary(summary);
  if (o.shards > 1) out << "shard " << o.shard << "/" << o.shards << "\n";
  out << "wrote " << path << " in " << fixed(elapsed(), 1) << " s\n";
  return 0;
}

}  // namespace fulcrum::sim
