// `fulcrum sweep SWEEP.yaml` and `fulcrum sweep --merge`: options -> SweepRequest/MergeRequest ->
// app::sweep/app::merge -> print (docs/SEARCH.md, "fulcrum sweep").
#include <unistd.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/app/sweep.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/mpi/mpi_runner.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/number_format.hpp"
#include "sim/report/sweep_progress.hpp"
#include "sim/report/sweep_report.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

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
      "sweep file's folder, or the build's)")("quiet,q", po::bool_switch(), "no progress line")(
      "json", "print the summary as JSON (docs/METRICS.md) instead of the text table");
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
  // Started by an MPI launcher (docs/MPI.md): the ranks split the configurations; rank 0
  // prints and publishes. A plain process never loads MPI.
  const std::unique_ptr<mpi::Communicator> world = mpi::open_world();
  const InterruptHandlers interrupt_handlers;
  if (vm["merge"].as<bool>()) {
    if (world && world->rank() != 0) return 0;  // a merge is rank 0's alone
    if (!vm.count("out")) throw InputError(std::nullopt, "fulcrum sweep", "--merge needs --out");
    if (vm.count("shard")) {
      throw InputError(std::nullopt, "fulcrum sweep",
                       "--shard does not apply to --merge (it joins every shard given)");
    }
    const app::SweepReport r = app::merge({files, vm["out"].as<std::string>()});
    if (vm.count("json")) {
      out << sweep_json(r.summary, r.csv, r.shard, r.shards);
    } else {
      out << sweep::format_summary(r.summary) << "wrote " << r.csv.string() << "\n";
    }
    return 0;
  }
  app::SweepRequest request;
  request.sweep_file = only_operand(files, "sweep", "expected one SWEEP.yaml (or --merge)");
  request.threads = parse_thread_count(vm["threads"].as<std::string>(), "--threads");
  if (vm.count("shard")) {
    std::tie(request.shard, request.shards) = sweep::parse_shard(vm["shard"].as<std::string>());
  }
  if (vm.count("out")) request.out = vm["out"].as<std::string>();
  if (vm.count("reference")) request.reference_dir = vm["reference"].as<std::string>();
  std::optional<SweepProgress> progress;
  if (!vm["quiet"].as<bool>()) {
    const bool terminal = &err == &std::cerr && isatty(STDERR_FILENO) != 0;
    request.progress = [&](const std::string& name, std::size_t done, std::size_t total) {
      if (!progress) progress.emplace(err, terminal, name);
      progress->update(done, total);
    };
  }
  const auto start = std::chrono::steady_clock::now();
  std::optional<app::SweepReport> report;
  if (world) {
    report = mpi::sweep_over_ranks(*world, request);
    if (!report) return 0;  // not rank 0: the job's outcome is rank 0's to print
  } else {
    report = app::sweep(request);
  }
  const app::SweepReport& r = *report;
  if (progress) progress->finish();
  if (vm.count("json")) {
    out << sweep_json(r.summary, r.csv, r.shard, r.shards);
    return 0;
  }
  out << sweep::format_summary(r.summary);
  if (r.shards > 1) out << "shard " << r.shard << "/" << r.shards << "\n";
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "wrote " << r.csv.string() << " in " << fixed(s, 1) << " s\n";
  return 0;
}

}  // namespace fulcrum::sim
