// `fulcrum study STUDY.yaml`: full scenario runs over a grid of scenario keys and seeds, one CSV
// row per run and the mean and 95% confidence interval over seeds (docs/STUDIES.md).
#include <unistd.h>

#include <boost/program_options.hpp>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "models/error.hpp"
#include "sim/app/study.hpp"
#include "sim/cli/verb_support.hpp"
#include "sim/mpi/mpi_runner.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/report/number_format.hpp"
#include "sim/report/study_csv.hpp"

namespace fulcrum::sim {

namespace po = boost::program_options;

int cmd_study(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  po::options_description options("Options");
  options.add_options()("help,h", "this help")(
      "out", po::value<std::string>(),
      "output folder (default: out/<study name>): absent, empty or an earlier result")(
      "wait", "if another run is writing the output folder, wait for it instead of failing")(
      "jobs,j", po::value<std::string>()->default_value("0"), "threads (0: every core)")(
      "quiet,q", "print nothing on success (files are still written)")(
      "progress", "show progress even when stderr is not a terminal (one line per update)")(
      "json", "print every run's figures as JSON on stdout (the rows of study.csv)");
  const auto [vm, operands] = parse_verb("study", args, options, "study");
  if (vm.count("help")) {
    out << verb_usage(
        "study STUDY.yaml [--out DIR] [--wait] [--jobs N] [--quiet] [--progress] [--json]",
        "Runs a study file (docs/STUDIES.md): a base scenario run at every point of a grid\n"
        "over scenario keys (the --set paths of `fulcrum run`), optional zipped keys, over\n"
        "seeds, on every core. Writes study.csv (one row per run: training rate, per-stream\n"
        "p50/p99/max latency and stability, average and max-window power, energy, budgets\n"
        "met), study_summary.csv (per point over its seeds: the mean and the half-width of\n"
        "a 95% confidence interval of each figure) and study_latency.csv (each run's latency\n"
        "percentiles, for CDFs) into the output folder, published at once as `run` does: on\n"
        "bad input or a failed run nothing is written.",
        options);
    return 0;
  }
  if (operands.empty()) throw InputError(std::nullopt, "fulcrum study", "missing the STUDY file");
  app::StudyRequest request;
  request.study_path = only_operand(
      operands, "study", "expected one STUDY file, got " + std::to_string(operands.size()));
  if (vm.count("out")) request.out_dir = vm["out"].as<std::string>();
  request.wait = vm.count("wait") > 0;
  request.jobs = parse_thread_count(vm["jobs"].as<std::string>(), "--jobs");
  const bool quiet = vm.count("quiet") > 0;
  const bool terminal = isatty(STDERR_FILENO) != 0;
  const bool show = !quiet && (terminal || vm.count("progress"));

  // Started by an MPI launcher (docs/MPI.md): the ranks split the runs; rank 0 prints and
  // publishes. A plain process never loads MPI.
  const std::unique_ptr<mpi::Communicator> world = mpi::open_world();
  const InterruptHandlers interrupt_handlers;
  app::StudyProgress progress;
  int shown_pct = -1;
  if (show) {
    progress = [&](std::size_t done, std::size_t total) {
      const int pct = static_cast<int>(done * 100 / total);
      if (terminal) {
        err << "\rfulcrum study: " << done << "/" << total << " runs (" << pct << " %)"
            << std::flush;
      } else if (pct != shown_pct) {
        err << "fulcrum study: " << done << "/" << total << " runs (" << pct << " %)\n";
      }
      shown_pct = pct;
    };
  }
  std::optional<app::StudyReport> report;
  if (world) {
    report = mpi::study_over_ranks(*world, request, progress);
    if (!report) return 0;  // not rank 0: the job's outcome is rank 0's to print
  } else {
    report = app::run_study(request, progress);
  }
  const app::StudyReport& r = *report;
  if (show && terminal) err << "\n";
  if (vm.count("json")) {
    out << study_json(r.spec.name, r.out_dir.string(), app::study_axes(r.spec), r.rows);
  }
  if (!quiet) {
    err << "fulcrum study: " << r.rows.size() << " runs of " << r.spec.points() << " points in "
        << fixed(r.wall_s, 2) << " s; wrote " << r.outputs.size() << " files to "
        << r.out_dir.string() << "\n";
  }
  return 0;
}

}  // namespace fulcrum::sim
