// FileObserver: a RunObserver that streams one output file through an AtomicFile. The output
// writers (requests.csv, minibatches.csv, power.csv, trace.json) derive from it.
#pragma once

#include <filesystem>

#include "sim/report/atomic_file.hpp"
#include "sim/runtime/run_observer.hpp"

namespace fulcrum::sim {

class FileObserver : public RunObserver {
 public:
  explicit FileObserver(std::filesystem::path final_path) : file_(std::move(final_path)) {}

  // Writes whatever the format needs at the end (pending samples, closing brackets) and closes
  // the temporary. `end` is the run's end when on_end() was not called. Throws fulcrum::Error.
  void close(Time end) {
    write_tail(end);
    file_.close();
  }
  void publish() { file_.publish(); }
  void discard() noexcept { file_.discard(); }
  const std::filesystem::path& final_path() const { return file_.final_path(); }
  // At most `rows` rows (events of a trace); see AtomicFile::limit_rows.
  void limit_rows(std::uint64_t rows) { file_.limit_rows(rows); }

 protected:
  virtual void write_tail(Time /*end*/) {}
  AtomicFile file_;
};

}  // namespace fulcrum::sim
