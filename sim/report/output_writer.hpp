// OutputWriter: every file of a run's result, as one RunObserver. Files enabled in
// Scenario::outputs stream while the run goes, under temporary names; finish() adds summary.json
// and gives every file its real name. It writes into a folder of its own: a ResultFolder's
// staging folder, which is then published as a whole (sim/report/result_folder.hpp).
//
//   ResultFolder folder(out_dir);
//   OutputWriter writer(folder.staging_dir(), scenario, device.rails);
//   RunResult result = run(setup, backend, &writer);
//   writer.finish(result);                  // requests.csv, minibatches.csv, power.csv,
//                                           // trace.json (as enabled) and summary.json
//   write_run_json(folder.staging_dir(), info);  // the non-deterministic facts (run_json.hpp)
//   folder.publish();
// If run() throws, the writer's destructor (or an explicit abort()) removes the temporaries.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/report/file_observer.hpp"
#include "sim/runtime/run_observer.hpp"
#include "sim/runtime/run_result.hpp"
#include "sim/scenario/scenario.hpp"

namespace fulcrum::sim {

// Forwards every observation to each of its observers, in the order they were added.
class CompositeObserver : public RunObserver {
 public:
  void add(RunObserver* observer) { observers_.push_back(observer); }  // not owned, not null
  void on_request(const RequestRecord& r) override;
  void on_item(const ItemRecord& item) override;
  void on_epoch(const EpochRecord& epoch) override;
  void on_pipeline_span(const PipelineSpan& span) override;
  void on_power(Time at, const std::vector<double>& rail_power_w) override;
  void on_queue_length(int stream, Time at, std::size_t queued) override;
  void on_advance(Time now) override;
  void on_end(Time end) override;

 private:
  std::vector<RunObserver*> observers_;
};

class OutputWriter final : public RunObserver {
 public:
  // Keeps a copy of `scenario` (for summary.json). `rails` in DeviceSpec::rails order. Throws
  // fulcrum::InputError when out_dir cannot be created or written.
  OutputWriter(std::filesystem::path out_dir, const Scenario& scenario,
               const std::vector<std::string>& rails);
  ~OutputWriter() override;  // abort() unless finish() succeeded
  OutputWriter(const OutputWriter&) = delete;
  OutputWriter& operator=(const OutputWriter&) = delete;

  void on_request(const RequestRecord& r) override;
  void on_item(const ItemRecord& item) override;
  void on_epoch(const EpochRecord& epoch) override;
  void on_pipeline_span(const PipelineSpan& span) override;
  void on_power(Time at, const std::vector<double>& rail_power_w) override;
  void on_queue_length(int stream, Time at, std::size_t queued) override;
  void on_advance(Time now) override;
  void on_end(Time end) override;

  // Completes every file, writes summary.json, then renames all into place (each a
  // publication_step). Throws fulcrum::Error on an I/O failure, Interrupted on a signal (after
  // removing what it could).
  void finish(const RunResult& result);
  // Removes every temporary; nothing of this run is left in out_dir. Safe to call twice.
  void abort() noexcept;

  // Final paths of the files this writer produces (summary.json included), in writing order.
  std::vector<std::filesystem::path> outputs() const;
  const std::filesystem::path& out_dir() const { return out_dir_; }

 private:
  std::filesystem::path out_dir_;
  Scenario scenario_;
  std::vector<std::unique_ptr<FileObserver>> files_;
  CompositeObserver fan_out_;
  std::optional<Time> end_;
  bool done_ = false;
};

}  // namespace fulcrum::sim
