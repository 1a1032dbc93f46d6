// TraceJson: trace.json in the Chrome / Perfetto JSON trace format (open in ui.perfetto.dev or
// chrome://tracing). Timestamps are microseconds. Tracks (docs/METRICS.md):
//   pid 1 "GPU":              tid c = GPU context c (0 training, 1+i stream i); "X" per minibatch.
//   pid 2 "Power":            "C" counter "power_w" with one argument per rail (watts).
//   pid 3+i "Stream <name>":  "X" per inference batch, dispatch -> completion (tid = lane; a batch
//                             overlapping an earlier one of the same stream goes to the next
//                             lane), and the "C" counter "queued_requests".
//   pid 3+n "Data pipeline":  (n = streams; only with a dataloader) tid 1+w = worker w, or tid 0
//                             the main process (workers = 0): "X" "fetch" and "preprocess" per
//                             minibatch; tid kStorageTid "storage": "X" "read" per request.
// Events are written as they are observed, one per line. Counters have a resolution of
// kCounterResolution (1 ms): of the power or queue-length changes within one interval
// [k ms, (k + 1) ms) of simulated time only the last is written, at its own time, so a counter
// track holds at most 1,000 events per simulated second however fast it changes (changes at one
// instant last zero time; changes within a millisecond are invisible at any useful zoom).
// Unchanged queue lengths are not repeated. "X" events (one per minibatch and per inference
// batch) are all written, exactly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/report/file_observer.hpp"

namespace fulcrum::sim {

class TraceJson final : public FileObserver {
 public:
  static constexpr int kGpuPid = 1;
  static constexpr int kPowerPid = 2;
  static constexpr int kFirstStreamPid = 3;
  static constexpr Time kCounterResolution = kMillisecond;

  // `stream_names[i]` names inference stream i; rails in DeviceSpec::rails order.
  TraceJson(std::filesystem::path final_path, std::vector<std::string> rails,
            std::vector<std::string> stream_names, bool has_training);

  void on_request(const RequestRecord& r) override;
  void on_item(const ItemRecord& item) override;
  void on_power(Time at, const std::vector<double>& rail_power_w) override;
  void on_queue_length(int stream, Time at, std::size_t queued) override;
  void on_end(Time end) override;
  void on_pipeline_span(const PipelineSpan& span) override;

  static constexpr int kStorageTid = 10000;

 private:
  // One inference batch, gathered from its requests (which complete together).
  struct OpenBatch {
    std::uint64_t batch_id = 0;
    Time dispatch = 0;
    Time start = 0;
    Time completion = 0;
    Time first_arrival = 0;
    std::uint64_t requests = 0;
  };
  struct StreamState {
    std::optional<OpenBatch> open;
    std::vector<Time> lane_end;              // latest end of each lane's batches
    std::optional<std::size_t> last_queued;  // last value written
    std::optional<Time> pending_at;          // a change not yet written (same-time merging)
    std::size_t pending_queued = 0;
    std::string queue_prefix;  // its counter event up to the timestamp
  };

  void write_tail(Time end) override;
  void emit_batch(int stream, const OpenBatch& b);
  void emit_power();
  void emit_queue(StreamState& s);
  void metadata(int pid, std::optional<int> tid, const char* what, std::string_view name,
                int sort_index);

  std::vector<std::string> rails_;
  std::vector<std::string> stream_names_;
  std::vector<StreamState> streams_;
  std::string power_prefix_;            // the power counter's text up to "ts"
  std::vector<std::string> rail_keys_;  // "\"VDD_GPU_SOC\":" per rail
  bool power_pending_ = false;
  Time power_at_ = 0;
  std::vector<double> power_w_;
  bool first_event_ = true;
  std::vector<int> pipeline_tids_;  // tracks of the data pipeline named so far
};

}  // namespace fulcrum::sim
