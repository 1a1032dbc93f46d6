// `fulcrum sweep` as functions: run a sweep file (or one shard of it) into a CSV, or merge shard
// CSVs into the bytes the whole run writes (sim/sweep/sweep_runner.hpp). The CSV is published as
// `run` publishes a file: its path checked before any work (check_output_file: absent or a
// regular file, never an input), a lock beside it (FILE.lock: a second writer is refused), rows
// staged in FILE.partial and renamed into place when complete; an interrupt (Interrupted) or a
// failure leaves neither the .partial nor a new CSV.
//
//   SweepReport r = app::sweep({.sweep_file = "scenarios/sweeps/small.yaml", .threads = 2});
//   std::cout << sweep::format_summary(r.summary) << "wrote " << r.csv.string() << "\n";
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/config/data_dirs.hpp"
#include "sim/report/interrupt.hpp"
#include "sim/search/strategy.hpp"
#include "sim/sweep/sweep_runner.hpp"

namespace fulcrum::sim::app {

struct SweepRequest {
  std::string sweep_file;
  // The CSV; absent: out/sweep-NAME.csv, or out/sweep-NAME.shard-K-of-N.csv for a shard.
  std::optional<std::filesystem::path> out = std::nullopt;
  unsigned threads = 0;   // 0 = every core
  std::size_t shard = 1;  // 1-based, of `shards`
  std::size_t shards = 1;
  // Holding measurements/; absent: $FULCRUM_REFERENCE_DIR (a relative one from the sweep file's
  // folder) or the build's.
  std::optional<std::string> reference_dir = std::nullopt;
  std::string data_dir = default_data_dir();
  // After each chunk of configurations (from the calling thread); may throw Interrupted.
  std::function<void(const std::string& sweep_name, std::size_t done, std::size_t total)> progress =
      {};
  // The strategies the sweep file may name; null: the built-ins (search::strategy_registry()).
  const search::StrategyRegistry* strategies = nullptr;
};

struct MergeRequest {
  std::vector<std::string> shard_files;
  std::filesystem::path out;
};

struct SweepReport {
  sweep::SweepSummary summary;
  std::filesystem::path csv;  // as published
  std::size_t shard = 1;
  std::size_t shards = 1;
};

// The parts of sweep() for a runner that spreads one sweep over processes (sim/mpi/): the CSV's
// path as sweep() names it, checked (InputError as sweep()); the ground truths it loads; and
// the CSV's publication.
std::filesystem::path sweep_output(const SweepRequest& request, const sweep::SweepSpec& spec);
sweep::SweepTruths sweep_truths(const SweepRequest& request, const sweep::SweepSpec& spec);

// A sweep CSV being written: from construction its lock is held (InputError when another
// fulcrum holds it) and csv() writes into FILE.partial; publish() renames it into place (or
// throws Interrupted for a pending signal). Destroyed unpublished, it leaves nothing.
class SweepCsv {
 public:
  explicit SweepCsv(std::filesystem::path path);
  ~SweepCsv();
  SweepCsv(const SweepCsv&) = delete;
  SweepCsv& operator=(const SweepCsv&) = delete;
  std::ostream& csv();
  void publish();
  // What an interrupt leaves: "...; nothing was written to FILE".
  Interrupted interrupted(int signal) const;

 private:
  struct Open;
  std::filesystem::path path_;
  std::unique_ptr<Open> open_;
};

// Bad input (the sweep file, the reference data, the output path) throws InputError before any
// configuration runs.
SweepReport sweep(const SweepRequest& request);
// InputError for shards of another sweep file or build, a configuration missing or repeated, a
// configuration short of a row (sweep::merge_sweep).
SweepReport merge(const MergeRequest& request);

}  // namespace fulcrum::sim::app
