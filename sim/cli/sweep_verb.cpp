// `fulcrum sweep SWEEP.yaml`: every search configuration of a sweep file with every strategy, on
// all cores; one CSV row per (configuration, strategy) and a per-strategy summary
// (docs/SEARCH.md, "fulcrum sweep"). `--shard K/N` runs one slice; `--merge` joins the slices'
// CSVs into what the unsharded run writes, byte for byte. The CSV is written as `run` writes its
// files: locked against a second writer, staged beside its final name and renamed into place
// only when complete; an interrupt leaves nothing behind.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/cli/version.hpp"
#include "sim/config/data_dirs.hpp"
#include "sim/report/atomic_file.hpp"
#include "sim/report/folder_lock.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/search/strategy.hpp"
#include "sim/sweep/sweep_progress.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

namespace {

// An ostream's buffer that writes into an AtomicFile.
class AtomicFileBuf : public std::streambuf {
 public:
  explicit AtomicFileBuf(AtomicFile& file) : file_(file) {}

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    file_.write(std::string_view(s, static_cast<std::size_t>(n)));
    return n;
  }
  int_type overflow(int_type ch) override {
    if (ch != traits_type::eof()) {
      const char c = traits_type::to_char_type(ch);
      file_.write(std::string_view(&c, 1));
    }
    return ch;
  }

 private:
  AtomicFile& file_;
};

// `path` may be written: absent or a regular file, and none of the command's `inputs`.
void check_output_file(const std::filesystem::path& path, const std::vector<std::string>& inputs) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::symlink_status(path, ec);
  if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
    throw InputError(std::nullopt, "--out",
                     "'" + path.string() + "' exists and is not a regular file; not replaced");
  }
  for (const std::string& in : inputs) {
    if (std::filesystem::exists(st) && std::filesystem::equivalent(path, in, ec)) {
      throw InputError(std::nullopt, "--out",
                       "'" + path.string() + "' is one of this command's inputs; not replaced");
    }
  }
}

// Writes the CSV through `write` as `run` writes its files: a lock beside it (a second writer
// is refused), a staged `.partial` renamed into place when complete, nothing left on a failure
// or an interrupt.
template <typename Write>
void publish_csv(const std::filesystem::path& path, const std::vector<std::string>& inputs,
                 Write write) {
  check_output_file(path, inputs);
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  const std::filesystem::path lock_path = path.string() + ".lock";
  std::optional<FolderLock> lock = FolderLock::try_lock(lock_path);
  if (!lock) {
    const std::optional<long> pid = FolderLock::holder_pid(lock_path);
    throw InputError(std::nullopt, "--out",
                     "'" + path.string() + "' is being written by another fulcrum" +
                         (pid ? " (pid " + std::to_string(*pid) + ")" : std::string()) +
                         "; not started");
  }
  AtomicFile file(path);
  try {
    AtomicFileBuf buf(file);
    std::ostream csv(&buf);
    write(csv);
    throw_if_interrupted();
    file.close();
    file.publish();
  } catch (const Interrupted& e) {
    file.discard();
    throw Interrupted(e.signal(), "nothing was written to " + path.string());
  }
}

unsigned parse_threads(const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 4 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits || std::stoul(text) > 1024) {
    throw InputError(std::nullopt, "--threads",
                     "expected a thread count from 0 (every core) to 1024, got '" + text + "'");
  }
  return static_cast<unsigned>(std::stoul(text));
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help")(
      "out,o", po::value<std::string>(),
      "CSV to write (default: out/sweep-NAME.csv, out/sweep-NAME.shard-K-of-N.csv)")(
      "threads,j", po::value<std::string>()->default_value("0"), "threads (0 = every core)")(
      "shard", po::value<std::string>(), "run slice K of N (K/N, 1-based) of the configurations")(
      "merge", po::bool_switch(), "join shard CSVs (the operands) into --out")(
      "reference", po::value<std::string>(),
      "reference folder holding measurements/ (default: $FULCRUM_REFERENCE_DIR, relative to the "
      "sweep file's folder, or the build's)")("quiet,q", po::bool_switch(), "no progress line");
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
  const InterruptHandlers interrupt_handlers;
  if (vm["merge"].as<bool>()) {
    if (!vm.count("out")) throw InputError(std::nullopt, "fulcrum sweep", "--merge needs --out");
    if (vm.count("shard")) {
      throw InputError(std::nullopt, "fulcrum sweep",
                       "--shard does not apply to --merge (it joins every shard given)");
    }
    sweep::SweepSummary summary;
    publish_csv(vm["out"].as<std::string>(), files, [&](std::ostream& csv) {
      summary = sweep::merge_sweep(files, csv, kFulcrumVersion);
    });
    out << sweep::format_summary(summary) << "wrote " << vm["out"].as<std::string>() << "\n";
    return 0;
  }
  const std::string& sweep_file =
      only_operand(files, "sweep", "expected one SWEEP.yaml (or --merge)");
  sweep::SweepOptions o;
  o.version = kFulcrumVersion;
  o.threads = parse_threads(vm["threads"].as<std::string>());
  if (vm.count("shard"))
    std::tie(o.shard, o.shards) = sweep::parse_shard(vm["shard"].as<std::string>());
  const sweep::SweepSpec spec = sweep::load_sweep(sweep_file, search::strategy_registry().names());
  const std::string reference =
      vm.count("reference") ? vm["reference"].as<std::string>() : reference_dir_for(sweep_file);
  std::string path = "out/sweep-" + spec.name + ".csv";
  if (o.shards > 1) {
    path = "out/sweep-" + spec.name + ".shard-" + std::to_string(o.shard) + "-of-" +
           std::to_string(o.shards) + ".csv";
  }
  if (vm.count("out")) path = vm["out"].as<std::string>();
  check_output_file(path, {sweep_file});
  const sweep::SweepTruths truths =
      sweep::SweepTruths::load(spec, default_data_dir(), reference + "/measurements");
  const auto start = std::chrono::steady_clock::now();
  std::optional<sweep::SweepProgress> progress;
  if (!vm["quiet"].as<bool>()) {
    progress.emplace(err, &err == &std::cerr && isatty(STDERR_FILENO) != 0, spec.name);
  }
  o.progress = [&](std::size_t done, std::size_t total) {
    if (progress) progress->update(done, total);
    throw_if_interrupted();
  };
  sweep::SweepSummary summary;
  publish_csv(path, {sweep_file},
              [&](std::ostream& csv) { summary = sweep::run_sweep(spec, truths, o, csv); });
  if (progress) progress->finish();
  out << sweep::format_summary(summary);
  if (o.shards > 1) out << "shard " << o.shard << "/" << o.shards << "\n";
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "wrote " << path << " in " << fixed(s, 1) << " s\n";
  return 0;
}

}  // namespace fulcrum::sim
